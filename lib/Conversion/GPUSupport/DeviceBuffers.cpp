//===- DeviceBuffers.cpp - mxfp8train-gpu-device-buffers --------*- C++ -*-===//
//
// After bufferization the host functions of a GPU-lowered module only
// allocate, view, copy and free buffers and launch kernels on them. The
// caller passes device pointers for every argument and out-parameter, so
// every buffer the function allocates itself must be device memory too:
// memref.alloc/alloca -> gpu.alloc + gpu.dealloc at the end of the block,
// memref.dealloc -> gpu.dealloc, memref.copy -> gpu.memcpy, and a constant
// (memref.get_global of a host global) -> a device copy made at the
// get_global (gpu.alloc + gpu.memcpy from the global) and freed at the end
// of the block. A host memref.load of a one-element identity-layout buffer
// (a tensor.extract of a scalar: convert-mxfp8train-to-gpu copies the
// element of a larger tensor into such a buffer first) reads a host copy:
// gpu.memcpy into a stack slot made once at the function's entry, then the
// load (gpu-async-region makes the host wait for the copy before it). Other
// host ops that would dereference a buffer are reported.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Conversion/GPUSupport/GPUSupport.h"
#include "mxfp8train/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#define DEBUG_TYPE "mxfp8train-gpu-device-buffers"

namespace mlir::mxfp8train {
#define GEN_PASS_DEF_MXFP8TRAINGPUDEVICEBUFFERSPASS
#include "mxfp8train/Conversion/Passes.h.inc"
} // namespace mlir::mxfp8train

using namespace mlir;
using namespace mlir::mxfp8train;

bool mlir::mxfp8train::isContiguousCopy(memref::CopyOp copy) {
  return memref::isStaticShapeAndContiguousRowMajor(
             cast<MemRefType>(copy.getSource().getType())) &&
         memref::isStaticShapeAndContiguousRowMajor(
             cast<MemRefType>(copy.getTarget().getType()));
}

bool mlir::mxfp8train::isMemcpyCompatible(memref::CopyOp copy) {
  return isContiguousCopy(copy) &&
         cast<MemRefType>(copy.getSource().getType())
             .getLayout()
             .isIdentity() &&
         cast<MemRefType>(copy.getTarget().getType()).getLayout().isIdentity();
}

/// The terminator that passes `value` (or a view of it) out of its block,
/// i.e. makes the buffer outlive the block; null if none does.
static Operation *getEscapingTerminator(Value value) {
  for (Operation *user : value.getUsers()) {
    if (user->hasTrait<OpTrait::IsTerminator>())
      return user;
    if (auto view = dyn_cast<ViewLikeOpInterface>(user))
      if (view.getViewSource() == value)
        if (Operation *escape = getEscapingTerminator(view->getResult(0)))
          return escape;
  }
  return nullptr;
}

/// True for host ops that may legitimately see a device buffer: views,
/// allocation and copies (rewritten here), GPU ops, calls and returns.
static bool isBufferNeutral(Operation *op) {
  return isa<ViewLikeOpInterface, memref::AllocOp, memref::AllocaOp,
             memref::GetGlobalOp, memref::DeallocOp, memref::CopyOp,
             memref::ExtractStridedMetadataOp, memref::CastOp, func::CallOp>(
             op) ||
         op->hasTrait<OpTrait::IsTerminator>() ||
         // Control flow (scf.for iter_args): its body is checked op by op.
         op->hasTrait<OpTrait::HasRecursiveMemoryEffects>() ||
         isa_and_present<gpu::GPUDialect>(op->getDialect());
}

/// Whether `op` is a host read that a copy to the host serves: a
/// memref.load of a static identity-layout buffer of one element.
static bool isHostScalarRead(Operation *op) {
  auto load = dyn_cast<memref::LoadOp>(op);
  if (!load)
    return false;
  MemRefType type = load.getMemRefType();
  return type.hasStaticShape() && type.getNumElements() == 1 &&
         type.getLayout().isIdentity() && !type.getMemorySpace();
}

