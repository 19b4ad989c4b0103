//===- RuntimeCalls.cpp - building runtime calls from tensor IR -*- C++ -*-===//
//
// The helpers RuntimeCalls.h declares: shared by the lowerings of the shard
// collectives and of the MoE exchange ops.
//
//===----------------------------------------------------------------------===//

#include "RuntimeCalls.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::shard_to_runtime;

std::optional<mxfp8rtDataType> shard_to_runtime::getRuntimeDataType(Type type) {
  if (type.isF32())
    return MXFP8RT_DATA_F32;
  if (type.isBF16())
    return MXFP8RT_DATA_BF16;
  if (type.isInteger(32))
    return MXFP8RT_DATA_I32;
  if (type.isInteger(64))
    return MXFP8RT_DATA_I64;
  if (type.isInteger(8) ||
      isa<Float8E4M3FNType, Float8E5M2Type, Float8E8M0FNUType>(type))
    return MXFP8RT_DATA_BYTE;
  return std::nullopt;
}

FailureOr<int64_t> shard_to_runtime::getGridSize(shard::GridOp grid) {
  int64_t size = 1;
  for (int64_t d : grid.getShape()) {
    if (ShapedType::isDynamic(d))
      return failure();
    size *= d;
  }
  return size;
}

FailureOr<int64_t>
shard_to_runtime::checkGroup(Operation *op, shard::GridOp grid,
                             ArrayRef<shard::GridAxis> axes) {
  ArrayRef<int64_t> shape = grid.getShape();
  if (failed(getGridSize(grid)))
    return op->emitOpError("needs a static grid shape: @")
           << grid.getSymName() << " has a dynamic size";
  SmallVector<int64_t> wanted, given;
  for (auto [axis, size] : llvm::enumerate(shape))
    if (size > 1)
      wanted.push_back(axis);
  for (shard::GridAxis axis : axes)
    if (shape[axis] > 1)
      given.push_back(axis);
  if (given != wanted)
    return op->emitOpError("over grid axes [")
           << llvm::make_range(axes.begin(), axes.end()) << "] of @"
           << grid.getSymName() << " (shape "
           << llvm::make_range(shape.begin(), shape.end())
           << ") is not supported: the runtime collectives run over the "
              "whole grid in rank order (grid_axes = ["
           << llvm::make_range(wanted.begin(), wanted.end())
           << "]), one communicator per program";
  return *getGridSize(grid);
}

LogicalResult
shard_to_runtime::declareRuntimeFunctions(ModuleOp module,
                                          SymbolTableCollection &symbolTables,
                                          const RuntimeFunctions &functions) {
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  SymbolTable &symbols = symbolTables.getSymbolTable(module);
  for (auto [name, type] : functions) {
    if (auto existing = symbols.lookup<func::FuncOp>(name)) {
      if (existing.getFunctionType() != type)
        return existing.emitOpError("declares the runtime function @")
               << name << " with type " << existing.getFunctionType()
               << ", expected " << type;
      continue;
    }
    auto fn = func::FuncOp::create(b, module.getLoc(), name, type);
    fn.setPrivate();
    symbols.insert(fn);
  }
  return success();
}

Value RuntimeCallBuilder::index(int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

Value RuntimeCallBuilder::i32(int64_t value) {
  return arith::ConstantIntOp::create(b, loc, value, 32);
}

Value RuntimeCallBuilder::getInputAddress(Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  Value copy =
      bufferization::AllocTensorOp::create(b, loc, type, ValueRange{}, tensor);
  auto memrefType = MemRefType::get(type.getShape(), type.getElementType());
  Value buffer = bufferization::ToBufferOp::create(b, loc, memrefType, copy,
                                                   /*read_only=*/true);
  return memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
}

Value RuntimeCallBuilder::allocate(ArrayRef<int64_t> shape, Type element) {
  return memref::AllocOp::create(b, loc, MemRefType::get(shape, element));
}

Value RuntimeCallBuilder::getAddress(Value buffer) {
  return memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer);
}

Value RuntimeCallBuilder::toTensor(Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  auto tensorType =
      RankedTensorType::get(type.getShape(), type.getElementType());
  return bufferization::ToTensorOp::create(b, loc, tensorType, buffer,
                                           /*restrict=*/true,
                                           /*writable=*/true);
}

void RuntimeCallBuilder::callChecked(StringRef callee, ValueRange args) {
  Value status =
      func::CallOp::create(b, loc, callee, TypeRange{b.getI32Type()}, args)
          .getResult(0);
  Value zero = i32(MXFP8RT_SUCCESS);
  Value ok =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, status, zero);
  cf::AssertOp::create(b, loc, ok,
                       (op->getName().getStringRef() +
                        ": the runtime collective failed (" + callee +
                        ", mxfp8rtGetLastError() says why)")
                           .str());
}
