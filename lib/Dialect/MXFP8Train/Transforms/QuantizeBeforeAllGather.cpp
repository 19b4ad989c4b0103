//===- QuantizeBeforeAllGather.cpp - FSDP fp8 all-gather ------*- C++ -*-===//
//
// FSDP keeps each weight split along its rows and all-gathers it before the
// GEMM; shard-partition emits that gather in the weight's precision (bf16),
// and the quantize of the gathered weight then runs whole on every process.
// When each 32-element block (MX) or amax group (Float8 axiswise) lies in
// one shard, quantizing each shard and gathering the fp8 data and the
// scales gives the same bytes, and moves 1 + 1/32 bytes per element and
// cast instead of 2 (torchao's float8 all-gather for FSDP2, extended to MX
// data and e8m0 scales, both casts of a quantize_dual).
//
// The mxfp8train-quantize-before-all-gather pass: getQuantizeBeforeAllGather-
// Blocker says whether a quantize may move (and why not), the pattern moves
// it, the pass emits the remarks and runs the pattern greedily.
//
//===----------------------------------------------------------------------===//

#include "CollectiveCasts.h"
#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainOps.h"
#include "mxfp8train/Dialect/MXFP8Train/Transforms/Passes.h"
#include "mxfp8train/Dialect/MXFP8Train/Transforms/Transforms.h"

#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

#define DEBUG_TYPE "mxfp8train-quantize-before-all-gather"

using namespace mlir;
using namespace mlir::mxfp8train;

using namespace mlir::mxfp8train::collective;

/// The all_gather whose result is `value`, looking through the identity
/// `tensor.cast`s that shard-partition leaves after it, or null.
static shard::AllGatherOp getGatherOf(Value value) {
  return lookThroughIdentityCasts(value).getDefiningOp<shard::AllGatherOp>();
}

bool mlir::mxfp8train::isQuantizeOfAllGather(Operation *op) {
  if (!isa<QuantizeOp, QuantizeDualOp>(op))
    return false;
  return static_cast<bool>(getGatherOf(op->getOperand(0)));
}

std::optional<std::string>
mlir::mxfp8train::getQuantizeBeforeAllGatherBlocker(Operation *op) {
  if (!isQuantizeOfAllGather(op))
    return std::nullopt;
  shard::AllGatherOp gather = getGatherOf(op->getOperand(0));
  auto localType = dyn_cast<RankedTensorType>(gather.getInput().getType());
  auto wholeType = dyn_cast<RankedTensorType>(gather.getResult().getType());
  if (!localType || !wholeType || !localType.hasStaticShape() ||
      !wholeType.hasStaticShape())
    return std::string("the gather has dynamic shapes");
  int64_t g = gather.getGatherAxis().getSExtValue();
  int64_t local = localType.getDimSize(g);
  if (local <= 0 || wholeType.getDimSize(g) % local != 0)
    return std::string("the gathered size is not a multiple of the shard's");
  for (const CastInfo &c : getCasts(op))
    if (std::optional<std::string> reason = getCastBlocker(c, g, local))
      return reason;
  return getOtherUsersBlocker(
      gather.getResult(), op, "gathered", "gather",
      [&](const CastInfo &c) { return bool(getCastBlocker(c, g, local)); });
}

namespace {
/// quantize(all_gather(x)) -> all_gather(quantize(x)) per result, for
/// `quantize` and `quantize_dual`.
template <typename OpTy>
struct MoveQuantizeBeforeAllGather final : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy quantize,
                                PatternRewriter &rewriter) const override {
    Operation *op = quantize.getOperation();
    if (!isQuantizeOfAllGather(op))
      return rewriter.notifyMatchFailure(op, "not a quantize of an all_gather");
    if (std::optional<std::string> reason =
            getQuantizeBeforeAllGatherBlocker(op))
      return rewriter.notifyMatchFailure(op, *reason);
    shard::AllGatherOp gather = getGatherOf(op->getOperand(0));
    int64_t g = gather.getGatherAxis().getSExtValue();
    int64_t shards =
        cast<RankedTensorType>(gather.getResult().getType()).getDimSize(g) /
        cast<RankedTensorType>(gather.getInput().getType()).getDimSize(g);
    SmallVector<CastInfo, 2> casts = getCasts(op);

    rewriter.setInsertionPoint(op);
    Operation *local = rewriter.clone(*op);
    rewriter.modifyOpInPlace(local,
                             [&] { local->setOperand(0, gather.getInput()); });
    SmallVector<Value> gathered;
    for (auto [index, result] : llvm::enumerate(op->getResults())) {
      auto type = cast<RankedTensorType>(result.getType());
      // Results are (data, scales) per cast. Blocked scales are 1-D bytes
      // whose 128-row tiles follow the gathered rows; the others keep the
      // data's dimensions.
      const CastInfo &c = casts[index / 2];
      bool blockedScales = index % 2 == 1 && c.layout == ScaleLayout::Blocked;
      int64_t axis = blockedScales ? 0 : g;
      SmallVector<int64_t> shape(type.getShape());
      shape[axis] /= shards;
      Value localResult = local->getResult(index);
      localResult.setType(type.clone(shape));
      IntegerAttr axisAttr = rewriter.getIndexAttr(axis);
      auto all = shard::AllGatherOp::create(
          rewriter, gather.getLoc(), type, gather.getGridAttr(),
          gather.getGridAxesAttr(), localResult, axisAttr);
      gathered.push_back(all.getResult());
    }
    // The high-precision gather and its casts go once nothing reads them.
    Value input = op->getOperand(0);
    rewriter.replaceOp(op, gathered);
    eraseDeadCastChain(rewriter, input, gather);
    return success();
  }
};
} // namespace

void mlir::mxfp8train::populateQuantizeBeforeAllGatherPatterns(
    RewritePatternSet &patterns) {
  patterns.add<MoveQuantizeBeforeAllGather<QuantizeOp>,
               MoveQuantizeBeforeAllGather<QuantizeDualOp>>(
      patterns.getContext());
}

namespace mlir::mxfp8train {
#define GEN_PASS_DEF_MXFP8TRAINQUANTIZEBEFOREALLGATHERPASS
#include "mxfp8train/Dialect/MXFP8Train/Transforms/Passes.h.inc"

namespace {
struct QuantizeBeforeAllGatherPass final
    : impl::MXFP8TrainQuantizeBeforeAllGatherPassBase<
          QuantizeBeforeAllGatherPass> {
  using Base::Base;

  void runOnOperation() override {
    FailureOr<int64_t> moved = moveQuantizesBeforeCollective(
        getOperation(), "all-gather", isQuantizeOfAllGather,
        getQuantizeBeforeAllGatherBlocker,
        populateQuantizeBeforeAllGatherPatterns, emitRemarks);
    if (failed(moved))
      return signalPassFailure();
    numMoved += *moved;
  }
};
} // namespace
} // namespace mlir::mxfp8train
