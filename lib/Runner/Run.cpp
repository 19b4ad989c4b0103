//===- Run.cpp - compile and run one function, timed ----------------------===//

#include "mxfp8train/Runner/Run.h"
#include "mxfp8train/Tools/ModuleSource.h"

#include <chrono>

using namespace mlir;
using namespace mlir::mxfp8train;

using Clock = std::chrono::steady_clock;

/// Seconds since `start`.
static double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

llvm::Expected<std::unique_ptr<Executable>>
mlir::mxfp8train::compileEntry(ModuleOp module, StringRef entry,
                               const ExecutableOptions &options,
                               double &seconds) {
  Clock::time_point start = Clock::now();
  OwningOpRef<ModuleOp> stripped(module.clone());
  (void)keepReachableFunctions(*stripped, {entry.str()});
  // The argument and result attributes (mxfp8run.*, mxfp8train.role) are
  // for the tools; they must not reach the LLVM function signatures.
  stripped->walk([](func::FuncOp func) {
    func.removeArgAttrsAttr();
    func.removeResAttrsAttr();
  });
  llvm::Expected<std::unique_ptr<Executable>> exe =
      compileExecutable(*stripped, options);
  seconds = secondsSince(start);
  return exe;
}

void mlir::mxfp8train::runTimed(const Executable &exe, StringRef name,
                                ArrayRef<HostTensor> inputs,
                                RunResult &result) {
  Clock::time_point start = Clock::now();
  result.outputs = exe.run(name, inputs, &result.deviceSeconds);
  result.seconds = secondsSince(start);
}

llvm::Error mlir::mxfp8train::checkOutputs(const Signature &sig,
                                           RunResult &result, StringRef what,
                                           size_t numExtra) {
  if (!result.outputs)
    return llvm::createStringError("running the " + what + " module: " +
                                   llvm::toString(result.outputs.takeError()));
  if (result.outputs->size() != sig.resultTypes.size() + numExtra)
    return llvm::createStringError(
        "the " + what + " module returned " +
        llvm::Twine(result.outputs->size()) + " results, expected " +
        llvm::Twine(sig.resultTypes.size() + numExtra));
  for (auto [i, out] : llvm::enumerate(ArrayRef<HostTensor>(*result.outputs)
                                           .take_front(sig.resultTypes.size())))
    if (ArrayRef<int64_t>(out.shape) != sig.resultTypes[i].getShape() ||
        out.type != sig.resultHostTypes[i])
      return llvm::createStringError("result #" + llvm::Twine(i) + " of the " +
                                     what + " module does not have type " +
                                     formatTensorType(sig.resultTypes[i]));
  return llvm::Error::success();
}
