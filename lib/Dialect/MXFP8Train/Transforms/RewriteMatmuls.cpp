//===- RewriteMatmuls.cpp - matmul -> quantize + scaled_mm ---------*- C++ -*-===//
//
// The mxfp8train-rewrite-matmuls pass (stub, being written).
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Dialect/MXFP8Train/Transforms/Passes.h"

namespace mlir::mxfp8train {
#define GEN_PASS_DEF_MXFP8TRAINREWRITEMATMULSPASS
#include "mxfp8train/Dialect/MXFP8Train/Transforms/Passes.h.inc"

namespace {
struct RewriteMatmulsPass final
    : impl::MXFP8TrainRewriteMatmulsPassBase<RewriteMatmulsPass> {
  using Base::Base;
  void runOnOperation() override {}
};
} // namespace
} // namespace mlir::mxfp8train
