//===- FoldOutputTruncation.cpp - bf16 results straight from scaled_mm ----===//
//
// A frontend's bf16 matmul is an f32-accumulating `linalg.matmul` followed
// by an elementwise `arith.truncf` to bf16 (torch's semantics), and
// mxfp8train-rewrite-matmuls keeps the f32 result type: the converted graph
// is `scaled_mm -> f32` then a truncation kernel. `scaled_mm` with a bf16
// result is defined as the same f32 accumulation (bias added in f32)
// rounded once to bf16 (SPEC §3.1, round to nearest even), so a truncation
// that is the only use of the f32 result folds into the op: the same bits,
// half the bytes written by the GEMM, and no pass over the f32 tensor (at
// 16384 tokens of the Llama-3-8B MLP, 0.9 GB written and read back per
// projection).
//
// Matched truncations: a `linalg.generic` with one input and one init, all
// iterators parallel and identity indexing maps, whose body is exactly
// `arith.truncf %in : f32 to bf16` (no rounding-mode or fast-math flags),
// and `arith.truncf` of the whole tensor; of the scaled_mm itself or of the
// `tensor.expand_shape` of a batch folded into M.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainOps.h"
#include "mxfp8train/Dialect/MXFP8Train/Transforms/Transforms.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

using namespace mlir;
using namespace mlir::mxfp8train;

/// Whether `trunc` rounds f32 to bf16 with the default semantics (round to
/// nearest even, no fast-math flags).
static bool isPlainBF16Truncation(arith::TruncFOp trunc) {
  return getElementTypeOrSelf(trunc.getIn().getType()).isF32() &&
         getElementTypeOrSelf(trunc.getType()).isBF16() &&
         !trunc.getRoundingmodeAttr() &&
         trunc.getFastmath().value_or(arith::FastMathFlags::none) ==
             arith::FastMathFlags::none;
}

/// Replaces `truncation` (one result of the shape of `input`) by the
/// scaled_mm that `input` is, or that a `tensor.expand_shape` `input` reads
/// (the rewrite's batch fold: `(B * M, N)` back to `(B, M, N)`), with a bf16
/// result, when the truncation is the f32 value's only use.
static LogicalResult foldInto(PatternRewriter &rewriter, Operation *truncation,
                              Value input) {
  auto expand = input.getDefiningOp<tensor::ExpandShapeOp>();
  Value product = expand ? expand.getSrc() : input;
  auto mm = product.getDefiningOp<ScaledMmOp>();
  if (!mm || !input.hasOneUse() || !product.hasOneUse())
    return rewriter.notifyMatchFailure(truncation,
                                       "not the only use of a scaled_mm");
  RankedTensorType type = mm.getResult().getType();
  auto inputType = cast<RankedTensorType>(input.getType());
  auto truncType = dyn_cast<RankedTensorType>(truncation->getResultTypes()[0]);
  if (!type.getElementType().isF32() || !truncType ||
      truncType.getShape() != inputType.getShape())
    return rewriter.notifyMatchFailure(truncation, "not an f32 scaled_mm of "
                                                   "the same shape");
  rewriter.setInsertionPoint(mm);
  auto folded = ScaledMmOp::create(
      rewriter, mm.getLoc(), type.clone(truncType.getElementType()),
      mm.getLhs(), mm.getLhsScales(), mm.getRhs(), mm.getRhsScales(),
      mm.getBias(), mm.getTransposeLhsAttr(), mm.getTransposeRhsAttr(),
      mm.getLhsScaleLayoutAttr(), mm.getRhsScaleLayoutAttr());
  folded->setDiscardableAttrs(mm->getDiscardableAttrDictionary());
  Value result = folded.getResult();
  if (expand) {
    rewriter.setInsertionPoint(expand);
    result =
        tensor::ExpandShapeOp::create(rewriter, expand.getLoc(), truncType,
                                      result, expand.getReassociationIndices());
  }
  rewriter.replaceOp(truncation, result);
  if (expand)
    rewriter.eraseOp(expand);
  rewriter.eraseOp(mm);
  return success();
}

namespace {
/// linalg.generic { arith.truncf f32 -> bf16 } (scaled_mm -> f32).
struct FoldGenericTruncation final : OpRewritePattern<linalg::GenericOp> {
  using Base::Base;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1 ||
        op.getNumResults() != 1 || op.getNumReductionLoops() != 0 ||
        !llvm::all_of(op.getIndexingMapsArray(),
                      [](AffineMap map) { return map.isIdentity(); }))
      return rewriter.notifyMatchFailure(op, "not an elementwise map");
    Block &body = op.getRegion().front();
    if (body.getOperations().size() != 2)
      return rewriter.notifyMatchFailure(op, "not a lone truncation");
    auto trunc = dyn_cast<arith::TruncFOp>(body.front());
    auto yield = cast<linalg::YieldOp>(body.getTerminator());
    if (!trunc || trunc.getIn() != body.getArgument(0) ||
        yield.getValues().size() != 1 ||
        yield.getValues()[0] != trunc.getResult() ||
        !isPlainBF16Truncation(trunc))
      return rewriter.notifyMatchFailure(op, "not a lone f32 -> bf16 "
                                             "truncation");
    return foldInto(rewriter, op, op.getDpsInputs()[0]);
  }
};

/// arith.truncf (scaled_mm -> f32) : tensor<...xf32> to tensor<...xbf16>.
struct FoldTensorTruncation final : OpRewritePattern<arith::TruncFOp> {
  using Base::Base;

  LogicalResult matchAndRewrite(arith::TruncFOp op,
                                PatternRewriter &rewriter) const override {
    if (!isa<RankedTensorType>(op.getType()) || !isPlainBF16Truncation(op))
      return rewriter.notifyMatchFailure(op, "not a plain tensor truncation");
    return foldInto(rewriter, op, op.getIn());
  }
};
} // namespace

void mxfp8train::populateFoldOutputTruncationPatterns(
    RewritePatternSet &patterns) {
  patterns.add<FoldGenericTruncation, FoldTensorTruncation>(
      patterns.getContext());
}

void mxfp8train::foldOutputTruncations(Operation *root) {
  RewritePatternSet patterns(root->getContext());
  populateFoldOutputTruncationPatterns(patterns);
  // One walk: only the matched ops change (the greedy driver would also
  // erase dead ops, e.g. matmuls the rewrite skipped).
  walkAndApplyPatterns(root, FrozenRewritePatternSet(std::move(patterns)));
}