namespace {
struct GPUDeviceBuffersPass final
    : mxfp8train::impl::MXFP8TrainGPUDeviceBuffersPassBase<
          GPUDeviceBuffersPass> {
  using Base::Base;

  void runOnOperation() override {
    bool failed = false;
    IRRewriter rewriter(&getContext());
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      SmallVector<memref::LoadOp> hostReads;
      func.walk([&](Operation *op) {
        if (isBufferNeutral(op))
          return;
        if (isHostScalarRead(op)) {
          hostReads.push_back(cast<memref::LoadOp>(op));
          return;
        }
        auto touchesBuffer = [](Value v) {
          return isa<MemRefType>(v.getType());
        };
        if (llvm::any_of(op->getOperands(), touchesBuffer) &&
            !isMemoryEffectFree(op)) {
          op->emitError() << "'" << op->getName()
                          << "' would access device memory from the host; "
                             "the GPU pipeline lowers only the mxfp8train "
                             "ops that convert-mxfp8train-to-gpu supports";
          failed = true;
        }
      });
      SmallVector<Operation *> allocs;
      SmallVector<memref::GetGlobalOp> globals;
      func.walk([&](Operation *op) {
        if (isa<memref::AllocOp, memref::AllocaOp>(op))
          allocs.push_back(op);
        if (auto global = dyn_cast<memref::GetGlobalOp>(op))
          globals.push_back(global);
      });
      // Constants: kernels read device memory, so each use of a host
      // global reads a device copy of it.
      for (memref::GetGlobalOp global : globals) {
        auto type = cast<MemRefType>(global.getType());
        if (!type.hasStaticShape() || !type.getLayout().isIdentity()) {
          global->emitError() << "constant of type " << type
                              << " cannot be copied to the device (static "
                                 "identity-layout constants only)";
          failed = true;
          continue;
        }
        rewriter.setInsertionPointAfter(global);
        auto alloc = gpu::AllocOp::create(
            rewriter, global.getLoc(), type, /*asyncToken=*/Type(),
            /*asyncDependencies=*/ValueRange(), /*dynamicSizes=*/ValueRange(),
            /*symbolOperands=*/ValueRange());
        rewriter.replaceAllUsesWith(global.getResult(), alloc.getMemref());
        rewriter.setInsertionPointAfter(alloc);
        gpu::MemcpyOp::create(rewriter, global.getLoc(), /*asyncToken=*/Type(),
                              ValueRange(), alloc.getMemref(),
                              global.getResult());
        rewriter.setInsertionPoint(alloc->getBlock()->getTerminator());
        gpu::DeallocOp::create(rewriter, alloc.getLoc(), /*asyncToken=*/Type(),
                               ValueRange(), alloc.getMemref());
      }
      for (Operation *op : allocs) {
        Value buffer = op->getResult(0);
        auto type = cast<MemRefType>(buffer.getType());
        if (Operation *escape = getEscapingTerminator(buffer)) {
          InFlightDiagnostic diag = op->emitError();
          if (Operation *parent = escape->getParentOp();
              parent && !isa<func::FuncOp>(parent)) {
            diag << "this tensor is yielded out of '" << parent->getName()
                 << "': the GPU pipeline supports a tensor yielded out of a "
                    "region only where it updates a tensor of the region's "
                    "operands in place; compute it outside the region";
            diag.attachNote(escape->getLoc()) << "yielded here";
          } else {
            diag << "buffer escapes its block through '" << escape->getName()
                 << "'; run buffer-results-to-out-params before "
                    "mxfp8train-gpu-device-buffers";
          }
          failed = true;
          continue;
        }
        rewriter.setInsertionPoint(op);
        auto alloc = gpu::AllocOp::create(
            rewriter, op->getLoc(), type, /*asyncToken=*/Type(),
            /*asyncDependencies=*/ValueRange(), op->getOperands(),
            /*symbolOperands=*/ValueRange());
        bool freedByUser = llvm::any_of(buffer.getUsers(), [](Operation *u) {
          return isa<memref::DeallocOp>(u);
        });
        rewriter.replaceOp(op, alloc.getMemref());
        if (freedByUser)
          continue;
        // Freed at the end of the block; launches are ordered on one stream
        // (gpu-async-region), so the free follows the last use.
        rewriter.setInsertionPoint(alloc->getBlock()->getTerminator());
        gpu::DeallocOp::create(rewriter, alloc.getLoc(), /*asyncToken=*/Type(),
                               ValueRange(), alloc.getMemref());
      }
      func.walk([&](Operation *op) {
        rewriter.setInsertionPoint(op);
        if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
          rewriter.replaceOpWithNewOp<gpu::DeallocOp>(
              op, /*asyncToken=*/Type(), ValueRange(), dealloc.getMemref());
        } else if (auto copy = dyn_cast<memref::CopyOp>(op)) {
          if (!isMemcpyCompatible(copy)) {
            copy->emitError()
                << "copy between " << copy.getSource().getType() << " and "
                << copy.getTarget().getType()
                << " is not between contiguous identity-layout buffers, "
                   "which gpu.memcpy requires; run "
                   "mxfp8train-strided-copies{gpu-memcpy=true} first";
            failed = true;
            return;
          }
          rewriter.replaceOpWithNewOp<gpu::MemcpyOp>(
              op, /*asyncToken=*/Type(), ValueRange(), copy.getTarget(),
              copy.getSource());
        }
      });
      // Scalar reads: a stack slot per read, made at the entry (not in a
      // loop's body), after the allocations became device memory.
      for (memref::LoadOp load : hostReads) {
        MemRefType type = load.getMemRefType();
        rewriter.setInsertionPointToStart(&func.getBody().front());
        Value slot = memref::AllocaOp::create(rewriter, load.getLoc(), type);
        rewriter.setInsertionPoint(load);
        gpu::MemcpyOp::create(rewriter, load.getLoc(), /*asyncToken=*/Type(),
                              ValueRange(), slot, load.getMemRef());
        rewriter.modifyOpInPlace(load,
                                 [&] { load.getMemrefMutable().assign(slot); });
      }
    }
    if (failed)
      signalPassFailure();
  }
};
} // namespace
