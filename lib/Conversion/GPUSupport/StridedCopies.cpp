//===- StridedCopies.cpp - mxfp8train-gpu-strided-copies --------*- C++ -*-===//
//
// Copies that gpu.memcpy cannot do (a non-contiguous source or target)
// become linalg.copy before the GPU pipeline turns its linalg ops into
// kernels (convert-linalg-to-parallel-loops and the upstream GPU mapping).
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Conversion/GPUSupport/GPUSupport.h"
#include "mxfp8train/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::mxfp8train {
#define GEN_PASS_DEF_MXFP8TRAINGPUSTRIDEDCOPIESPASS
#include "mxfp8train/Conversion/Passes.h.inc"
} // namespace mlir::mxfp8train

using namespace mlir;
using namespace mlir::mxfp8train;

bool mlir::mxfp8train::isMemcpyCompatible(memref::CopyOp copy) {
  return memref::isStaticShapeAndContiguousRowMajor(
             cast<MemRefType>(copy.getSource().getType())) &&
         memref::isStaticShapeAndContiguousRowMajor(
             cast<MemRefType>(copy.getTarget().getType()));
}

namespace {
struct GPUStridedCopiesPass final
    : mxfp8train::impl::MXFP8TrainGPUStridedCopiesPassBase<
          GPUStridedCopiesPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp copy) {
      if (!isMemcpyCompatible(copy))
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
