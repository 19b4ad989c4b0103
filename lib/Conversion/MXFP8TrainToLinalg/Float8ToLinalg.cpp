//===- Float8ToLinalg.cpp - CPU lowering of the Float8 op forms -*- C++ -*-===//
//
// Lowers the Float8 forms (f32 tensorwise / axiswise / per-group scales) of
// quantize, dequantize and scaled_mm to linalg on tensors, bit-exact with
// SPEC-float8 §2 and §5; the scalar arithmetic is Conversion/Utils/
// Float8Arith.h. The MX forms are lowered in MXFP8TrainToLinalg.cpp.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "mxfp8train/Conversion/Utils/Float8Arith.h"
#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::linalg_lowering;
using lowering::castToFloat8;
using lowering::computeFloat8InverseScale;
using lowering::computeFloat8Scale;

/// The map from a rank-`rank` iteration space over the data to its Float8
/// scale tensor: no results for a tensorwise (rank-0) scale, else the
/// identity with dimension `axis` replaced by 0 (the size-1 dimension).
static AffineMap getScaleMap(MLIRContext *ctx, int64_t rank, bool tensorwise,
                             int64_t axis) {
  if (tensorwise)
    return AffineMap::get(rank, 0, ArrayRef<AffineExpr>{}, ctx);
  SmallVector<AffineExpr> exprs;
  for (int64_t i = 0; i < rank; ++i)
    exprs.push_back(i == axis ? getAffineConstantExpr(0, ctx)
                              : getAffineDimExpr(i, ctx));
  return AffineMap::get(rank, 0, exprs, ctx);
}

/// An all-parallel iterator list of `rank` loops.
static SmallVector<utils::IteratorType> getParallel(int64_t rank) {
  return SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel);
}

/// The f32 scales of `amax` (same shape as `scalesType`), elementwise
/// SCALE(amax) of SPEC-float8 §2.3 / §2.4 (Float8Arith).
static Value buildFloat8Scales(OpBuilder &b, Location loc, Value amax,
                               RankedTensorType scalesType,
                               const lowering::ElementFormat &fmt, bool pow2) {
  int64_t rank = scalesType.getRank();
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, b.getContext());
  Value init =
      tensor::EmptyOp::create(b, loc, scalesType.getShape(), b.getF32Type());
  return linalg::GenericOp::create(
             b, loc, scalesType, ValueRange{amax}, ValueRange{init},
             ArrayRef<AffineMap>{id, id}, getParallel(rank),
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               Bits bb(nb, nloc);
               linalg::YieldOp::create(
                   bb.b, computeFloat8Scale(bb, args[0], fmt, pow2));
             })
      .getResult(0);
}

/// The exact f32 values of fp8 `data`, with its last two dimensions swapped
/// when `transposed` (stored -> logical orientation).
Value linalg_lowering::buildFloat8ToF32(OpBuilder &b, Location loc, Value data,
                                        bool transposed) {
  MLIRContext *ctx = b.getContext();
  auto dataType = cast<RankedTensorType>(data.getType());
  int64_t rank = dataType.getRank();
  lowering::ElementFormat fmt =
      lowering::getElementFormat(dataType.getElementType());
  SmallVector<int64_t> shape(dataType.getShape());
  SmallVector<AffineExpr> exprs;
  for (int64_t i = 0; i < rank; ++i)
    exprs.push_back(getAffineDimExpr(i, ctx));
  if (transposed) {
    std::swap(shape[rank - 2], shape[rank - 1]);
    std::swap(exprs[rank - 2], exprs[rank - 1]);
  }
  Value init = tensor::EmptyOp::create(b, loc, shape, b.getF32Type());
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{data}, ValueRange{init},
             ArrayRef<AffineMap>{AffineMap::get(rank, 0, exprs, ctx),
                                 AffineMap::getMultiDimIdentityMap(rank, ctx)},
             getParallel(rank),
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               Bits bb(nb, nloc);
               linalg::YieldOp::create(
                   bb.b, lowering::decodeElement(bb, bb.byteOf(args[0]), fmt));
             })
      .getResult(0);
}

/// The scale of one element in the body of a Float8 cast generic, and
/// whether the element lies in a scaling group (null: every element does).
struct ElementScale {
  Value inside;
  Value scale;
};
using ElementScaleFn = function_ref<ElementScale(Bits &, ValueRange)>;

