//===- ShardToRuntime.h - shard collectives to runtime calls ---*- C++ -*-===//
//
// Patterns lowering the collectives that shard-partition emits to calls of
// the runtime's collectives (runtime/include/mxfp8train/runtime/
// Collectives.h, the mxfp8rtShard* ABI), and the MXFP8 expert-parallel
// exchange ops (moe_dispatch, moe_combine) to the runtime's MoE exchange
// (ExpertParallel.h) on the same communicator.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_CONVERSION_SHARDTORUNTIME_SHARDTORUNTIME_H
#define MXFP8TRAIN_CONVERSION_SHARDTORUNTIME_SHARDTORUNTIME_H

#include "mlir/Support/LLVM.h"
#include "mlir/Support/LogicalResult.h"

namespace mlir {
class ModuleOp;
class RewritePatternSet;
class SymbolTableCollection;
namespace mxfp8train {

/// Checks that every shard op and MoE exchange op of `module` that the
/// patterns below would see can be lowered (supported op, collective over
/// the whole grid in rank order, static grid and shapes, supported element
/// type and reduction)
/// and declares the runtime functions the lowered module calls. Emits an
/// error at each op that cannot and fails without changing the module.
LogicalResult
prepareShardToRuntimeCollectives(ModuleOp module,
                                 SymbolTableCollection &symbolTables);

/// Adds the patterns that lower shard.all_reduce, shard.all_gather,
/// shard.reduce_scatter, shard.all_to_all, shard.process_linear_index and
/// shard.grid_shape to runtime calls and tensor ops, upstream's lowerings
/// of shard.all_slice and shard.process_multi_index onto those, and the
/// lowerings of mxfp8train.moe_dispatch and moe_combine.
/// Run prepareShardToRuntimeCollectives first.
void populateShardToRuntimeCollectivesPatterns(
    RewritePatternSet &patterns, SymbolTableCollection &symbolTables);

} // namespace mxfp8train
} // namespace mlir

#endif // MXFP8TRAIN_CONVERSION_SHARDTORUNTIME_SHARDTORUNTIME_H
