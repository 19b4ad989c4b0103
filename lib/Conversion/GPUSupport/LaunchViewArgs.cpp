//===- LaunchViewArgs.cpp - mxfp8train-gpu-launch-view-args -----*- C++ -*-===//
//
// A gpu.launch body that uses a memref whose layout has a dynamic offset or
// stride receives, after outlining, the view's base buffer and its
// metadata instead: bare-pointer kernel arguments carry neither (see the
// pass description in Passes.td).
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Conversion/Passes.h"

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir::mxfp8train {
#define GEN_PASS_DEF_MXFP8TRAINGPULAUNCHVIEWARGSPASS
#include "mxfp8train/Conversion/Passes.h.inc"
} // namespace mlir::mxfp8train

using namespace mlir;
using namespace mlir::mxfp8train;

/// Whether a bare pointer cannot pass `type`: a memref whose layout has a
/// dynamic offset or stride (upstream's bare-pointer rule).
static bool needsMetadata(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  return memref && !LLVMTypeConverter::canConvertToBarePtr(memref);
}

namespace {
struct GPULaunchViewArgsPass final
    : mxfp8train::impl::MXFP8TrainGPULaunchViewArgsPassBase<
          GPULaunchViewArgsPass> {
  using Base::Base;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    getOperation().walk([&](gpu::LaunchOp launch) {
      Region &body = launch.getBody();
      SetVector<Value> captured;
      getUsedValuesDefinedAbove(body, captured);
      for (Value view : captured) {
        if (!needsMetadata(view.getType()))
          continue;
        auto type = cast<MemRefType>(view.getType());
        Location loc = view.getLoc();
        rewriter.setInsertionPoint(launch);
        auto metadata =
            memref::ExtractStridedMetadataOp::create(rewriter, loc, view);
        rewriter.setInsertionPointToStart(&body.front());
        // Static entries of the type as attributes, the others as the
        // metadata's values.
        auto rebuilt = memref::ReinterpretCastOp::create(
            rewriter, loc, type, metadata.getBaseBuffer(),
            metadata.getConstifiedMixedOffset(),
            metadata.getConstifiedMixedSizes(),
            metadata.getConstifiedMixedStrides());
        replaceAllUsesInRegionWith(view, rebuilt, body);
      }
    });
  }
};
} // namespace
