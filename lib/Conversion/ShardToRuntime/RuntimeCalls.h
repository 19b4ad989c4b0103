//===- RuntimeCalls.h - building runtime calls from tensor IR --*- C++ -*-===//
//
// Internal to convert-shard-to-runtime-collectives: what the lowerings of
// the shard collectives (ShardToRuntime.cpp) and of the MoE exchange ops
// (MoeExchangeToRuntime.cpp) share: the runtime's element type codes, the
// group check of a grid, the declarations of the runtime functions, and
// the builder of one checked call on fresh buffers.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_LIB_CONVERSION_SHARDTORUNTIME_RUNTIMECALLS_H
#define MXFP8TRAIN_LIB_CONVERSION_SHARDTORUNTIME_RUNTIMECALLS_H

#include "mxfp8train/runtime/Collectives.h"

#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"

#include "llvm/ADT/MapVector.h"

#include <optional>

namespace mlir::mxfp8train::shard_to_runtime {

/// The runtime functions a module needs, by name, with their types.
using RuntimeFunctions = llvm::MapVector<StringRef, FunctionType>;

/// The runtime's element type for `type`: 8-bit floats and integers travel
/// as bytes.
std::optional<mxfp8rtDataType> getRuntimeDataType(Type type);

/// The number of processes of `grid` when it is static, else failure.
FailureOr<int64_t> getGridSize(shard::GridOp grid);

/// Checks an exchange of `op` over `axes` of `grid`: the group must be the
/// whole grid in rank order (every axis of size > 1, ascending), which is
/// the bound communicator. Returns the group size; emits an error at `op`
/// otherwise.
FailureOr<int64_t> checkGroup(Operation *op, shard::GridOp grid,
                              ArrayRef<shard::GridAxis> axes);

/// Declares each of `functions` in `module` (private), or checks the type
/// of an existing declaration; emits an error at a mismatching one.
LogicalResult declareRuntimeFunctions(ModuleOp module,
                                      SymbolTableCollection &symbolTables,
                                      const RuntimeFunctions &functions);

/// Lowering helpers around one op: constants, fresh input copies and
/// output buffers as addresses, checked calls.
struct RuntimeCallBuilder {
  RuntimeCallBuilder(RewriterBase &rewriter, Operation *op)
      : b(rewriter), loc(op->getLoc()), op(op) {}

  Value index(int64_t value);
  Value i32(int64_t value);

  /// The address of a fresh identity-layout copy of `tensor`: the runtime
  /// reads plain contiguous memory, and no later op can write the input
  /// before the call reads it.
  Value getInputAddress(Value tensor);

  /// A fresh buffer of `shape` x `element`.
  Value allocate(ArrayRef<int64_t> shape, Type element);

  /// The address of `buffer`.
  Value getAddress(Value buffer);

  /// The tensor of a buffer the runtime has written.
  Value toTensor(Value buffer);

  /// Calls `callee` and asserts that it returned MXFP8RT_SUCCESS; the
  /// message names the op, `callee` and mxfp8rtGetLastError().
  void callChecked(StringRef callee, ValueRange args);

  RewriterBase &b;
  Location loc;
  Operation *op;
};

//===----------------------------------------------------------------------===//
// The MoE exchange ops (MoeExchangeToRuntime.cpp)
//===----------------------------------------------------------------------===//

/// Checks an mxfp8train.moe_dispatch or moe_combine (whole grid in rank
/// order, static grid) and adds the runtime function it calls to `needed`;
/// success without effect for any other op.
LogicalResult checkMoeExchangeOp(Operation *op,
                                 SymbolTableCollection &symbolTables,
                                 RuntimeFunctions &needed);

/// Adds the patterns lowering moe_dispatch and moe_combine to calls of
/// mxfp8rtShardMoeDispatchMx and mxfp8rtShardMoeCombine.
void populateMoeExchangeToRuntimePatterns(RewritePatternSet &patterns,
                                          SymbolTableCollection &symbolTables);

} // namespace mlir::mxfp8train::shard_to_runtime

#endif // MXFP8TRAIN_LIB_CONVERSION_SHARDTORUNTIME_RUNTIMECALLS_H
