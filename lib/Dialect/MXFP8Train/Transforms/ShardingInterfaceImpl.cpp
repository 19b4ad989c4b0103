//===- ShardingInterfaceImpl.cpp - shard models of the ops ------*- C++ -*-===//
//
// The external model of shard::ShardingInterface for every mxfp8train op,
// over the op's loops and maps (ShardingModels.h).
//
// Splits that would cut a block are rejected with a diagnostic at the op,
// from getShardingAnnotations (sharding-propagation) and from partition
// (shard-partition). A split contraction (scaled_mm K, grouped K/experts)
// computes an f32 partial result per shard, all-reduces it (sum) and rounds
// once into the result type.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Dialect/MXFP8Train/Transforms/ShardingInterfaceImpl.h"

#include "ShardingModels.h"

#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainDialect.h"
#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Shard/Interfaces/ShardingInterface.h"
#include "mlir/Dialect/Shard/Interfaces/ShardingInterfaceImpl.h"
#include "mlir/Dialect/Shard/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/SymbolTable.h"

#include <string>

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::sharding;

using shard::GridAxis;
using shard::GridOp;
using shard::ReductionKind;
using shard::Sharding;
using shard::ShardingArray;
using shard::ShardingArrayRef;

namespace {

//===----------------------------------------------------------------------===//
// Checks
//===----------------------------------------------------------------------===//

/// Emits a diagnostic for the first loop split that `model` forbids: a loop
/// that may not be split, an uneven split, or shards that cut a block.
LogicalResult checkLoopSplits(Operation *op, const ShardingModel &model,
                              GridOp grid, ShardingArrayRef loopAxes) {
  if (!grid)
    return success();
  for (auto [loop, axes] : llvm::enumerate(loopAxes)) {
    if (axes.empty() || loop >= model.rules.size())
      continue;
    const LoopRule &rule = model.rules[loop];
    if (!rule.noSplitReason.empty())
      return op->emitOpError()
             << "cannot split " << rule.name << ": " << rule.noSplitReason;
    int64_t shards = shard::collectiveProcessGroupSize(axes, grid);
    if (ShapedType::isDynamic(shards) || ShapedType::isDynamic(rule.size)) {
      if (rule.multiples.empty())
        continue;
      return op->emitOpError()
             << "cannot split " << rule.name
             << " without a static size and shard count: every shard must "
                "hold a multiple of "
             << rule.multiples.front().first << " ("
             << rule.multiples.front().second << ")";
    }
    if (shards <= 0)
      return op->emitOpError()
             << "cannot split " << rule.name << " over " << shards
             << " processes (a grid axis of size 0)";
    if (rule.size % shards != 0)
      return op->emitOpError()
             << "cannot split " << rule.name << " (size " << rule.size
             << ") evenly over " << shards << " shards";
    int64_t perShard = rule.size / shards;
    for (const auto &[multiple, reason] : rule.multiples)
      if (perShard % multiple != 0)
        return op->emitOpError()
               << "cannot split " << rule.name << " (size " << rule.size
               << ") over " << shards << " shards: " << perShard
               << " per shard is not a multiple of " << multiple << " ("
               << reason << ")";
  }
  return success();
}

/// Whether an operand sharding splits a tensor dimension that follows loop
/// `loop` of `model`.
bool isLoopSplitByOperand(const ShardingModel &model,
                          ArrayRef<Sharding> operandShardings, unsigned loop) {
  for (auto [i, sharding] : llvm::enumerate(operandShardings)) {
    if (!sharding || i >= model.maps.size())
      continue;
    AffineMap map = model.maps[i];
    for (auto [dim, axes] : llvm::enumerate(sharding.getSplitAxes())) {
      if (axes.empty() || dim >= map.getNumResults())
        continue;
      auto expr = dyn_cast<AffineDimExpr>(map.getResult(dim));
      if (expr && expr.getPosition() == loop)
        return true;
    }
  }
  return false;
}

/// Whether `sharding` has halos or explicit shard sizes, which no split of
/// scaled tensors accepts (only even splits keep whole scaling blocks).
bool hasHalosOrShardSizes(const Sharding &sharding) {
  return !sharding.getStaticHaloSizes().empty() ||
         !sharding.getDynamicHaloSizes().empty() ||
         !sharding.getStaticShardedDimsOffsets().empty() ||
         !sharding.getDynamicShardedDimsOffsets().empty();
}

/// The grid axes of each loop given the shardings of the op's tensors, with
/// a diagnostic when two tensors disagree about a loop, when a dimension that
/// follows no loop is split, or when a sharding has halos or explicit shard
/// sizes (only even splits keep whole blocks).
FailureOr<ShardingArray> assignLoops(Operation *op, const ShardingModel &model,
                                     ArrayRef<Sharding> operandShardings,
                                     ArrayRef<Sharding> resultShardings) {
  SmallVector<std::optional<SmallVector<GridAxis>>> assigned(
      model.iterators.size());
  std::vector<Sharding> all(operandShardings.begin(), operandShardings.end());
  all.insert(all.end(), resultShardings.begin(), resultShardings.end());
  for (auto [index, sharding, map] : llvm::enumerate(all, model.maps)) {
    if (!sharding)
      continue;
    bool isResult = index >= op->getNumOperands();
    unsigned number = isResult ? index - op->getNumOperands() : index;
    auto describe = [&](InFlightDiagnostic diag) -> InFlightDiagnostic {
      diag << (isResult ? "result #" : "operand #") << number;
      return diag;
    };
    if (hasHalosOrShardSizes(sharding))
      return describe(op->emitOpError() << "cannot shard ")
             << " with halos or explicit shard sizes: only even splits keep "
                "whole scaling blocks";
    ArrayRef<shard::GridAxesAttr> split = sharding.getSplitAxes();
    for (unsigned dim = 0,
                  e = std::max<unsigned>(split.size(), map.getNumResults());
         dim < e; ++dim) {
      ArrayRef<GridAxis> axes =
          dim < split.size() ? split[dim].asArrayRef() : ArrayRef<GridAxis>();
      if (dim >= map.getNumResults()) {
        if (axes.empty())
          continue;
        return describe(op->emitOpError()
                        << "cannot split dimension " << dim << " of ")
               << ": it follows no loop of the op (runtime-offset layouts and "
                  "offsets are replicated)";
      }
      unsigned loop = cast<AffineDimExpr>(map.getResult(dim)).getPosition();
      std::optional<SmallVector<GridAxis>> &slot = assigned[loop];
      if (!slot) {
        slot = llvm::to_vector(axes);
        continue;
      }
      if (!llvm::equal(*slot, axes))
        return describe(op->emitOpError()
                        << "inconsistent split of " << model.rules[loop].name
                        << ": dimension " << dim << " of ")
               << " does not split like the other tensors that follow it "
                  "(scales must shard with their data)";
    }
  }
  ShardingArray res;
  for (auto &axes : assigned)
    res.push_back(axes ? std::move(*axes) : SmallVector<GridAxis>());
  return res;
}

//===----------------------------------------------------------------------===//
// Partitioning
//===----------------------------------------------------------------------===//

/// Replaces the offsets of a 2d-3d scaled_grouped_mm whose experts are split
/// by this shard's slice and zeroes the rows of the f32 partial result that
/// belong to earlier experts (the local first group starts at row 0).
/// Returns the row mask's start (index), to be applied after the clone.
Value sliceExpertOffsets(ScaledGroupedMmOp op, IRMapping &local,
                         ArrayRef<GridAxis> expertAxes, StringRef grid,
                         ImplicitLocOpBuilder &b) {
  Value offs = local.lookup(op.getOffs());
  auto offsType = cast<RankedTensorType>(offs.getType());
  int64_t localExperts =
      cast<RankedTensorType>(local.lookup(op.getRhs()).getType()).getDimSize(0);
  Value shardIndex = shard::createProcessLinearIndex(grid, expertAxes, b);
  Value first = arith::MulIOp::create(
      b, shardIndex, arith::ConstantIndexOp::create(b, localExperts));
  auto sliceType =
      RankedTensorType::get({localExperts}, offsType.getElementType());
  Value slice = tensor::ExtractSliceOp::create(
      b, sliceType, offs, ValueRange{first}, ValueRange{}, ValueRange{},
      b.getDenseI64ArrayAttr({ShapedType::kDynamic}),
      b.getDenseI64ArrayAttr({localExperts}), b.getDenseI64ArrayAttr({1}));
  local.map(op.getOffs(), slice);
  // The first local group starts where the unsharded op ends group
  // first - 1: offsets are clamped as every grouped lowering clamps them
  // (docs/numerics.md), end_g = min(max(offs[g], end_{g-1}), M) from
  // end_{-1} = 0, so the start is min(max(0, offs[0 .. first)), M) (0 for
  // the first shard). A reduction over the whole (static) offs with the
  // entries from `first` on masked out.
  Type offsElement = offsType.getElementType();
  auto scalarType = RankedTensorType::get({}, offsElement);
  Value zeroOffs =
      arith::ConstantOp::create(b, b.getZeroAttr(offsElement)).getResult();
  Value init = linalg::FillOp::create(b, ValueRange{zeroOffs},
                                      ValueRange{tensor::EmptyOp::create(
                                          b, ArrayRef<int64_t>{}, offsElement)})
                   .getResult(0);
  MLIRContext *ctx = b.getContext();
  AffineMap readAll = AffineMap::getMultiDimIdentityMap(1, ctx);
  AffineMap toScalar = AffineMap::get(1, 0, {}, ctx);
  auto prefixMax = linalg::GenericOp::create(
      b, TypeRange{scalarType}, ValueRange{offs}, ValueRange{init},
      ArrayRef<AffineMap>{readAll, toScalar},
      ArrayRef<utils::IteratorType>{utils::IteratorType::reduction},
      [&](OpBuilder &nested, Location loc, ValueRange args) {
        Value index = linalg::IndexOp::create(nested, loc, 0);
        Value before = arith::CmpIOp::create(
            nested, loc, arith::CmpIPredicate::ult, index, first);
        Value zero = arith::ConstantOp::create(
            nested, loc, nested.getZeroAttr(args[0].getType()));
        Value entry =
            arith::SelectOp::create(nested, loc, before, args[0], zero);
        Value running = arith::MaxSIOp::create(nested, loc, args[1], entry);
        linalg::YieldOp::create(nested, loc, running);
      });
  Value start = arith::IndexCastOp::create(
      b, b.getIndexType(),
      tensor::ExtractOp::create(b, prefixMax.getResult(0), ValueRange{}));
  int64_t tokens = cast<RankedTensorType>(op.getLhs().getType()).getDimSize(0);
  return arith::MinSIOp::create(b, start,
                                arith::ConstantIndexOp::create(b, tokens));
}

/// `value` with rows [0, start) set to +0.0.
Value zeroLeadingRows(Value value, Value start, ImplicitLocOpBuilder &b) {
  auto type = cast<RankedTensorType>(value.getType());
  AffineMap identity =
      AffineMap::getMultiDimIdentityMap(type.getRank(), b.getContext());
  SmallVector<utils::IteratorType> iterators(type.getRank(),
                                             utils::IteratorType::parallel);
  Value init =
      tensor::EmptyOp::create(b, type.getShape(), type.getElementType());
  auto generic = linalg::GenericOp::create(
      b, TypeRange{type}, ValueRange{value}, ValueRange{init},
      ArrayRef<AffineMap>{identity, identity}, iterators,
      [&](OpBuilder &nested, Location loc, ValueRange args) {
        Value row = linalg::IndexOp::create(nested, loc, 0);
        Value before = arith::CmpIOp::create(
            nested, loc, arith::CmpIPredicate::ult, row, start);
        Value zero = arith::ConstantOp::create(
            nested, loc, nested.getZeroAttr(type.getElementType()));
        linalg::YieldOp::create(nested, loc,
                                ValueRange{arith::SelectOp::create(
                                    nested, loc, before, zero, args[0])});
      });
  return generic.getResult(0);
}

/// Partitions an op with a split sum loop: the local op computes an f32
/// partial result (a bias only on the first shard of the reduction group),
/// an all-reduce adds the partials, and one rounding gives the result type.
LogicalResult partitionWithReduction(Operation *op, const ShardingModel &model,
                                     ShardingArrayRef loopAxes,
                                     ArrayRef<Value> partitionedOperands,
                                     ArrayRef<Sharding> resultShardings,
                                     GridOp grid, IRMapping &partitionMap,
                                     OpBuilder &builder) {
  if (op->getNumResults() != 1 ||
      llvm::any_of(model.reductionKinds,
                   [](ReductionKind k) { return k != ReductionKind::Sum; }))
    return op->emitOpError() << "cannot split a reduction of this op";
  ImplicitLocOpBuilder b(op->getLoc(), builder);
  StringRef gridName = grid.getSymName();
  SmallVector<GridAxis> reductionAxes =
      shard::getReductionGridAxes(model.iterators, loopAxes);
  IRMapping local;
  for (auto [orig, part] :
       llvm::zip_equal(op->getOperands(), partitionedOperands))
    local.map(orig, part);

  if (auto mm = dyn_cast<ScaledMmOp>(op); mm && mm.getBias()) {
    Value lead = arith::CmpIOp::create(
        b, arith::CmpIPredicate::eq,
        shard::createProcessLinearIndex(gridName, reductionAxes, b),
        arith::ConstantIndexOp::create(b, 0));
    Value bias = local.lookup(mm.getBias());
    auto biasType = cast<RankedTensorType>(bias.getType());
    Value zeros = arith::ConstantOp::create(
        b, DenseElementsAttr::get(biasType,
                                  b.getZeroAttr(biasType.getElementType())));
    local.map(mm.getBias(), arith::SelectOp::create(b, lead, bias, zeros));
  }
  Value rowStart;
  auto grouped = dyn_cast<ScaledGroupedMmOp>(op);
  if (grouped && model.expertLoop >= 0 && !loopAxes[model.expertLoop].empty())
    rowStart = sliceExpertOffsets(grouped, local, loopAxes[model.expertLoop],
                                  gridName, b);

  Operation *clone = b.clone(*op, local);
  auto resultType = cast<RankedTensorType>(
      shard::shardType(op->getResult(0).getType(), grid, resultShardings[0]));
  auto partialType = resultType.clone(b.getF32Type());
  clone->getResult(0).setType(partialType);
  Value partial = clone->getResult(0);
  if (rowStart)
    partial = zeroLeadingRows(partial, rowStart, b);
  Value sum = shard::AllReduceOp::create(b, partial, gridName, reductionAxes,
                                         ReductionKind::Sum);
  if (resultType.getElementType() != partialType.getElementType())
    sum = arith::TruncFOp::create(b, resultType, sum);
  partitionMap.map(op->getResult(0), sum);
  return success();
}

//===----------------------------------------------------------------------===//
// The external model
//===----------------------------------------------------------------------===//

GridOp findGrid(Operation *op, ArrayRef<Sharding> operandShardings,
                ArrayRef<Sharding> resultShardings,
                SymbolTableCollection &symbolTable) {
  for (ArrayRef<Sharding> list : {operandShardings, resultShardings})
    for (const Sharding &sharding : list)
      if (sharding)
        return shard::getGridOrNull(op, sharding.getGridAttr(), symbolTable);
  return nullptr;
}

template <typename OpTy>
struct MXFP8TrainShardingModel : public shard::ShardingInterface::ExternalModel<
                                     MXFP8TrainShardingModel<OpTy>, OpTy> {
  SmallVector<utils::IteratorType> getLoopIteratorTypes(Operation *op) const {
    return buildShardingModel(op).iterators;
  }

  SmallVector<ReductionKind>
  getReductionLoopIteratorKinds(Operation *op) const {
    return buildShardingModel(op).reductionKinds;
  }

  SmallVector<AffineMap> getIndexingMaps(Operation *op) const {
    return buildShardingModel(op).maps;
  }

  /// Upstream's option, with the grid taken from any sharding when only
  /// tensors that follow no loop are annotated (upstream leaves it null).
  FailureOr<shard::ShardingOption>
  getShardingOption(Operation *op, ArrayRef<Sharding> operandShardings,
                    ArrayRef<Sharding> resultShardings) const {
    // Propagation would otherwise ask for an even split and leave the
    // resharding from these to upstream, which cannot do it.
    for (auto [isResult, list] :
         {std::pair{false, operandShardings}, {true, resultShardings}})
      for (auto [i, sharding] : llvm::enumerate(list))
        if (sharding && hasHalosOrShardSizes(sharding))
          return op->emitOpError()
                 << "cannot shard " << (isResult ? "result #" : "operand #")
                 << i
                 << " with halos or explicit shard sizes: only even splits "
                    "keep whole scaling blocks";
    FailureOr<shard::ShardingOption> option =
        shard::detail::defaultGetShardingOption(op, operandShardings,
                                                resultShardings);
    if (failed(option) || option->empty)
      return option;
    // A loop the op cannot split that only a user of a result wants split
    // (a tensorwise cast of a replicated tensor feeding a split GEMM): the
    // op computes it whole and upstream slices the result for that user.
    // Split operand data still gets the diagnostic.
    ShardingModel model = buildShardingModel(op);
    for (auto [loop, axes] : llvm::enumerate(option->shardingArray)) {
      if (axes.empty() || loop >= model.rules.size() ||
          model.rules[loop].noSplitReason.empty())
        continue;
      if (!isLoopSplitByOperand(model, operandShardings, loop))
        axes.clear();
    }
    if (option->grid)
      return option;
    for (ArrayRef<Sharding> list : {operandShardings, resultShardings})
      for (const Sharding &sharding : list)
        if (sharding && !option->grid)
          option->grid = sharding.getGridAttr();
    if (!option->grid)
      option->empty = true;
    return option;
  }

  FailureOr<std::vector<Sharding>>
  getShardingAnnotations(Operation *op,
                         const shard::ShardingOption &option) const {
    if (!option.empty) {
      SymbolTableCollection symbolTable;
      GridOp grid = shard::getGridOrNull(op, option.grid, symbolTable);
      if (failed(checkLoopSplits(op, buildShardingModel(op), grid,
                                 option.shardingArray)))
        return failure();
    }
    return shard::detail::defaultGetShardingAnnotations(op, option);
  }

  LogicalResult partition(Operation *op, ArrayRef<Value> partitionedOperands,
                          ArrayRef<Sharding> operandShardings,
                          ArrayRef<Sharding> resultShardings,
                          IRMapping &partitionMap,
                          SymbolTableCollection &symbolTable,
                          OpBuilder &builder) const {
    // Upstream's resharding leaves an operand null when it cannot move it
    // to the sharding this op asked for (e.g. from explicit shard sizes or
    // halos, which no split of scaled tensors accepts).
    for (auto [i, value] : llvm::enumerate(partitionedOperands))
      if (!value)
        return op->emitOpError()
               << "cannot partition: operand #" << i
               << " could not be resharded to the sharding this op needs "
                  "(upstream resharding cannot move it there: a sharding "
                  "with halos or explicit shard sizes, or a change of "
                  "several dimensions or grid axes at once); annotate the "
                  "operand with that sharding where it is produced";
    ShardingModel model = buildShardingModel(op);
    FailureOr<ShardingArray> loopAxes =
        assignLoops(op, model, operandShardings, resultShardings);
    if (failed(loopAxes))
      return failure();
    GridOp grid = findGrid(op, operandShardings, resultShardings, symbolTable);
    if (failed(checkLoopSplits(op, model, grid, *loopAxes)))
      return failure();
    // Upstream's resharding may also stop half way (it moves one dimension
    // at a time): the local op would not verify.
    if (grid)
      for (auto [i, value, sharding] :
           llvm::enumerate(partitionedOperands, operandShardings)) {
        if (!sharding || !isa<RankedTensorType>(value.getType()))
          continue;
        Type want =
            shard::shardType(op->getOperand(i).getType(), grid, sharding);
        if (value.getType() != want)
          return op->emitOpError()
                 << "cannot partition: operand #" << i << " is "
                 << value.getType() << " after upstream's resharding, not the "
                 << want
                 << " its sharding gives (upstream resharding moves one "
                    "dimension at a time); "
                    "annotate the operand with that sharding where it is "
                    "produced";
      }
    if (grid &&
        shard::isAtLeastOneReductionIteratorSharded(model.iterators, *loopAxes))
      return partitionWithReduction(op, model, *loopAxes, partitionedOperands,
                                    resultShardings, grid, partitionMap,
                                    builder);
    if (!grid) {
      builder.clone(*op, partitionMap);
      return success();
    }
    // Unannotated results are replicated.
    std::vector<Sharding> results(resultShardings.begin(),
                                  resultShardings.end());
    for (Sharding &sharding : results)
      if (!sharding)
        sharding = Sharding(FlatSymbolRefAttr::get(grid.getSymNameAttr()));
    shard::partitionTriviallyShardableOperation(
        *op, partitionedOperands, operandShardings, results, partitionMap,
        symbolTable, builder);
    return success();
  }
};

template <typename... OpTys> void attachModels(MLIRContext *ctx) {
  (OpTys::template attachInterface<MXFP8TrainShardingModel<OpTys>>(*ctx), ...);
}

} // namespace

void mlir::mxfp8train::registerShardingInterfaceExternalModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, MXFP8TrainDialect *) {
    ctx->loadDialect<shard::ShardDialect, arith::ArithDialect,
                     tensor::TensorDialect, linalg::LinalgDialect>();
    attachModels<QuantizeOp, QuantizeDualOp, DequantizeOp, ScaledMmOp,
                 ScaledGroupedMmOp, GroupedMmOp, PadTokenGroupsOp,
                 UnpadTokenGroupsOp, ToBlockedOp>(ctx);
  });
}
