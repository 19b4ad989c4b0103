//===- MXFP8TrainToLinalg.cpp - CPU reference lowering ----------*- C++ -*-===//
//
// Lowers quantize, dequantize and scaled_mm to linalg on tensors, tensor,
// arith and math ops, bit-exact with SPEC §2-§4 (docs/numerics.md explains
// why each step is exact), and runs the pass; the grouped ops and layouts
// are lowered in GroupedToLinalg.cpp and LayoutToLinalg.cpp.
//
// LLVM has no fp8 types and `arith.truncf` to f8 neither saturates nor lowers
// on the CPU, so every fp8 / e8m0 / bf16 conversion is integer arithmetic on
// the f32 bit pattern; the bytes are reinterpreted with `arith.bitcast`
// (i8 <-> f8 is a no-op after the LLVM type conversion). The only float
// operations are the ones whose IEEE result is the specified one: the amax
// (`arith.maximumf`), the fp32 products `v * 2^(127-byte)` and
// `amax * fl32(1/max)`, exact dequantization products and the f32 matmul.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Conversion/MXFP8TrainToLinalg/MXFP8TrainToLinalg.h"
#include "LoweringUtils.h"
#include "mxfp8train/Conversion/Passes.h"
#include "mxfp8train/Conversion/Utils/EmptyShapes.h"
#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

#define DEBUG_TYPE "convert-mxfp8train-to-linalg"

namespace mlir::mxfp8train {
#define GEN_PASS_DEF_CONVERTMXFP8TRAINTOLINALGPASS
#include "mxfp8train/Conversion/Passes.h.inc"
} // namespace mlir::mxfp8train

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::linalg_lowering;

//===----------------------------------------------------------------------===//
// Tensor-level helpers
//===----------------------------------------------------------------------===//

/// True when every operand and result of `op` has a static shape.
bool linalg_lowering::hasStaticShapes(Operation *op) {
  auto isStatic = [](Type t) {
    auto shaped = dyn_cast<ShapedType>(t);
    return !shaped || shaped.hasStaticShape();
  };
  return llvm::all_of(op->getOperandTypes(), isStatic) &&
         llvm::all_of(op->getResultTypes(), isStatic);
}

/// `shape` with dimension `axis` split into (size/32, 32).
static SmallVector<int64_t> getExpandedShape(ArrayRef<int64_t> shape,
                                             int64_t axis) {
  SmallVector<int64_t> expanded;
  for (auto [i, size] : llvm::enumerate(shape)) {
    if (int64_t(i) == axis) {
      expanded.push_back(size / kBlockSize);
      expanded.push_back(kBlockSize);
    } else {
      expanded.push_back(size);
    }
  }
  return expanded;
}

/// Reassociation grouping dimensions (axis, axis+1) of a rank+1 tensor.
static SmallVector<ReassociationIndices> getBlockReassociation(int64_t rank,
                                                               int64_t axis) {
  SmallVector<ReassociationIndices> reassociation;
  for (int64_t i = 0; i < rank; ++i) {
    if (i == axis)
      reassociation.push_back({i, i + 1});
    else
      reassociation.push_back({i < axis ? i : i + 1});
  }
  return reassociation;
}

/// Splits dimension `axis` of `value` into (size/32, 32).
static Value expandBlocks(OpBuilder &b, Location loc, Value value,
                          int64_t axis) {
  auto type = cast<RankedTensorType>(value.getType());
  auto expandedType = RankedTensorType::get(
      getExpandedShape(type.getShape(), axis), type.getElementType());
  return tensor::ExpandShapeOp::create(
      b, loc, expandedType, value, getBlockReassociation(type.getRank(), axis));
}

/// Merges dimensions (axis, axis+1) of `value`.
static Value collapseBlocks(OpBuilder &b, Location loc, Value value,
                            int64_t axis) {
  auto type = cast<RankedTensorType>(value.getType());
  return tensor::CollapseShapeOp::create(
      b, loc, value, getBlockReassociation(type.getRank() - 1, axis));
}

