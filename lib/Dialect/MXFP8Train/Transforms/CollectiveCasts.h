//===- CollectiveCasts.h - quantizes commuting with collectives -*- C++ -*-===//
//
// What the passes that move a quantize before a shard collective share
// (QuantizeBeforeAllGather.cpp, QuantizeBeforeAllToAll.cpp): the casts a
// quantize computes, whether a cast commutes with cutting its input into
// pieces along one axis (each scaling group inside one piece), and the
// identity `tensor.cast`s that shard-partition leaves around collectives.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_LIB_DIALECT_MXFP8TRAIN_TRANSFORMS_COLLECTIVECASTS_H
#define MXFP8TRAIN_LIB_DIALECT_MXFP8TRAIN_TRANSFORMS_COLLECTIVECASTS_H

#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainOps.h"

#include "mlir/IR/PatternMatch.h"

#include <optional>
#include <string>

namespace mlir {
namespace mxfp8train {
namespace collective {

/// One cast of a quantize: its axis and scale layout, and for Float8 its
/// granularity.
struct CastInfo {
  int64_t axis;
  ScaleLayout layout;
  std::optional<Float8Granularity> granularity;
  bool perGroup = false;
};

/// The casts `op` computes (one for quantize, two for quantize_dual), or an
/// empty list when `op` is neither.
SmallVector<CastInfo, 2> getCasts(Operation *op);

/// Why the cast `c` of a tensor cut along `axis` into pieces of `piece`
/// elements is not the concatenation of the pieces' casts (a 32-element
/// block or a Float8 amax group that spans pieces, `blocked` scales that do
/// not concatenate, per-group or tensorwise scales), or std::nullopt.
std::optional<std::string> getCastBlocker(const CastInfo &c, int64_t axis,
                                          int64_t piece);

/// `value` with the identity `tensor.cast`s that produce it looked through.
Value lookThroughIdentityCasts(Value value);

/// The users of `value`, through identity `tensor.cast`s.
SmallVector<Operation *> getUsersThroughIdentityCasts(Value value);

/// Erases the chain of identity `tensor.cast`s that ends at `input` and the
/// collective `collective` at its start, once nothing reads them.
void eraseDeadCastChain(RewriterBase &rewriter, Value input,
                        Operation *collective);

/// Why the collective's result `collected` (called `what`, e.g. "gathered")
/// keeps its high-precision collective although `op` could move: a user
/// other than a quantize, or another quantize one of whose casts
/// `blocksCast` rejects. std::nullopt when every user can move.
std::optional<std::string>
getOtherUsersBlocker(Value collected, Operation *op, StringRef what,
                     StringRef collective,
                     function_ref<bool(const CastInfo &)> blocksCast);

/// The driver of a quantize-before-collective pass over `root`: a remark
/// `"quantize left after its <collective>: <reason>"` at every candidate
/// that `getBlocker` rejects (with `emitRemarks`), then the patterns of
/// `populate`, greedily, without folding. Returns the number of quantizes
/// moved, or failure when the driver fails.
FailureOr<int64_t> moveQuantizesBeforeCollective(
    Operation *root, StringRef collective,
    function_ref<bool(Operation *)> isCandidate,
    function_ref<std::optional<std::string>(Operation *)> getBlocker,
    function_ref<void(RewritePatternSet &)> populate, bool emitRemarks);

} // namespace collective
} // namespace mxfp8train
} // namespace mlir

#endif // MXFP8TRAIN_LIB_DIALECT_MXFP8TRAIN_TRANSFORMS_COLLECTIVECASTS_H
