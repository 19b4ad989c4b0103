//===- EmptyShapes.cpp - mxfp8train ops with empty shapes -------*- C++ -*-===//
//
// Implements EmptyShapes.h.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Conversion/Utils/EmptyShapes.h"
#include "mxfp8train/Conversion/Utils/Float8Arith.h"
#include "mxfp8train/Conversion/Utils/QuantizeArith.h"
#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainDialect.h"
#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::lowering;

/// True for a statically shaped ranked tensor type with no elements.
static bool isEmptyTensorType(Type type) {
  auto tensorType = dyn_cast<RankedTensorType>(type);
  return tensorType && tensorType.hasStaticShape() &&
         tensorType.getNumElements() == 0;
}

/// A zero-filled tensor of `type` (bf16 or f32).
static Value buildZeros(OpBuilder &b, Location loc, RankedTensorType type) {
  Value empty =
      tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  Value zero = arith::ConstantOp::create(
      b, loc, b.getFloatAttr(type.getElementType(), 0.0));
  return linalg::FillOp::create(b, loc, zero, empty).getResult(0);
}

/// `result[..., n] = round(bias[n])` into `type` (round to nearest even).
static Value buildBroadcastBias(OpBuilder &b, Location loc, Value bias,
                                RankedTensorType type) {
  MLIRContext *ctx = b.getContext();
  int64_t rank = type.getRank();
  Value empty =
      tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  AffineMap biasMap =
      AffineMap::get(rank, 0, getAffineDimExpr(rank - 1, ctx), ctx);
  Type elemType = type.getElementType();
  return linalg::GenericOp::create(
             b, loc, type, ValueRange{bias}, ValueRange{empty},
             ArrayRef<AffineMap>{biasMap,
                                 AffineMap::getMultiDimIdentityMap(rank, ctx)},
             SmallVector<utils::IteratorType>(rank,
                                              utils::IteratorType::parallel),
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               lowering::Bits bb(nb, nloc);
               Value v = bb.fromF32(elemType, bb.toF32(args[0]));
               linalg::YieldOp::create(nb, nloc, v);
             })
      .getResult(0);
}

/// True when the sum of a grouped GEMM is empty for every output element:
/// 2d-3d with K = 0 or no groups, 2d-2d with no tokens.
template <typename OpTy> static bool hasEmptyGroupedSum(OpTy op) {
  RankedTensorType lhsType = op.getLhs().getType();
  RankedTensorType rhsType = op.getRhs().getType();
  if (!lhsType.hasStaticShape() || !rhsType.hasStaticShape())
    return false;
  if (op.isTwoDTwoD())
    return lhsType.getDimSize(op.getTransposeLhs() ? 0 : 1) == 0;
  return lhsType.getDimSize(1) == 0 || rhsType.getDimSize(0) == 0;
}

namespace {
/// Any mxfp8train op whose results all have no elements -> tensor.empty.
struct EmptyResultsPattern final : RewritePattern {
  EmptyResultsPattern(MLIRContext *ctx, PatternBenefit benefit)
      : RewritePattern(MatchAnyOpTypeTag(), benefit, ctx) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isa_and_nonnull<MXFP8TrainDialect>(op->getDialect()) ||
        op->getNumResults() == 0 ||
        !llvm::all_of(op->getResultTypes(), isEmptyTensorType))
      return rewriter.notifyMatchFailure(op, "a result has elements");
    SmallVector<Value> results;
    for (Type type : op->getResultTypes()) {
      auto tensorType = cast<RankedTensorType>(type);
      results.push_back(tensor::EmptyOp::create(rewriter, op->getLoc(),
                                                tensorType.getShape(),
                                                tensorType.getElementType()));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// A linalg op on tensors with an empty iteration space writes nothing: its
/// results are its inits (a matmul with K = 0 is its accumulator).
struct EmptyLinalgIterationSpace final
    : OpInterfaceRewritePattern<linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics() ||
        !llvm::is_contained(op.getStaticLoopRanges(), 0))
      return rewriter.notifyMatchFailure(op, "not an empty iteration space");
    rewriter.replaceOp(op, op.getDpsInits());
    return success();
  }
};

