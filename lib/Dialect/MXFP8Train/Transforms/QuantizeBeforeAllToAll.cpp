//===- QuantizeBeforeAllToAll.cpp - MXFP8 token exchange -------*- C++ -*-===//
//
// Expert parallelism moves each process's tokens to the processes that hold
// their experts; shard-partition emits that reshard as a `shard.all_to_all`
// in the tokens' precision (bf16), and the quantize of the exchanged tokens
// then runs after it. When each 32-element block (MX) or amax group (Float8
// axiswise) lies in one piece of the exchange, quantizing before it and
// exchanging the fp8 data and the scales gives the same bytes, and moves
// 1 + 1/32 bytes per element and cast instead of 2 (torchao's "stay in
// MXFP8" dispatch, docs/sharding.md).
//
// The mxfp8train-quantize-before-all-to-all pass: getQuantizeBeforeAllTo-
// AllBlocker says whether a quantize may move (and why not), the pattern
// moves it, the pass emits the remarks and runs the pattern greedily. What
// it shares with the all-gather pass is in CollectiveCasts.h.
//
//===----------------------------------------------------------------------===//

#include "CollectiveCasts.h"
#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainOps.h"
#include "mxfp8train/Dialect/MXFP8Train/Transforms/Passes.h"
#include "mxfp8train/Dialect/MXFP8Train/Transforms/Transforms.h"

#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/PatternMatch.h"

#define DEBUG_TYPE "mxfp8train-quantize-before-all-to-all"

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::collective;

/// The all_to_all whose result is `value` (through identity casts), or
/// null.
static shard::AllToAllOp getExchangeOf(Value value) {
  return lookThroughIdentityCasts(value).getDefiningOp<shard::AllToAllOp>();
}

/// The processes of `exchange`: its input's size along the split axis over
/// its result's (both static and non-zero), or std::nullopt.
static std::optional<int64_t> getProcessCount(shard::AllToAllOp exchange) {
  auto in = dyn_cast<RankedTensorType>(exchange.getInput().getType());
  auto out = dyn_cast<RankedTensorType>(exchange.getResult().getType());
  if (!in || !out || !in.hasStaticShape() || !out.hasStaticShape())
    return std::nullopt;
  int64_t split = exchange.getSplitAxis().getSExtValue();
  int64_t s = in.getDimSize(split), piece = out.getDimSize(split);
  if (piece <= 0 || s % piece != 0)
    return std::nullopt;
  return s / piece;
}

bool mlir::mxfp8train::isQuantizeOfAllToAll(Operation *op) {
  if (!isa<QuantizeOp, QuantizeDualOp>(op))
    return false;
  return static_cast<bool>(getExchangeOf(op->getOperand(0)));
}

/// Why the cast `c` does not commute with `exchange` (`P` processes), or
/// std::nullopt.
static std::optional<std::string> getCastBlocker(const CastInfo &c,
                                                 shard::AllToAllOp exchange,
                                                 int64_t processes) {
  if (!c.granularity && c.layout == ScaleLayout::Blocked)
    return std::string("blocked scales: their 1-D bytes interleave the "
                       "blocks of each 128-row tile and do not split along "
                       "the exchange's axes");
  auto in = cast<RankedTensorType>(exchange.getInput().getType());
  int64_t split = exchange.getSplitAxis().getSExtValue();
  int64_t concat = exchange.getConcatAxis().getSExtValue();
  // The pieces sent (along the split axis) and received (along the concat
  // axis: the senders' whole extent along it, or the sent piece when the
  // two axes are one).
  int64_t sent = in.getDimSize(split) / processes;
  int64_t received = split == concat ? sent : in.getDimSize(concat);
  if (auto reason = collective::getCastBlocker(c, split, sent))
    return reason;
  return collective::getCastBlocker(c, concat, received);
}

