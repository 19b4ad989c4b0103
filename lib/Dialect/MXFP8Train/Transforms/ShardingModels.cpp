//===- ShardingModels.cpp - the ops' loops for sharding ---------*- C++ -*-===//
//
// Every op gets one model: its loops (iterator types), one projected
// permutation per operand and result that says which loop each tensor
// dimension follows, and a rule per loop that says where the loop may be
// split. Scales follow the loops of their data: a row-major scale dimension
// `d/32` follows the loop of data dimension `d` (the shard dialect splits both
// evenly, so they agree when every shard holds whole 32-element blocks), a
// blocked 1-D scale sequence follows the loop of its rows (whole 128-row tiles
// are contiguous bytes). Float8 scales of size 1 follow a unit loop that is
// never split. Ops that no split fits get no loops: they are replicated.
// docs/sharding.md has the table.
//
//===----------------------------------------------------------------------===//

#include "ShardingModels.h"

#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainOps.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::sharding;

using shard::ReductionKind;

namespace {

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

ShardingModel buildReplicatedModel(Operation *op);

ShardingModel buildQuantizeModel(QuantizeOp op) {
  // Per-group Float8 scales follow the runtime token groups (`offs`).
  if (op.isPerGroup())
    return buildReplicatedModel(op);
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
  if (op.isPerGroup())
    return buildReplicatedModel(op);
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
    if (op.getLhsScaleLayout() != ScaleLayout::RowMajor &&
        op.getLhsScaleLayout() != ScaleLayout::Blocked)
      b.forbidSplit(e, "the lhs scales are in the grouped layout " +
                           stringifyScaleLayout(op.getLhsScaleLayout()) +
                           ", whose size follows the number of groups (each "
                           "group padded to whole tiles); use row-major lhs "
                           "scales to split the experts");
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

} // namespace

ShardingModel mlir::mxfp8train::sharding::buildShardingModel(Operation *op) {
  return llvm::TypeSwitch<Operation *, ShardingModel>(op)
      .Case([](QuantizeOp op) { return buildQuantizeModel(op); })
      .Case([](DequantizeOp op) { return buildDequantizeModel(op); })
      .Case([](QuantizeDualOp op) { return buildQuantizeDualModel(op); })
      .Case([](ScaledMmOp op) { return buildScaledMmModel(op); })
      .Case([](ScaledGroupedMmOp op) { return buildScaledGroupedMmModel(op); })
      .Case([](ToBlockedOp op) { return buildToBlockedModel(op); })
      .Default([](Operation *op) { return buildReplicatedModel(op); });
}
