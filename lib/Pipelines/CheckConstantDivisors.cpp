//===- CheckConstantDivisors.cpp - mxfp8train-check-constant-divisors -----===//
//
// An integer division or remainder by a constant zero (arith, a linalg
// body whose divisor input is a constant tensor, the LLVM dialect the CPU
// pipeline ends with) is an error at the op: undefined behaviour in MLIR's
// arith and LLVM, which LLVM folds to a silent value at compile time, where
// a zero divisor known only at run time traps (SIGFPE, an error of the
// call: Support/TrapGuard.h).
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Pipelines/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Matchers.h"

namespace mlir::mxfp8train {
#define GEN_PASS_DEF_MXFP8TRAINCHECKCONSTANTDIVISORSPASS
#include "mxfp8train/Pipelines/Passes.h.inc"
} // namespace mlir::mxfp8train

using namespace mlir;
using namespace mlir::mxfp8train;

namespace {
/// Whether `divisor` is a constant with a zero element (a vector division
/// with one zero lane is undefined as a whole).
bool hasConstantZero(Value divisor) {
  Attribute value;
  if (!matchPattern(divisor, m_Constant(&value)))
    return false;
  if (auto integer = dyn_cast<IntegerAttr>(value))
    return integer.getValue().isZero();
  if (auto dense = dyn_cast<DenseIntElementsAttr>(value))
    return llvm::any_of(dense.getValues<APInt>(),
                        [](const APInt &v) { return v.isZero(); });
  return false;
}

/// The location of `op` or of its closest ancestor that has a known one.
Location getKnownLoc(Operation *op) {
  for (Operation *at = op; at; at = at->getParentOp())
    if (!isa<UnknownLoc>(at->getLoc()))
      return at->getLoc();
  return op->getLoc();
}

/// Whether `op` divides integers (its divisor is operand 1).
bool isIntegerDivision(Operation *op) {
  return isa<arith::DivSIOp, arith::DivUIOp, arith::RemSIOp, arith::RemUIOp,
             arith::CeilDivSIOp, arith::CeilDivUIOp, arith::FloorDivSIOp,
             LLVM::SDivOp, LLVM::UDivOp, LLVM::SRemOp, LLVM::URemOp>(op);
}

/// Whether the divisor of `op` is a constant zero, or a linalg body's
/// argument whose input is a constant tensor with a zero element.
bool dividesByConstantZero(Operation *op) {
  Value divisor = op->getOperand(1);
  if (hasConstantZero(divisor))
    return true;
  auto arg = dyn_cast<BlockArgument>(divisor);
  auto linalgOp =
      arg ? dyn_cast<linalg::LinalgOp>(arg.getOwner()->getParentOp()) : nullptr;
  if (!linalgOp || arg.getOwner() != linalgOp.getBlock())
    return false;
  OpOperand *input = linalgOp.getMatchingOpOperand(arg);
  return input && linalgOp.isDpsInput(input) && hasConstantZero(input->get());
}

struct CheckConstantDivisorsPass final
    : mxfp8train::impl::MXFP8TrainCheckConstantDivisorsPassBase<
          CheckConstantDivisorsPass> {
  void runOnOperation() override {
    bool failed = false;
    getOperation()->walk([&](Operation *op) {
      if (!isIntegerDivision(op) || !dividesByConstantZero(op))
        return;
      emitError(getKnownLoc(op))
          << "an integer division or remainder by a constant zero ('"
          << op->getName()
          << "'): undefined behaviour in arith, which would give a silent "
             "value; a divisor that is zero only at run time ends the call "
             "with an error";
      failed = true;
    });
    if (failed)
      signalPassFailure();
  }
};
} // namespace
