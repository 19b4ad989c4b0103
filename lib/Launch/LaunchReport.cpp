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

/// How a table header names the recipe of the bars.
static std::string describeRecipe(const std::string &recipe) {
  return recipe.empty() ? "the module's recipe (not in the manifest)" : recipe;
}

int mlir::mxfp8train::launch::printMatmulProbes(
    const FunctionSpec &spec, const std::string &recipe,
    const std::vector<HostBuffer> &results, std::ostream &os) {
  std::vector<MatmulProbe> probes = getMatmulProbes(spec, results);
  if (probes.empty())
    return 0;
  Rows rows;
  rows.push_back(
      {"matmul", "role", "type", "SQNR dB", "max abs err", "bar dB", "result"});
  int failed = 0, checked = 0;
  for (const MatmulProbe &probe : probes) {
    const TensorSpec &hp = spec.results[probe.index];
    failed += !probe.passes;
    checked += probe.hasBar;
    rows.push_back(
        {hp.name, probe.role, hp.formatType(),
         formatDb(probe.comparison.stats.sqnrDb),
         formatDouble("%.3e", probe.comparison.stats.maxAbsError),
         probe.hasBar ? ">= " + formatDouble("%.2f", probe.barDb) : "-",
         !probe.hasBar  ? "-"
         : probe.passes ? "PASS"
                        : "FAIL"});
  }
  os << "matmuls (each converted alone on the step's high-precision "
        "inputs, torchao's per-linear bars of "
     << describeRecipe(recipe) << "):\n"
     << formatTable(rows) << "matmul bars: " << checked - failed << " passed, "
     << failed << " failed\n";
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
    const FunctionSpec &spec, const std::string &recipe,
    const ResultsComparison &comparison, std::ostream &os) {
  bool anyBar = false;
  for (const TensorSpec &result : spec.results)
    anyBar |= result.hasMinSqnr || result.hasBar;
  if (!anyBar)
    return 0;
  int barsFailed = 0;
  Rows rows;
  rows.push_back({"#", "name", "role", "SQNR dB", "bar dB", "result"});
  for (size_t i = 0; i < spec.results.size(); ++i) {
    const TensorSpec &result = spec.results[i];
    double sqnr = comparison.results[i].stats.sqnrDb;
    std::string bar = "-", verdict = "-";
    bool reference = !result.hasMinSqnr && result.barIsReference;
    if (result.hasMinSqnr || result.hasBar) {
      double db = result.hasMinSqnr ? result.minSqnr : result.bar;
      bool above = sqnr >= db;
      if (reference) {
        bar = "(" + formatDouble("%.2f", db) + ")";
        verdict = above ? "(above)" : "(below)";
      } else {
        barsFailed += !above;
        bar = ">= " + formatDouble("%.2f", db);
        verdict = above ? "PASS" : "FAIL";
      }
    }
    rows.push_back({std::to_string(i), result.name,
                    result.role.empty() ? "-" : result.role, formatDb(sqnr),
                    bar, verdict});
  }
  os << "bars (mxfp8run.min_sqnr, else torchao's bar of the role under "
     << describeRecipe(recipe)
     << "; in parentheses: shown, not checked, for a result behind several "
        "quantized GEMMs):\n"
     << formatTable(rows);
  return barsFailed;
}
