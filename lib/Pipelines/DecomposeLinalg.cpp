//===- DecomposeLinalg.cpp - mxfp8train-decompose-linalg --------*- C++ -*-===//
//
// Linalg and tensor ops without a bufferization or loop lowering of their
// own, replaced by linalg ops before the pipelines' conversions:
// AggregatedOpInterface ops (linalg.softmax) by decomposeOperation,
// linalg.pack / linalg.unpack by linalg::lowerPack / lowerUnPack (upstream's
// decompositions), tensor.bitcast by an elementwise arith.bitcast.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Pipelines/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::mxfp8train {
#define GEN_PASS_DEF_MXFP8TRAINDECOMPOSELINALGPASS
#include "mxfp8train/Pipelines/Passes.h.inc"
} // namespace mlir::mxfp8train

using namespace mlir;
using namespace mlir::mxfp8train;

namespace {
/// Replaces `op` by its decomposition; false (with an error at the op)
/// when upstream declines it.
static bool decompose(IRRewriter &rewriter, Operation *op) {
  rewriter.setInsertionPoint(op);
  if (auto pack = dyn_cast<linalg::PackOp>(op)) {
    if (succeeded(linalg::lowerPack(rewriter, pack)))
      return true;
  } else if (auto unpack = dyn_cast<linalg::UnPackOp>(op)) {
    if (succeeded(linalg::lowerUnPack(rewriter, unpack)))
      return true;
  } else if (auto bitcast = dyn_cast<tensor::BitcastOp>(op)) {
    // Element by element: arith.bitcast in an elementwise linalg.generic.
    auto type = cast<RankedTensorType>(bitcast.getType());
    Location loc = bitcast.getLoc();
    Value init = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                         type.getElementType());
    AffineMap identity = rewriter.getMultiDimIdentityMap(type.getRank());
    SmallVector<utils::IteratorType> parallel(type.getRank(),
                                              utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, type, bitcast.getSource(), init,
        ArrayRef<AffineMap>{identity, identity}, parallel,
        [&](OpBuilder &b, Location nested, ValueRange args) {
          Value cast = arith::BitcastOp::create(b, nested,
                                                type.getElementType(), args[0]);
          linalg::YieldOp::create(b, nested, cast);
        });
    rewriter.replaceOp(op, generic->getResults());
    return true;
  } else if (auto aggregate = dyn_cast<linalg::AggregatedOpInterface>(op)) {
    FailureOr<SmallVector<Value>> values =
        aggregate.decomposeOperation(rewriter);
    if (succeeded(values)) {
      rewriter.replaceOp(op, *values);
      return true;
    }
  }
  op->emitError() << "'" << op->getName()
                  << "' has no decomposition the mxfp8train pipelines can "
                     "lower (upstream declined it)";
  return false;
}

struct DecomposeLinalgPass
    : mxfp8train::impl::MXFP8TrainDecomposeLinalgPassBase<DecomposeLinalgPass> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (isa<linalg::PackOp, linalg::UnPackOp, linalg::AggregatedOpInterface>(
              op))
        ops.push_back(op);
      else if (auto bitcast = dyn_cast<tensor::BitcastOp>(op);
               bitcast && cast<ShapedType>(bitcast.getType()).hasStaticShape())
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    bool failedOps = false;
    for (Operation *op : ops)
      failedOps |= !decompose(rewriter, op);
    if (failedOps)
      signalPassFailure();
  }
};
} // namespace
