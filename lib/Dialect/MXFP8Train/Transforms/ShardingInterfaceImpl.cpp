//===- ShardingInterfaceImpl.cpp - shard dialect models of our ops -*- C++
//-*-===//
//
// Every op gets one model: its loops (iterator types), one projected
// permutation per operand and result that says which loop each tensor
// dimension follows, and a rule per loop that says where the loop may be
// split. Scales follow the loops of their data: a row-major scale dimension
// `d/32` follows the loop of data dimension `d` (the shard dialect splits both
// evenly, so they agree when every shard holds whole 32-element blocks), a
// blocked 1-D scale sequence follows the loop of its rows (whole 128-row tiles
// are contiguous bytes). Float8 scales of size 1 follow a unit loop that is
// never split. Ops that no split fits get no loops: they are replicated, and
// propagation/partition gather their operands.
//
// Splits that would cut a block are rejected with a diagnostic at the op,
// from getShardingAnnotations (sharding-propagation) and from partition
// (shard-partition). A split contraction (scaled_mm K, grouped K/experts)
// computes an f32 partial result per shard, all-reduces it (sum) and rounds
// once into the result type.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Dialect/MXFP8Train/Transforms/ShardingInterfaceImpl.h"

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
#include "llvm/ADT/TypeSwitch.h"

#include <string>

using namespace mlir;
using namespace mlir::mxfp8train;

using shard::GridAxis;
using shard::GridOp;
using shard::ReductionKind;
using shard::Sharding;
using shard::ShardingArray;
using shard::ShardingArrayRef;

namespace {

//===----------------------------------------------------------------------===//
// Models
//===----------------------------------------------------------------------===//

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
  SmallVector<ReductionKind> reductionKinds;
  /// Operands, then results.
  SmallVector<AffineMap> maps;
  /// One per loop.
  SmallVector<LoopRule> rules;
  /// The loop of the experts of a 2d-3d scaled_grouped_mm (-1: none).
  int64_t expertLoop = -1;
};

/// Builds a ShardingModel tensor by tensor.
class ModelBuilder {
public:
  ModelBuilder(MLIRContext *ctx, unsigned numLoops) : ctx(ctx) {
    model.iterators.assign(numLoops, utils::IteratorType::parallel);
    model.rules.resize(numLoops);
    kinds.resize(numLoops, ReductionKind::Sum);
  }

  void name(unsigned loop, const Twine &name) {
    model.rules[loop].name = name.str();
  }
  void reduction(unsigned loop, ReductionKind kind) {
    model.iterators[loop] = utils::IteratorType::reduction;
    kinds[loop] = kind;
  }
  void requireMultiple(unsigned loop, int64_t multiple, const Twine &reason) {
    model.rules[loop].multiples.emplace_back(multiple, reason.str());
  }
  void forbidSplit(unsigned loop, const Twine &reason) {
    if (model.rules[loop].noSplitReason.empty())
      model.rules[loop].noSplitReason = reason.str();
  }
  /// Adds the map of `value`, whose dimension i follows loop `dims[i]`
  /// (fewer entries than the rank: the remaining dimensions are replicated).
  void map(Value value, ArrayRef<unsigned> dims) {
    auto type = cast<RankedTensorType>(value.getType());
    SmallVector<AffineExpr> exprs;
    for (auto [i, loop] : llvm::enumerate(dims)) {
      exprs.push_back(getAffineDimExpr(loop, ctx));
      if (i < static_cast<size_t>(type.getRank()) && !type.isDynamicDim(i) &&
          ShapedType::isDynamic(model.rules[loop].size))
        model.rules[loop].size = type.getDimSize(i);
    }
    model.maps.push_back(AffineMap::get(model.iterators.size(), 0, exprs, ctx));
  }
  /// Adds the map of a value that is never split.
  void replicated() {
    model.maps.push_back(AffineMap::get(model.iterators.size(), 0, ctx));
  }

  ShardingModel take() {
    for (auto [iter, kind] : llvm::zip_equal(model.iterators, kinds))
      if (iter == utils::IteratorType::reduction)
        model.reductionKinds.push_back(kind);
    return std::move(model);
  }

