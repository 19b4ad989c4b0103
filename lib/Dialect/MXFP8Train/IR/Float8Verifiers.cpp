//===- Float8Verifiers.cpp - verifiers of the Float8 op forms ---*- C++ -*-===//
//
// The shape and type rules of the Float8 forms (f32 tensorwise / axiswise
// scales) of quantize, dequantize, scaled_mm and scaled_grouped_mm:
// SPEC-float8 §2 (scales), §3 (axes and scale shapes) and §6 (the sizes
// that torch._scaled_mm / _scaled_grouped_mm need to be multiples of 16).
//
//===----------------------------------------------------------------------===//

#include "Float8Verifiers.h"

using namespace mlir;
using namespace mlir::mxfp8train;
using mlir::mxfp8train::detail::formatShape;
using mlir::mxfp8train::detail::shapesCompatible;

/// Float8 scales are row-major f32 tensors.
static LogicalResult verifyFloat8ScaleKind(Operation *op, StringRef what,
                                           RankedTensorType scalesType,
                                           ScaleLayout layout) {
  if (!scalesType.getElementType().isF32())
    return op->emitOpError()
           << "expects " << what << " to be f32 for Float8 data, found "
           << scalesType.getElementType();
  if (layout != ScaleLayout::RowMajor)
    return op->emitOpError()
           << "expects " << what
           << " in the row_major layout for Float8 data, found "
           << stringifyScaleLayout(layout);
  return success();
}

/// Checks that `size` (named `what`) is a multiple of 16 where it is static.
static LogicalResult verifyMultipleOf16(Operation *op, StringRef what,
                                        int64_t size, StringRef torchOp) {
  if (ShapedType::isDynamic(size) || size % 16 == 0)
    return success();
  return op->emitOpError() << "expects " << what << " (" << size
                           << ") to be a multiple of 16 for Float8 operands ("
                           << torchOp << "), found remainder " << size % 16;
}

/// Checks a scale tensor against `expected`, described by `rule`.
static LogicalResult verifyScaleShapeIs(Operation *op, StringRef what,
                                        RankedTensorType scalesType,
                                        ArrayRef<int64_t> expected,
                                        StringRef rule) {
  if (shapesCompatible(scalesType.getShape(), expected))
    return success();
  return op->emitOpError() << "expects " << what << " of shape "
                           << formatShape(expected) << " (" << rule
                           << "), found " << formatShape(scalesType.getShape());
}

LogicalResult mlir::mxfp8train::detail::verifyFloat8Quantized(
    Operation *op, RankedTensorType hpType, RankedTensorType dataType,
    RankedTensorType scalesType, int64_t axis, Float8Granularity granularity,
    ScaleLayout layout) {
  int64_t rank = hpType.getRank();
  if (rank < 1)
    return op->emitOpError() << "expects a tensor of rank >= 1, found rank 0";
  if (!shapesCompatible(dataType.getShape(), hpType.getShape()))
    return op->emitOpError()
           << "expects the data shape to equal the high-precision shape "
           << formatShape(hpType.getShape()) << ", found "
           << formatShape(dataType.getShape());
  if (failed(verifyFloat8ScaleKind(op, "the scales", scalesType, layout)))
    return failure();
  if (granularity == Float8Granularity::Tensorwise)
    return verifyScaleShapeIs(op, "the scales", scalesType, {},
                              "one tensorwise scale");
  if (axis < 0 || axis >= rank)
    return op->emitOpError()
           << "expects axis in [0, " << rank << "), found " << axis;
  SmallVector<int64_t> expected(hpType.getShape());
  expected[axis] = 1;
  return verifyScaleShapeIs(
      op, "the scales", scalesType, expected,
      ("the data shape with dimension " + Twine(axis) + " set to 1").str());
}

LogicalResult mlir::mxfp8train::detail::verifyFloat8PerGroup(
    Operation *op, RankedTensorType hpType, RankedTensorType dataType,
    RankedTensorType scalesType, RankedTensorType offsType, int64_t axis,
    Float8Granularity granularity, ScaleLayout layout) {
  if (granularity != Float8Granularity::Axiswise)
    return op->emitOpError()
           << "expects granularity = axiswise with offs (per-group scales "
              "along the token axis), found "
           << stringifyFloat8Granularity(granularity);
  if (hpType.getRank() != 2)
    return op->emitOpError() << "expects a 2-D (tokens x columns) tensor with "
                                "offs, found rank "
                             << hpType.getRank();
  if (axis != 0)
    return op->emitOpError() << "expects axis = 0 (the token axis that offs "
                                "splits) with offs, found axis = "
                             << axis;
  if (offsType.getRank() != 1)
    return op->emitOpError()
           << "expects offs to be a 1-D i32 tensor, found rank "
           << offsType.getRank();
  if (!shapesCompatible(dataType.getShape(), hpType.getShape()))
    return op->emitOpError()
           << "expects the data shape to equal the high-precision shape "
           << formatShape(hpType.getShape()) << ", found "
           << formatShape(dataType.getShape());
  if (failed(verifyFloat8ScaleKind(op, "the scales", scalesType, layout)))
    return failure();
  return verifyScaleShapeIs(
      op, "the scales", scalesType,
      {offsType.getDimSize(0), hpType.getDimSize(1)},
      "one scale per group and column: offs entries x columns, the "
      "(E, N) / (E, K) scales of a 2d-2d scaled_grouped_mm");
}

