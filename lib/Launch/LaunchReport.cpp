//===- LaunchReport.cpp - what mxfp8-launch prints --------------*- C++ -*-===//
//
// The function list, probe, comparison and bars tables of mxfp8-launch
// (LaunchReport.h).
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Launch/LaunchReport.h"
#include "mxfp8train/Support/Report.h"

#include <string>

using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::launch;

using Rows = std::vector<std::vector<std::string>>;

void mlir::mxfp8train::launch::printFunctions(const Manifest &manifest,
                                              std::ostream &os) {
  for (const FunctionSpec &func : manifest.functions) {
    os << "@" << func.name;
    if (!func.unsupported.empty()) {
      os << "  (cannot be called: " << func.unsupported << ")\n";
      continue;
    }
    os << "(";
    for (size_t i = 0; i < func.args.size(); ++i)
      os << (i ? ", " : "") << func.args[i].name << ": "
         << func.args[i].formatType();
    os << ") -> (";
    for (size_t i = 0; i < func.results.size(); ++i)
      os << (i ? ", " : "") << func.results[i].name << ": "
         << func.results[i].formatType();
    os << ")\n";
  }
}

int mlir::mxfp8train::launch::printMatmulProbes(
    const FunctionSpec &spec, const std::vector<HostBuffer> &results,
    std::ostream &os) {
  std::vector<MatmulProbe> probes = getMatmulProbes(spec, results);
  if (probes.empty())
    return 0;
  Rows rows;
  rows.push_back(
      {"matmul", "role", "type", "SQNR dB", "max abs err", "bar dB", "result"});
  int failed = 0;
  for (const MatmulProbe &probe : probes) {
    const TensorSpec &hp = spec.results[probe.index];
    failed += !probe.passes;
    rows.push_back({hp.name, probe.role, hp.formatType(),
                    formatDb(probe.comparison.stats.sqnrDb),
                    formatDouble("%.3e", probe.comparison.stats.maxAbsError),
                    ">= " + formatDouble("%.2f", probe.barDb),
                    probe.passes ? "PASS" : "FAIL"});
  }
  os << "matmuls (each converted alone on the step's high-precision "
        "inputs, torchao's per-linear bars):\n"
     << formatTable(rows) << "matmul bars: " << probes.size() - failed
     << " passed, " << failed << " failed\n";
  return failed;
}

void mlir::mxfp8train::launch::printComparisonTable(
    const FunctionSpec &spec, const ResultsComparison &comparison,
    std::ostream &os) {
  Rows rows;
  rows.push_back({"#", "name", "type", "bit-exact", "differing bytes",
                  "differing elements", "SQNR dB", "max abs err"});
  for (size_t i = 0; i < spec.results.size(); ++i) {
    const TensorSpec &result = spec.results[i];
    const TensorComparison &c = comparison.results[i];
    rows.push_back(
        {std::to_string(i), result.name, result.formatType(),
         c.isBitExact() ? "yes" : "no", std::to_string(c.differingBytes),
         std::to_string(c.differingElements), formatDb(c.stats.sqnrDb),
         formatDouble("%.3e", c.stats.maxAbsError)});
  }
  os << formatTable(rows);
}

int mlir::mxfp8train::launch::printBarsTable(
    const FunctionSpec &spec, const ResultsComparison &comparison,
    std::ostream &os) {
  // The torchao per-linear bar holds for one quantized GEMM and is only
  // shown for results behind several (as mxfp8-run --compare does; its
  // per-matmul table is not available here).
  bool anyBar = false;
  for (const TensorSpec &result : spec.results)
    anyBar |= result.hasMinSqnr || isStepRole(result.role);
  if (!anyBar)
    return 0;
  int barsFailed = 0;
  Rows rows;
  rows.push_back({"#", "name", "role", "SQNR dB", "bar dB", "result"});
  for (size_t i = 0; i < spec.results.size(); ++i) {
    const TensorSpec &result = spec.results[i];
    double sqnr = comparison.results[i].stats.sqnrDb;
    std::string bar = "-", verdict = "-";
    if (result.hasMinSqnr) {
      bool pass = sqnr >= result.minSqnr;
      barsFailed += !pass;
      bar = ">= " + formatDouble("%.2f", result.minSqnr);
      verdict = pass ? "PASS" : "FAIL";
    } else if (isStepRole(result.role)) {
      double roleBar = getPerLinearBarDb(result.role);
      bar = "(" + formatDouble("%.2f", roleBar) + ")";
      verdict = sqnr >= roleBar ? "(above)" : "(below)";
    }
    rows.push_back({std::to_string(i), result.name,
                    result.role.empty() ? "-" : result.role, formatDb(sqnr),
                    bar, verdict});
  }
  os << "bars (SPEC §8; in parentheses: torchao's per-linear bar of the "
        "role, not checked for a whole step):\n"
     << formatTable(rows);
  return barsFailed;
}
