//===- Run.h - compile and run one function, timed --------------*- C++ -*-===//
//
// The steps of a run shared by mxfp8-run and the compare report: compile the
// entry function (and what it references, without the tool attributes) for
// a device, call it, and check its results against the signature.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_RUNNER_RUN_H
#define MXFP8TRAIN_RUNNER_RUN_H

#include "mxfp8train/Runner/Signature.h"

#include <memory>
#include <vector>

namespace mlir::mxfp8train {

/// Compiles function `entry` of `module` and the functions it references
/// (a clone; `mxfp8run.*` and `mxfp8train.role` argument and result
/// attributes removed) for `options.device`. `seconds` receives the time.
llvm::Expected<std::unique_ptr<Executable>>
compileEntry(ModuleOp module, llvm::StringRef entry,
             const ExecutableOptions &options, double &seconds);

/// The outcome of one call.
struct RunResult {
  llvm::Expected<std::vector<HostTensor>> outputs{std::vector<HostTensor>()};
  /// Wall time of the call, with the copies.
  double seconds = 0.0;
  /// GPU: the call alone (CUDA events), without the copies.
  double deviceSeconds = 0.0;
};

/// Calls `name` on `exe`, timing it.
void runTimed(const Executable &exe, llvm::StringRef name,
              llvm::ArrayRef<HostTensor> inputs, RunResult &result);

/// Checks the outputs of the `what` module (consumed on error) against
/// `sig`: its results followed by `numExtra` more.
llvm::Error checkOutputs(const Signature &sig, RunResult &result,
                         llvm::StringRef what, size_t numExtra = 0);

} // namespace mlir::mxfp8train

#endif // MXFP8TRAIN_RUNNER_RUN_H
