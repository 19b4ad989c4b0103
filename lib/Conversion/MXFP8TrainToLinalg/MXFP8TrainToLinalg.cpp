//===- MXFP8TrainToLinalg.cpp - CPU reference lowering -------------*- C++ -*-===//
//
// Lowers mxfp8train ops to linalg/arith/tensor (stub, being written).
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Conversion/MXFP8TrainToLinalg/MXFP8TrainToLinalg.h"
#include "mxfp8train/Conversion/Passes.h"
#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainOps.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir::mxfp8train {
#define GEN_PASS_DEF_CONVERTMXFP8TRAINTOLINALGPASS
#include "mxfp8train/Conversion/Passes.h.inc"

void populateMXFP8TrainToLinalgConversionPatterns(RewritePatternSet &patterns) {
}

namespace {
struct ConvertMXFP8TrainToLinalgPass final
    : impl::ConvertMXFP8TrainToLinalgPassBase<ConvertMXFP8TrainToLinalgPass> {
  using Base::Base;
  void runOnOperation() override {}
};
} // namespace
} // namespace mlir::mxfp8train
