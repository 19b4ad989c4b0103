//===- OperandViews.cpp - what tensor a matmul operand reads ----*- C++ -*-===//
//
// Defines OperandViews.h: one step back through a view op at a time, mapping
// a dimension of the view to the dimension of its input it reads.
//
//===----------------------------------------------------------------------===//

#include "OperandViews.h"

#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <optional>

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::detail;

namespace {
/// One step back through a view: its data input and, when the followed
/// dimension survives, that dimension in the input.
struct ViewStep {
  Value input;
  std::optional<int64_t> dim;
};
} // namespace

bool mxfp8train::detail::isElementCopy(linalg::GenericOp generic) {
  if (!generic.hasPureTensorSemantics() || generic.getNumDpsInputs() != 1 ||
      generic.getNumDpsInits() != 1 ||
      generic.getNumParallelLoops() != generic.getNumLoops())
    return false;
  Block &body = generic.getRegion().front();
  auto yield = dyn_cast<linalg::YieldOp>(body.getTerminator());
  return yield && body.getOperations().size() == 1 &&
         yield.getNumOperands() == 1 &&
         yield.getOperand(0) == body.getArgument(0);
}

/// `source` when it is a statically shaped 2-D tensor, else null.
static Value staticMatrix(Value source) {
  auto type = dyn_cast<RankedTensorType>(source.getType());
  return type && type.getRank() == 2 && type.hasStaticShape() ? source
                                                              : Value();
}

Value mxfp8train::detail::getBatchBroadcastSource(Value operand) {
  if (auto broadcast = operand.getDefiningOp<linalg::BroadcastOp>()) {
    bool batch = broadcast.hasPureTensorSemantics() &&
                 broadcast.getDimensions() == ArrayRef<int64_t>{0};
    return batch ? staticMatrix(broadcast.getInput()) : Value();
  }
  auto generic = operand.getDefiningOp<linalg::GenericOp>();
  if (!generic || !isElementCopy(generic) || generic.getNumLoops() != 3)
    return {};
  MLIRContext *ctx = generic.getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(3, ctx);
  AffineMap dropBatch = AffineMap::get(
      3, 0, {getAffineDimExpr(1, ctx), getAffineDimExpr(2, ctx)}, ctx);
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  if (maps[0] != dropBatch || maps[1] != identity)
    return {};
  return staticMatrix(generic.getDpsInputs()[0]);
}

/// A `linalg.generic` that only copies (isElementCopy) with an output map
/// that is a permutation and an input map that is a projected permutation
/// (so it transposes and broadcasts). Maps dimension `dim` of the result.
static std::optional<ViewStep> stepThroughCopy(linalg::GenericOp generic,
                                               int64_t dim) {
  if (!isElementCopy(generic))
    return std::nullopt;
  AffineMap inMap = generic.getIndexingMapsArray()[0];
  AffineMap outMap = generic.getIndexingMapsArray()[1];
  // The input map may read a unit dimension at constant 0 (a broadcast
  // from a 1 x K x N tensor).
  if (!outMap.isPermutation() ||
      !inMap.isProjectedPermutation(/*allowZeroInResults=*/true))
    return std::nullopt;
  ViewStep step{generic.getDpsInputs()[0], std::nullopt};
  if (std::optional<unsigned> pos =
          inMap.getResultPosition(outMap.getResult(dim)))
    step.dim = *pos;
  return step;
}

/// The index of the reassociation group of an expand that holds its result
/// dimension `dim` (the source dimension it is part of).
static std::optional<int64_t> findGroup(ArrayRef<ReassociationIndices> groups,
                                        int64_t dim) {
  for (auto [i, group] : llvm::enumerate(groups))
    if (llvm::is_contained(group, dim))
      return static_cast<int64_t>(i);
  return std::nullopt;
}

/// One step back from `value` through the view that produces it, following
/// dimension `dim`; std::nullopt when `value` is not produced by a view.
static std::optional<ViewStep> stepBack(Value value, int64_t dim) {
  Operation *def = value.getDefiningOp();
  if (!def)
    return std::nullopt;
  if (auto cast = dyn_cast<tensor::CastOp>(def)) {
    auto from = dyn_cast<RankedTensorType>(cast.getSource().getType());
    if (!from)
      return std::nullopt;
    return ViewStep{cast.getSource(), dim};
  }
  if (auto transpose = dyn_cast<linalg::TransposeOp>(def)) {
    if (!transpose.hasPureTensorSemantics())
      return std::nullopt;
    return ViewStep{transpose.getInput(), transpose.getPermutation()[dim]};
  }
  if (auto broadcast = dyn_cast<linalg::BroadcastOp>(def)) {
    if (!broadcast.hasPureTensorSemantics())
      return std::nullopt;
    ArrayRef<int64_t> added = broadcast.getDimensions();
    if (llvm::is_contained(added, dim))
      return ViewStep{broadcast.getInput(), std::nullopt};
    int64_t before = llvm::count_if(added, [&](int64_t d) { return d < dim; });
    return ViewStep{broadcast.getInput(), dim - before};
  }
  if (auto generic = dyn_cast<linalg::GenericOp>(def))
    return stepThroughCopy(generic, dim);
  if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(def)) {
    // Result dimension `dim` is the group `dim` of source dimensions, in
    // row-major order: where the group sits in the source is where its
    // innermost (fastest-varying) dimension sits, which a merged
    // contraction dimension follows (the tokens B x S of an einsum-style
    // weight gradient, the heads x head_dim of a weight).
    ReassociationIndices group = collapse.getReassociationIndices()[dim];
    return ViewStep{collapse.getSrc(), group.back()};
  }
  if (auto expand = dyn_cast<tensor::ExpandShapeOp>(def)) {
    // Result dimension `dim` is part of one source dimension.
    std::optional<int64_t> source =
        findGroup(expand.getReassociationIndices(), dim);
    if (!source)
      return std::nullopt;
    return ViewStep{expand.getSrc(), *source};
  }
  // A cast or its inverse keeps every element where it is.
  if (auto quantize = dyn_cast<QuantizeOp>(def)) {
    if (value != quantize.getData())
      return std::nullopt;
    return ViewStep{quantize.getInput(), dim};
  }
  if (auto dequantize = dyn_cast<DequantizeOp>(def))
    return ViewStep{dequantize.getData(), dim};
  return std::nullopt;
}

bool ContractionSource::isKLast() const {
  return kPos == cast<RankedTensorType>(source.getType()).getRank() - 1;
}

ContractionSource mxfp8train::detail::traceContractionSource(Value operand,
                                                             int64_t kPos) {
  ContractionSource found{operand, kPos};
  // A bound on the chain guards against malformed cycles in unverified IR.
  for (int steps = 0; steps < 64; ++steps) {
    std::optional<ViewStep> step = stepBack(found.source, found.kPos);
    if (!step || !step->dim || !isa<RankedTensorType>(step->input.getType()))
      break;
    found = {step->input, *step->dim};
  }
  return found;
}

Value mxfp8train::detail::getViewRoot(Value value) {
  for (int steps = 0; steps < 64; ++steps) {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type || type.getRank() == 0)
      break;
    std::optional<ViewStep> step = stepBack(value, 0);
    if (!step)
      break;
    value = step->input;
  }
  return value;
}
