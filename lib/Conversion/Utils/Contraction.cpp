//===- Contraction.cpp - the linalg contractions the GEMMs compute -------===//
//
// See Contraction.h.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Conversion/Utils/Contraction.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

using namespace mlir;
using namespace mlir::mxfp8train;

/// Whether the body of `op` (a contraction) is a multiply-accumulate as
/// Contraction.h describes: linalg's own for named ops, exactly
/// `out + x * y` (operands at most widened by extf) for a linalg.generic.
static bool hasMultiplyAccumulateBody(linalg::LinalgOp op) {
  if (!isa<linalg::GenericOp>(op.getOperation()))
    return true;
  Block *body = op.getBlock();
  if (body->getNumArguments() != 3)
    return false;
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  if (yield.getNumOperands() != 1)
    return false;
  auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add)
    return false;
  BlockArgument out = body->getArgument(2);
  Value product = add.getLhs() == out   ? add.getRhs()
                  : add.getRhs() == out ? add.getLhs()
                                        : Value();
  auto mul = product ? product.getDefiningOp<arith::MulFOp>() : nullptr;
  if (!mul)
    return false;
  auto source = [](Value v) -> Value {
    if (auto ext = v.getDefiningOp<arith::ExtFOp>())
      return ext.getIn();
    return v;
  };
  Value x = source(mul.getLhs()), y = source(mul.getRhs());
  BlockArgument a = body->getArgument(0), b = body->getArgument(1);
  // Nothing else in the body: at most two extf, the mul, the add, the yield.
  size_t casts = (x != mul.getLhs()) + (y != mul.getRhs());
  return ((x == a && y == b) || (x == b && y == a)) &&
         body->getOperations().size() == 3 + casts;
}

FailureOr<linalg::ContractionDimensions>
mxfp8train::matchGemmContraction(linalg::LinalgOp op, std::string *why) {
  auto fail = [&](const char *reason) {
    if (why)
      *why = reason;
    return failure();
  };
  if (!op.hasPureTensorSemantics() || op->getNumResults() != 1 ||
      op.getNumDpsInputs() != 2 || !linalg::isaContractionOpInterface(op))
    return fail("not a tensor contraction");
  if (!hasMultiplyAccumulateBody(op))
    return fail("a body other than out + x * y (left to the loop path)");
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->m.size() != 1 || dims->n.size() != 1 ||
      dims->k.size() != 1 || dims->batch.size() > 1)
    return fail("not one M, N, K (and batch)");
  return dims;
}
