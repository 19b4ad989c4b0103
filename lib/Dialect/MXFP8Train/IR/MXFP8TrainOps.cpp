//===- MXFP8TrainOps.cpp - mxfp8train op verifiers -----------------*- C++ -*-===//
//
// Verifiers of quantize, dequantize, scaled_mm and scaled_grouped_mm: every
// shape, element type and layout rule of SPEC §2-§4 and §7.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::mxfp8train;

/// Prints a shape as `AxBxC` (`?` for dynamic sizes).
static std::string formatShape(ArrayRef<int64_t> shape) {
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleave(
      shape, os,
      [&](int64_t d) {
        if (ShapedType::isDynamic(d))
          os << "?";
        else
          os << d;
      },
      "x");
  return s;
}

/// True when two shapes agree wherever both sizes are static.
static bool shapesCompatible(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  if (a.size() != b.size())
    return false;
  for (auto [x, y] : llvm::zip(a, b))
    if (!ShapedType::isDynamic(x) && !ShapedType::isDynamic(y) && x != y)
      return false;
  return true;
}

/// Checks that dimension `axis` of `dataShape` (named `what` in messages) is
/// a static multiple of the block size.
static LogicalResult verifyBlockedDim(Operation *op, StringRef what,
                                      ArrayRef<int64_t> dataShape,
                                      int64_t axis) {
  int64_t size = dataShape[axis];
  if (ShapedType::isDynamic(size))
    return op->emitOpError() << "expects the blocked dimension " << axis
                             << " of " << what
                             << " to be static, found a dynamic size";
  if (size % kBlockSize != 0)
    return op->emitOpError()
           << "expects the blocked dimension " << axis << " of " << what
           << " to be a multiple of " << kBlockSize << ", found " << size;
  return success();
}

/// Checks the scale tensor of data `dataShape` blocked along `axis`: the data
/// shape with `axis` divided by 32 (row_major), or the 1-D to_blocked byte
/// sequence of the (other dim, axis/32) matrix (blocked, rank 2 only).
static LogicalResult verifyScaleShape(Operation *op, StringRef what,
                                      ArrayRef<int64_t> dataShape, int64_t axis,
                                      RankedTensorType scalesType,
                                      ScaleLayout layout) {
  SmallVector<int64_t> expected(dataShape);
  expected[axis] /= kBlockSize;
  if (layout == ScaleLayout::RowMajor) {
    if (!shapesCompatible(scalesType.getShape(), expected))
      return op->emitOpError()
             << "expects " << what << " scales of shape "
             << formatShape(expected) << " (the data shape with dimension "
             << axis << " divided by " << kBlockSize << "), found "
             << formatShape(scalesType.getShape());
    return success();
  }
  if (dataShape.size() != 2)
    return op->emitOpError() << "expects the blocked scale layout of " << what
                             << " only for rank-2 data, found rank "
                             << dataShape.size();
  int64_t rows = dataShape[1 - axis];
  if (ShapedType::isDynamic(rows))
    return op->emitOpError() << "expects static data shapes with the blocked "
                                "scale layout of "
                             << what;
  int64_t size = getBlockedScaleSize(rows, expected[axis]);
  if (scalesType.getRank() != 1 || scalesType.getDimSize(0) != size)
    return op->emitOpError()
           << "expects blocked " << what << " scales of shape " << size
           << " (ceil(" << rows << "/128)*128 * ceil(" << expected[axis]
           << "/4)*4 bytes), found " << formatShape(scalesType.getShape());
  return success();
}

//===----------------------------------------------------------------------===//
// QuantizeOp
//===----------------------------------------------------------------------===//

