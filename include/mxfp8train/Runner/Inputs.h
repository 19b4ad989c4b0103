//===- Inputs.h - the inputs of a run, generated or read --------*- C++ -*-===//
//
// The inputs of mxfp8-run and of the compare report (docs/mxfp8-run.md,
// "Inputs"): seeded normal samples for floats (`mxfp8run.std` overrides the
// standard deviation), byte 127 (1.0) for e8m0 scales, zeros for integers,
// the values of an `mxfp8run.values` attribute, or .npy files.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_RUNNER_INPUTS_H
#define MXFP8TRAIN_RUNNER_INPUTS_H

#include "mxfp8train/Runner/Signature.h"

#include <string>
#include <vector>

namespace mlir::mxfp8train {

/// Where the inputs come from.
struct InputOptions {
  /// Seed of the generated inputs.
  uint64_t seed = 0;
  /// Standard deviation of generated float inputs without `mxfp8run.std`.
  double defaultStd = 1.0;
  /// One .npy file per argument, in order; empty: generate every input.
  std::vector<std::string> files;
};

/// The inputs of one run.
struct PreparedInputs {
  std::vector<HostTensor> tensors;
  /// Per input: the file it was read from, or how it was generated
  /// (`normal(0, 0.02)`, `zeros`, `scale byte 127 (1.0)`,
  /// `mxfp8run.values`).
  std::vector<std::string> descriptions;
  /// Time spent generating or reading.
  double seconds = 0.0;
};

/// Generates argument `index` of `sig`; `description` says how.
llvm::Expected<HostTensor> generateInput(const Signature &sig, unsigned index,
                                         uint64_t seed, double defaultStd,
                                         std::string &description);

/// Reads argument `index` of `sig` from the .npy file `path` (the shape
/// must match; bf16 accepts `<u2` bits or `<f4`, rounded to nearest even).
llvm::Expected<HostTensor> readInput(const Signature &sig, unsigned index,
                                     llvm::StringRef path);

/// Builds every input of `sig` as `options` says.
llvm::Expected<PreparedInputs> prepareInputs(const Signature &sig,
                                             const InputOptions &options);

} // namespace mlir::mxfp8train

#endif // MXFP8TRAIN_RUNNER_INPUTS_H