/// amax = max |x| over each scaling group (SPEC-float8 §2.2): a generic from
/// +0 into an f32 tensor of `scalesType`'s shape, over `inputs` (the data
/// first) with `maps` (the last the scales') and `iterators`; NaN-propagating.
/// `inGroup` (when given) tells whether the element is in the group of the
/// accumulator; elements outside count as +0.
static Value buildFloat8Amax(
    OpBuilder &b, Location loc, ValueRange inputs, ArrayRef<AffineMap> maps,
    ArrayRef<utils::IteratorType> iterators, RankedTensorType scalesType,
    function_ref<Value(Bits &, ValueRange)> inGroup = nullptr) {
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
  Value amaxInit = linalg::FillOp::create(
                       b, loc, zero,
                       Value(tensor::EmptyOp::create(
                           b, loc, scalesType.getShape(), b.getF32Type())))
                       .getResult(0);
  return linalg::GenericOp::create(
             b, loc, amaxInit.getType(), inputs, ValueRange{amaxInit}, maps,
             iterators,
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               Bits bb(nb, nloc);
               Value v = math::AbsFOp::create(bb.b, bb.toF32(args[0]));
               if (inGroup)
                 v = bb.select(inGroup(bb, args), v, bb.cf(0.0f));
               linalg::YieldOp::create(bb.b, Value(arith::MaximumFOp::create(
                                                 bb.b, v, args.back())));
             })
      .getResult(0);
}

/// The data of a Float8 quantize `op`: q = RNE(clamp(RN_f32(x * s), -max,
/// max)) per element (SPEC-float8 §2.5), a parallel generic over `inputs`
/// (the input first) with `maps` (the last the data's); `scaleOf` gives each
/// element's scale, and an element outside every group is +0.
static Value buildFloat8CastData(OpBuilder &b, Location loc, QuantizeOp op,
                                 ValueRange inputs, ArrayRef<AffineMap> maps,
                                 ElementScaleFn scaleOf) {
  RankedTensorType inputType = op.getInput().getType();
  Type dataElemType = op.getData().getType().getElementType();
  lowering::ElementFormat fmt = lowering::getElementFormat(dataElemType);
  Value dataInit =
      tensor::EmptyOp::create(b, loc, inputType.getShape(), dataElemType);
  return linalg::GenericOp::create(
             b, loc, dataInit.getType(), inputs, ValueRange{dataInit}, maps,
             getParallel(inputType.getRank()),
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               Bits bb(nb, nloc);
               ElementScale s = scaleOf(bb, args);
               Value code = castToFloat8(bb, bb.toF32(args[0]), s.scale, fmt);
               if (s.inside)
                 code = bb.select(s.inside, code, bb.c(0));
               linalg::YieldOp::create(bb.b, bb.byteAs(dataElemType, code));
             })
      .getResult(0);
}

/// The result of a Float8 dequantize `op`: RN_out(RN_f32(float(q) / s)) per
/// element (SPEC-float8 §2.6), a parallel generic over `inputs` (the data
/// first) with `maps` (the last the result's); `scaleOf` gives each
/// element's scale, and an element outside every group is +0.
static Value buildFloat8Dequantized(OpBuilder &b, Location loc, DequantizeOp op,
                                    ValueRange inputs, ArrayRef<AffineMap> maps,
                                    ElementScaleFn scaleOf) {
  RankedTensorType resultType = op.getResult().getType();
  Type outElemType = resultType.getElementType();
  lowering::ElementFormat fmt =
      lowering::getElementFormat(op.getData().getType().getElementType());
  Value init =
      tensor::EmptyOp::create(b, loc, resultType.getShape(), outElemType);
  return linalg::GenericOp::create(
             b, loc, resultType, inputs, ValueRange{init}, maps,
             getParallel(resultType.getRank()),
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               Bits bb(nb, nloc);
               ElementScale s = scaleOf(bb, args);
               Value x = lowering::decodeElement(bb, bb.byteOf(args[0]), fmt);
               Value q = arith::DivFOp::create(bb.b, x, s.scale);
               if (s.inside)
                 q = bb.select(s.inside, q, bb.cf(0.0f));
               linalg::YieldOp::create(bb.b, bb.fromF32(outElemType, q));
             })
      .getResult(0);
}

