//===- TileParallelLoops.cpp - mxfp8train-gpu-tile-parallel-loops -*- C++ -*-=//
//
// The elementwise, broadcast, transpose, fill and reduction linalg ops of a
// training step reach the GPU through upstream passes only:
// convert-linalg-to-parallel-loops -> this tiling -> gpu-map-parallel-loops
// {mapping-policy=innermost-first} -> convert-parallel-loops-to-gpu ->
// gpu-kernel-outlining. This pass picks the tile sizes (upstream
// `scf::tileParallelLoop` does the tiling): 256 threads per CTA, along the
// innermost dimension first (coalesced accesses), then the next ones when
// the innermost extent is small.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Conversion/GPUSupport/GPUSupport.h"
#include "mxfp8train/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/Support/MathExtras.h"

#define DEBUG_TYPE "mxfp8train-gpu-tile-parallel-loops"

namespace mlir::mxfp8train {
#define GEN_PASS_DEF_MXFP8TRAINGPUTILEPARALLELLOOPSPASS
#include "mxfp8train/Conversion/Passes.h.inc"
} // namespace mlir::mxfp8train

using namespace mlir;
using namespace mlir::mxfp8train;

SmallVector<int64_t>
mlir::mxfp8train::getParallelLoopTileSizes(ArrayRef<int64_t> tripCounts,
                                           int64_t threads) {
  SmallVector<int64_t> sizes(tripCounts.size(), 1);
  int64_t left = threads;
  for (int64_t d = int64_t(tripCounts.size()) - 1; d >= 0 && left > 1; --d) {
    // Unknown trip counts take what is left.
    int64_t extent = tripCounts[d] > 0 ? tripCounts[d] : left;
    int64_t size = std::min<int64_t>(left, llvm::PowerOf2Ceil(extent));
    sizes[d] = size;
    left /= size;
  }
  return sizes;
}

namespace {
struct GPUTileParallelLoopsPass final
    : mxfp8train::impl::MXFP8TrainGPUTileParallelLoopsPassBase<
          GPUTileParallelLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<scf::ParallelOp> outermost;
    getOperation().walk([&](scf::ParallelOp op) {
      if (!op->getParentOfType<scf::ParallelOp>())
        outermost.push_back(op);
    });
    for (scf::ParallelOp op : outermost) {
      SmallVector<int64_t> tripCounts;
      for (auto [lb, ub, step] :
           llvm::zip(op.getLowerBound(), op.getUpperBound(), op.getStep())) {
        std::optional<int64_t> l = getConstantIntValue(lb),
                               u = getConstantIntValue(ub),
                               s = getConstantIntValue(step);
        tripCounts.push_back(l && u && s && *s > 0
                                 ? llvm::divideCeil(*u - *l, *s)
                                 : int64_t(-1));
      }
      (void)scf::tileParallelLoop(
          op, getParallelLoopTileSizes(tripCounts, kParallelLoopThreadsPerCTA),
          /*noMinMaxBounds=*/true);
    }
  }
};
} // namespace