  ShardingModel model;

private:
  MLIRContext *ctx;
  SmallVector<ReductionKind> kinds;
};

SmallVector<unsigned> identityDims(int64_t rank) {
  return llvm::to_vector(llvm::seq<unsigned>(0, rank));
}

/// Names loops `0..rank-1` "dimension i", the quantized one marked.
void nameCastLoops(ModelBuilder &b, int64_t rank, ArrayRef<int64_t> axes) {
  for (int64_t d = 0; d < rank; ++d)
    b.name(d, llvm::is_contained(axes, d)
                  ? "dimension " + Twine(d) + " (the quantized axis)"
                  : "dimension " + Twine(d));
}

/// The loops of an MX scale tensor of a rank-`rank` cast along `axis`.
SmallVector<unsigned> mxScaleDims(int64_t rank, int64_t axis,
                                  ScaleLayout layout) {
  if (layout == ScaleLayout::RowMajor)
    return identityDims(rank);
  // The blocked byte sequence of the (rows, axis/32) matrix; its rows are the
  // other of the last two dimensions.
  return {static_cast<unsigned>(axis == rank - 1 ? rank - 2 : rank - 1)};
}

/// The rules of an MX cast along `axis` with scales in `layout`.
void addMXCastRules(ModelBuilder &b, int64_t rank, int64_t axis,
                    ScaleLayout layout) {
  b.requireMultiple(axis, 32, "the 32-element scaling block");
  if (layout == ScaleLayout::RowMajor)
    return;
  unsigned rows = mxScaleDims(rank, axis, layout).front();
  b.requireMultiple(rows, 128, "the 128-row tile of the blocked scale layout");
  b.forbidSplit(axis, "the blocked scale layout interleaves the 4-column "
                      "scale tiles of every 128-row tile, so a shard's "
                      "scales are not a slice of the blocked bytes");
}

/// The loops of a Float8 axiswise scale tensor: the data's, with the reduced
/// dimension (size 1) following the unit loop `unit`.
SmallVector<unsigned> float8ScaleDims(int64_t rank, int64_t axis,
                                      unsigned unit) {
  SmallVector<unsigned> dims = identityDims(rank);
  dims[axis] = unit;
  return dims;
}

ShardingModel buildQuantizeModel(QuantizeOp op) {
  int64_t rank = op.getInput().getType().getRank();
  int64_t axis = op.getAxis();
  if (!op.isFloat8()) {
    ModelBuilder b(op.getContext(), rank);
    nameCastLoops(b, rank, {axis});
    addMXCastRules(b, rank, axis, op.getScaleLayout());
    b.map(op.getInput(), identityDims(rank));
    b.map(op.getData(), identityDims(rank));
    b.map(op.getScales(), mxScaleDims(rank, axis, op.getScaleLayout()));
    return b.take();
  }
  if (*op.getGranularity() == Float8Granularity::Tensorwise) {
    // amax over the whole tensor: every loop reduces (max).
    ModelBuilder b(op.getContext(), rank);
    nameCastLoops(b, rank, {});
    for (int64_t d = 0; d < rank; ++d) {
      b.reduction(d, ReductionKind::Max);
      b.forbidSplit(d, "a Float8 tensorwise quantize takes amax over the "
                       "whole tensor; a split input would need an all-reduce "
                       "max before the scale, which is not modeled: "
                       "replicate the input");
    }
    b.map(op.getInput(), identityDims(rank));
    b.map(op.getData(), identityDims(rank));
    b.map(op.getScales(), {});
    return b.take();
  }
  // Axiswise: amax over `axis` (max), one scale per slice.
  ModelBuilder b(op.getContext(), rank + 1);
  nameCastLoops(b, rank, {axis});
  b.name(rank, "the unit scale dimension");
  b.reduction(axis, ReductionKind::Max);
  b.forbidSplit(axis, "a Float8 axiswise quantize takes amax along the "
                      "quantized axis; a split would need an all-reduce max "
                      "before the scale, which is not modeled");
  b.map(op.getInput(), identityDims(rank));
  b.map(op.getData(), identityDims(rank));
  b.map(op.getScales(), float8ScaleDims(rank, axis, rank));
  return b.take();
}