std::optional<std::string>
mlir::mxfp8train::getQuantizeBeforeAllToAllBlocker(Operation *op) {
  if (!isQuantizeOfAllToAll(op))
    return std::nullopt;
  shard::AllToAllOp exchange = getExchangeOf(op->getOperand(0));
  std::optional<int64_t> processes = getProcessCount(exchange);
  if (!processes)
    return std::string("the all-to-all has dynamic or uneven shapes");
  for (const CastInfo &c : getCasts(op))
    if (std::optional<std::string> reason =
            getCastBlocker(c, exchange, *processes))
      return reason;
  return getOtherUsersBlocker(exchange.getResult(), op, "exchanged",
                              "all-to-all", [&](const CastInfo &c) {
                                return bool(
                                    getCastBlocker(c, exchange, *processes));
                              });
}

namespace {
/// quantize(all_to_all(x)) -> all_to_all(quantize(x)) per result, for
/// `quantize` and `quantize_dual`.
template <typename OpTy>
struct MoveQuantizeBeforeAllToAll final : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy quantize,
                                PatternRewriter &rewriter) const override {
    Operation *op = quantize.getOperation();
    if (!isQuantizeOfAllToAll(op))
      return rewriter.notifyMatchFailure(op, "not a quantize of an all_to_all");
    if (std::optional<std::string> reason =
            getQuantizeBeforeAllToAllBlocker(op))
      return rewriter.notifyMatchFailure(op, *reason);
    shard::AllToAllOp exchange = getExchangeOf(op->getOperand(0));
    int64_t processes = *getProcessCount(exchange);
    int64_t split = exchange.getSplitAxis().getSExtValue();
    int64_t concat = exchange.getConcatAxis().getSExtValue();

    rewriter.setInsertionPoint(op);
    Operation *local = rewriter.clone(*op);
    rewriter.modifyOpInPlace(
        local, [&] { local->setOperand(0, exchange.getInput()); });
    SmallVector<Value> exchanged;
    for (auto [index, result] : llvm::enumerate(op->getResults())) {
      // Data and (row-major or axiswise) scales keep the input's
      // dimensions: before the exchange each is the exchange's inverse,
      // P times larger along the split axis and P times smaller along the
      // concat axis.
      auto type = cast<RankedTensorType>(result.getType());
      SmallVector<int64_t> shape(type.getShape());
      shape[split] *= processes;
      shape[concat] /= processes;
      Value localResult = local->getResult(index);
      localResult.setType(type.clone(shape));
      auto all = shard::AllToAllOp::create(
          rewriter, exchange.getLoc(), type, exchange.getGridAttr(),
          exchange.getGridAxesAttr(), localResult, exchange.getSplitAxisAttr(),
          exchange.getConcatAxisAttr());
      exchanged.push_back(all.getResult());
    }
    // The high-precision exchange and its casts go once nothing reads them.
    Value input = op->getOperand(0);
    rewriter.replaceOp(op, exchanged);
    eraseDeadCastChain(rewriter, input, exchange);
    return success();
  }
};
} // namespace

void mlir::mxfp8train::populateQuantizeBeforeAllToAllPatterns(
    RewritePatternSet &patterns) {
  patterns.add<MoveQuantizeBeforeAllToAll<QuantizeOp>,
               MoveQuantizeBeforeAllToAll<QuantizeDualOp>>(
      patterns.getContext());
}

namespace mlir::mxfp8train {
#define GEN_PASS_DEF_MXFP8TRAINQUANTIZEBEFOREALLTOALLPASS
#include "mxfp8train/Dialect/MXFP8Train/Transforms/Passes.h.inc"

namespace {
struct QuantizeBeforeAllToAllPass final
    : impl::MXFP8TrainQuantizeBeforeAllToAllPassBase<
          QuantizeBeforeAllToAllPass> {
  using Base::Base;

  void runOnOperation() override {
    FailureOr<int64_t> moved = moveQuantizesBeforeCollective(
        getOperation(), "all-to-all", isQuantizeOfAllToAll,
        getQuantizeBeforeAllToAllBlocker,
        populateQuantizeBeforeAllToAllPatterns, emitRemarks);
    if (failed(moved))
      return signalPassFailure();
    numMoved += *moved;
  }
};
} // namespace
} // namespace mlir::mxfp8train