/// The map from the rank+1 expanded iteration space to a tensor of the
/// original rank blocked along `axis` (drops the in-block dimension).
static AffineMap getDropInBlockMap(MLIRContext *ctx, int64_t rank,
                                   int64_t axis) {
  SmallVector<AffineExpr> exprs;
  for (int64_t i = 0; i <= rank; ++i)
    if (i != axis + 1)
      exprs.push_back(getAffineDimExpr(i, ctx));
  return AffineMap::get(rank + 1, 0, exprs, ctx);
}

/// Writes the row-major scale tensor `rowMajor` of rank-2 data blocked along
/// `axis` in the blocked layout: a 1-D gather over the padded tile sequence,
/// padding bytes 0x00. The scale matrix is S(r, c) with r the non-blocked
/// data dimension and c the block index.
Value linalg_lowering::buildBlockedScales(OpBuilder &b, Location loc,
                                          Value rowMajor, int64_t axis) {
  auto type = cast<RankedTensorType>(rowMajor.getType());
  int64_t numRows = type.getDimSize(1 - axis), numCols = type.getDimSize(axis);
  int64_t size = *getBlockedScaleSize(numRows, numCols);
  Type scaleType = type.getElementType();
  Value init =
      tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{size}, scaleType);
  MLIRContext *ctx = b.getContext();
  auto generic = linalg::GenericOp::create(
      b, loc, init.getType(), ValueRange{}, ValueRange{init},
      ArrayRef<AffineMap>{AffineMap::getMultiDimIdentityMap(1, ctx)},
      ArrayRef<utils::IteratorType>{utils::IteratorType::parallel},
      [&](OpBuilder &nb, Location nloc, ValueRange) {
        Bits bb(nb, nloc);
        Value off = linalg::IndexOp::create(bb.b, 0);
        int64_t colTiles = llvm::divideCeil(numCols, 4);
        // Inverse of getBlockedOffset.
        Value tile = bb.divu(off, bb.cIdx(512));
        Value inTile = bb.remu(off, bb.cIdx(512));
        Value r = bb.add(
            bb.add(bb.mul(bb.divu(tile, bb.cIdx(colTiles)), bb.cIdx(128)),
                   bb.mul(bb.divu(bb.remu(inTile, bb.cIdx(16)), bb.cIdx(4)),
                          bb.cIdx(32))),
            bb.divu(inTile, bb.cIdx(16)));
        Value c = bb.add(bb.mul(bb.remu(tile, bb.cIdx(colTiles)), bb.cIdx(4)),
                         bb.remu(inTile, bb.cIdx(4)));
        Value inBounds =
            bb.land(bb.ult(r, bb.cIdx(numRows)), bb.ult(c, bb.cIdx(numCols)));
        // Clamp so that the (discarded) padding lanes read in bounds.
        Value rc = bb.minu(r, bb.cIdx(numRows - 1));
        Value cc = bb.minu(c, bb.cIdx(numCols - 1));
        SmallVector<Value> idx =
            axis == 1 ? SmallVector<Value>{rc, cc} : SmallVector<Value>{cc, rc};
        Value v = tensor::ExtractOp::create(bb.b, rowMajor, idx);
        Value byte = bb.select(inBounds, bb.byteOf(v), bb.c(0));
        linalg::YieldOp::create(bb.b, bb.byteAs(scaleType, byte));
      });
  return generic.getResult(0);
}

/// Reads blocked scales `blocked` (SPEC §4.1) of rank-2 data of shape
/// `dataShape` blocked along `axis` back into the row-major scale tensor
/// (the data shape with `axis` divided by 32).
Value linalg_lowering::buildRowMajorScales(OpBuilder &b, Location loc,
                                           Value blocked,
                                           ArrayRef<int64_t> dataShape,
                                           int64_t axis) {
  SmallVector<int64_t> shape(dataShape);
  shape[axis] /= kBlockSize;
  int64_t numCols = shape[axis];
  Type scaleType = cast<RankedTensorType>(blocked.getType()).getElementType();
  Value init = tensor::EmptyOp::create(b, loc, shape, scaleType);
  MLIRContext *ctx = b.getContext();
  auto generic = linalg::GenericOp::create(
      b, loc, init.getType(), ValueRange{}, ValueRange{init},
      ArrayRef<AffineMap>{AffineMap::getMultiDimIdentityMap(2, ctx)},
      SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location nloc, ValueRange) {
        Bits bb(nb, nloc);
        Value i0 = linalg::IndexOp::create(bb.b, 0);
        Value i1 = linalg::IndexOp::create(bb.b, 1);
        Value r = axis == 1 ? i0 : i1, c = axis == 1 ? i1 : i0;
        Value off = getBlockedOffset(bb, r, c, numCols);
        linalg::YieldOp::create(
            bb.b, tensor::ExtractOp::create(bb.b, blocked, off).getResult());
      });
  return generic.getResult(0);
}

