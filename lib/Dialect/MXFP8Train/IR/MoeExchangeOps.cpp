//===- MoeExchangeOps.cpp - moe_dispatch and moe_combine -------*- C++ -*-===//
//
// Verifiers of the expert-parallel exchange ops (MoeExchangeOps.td): the
// shape, type and attribute rules that the runtime's mxfp8rtMoeDispatchMx
// and mxfp8rtMoeCombine need, so that a verified op always lowers to a
// call the runtime accepts (the routing itself is data, checked at run
// time). The rules that depend on the grid (the rank count P) are checked
// with the symbol uses.
//
//===----------------------------------------------------------------------===//

#include "Float8Verifiers.h"
#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainOps.h"

#include "mlir/Dialect/Shard/IR/ShardOps.h"

#include "llvm/ADT/SmallSet.h"

using namespace mlir;
using namespace mlir::mxfp8train;
using mlir::mxfp8train::detail::formatShape;

//===----------------------------------------------------------------------===//
// Shared rules
//===----------------------------------------------------------------------===//

/// Checks that every operand and result of `op` has a static shape: the
/// runtime exchange sizes its buffers when the module is compiled.
static LogicalResult verifyStaticShapes(Operation *op) {
  auto check = [&](Type type, StringRef kind, unsigned index) -> LogicalResult {
    auto tensorType = cast<RankedTensorType>(type);
    if (tensorType.hasStaticShape())
      return success();
    return LogicalResult(op->emitOpError()
                         << "expects static shapes (the exchange sizes its "
                            "buffers at compile time), found "
                         << type << " for " << kind << " #" << index);
  };
  return mlir::mxfp8train::detail::verifyEachValueType(op, check);
}

/// The signed values of num_experts, capacity and alignment (I64Attr
/// getters return them unsigned, which would hide negative values).
template <typename OpTy> static int64_t getSignedNumExperts(OpTy op) {
  return static_cast<int64_t>(op.getNumExperts());
}

/// Checks num_experts, capacity and alignment.
template <typename OpTy> static LogicalResult verifyExchangeAttrs(OpTy op) {
  int64_t experts = getSignedNumExperts(op);
  int64_t capacity = static_cast<int64_t>(op.getCapacity());
  int64_t alignment = static_cast<int64_t>(op.getAlignment());
  if (experts < 1)
    return op.emitOpError() << "expects num_experts >= 1, found " << experts;
  if (capacity < 1)
    return op.emitOpError()
           << "expects capacity >= 1 (the rows each rank can receive), found "
           << capacity;
  if (alignment < 1)
    return op.emitOpError()
           << "expects alignment >= 1 (the row multiple of each expert "
              "group), found "
           << alignment;
  return success();
}

/// Checks the routing of `tokens` tokens (std::nullopt: not known from
/// another operand): rank 1 (T * topK) or rank 2 (T, topK), topK >= 1.
static LogicalResult verifyRouting(Operation *op, RankedTensorType routing,
                                   std::optional<int64_t> tokens) {
  if (routing.getRank() == 2) {
    if (tokens && routing.getDimSize(0) != *tokens)
      return op->emitOpError()
             << "expects token_experts with one row per token (" << *tokens
             << "), found " << formatShape(routing.getShape());
    if (routing.getDimSize(1) < 1)
      return op->emitOpError()
             << "expects at least one expert slot per token (topK >= 1) in "
                "token_experts, found "
             << formatShape(routing.getShape());
    return success();
  }
  if (routing.getRank() != 1)
    return op->emitOpError()
           << "expects token_experts of rank 1 (T * topK) or 2 (T, topK), "
              "found rank "
           << routing.getRank();
  if (!tokens)
    return success();
  int64_t slots = routing.getDimSize(0);
  bool ok =
      *tokens == 0 ? slots == 0 : slots >= *tokens && slots % *tokens == 0;
  if (!ok)
    return op->emitOpError()
           << "expects token_experts of T * topK entries with topK >= 1 (a "
              "positive multiple of T = "
           << *tokens << "), found " << slots;
  return success();
}