/// Shared rules of quantize and dequantize.
static LogicalResult verifyQuantized(Operation *op, RankedTensorType hpType,
                                     RankedTensorType dataType,
                                     RankedTensorType scalesType, int64_t axis,
                                     ScaleLayout layout) {
  int64_t rank = hpType.getRank();
  if (rank < 1)
    return op->emitOpError() << "expects a tensor of rank >= 1, found rank 0";
  if (axis < 0 || axis >= rank)
    return op->emitOpError() << "expects axis in [0, " << rank << "), found "
                             << axis;
  if (!shapesCompatible(dataType.getShape(), hpType.getShape()))
    return op->emitOpError()
           << "expects the data shape to equal the high-precision shape "
           << formatShape(hpType.getShape()) << ", found "
           << formatShape(dataType.getShape());
  if (failed(verifyBlockedDim(op, "the data", hpType.getShape(), axis)))
    return failure();
  return verifyScaleShape(op, "the", hpType.getShape(), axis, scalesType,
                          layout);
}

LogicalResult QuantizeOp::verify() {
  return verifyQuantized(*this, getInput().getType(), getData().getType(),
                         getScales().getType(), getAxis(), getScaleLayout());
}

LogicalResult DequantizeOp::verify() {
  return verifyQuantized(*this, getResult().getType(), getData().getType(),
                         getScales().getType(), getAxis(), getScaleLayout());
}

//===----------------------------------------------------------------------===//
// ScaledMmOp
//===----------------------------------------------------------------------===//

LogicalResult ScaledMmOp::verify() {
  RankedTensorType lhsType = getLhs().getType(), rhsType = getRhs().getType();
  RankedTensorType resultType = getResult().getType();
  int64_t rank = lhsType.getRank();
  if (rank != 2 && rank != 3)
    return emitOpError() << "expects lhs of rank 2 or 3, found rank " << rank;
  if (rhsType.getRank() != rank)
    return emitOpError() << "expects rhs of rank " << rank
                         << " like lhs, found rank " << rhsType.getRank();
  if (resultType.getRank() != rank)
    return emitOpError() << "expects a result of rank " << rank
                         << ", found rank " << resultType.getRank();
  int64_t r0 = rank - 2, r1 = rank - 1;
  // Stored position of each logical dimension.
  int64_t lhsM = getTransposeLhs() ? r1 : r0, lhsK = getTransposeLhs() ? r0 : r1;
  int64_t rhsK = getTransposeRhs() ? r1 : r0, rhsN = getTransposeRhs() ? r0 : r1;
  ArrayRef<int64_t> ls = lhsType.getShape(), rs = rhsType.getShape();
  if (rank == 3 && !shapesCompatible({ls[0]}, {rs[0]}))
    return emitOpError() << "expects equal batch sizes, found " << ls[0]
                         << " and " << rs[0];
  if (!shapesCompatible({ls[lhsK]}, {rs[rhsK]}))
    return emitOpError() << "expects the contraction sizes of lhs ("
                         << ls[lhsK] << ", dimension " << lhsK
                         << ") and rhs (" << rs[rhsK] << ", dimension " << rhsK
                         << ") to be equal";
  if (failed(verifyBlockedDim(*this, "lhs", ls, lhsK)) ||
      failed(verifyBlockedDim(*this, "rhs", rs, rhsK)))
    return failure();
  if (rank == 3 && (getLhsScaleLayout() == ScaleLayout::Blocked ||
                    getRhsScaleLayout() == ScaleLayout::Blocked))
    return emitOpError() << "expects the blocked scale layout only for rank-2 "
                            "operands";
  if (failed(verifyScaleShape(*this, "lhs", ls, lhsK,
                              getLhsScales().getType(), getLhsScaleLayout())) ||
      failed(verifyScaleShape(*this, "rhs", rs, rhsK,
                              getRhsScales().getType(), getRhsScaleLayout())))
    return failure();
  SmallVector<int64_t> expected;
  if (rank == 3)
    expected.push_back(ls[0]);
  expected.push_back(ls[lhsM]);
  expected.push_back(rs[rhsN]);
  if (!shapesCompatible(resultType.getShape(), expected))
    return emitOpError() << "expects a result of shape "
                         << formatShape(expected) << " (M x N), found "
                         << formatShape(resultType.getShape());
  if (Value bias = getBias()) {
    auto biasType = cast<RankedTensorType>(bias.getType());
    if (!shapesCompatible(biasType.getShape(), {rs[rhsN]}))
      return emitOpError() << "expects a bias of shape " << rs[rhsN]
                           << " (N), found "
                           << formatShape(biasType.getShape());
  }
  return success();
}