/// One reduction over the elements and their scale bytes: the shift of each
/// row is max(0, E - 127) over its elements, E the binade exponent of
/// q * 2^(byte - 127) (so 2^E <= |value| < 2^(E+1)); zero elements, NaN /
/// Inf codes and byte 255 (NaN) do not count. At most 8 for e4m3 (448 *
/// 2^127) and 15 for e5m2 (57344 * 2^127).
Value linalg_lowering::buildScaleShifts(OpBuilder &b, Location loc, Value data,
                                        Value scales, int64_t axis) {
  auto dataType = cast<RankedTensorType>(data.getType());
  int64_t rank = dataType.getRank();
  ElementFormat fmt = getElementFormat(dataType.getElementType());
  MLIRContext *ctx = b.getContext();
  // Loops: the data dimensions with `axis` split into (block, in-block),
  // both reductions.
  SmallVector<int64_t> shape;
  SmallVector<AffineExpr> rowExprs;
  SmallVector<utils::IteratorType> iterators;
  for (int64_t d = 0; d <= rank; ++d) {
    bool blocked = d == axis || d == axis + 1;
    iterators.push_back(blocked ? utils::IteratorType::reduction
                                : utils::IteratorType::parallel);
    if (blocked)
      continue;
    shape.push_back(dataType.getDimSize(d < axis ? d : d - 1));
    rowExprs.push_back(getAffineDimExpr(d, ctx));
  }
  Value zero = arith::ConstantIntOp::create(b, loc, 0, 32);
  Value init =
      linalg::FillOp::create(
          b, loc, zero,
          Value(tensor::EmptyOp::create(b, loc, shape, b.getI32Type())))
          .getResult(0);
  SmallVector<AffineMap> maps = {
      AffineMap::getMultiDimIdentityMap(rank + 1, ctx),
      getDropInBlockMap(ctx, rank, axis),
      AffineMap::get(rank + 1, 0, rowExprs, ctx)};
  Value expanded = expandBlocks(b, loc, data, axis);
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{expanded, scales},
             ValueRange{init}, maps, iterators,
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               Bits bb(nb, nloc);
               // The f32 bits of q: exact and normal (|q| >= 2^-16) or 0.
               Value q = decodeElement(bb, bb.byteOf(args[0]), fmt);
               Value qBits = bb.f32Bits(q);
               Value magnitude = bb.band(qBits, bb.c(0x7FFFFFFF));
               Value field = bb.shr(magnitude, bb.c(23));
               Value byte = bb.byteOf(args[1]);
               // E - 127 = (field - 127) + (byte - 127) - 127.
               Value sum = bb.add(field, byte);
               Value excess = bb.sub(sum, bb.c(381));
               Value isZero = bb.eq(magnitude, bb.c(0));
               Value isSpecial = bb.eq(field, bb.c(255));
               Value isNaNScale = bb.eq(byte, bb.c(255));
               Value ignore = bb.lor(isZero, bb.lor(isSpecial, isNaNScale));
               Value counted = bb.select(ignore, zero, excess);
               linalg::YieldOp::create(bb.b, bb.maxs(args[2], counted));
             })
      .getResult(0);
}

/// 2^e as an f32 for e in [-126, 127]: the bits (127 + e) << 23.
static Value getPowerOfTwo(Bits &bb, Value e) {
  Value biased = bb.add(e, bb.c(127));
  return bb.f32FromBits(bb.shl(biased, bb.c(23)));
}