/// The grid of `op` and its process count along the op's grid_axes
/// (std::nullopt when a size is dynamic); failure with an error when the
/// grid or the axes are invalid.
template <typename OpTy>
static FailureOr<std::optional<int64_t>>
verifyGrid(OpTy op, SymbolTableCollection &symbolTables) {
  auto grid =
      symbolTables.lookupNearestSymbolFrom<shard::GridOp>(op, op.getGridAttr());
  if (!grid)
    return op.emitOpError() << "expects @" << op.getGrid()
                            << " to name a shard.grid, found none";
  ArrayRef<int64_t> shape = grid.getShape();
  llvm::SmallSet<int16_t, 4> seen;
  std::optional<int64_t> processes = 1;
  for (int16_t axis : op.getGridAxes()) {
    if (axis < 0 || axis >= static_cast<int64_t>(shape.size()) ||
        !seen.insert(axis).second)
      return op.emitOpError()
             << "expects grid_axes in [0, " << shape.size() << ") of @"
             << op.getGrid() << " without repeats, found ["
             << llvm::make_range(op.getGridAxes().begin(),
                                 op.getGridAxes().end())
             << "]";
    if (ShapedType::isDynamic(shape[axis]))
      processes = std::nullopt;
    else if (shape[axis] < 1)
      return op.emitOpError()
             << "expects grid axis " << axis << " of @" << op.getGrid()
             << " to hold at least one process, found size " << shape[axis];
    else if (processes)
      *processes *= shape[axis];
  }
  return processes;
}

/// Checks that num_experts splits over the `processes` ranks and that
/// `counts` holds processes * num_experts entries.
template <typename OpTy>
static LogicalResult verifyExpertSplit(OpTy op, int64_t processes,
                                       RankedTensorType counts) {
  int64_t experts = getSignedNumExperts(op);
  if (experts % processes != 0)
    return op.emitOpError()
           << "expects num_experts (" << experts << ") to be a multiple of the "
           << processes << " processes of @" << op.getGrid()
           << " along its grid_axes (the experts split evenly over the ranks)";
  // processes * experts without overflow: compare with the static size.
  int64_t size = counts.getRank() == 1 ? counts.getDimSize(0) : -1;
  if (size < 0 || size % processes != 0 || size / processes != experts)
    return op.emitOpError()
           << "expects counts of shape " << processes << " * " << experts
           << " (processes * num_experts: every rank's rows per destination "
              "rank and local expert), found "
           << formatShape(counts.getShape());
  return success();
}

//===----------------------------------------------------------------------===//
// moe_dispatch
//===----------------------------------------------------------------------===//

LogicalResult MoeDispatchOp::verify() {
  if (failed(verifyExchangeAttrs(*this)))
    return failure();
  RankedTensorType dataType = getData().getType();
  if (dataType.getRank() != 2)
    return emitOpError() << "expects rank-2 data (tokens, K), found rank "
                         << dataType.getRank();
  if (failed(verifyStaticShapes(*this)))
    return failure();
  int64_t tokens = dataType.getDimSize(0), k = dataType.getDimSize(1);
  if (k < kBlockSize || k % kBlockSize != 0)
    return emitOpError() << "expects K (dimension 1 of the data) to be a "
                            "positive multiple of "
                         << kBlockSize << ", found " << k;
  SmallVector<int64_t> scaleShape = {tokens, k / kBlockSize};
  if (getScales().getType().getShape() != ArrayRef<int64_t>(scaleShape))
    return emitOpError() << "expects scales of shape "
                         << formatShape(scaleShape)
                         << " (1x32 blocks along K, as quantize axis = 1 "
                            "makes them), found "
                         << formatShape(getScales().getType().getShape());
  if (failed(verifyRouting(*this, getTokenExperts().getType(), tokens)))
    return failure();

  int64_t capacity = static_cast<int64_t>(getCapacity());
  RankedTensorType rowsType = getRows().getType();
  if (rowsType.getShape() != ArrayRef<int64_t>{capacity, k})
    return emitOpError() << "expects rows of shape " << capacity << "x" << k
                         << " (capacity x K), found "
                         << formatShape(rowsType.getShape());
  if (rowsType.getElementType() != dataType.getElementType())
    return emitOpError() << "expects rows of element type "
                         << dataType.getElementType() << " (the data's), found "
                         << rowsType.getElementType();
  SmallVector<int64_t> rowScaleShape = {capacity, k / kBlockSize};
  if (getRowScales().getType().getShape() != ArrayRef<int64_t>(rowScaleShape))
    return emitOpError() << "expects row_scales of shape "
                         << formatShape(rowScaleShape)
                         << " (capacity x K/32), found "
                         << formatShape(getRowScales().getType().getShape());
  if (getOffs().getType().getRank() != 1)
    return emitOpError() << "expects offs of rank 1 (one group end per local "
                            "expert), found rank "
                         << getOffs().getType().getRank();
  if (getCounts().getType().getRank() != 1)
    return emitOpError() << "expects counts of rank 1, found rank "
                         << getCounts().getType().getRank();
  return success();
}

