//===- Float8Verifiers.h - verifiers of the Float8 op forms -----*- C++ -*-===//
//
// Internal to the dialect library: the shape and type rules of the Float8
// forms of quantize, dequantize, scaled_mm and scaled_grouped_mm
// (SPEC-float8 §2, §3, §6), called by the op verifiers in MXFP8TrainOps.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_LIB_DIALECT_MXFP8TRAIN_IR_FLOAT8VERIFIERS_H
#define MXFP8TRAIN_LIB_DIALECT_MXFP8TRAIN_IR_FLOAT8VERIFIERS_H

#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainOps.h"

#include <string>

namespace mlir::mxfp8train::detail {

/// Prints a shape as `AxBxC` (`?` for dynamic sizes).
std::string formatShape(ArrayRef<int64_t> shape);

/// Calls `check(type, "operand" | "result", index)` on every operand type
/// and then every result type of `op`; the first failure stops the walk.
/// (Shared by the verifiers of every op form, not only Float8.)
LogicalResult verifyEachValueType(
    Operation *op,
    llvm::function_ref<LogicalResult(Type, StringRef, unsigned)> check);

/// True when two shapes agree wherever both sizes are static.
bool shapesCompatible(ArrayRef<int64_t> a, ArrayRef<int64_t> b);

/// The Float8 rules shared by quantize and dequantize: f32 row-major scales,
/// rank-0 for `tensorwise`, the high-precision shape with `axis` set to 1
/// for `axiswise`; the data of the high-precision shape.
LogicalResult verifyFloat8Quantized(Operation *op, RankedTensorType hpType,
                                    RankedTensorType dataType,
                                    RankedTensorType scalesType, int64_t axis,
                                    Float8Granularity granularity,
                                    ScaleLayout layout);

/// The rules of the per-group (jagged) Float8 form of quantize /
/// dequantize (`offs` given, SPEC-float8 §3.3): a 2-D `(T, X)` tensor,
/// `axiswise` along the token axis 0, `offs` 1-D with E entries, f32
/// row-major scales `(E, X)`.
LogicalResult verifyFloat8PerGroup(Operation *op, RankedTensorType hpType,
                                   RankedTensorType dataType,
                                   RankedTensorType scalesType,
                                   RankedTensorType offsType, int64_t axis,
                                   Float8Granularity granularity,
                                   ScaleLayout layout);

/// The Float8 rules of scaled_mm on stored shapes `ls` / `rs` whose
/// contraction dimensions are `lhsK` / `rhsK` and whose N dimension is
/// `rhsN`: row-major f32 scales, tensorwise (rank 0) or rowwise (the stored
/// shape with K set to 1), K and N multiples of 16, not two f8E5M2 operands.
LogicalResult verifyFloat8ScaledMm(ScaledMmOp op, ArrayRef<int64_t> ls,
                                   ArrayRef<int64_t> rs, int64_t lhsK,
                                   int64_t rhsK, int64_t rhsN);

/// The Float8 rules of scaled_grouped_mm (SPEC-float8 §3.3, §6.2), given the
/// contraction dimensions `lhsK` / `rhsK`, the non-contracted sizes
/// `lhsRows` / `rhsRows`, the group count and the token count.
LogicalResult verifyFloat8ScaledGroupedMm(ScaledGroupedMmOp op, int64_t lhsK,
                                          int64_t rhsK, int64_t lhsRows,
                                          int64_t rhsRows, int64_t groups,
                                          int64_t tokens);

} // namespace mlir::mxfp8train::detail

#endif // MXFP8TRAIN_LIB_DIALECT_MXFP8TRAIN_IR_FLOAT8VERIFIERS_H
