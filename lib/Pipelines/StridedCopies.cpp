//===- StridedCopies.cpp - mxfp8train-strided-copies ------------*- C++ -*-===//
//
// Copies of a non-contiguous source or target become linalg.copy: before
// the GPU pipeline turns its linalg ops into kernels (gpu.memcpy copies
// contiguous bytes only, from identity-layout sources: `gpu-memcpy`), and
// before the CPU pipeline lowers linalg to loops (memref.copy of such views
// would call the memrefCopy runtime function, which nothing links).
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Conversion/GPUSupport/GPUSupport.h"
#include "mxfp8train/Pipelines/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::mxfp8train {
#define GEN_PASS_DEF_MXFP8TRAINSTRIDEDCOPIESPASS
#include "mxfp8train/Pipelines/Passes.h.inc"
} // namespace mlir::mxfp8train

using namespace mlir;
using namespace mlir::mxfp8train;

namespace {
struct StridedCopiesPass final
    : mxfp8train::impl::MXFP8TrainStridedCopiesPassBase<StridedCopiesPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp copy) {
      if (gpuMemcpy ? !isMemcpyCompatible(copy) : !isContiguousCopy(copy))
        copies.push_back(copy);
    });
    IRRewriter rewriter(&getContext());
    for (memref::CopyOp copy : copies) {
      rewriter.setInsertionPoint(copy);
      rewriter.replaceOpWithNewOp<linalg::CopyOp>(copy, copy.getSource(),
                                                  copy.getTarget());
    }
  }
};
} // namespace