//===----------------------------------------------------------------------===//
// ScaledGroupedMmOp
//===----------------------------------------------------------------------===//

LogicalResult ScaledGroupedMmOp::verify() {
  RankedTensorType lhsType = getLhs().getType(), rhsType = getRhs().getType();
  RankedTensorType offsType = getOffs().getType();
  RankedTensorType resultType = getResult().getType();
  if (lhsType.getRank() != 2)
    return emitOpError() << "expects lhs of rank 2, found rank "
                         << lhsType.getRank();
  if (offsType.getRank() != 1)
    return emitOpError() << "expects offs to be a 1-D i32 tensor, found rank "
                         << offsType.getRank();
  int64_t groups = offsType.getDimSize(0);
  ArrayRef<int64_t> ls = lhsType.getShape(), rs = rhsType.getShape();
  SmallVector<int64_t> expected;
  if (rhsType.getRank() == 3) {
    // 2d-3d: lhs (M, K); rhs (E, K, N) or stored (E, N, K).
    if (getTransposeLhs())
      return emitOpError() << "expects no transpose_lhs in the 2d-3d form";
    int64_t rhsK = getTransposeRhs() ? 2 : 1, rhsN = getTransposeRhs() ? 1 : 2;
    if (!shapesCompatible({rs[0]}, {groups}))
      return emitOpError() << "expects one offs entry per expert (" << rs[0]
                           << "), found " << groups;
    if (!shapesCompatible({ls[1]}, {rs[rhsK]}))
      return emitOpError() << "expects the contraction sizes of lhs ("
                           << ls[1] << ") and rhs (" << rs[rhsK]
                           << ", dimension " << rhsK << ") to be equal";
    if (failed(verifyBlockedDim(*this, "lhs", ls, 1)) ||
        failed(verifyBlockedDim(*this, "rhs", rs, rhsK)) ||
        failed(verifyScaleShape(*this, "lhs", ls, 1, getLhsScales().getType(),
                                ScaleLayout::RowMajor)) ||
        failed(verifyScaleShape(*this, "rhs", rs, rhsK,
                                getRhsScales().getType(),
                                ScaleLayout::RowMajor)))
      return failure();
    expected = {ls[0], rs[rhsN]};
  } else if (rhsType.getRank() == 2) {
    // 2d-2d: lhs (N, M) or stored (M, N); rhs (M, K) or stored (K, M).
    int64_t lhsM = getTransposeLhs() ? 0 : 1, lhsN = 1 - lhsM;
    int64_t rhsM = getTransposeRhs() ? 1 : 0, rhsK = 1 - rhsM;
    if (!shapesCompatible({ls[lhsM]}, {rs[rhsM]}))
      return emitOpError() << "expects the token (contraction) sizes of lhs ("
                           << ls[lhsM] << ") and rhs (" << rs[rhsM]
                           << ") to be equal";
    if (failed(verifyBlockedDim(*this, "lhs", ls, lhsM)) ||
        failed(verifyBlockedDim(*this, "rhs", rs, rhsM)) ||
        failed(verifyScaleShape(*this, "lhs", ls, lhsM,
                                getLhsScales().getType(),
                                ScaleLayout::RowMajor)) ||
        failed(verifyScaleShape(*this, "rhs", rs, rhsM,
                                getRhsScales().getType(),
                                ScaleLayout::RowMajor)))
      return failure();
    expected = {groups, ls[lhsN], rs[rhsK]};
  } else {
    return emitOpError() << "expects rhs of rank 2 (2d-2d) or 3 (2d-3d), found "
                            "rank "
                         << rhsType.getRank();
  }
  if (!shapesCompatible(resultType.getShape(), expected))
    return emitOpError() << "expects a result of shape "
                         << formatShape(expected) << ", found "
                         << formatShape(resultType.getShape());
  return success();
}

#define GET_OP_CLASSES
#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainOps.cpp.inc"
