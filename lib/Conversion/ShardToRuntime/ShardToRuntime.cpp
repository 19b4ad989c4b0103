//===- ShardToRuntime.cpp - shard collectives to runtime calls -*- C++ -*-===//
//
// convert-shard-to-runtime-collectives: the collectives of a partitioned
// module (shard-partition's output) become calls of the runtime's
// mxfp8rtShard* entry points (runtime/include/mxfp8train/runtime/
// Collectives.h). The grid is the communicator bound to the calling thread
// (mxfp8rtCommBind): its rank is the process's linear index, and each call
// passes the grid's process count, which the runtime checks against the
// communicator's size. The MoE exchange ops of the mxfp8train dialect
// (moe_dispatch, moe_combine) become calls of the runtime's MoE exchange in
// the same pass (MoeExchangeToRuntime.cpp), on the same communicator.
//
// Each collective reads a fresh copy of its input (bufferization.alloc_tensor
// copy) and writes a fresh buffer (memref.alloc, then bufferization.to_tensor
// restrict): the runtime sees plain contiguous buffers whatever the
// bufferization of the rest of the function, and no later op can write the
// input before the call reads it. The runtime collectives exchange the
// outermost dimension, so gather, scatter, split and concat axes other than
// 0 are moved there and back with linalg.transpose and reshapes. The
// returned status is checked with cf.assert.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Conversion/ShardToRuntime/ShardToRuntime.h"
#include "RuntimeCalls.h"

#include "mxfp8train/Conversion/Passes.h"
#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainOps.h"
#include "mxfp8train/runtime/Collectives.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Shard/Transforms/Transforms.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"

#define DEBUG_TYPE "convert-shard-to-runtime-collectives"

namespace mlir::mxfp8train {
#define GEN_PASS_DEF_CONVERTSHARDTORUNTIMECOLLECTIVESPASS
#include "mxfp8train/Conversion/Passes.h.inc"
} // namespace mlir::mxfp8train

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::shard_to_runtime;

//===----------------------------------------------------------------------===//
// What can be lowered
//===----------------------------------------------------------------------===//

static constexpr StringLiteral kProcessIndexFn = "mxfp8rtShardProcessIndex";
static constexpr StringLiteral kAllReduceFn = "mxfp8rtShardAllReduce";
static constexpr StringLiteral kAllGatherFn = "mxfp8rtShardAllGather";
static constexpr StringLiteral kReduceScatterFn = "mxfp8rtShardReduceScatter";
static constexpr StringLiteral kAllToAllFn = "mxfp8rtShardAllToAll";

static std::optional<mxfp8rtReduceOp>
getRuntimeReduceOp(shard::ReductionKind kind) {
  switch (kind) {
  case shard::ReductionKind::Sum:
    return MXFP8RT_REDUCE_SUM;
  case shard::ReductionKind::Max:
    return MXFP8RT_REDUCE_MAX;
  default:
    return std::nullopt;
  }
}

/// Checks the element types and shapes of a collective's input and result.
static LogicalResult checkTensors(Operation *op, Value input, Value result,
                                  std::optional<shard::ReductionKind> kind) {
  auto inputType = dyn_cast<RankedTensorType>(input.getType());
  auto resultType = dyn_cast<RankedTensorType>(result.getType());
  if (!inputType || !resultType)
    return op->emitOpError("on memrefs is not supported: lower it before "
                           "bufferization");
  if (!inputType.hasStaticShape() || !resultType.hasStaticShape())
    return op->emitOpError("needs static shapes, got ")
           << inputType << " -> " << resultType;
  Type element = inputType.getElementType();
  if (resultType.getElementType() != element)
    return op->emitOpError("converts ")
           << element << " to " << resultType.getElementType()
           << ": the runtime collectives keep the element type (convert "
              "before or after the collective)";
  std::optional<mxfp8rtDataType> type = getRuntimeDataType(element);
  if (!type)
    return op->emitOpError("element type ")
           << element
           << " is not supported by the runtime collectives (bf16, f32, "
              "i32, i64 and 8-bit types: f8E4M3FN, f8E5M2, f8E8M0FNU, i8)";
  if (!kind)
    return success();
  if (!getRuntimeReduceOp(*kind))
    return op->emitOpError("reduction ")
           << shard::stringifyReductionKind(*kind)
           << " is not supported by the runtime collectives (sum, max)";
  if (*type == MXFP8RT_DATA_BYTE)
    return op->emitOpError("reduces ")
           << element
           << " elements: 8-bit payloads (fp8 data, e8m0 scales) are moved, "
              "never reduced; reduce in f32 or bf16";
  return success();
}

