//===- FuseQuantizeDual.cpp - quantize pairs -> quantize_dual ---*- C++ -*-===//
//
// The linear layer quantizes `x` along K (forward) and along M (wgrad), and
// `dO` along N (dgrad) and along M (wgrad): two casts of the same tensor
// along its last two dimensions. Fusing them into `quantize_dual` lets a
// backend read the tensor once (the GPU kernel does: 3 bytes of traffic per
// bf16 element instead of 6 for the pair of separate kernels).
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainOps.h"
#include "mxfp8train/Dialect/MXFP8Train/Transforms/Transforms.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::mxfp8train;

namespace {
/// quantize(x, axis = rank-1) + quantize(x, axis = rank-2) with the same
/// scale mode, in one block -> quantize_dual(x) at the earlier of the two.
struct FuseQuantizePair final : OpRewritePattern<QuantizeOp> {
  using Base::Base;

  LogicalResult matchAndRewrite(QuantizeOp rowOp,
                                PatternRewriter &rewriter) const override {
    Value input = rowOp.getInput();
    int64_t rank = rowOp.getInput().getType().getRank();
    if (rank < 2 || rowOp.getAxis() != uint64_t(rank - 1))
      return rewriter.notifyMatchFailure(rowOp, "not a last-axis quantize");
    // quantize_dual is MX only; Float8 casts have f32 scales.
    if (rowOp.isFloat8())
      return rewriter.notifyMatchFailure(rowOp, "a Float8 quantize");
    for (Operation *user : input.getUsers()) {
      auto colOp = dyn_cast<QuantizeOp>(user);
      if (!colOp || colOp.isFloat8() || colOp.getAxis() != uint64_t(rank - 2) ||
          colOp.getScaleMode() != rowOp.getScaleMode() ||
          colOp->getBlock() != rowOp->getBlock())
        continue;
      Operation *first =
          rowOp->isBeforeInBlock(colOp) ? rowOp.getOperation() : colOp;
      rewriter.setInsertionPoint(first);
      auto dual = QuantizeDualOp::create(
          rewriter, rewriter.getFusedLoc({rowOp.getLoc(), colOp.getLoc()}),
          rowOp.getData().getType(), rowOp.getScales().getType(),
          colOp.getData().getType(), colOp.getScales().getType(), input,
          rowOp.getScaleModeAttr(), rowOp.getScaleLayoutAttr(),
          colOp.getScaleLayoutAttr());
      rewriter.replaceOp(rowOp,
                         {dual.getRowwiseData(), dual.getRowwiseScales()});
      rewriter.replaceOp(colOp,
                         {dual.getColwiseData(), dual.getColwiseScales()});
      return success();
    }
    return rewriter.notifyMatchFailure(rowOp, "no 32x1 quantize of the input");
  }
};
} // namespace

void mlir::mxfp8train::populateFuseQuantizeDualPatterns(
    RewritePatternSet &patterns) {
  patterns.add<FuseQuantizePair>(patterns.getContext());
}
