//===- CheckKernelTypes.cpp - mxfp8train-check-kernel-types ------*- C++
//-*-===//
//
// Arithmetic in GPU kernels on float types NVPTX cannot compute (f80, f128,
// tf32) is an error at the op, before the NVVM lowering: LLVM's NVPTX
// backend aborts the process on them ("unsupported library call
// operation") or the conversion fails without a location.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Pipelines/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/TypeUtilities.h"

namespace mlir::mxfp8train {
#define GEN_PASS_DEF_MXFP8TRAINCHECKKERNELTYPESPASS
#include "mxfp8train/Pipelines/Passes.h.inc"
} // namespace mlir::mxfp8train

using namespace mlir;
using namespace mlir::mxfp8train;

namespace {
/// Whether NVPTX has no arithmetic on elements of `type`.
bool isUncomputableOnNVPTX(Type type) {
  return isa<Float80Type, Float128Type, FloatTF32Type>(
      getElementTypeOrSelf(type));
}

struct CheckKernelTypesPass final
    : mxfp8train::impl::MXFP8TrainCheckKernelTypesPassBase<
          CheckKernelTypesPass> {
  void runOnOperation() override {
    bool failedOps = false;
    getOperation()->walk([&](Operation *op) {
      if (!isa_and_present<arith::ArithDialect, math::MathDialect>(
              op->getDialect()) ||
          isa<arith::ConstantOp, arith::SelectOp, arith::BitcastOp>(op))
        return;
      auto types =
          llvm::concat<const Type>(op->getOperandTypes(), op->getResultTypes());
      auto it = llvm::find_if(types, isUncomputableOnNVPTX);
      if (it == types.end())
        return;
      op->emitError() << "'" << op->getName() << "' on "
                      << getElementTypeOrSelf(*it)
                      << " in a GPU kernel: NVPTX has no f80, f128 or tf32 "
                         "arithmetic";
      failedOps = true;
    });
    if (failedOps)
      signalPassFailure();
  }
};
} // namespace