/// Checks one shard op; failure with an error at it when it cannot be
/// lowered.
static LogicalResult checkShardOp(Operation *op,
                                  SymbolTableCollection &symbolTables) {
  auto checkCollective = [&](auto collective, Value input, Value result,
                             std::optional<shard::ReductionKind> kind) {
    shard::GridOp grid = shard::getGrid(collective, symbolTables);
    if (failed(checkGroup(op, grid, collective.getGridAxes())))
      return failure();
    return checkTensors(op, input, result, kind);
  };
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](shard::AllReduceOp o) {
        return checkCollective(o, o.getInput(), o.getResult(),
                               o.getReduction());
      })
      .Case([&](shard::ReduceScatterOp o) {
        return checkCollective(o, o.getInput(), o.getResult(),
                               o.getReduction());
      })
      .Case([&](shard::AllGatherOp o) {
        return checkCollective(o, o.getInput(), o.getResult(), std::nullopt);
      })
      .Case([&](shard::AllToAllOp o) {
        return checkCollective(o, o.getInput(), o.getResult(), std::nullopt);
      })
      .Case<shard::ProcessLinearIndexOp, shard::ProcessMultiIndexOp,
            shard::GridShapeOp, shard::AllSliceOp>([&](Operation *) {
        SymbolRefAttr gridName = op->getAttrOfType<FlatSymbolRefAttr>("grid");
        auto grid =
            symbolTables.lookupNearestSymbolFrom<shard::GridOp>(op, gridName);
        if (grid && failed(getGridSize(grid)))
          return LogicalResult(op->emitOpError("needs a static grid shape: @")
                               << grid.getSymName() << " has a dynamic size");
        return success();
      })
      .Case<shard::GridOp, shard::ShardingOp, shard::ShardOp,
            shard::GetShardingOp, shard::ShardShapeOp>(
          [](Operation *) { return success(); })
      .Default([&](Operation *) {
        if (op->getDialect() && isa<shard::ShardDialect>(op->getDialect()))
          return LogicalResult(op->emitOpError(
              "is not lowered to the runtime collectives (all_reduce, "
              "all_gather, reduce_scatter, all_to_all, all_slice and the "
              "process index ops are)"));
        return success();
      });
}

LogicalResult mlir::mxfp8train::prepareShardToRuntimeCollectives(
    ModuleOp module, SymbolTableCollection &symbolTables) {
  // The declarations, as Collectives.h has them (index = intptr_t).
  MLIRContext *ctx = module.getContext();
  Type index = IndexType::get(ctx);
  Type i32 = IntegerType::get(ctx, 32);
  auto exchange =
      FunctionType::get(ctx, {index, index, index, i32, index}, {i32});
  auto reduction =
      FunctionType::get(ctx, {index, index, index, i32, i32, index}, {i32});
  bool ok = true;
  RuntimeFunctions needed;
  module.walk([&](Operation *op) {
    if (failed(checkShardOp(op, symbolTables)) ||
        failed(checkMoeExchangeOp(op, symbolTables, needed)))
      ok = false;
    if (isa<shard::ProcessLinearIndexOp, shard::ProcessMultiIndexOp,
            shard::AllSliceOp>(op))
      needed.insert(
          {kProcessIndexFn, FunctionType::get(ctx, {index}, {index})});
    else if (isa<shard::AllReduceOp>(op))
      needed.insert({kAllReduceFn, reduction});
    else if (isa<shard::AllGatherOp>(op))
      needed.insert({kAllGatherFn, exchange});
    else if (isa<shard::ReduceScatterOp>(op))
      needed.insert({kReduceScatterFn, reduction});
    else if (isa<shard::AllToAllOp>(op))
      needed.insert({kAllToAllFn, exchange});
  });
  if (!ok)
    return failure();
  return declareRuntimeFunctions(module, symbolTables, needed);
}

