//===- JoinStreams.cpp - mxfp8train-gpu-join-streams ------------*- C++ -*-===//
//
// gpu-async-region makes every run of GPU ops of a block one region on a
// new stream and synchronizes the host at its end whenever a host op with
// side effects follows. In the GPU pipeline those host ops are mostly the
// tensor-map encodings that the GEMM and TMA lowerings put before their
// launches (a stack array, stores into it, the runtime call): the host
// then waits for all preceding kernels before it launches the next, and
// the device idles for the wake-up, a stream creation and the launch. This
// pass joins such regions: the wait goes, the next region continues on the
// previous region's token (its stream), and the tensor maps' frees move
// after the block's final wait.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define DEBUG_TYPE "mxfp8train-gpu-join-streams"

namespace mlir::mxfp8train {
#define GEN_PASS_DEF_MXFP8TRAINGPUJOINSTREAMSPASS
#include "mxfp8train/Conversion/Passes.h.inc"
} // namespace mlir::mxfp8train

using namespace mlir;
using namespace mlir::mxfp8train;

/// The runtime functions (runtime/src/MgpuWrappers.cpp) whose calls the
/// pass understands.
static constexpr llvm::StringLiteral kEncodeFn =
    "mgpuTensorMapEncodeTiledMemref";
static constexpr llvm::StringLiteral kFreeFn = "mgpuMemFree";

/// True when `address` points into an `llvm.alloca` of the host function
/// (through GEPs): memory no kernel can see.
static bool isStackAddress(Value address) {
  while (auto gep = address.getDefiningOp<LLVM::GEPOp>())
    address = gep.getBase();
  return address.getDefiningOp<LLVM::AllocaOp>() != nullptr;
}

static bool isCallTo(Operation *op, StringRef callee) {
  auto call = dyn_cast<LLVM::CallOp>(op);
  return call && call.getCallee() == callee;
}

/// True for host ops that neither read nor write memory the device may
/// access, so that kernels may still run while the host executes them.
static bool isHostLocal(Operation *op) {
  if (op->getNumRegions() == 0 && isMemoryEffectFree(op))
    return true;
  if (isa<LLVM::AllocaOp>(op))
    return true;
  if (auto store = dyn_cast<LLVM::StoreOp>(op))
    return isStackAddress(store.getAddr());
  // The encoding reads the descriptor and box arrays on the stack and
  // writes a fresh (or cached, immutable) device copy of the map.
  if (isCallTo(op, kEncodeFn))
    return llvm::all_of(op->getOperands(), [](Value v) {
      return !isa<LLVM::LLVMPointerType>(v.getType()) || isStackAddress(v);
    });
  return false;
}

/// True for `mgpuMemFree` of a tensor map (a result of the encoding call).
static bool isTensorMapFree(Operation *op) {
  if (!isCallTo(op, kFreeFn) || op->getNumOperands() != 2)
    return false;
  Operation *producer = op->getOperand(0).getDefiningOp();
  return producer && isCallTo(producer, kEncodeFn);
}

/// A host synchronization that ends a region: `gpu.wait [%token]` with one
/// dependency and no result.
static gpu::WaitOp getRegionEnd(Operation *op) {
  auto wait = dyn_cast<gpu::WaitOp>(op);
  if (!wait || wait.getAsyncToken() || wait.getAsyncDependencies().size() != 1)
    return {};
  return wait;
}

/// The start of a region on a new stream: `%t = gpu.wait async`.
static gpu::WaitOp getRegionStart(Operation *op) {
  auto wait = dyn_cast<gpu::WaitOp>(op);
  if (!wait || !wait.getAsyncToken() || !wait.getAsyncDependencies().empty())
    return {};
  return wait;
}

/// Joins the regions of `block`.
static void joinRegions(Block &block) {
  Operation *terminator =
      block.mightHaveTerminator() ? block.getTerminator() : nullptr;
  // Frees may move before the terminator only when a final wait (the
  // last region's end, or no GPU op after it) comes right before it.
  Operation *last = terminator ? terminator->getPrevNode() : nullptr;
  bool canDeferFrees = last && getRegionEnd(last);

  gpu::WaitOp end;
  SmallVector<Operation *> frees;
  for (Operation &op : llvm::make_early_inc_range(block)) {
    if (&op == last)
      break;
    if (gpu::WaitOp wait = getRegionEnd(&op)) {
      end = wait;
      frees.clear();
      continue;
    }
    if (!end)
      continue;
    if (gpu::WaitOp start = getRegionStart(&op)) {
      start.getAsyncToken().replaceAllUsesWith(end.getAsyncDependencies()[0]);
      start.erase();
      end.erase();
      for (Operation *free : frees)
        free->moveBefore(terminator);
      end = {};
      frees.clear();
      continue;
    }
    if (isHostLocal(&op))
      continue;
    if (canDeferFrees && isTensorMapFree(&op)) {
      frees.push_back(&op);
      continue;
    }
    end = {};
    frees.clear();
  }
}

namespace {
struct GPUJoinStreamsPass
    : mxfp8train::impl::MXFP8TrainGPUJoinStreamsPassBase<GPUJoinStreamsPass> {
  void runOnOperation() override {
    getOperation()->walk([](Block *block) { joinRegions(*block); });
  }
};
} // namespace
