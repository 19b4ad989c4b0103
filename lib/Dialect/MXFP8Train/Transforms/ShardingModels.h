//===- ShardingModels.h - the ops' loops for sharding -----------*- C++ -*-===//
//
// The ShardingInterface view of each mxfp8train op (ShardingModels.cpp):
// loops, one map per operand and result, and where each loop may be split.
// Private to ShardingInterfaceImpl.cpp, which checks and partitions with it.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_LIB_DIALECT_MXFP8TRAIN_TRANSFORMS_SHARDINGMODELS_H
#define MXFP8TRAIN_LIB_DIALECT_MXFP8TRAIN_TRANSFORMS_SHARDINGMODELS_H

#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Operation.h"

#include <string>
#include <utility>

namespace mlir::mxfp8train::sharding {

/// Where one loop may be split.
struct LoopRule {
  /// Static trip count (from a tensor dimension that follows the loop), or
  /// ShapedType::kDynamic.
  int64_t size = ShapedType::kDynamic;
  /// How diagnostics name the loop.
  std::string name;
  /// Every shard must hold a multiple of each of these, for the reason given.
  SmallVector<std::pair<int64_t, std::string>> multiples;
  /// Non-empty: the loop may not be split at all, for this reason.
  std::string noSplitReason;
};

/// The ShardingInterface view of one op.
struct ShardingModel {
  SmallVector<utils::IteratorType> iterators;
  /// One per reduction iterator, in loop order.
  SmallVector<shard::ReductionKind> reductionKinds;
  /// Operands, then results.
  SmallVector<AffineMap> maps;
  /// One per loop.
  SmallVector<LoopRule> rules;
  /// The loop of the experts of a 2d-3d scaled_grouped_mm (-1: none).
  int64_t expertLoop = -1;
};

/// The model of `op` (an op without a specific model: no loops, every
/// operand and result replicated).
ShardingModel buildShardingModel(Operation *op);

} // namespace mlir::mxfp8train::sharding

#endif // MXFP8TRAIN_LIB_DIALECT_MXFP8TRAIN_TRANSFORMS_SHARDINGMODELS_H
