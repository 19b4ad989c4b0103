//===- Compare.h - the converted module against the original ----*- C++ -*-===//
//
// The compare mode of mxfp8-run as a library: run a function as written and
// after its MXFP8 conversion on the same inputs and report, per result, the
// SQNR against the high-precision run and the torchao bar that applies
// (Bars.h: SPEC §8 for MX recipes, SPEC-float8 §7 for Float8); optionally also
// each matmul converted alone on the high-precision inputs it sees (torchao's
// per-linear tests).
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_RUNNER_COMPARE_H
#define MXFP8TRAIN_RUNNER_COMPARE_H

#include "mxfp8train/Runner/Conversion.h"
#include "mxfp8train/Runner/Inputs.h"
#include "mxfp8train/Support/Sqnr.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::mxfp8train {

/// One result of the function, converted against original.
struct ResultComparison {
  std::string name;
  /// `mxfp8train.role`, or "".
  std::string role;
  /// `64x128xbf16`.
  std::string type;
  /// Quantized GEMMs the result depends on in the converted function.
  int64_t numGemms = 0;
  double sqnrDb = 0.0;
  double maxAbsError = 0.0;
  /// The bar (dB), if one applies: `mxfp8run.min_sqnr`, else the role's.
  std::optional<double> bar;
  /// The role's bar is only shown (the result is behind several quantized
  /// GEMMs whose errors accumulate); it does not count as pass or fail.
  bool barIsReference = false;
  /// False only when a checked bar is missed.
  bool passed = true;
  /// The original and the converted result are all zeros: the inf dB
  /// compares nothing (e.g. all tokens in empty groups, from generated offs
  /// of zeros).
  bool bothAllZero = false;
};

/// One matmul converted alone (per-matmul mode).
struct MatmulComparison {
  /// Location name of the matmul (or `matmul#i`).
  std::string name;
  /// forward / dgrad / wgrad; "" when not converted.
  std::string role;
  std::string type;
  /// `converted`, `kept in high precision` or `skipped: <reason>`.
  std::string decision;
  /// False for a matmul the conversion did not convert (no numbers).
  bool compared = false;
  double sqnrDb = 0.0;
  double maxAbsError = 0.0;
  double bar = 0.0;
  bool passed = true;
  /// Both results of the matmul are all zeros (see ResultComparison).
  bool bothAllZero = false;
};

/// How compareModules() runs the two modules.
struct CompareOptions {
  ExecutableOptions executable;
  /// Also compare each matmul converted alone.
  bool perMatmul = true;
  /// On the CPU, compile and run the two modules on two threads at once.
  bool parallel = true;
};

/// The outcome of a comparison.
struct CompareReport {
  /// The recipe and what the conversion did (set by compareFunction()).
  std::string recipe;
  ConversionSummary conversion;
  std::vector<ResultComparison> results;
  /// Per-matmul mode only.
  std::vector<MatmulComparison> matmuls;
  bool perMatmul = false;
  /// The modules were compiled and run on two threads.
  bool concurrently = false;
  double compileOriginalSeconds = 0.0, compileConvertedSeconds = 0.0;
  double compileWallSeconds = 0.0;
  double runOriginalSeconds = 0.0, runConvertedSeconds = 0.0;
  double runWallSeconds = 0.0;
  /// GPU: each call alone (CUDA events).
  double gpuOriginalSeconds = 0.0, gpuConvertedSeconds = 0.0;
  /// Checked rows (results and matmuls) at or above / below their bar, and
  /// results whose bar is only shown.
  int numPassed = 0, numFailed = 0, numReference = 0;
  /// The results of the original and the converted function.
  std::vector<HostTensor> originalResults, convertedResults;

  /// No checked row is below its bar.
  bool passed() const { return numFailed == 0; }
};

/// Error statistics of `out` against `ref` (same element count). Fixed
/// chunks, merged in order, keep the sums independent of the thread count.
ErrorStats compareTensors(const HostTensor &ref, const HostTensor &out);

/// Runs `sig`'s function in `module` and in `converted` (its conversion,
/// with `recipe`) on `inputs` and compares every result (and, with
/// `options.perMatmul`, every matmul). Fails on errors only: a missed bar
/// is in the report.
llvm::Expected<CompareReport>
compareModules(ModuleOp module, ModuleOp converted, const Signature &sig,
               RecipeAttrInterface recipe, llvm::ArrayRef<HostTensor> inputs,
               const CompareOptions &options);

/// The whole compare mode on function `function` of `module` (not
/// modified): the signature, the conversion with `recipe` (a name or a
/// recipe body), generated inputs, and compareModules().
llvm::Expected<CompareReport> compareFunction(ModuleOp module,
                                              llvm::StringRef function,
                                              llvm::StringRef recipe,
                                              const CompareOptions &options,
                                              const InputOptions &inputOptions);

} // namespace mlir::mxfp8train

#endif // MXFP8TRAIN_RUNNER_COMPARE_H
