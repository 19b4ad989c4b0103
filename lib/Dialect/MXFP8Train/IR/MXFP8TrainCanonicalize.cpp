//===- MXFP8TrainCanonicalize.cpp - mxfp8train canonicalizations ----------===//
//
// Canonicalization patterns of the mxfp8train ops:
//
// - to_blocked `blocked` of the row-major scales of a rank-2 quantize along
//   its last axis (or of the rowwise scales of a quantize_dual), whose only
//   user it is, becomes the quantize with `layout = blocked`: the blocked
//   layout of quantize is by definition the to_blocked of its (rows, K/32)
//   scale matrix (SPEC §4.1), so the result is the same bytes, and every
//   backend writes them from the quantization itself instead of writing
//   row-major scales and re-reading them in a second pass.
//
// It is a canonicalization rather than a pass of Transforms/ because it is
// local, needs no option or target, and is a win on every backend (one op
// and one pass over the scales fewer). `canonicalize` runs after
// mxfp8train-rewrite-matmuls in the documented pipelines and first thing in
// mxfp8train-lower-to-gpu.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainOps.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::mxfp8train;

namespace {
/// to_blocked <blocked> (quantize %x axis = 1, row_major).scales, the only
/// use of the scales -> quantize %x axis = 1 layout = blocked. Also the
/// rowwise scales (axis = 1) of a rank-2 quantize_dual.
///
/// The 32x1 scales (axis = 0) do not fold: their row-major matrix is
/// (K/32, N), and to_blocked of it is not the blocked layout of quantize,
/// which blocks the transposed (N, K/32) matrix.
struct FoldToBlockedIntoQuantize final : OpRewritePattern<ToBlockedOp> {
  using Base::Base;

  LogicalResult matchAndRewrite(ToBlockedOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getLayout() != ScaleLayout::Blocked)
      return rewriter.notifyMatchFailure(op, "not the blocked layout");
    Value scales = op.getScales();
    if (!scales.hasOneUse())
      return rewriter.notifyMatchFailure(op, "the row-major scales have "
                                             "other uses");
    auto blocked = ScaleLayoutAttr::get(getContext(), ScaleLayout::Blocked);
    RankedTensorType blockedType = op.getResult().getType();

    if (auto quantize = scales.getDefiningOp<QuantizeOp>()) {
      if (quantize.getInput().getType().getRank() != 2 ||
          quantize.getAxis() != 1 ||
          quantize.getScaleLayout() != ScaleLayout::RowMajor)
        return rewriter.notifyMatchFailure(op, "not the row-major scales of "
                                               "a rank-2 quantize along axis "
                                               "1");
      rewriter.setInsertionPoint(quantize);
      auto fused = QuantizeOp::create(
          rewriter, quantize.getLoc(), quantize.getData().getType(),
          blockedType, quantize.getInput(), quantize.getAxis(),
          quantize.getScaleMode(), blocked.getValue());
      rewriter.replaceAllUsesWith(quantize.getData(), fused.getData());
      rewriter.replaceOp(op, fused.getScales());
      rewriter.eraseOp(quantize);
      return success();
    }

    auto dual = scales.getDefiningOp<QuantizeDualOp>();
    if (!dual || scales != dual.getRowwiseScales() ||
        dual.getInput().getType().getRank() != 2 ||
        dual.getRowwiseLayout() != ScaleLayout::RowMajor)
      return rewriter.notifyMatchFailure(op, "not the row-major scales of a "
                                             "rank-2 quantize or the rowwise "
                                             "scales of a quantize_dual");
    rewriter.setInsertionPoint(dual);
    auto fused = QuantizeDualOp::create(
        rewriter, dual.getLoc(), dual.getRowwiseData().getType(), blockedType,
        dual.getColwiseData().getType(), dual.getColwiseScales().getType(),
        dual.getInput(), dual.getScaleModeAttr(), blocked,
        dual.getColwiseLayoutAttr());
    rewriter.replaceAllUsesWith(dual.getRowwiseData(), fused.getRowwiseData());
    rewriter.replaceAllUsesWith(dual.getColwiseData(), fused.getColwiseData());
    rewriter.replaceAllUsesWith(dual.getColwiseScales(),
                                fused.getColwiseScales());
    rewriter.replaceOp(op, fused.getRowwiseScales());
    rewriter.eraseOp(dual);
    return success();
  }
};
} // namespace

void ToBlockedOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<FoldToBlockedIntoQuantize>(context);
}
