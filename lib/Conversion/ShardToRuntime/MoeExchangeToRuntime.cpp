//===- MoeExchangeToRuntime.cpp - MoE exchange to runtime calls -*- C++ -*-===//
//
// Part of convert-shard-to-runtime-collectives: mxfp8train.moe_dispatch and
// moe_combine become calls of the runtime's mxfp8rtShardMoeDispatchMx and
// mxfp8rtShardMoeCombine (runtime/include/mxfp8train/runtime/
// ExpertParallel.h) on the communicator bound to the calling thread, the
// grid's process count passed for the runtime to check. As for the shard
// collectives, every input is a fresh copy and every result a fresh buffer
// (RuntimeCalls.h), and the returned status is asserted.
//
//===----------------------------------------------------------------------===//

#include "RuntimeCalls.h"

#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::shard_to_runtime;

static constexpr StringLiteral kMoeDispatchFn = "mxfp8rtShardMoeDispatchMx";
static constexpr StringLiteral kMoeCombineFn = "mxfp8rtShardMoeCombine";

/// The types of the two calls, as ExpertParallel.h has them (index =
/// intptr_t): buffers as addresses, the combine's element type an i32.
static FunctionType getDispatchType(MLIRContext *ctx) {
  Type index = IndexType::get(ctx);
  return FunctionType::get(ctx, SmallVector<Type>(14, index),
                           {IntegerType::get(ctx, 32)});
}

static FunctionType getCombineType(MLIRContext *ctx) {
  Type index = IndexType::get(ctx);
  Type i32 = IntegerType::get(ctx, 32);
  SmallVector<Type> inputs(12, index);
  inputs[2] = i32;
  return FunctionType::get(ctx, inputs, {i32});
}

/// The grid of a verified exchange op.
template <typename OpTy>
static shard::GridOp getGrid(OpTy op, SymbolTableCollection &symbolTables) {
  return symbolTables.lookupNearestSymbolFrom<shard::GridOp>(op,
                                                             op.getGridAttr());
}

LogicalResult
shard_to_runtime::checkMoeExchangeOp(Operation *op,
                                     SymbolTableCollection &symbolTables,
                                     RuntimeFunctions &needed) {
  auto check = [&](auto exchange, StringRef callee, FunctionType type) {
    shard::GridOp grid = getGrid(exchange, symbolTables);
    if (failed(checkGroup(op, grid, exchange.getGridAxes())))
      return failure();
    needed.insert({callee, type});
    return success();
  };
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](MoeDispatchOp o) {
        return check(o, kMoeDispatchFn, getDispatchType(op->getContext()));
      })
      .Case([&](MoeCombineOp o) {
        return check(o, kMoeCombineFn, getCombineType(op->getContext()));
      })
      .Default([](Operation *) { return success(); });
}

namespace {

template <typename OpTy> struct ExchangePattern : OpRewritePattern<OpTy> {
  ExchangePattern(MLIRContext *ctx, SymbolTableCollection &tables)
      : OpRewritePattern<OpTy>(ctx), tables(tables) {}

  /// The process count of the op's (checked, static) grid.
  int64_t getGroupSize(OpTy op) const {
    return *getGridSize(getGrid(op, tables));
  }

  SymbolTableCollection &tables;
};

/// moe_dispatch: copies of data, scales and routing in; four fresh buffers
/// (rows, row scales, offs, counts) out.
struct MoeDispatchLowering : ExchangePattern<MoeDispatchOp> {
  using ExchangePattern::ExchangePattern;
  LogicalResult matchAndRewrite(MoeDispatchOp op,
                                PatternRewriter &rewriter) const override {
    RuntimeCallBuilder cb(rewriter, op);
    auto [tokens, topK] = op.getTokensAndTopK();
    int64_t k = op.getData().getType().getDimSize(1);
    Value data = cb.getInputAddress(op.getData());
    Value scales = cb.getInputAddress(op.getScales());
    Value route = cb.getInputAddress(op.getTokenExperts());
    SmallVector<Value> buffers;
    for (Value result : op->getResults()) {
      auto type = cast<RankedTensorType>(result.getType());
      buffers.push_back(cb.allocate(type.getShape(), type.getElementType()));
    }
    SmallVector<Value> args = {data,
                               scales,
                               cb.index(tokens),
                               cb.index(k),
                               cb.index(topK),
                               route,
                               cb.index(op.getNumExperts()),
                               cb.index(op.getCapacity()),
                               cb.index(op.getAlignment())};
    for (Value buffer : buffers)
      args.push_back(cb.getAddress(buffer));
    args.push_back(cb.index(getGroupSize(op)));
    cb.callChecked(kMoeDispatchFn, args);
    SmallVector<Value> results;
    for (Value buffer : buffers)
      results.push_back(cb.toTensor(buffer));
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// moe_combine: copies of the expert outputs, routing and counts in; the
/// (T * topK, N) result out.
struct MoeCombineLowering : ExchangePattern<MoeCombineOp> {
  using ExchangePattern::ExchangePattern;
  LogicalResult matchAndRewrite(MoeCombineOp op,
                                PatternRewriter &rewriter) const override {
    RuntimeCallBuilder cb(rewriter, op);
    auto [tokens, topK] = op.getTokensAndTopK();
    RankedTensorType outType = op.getExpertOut().getType();
    RankedTensorType resultType = op.getResult().getType();
    Value expertOut = cb.getInputAddress(op.getExpertOut());
    Value route = cb.getInputAddress(op.getTokenExperts());
    Value counts = cb.getInputAddress(op.getCounts());
    Value out = cb.allocate(resultType.getShape(), resultType.getElementType());
    int32_t type = *getRuntimeDataType(outType.getElementType());
    cb.callChecked(kMoeCombineFn,
                   {expertOut, cb.index(outType.getDimSize(1)), cb.i32(type),
                    cb.index(tokens), cb.index(topK), route,
                    cb.index(op.getNumExperts()), counts,
                    cb.index(op.getCapacity()), cb.index(op.getAlignment()),
                    cb.getAddress(out), cb.index(getGroupSize(op))});
    rewriter.replaceOp(op, cb.toTensor(out));
    return success();
  }
};

} // namespace

void shard_to_runtime::populateMoeExchangeToRuntimePatterns(
    RewritePatternSet &patterns, SymbolTableCollection &symbolTables) {
  patterns.add<MoeDispatchLowering, MoeCombineLowering>(patterns.getContext(),
                                                        symbolTables);
}
