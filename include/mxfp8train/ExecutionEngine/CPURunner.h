//===- CPURunner.h - run mxfp8train modules on the CPU -------------*- C++
//-*-===//
//
// Lowers a tensor-level module with the CPU pipeline, JIT-compiles it with
// mlir::ExecutionEngine and calls its functions on host buffers. Used by
// mxfp8-run and by the execution tests.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_EXECUTIONENGINE_CPURUNNER_H
#define MXFP8TRAIN_EXECUTIONENGINE_CPURUNNER_H

#include "mxfp8train/Support/Manifest.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace mlir {
class ExecutionEngine;
namespace mxfp8train {

/// Element types a host buffer can hold: the MLIR-free `ElementKind` of
/// the AOT manifest (bf16 as its uint16 bit pattern, f8 and e8m0 as uint8
/// bit patterns, the rest as their C type).
using HostElementType = ElementKind;

/// Size in bytes of one element of `type`.
int64_t getHostElementSize(HostElementType type);

/// The host element type of an MLIR element type, or an error naming it.
llvm::Expected<HostElementType> getHostElementType(Type type);

/// A dense row-major host tensor.
struct HostTensor {
  HostElementType type = HostElementType::F32;
  llvm::SmallVector<int64_t> shape;
  std::vector<uint8_t> bytes;

  HostTensor() = default;
  /// A zero-filled tensor of `type` and `shape`.
  HostTensor(HostElementType type, llvm::ArrayRef<int64_t> shape);

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

/// A module lowered for the CPU and JIT-compiled.
class CPUExecutable {
public:
  /// Lowers a clone of `module` (tensor level; mxfp8train, linalg, tensor,
  /// arith, math, func ops; static shapes) with the CPU pipeline and
  /// JIT-compiles it. `module` itself is not modified.
  static llvm::Expected<std::unique_ptr<CPUExecutable>>
  compile(ModuleOp module, bool vectorize = true);

  ~CPUExecutable();

  /// The tensor-level type of public function `name`.
  llvm::Expected<FunctionType> getFunctionType(llvm::StringRef name) const;

  /// Calls function `name` with `inputs` (one per argument, in order; types
  /// and shapes must match the signature) and returns its results.
  llvm::Expected<std::vector<HostTensor>>
  run(llvm::StringRef name, llvm::ArrayRef<HostTensor> inputs) const;

private:
  CPUExecutable();
  struct Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace mxfp8train
} // namespace mlir

#endif // MXFP8TRAIN_EXECUTIONENGINE_CPURUNNER_H