/// scaled_mm with K = 0 -> zeros, or the bias broadcast along the rows.
struct EmptySumScaledMm final : OpRewritePattern<ScaledMmOp> {
  using Base::Base;

  LogicalResult matchAndRewrite(ScaledMmOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType lhsType = op.getLhs().getType();
    RankedTensorType resultType = op.getResult().getType();
    int64_t rank = lhsType.getRank();
    int64_t k = lhsType.getDimSize(op.getTransposeLhs() ? rank - 2 : rank - 1);
    if (k != 0 || !resultType.hasStaticShape() ||
        resultType.getNumElements() == 0)
      return rewriter.notifyMatchFailure(op, "not an empty sum");
    Value result = op.getBias() ? buildBroadcastBias(rewriter, op.getLoc(),
                                                     op.getBias(), resultType)
                                : buildZeros(rewriter, op.getLoc(), resultType);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// A Float8 quantize of an input with no elements whose scales have some
/// (the rows of a (rows, 0) rowwise cast, the columns of a (0, cols)
/// columnwise one, the groups of a per-group cast): every scaling group
/// is empty, its amax 0, so every scale is computeFloat8Scale(0)
/// (SPEC-float8 §2.3, §2.4), as the CPU path computes it; the data is
/// empty. Tensorwise (a rank-0 scale, which a fill would write from the
/// host) keeps its lowering: its amax kernel reads nothing.
struct EmptyInputFloat8Quantize final : OpRewritePattern<QuantizeOp> {
  using Base::Base;

  LogicalResult matchAndRewrite(QuantizeOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType inputType = op.getInput().getType();
    RankedTensorType scalesType = op.getScales().getType();
    if (!op.isFloat8() || !inputType.hasStaticShape() ||
        inputType.getNumElements() != 0 || !scalesType.hasStaticShape() ||
        scalesType.getRank() == 0 || scalesType.getNumElements() == 0)
      return rewriter.notifyMatchFailure(op, "not an empty Float8 input");
    Location loc = op.getLoc();
    RankedTensorType dataType = op.getData().getType();
    Bits bb(rewriter, loc);
    Value scale = computeFloat8Scale(
        bb, bb.cf(0.0f), getElementFormat(dataType.getElementType()),
        op.getPow2());
    Value data = tensor::EmptyOp::create(rewriter, loc, dataType.getShape(),
                                         dataType.getElementType());
    Value scales =
        linalg::FillOp::create(
            rewriter, loc, scale,
            tensor::EmptyOp::create(rewriter, loc, scalesType.getShape(),
                                    scalesType.getElementType())
                .getResult())
            .getResult(0);
    rewriter.replaceOp(op, {data, scales});
    return success();
  }
};

/// grouped_mm / scaled_grouped_mm whose every sum is empty -> zeros.
template <typename OpTy>
struct EmptySumGroupedMm final : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType resultType = op.getResult().getType();
    if (!hasEmptyGroupedSum(op) || !resultType.hasStaticShape() ||
        resultType.getNumElements() == 0)
      return rewriter.notifyMatchFailure(op, "not an empty sum");
    rewriter.replaceOp(op, buildZeros(rewriter, op.getLoc(), resultType));
    return success();
  }
};
} // namespace

void mlir::mxfp8train::populateEmptyShapePatterns(RewritePatternSet &patterns,
                                                  PatternBenefit benefit) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<EmptyResultsPattern>(ctx, benefit);
  patterns.add<EmptyLinalgIterationSpace, EmptySumScaledMm,
               EmptyInputFloat8Quantize, EmptySumGroupedMm<GroupedMmOp>,
               EmptySumGroupedMm<ScaledGroupedMmOp>>(ctx, benefit);
}
