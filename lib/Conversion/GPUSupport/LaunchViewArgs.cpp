//===- LaunchViewArgs.cpp - mxfp8train-gpu-launch-view-args -----*- C++ -*-===//
//
// A gpu.launch body that uses a memref whose layout has a dynamic offset or
// stride receives, after outlining, the view's base buffer and its
// metadata instead: bare-pointer kernel arguments carry neither (see the
// pass description in Passes.td).
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Conversion/Passes.h"

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

/// Whether a bare pointer cannot pass `type`: a layout with a dynamic
/// offset or stride (shapes are static in the GPU pipeline).
static bool needsMetadata(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref)
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(memref.getStridesAndOffset(strides, offset)))
    return false;
  return ShapedType::isDynamic(offset) ||
         llvm::any_of(strides, ShapedType::isDynamic);
}

/// The static entries of `type`'s shape or layout as attributes, the
/// dynamic ones as `values`.
static SmallVector<OpFoldResult> getMixed(OpBuilder &b, ArrayRef<int64_t> fixed,
                                          ValueRange values) {
  SmallVector<OpFoldResult> mixed;
  for (auto [size, value] : llvm::zip_equal(fixed, values))
    mixed.push_back(ShapedType::isDynamic(size)
                        ? OpFoldResult(value)
                        : OpFoldResult(b.getIndexAttr(size)));
  return mixed;
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
        SmallVector<int64_t> strides;
        int64_t offset;
        (void)type.getStridesAndOffset(strides, offset);
        rewriter.setInsertionPointToStart(&body.front());
        OpFoldResult mixedOffset =
            ShapedType::isDynamic(offset)
                ? OpFoldResult(metadata.getOffset())
                : OpFoldResult(rewriter.getIndexAttr(offset));
        SmallVector<OpFoldResult> sizes =
            getMixed(rewriter, type.getShape(), metadata.getSizes());
        SmallVector<OpFoldResult> mixedStrides =
            getMixed(rewriter, strides, metadata.getStrides());
        auto rebuilt = memref::ReinterpretCastOp::create(
            rewriter, loc, type, metadata.getBaseBuffer(), mixedOffset, sizes,
            mixedStrides);
        replaceAllUsesInRegionWith(view, rebuilt, body);
      }
    });
  }
};
} // namespace
