//===- CPURunner.h - run mxfp8train modules on the CPU ----------*- C++ -*-===//
//
// Lowers a tensor-level module with the CPU pipeline, JIT-compiles it with
// mlir::ExecutionEngine and calls its functions on host buffers. Used by
// mxfp8-run and by the execution tests.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_EXECUTIONENGINE_CPURUNNER_H
#define MXFP8TRAIN_EXECUTIONENGINE_CPURUNNER_H

#include "mxfp8train/ExecutionEngine/Executable.h"

namespace mlir {
namespace mxfp8train {

/// A module lowered for the CPU and JIT-compiled.
class CPUExecutable : public Executable {
public:
  /// Lowers a clone of `module` (tensor level; mxfp8train, linalg, tensor,
  /// arith, math, func ops; static shapes) with the CPU pipeline and
  /// JIT-compiles it. `module` itself is not modified.
  static llvm::Expected<std::unique_ptr<CPUExecutable>>
  compile(ModuleOp module, bool vectorize = true);

  ~CPUExecutable() override;

  llvm::Expected<FunctionType>
  getFunctionType(llvm::StringRef name) const override;

  /// Calls function `name` with `inputs` (one per argument, in order; types
  /// and shapes must match the signature) and returns its results.
  /// `callSeconds`, if given, is set to 0.
  llvm::Expected<std::vector<HostTensor>>
  run(llvm::StringRef name, llvm::ArrayRef<HostTensor> inputs,
      double *callSeconds = nullptr) const override;

private:
  CPUExecutable();
  struct Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace mxfp8train
} // namespace mlir

#endif // MXFP8TRAIN_EXECUTIONENGINE_CPURUNNER_H
