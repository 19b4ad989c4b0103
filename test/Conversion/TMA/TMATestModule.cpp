//===- TMATestModule.cpp - a module using every TMA.h primitive -*- C++ -*-===//
//
// Prints a GPU module built with lib/Conversion/MXFP8TrainToGPU/TMA.h: the
// host function `tma_example(a: 256x512 fp8, scales: 2048 e8m0, out: 512
// i32)` creates the tensor map of `a` (128 x 128 boxes, 128-byte swizzle)
// and launches two CTAs of `tma_tile_and_chunk`, which initialise an
// mbarrier, expect 16384 + 512 bytes, load CTA b's 128-row box at K 0 with
// cp.async.bulk.tensor and its 512-byte scale chunk with cp.async.bulk,
// wait for the phase and store one word of each per thread. With `--main`
// a `main` allocates the three buffers and calls `tma_example` (for
// mlir-runner against the runtime's fake driver). The lit tests
// test/Target/PTX/tma.test (IR, PTX for both chips) and
// test/runtime/tma-fake-driver.test use it.
//
//===----------------------------------------------------------------------===//

#include "TMA.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::mxfp8train::gpu_lowering;

/// Bytes of the box and of the scale chunk, and the shared-memory layout:
/// box at 0 (1024-aligned), chunk at 16384, mbarrier at 16896.
constexpr int64_t kBoxBytes = 128 * 128;
constexpr int64_t kChunkBytes = 512;
constexpr int64_t kBarrierOffset = kBoxBytes + kChunkBytes;
constexpr int64_t kSharedBytes = kBarrierOffset + 8 + 1024;

static void buildKernelBody(ImplicitLocOpBuilder &b, Value map, Value scales,
                            Value out) {
  auto idx = [&](int64_t v) { return arith::ConstantIndexOp::create(b, v); };
  auto add = [&](Value x, Value y) { return arith::AddIOp::create(b, x, y); };
  auto wgSpace =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  Value raw = gpu::DynamicSharedMemoryOp::create(
      b, MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                         MemRefLayoutAttrInterface(), wgSpace));
  Value rawAddr = memref::ExtractAlignedPointerAsIndexOp::create(b, raw);
  // The 128B-swizzled box starts at a 1024-byte boundary.
  Value base = arith::AndIOp::create(b, add(rawAddr, idx(1023)), idx(~1023));
  Value box = tma::getSharedPointer(b, base);
  Value chunk = tma::getSharedPointer(b, add(base, idx(kBoxBytes)));
  Value mbar = tma::getSharedPointer(b, add(base, idx(kBarrierOffset)));
  Value tid = gpu::ThreadIdOp::create(b, gpu::Dimension::x);
  Value bid = gpu::BlockIdOp::create(b, gpu::Dimension::x);
  Value first = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, tid, idx(0));
  auto ifFirst = [&](function_ref<void()> body) {
    auto op = scf::IfOp::create(b, first, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPoint(op.thenBlock()->getTerminator());
    body();
  };
  ifFirst([&] {
    tma::initBarrier(b, mbar, 1);
    NVVM::FenceMbarrierInitOp::create(b);
  });
  gpu::BarrierOp::create(b);
  ifFirst([&] {
    tma::arriveExpectTx(
        b, mbar, arith::ConstantIntOp::create(b, kBoxBytes + kChunkBytes, 32));
    Value row = arith::IndexCastOp::create(
        b, b.getI32Type(), arith::MulIOp::create(b, bid, idx(128)));
    Value k0 = arith::ConstantIntOp::create(b, 0, 32);
    tma::loadTensorTile(b, box, map, mbar, ValueRange{k0, row});
    Value src = add(memref::ExtractAlignedPointerAsIndexOp::create(b, scales),
                    arith::MulIOp::create(b, bid, idx(kChunkBytes)));
    tma::loadBulk(b, chunk, tma::getGlobalPointer(b, src), mbar, kChunkBytes);
  });
  tma::waitBarrier(b, mbar, arith::ConstantIntOp::create(b, 0, 32));
  // Thread t reads word t of the box and word t % 128 of the chunk.
  Value boxWord = tma::getSharedPointer(
      b, add(base, arith::MulIOp::create(b, tid, idx(4))));
  Value chunkWord = tma::getSharedPointer(
      b, add(add(base, idx(kBoxBytes)),
             arith::MulIOp::create(
                 b, arith::RemUIOp::create(b, tid, idx(kChunkBytes / 4)),
                 idx(4))));
  Value x = LLVM::LoadOp::create(b, b.getI32Type(), boxWord);
  Value y = LLVM::LoadOp::create(b, b.getI32Type(), chunkWord);
  Value at = add(arith::MulIOp::create(b, bid, idx(256)), tid);
  memref::StoreOp::create(b, arith::XOrIOp::create(b, x, y), out, at);
}