ShardingModel buildDequantizeModel(DequantizeOp op) {
  int64_t rank = op.getData().getType().getRank();
  int64_t axis = op.getAxis();
  if (!op.isFloat8()) {
    ModelBuilder b(op.getContext(), rank);
    nameCastLoops(b, rank, {axis});
    addMXCastRules(b, rank, axis, op.getScaleLayout());
    b.map(op.getData(), identityDims(rank));
    b.map(op.getScales(), mxScaleDims(rank, axis, op.getScaleLayout()));
    b.map(op.getResult(), identityDims(rank));
    return b.take();
  }
  // Float8 dequantize is elementwise with a broadcast scale: every loop is
  // parallel, a tensorwise scale is replicated.
  ModelBuilder b(op.getContext(), rank + 1);
  nameCastLoops(b, rank, {});
  b.name(rank, "the unit scale dimension");
  b.map(op.getData(), identityDims(rank));
  if (*op.getGranularity() == Float8Granularity::Tensorwise)
    b.map(op.getScales(), {});
  else
    b.map(op.getScales(), float8ScaleDims(rank, axis, rank));
  b.map(op.getResult(), identityDims(rank));
  return b.take();
}

ShardingModel buildQuantizeDualModel(QuantizeDualOp op) {
  int64_t rank = op.getInput().getType().getRank();
  ModelBuilder b(op.getContext(), rank);
  nameCastLoops(b, rank, {rank - 2, rank - 1});
  addMXCastRules(b, rank, rank - 1, op.getRowwiseLayout());
  addMXCastRules(b, rank, rank - 2, op.getColwiseLayout());
  b.map(op.getInput(), identityDims(rank));
  b.map(op.getRowwiseData(), identityDims(rank));
  b.map(op.getRowwiseScales(),
        mxScaleDims(rank, rank - 1, op.getRowwiseLayout()));
  b.map(op.getColwiseData(), identityDims(rank));
  b.map(op.getColwiseScales(),
        mxScaleDims(rank, rank - 2, op.getColwiseLayout()));
  return b.take();
}

/// The loops of a GEMM scale tensor: those of its data (`dataDims`) for MX
/// row-major scales, the row loop for the blocked layout, the data's with the
/// contraction loop `k` replaced by the unit loop `unit` for Float8 rowwise
/// scales, none for a Float8 tensorwise scalar.
SmallVector<unsigned> gemmScaleDims(Value scales, ArrayRef<unsigned> dataDims,
                                    ScaleLayout layout, unsigned rowLoop,
                                    unsigned k, unsigned unit) {
  auto type = cast<RankedTensorType>(scales.getType());
  if (type.getElementType().isF32()) {
    if (type.getRank() == 0)
      return {};
    SmallVector<unsigned> dims(dataDims);
    for (unsigned &d : dims)
      if (d == k)
        d = unit;
    return dims;
  }
  if (layout == ScaleLayout::RowMajor)
    return SmallVector<unsigned>(dataDims);
  if (layout == ScaleLayout::Blocked)
    return {rowLoop};
  // The grouped blocked layouts are not slices of their loops: replicated.
  return {};
}

/// Rules for a GEMM operand's scale layout: blocked splits only at 128-row
/// tiles, never along the contraction; grouped layouts not at all.
void addGemmLayoutRules(ModelBuilder &b, ScaleLayout layout, unsigned rowLoop,
                        unsigned k, StringRef operand) {
  if (layout == ScaleLayout::RowMajor)
    return;
  if (layout == ScaleLayout::Blocked) {
    b.requireMultiple(rowLoop, 128,
                      "the 128-row tile of the " + operand +
                          " blocked scale layout");
    b.forbidSplit(k, "the " + operand +
                         " blocked scale layout interleaves the 4-column "
                         "scale tiles of every 128-row tile, so a shard's "
                         "scales are not a slice of the blocked bytes");
    return;
  }
  std::string reason =
      ("the " + operand + " scales are in the grouped layout " +
       stringifyScaleLayout(layout) +
       ", whose bytes follow runtime group offsets; use row-major scales "
       "to split")
          .str();
  b.forbidSplit(rowLoop, reason);
  b.forbidSplit(k, reason);
}

