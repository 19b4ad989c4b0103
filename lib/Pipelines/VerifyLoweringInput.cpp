//===- VerifyLoweringInput.cpp - mxfp8train-verify-lowering-input -*- C++ -*-=//
//
// The input contract of the CPU and GPU pipelines that no single lowering
// pass can state: checked first, reported at the offending op.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainOps.h"
#include "mxfp8train/Pipelines/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::mxfp8train {
#define GEN_PASS_DEF_MXFP8TRAINVERIFYLOWERINGINPUTPASS
#include "mxfp8train/Pipelines/Passes.h.inc"
} // namespace mlir::mxfp8train

using namespace mlir;
using namespace mlir::mxfp8train;

/// True for the Float8 form of an mxfp8train op (f32 scales).
static bool isFloat8Op(Operation *op) {
  return TypeSwitch<Operation *, bool>(op)
      .Case<QuantizeOp, DequantizeOp, ScaledMmOp, ScaledGroupedMmOp>(
          [](auto typed) { return typed.isFloat8(); })
      .Default(false);
}

namespace {
struct VerifyLoweringInputPass final
    : mxfp8train::impl::MXFP8TrainVerifyLoweringInputPassBase<
          VerifyLoweringInputPass> {
  using Base::Base;

  void runOnOperation() override {
    bool failedOps = false;
    getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (rejectFloat8 && isFloat8Op(op)) {
        op->emitError() << "'" << op->getName()
                        << "' with Float8 (f32) scales has no GPU lowering "
                           "yet; lower it with the CPU pipeline";
        failedOps = true;
        return WalkResult::advance();
      }
      if (op->isRegistered())
        return WalkResult::advance();
      op->emitError() << "'" << op->getName()
                      << "' is an op of an unregistered dialect; the "
                         "mxfp8train pipelines lower registered ops only";
      failedOps = true;
      // Its regions are opaque too.
      return WalkResult::skip();
    });
    if (failedOps)
      signalPassFailure();
  }
};
} // namespace
