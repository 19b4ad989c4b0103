//===- Contraction.h - linalg contractions the GEMMs take ----*- C++ -*-===//
//
// Which linalg contractions the GEMM lowerings take, shared by the CPU
// pipeline (mxfp8train-cpu-prepare-matmuls: an f32 sum, one rounding to a
// narrow accumulator) and the GPU GEMM kernels (the same sum), so that both
// devices compute the same ops the same way. A contraction must have two
// inputs and one result on tensors, one M, N and K and at most one batch
// dimension, and a multiply-accumulate body: a named contraction
// (linalg.matmul, batch_matmul, ...) with linalg's own body, or a
// linalg.generic whose body is exactly `out + x * y` in floating point,
// each operand at most widened by arith.extf (exact). Upstream
// `linalg::isaContractionOpInterface` also accepts bodies with other unary
// ops on the operands (math.absf, arith.negf, arith.truncf), which a GEMM
// would drop; those stay linalg ops for the loop lowering of their body.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_CONVERSION_UTILS_CONTRACTION_H
#define MXFP8TRAIN_CONVERSION_UTILS_CONTRACTION_H

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"

#include <string>

namespace mlir {
namespace mxfp8train {

/// The contraction dimensions of `op` when the GEMM lowerings take it (see
/// the header; static shapes are the callers' concern); otherwise failure,
/// with the reason in `why` when given.
FailureOr<linalg::ContractionDimensions>
matchGemmContraction(linalg::LinalgOp op, std::string *why = nullptr);

} // namespace mxfp8train
} // namespace mlir

#endif // MXFP8TRAIN_CONVERSION_UTILS_CONTRACTION_H
