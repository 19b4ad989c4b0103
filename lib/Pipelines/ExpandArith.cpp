//===- ExpandArith.cpp - mxfp8train-expand-arith -----------------*- C++
//-*-===//
//
// Upstream's arith-expand for the CPU pipeline, less its expansion of
// arith.maximumf / minimumf: the ops stay for convert-arith-to-llvm, whose
// llvm.maximum / llvm.minimum order -0 below +0 as the ops define, where
// the compare-and-select expansion returned its second operand for equal
// ones (maximumf(+0, -0) = -0).
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Pipelines/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::mxfp8train {
#define GEN_PASS_DEF_MXFP8TRAINEXPANDARITHPASS
#include "mxfp8train/Pipelines/Passes.h.inc"
} // namespace mlir::mxfp8train

using namespace mlir;
using namespace mlir::mxfp8train;

namespace {
struct ExpandArithPass
    : public mxfp8train::impl::MXFP8TrainExpandArithPassBase<ExpandArithPass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    arith::populateArithExpandOpsPatterns(patterns);
    arith::populateExpandBFloat16Patterns(patterns);

    ConversionTarget target(*context);
    target.addLegalDialect<arith::ArithDialect, vector::VectorDialect>();
    // arith-expand's illegal ops but maximumf and minimumf.
    target.addIllegalOp<arith::CeilDivSIOp, arith::CeilDivUIOp,
                        arith::FloorDivSIOp, arith::MaxNumFOp, arith::MinNumFOp,
                        arith::ScalingExtFOp, arith::ScalingTruncFOp>();
    // bf16 <-> f32 conversions as bit operations (include-bf16).
    target.addDynamicallyLegalOp<arith::ExtFOp>([](arith::ExtFOp op) {
      return !(getElementTypeOrSelf(op.getIn().getType()).isBF16() &&
               getElementTypeOrSelf(op.getType()).isF32());
    });
    target.addDynamicallyLegalOp<arith::TruncFOp>([](arith::TruncFOp op) {
      return !(getElementTypeOrSelf(op.getIn().getType()).isF32() &&
               getElementTypeOrSelf(op.getType()).isBF16());
    });
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