/// The scale of an element of a dense Float8 cast: argument 1 of the body.
static ElementScale getDenseElementScale(Bits &, ValueRange args) {
  return {Value(), args[1]};
}

namespace {
/// Float8 quantize -> amax reduction per scaling group, the scale generic,
/// and the cast generic (SPEC-float8 §2.1).
struct Float8QuantizeOpLowering final : OpRewritePattern<QuantizeOp> {
  using Base::Base;

  LogicalResult matchAndRewrite(QuantizeOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.isFloat8())
      return rewriter.notifyMatchFailure(op, "not a Float8 quantize");
    if (op.isPerGroup())
      return rewriter.notifyMatchFailure(op, "per-group scales");
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    RankedTensorType scalesType = op.getScales().getType();
    int64_t rank = op.getInput().getType().getRank(), axis = op.getAxis();
    bool tensorwise = *op.getGranularity() == Float8Granularity::Tensorwise;
    lowering::ElementFormat fmt =
        lowering::getElementFormat(op.getData().getType().getElementType());
    AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
    AffineMap scaleMap = getScaleMap(ctx, rank, tensorwise, axis);

    SmallVector<utils::IteratorType> reduceIters = getParallel(rank);
    for (int64_t i = 0; i < rank; ++i)
      if (tensorwise || i == axis)
        reduceIters[i] = utils::IteratorType::reduction;
    Value amax = buildFloat8Amax(rewriter, loc, op.getInput(),
                                 {identity, scaleMap}, reduceIters, scalesType);
    // s = SCALE(amax) per group (SPEC-float8 §2.3, §2.4).
    Value scales =
        buildFloat8Scales(rewriter, loc, amax, scalesType, fmt, op.getPow2());
    Value data = buildFloat8CastData(
        rewriter, loc, op, ValueRange{op.getInput(), scales},
        {identity, scaleMap, identity}, getDenseElementScale);
    rewriter.replaceOp(op, {data, scales});
    return success();
  }
};

/// Float8 dequantize -> `RN_out(RN_f32(float(q) / s))` elementwise
/// (SPEC-float8 §2.6).
struct Float8DequantizeOpLowering final : OpRewritePattern<DequantizeOp> {
  using Base::Base;

  LogicalResult matchAndRewrite(DequantizeOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.isFloat8())
      return rewriter.notifyMatchFailure(op, "not a Float8 dequantize");
    if (op.isPerGroup())
      return rewriter.notifyMatchFailure(op, "per-group scales");
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    MLIRContext *ctx = rewriter.getContext();
    int64_t rank = op.getData().getType().getRank();
    bool tensorwise = *op.getGranularity() == Float8Granularity::Tensorwise;
    AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
    Value result = buildFloat8Dequantized(
        rewriter, op.getLoc(), op, ValueRange{op.getData(), op.getScales()},
        {identity, getScaleMap(ctx, rank, tensorwise, op.getAxis()), identity},
        getDenseElementScale);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// The group of every row of a `(T, X)` tensor split by `offs` (clamped as
/// buildClampedEnds clamps them): an i32 `(T,)` tensor holding the number of
/// group ends <= t, so E for rows past the last group end.
static Value buildRowGroups(OpBuilder &b, Location loc, Value offs,
                            int64_t tokens) {
  int64_t groups = cast<RankedTensorType>(offs.getType()).getDimSize(0);
  Value ends = buildClampedEnds(b, loc, offs, tokens);
  MLIRContext *ctx = b.getContext();
  Value init = tensor::EmptyOp::create(b, loc, {tokens}, b.getI32Type());
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{}, ValueRange{init},
             ArrayRef<AffineMap>{AffineMap::getMultiDimIdentityMap(1, ctx)},
             getParallel(1),
             [&](OpBuilder &nb, Location nloc, ValueRange) {
               Bits bb(nb, nloc);
               Value t = arith::IndexCastOp::create(
                   bb.b, bb.b.getI32Type(), linalg::IndexOp::create(bb.b, 0));
               Value group = bb.c(0);
               for (int64_t g = 0; g < groups; ++g) {
                 Value end = tensor::ExtractOp::create(bb.b, ends,
                                                       ValueRange{bb.cIdx(g)});
                 group = bb.add(
                     group, bb.zext(bb.cmp(arith::CmpIPredicate::sle, end, t)));
               }
               linalg::YieldOp::create(bb.b, group);
             })
      .getResult(0);
}