LogicalResult mlir::mxfp8train::detail::verifyFloat8ScaledMm(
    ScaledMmOp op, ArrayRef<int64_t> ls, ArrayRef<int64_t> rs, int64_t lhsK,
    int64_t rhsK, int64_t rhsN) {
  Type lhsElem = op.getLhs().getType().getElementType();
  Type rhsElem = op.getRhs().getType().getElementType();
  if (isa<Float8E5M2Type>(lhsElem) && isa<Float8E5M2Type>(rhsElem))
    return op.emitOpError() << "expects at most one f8E5M2 operand "
                               "(torch._scaled_mm rejects e5m2 x e5m2)";
  if (failed(verifyMultipleOf16(op, "the contraction size K", ls[lhsK],
                                "torch._scaled_mm")) ||
      failed(verifyMultipleOf16(op, "N", rs[rhsN], "torch._scaled_mm")))
    return failure();
  auto check = [&](StringRef what, ArrayRef<int64_t> shape, int64_t kDim,
                   RankedTensorType scalesType,
                   ScaleLayout layout) -> LogicalResult {
    if (failed(verifyFloat8ScaleKind(op, what, scalesType, layout)))
      return failure();
    if (scalesType.getRank() == 0)
      return success();
    SmallVector<int64_t> expected(shape);
    expected[kDim] = 1;
    return verifyScaleShapeIs(
        op, what, scalesType, expected,
        ("tensorwise: rank 0; rowwise: the stored shape with dimension " +
         Twine(kDim) + " (K) set to 1")
            .str());
  };
  if (failed(check("the lhs scales", ls, lhsK, op.getLhsScales().getType(),
                   op.getLhsScaleLayout())))
    return failure();
  return check("the rhs scales", rs, rhsK, op.getRhsScales().getType(),
               op.getRhsScaleLayout());
}

LogicalResult mlir::mxfp8train::detail::verifyFloat8ScaledGroupedMm(
    ScaledGroupedMmOp op, int64_t lhsK, int64_t rhsK, int64_t lhsRows,
    int64_t rhsRows, int64_t groups, int64_t tokens) {
  for (auto [what, value] :
       {std::pair<StringRef, Value>{"lhs", op.getLhs()}, {"rhs", op.getRhs()}})
    if (!isa<Float8E4M3FNType>(
            cast<RankedTensorType>(value.getType()).getElementType()))
      return op.emitOpError()
             << "expects f8E4M3FN " << what
             << " for a Float8 scaled_grouped_mm (torch._scaled_grouped_mm), "
                "found "
             << cast<RankedTensorType>(value.getType()).getElementType();
  ArrayRef<int64_t> ls = op.getLhs().getType().getShape();
  ArrayRef<int64_t> rs = op.getRhs().getType().getShape();
  RankedTensorType lhsScales = op.getLhsScales().getType();
  RankedTensorType rhsScales = op.getRhsScales().getType();
  if (failed(verifyFloat8ScaleKind(op, "the lhs scales", lhsScales,
                                   op.getLhsScaleLayout())) ||
      failed(verifyFloat8ScaleKind(op, "the rhs scales", rhsScales,
                                   op.getRhsScaleLayout())))
    return failure();
  StringRef torchOp = "torch._scaled_grouped_mm";
  if (op.isTwoDTwoD()) {
    // Per (group, column) over the group's tokens (SPEC-float8 §3.3).
    if (failed(verifyMultipleOf16(op, "the token count M", tokens, torchOp)) ||
        failed(verifyMultipleOf16(op, "N", lhsRows, torchOp)) ||
        failed(verifyMultipleOf16(op, "K", rhsRows, torchOp)))
      return failure();
    if (failed(verifyScaleShapeIs(op, "the lhs scales", lhsScales,
                                  {groups, lhsRows},
                                  "one scale per group and lhs row")))
      return failure();
    return verifyScaleShapeIs(op, "the rhs scales", rhsScales,
                              {groups, rhsRows},
                              "one scale per group and rhs column");
  }
  if (failed(verifyMultipleOf16(op, "the contraction size K", ls[lhsK],
                                torchOp)) ||
      failed(verifyMultipleOf16(op, "N", rhsRows, torchOp)))
    return failure();
  if (failed(verifyScaleShapeIs(op, "the lhs scales", lhsScales, {ls[0], 1},
                                "one scale per token")))
    return failure();
  SmallVector<int64_t> expected(rs);
  expected[rhsK] = 1;
  return verifyScaleShapeIs(
      op, "the rhs scales", rhsScales, expected,
      ("the stored rhs shape with dimension " + Twine(rhsK) + " (K) set to 1")
          .str());
}