LogicalResult
MoeDispatchOp::verifySymbolUses(SymbolTableCollection &symbolTables) {
  FailureOr<std::optional<int64_t>> processes = verifyGrid(*this, symbolTables);
  if (failed(processes))
    return failure();
  if (!*processes)
    return success();
  if (failed(verifyExpertSplit(*this, **processes, getCounts().getType())))
    return failure();
  int64_t local = getSignedNumExperts(*this) / **processes;
  if (getOffs().getType().getDimSize(0) != local)
    return emitOpError() << "expects offs of shape " << local
                         << " (num_experts / processes: one group end per "
                            "local expert), found "
                         << formatShape(getOffs().getType().getShape());
  return success();
}

std::pair<int64_t, int64_t> MoeDispatchOp::getTokensAndTopK() {
  int64_t tokens = getData().getType().getDimSize(0);
  RankedTensorType routing = getTokenExperts().getType();
  if (routing.getRank() == 2)
    return {tokens, routing.getDimSize(1)};
  return {tokens, tokens > 0 ? routing.getDimSize(0) / tokens : 1};
}

//===----------------------------------------------------------------------===//
// moe_combine
//===----------------------------------------------------------------------===//

LogicalResult MoeCombineOp::verify() {
  if (failed(verifyExchangeAttrs(*this)))
    return failure();
  RankedTensorType outType = getExpertOut().getType();
  if (outType.getRank() != 2)
    return emitOpError() << "expects rank-2 expert_out (capacity, N), found "
                            "rank "
                         << outType.getRank();
  if (failed(verifyStaticShapes(*this)))
    return failure();
  int64_t capacity = static_cast<int64_t>(getCapacity());
  if (outType.getDimSize(0) != capacity)
    return emitOpError() << "expects expert_out with capacity (" << capacity
                         << ") rows, found " << formatShape(outType.getShape());
  int64_t n = outType.getDimSize(1);
  if (n < 1)
    return emitOpError() << "expects expert_out with N >= 1 columns, found "
                         << formatShape(outType.getShape());
  RankedTensorType routing = getTokenExperts().getType();
  if (failed(verifyRouting(*this, routing, std::nullopt)))
    return failure();
  if (getCounts().getType().getRank() != 1)
    return emitOpError() << "expects counts of rank 1, found rank "
                         << getCounts().getType().getRank();
  RankedTensorType resultType = getResult().getType();
  int64_t slots = routing.getNumElements();
  if (resultType.getShape() != ArrayRef<int64_t>{slots, n})
    return emitOpError() << "expects a result of shape " << slots << "x" << n
                         << " (T * topK x N), found "
                         << formatShape(resultType.getShape());
  if (resultType.getElementType() != outType.getElementType())
    return emitOpError() << "expects a result of element type "
                         << outType.getElementType()
                         << " (the expert outputs'), found "
                         << resultType.getElementType();
  return success();
}

LogicalResult
MoeCombineOp::verifySymbolUses(SymbolTableCollection &symbolTables) {
  FailureOr<std::optional<int64_t>> processes = verifyGrid(*this, symbolTables);
  if (failed(processes))
    return failure();
  if (!*processes)
    return success();
  return verifyExpertSplit(*this, **processes, getCounts().getType());
}

std::pair<int64_t, int64_t> MoeCombineOp::getTokensAndTopK() {
  RankedTensorType routing = getTokenExperts().getType();
  if (routing.getRank() == 2)
    return {routing.getDimSize(0), routing.getDimSize(1)};
  return {routing.getDimSize(0), 1};
}