/// In the body of a generic over `(t, x)` whose argument `group` is the
/// group of row t (buildRowGroups): whether the row is in a group, and the
/// f32 scale `scales[group, x]` (1.0 outside every group).
static ElementScale lookUpGroupScale(Bits &bb, Value scales, Value group,
                                     int64_t groups) {
  Value inside = bb.cmp(arith::CmpIPredicate::slt, group, bb.c(groups));
  if (groups == 0)
    return {inside, bb.cf(1.0f)};
  Value g = arith::IndexCastOp::create(bb.b, bb.b.getIndexType(),
                                       bb.mins(group, bb.c(groups - 1)));
  Value x = linalg::IndexOp::create(bb.b, 1);
  Value s = tensor::ExtractOp::create(bb.b, scales, ValueRange{g, x});
  return {inside, bb.select(inside, s, bb.cf(1.0f))};
}

/// The maps of an elementwise generic over a `(T, X)` tensor and the group
/// of each row (buildRowGroups) into a `(T, X)` result.
static SmallVector<AffineMap> getPerGroupMaps(MLIRContext *ctx) {
  AffineMap id2 = AffineMap::getMultiDimIdentityMap(2, ctx);
  return {id2, AffineMap::get(2, 0, {getAffineDimExpr(0, ctx)}, ctx), id2};
}

/// Per-group Float8 quantize (`offs`, SPEC-float8 §3.3) -> the group of
/// every row, the amax of each (group, column) over the group's rows only
/// (a generic over (g, t, x) that reduces t, reading |x| for the rows of
/// group g and +0 elsewhere), the scale generic of the dense cast, and the
/// cast of every row with its group's scales (rows past the last group: +0).
struct Float8PerGroupQuantizeOpLowering final : OpRewritePattern<QuantizeOp> {
  using Base::Base;

  LogicalResult matchAndRewrite(QuantizeOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.isFloat8() || !op.isPerGroup())
      return rewriter.notifyMatchFailure(op, "not a per-group Float8 quantize");
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    RankedTensorType scalesType = op.getScales().getType();
    int64_t groups = scalesType.getDimSize(0);
    lowering::ElementFormat fmt =
        lowering::getElementFormat(op.getData().getType().getElementType());
    Value rowGroups = buildRowGroups(rewriter, loc, op.getOffs(),
                                     op.getInput().getType().getDimSize(0));
    auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };

    // amax[g, x] = max |input[t, x]| over the rows t of group g.
    Value amax = buildFloat8Amax(
        rewriter, loc, ValueRange{op.getInput(), rowGroups},
        {AffineMap::get(3, 0, {d(1), d(2)}, ctx),
         AffineMap::get(3, 0, {d(1)}, ctx),
         AffineMap::get(3, 0, {d(0), d(2)}, ctx)},
        {utils::IteratorType::parallel, utils::IteratorType::reduction,
         utils::IteratorType::parallel},
        scalesType, [](Bits &bb, ValueRange args) {
          Value g = arith::IndexCastOp::create(
              bb.b, bb.b.getI32Type(), linalg::IndexOp::create(bb.b, 0));
          return bb.eq(args[1], g);
        });

    // s = SCALE(amax) per (group, column): an empty group has amax 0.
    Value scales =
        buildFloat8Scales(rewriter, loc, amax, scalesType, fmt, op.getPow2());

    // q[t, x] = CAST(input[t, x], s[group(t), x]).
    Value data = buildFloat8CastData(
        rewriter, loc, op, ValueRange{op.getInput(), rowGroups},
        getPerGroupMaps(ctx), [&](Bits &bb, ValueRange args) {
          return lookUpGroupScale(bb, scales, args[1], groups);
        });
    rewriter.replaceOp(op, {data, scales});
    return success();
  }
};