int main(int argc, char **argv) {
  bool withMain = argc > 1 && llvm::StringRef(argv[1]) == "--main";
  MLIRContext ctx;
  ctx.loadDialect<arith::ArithDialect, func::FuncDialect, gpu::GPUDialect,
                  LLVM::LLVMDialect, memref::MemRefDialect, NVVM::NVVMDialect,
                  scf::SCFDialect>();
  Location loc = UnknownLoc::get(&ctx);
  IRRewriter rewriter(&ctx);
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  (*module)->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                     rewriter.getUnitAttr());
  rewriter.setInsertionPointToEnd(module->getBody());

  auto aType =
      MemRefType::get({256, 512}, rewriter.getType<Float8E4M3FNType>());
  auto sType = MemRefType::get({2048}, rewriter.getType<Float8E8M0FNUType>());
  auto outType = MemRefType::get({512}, rewriter.getI32Type());
  auto ptrType = LLVM::LLVMPointerType::get(&ctx);

  auto kernels = gpu::GPUModuleOp::create(rewriter, loc, "mxfp8train_kernels");
  rewriter.setInsertionPointToStart(kernels.getBody());
  auto kernel = gpu::GPUFuncOp::create(
      rewriter, loc, "tma_tile_and_chunk",
      rewriter.getFunctionType({ptrType, sType, outType}, {}));
  kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                  rewriter.getUnitAttr());
  kernel.setKnownBlockSizeAttr(rewriter.getDenseI32ArrayAttr({256, 1, 1}));
  {
    rewriter.setInsertionPointToStart(&kernel.getBody().front());
    ImplicitLocOpBuilder b(loc, rewriter);
    buildKernelBody(b, kernel.getArgument(0), kernel.getArgument(1),
                    kernel.getArgument(2));
    gpu::ReturnOp::create(b);
  }

  rewriter.setInsertionPointToEnd(module->getBody());
  auto host = func::FuncOp::create(
      rewriter, loc, "tma_example",
      rewriter.getFunctionType({aType, sType, outType}, {}));
  Block *entry = host.addEntryBlock();
  rewriter.setInsertionPointToStart(entry);
  auto ret = func::ReturnOp::create(rewriter, loc);
  rewriter.setInsertionPoint(ret);
  tma::TensorMapSpec spec;
  spec.box = {128, 128};
  spec.swizzle = tma::Swizzle::B128;
  Value map = tma::createTensorMap(rewriter, loc, entry->getArgument(0), spec);
  auto c = [&](int64_t v) {
    return arith::ConstantIndexOp::create(rewriter, loc, v).getResult();
  };
  gpu::LaunchFuncOp::create(
      rewriter, loc, kernel, gpu::KernelDim3{c(2), c(1), c(1)},
      gpu::KernelDim3{c(256), c(1), c(1)},
      arith::ConstantIntOp::create(rewriter, loc, kSharedBytes, 32),
      ValueRange{map, entry->getArgument(1), entry->getArgument(2)});
  tma::freeTensorMapAtBlockEnd(rewriter, loc, map);

  if (withMain) {
    rewriter.setInsertionPointToEnd(module->getBody());
    auto mainFunc = func::FuncOp::create(rewriter, loc, "main",
                                         rewriter.getFunctionType({}, {}));
    rewriter.setInsertionPointToStart(mainFunc.addEntryBlock());
    SmallVector<Value> buffers;
    for (MemRefType type : {aType, sType, outType})
      buffers.push_back(memref::AllocOp::create(rewriter, loc, type));
    func::CallOp::create(rewriter, loc, host, buffers);
    func::ReturnOp::create(rewriter, loc);
  }

  if (failed(verify(*module))) {
    llvm::errs() << "mxfp8train-tma-test-module: invalid module\n";
    return 1;
  }
  module->print(llvm::outs());
  llvm::outs() << "\n";
  return 0;
}
