//===- CollectiveCasts.cpp - quantizes that commute with collectives ------===//
//
// CollectiveCasts.h: the casts of a quantize and whether each commutes with
// cutting its input into pieces.
//
//===----------------------------------------------------------------------===//

#include "CollectiveCasts.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;
using namespace mlir::mxfp8train;
using collective::CastInfo;

SmallVector<CastInfo, 2> collective::getCasts(Operation *op) {
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

std::optional<std::string>
collective::getCastBlocker(const CastInfo &c, int64_t g, int64_t local) {
  std::string reason;
  llvm::raw_string_ostream os(reason);
  if (c.perGroup) {
    os << "per-group Float8 scales follow the runtime token offsets";
    return reason;
  }
  if (c.granularity == Float8Granularity::Tensorwise) {
    os << "a tensorwise Float8 scale is the amax of the whole tensor: "
          "each piece would be scaled by its own amax";
    return reason;
  }
  if (c.granularity == Float8Granularity::Axiswise) {
    if (c.axis == g) {
      os << "the axiswise Float8 amax along dimension " << c.axis
         << " spans the pieces the collective moves";
      return reason;
    }
    return std::nullopt;
  }
  switch (c.layout) {
  case ScaleLayout::RowMajor:
    if (c.axis == g && local % 32 != 0) {
      os << "each piece holds " << local << " elements of the quantized "
         << "dimension " << c.axis << ", not a multiple of 32: a 32-element "
         << "block would straddle two pieces";
      return reason;
    }
    return std::nullopt;
  case ScaleLayout::Blocked:
    if (c.axis == g) {
      os << "blocked scales along the cut axis: the layout interleaves "
            "the blocks of each 128-row tile, so the pieces' scale bytes do "
            "not concatenate";
      return reason;
    }
    if (local % 128 != 0) {
      os << "blocked scales of " << local << " rows per piece: not whole "
         << "128-row tiles";
      return reason;
    }
    return std::nullopt;
  default:
    os << "scale layout " << stringifyScaleLayout(c.layout);
    return reason;
  }
}

Value collective::lookThroughIdentityCasts(Value value) {
  while (auto cast = value.getDefiningOp<tensor::CastOp>()) {
    if (cast.getSource().getType() != cast.getType())
      break;
    value = cast.getSource();
  }
  return value;
}

SmallVector<Operation *> collective::getUsersThroughIdentityCasts(Value value) {
  SmallVector<Operation *> users;
  SmallVector<Value> worklist = {value};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (Operation *user : v.getUsers()) {
      auto cast = dyn_cast<tensor::CastOp>(user);
      if (cast && cast.getSource().getType() == cast.getType())
        worklist.push_back(cast.getResult());
      else
        users.push_back(user);
    }
  }
  return users;
}

void collective::eraseDeadCastChain(RewriterBase &rewriter, Value input,
                                    Operation *collective) {
  while (input.use_empty()) {
    // Read what the producer reads before it is erased.
    Operation *producer = input.getDefiningOp();
    bool last = producer == collective;
    Value next = last ? Value() : producer->getOperand(0);
    rewriter.eraseOp(producer);
    if (last)
      break;
    input = next;
  }
}

std::optional<std::string> collective::getOtherUsersBlocker(
    Value collected, Operation *op, StringRef what, StringRef collective,
    function_ref<bool(const CastInfo &)> blocksCast) {
  for (Operation *user : getUsersThroughIdentityCasts(collected)) {
    if (!isa<QuantizeOp, QuantizeDualOp>(user))
      return ("the " + what + " tensor is also used by '" +
              user->getName().getStringRef() + "': its high-precision " +
              collective + " would stay as well")
          .str();
    // The other quantizes of the tensor must move too, or the
    // high-precision collective stays.
    if (user == op)
      continue;
    for (const CastInfo &c : getCasts(user))
      if (blocksCast(c))
        return ("another quantize of the " + what +
                " tensor cannot move: its high-precision " + collective +
                " would stay")
            .str();
  }
  return std::nullopt;
}

FailureOr<int64_t> collective::moveQuantizesBeforeCollective(
    Operation *root, StringRef collective,
    function_ref<bool(Operation *)> isCandidate,
    function_ref<std::optional<std::string>(Operation *)> getBlocker,
    function_ref<void(RewritePatternSet &)> populate, bool emitRemarks) {
  int64_t candidates = 0, blocked = 0;
  root->walk([&](Operation *op) {
    if (!isCandidate(op))
      return;
    ++candidates;
    std::optional<std::string> reason = getBlocker(op);
    if (!reason)
      return;
    ++blocked;
    if (emitRemarks)
      op->emitRemark() << "quantize left after its " << collective << ": "
                       << *reason;
  });
  if (candidates == blocked)
    return int64_t(0);
  RewritePatternSet patterns(root->getContext());
  populate(patterns);
  // Only the moves: no folding, no region simplification.
  GreedyRewriteConfig config;
  config.enableFolding(false)
      .enableConstantCSE(false)
      .setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
  if (failed(applyPatternsGreedily(root, std::move(patterns), config)))
    return failure();
  return candidates - blocked;
}