ShardingModel buildScaledMmModel(ScaledMmOp op) {
  int64_t rank = op.getResult().getType().getRank();
  unsigned nb = rank - 2;
  unsigned m = nb, n = nb + 1, k = nb + 2, unit = nb + 3;
  ModelBuilder b(op.getContext(), nb + 4);
  if (nb)
    b.name(0, "the batch dimension");
  b.name(m, "M");
  b.name(n, "N");
  b.name(k, "K (the contraction dimension)");
  b.name(unit, "the unit scale dimension");
  b.reduction(k, ReductionKind::Sum);
  if (op.isFloat8()) {
    b.requireMultiple(k, 16, "torch._scaled_mm's 16-element K alignment");
    b.requireMultiple(n, 16, "torch._scaled_mm's 16-element N alignment");
  } else {
    b.requireMultiple(k, 32, "the 32-element scaling block");
  }
  addGemmLayoutRules(b, op.getLhsScaleLayout(), m, k, "lhs");
  addGemmLayoutRules(b, op.getRhsScaleLayout(), n, k, "rhs");

  auto withBatch = [&](std::initializer_list<unsigned> dims) {
    SmallVector<unsigned> all;
    if (nb)
      all.push_back(0);
    all.append(dims);
    return all;
  };
  SmallVector<unsigned> lhs =
      op.getTransposeLhs() ? withBatch({k, m}) : withBatch({m, k});
  SmallVector<unsigned> rhs =
      op.getTransposeRhs() ? withBatch({n, k}) : withBatch({k, n});
  b.map(op.getLhs(), lhs);
  b.map(op.getLhsScales(), gemmScaleDims(op.getLhsScales(), lhs,
                                         op.getLhsScaleLayout(), m, k, unit));
  b.map(op.getRhs(), rhs);
  b.map(op.getRhsScales(), gemmScaleDims(op.getRhsScales(), rhs,
                                         op.getRhsScaleLayout(), n, k, unit));
  if (op.getBias())
    b.map(op.getBias(), {n});
  b.map(op.getResult(), withBatch({m, n}));
  return b.take();
}

constexpr StringLiteral kTokenReason =
    "token groups are given by global offsets (offs); split the experts "
    "instead, or dispatch the tokens to the experts' shards first";