F32Operand linalg_lowering::buildShiftedDequantize(OpBuilder &b, Location loc,
                                                   Value data, Value scales,
                                                   int64_t axis,
                                                   ArrayRef<int64_t> perm) {
  Value shifts = buildScaleShifts(b, loc, data, scales, axis);
  return {
      buildDequantize(b, loc, data, scales, axis, perm, b.getF32Type(), shifts),
      shifts};
}

Value linalg_lowering::undoScaleShifts(Bits &bb, Value acc, Value lhsShift,
                                       Value rhsShift) {
  Value shift = bb.add(lhsShift, rhsShift);
  Value factor = getPowerOfTwo(bb, shift);
  return arith::MulFOp::create(bb.b, acc, factor);
}

/// Dequantizes `data` (blocked along `axis`) with row-major `scales` into a
/// tensor of element type `resultType` whose dimension i is dimension
/// `perm[i]` of `data` (a transpose folded into the same elementwise pass).
/// With `shifts` (buildScaleShifts of `scales`), each row's scales are
/// divided by 2^shift first.
Value linalg_lowering::buildDequantize(OpBuilder &b, Location loc, Value data,
                                       Value scales, int64_t axis,
                                       ArrayRef<int64_t> perm, Type resultType,
                                       Value shifts) {
  auto dataType = cast<RankedTensorType>(data.getType());
  int64_t rank = dataType.getRank();
  ElementFormat fmt = getElementFormat(dataType.getElementType());
  MLIRContext *ctx = b.getContext();

  // Loop dimensions: the output dimensions, with the blocked one split into
  // (block, in-block).
  SmallVector<int64_t> loopShape;
  SmallVector<int64_t> loopOfStored(rank); // first loop dim of stored dim d
  int64_t outAxis = -1;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t d = perm[i];
    loopOfStored[d] = loopShape.size();
    if (d == axis) {
      outAxis = i;
      loopShape.push_back(dataType.getDimSize(d) / kBlockSize);
      loopShape.push_back(kBlockSize);
    } else {
      loopShape.push_back(dataType.getDimSize(d));
    }
  }
  int64_t numLoops = rank + 1;
  SmallVector<AffineExpr> dataExprs, scaleExprs, rowExprs;
  for (int64_t d = 0; d < rank; ++d) {
    dataExprs.push_back(getAffineDimExpr(loopOfStored[d], ctx));
    scaleExprs.push_back(getAffineDimExpr(loopOfStored[d], ctx));
    if (d == axis)
      dataExprs.push_back(getAffineDimExpr(loopOfStored[d] + 1, ctx));
    else
      rowExprs.push_back(getAffineDimExpr(loopOfStored[d], ctx));
  }
  Value expanded = expandBlocks(b, loc, data, axis);
  Value init = tensor::EmptyOp::create(b, loc, loopShape, resultType);
  SmallVector<Value> inputs = {expanded, scales};
  SmallVector<AffineMap> maps = {AffineMap::get(numLoops, 0, dataExprs, ctx),
                                 AffineMap::get(numLoops, 0, scaleExprs, ctx)};
  if (shifts) {
    inputs.push_back(shifts);
    maps.push_back(AffineMap::get(numLoops, 0, rowExprs, ctx));
  }
  maps.push_back(AffineMap::getMultiDimIdentityMap(numLoops, ctx));
  auto generic = linalg::GenericOp::create(
      b, loc, init.getType(), inputs, ValueRange{init}, maps,
      SmallVector<utils::IteratorType>(numLoops, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Bits bb(nb, nloc);
        Value x = decodeElement(bb, bb.byteOf(args[0]), fmt);
        Value s = decodeScale(bb, bb.byteOf(args[1]));
        // 2^(byte - 127 - shift) >= 2^-135 is an exact f32 (subnormal below
        // 2^-126), and so is its product with any element.
        if (shifts) {
          Value negShift = bb.sub(bb.c(0), args[2]);
          s = arith::MulFOp::create(bb.b, s, getPowerOfTwo(bb, negShift));
        }
        Value product = arith::MulFOp::create(bb.b, x, s);
        linalg::YieldOp::create(bb.b, bb.fromF32(resultType, product));
      });
  return collapseBlocks(b, loc, generic.getResult(0), outAxis);
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

