//===- CompileExecutable.cpp - pick the CPU or the CUDA executable --------===//
//
// compileExecutable(): the one entry point that lowers and JIT-compiles a
// module for the device its options name.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/ExecutionEngine/CPURunner.h"
#include "mxfp8train/ExecutionEngine/CUDARunner.h"

using namespace mlir;
using namespace mlir::mxfp8train;

llvm::Expected<std::unique_ptr<Executable>>
mlir::mxfp8train::compileExecutable(ModuleOp module,
                                    const ExecutableOptions &options) {
  if (options.device == ExecutionDevice::CUDA) {
    CUDACompileOptions cudaOptions;
    cudaOptions.gpu = options.gpu;
    cudaOptions.chip = options.chip;
    cudaOptions.simpleGemm = options.simpleGemm;
    cudaOptions.lowering = options.lowering;
    llvm::Expected<std::unique_ptr<CUDAExecutable>> cuda =
        CUDAExecutable::compile(module, cudaOptions);
    if (!cuda)
      return cuda.takeError();
    return std::unique_ptr<Executable>(std::move(*cuda));
  }
  llvm::Expected<std::unique_ptr<CPUExecutable>> cpu =
      CPUExecutable::compile(module, options.vectorize);
  if (!cpu)
    return cpu.takeError();
  return std::unique_ptr<Executable>(std::move(*cpu));
}