/// Per-group Float8 dequantize -> `RN_out(RN_f32(float(q) / s[group(t), x]))`
/// per element, +0 for rows past the last group end.
struct Float8PerGroupDequantizeOpLowering final
    : OpRewritePattern<DequantizeOp> {
  using Base::Base;

  LogicalResult matchAndRewrite(DequantizeOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.isFloat8() || !op.isPerGroup())
      return rewriter.notifyMatchFailure(op,
                                         "not a per-group Float8 dequantize");
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    Location loc = op.getLoc();
    int64_t groups = op.getScales().getType().getDimSize(0);
    Value rowGroups = buildRowGroups(rewriter, loc, op.getOffs(),
                                     op.getData().getType().getDimSize(0));
    Value scales = op.getScales();
    Value result = buildFloat8Dequantized(
        rewriter, loc, op, ValueRange{op.getData(), rowGroups},
        getPerGroupMaps(rewriter.getContext()), [&](Bits &bb, ValueRange args) {
          return lookUpGroupScale(bb, scales, args[1], groups);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Float8 scaled_mm -> the exact f32 values of both fp8 operands in (M, K) /
/// (K, N) orientation, an f32 linalg.matmul / batch_matmul from zero, then
/// `RN_out(RN_f32(RN_f32(acc * RN(1/s_l)) * RN(1/s_r)) + bias)` in one
/// elementwise generic (SPEC-float8 §5.4).
struct Float8ScaledMmOpLowering final : OpRewritePattern<ScaledMmOp> {
  using Base::Base;

  LogicalResult matchAndRewrite(ScaledMmOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.isFloat8())
      return rewriter.notifyMatchFailure(op, "not a Float8 scaled_mm");
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    RankedTensorType resultType = op.getResult().getType();
    int64_t rank = resultType.getRank();
    int64_t r0 = rank - 2, r1 = rank - 1;

    Value lhs =
        buildFloat8ToF32(rewriter, loc, op.getLhs(), op.getTransposeLhs());
    Value rhs =
        buildFloat8ToF32(rewriter, loc, op.getRhs(), op.getTransposeRhs());

    Value acc = buildF32Matmul(rewriter, loc, lhs, rhs, resultType.getShape());

    // Scale maps from the (B?, M, N) result space: a rank-0 scale is
    // tensorwise; a rowwise scale is its stored operand shape with K = 1,
    // indexed by the operand's M (lhs) or N (rhs) loop.
    auto scaleMap = [&](Value scales, bool transposed, bool isLhs) {
      if (cast<RankedTensorType>(scales.getType()).getRank() == 0)
        return AffineMap::get(rank, 0, ArrayRef<AffineExpr>{}, ctx);
      SmallVector<AffineExpr> exprs;
      if (rank == 3)
        exprs.push_back(getAffineDimExpr(0, ctx));
      AffineExpr rowOrCol = getAffineDimExpr(isLhs ? r0 : r1, ctx);
      AffineExpr zeroExpr = getAffineConstantExpr(0, ctx);
      // Stored (M, K) / (K, N) unless transposed.
      bool outerIsK = isLhs == transposed;
      exprs.push_back(outerIsK ? zeroExpr : rowOrCol);
      exprs.push_back(outerIsK ? rowOrCol : zeroExpr);
      return AffineMap::get(rank, 0, exprs, ctx);
    };
    AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
    SmallVector<Value> inputs = {acc, op.getLhsScales(), op.getRhsScales()};
    SmallVector<AffineMap> maps = {
        identity,
        scaleMap(op.getLhsScales(), op.getTransposeLhs(), /*isLhs=*/true),
        scaleMap(op.getRhsScales(), op.getTransposeRhs(), /*isLhs=*/false)};
    Value bias = op.getBias();
    if (bias) {
      inputs.push_back(bias);
      maps.push_back(AffineMap::get(rank, 0, getAffineDimExpr(r1, ctx)));
    }
    maps.push_back(identity);
    Type outElemType = resultType.getElementType();
    Value outInit = tensor::EmptyOp::create(rewriter, loc,
                                            resultType.getShape(), outElemType);
    Value result =
        linalg::GenericOp::create(
            rewriter, loc, outInit.getType(), inputs, ValueRange{outInit}, maps,
            getParallel(rank),
            [&](OpBuilder &nb, Location nloc, ValueRange args) {
              Bits bb(nb, nloc);
              Value ia = computeFloat8InverseScale(bb, args[1]);
              Value ib = computeFloat8InverseScale(bb, args[2]);
              Value v = arith::MulFOp::create(
                  bb.b, Value(arith::MulFOp::create(bb.b, args[0], ia)), ib);
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

void linalg_lowering::populateFloat8ToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<Float8QuantizeOpLowering, Float8DequantizeOpLowering,
               Float8PerGroupQuantizeOpLowering,
               Float8PerGroupDequantizeOpLowering, Float8ScaledMmOpLowering>(
      patterns.getContext());
}
