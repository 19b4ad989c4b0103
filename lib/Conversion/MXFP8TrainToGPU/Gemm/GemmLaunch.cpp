//===- GemmLaunch.cpp - host side of the GPU GEMM kernels -------*- C++ -*-===//
//
// Implements GemmLaunch.h: the GEMM kernels' buffers and tail arguments,
// the padded operands with their tensor maps, and the persistent launch.
//
//===----------------------------------------------------------------------===//

#include "GemmLaunch.h"
#include "../TMA.h"
#include "DequantPrepass.h"
#include "GemmSumFusion.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::gpu_lowering;

Value gpu_lowering::flatBuffer(RewriterBase &rewriter, Location loc,
                               Value tensor) {
  Value buf = toBuffer(rewriter, loc, tensor);
  auto type = cast<MemRefType>(buf.getType());
  return collapseTo(rewriter, loc, buf, {type.getNumElements()});
}

Value gpu_lowering::appendGemmTailArgs(RewriterBase &rewriter, Location loc,
                                       SmallVectorImpl<Value> &args, Value offs,
                                       Value bias, RankedTensorType resultType,
                                       const GemmEpilogueOperands &epilogue) {
  if (offs)
    args.push_back(toBuffer(rewriter, loc, offs));
  if (bias)
    args.push_back(toBuffer(rewriter, loc, bias));
  if (epilogue.addend)
    args.push_back(flatBuffer(rewriter, loc, epilogue.addend));
  for (Value input : epilogue.amaxInputs)
    args.push_back(flatBuffer(rewriter, loc, input));
  Value outBuf = allocResult(rewriter, loc, resultType);
  args.push_back(
      collapseTo(rewriter, loc, outBuf, {resultType.getNumElements()}));
  if (epilogue.amaxWords)
    args.push_back(epilogue.amaxWords);
  return outBuf;
}

Value gpu_lowering::getFloat8ScalesBuffer(RewriterBase &rewriter, Location loc,
                                          Value scales) {
  if (cast<RankedTensorType>(scales.getType()).getRank() == 0)
    return toBuffer(rewriter, loc, scales);
  return flatBuffer(rewriter, loc, scales);
}

SmallVector<PaddedOperand>
gpu_lowering::createPaddedOperands(RewriterBase &rewriter, Location loc,
                                   ArrayRef<PaddedOperandShape> shapes) {
  OpBuilder::InsertionGuard guard(rewriter);
  Block *block = rewriter.getInsertionBlock();
  SmallVector<PaddedOperand> operands(shapes.size());
  auto elementType = [&](const PaddedOperandShape &shape) {
    return shape.elementType ? shape.elementType : rewriter.getBF16Type();
  };
  rewriter.setInsertionPointToStart(block);
  for (auto [operand, shape] : llvm::zip_equal(operands, shapes))
    operand.buffer = memref::AllocOp::create(
        rewriter, loc,
        MemRefType::get({shape.rows * shape.rowElems}, elementType(shape)));
  // The maps after every allocation that leads the block (these included),
  // before the first other op.
  Operation *first = &block->front();
  while (isa<memref::AllocOp>(first))
    first = first->getNextNode();
  rewriter.setInsertionPoint(first);
  for (auto [operand, shape] : llvm::zip_equal(operands, shapes)) {
    Value view = memref::ExpandShapeOp::create(
        rewriter, loc,
        MemRefType::get({shape.rows, shape.rowElems}, elementType(shape)),
        operand.buffer, ArrayRef<ReassociationIndices>{{0, 1}});
    tma::TensorMapSpec spec;
    // 128 bytes per box row (the 128B swizzle span): 64 bf16 / f16, 128 fp8.
    spec.box = {shape.boxRows,
                128 / (elementType(shape).getIntOrFloatBitWidth() / 8)};
    spec.swizzle = tma::Swizzle::B128;
    operand.map = tma::createTensorMap(rewriter, loc, view, spec);
    tma::freeTensorMapAtBlockEnd(rewriter, loc, operand.map);
  }
  return operands;
}

