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

#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainOps.h"
#include "mxfp8train/Dialect/MXFP8Train/Transforms/Passes.h"
#include "mxfp8train/Dialect/MXFP8Train/Transforms/Transforms.h"

#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "mxfp8train-quantize-before-all-gather"

using namespace mlir;
using namespace mlir::mxfp8train;

namespace {
/// One cast of a quantize: its axis and scale layout, and for Float8 its
/// granularity.
struct CastInfo {
  int64_t axis;
  ScaleLayout layout;
  std::optional<Float8Granularity> granularity;
  bool perGroup = false;
};
} // namespace

/// The casts `op` computes (one for quantize, two for quantize_dual), or an
/// empty list when `op` is neither.
static SmallVector<CastInfo, 2> getCasts(Operation *op) {
  if (auto q = dyn_cast<QuantizeOp>(op))
    return {CastInfo{static_cast<int64_t>(q.getAxis()), q.getScaleLayout(),
                     q.getGranularity(), q.isPerGroup()}};
  if (auto dual = dyn_cast<QuantizeDualOp>(op)) {
    int64_t rank = dual.getInput().getType().getRank();
    return {CastInfo{rank - 1, dual.getRowwiseLayout(), std::nullopt},
            CastInfo{rank - 2, dual.getColwiseLayout(), std::nullopt}};
  }
  return {};
}

/// Why a cast of `c` over shards of `local` elements along the gather axis
/// `g` is not the concatenation of the shards' casts, or std::nullopt.
static std::optional<std::string> getCastBlocker(const CastInfo &c, int64_t g,
                                                 int64_t local) {
  std::string reason;
  llvm::raw_string_ostream os(reason);
  if (c.perGroup) {
    os << "per-group Float8 scales follow the runtime token offsets";
    return reason;
  }
  if (c.granularity == Float8Granularity::Tensorwise) {
    os << "a tensorwise Float8 scale is the amax of the whole tensor: "
          "each shard would be scaled by its own amax";
    return reason;
  }
  if (c.granularity == Float8Granularity::Axiswise) {
    if (c.axis == g) {
      os << "the axiswise Float8 amax along dimension " << c.axis
         << " spans the shards of the gather";
      return reason;
    }
    return std::nullopt;
  }
  switch (c.layout) {
  case ScaleLayout::RowMajor:
    if (c.axis == g && local % 32 != 0) {
      os << "each shard holds " << local << " elements of the quantized "
         << "dimension " << c.axis << ", not a multiple of 32: a 32-element "
         << "block would straddle two shards";
      return reason;
    }
    return std::nullopt;
  case ScaleLayout::Blocked:
    if (c.axis == g) {
      os << "blocked scales along the gather axis: the layout interleaves "
            "the blocks of each 128-row tile, so the shards' scale bytes do "
            "not concatenate";
      return reason;
    }
    if (local % 128 != 0) {
      os << "blocked scales of " << local << " rows per shard: not whole "
         << "128-row tiles";
      return reason;
    }
    return std::nullopt;
  default:
    os << "scale layout " << stringifyScaleLayout(c.layout);
    return reason;
  }
}

/// The all_gather whose result is `value`, looking through the identity
/// `tensor.cast`s that shard-partition leaves after it, or null.
static shard::AllGatherOp getGatherOf(Value value) {
  while (auto cast = value.getDefiningOp<tensor::CastOp>()) {
    if (cast.getSource().getType() != cast.getType())
      return {};
    value = cast.getSource();
  }
  return value.getDefiningOp<shard::AllGatherOp>();
}

/// The users of `gather`'s result, through identity `tensor.cast`s.
static SmallVector<Operation *>
getUsersThroughCasts(shard::AllGatherOp gather) {
  SmallVector<Operation *> users;
  SmallVector<Value> worklist = {gather.getResult()};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (Operation *user : value.getUsers()) {
      auto cast = dyn_cast<tensor::CastOp>(user);
      if (cast && cast.getSource().getType() == cast.getType())
        worklist.push_back(cast.getResult());
      else
        users.push_back(user);
    }
  }
  return users;
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
  for (Operation *user : getUsersThroughCasts(gather)) {
    if (!isa<QuantizeOp, QuantizeDualOp>(user))
      return "the gathered tensor is also used by '" +
             user->getName().getStringRef().str() +
             "': its high-precision gather would stay as well";
    // The other quantizes of the tensor must move too, or the
    // high-precision gather stays.
    if (user == op)
      continue;
    for (const CastInfo &c : getCasts(user))
      if (getCastBlocker(c, g, local))
        return std::string("another quantize of the gathered tensor cannot "
                           "move: its high-precision gather would stay");
  }
  return std::nullopt;
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
    while (input.use_empty()) {
      // Read what the producer reads before it is erased.
      Operation *producer = input.getDefiningOp();
      bool isGather = producer == gather.getOperation();
      Value next = isGather ? Value() : producer->getOperand(0);
      rewriter.eraseOp(producer);
      if (isGather)
        break;
      input = next;
    }
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
    int64_t candidates = 0, blocked = 0;
    getOperation()->walk([&](Operation *op) {
      if (!isQuantizeOfAllGather(op))
        return;
      ++candidates;
      std::optional<std::string> reason = getQuantizeBeforeAllGatherBlocker(op);
      if (!reason)
        return;
      ++blocked;
      if (emitRemarks)
        op->emitRemark() << "quantize left after its all-gather: " << *reason;
    });
    if (candidates == blocked)
      return;
    RewritePatternSet patterns(&getContext());
    populateQuantizeBeforeAllGatherPatterns(patterns);
    // Only the moves: no folding, no region simplification.
    GreedyRewriteConfig config;
    config.enableFolding(false)
        .enableConstantCSE(false)
        .setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    if (failed(
            applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      return signalPassFailure();
    numMoved += candidates - blocked;
  }
};
} // namespace
} // namespace mlir::mxfp8train