ShardingModel buildScaledGroupedMmModel(ScaledGroupedMmOp op) {
  bool float8 = op.isFloat8();
  if (!op.isTwoDTwoD()) {
    // 2d-3d: result[m, n] = sum_e [m in group e] sum_k lhs[m, k] rhs[e, k, n].
    // The experts are a sum loop: each shard computes the rows of its own
    // experts (the others zero) and an all-reduce adds them.
    unsigned m = 0, n = 1, k = 2, e = 3, unit = 4;
    ModelBuilder b(op.getContext(), 5);
    b.name(m, "M (the tokens)");
    b.name(n, "N");
    b.name(k, "K (the contraction dimension)");
    b.name(e, "E (the experts)");
    b.name(unit, "the unit scale dimension");
    b.reduction(k, ReductionKind::Sum);
    b.reduction(e, ReductionKind::Sum);
    b.model.expertLoop = e;
    b.forbidSplit(m, kTokenReason);
    if (float8) {
      b.requireMultiple(k, 16,
                        "torch._scaled_grouped_mm's 16-element K "
                        "alignment");
      b.requireMultiple(n, 16,
                        "torch._scaled_grouped_mm's 16-element N "
                        "alignment");
    } else {
      b.requireMultiple(k, 32, "the 32-element scaling block");
    }
    addGemmLayoutRules(b, op.getLhsScaleLayout(), m, k, "lhs");
    if (op.getRhsScaleLayout() == ScaleLayout::BlockedPerExpert) {
      const char *reason = "the rhs scales are blocked per expert, so only "
                           "the experts may be split";
      b.forbidSplit(n, reason);
      b.forbidSplit(k, reason);
    }
    SmallVector<unsigned> lhs = {m, k};
    SmallVector<unsigned> rhs = op.getTransposeRhs()
                                    ? SmallVector<unsigned>{e, n, k}
                                    : SmallVector<unsigned>{e, k, n};
    b.map(op.getLhs(), lhs);
    b.map(op.getLhsScales(), gemmScaleDims(op.getLhsScales(), lhs,
                                           op.getLhsScaleLayout(), m, k, unit));
    b.map(op.getRhs(), rhs);
    if (op.getRhsScaleLayout() == ScaleLayout::BlockedPerExpert)
      b.map(op.getRhsScales(), {e});
    else
      b.map(op.getRhsScales(),
            gemmScaleDims(op.getRhsScales(), rhs, op.getRhsScaleLayout(), n, k,
                          unit));
    b.replicated(); // offs
    b.map(op.getResult(), {m, n});
    return b.take();
  }
  // 2d-2d: result[e, n, k] = sum_{m in group e} lhs[n, m] rhs[m, k].
  unsigned n = 0, k = 1, m = 2, e = 3;
  ModelBuilder b(op.getContext(), 4);
  b.name(n, "N");
  b.name(k, "K");
  b.name(m, "M (the tokens, the contraction dimension)");
  b.name(e, "E (the experts)");
  b.reduction(m, ReductionKind::Sum);
  b.forbidSplit(m, kTokenReason);
  b.forbidSplit(e, "a 2d-2d grouped GEMM shard would need its experts' "
                   "token range out of the global offsets; not modeled yet");
  if (float8) {
    b.requireMultiple(n, 16,
                      "torch._scaled_grouped_mm's 16-element "
                      "alignment");
    b.requireMultiple(k, 16,
                      "torch._scaled_grouped_mm's 16-element "
                      "alignment");
  }
  for (auto [layout, row, name] :
       {std::tuple(op.getLhsScaleLayout(), n, "lhs"),
        std::tuple(op.getRhsScaleLayout(), k, "rhs")})
    if (layout != ScaleLayout::RowMajor)
      b.forbidSplit(row, "the " + Twine(name) +
                             " scales are in a grouped blocked layout, "
                             "whose bytes follow runtime group offsets");
  SmallVector<unsigned> lhs = op.getTransposeLhs()
                                  ? SmallVector<unsigned>{m, n}
                                  : SmallVector<unsigned>{n, m};
  SmallVector<unsigned> rhs = op.getTransposeRhs()
                                  ? SmallVector<unsigned>{k, m}
                                  : SmallVector<unsigned>{m, k};
  b.map(op.getLhs(), lhs);
  if (float8)
    b.map(op.getLhsScales(), {e, n});
  else if (op.getLhsScaleLayout() == ScaleLayout::RowMajor)
    b.map(op.getLhsScales(), lhs);
  else
    b.replicated();
  b.map(op.getRhs(), rhs);
  if (float8)
    b.map(op.getRhsScales(), {e, k});
  else if (op.getRhsScaleLayout() == ScaleLayout::RowMajor)
    b.map(op.getRhsScales(), rhs);
  else
    b.replicated();
  b.replicated(); // offs
  b.map(op.getResult(), {e, n, k});
  return b.take();
}