void gpu_lowering::launchGemmKernel(
    RewriterBase &rewriter, Location loc, const KernelCache &cache,
    const GemmSpec &spec, ArrayRef<Value> args,
    function_ref<void(KernelBuilder &, ValueRange)> emitBody) {
  SmallVector<Type> argTypes =
      llvm::map_to_vector(args, [](Value v) { return v.getType(); });
  // Every argument is read only but the output, and the amax words after
  // it, which the atomics read and write.
  unsigned outputs = spec.amaxProducer ? 2 : 1;
  gpu::GPUFuncOp kernel = cache.getOrCreate(
      rewriter, spec.getName(), argTypes, args.size() - outputs, {},
      [&](KernelBuilder &kb, ValueRange kargs, ValueRange) {
        emitBody(kb, kargs);
      });
  if (spec.amaxProducer) {
    // (The parameter after the non-empty buffers: an empty one is none.)
    unsigned wordsParam = llvm::count_if(
        args.drop_back(), [](Value v) { return !isEmptyBuffer(v.getType()); });
    kernel.removeArgAttr(wordsParam, LLVM::LLVMDialect::getWriteOnlyAttrName());
    // Amax warps read the output back (coherent loads) after a tile
    // mbarrier (inline PTX without a memory clobber): neither writeonly
    // nor noalias, so that LLVM moves no access of it across the barriers.
    if (spec.amaxWarps) {
      kernel.removeArgAttr(wordsParam - 1,
                           LLVM::LLVMDialect::getWriteOnlyAttrName());
      kernel.removeArgAttr(wordsParam - 1,
                           LLVM::LLVMDialect::getNoAliasAttrName());
    }
  }
  const GPUTargetInfo &target = cache.getTarget();
  // Persistent grid; .minnctapersm where two CTAs per SM fit.
  int64_t ctasPerSM = spec.ctasPerSM;
  kernel->setAttr("nvvm.minctasm", rewriter.getI32IntegerAttr(ctasPerSM));
  kernel->setAttr("nvvm.maxntid", rewriter.getDenseI32ArrayAttr(
                                      {int32_t(spec.threads()), 1, 1}));
  kernel.setKnownBlockSizeAttr(
      rewriter.getDenseI32ArrayAttr({int32_t(spec.threads()), 1, 1}));
  int64_t group = spec.clusterSize();
  int64_t grid = group * std::min<int64_t>(spec.numTiles(),
                                           ctasPerSM * target.numSMs / group);
  auto c = [&](int64_t v) {
    return arith::ConstantIndexOp::create(rewriter, loc, v).getResult();
  };
  Value one = c(1);
  Value shared =
      arith::ConstantIntOp::create(rewriter, loc, spec.sharedBytes(), 32);
  std::optional<gpu::KernelDim3> cluster;
  if (group > 1) {
    // A cluster of `group` CTAs along x per tile: .reqnctapercluster in
    // the PTX, `clusters in` at the launch (cuLaunchKernelEx).
    kernel->setAttr(NVVM::NVVMDialect::getClusterDimAttrName(),
                    rewriter.getDenseI32ArrayAttr({int32_t(group), 1, 1}));
    cluster = gpu::KernelDim3{c(group), one, one};
  }
  gpu::LaunchFuncOp::create(rewriter, loc, kernel,
                            gpu::KernelDim3{c(grid), one, one},
                            gpu::KernelDim3{c(spec.threads()), one, one},
                            shared, args, Type(), ValueRange(), cluster);
}

void gpu_lowering::launchGemmAndReplace(
    RewriterBase &rewriter, Operation *op, const KernelCache &cache,
    const GemmSpec &spec, SmallVectorImpl<Value> &args, Value offs, Value bias,
    RankedTensorType resultType,
    function_ref<void(KernelBuilder &, ValueRange)> emitBody,
    const GemmEpilogueOperands &epilogue) {
  Location loc = op->getLoc();
  Value outBuf =
      appendGemmTailArgs(rewriter, loc, args, offs, bias, resultType, epilogue);
  launchGemmKernel(rewriter, loc, cache, spec, args, emitBody);
  replaceGemmResult(rewriter, op, toTensor(rewriter, loc, outBuf),
                    cache.getGemmSumFusion(), bool(epilogue.addend));
}
