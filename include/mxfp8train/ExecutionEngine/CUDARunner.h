//===- CUDARunner.h - run mxfp8train modules on a CUDA GPU ------*- C++ -*-===//
//
// Lowers a tensor-level module with the GPU pipeline (mxfp8train-lower-to-gpu,
// or a given lowering), JIT-compiles its host code with mlir::ExecutionEngine
// against libmxfp8train_runtime.so (the mgpu* ABI; the kernels are embedded
// cubins loaded by the module's constructors) and calls its functions on
// device copies of host tensors. Used by `mxfp8-run --device=cuda`.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_EXECUTIONENGINE_CUDARUNNER_H
#define MXFP8TRAIN_EXECUTIONENGINE_CUDARUNNER_H

#include "mxfp8train/ExecutionEngine/CPURunner.h"

#include <string>

namespace mlir {
namespace mxfp8train {

/// What the runtime says about a CUDA GPU.
struct CUDADeviceInfo {
  /// A driver (libcuda.so.1) was opened and the GPU exists.
  bool available = false;
  /// Why not, when not available (the runtime's message).
  std::string reason;
  /// Name and compute capability of the GPU.
  std::string name;
  int major = 0, minor = 0;
  /// The NVVM chip of that capability: sm_90a (9.0), sm_100a (10.0), or ""
  /// when the lowering has no target for it.
  std::string chip;
};

/// Asks the runtime for GPU `gpu` (initializing the driver). Never fails:
/// a machine without driver or GPU gives `available = false` and a reason.
CUDADeviceInfo queryCUDADevice(int gpu = 0);

/// Options of CUDAExecutable::compile.
struct CUDACompileOptions {
  /// The GPU the code runs on (made current before the kernels are loaded).
  int gpu = 0;
  /// NVVM chip of mxfp8train-lower-to-gpu.
  std::string chip = "sm_90a";
  /// mxfp8train-lower-to-gpu's `simple-gemm`: the simple tiled kernels for
  /// scaled_mm / scaled_grouped_mm even where a wgmma kernel exists.
  bool simpleGemm = false;
  /// A textual pipeline replacing mxfp8train-lower-to-gpu (it must end in
  /// the LLVM dialect with `llvm.emit_c_interface` functions taking device
  /// descriptors); empty: the GPU pipeline.
  std::string lowering;
};

/// A module lowered for the GPU and JIT-compiled.
class CUDAExecutable : public Executable {
public:
  /// Lowers a clone of `module` (tensor level, static shapes) and
  /// JIT-compiles it; its GPU modules are loaded on `options.gpu` before
  /// this returns. `module` itself is not modified.
  static llvm::Expected<std::unique_ptr<CUDAExecutable>>
  compile(ModuleOp module, const CUDACompileOptions &options);

  ~CUDAExecutable() override;

  /// Calls public function `name` on device copies of `inputs` and returns
  /// its results, copied back. Results are zero-filled device buffers
  /// before the call. `callSeconds`, if given, receives the time of the
  /// call and its synchronization alone (CUDA events), without the copies.
  llvm::Expected<std::vector<HostTensor>>
  run(llvm::StringRef name, llvm::ArrayRef<HostTensor> inputs,
      double *callSeconds = nullptr) const override;

  llvm::Expected<FunctionType>
  getFunctionType(llvm::StringRef name) const override;

private:
  CUDAExecutable();
  struct Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace mxfp8train
} // namespace mlir

#endif // MXFP8TRAIN_EXECUTIONENGINE_CUDARUNNER_H
