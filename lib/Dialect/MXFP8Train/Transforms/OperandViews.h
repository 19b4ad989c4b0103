//===- OperandViews.h - what tensor a matmul operand reads ------*- C++ -*-===//
//
// Private to lib/Dialect/MXFP8Train/Transforms. Frontends reach a matmul's
// operands through ops that only move, copy or reshape data: transposes,
// batch broadcasts of a weight, `tensor.collapse_shape` of batch dims,
// `tensor.cast`, and (after a GEMM is converted) the casts themselves. The
// role rule and the grad_output inference of `mxfp8train-rewrite-matmuls`
// look through them (docs/rewrite.md, "Training roles").
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_LIB_DIALECT_MXFP8TRAIN_TRANSFORMS_OPERANDVIEWS_H
#define MXFP8TRAIN_LIB_DIALECT_MXFP8TRAIN_TRANSFORMS_OPERANDVIEWS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Value.h"

#include <cstdint>

namespace mlir::mxfp8train::detail {

/// True when `generic` only copies elements: tensors, one input, one init,
/// all-parallel loops, a body that yields the input element. Its maps say
/// how (a transpose, a broadcast).
bool isElementCopy(linalg::GenericOp generic);

/// The statically shaped 2-D tensor that `operand` broadcasts along a new
/// leading (batch)
/// dimension: `linalg.broadcast` with dimensions [0], or an element copy
/// (isElementCopy) reading `(d0, d1, d2) -> (d1, d2)` into an identity map;
/// null otherwise.
Value getBatchBroadcastSource(Value operand);

/// The tensor a matmul operand reads with its contraction dimension, found
/// by following views back while the contraction dimension stays one
/// dimension of the viewed tensor: `source` and `kPos` (its position there).
struct ContractionSource {
  Value source;
  int64_t kPos;
  /// True when the contraction dimension is the last one of `source`.
  bool isKLast() const;
};

/// Follows `operand` (read with its contraction at `kPos`) back through
/// views: `tensor.cast`, `linalg.transpose`, `linalg.broadcast`, a
/// `linalg.generic` that only copies (transposes and broadcasts, unit
/// dimensions read at 0 included), `tensor.collapse_shape` (a merged
/// contraction dimension followed to its innermost part) and
/// `tensor.expand_shape` (to the dimension it splits), `mxfp8train.quantize`
/// and `dequantize`. Stops before a view that broadcasts the contraction
/// dimension.
ContractionSource traceContractionSource(Value operand, int64_t kPos);

/// The tensor under every view of `value` (the same views, whatever they do
/// to its dimensions): two operands with the same root read the same data.
Value getViewRoot(Value value);

} // namespace mlir::mxfp8train::detail

#endif // MXFP8TRAIN_LIB_DIALECT_MXFP8TRAIN_TRANSFORMS_OPERANDVIEWS_H