//===----------------------------------------------------------------------===//
// Building blocks
//===----------------------------------------------------------------------===//

namespace {

/// The lowering helpers of the shard collectives: one exchange call, and
/// the moves of a tensor dimension to and from the outermost one.
struct CollectiveBuilder : RuntimeCallBuilder {
  using RuntimeCallBuilder::RuntimeCallBuilder;

  /// The runtime call of a collective: `send` (copied) goes out, a fresh
  /// `recvShape` buffer comes back as a tensor. `count` elements per part,
  /// `reduce` for the reductions.
  Value exchange(StringRef callee, Value send, ArrayRef<int64_t> recvShape,
                 int64_t count, int32_t type, std::optional<int32_t> reduce,
                 int64_t groupSize) {
    Type element = cast<RankedTensorType>(send.getType()).getElementType();
    Value sendAddress = getInputAddress(send);
    Value out = allocate(recvShape, element);
    Value recvAddress = getAddress(out);
    SmallVector<Value> args = {sendAddress, recvAddress, index(count),
                               i32(type)};
    if (reduce)
      args.push_back(i32(*reduce));
    args.push_back(index(groupSize));
    callChecked(callee, args);
    return toTensor(out);
  }

  /// `t` with dimension `from` moved to position `to` (linalg.transpose).
  Value moveDim(Value t, int64_t from, int64_t to) {
    if (from == to)
      return t;
    auto type = cast<RankedTensorType>(t.getType());
    SmallVector<int64_t> perm =
        llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
    perm.erase(perm.begin() + from);
    perm.insert(perm.begin() + to, from);
    SmallVector<int64_t> shape;
    for (int64_t d : perm)
      shape.push_back(type.getDimSize(d));
    Value init = tensor::EmptyOp::create(b, loc, shape, type.getElementType());
    return linalg::TransposeOp::create(b, loc, t, init, perm)->getResult(0);
  }

  /// `t` with dimension `d` split into (parts, size / parts).
  Value splitDim(Value t, int64_t d, int64_t parts) {
    auto type = cast<RankedTensorType>(t.getType());
    SmallVector<int64_t> shape(type.getShape());
    shape[d] /= parts;
    shape.insert(shape.begin() + d, parts);
    SmallVector<ReassociationIndices> groups;
    for (int64_t i = 0; i < type.getRank(); ++i)
      groups.push_back(i < d    ? ReassociationIndices{i}
                       : i == d ? ReassociationIndices{i, i + 1}
                                : ReassociationIndices{i + 1});
    return tensor::ExpandShapeOp::create(
        b, loc, RankedTensorType::get(shape, type.getElementType()), t, groups);
  }

