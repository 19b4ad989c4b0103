//===- QuantizeDualToLinalg.cpp - quantize_dual on the CPU path -*- C++ -*-===//
//
// The CPU lowering of quantize_dual: the two quantizes it stands for (along
// rank-1 and rank-2, same mode, each with its own element type and scale
// layout), which the quantize lowering of this pass then lowers. The CPU
// path gains nothing from reading the input once; the GPU kernel does
// (docs/gpu.md).
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainOps.h"

using namespace mlir;
using namespace mlir::mxfp8train;

namespace {
/// quantize_dual -> quantize(axis = rank-1) + quantize(axis = rank-2).
struct QuantizeDualOpLowering final : OpRewritePattern<QuantizeDualOp> {
  using Base::Base;

  LogicalResult matchAndRewrite(QuantizeDualOp op,
                                PatternRewriter &rewriter) const override {
    int64_t rank = op.getInput().getType().getRank();
    auto rowwise =
        QuantizeOp::create(rewriter, op.getLoc(), op.getRowwiseData().getType(),
                           op.getRowwiseScales().getType(), op.getInput(),
                           rank - 1, op.getScaleMode(), op.getRowwiseLayout());
    auto colwise =
        QuantizeOp::create(rewriter, op.getLoc(), op.getColwiseData().getType(),
                           op.getColwiseScales().getType(), op.getInput(),
                           rank - 2, op.getScaleMode(), op.getColwiseLayout());
    rewriter.replaceOp(op, {rowwise.getData(), rowwise.getScales(),
                            colwise.getData(), colwise.getScales()});
    return success();
  }
};
} // namespace

void linalg_lowering::populateQuantizeDualToLinalgPatterns(
    RewritePatternSet &patterns) {
  patterns.add<QuantizeDualOpLowering>(patterns.getContext());
}
