//===- Executable.h - a module compiled for the CPU or a GPU ----*- C++ -*-===//
//
// Host tensors and the one interface of a JIT-compiled tensor-level module:
// CPUExecutable (CPURunner.h) and CUDAExecutable (CUDARunner.h) implement
// it, and compileExecutable() picks one from the options, so that callers
// (mxfp8-run, the compare report, the C API) hold an `Executable` and never
// a CPU-or-CUDA pair.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_EXECUTIONENGINE_EXECUTABLE_H
#define MXFP8TRAIN_EXECUTIONENGINE_EXECUTABLE_H

#include "mxfp8train/Support/Manifest.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mlir {
namespace mxfp8train {

/// Element types a host buffer can hold: the MLIR-free `ElementKind` of
/// the AOT manifest (bf16 as its uint16 bit pattern, f8 and e8m0 as uint8
/// bit patterns, the rest as their C type).
using HostElementType = ElementKind;

/// Size in bytes of one element of `type`.
int64_t getHostElementSize(HostElementType type);

/// The host element type of an MLIR element type, or an error naming it.
llvm::Expected<HostElementType> getHostElementType(Type type);

/// True when `bytes` bytes can be allocated now (probed with std::malloc,
/// which returns null where operator new would abort): a host buffer that
/// cannot exist is an error, not a crash.
bool canAllocateHostBytes(int64_t bytes);

/// The byte size of a `type` tensor of `shape`, or an error saying why none
/// can be allocated (a negative dimension, int64 overflow, or more than
/// canAllocateHostBytes allows); `what` names the tensor in the message.
llvm::Expected<int64_t> getAllocatableHostBytes(HostElementType type,
                                                llvm::ArrayRef<int64_t> shape,
                                                const llvm::Twine &what);

/// A dense row-major host tensor.
struct HostTensor {
  HostElementType type = HostElementType::F32;
  llvm::SmallVector<int64_t> shape;
  std::vector<uint8_t> bytes;

  HostTensor() = default;
  /// A zero-filled tensor of `type` and `shape` (which the caller knows to
  /// fit: see create()).
  HostTensor(HostElementType type, llvm::ArrayRef<int64_t> shape);

  /// A zero-filled tensor of `type` and `shape`, or the error of
  /// getAllocatableHostBytes.
  static llvm::Expected<HostTensor> create(HostElementType type,
                                           llvm::ArrayRef<int64_t> shape,
                                           const llvm::Twine &what);

  int64_t getNumElements() const;
  template <typename T> T *data() {
    return reinterpret_cast<T *>(bytes.data());
  }
  template <typename T> const T *data() const {
    return reinterpret_cast<const T *>(bytes.data());
  }
  /// Element `i` converted to double (bf16, f32, f64, fp8 decoded; e8m0 as
  /// 2^(b-127); integers as values).
  double getAsDouble(int64_t i) const;
};

/// Where an executable runs.
enum class ExecutionDevice { CPU, CUDA };

/// A tensor-level module lowered for one device and JIT-compiled.
class Executable {
public:
  virtual ~Executable();

  ExecutionDevice getDevice() const { return device; }

  /// Calls public function `name` with `inputs` (one per argument, in
  /// order; types and shapes must match the signature) and returns its
  /// results. `callSeconds`, if given, receives the time of the call alone
  /// on a GPU (CUDA events, without the copies); 0 on the CPU.
  virtual llvm::Expected<std::vector<HostTensor>>
  run(llvm::StringRef name, llvm::ArrayRef<HostTensor> inputs,
      double *callSeconds = nullptr) const = 0;

  /// The tensor-level type of public function `name` (in the executable's
  /// own context: valid as long as the executable).
  virtual llvm::Expected<FunctionType>
  getFunctionType(llvm::StringRef name) const = 0;

  /// Checks inputs given as (element type, shape) pairs against the
  /// arguments of function `name`, with run()'s messages, before any buffer
  /// of that shape is read or allocated.
  llvm::Error checkInputTypes(
      llvm::StringRef name,
      llvm::ArrayRef<std::pair<HostElementType, llvm::ArrayRef<int64_t>>>
          inputs) const;

protected:
  explicit Executable(ExecutionDevice device) : device(device) {}

private:
  ExecutionDevice device;
};

/// How compileExecutable() lowers a module.
struct ExecutableOptions {
  ExecutionDevice device = ExecutionDevice::CPU;
  /// CPU: tile and vectorize (mxfp8train-lower-to-cpu `vectorize`).
  bool vectorize = true;
  /// CUDA: the GPU ordinal.
  int gpu = 0;
  /// CUDA: the NVVM chip (`sm_90a`, `sm_100a`).
  std::string chip = "sm_90a";
  /// CUDA: mxfp8train-lower-to-gpu `simple-gemm`.
  bool simpleGemm = false;
  /// CUDA: a textual pipeline replacing mxfp8train-lower-to-gpu (see
  /// CUDACompileOptions::lowering); empty: the GPU pipeline.
  std::string lowering;
};

/// Lowers a clone of `module` (not modified) for `options.device` and
/// JIT-compiles it.
llvm::Expected<std::unique_ptr<Executable>>
compileExecutable(ModuleOp module, const ExecutableOptions &options);

} // namespace mxfp8train
} // namespace mlir

#endif // MXFP8TRAIN_EXECUTIONENGINE_EXECUTABLE_H
