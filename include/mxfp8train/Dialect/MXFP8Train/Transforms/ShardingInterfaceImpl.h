//===- ShardingInterfaceImpl.h - shard models of the ops --------*- C++ -*-===//
//
// External models of upstream's `shard::ShardingInterface` for the mxfp8train
// ops, so that `sharding-propagation` and `shard-partition` split converted
// graphs: scales shard with their data, splits along a 32-element block axis
// (or a 128-row blocked scale tile) only at whole blocks, contraction splits
// become partial sums with an all-reduce, grouped GEMMs split along experts.
// docs/sharding.md states the rules.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_DIALECT_MXFP8TRAIN_TRANSFORMS_SHARDINGINTERFACEIMPL_H
#define MXFP8TRAIN_DIALECT_MXFP8TRAIN_TRANSFORMS_SHARDINGINTERFACEIMPL_H

namespace mlir {
class DialectRegistry;
namespace mxfp8train {

/// Attaches the ShardingInterface models to every mxfp8train op when the
/// dialect is loaded (and loads the shard, arith, tensor and linalg dialects
/// that partitioning creates ops of). registerAllExtensions calls it.
void registerShardingInterfaceExternalModels(DialectRegistry &registry);

} // namespace mxfp8train
} // namespace mlir

#endif // MXFP8TRAIN_DIALECT_MXFP8TRAIN_TRANSFORMS_SHARDINGINTERFACEIMPL_H
