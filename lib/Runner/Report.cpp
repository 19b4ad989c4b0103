//===- Report.cpp - what mxfp8-run prints -----------------------*- C++ -*-===//
//
// The text reports of mxfp8-run (Report.h): inputs, outputs, the
// conversion summary and the compare tables.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Runner/Report.h"
#include "mxfp8train/Support/Report.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Format.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::mxfp8train;

void mlir::mxfp8train::printInputs(llvm::raw_ostream &os, const Signature &sig,
                                   const PreparedInputs &inputs,
                                   const InputOptions &options) {
  for (auto [i, description] : llvm::enumerate(inputs.descriptions))
    os << "  #" << i << " " << sig.argNames[i] << " : "
       << formatTensorType(sig.argTypes[i]) << "  " << description << "\n";
  if (options.files.empty())
    os << "  (generated with seed " << options.seed << " in "
       << llvm::format("%.2f", inputs.seconds) << " s)\n";
  else
    os << "  (read in " << llvm::format("%.2f", inputs.seconds) << " s)\n";
}

void mlir::mxfp8train::printOutputs(llvm::raw_ostream &os, const Signature &sig,
                                    llvm::ArrayRef<HostTensor> outputs,
                                    llvm::ArrayRef<std::string> files) {
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"#", "name", "role", "type", "L2 norm", "max abs", "file"});
  for (auto [i, out] : llvm::enumerate(outputs)) {
    double sq = 0.0, maxAbs = 0.0;
    for (int64_t k = 0, n = out.getNumElements(); k < n; ++k) {
      double v = out.getAsDouble(k);
      sq += v * v;
      maxAbs = std::isnan(v) || std::isnan(maxAbs)
                   ? std::numeric_limits<double>::quiet_NaN()
                   : std::fmax(maxAbs, std::fabs(v));
    }
    rows.push_back({std::to_string(i), sig.resultNames[i],
                    sig.resultRoles[i].empty() ? "-" : sig.resultRoles[i],
                    formatTensorType(sig.resultTypes[i]),
                    formatDouble("%.6g", std::sqrt(sq)),
                    formatDouble("%.6g", maxAbs), files[i]});
  }
  os << "outputs:\n" << formatTable(rows);
}

void mlir::mxfp8train::printConversionSummary(llvm::raw_ostream &os,
                                              const ConversionSummary &summary,
                                              bool showRemarks) {
  os << "conversion: " << summary.pipeline << "\n";
  auto printRoles = [&](const std::map<std::string, int64_t> &byRole) {
    if (byRole.empty())
      return;
    os << " (";
    for (auto [k, entry] : llvm::enumerate(byRole))
      os << (k ? ", " : "") << entry.first << " " << entry.second;
    os << ")";
  };
  os << "  matmuls: " << summary.matmulsBefore << " before, "
     << summary.scaledMms << " scaled_mm after";
  printRoles(summary.scaledByRole);
  if (summary.emulated) {
    os << ", " << summary.emulated << " emulated (on dequantized operands)";
    printRoles(summary.emulatedByRole);
  }
  os << ", " << summary.keptHighPrecision << " kept in high precision";
  if (summary.skipped)
    os << " (" << summary.skipped
       << " of them skipped by the rewrite: see its remarks)";
  os << "\n";
  if (showRemarks)
    for (const std::string &remark : summary.remarks)
      os << "  remark: " << remark << "\n";
}

void mlir::mxfp8train::printCompareReport(llvm::raw_ostream &os,
                                          const CompareReport &report) {
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"#", "name", "role", "type", "GEMMs", "SQNR dB",
                  "max abs err", "bar dB", "result"});
  for (auto [i, row] : llvm::enumerate(report.results)) {
    std::string verdict = "-", barText = "-";
    if (row.bar && row.barIsReference) {
      barText = "(" + formatDb(*row.bar) + ")";
      verdict = row.sqnrDb >= *row.bar ? "(above)" : "(below)";
    } else if (row.bar) {
      verdict = row.passed ? "PASS" : "FAIL";
      barText = ">= " + formatDb(*row.bar);
    }
    rows.push_back({std::to_string(i), row.name,
                    row.role.empty() ? "-" : row.role, row.type,
                    std::to_string(row.numGemms), formatDb(row.sqnrDb),
                    formatDouble("%.3e", row.maxAbsError), barText, verdict});
  }
  os << "results (converted vs original):\n" << formatTable(rows);
  if (report.numReference)
    os << "  note: a result behind several quantized GEMMs accumulates their "
          "errors; torchao's bar of its role (Float8 grouped: the MoE layer's) "
          "is shown in parentheses and not checked ("
       << (report.perMatmul ? "the per-matmul table below checks each GEMM"
                            : "--per-matmul checks each GEMM")
       << ")\n";
  for (auto [i, row] : llvm::enumerate(report.results))
    if (row.bothAllZero)
      os << "  note: result #" << i << " (" << row.name
         << ") is all zeros in both runs: its comparison checks nothing "
            "(generated integer inputs such as offs are zeros; give them "
            "with --input)\n";

  if (report.perMatmul) {
    std::vector<std::vector<std::string>> matmulRows;
    matmulRows.push_back({"matmul", "role", "type", "SQNR dB", "max abs err",
                          "bar dB", "result"});
    for (const MatmulComparison &row : report.matmuls) {
      if (!row.compared) {
        matmulRows.push_back({row.name, row.role.empty() ? "-" : row.role,
                              row.type, "-", "-", "-", row.decision});
        continue;
      }
      matmulRows.push_back({row.name, row.role, row.type, formatDb(row.sqnrDb),
                            formatDouble("%.3e", row.maxAbsError),
                            ">= " + formatDb(row.bar),
                            row.passed ? "PASS" : "FAIL"});
    }
    os << "matmuls (each converted alone on the original's inputs):\n"
       << formatTable(matmulRows);
    for (const MatmulComparison &row : report.matmuls)
      if (row.bothAllZero)
        os << "  note: matmul " << row.name
           << " is all zeros in both runs: its comparison checks "
              "nothing\n";
  }
  os << llvm::format("time: compile original %.2f s, converted %.2f s",
                     report.compileOriginalSeconds,
                     report.compileConvertedSeconds);
  if (report.concurrently)
    os << llvm::format(" (concurrently: %.2f s)", report.compileWallSeconds);
  os << llvm::format("; run original%s %.2f s, converted %.2f s",
                     report.perMatmul ? " + per-matmul" : "",
                     report.runOriginalSeconds, report.runConvertedSeconds);
  if (report.concurrently)
    os << llvm::format(" (concurrently: %.2f s)", report.runWallSeconds);
}