Value linalg_lowering::buildF32Matmul(OpBuilder &b, Location loc, Value lhs,
                                      Value rhs,
                                      ArrayRef<int64_t> resultShape) {
  Type f32 = b.getF32Type();
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
  Value init = linalg::FillOp::create(
                   b, loc, zero,
                   Value(tensor::EmptyOp::create(b, loc, resultShape, f32)))
                   .getResult(0);
  if (resultShape.size() == 2)
    return linalg::MatmulOp::create(b, loc, init.getType(),
                                    ValueRange{lhs, rhs}, ValueRange{init})
        .getResult(0);
  return linalg::BatchMatmulOp::create(b, loc, init.getType(),
                                       ValueRange{lhs, rhs}, ValueRange{init})
      .getResult(0);
}

namespace {
/// quantize -> amax reduction, scale-byte generic, data generic (SPEC §2).
struct QuantizeOpLowering final : OpRewritePattern<QuantizeOp> {
  using Base::Base;

  LogicalResult matchAndRewrite(QuantizeOp op,
                                PatternRewriter &rewriter) const override {
    if (op.isFloat8())
      return rewriter.notifyMatchFailure(op, "a Float8 quantize");
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    RankedTensorType inputType = op.getInput().getType();
    int64_t rank = inputType.getRank(), axis = op.getAxis();
    Type dataElemType = op.getData().getType().getElementType();
    Type scaleElemType = op.getScales().getType().getElementType();
    ElementFormat fmt = getElementFormat(dataElemType);
    ScaleMode mode = op.getScaleMode();

    Value expanded = expandBlocks(rewriter, loc, op.getInput(), axis);
    auto expandedShape = cast<RankedTensorType>(expanded.getType()).getShape();
    SmallVector<int64_t> scaleShape(inputType.getShape());
    scaleShape[axis] /= kBlockSize;
    AffineMap identity = AffineMap::getMultiDimIdentityMap(rank + 1, ctx);
    AffineMap perBlock = getDropInBlockMap(ctx, rank, axis);

    // amax = max |v| over each block: NaN-propagating, started at +0.0.
    Value zero = arith::ConstantOp::create(rewriter, loc,
                                           rewriter.getF32FloatAttr(0.0f));
    Value amaxInit = linalg::FillOp::create(
                         rewriter, loc, zero,
                         Value(tensor::EmptyOp::create(
                             rewriter, loc, scaleShape, rewriter.getF32Type())))
                         .getResult(0);
    SmallVector<utils::IteratorType> reduceIters(rank + 1,
                                                 utils::IteratorType::parallel);
    reduceIters[axis + 1] = utils::IteratorType::reduction;
    Value amax =
        linalg::GenericOp::create(
            rewriter, loc, amaxInit.getType(), ValueRange{expanded},
            ValueRange{amaxInit}, ArrayRef<AffineMap>{identity, perBlock},
            reduceIters,
            [&](OpBuilder &nb, Location nloc, ValueRange args) {
              Bits bb(nb, nloc);
              Value v = math::AbsFOp::create(bb.b, bb.toF32(args[0]));
              linalg::YieldOp::create(
                  bb.b, Value(arith::MaximumFOp::create(bb.b, v, args[1])));
            })
            .getResult(0);

    // The e8m0 byte of each block.
    Value scaleInit =
        tensor::EmptyOp::create(rewriter, loc, scaleShape, scaleElemType);
    AffineMap scaleIdentity = AffineMap::getMultiDimIdentityMap(rank, ctx);
    Value scales =
        linalg::GenericOp::create(
            rewriter, loc, scaleInit.getType(), ValueRange{amax},
            ValueRange{scaleInit},
            ArrayRef<AffineMap>{scaleIdentity, scaleIdentity},
            SmallVector<utils::IteratorType>(rank,
                                             utils::IteratorType::parallel),
            [&](OpBuilder &nb, Location nloc, ValueRange args) {
              Bits bb(nb, nloc);
              Value byte = computeScaleByte(bb, args[0], mode, fmt);
              linalg::YieldOp::create(bb.b, bb.byteAs(scaleElemType, byte));
            })
            .getResult(0);

    // q = cast(fl32(v * 2^(127 - byte))); a NaN/Inf block is all NaN.
    Value dataInit =
        tensor::EmptyOp::create(rewriter, loc, expandedShape, dataElemType);
    Value data =
        linalg::GenericOp::create(
            rewriter, loc, dataInit.getType(), ValueRange{expanded, scales},
            ValueRange{dataInit},
            ArrayRef<AffineMap>{identity, perBlock, identity},
            SmallVector<utils::IteratorType>(rank + 1,
                                             utils::IteratorType::parallel),
            [&](OpBuilder &nb, Location nloc, ValueRange args) {
              Bits bb(nb, nloc);
              Value byte = bb.byteOf(args[1]);
              Value rcp = computeReciprocal(bb, byte);
              Value y = arith::MulFOp::create(bb.b, bb.toF32(args[0]), rcp);
              Value code = encodeElement(bb, y, fmt);
              code = bb.select(bb.eq(byte, bb.c(255)), bb.c(0x7F), code);
              linalg::YieldOp::create(bb.b, bb.byteAs(dataElemType, code));
            })
            .getResult(0);
    data = collapseBlocks(rewriter, loc, data, axis);

    if (op.getScaleLayout() == ScaleLayout::Blocked)
      scales = buildBlockedScales(rewriter, loc, scales, axis);
    rewriter.replaceOp(op, {data, scales});
    return success();
  }
};

/// dequantize -> one elementwise generic (after un-swizzling blocked scales).
struct DequantizeOpLowering final : OpRewritePattern<DequantizeOp> {
  using Base::Base;