ShardingModel buildToBlockedModel(ToBlockedOp op) {
  auto type = op.getScales().getType();
  if (op.getLayout() == ScaleLayout::Blocked) {
    ModelBuilder b(op.getContext(), 2);
    b.name(0, "the scale rows");
    b.name(1, "the scale columns");
    b.requireMultiple(0, 128, "the 128-row tile of the blocked layout");
    b.forbidSplit(1, "the blocked layout interleaves the 4-column tiles of "
                     "every 128-row tile, so a shard's columns are not a "
                     "slice of the blocked bytes");
    b.map(op.getScales(), {0, 1});
    b.map(op.getResult(), {0});
    return b.take();
  }
  if (op.getLayout() == ScaleLayout::BlockedPerExpert) {
    // (E, R, C) -> (E, bytes): whole experts split.
    ModelBuilder b(op.getContext(), type.getRank());
    b.name(0, "E (the experts)");
    for (int64_t d = 1; d < type.getRank(); ++d) {
      b.name(d, "dimension " + Twine(d));
      b.forbidSplit(d, "only the experts of blocked_per_expert scales split");
    }
    b.map(op.getScales(), identityDims(type.getRank()));
    b.map(op.getResult(), {0});
    return b.take();
  }
  // The grouped layouts follow runtime offsets: replicated.
  ModelBuilder b(op.getContext(), 0);
  for (unsigned i = 0, e = op->getNumOperands() + op->getNumResults(); i < e;
       ++i)
    b.replicated();
  return b.take();
}

/// Ops that no split fits (their layout follows runtime offsets): no loops,
/// every operand and result replicated.
ShardingModel buildReplicatedModel(Operation *op) {
  ModelBuilder b(op->getContext(), 0);
  for (unsigned i = 0, e = op->getNumOperands() + op->getNumResults(); i < e;
       ++i)
    b.replicated();
  return b.take();
}

ShardingModel buildModel(Operation *op) {
  return llvm::TypeSwitch<Operation *, ShardingModel>(op)
      .Case([](QuantizeOp op) { return buildQuantizeModel(op); })
      .Case([](DequantizeOp op) { return buildDequantizeModel(op); })
      .Case([](QuantizeDualOp op) { return buildQuantizeDualModel(op); })
      .Case([](ScaledMmOp op) { return buildScaledMmModel(op); })
      .Case([](ScaledGroupedMmOp op) { return buildScaledGroupedMmModel(op); })
      .Case([](ToBlockedOp op) { return buildToBlockedModel(op); })
      .Default([](Operation *op) { return buildReplicatedModel(op); });
}

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
    if (!sharding.getStaticHaloSizes().empty() ||
        !sharding.getDynamicHaloSizes().empty() ||
        !sharding.getStaticShardedDimsOffsets().empty() ||
        !sharding.getDynamicShardedDimsOffsets().empty())
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
  // The first local group starts at offs[first - 1] (0 for the first shard).
  Value zero = arith::ConstantIndexOp::create(b, 0);
  Value one = arith::ConstantIndexOp::create(b, 1);
  Value isFirst =
      arith::CmpIOp::create(b, arith::CmpIPredicate::eq, first, zero);
  Value prev = arith::SelectOp::create(b, isFirst, zero,
                                       arith::SubIOp::create(b, first, one));
  Value prevEnd = arith::IndexCastOp::create(
      b, b.getIndexType(), tensor::ExtractOp::create(b, offs, prev));
  return arith::SelectOp::create(b, isFirst, zero, prevEnd);
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
    return buildModel(op).iterators;
  }

  SmallVector<ReductionKind>
  getReductionLoopIteratorKinds(Operation *op) const {
    return buildModel(op).reductionKinds;
  }

  SmallVector<AffineMap> getIndexingMaps(Operation *op) const {
    return buildModel(op).maps;
  }

  /// Upstream's option, with the grid taken from any sharding when only
  /// tensors that follow no loop are annotated (upstream leaves it null).
  FailureOr<shard::ShardingOption>
  getShardingOption(Operation *op, ArrayRef<Sharding> operandShardings,
                    ArrayRef<Sharding> resultShardings) const {
    FailureOr<shard::ShardingOption> option =
        shard::detail::defaultGetShardingOption(op, operandShardings,
                                                resultShardings);
    if (failed(option) || option->empty || option->grid)
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
      if (failed(
              checkLoopSplits(op, buildModel(op), grid, option.shardingArray)))
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
    ShardingModel model = buildModel(op);
    FailureOr<ShardingArray> loopAxes =
        assignLoops(op, model, operandShardings, resultShardings);
    if (failed(loopAxes))
      return failure();
    GridOp grid = findGrid(op, operandShardings, resultShardings, symbolTable);
    if (failed(checkLoopSplits(op, model, grid, *loopAxes)))
      return failure();
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