  /// `t` with dimensions `d` and `d + 1` merged.
  Value mergeDims(Value t, int64_t d) {
    auto type = cast<RankedTensorType>(t.getType());
    SmallVector<ReassociationIndices> groups;
    for (int64_t i = 0; i < type.getRank(); ++i) {
      if (i == d + 1)
        continue;
      groups.push_back(i == d ? ReassociationIndices{i, i + 1}
                              : ReassociationIndices{i});
    }
    return tensor::CollapseShapeOp::create(b, loc, t, groups);
  }
};

/// The group size and runtime element type of a checked collective.
template <typename OpTy>
std::pair<int64_t, int32_t> getGroupAndType(OpTy op,
                                            SymbolTableCollection &tables) {
  shard::GridOp grid = shard::getGrid(op, tables);
  int64_t groupSize = *getGridSize(grid);
  Type element =
      cast<RankedTensorType>(op.getInput().getType()).getElementType();
  return {groupSize, *getRuntimeDataType(element)};
}

template <typename OpTy> struct CollectivePattern : OpRewritePattern<OpTy> {
  CollectivePattern(MLIRContext *ctx, SymbolTableCollection &tables)
      : OpRewritePattern<OpTy>(ctx), tables(tables) {}
  SymbolTableCollection &tables;
};

/// all_reduce: one call, input and result of the same shape.
struct AllReduceLowering : CollectivePattern<shard::AllReduceOp> {
  using CollectivePattern::CollectivePattern;
  LogicalResult matchAndRewrite(shard::AllReduceOp op,
                                PatternRewriter &rewriter) const override {
    auto [groupSize, type] = getGroupAndType(op, tables);
    CollectiveBuilder cb(rewriter, op);
    auto inputType = cast<RankedTensorType>(op.getInput().getType());
    Value result =
        cb.exchange(kAllReduceFn, op.getInput(), inputType.getShape(),
                    inputType.getNumElements(), type,
                    *getRuntimeReduceOp(op.getReduction()), groupSize);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// all_gather: the parts arrive stacked along a new outer dimension, which
/// then moves in front of the gather axis and merges with it.
struct AllGatherLowering : CollectivePattern<shard::AllGatherOp> {
  using CollectivePattern::CollectivePattern;
  LogicalResult matchAndRewrite(shard::AllGatherOp op,
                                PatternRewriter &rewriter) const override {
    auto [groupSize, type] = getGroupAndType(op, tables);
    CollectiveBuilder cb(rewriter, op);
    auto inputType = cast<RankedTensorType>(op.getInput().getType());
    int64_t axis = op.getGatherAxis().getSExtValue();
    SmallVector<int64_t> stacked = {groupSize};
    llvm::append_range(stacked, inputType.getShape());
    Value parts =
        cb.exchange(kAllGatherFn, op.getInput(), stacked,
                    inputType.getNumElements(), type, std::nullopt, groupSize);
    rewriter.replaceOp(op, cb.mergeDims(cb.moveDim(parts, 0, axis), axis));
    return success();
  }
};

/// reduce_scatter: the scatter axis splits into (parts, part) and the parts
/// move outermost, so that part p is the p-th contiguous block.
struct ReduceScatterLowering : CollectivePattern<shard::ReduceScatterOp> {
  using CollectivePattern::CollectivePattern;
  LogicalResult matchAndRewrite(shard::ReduceScatterOp op,
                                PatternRewriter &rewriter) const override {
    auto [groupSize, type] = getGroupAndType(op, tables);
    CollectiveBuilder cb(rewriter, op);
    auto resultType = cast<RankedTensorType>(op.getResult().getType());
    int64_t axis = op.getScatterAxis().getSExtValue();
    Value blocks =
        cb.moveDim(cb.splitDim(op.getInput(), axis, groupSize), axis, 0);
    Value result =
        cb.exchange(kReduceScatterFn, blocks, resultType.getShape(),
                    resultType.getNumElements(), type,
                    *getRuntimeReduceOp(op.getReduction()), groupSize);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// all_to_all: the split axis splits into (parts, part) with the parts
/// outermost (part p goes to process p); the received parts, stacked in
/// sender order, move in front of the concat axis and merge with it.
struct AllToAllLowering : CollectivePattern<shard::AllToAllOp> {
  using CollectivePattern::CollectivePattern;
  LogicalResult matchAndRewrite(shard::AllToAllOp op,
                                PatternRewriter &rewriter) const override {
    auto [groupSize, type] = getGroupAndType(op, tables);
    CollectiveBuilder cb(rewriter, op);
    int64_t splitAxis = op.getSplitAxis().getSExtValue();
    int64_t concatAxis = op.getConcatAxis().getSExtValue();
    Value blocks = cb.moveDim(cb.splitDim(op.getInput(), splitAxis, groupSize),
                              splitAxis, 0);
    auto blocksType = cast<RankedTensorType>(blocks.getType());
    Value parts = cb.exchange(kAllToAllFn, blocks, blocksType.getShape(),
                              blocksType.getNumElements() / groupSize, type,
                              std::nullopt, groupSize);
    rewriter.replaceOp(
        op, cb.mergeDims(cb.moveDim(parts, 0, concatAxis), concatAxis));
    return success();
  }
};

/// process_linear_index: the bound communicator's rank.
struct ProcessLinearIndexLowering
    : CollectivePattern<shard::ProcessLinearIndexOp> {
  using CollectivePattern::CollectivePattern;
  LogicalResult matchAndRewrite(shard::ProcessLinearIndexOp op,
                                PatternRewriter &rewriter) const override {
    shard::GridOp grid = shard::getGrid(op, tables);
    CollectiveBuilder cb(rewriter, op);
    Value group = cb.index(*getGridSize(grid));
    Value rank = func::CallOp::create(rewriter, op.getLoc(), kProcessIndexFn,
                                      TypeRange{rewriter.getIndexType()},
                                      ValueRange{group})
                     .getResult(0);
    Value zero = cb.index(0);
    Value ok = arith::CmpIOp::create(rewriter, op.getLoc(),
                                     arith::CmpIPredicate::sge, rank, zero);
    cf::AssertOp::create(
        rewriter, op.getLoc(), ok,
        "shard.process_linear_index: no communicator of the grid's size is "
        "bound to this thread (mxfp8rtCommBind; mxfp8rtGetLastError() says "
        "more)");
    rewriter.replaceOp(op, rank);
    return success();
  }
};

/// grid_shape: constants (the grid is static).
struct GridShapeLowering : CollectivePattern<shard::GridShapeOp> {
  using CollectivePattern::CollectivePattern;
  LogicalResult matchAndRewrite(shard::GridShapeOp op,
                                PatternRewriter &rewriter) const override {
    shard::GridOp grid = shard::getGrid(op, tables);
    ArrayRef<int64_t> shape = grid.getShape();
    SmallVector<int64_t> axes(op.getAxes().begin(), op.getAxes().end());
    if (axes.empty())
      axes = llvm::to_vector(llvm::seq<int64_t>(0, shape.size()));
    SmallVector<Value> sizes;
    for (int64_t axis : axes)
      sizes.push_back(
          arith::ConstantIndexOp::create(rewriter, op.getLoc(), shape[axis]));
    rewriter.replaceOp(op, sizes);
    return success();
  }
};

struct ConvertShardToRuntimeCollectivesPass final
    : mxfp8train::impl::ConvertShardToRuntimeCollectivesPassBase<
          ConvertShardToRuntimeCollectivesPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // A module without shard ops or MoE exchange ops is left exactly as it
    // is (the CPU pipeline runs this pass on every module, and the greedy
    // driver below would fold and erase ops elsewhere).
    bool hasWork =
        module
            ->walk([](Operation *op) {
              if (isa<MoeDispatchOp, MoeCombineOp>(op) ||
                  isa_and_nonnull<shard::ShardDialect>(op->getDialect()))
                return WalkResult::interrupt();
              return WalkResult::advance();
            })
            .wasInterrupted();
    if (!hasWork)
      return;
    SymbolTableCollection symbolTables;
    if (failed(prepareShardToRuntimeCollectives(module, symbolTables)))
      return signalPassFailure();
    RewritePatternSet patterns(&getContext());
    populateShardToRuntimeCollectivesPatterns(patterns, symbolTables);
    if (failed(applyPatternsGreedily(module, std::move(patterns))))
      return signalPassFailure();
    // Grids that nothing refers to any more go.
    for (auto grid : llvm::make_early_inc_range(module.getOps<shard::GridOp>()))
      if (SymbolTable::symbolKnownUseEmpty(grid, module))
        grid.erase();
  }
};

} // namespace

void mlir::mxfp8train::populateShardToRuntimeCollectivesPatterns(
    RewritePatternSet &patterns, SymbolTableCollection &symbolTables) {
  shard::populateAllSliceOpLoweringPatterns(patterns, symbolTables);
  shard::populateProcessMultiIndexOpLoweringPatterns(patterns, symbolTables);
  patterns.add<AllReduceLowering, AllGatherLowering, ReduceScatterLowering,
               AllToAllLowering, ProcessLinearIndexLowering, GridShapeLowering>(
      patterns.getContext(), symbolTables);
  populateMoeExchangeToRuntimePatterns(patterns, symbolTables);
}