  LogicalResult matchAndRewrite(DequantizeOp op,
                                PatternRewriter &rewriter) const override {
    if (op.isFloat8())
      return rewriter.notifyMatchFailure(op, "a Float8 dequantize");
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    Location loc = op.getLoc();
    RankedTensorType dataType = op.getData().getType();
    int64_t axis = op.getAxis();
    Value scales = op.getScales();
    if (op.getScaleLayout() == ScaleLayout::Blocked)
      scales =
          buildRowMajorScales(rewriter, loc, scales, dataType.getShape(), axis);
    SmallVector<int64_t> perm =
        llvm::to_vector(llvm::seq<int64_t>(0, dataType.getRank()));
    Value result =
        buildDequantize(rewriter, loc, op.getData(), scales, axis, perm,
                        op.getResult().getType().getElementType());
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// scaled_mm -> exact f32 dequantization of both operands into (M, K) and
/// (K, N), an f32 linalg.matmul / batch_matmul from zero, then bias and
/// rounding in one elementwise generic.
struct ScaledMmOpLowering final : OpRewritePattern<ScaledMmOp> {
  using Base::Base;

  LogicalResult matchAndRewrite(ScaledMmOp op,
                                PatternRewriter &rewriter) const override {
    if (op.isFloat8())
      return rewriter.notifyMatchFailure(op, "a Float8 scaled_mm");
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    RankedTensorType resultType = op.getResult().getType();
    int64_t rank = resultType.getRank();
    int64_t r0 = rank - 2, r1 = rank - 1;

    // Canonical orientation: lhs (B?, M, K), rhs (B?, K, N). The stored
    // operand is permuted into it by the dequantization generic.
    // Each operand's rows are dequantized with their scale shifts
    // (buildScaleShifts: the exact products of SPEC §3.1 stay finite where
    // an operand alone would overflow f32), undone in the epilogue.
    auto makeOperand = [&](Value data, Value scales, ScaleLayout layout,
                           bool transposed, bool isLhs) {
      // Stored position of K.
      int64_t kDim = (isLhs != transposed) ? r1 : r0;
      auto dataType = cast<RankedTensorType>(data.getType());
      if (layout == ScaleLayout::Blocked)
        scales = buildRowMajorScales(rewriter, loc, scales, dataType.getShape(),
                                     kDim);
      SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
      if (transposed)
        std::swap(perm[r0], perm[r1]);
      return buildShiftedDequantize(rewriter, loc, data, scales, kDim, perm);
    };
    F32Operand lhs =
        makeOperand(op.getLhs(), op.getLhsScales(), op.getLhsScaleLayout(),
                    op.getTransposeLhs(), /*isLhs=*/true);
    F32Operand rhs =
        makeOperand(op.getRhs(), op.getRhsScales(), op.getRhsScaleLayout(),
                    op.getTransposeRhs(), /*isLhs=*/false);

    Value acc = buildF32Matmul(rewriter, loc, lhs.values, rhs.values,
                               resultType.getShape());

    // Epilogue: acc * 2^(lhs shift + rhs shift) (exact) + bias in f32, one
    // rounding into the result type. The shifts are indexed by (B?, M) and
    // (B?, N).
    Value bias = op.getBias();
    Type outElemType = resultType.getElementType();
    AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
    auto dropDim = [&](int64_t dropped) {
      return identity.dropResult(dropped);
    };
    SmallVector<Value> inputs = {acc, lhs.shifts, rhs.shifts};
    SmallVector<AffineMap> maps = {identity, dropDim(r1), dropDim(r0)};
    if (bias) {
      inputs.push_back(bias);
      maps.push_back(AffineMap::get(rank, 0, getAffineDimExpr(r1, ctx)));
    }
    maps.push_back(identity);
    Value outInit = tensor::EmptyOp::create(rewriter, loc,
                                            resultType.getShape(), outElemType);
    Value result =
        linalg::GenericOp::create(
            rewriter, loc, outInit.getType(), inputs, ValueRange{outInit}, maps,
            SmallVector<utils::IteratorType>(rank,
                                             utils::IteratorType::parallel),
            [&](OpBuilder &nb, Location nloc, ValueRange args) {
              Bits bb(nb, nloc);
              Value v = undoScaleShifts(bb, args[0], args[1], args[2]);
              if (bias)
                v = arith::AddFOp::create(bb.b, v, bb.toF32(args[3]));
              linalg::YieldOp::create(bb.b, bb.fromF32(outElemType, v));
            })
            .getResult(0);
    rewriter.replaceOp(op, result);
    return success();
  }
};
} // namespace

void mlir::mxfp8train::populateMXFP8TrainToLinalgConversionPatterns(
    RewritePatternSet &patterns) {
  populateEmptyShapePatterns(patterns);
  patterns.add<QuantizeOpLowering, DequantizeOpLowering, ScaledMmOpLowering>(
      patterns.getContext());
  populateLayoutToLinalgPatterns(patterns);
  populateGroupedToLinalgPatterns(patterns);
  populateQuantizeDualToLinalgPatterns(patterns);
  populateFloat8ToLinalgPatterns(patterns);
}

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

namespace {
struct ConvertMXFP8TrainToLinalgPass final
    : mxfp8train::impl::ConvertMXFP8TrainToLinalgPassBase<
          ConvertMXFP8TrainToLinalgPass> {
  using Base::Base;

  void runOnOperation() override {
    // Report every op this lowering cannot handle before touching the IR.
    bool failedCheck = false;
    getOperation()->walk([&](Operation *op) {
      if (!isa_and_present<MXFP8TrainDialect>(op->getDialect()))
        return;
      if (!hasStaticShapes(op)) {
        op->emitError() << "lowering of '" << op->getName()
                        << "' to linalg requires static shapes, found a "
                           "dynamic size";
        failedCheck = true;
      }
    });
    if (failedCheck)
      return signalPassFailure();

    RewritePatternSet patterns(&getContext());
    populateMXFP8TrainToLinalgConversionPatterns(patterns);
    ConversionTarget target(getContext());
    target.addIllegalDialect<MXFP8TrainDialect>();
    target.addLegalDialect<arith::ArithDialect, linalg::LinalgDialect,
                           math::MathDialect, scf::SCFDialect,
                           tensor::TensorDialect>();
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
