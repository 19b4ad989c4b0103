//===- VerifyLoweringInput.cpp - mxfp8train-verify-lowering-input ---------===//
//
// The input contract of the CPU and GPU pipelines that no single lowering
// pass can state: checked first, reported at the offending op.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainOps.h"
#include "mxfp8train/Pipelines/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::mxfp8train {
#define GEN_PASS_DEF_MXFP8TRAINVERIFYLOWERINGINPUTPASS
#include "mxfp8train/Pipelines/Passes.h.inc"
} // namespace mlir::mxfp8train

using namespace mlir;
using namespace mlir::mxfp8train;

namespace {
/// An error at `op` for its first dynamically shaped operand or result.
LogicalResult checkStaticShapes(Operation *op) {
  // Tensors and memrefs, unranked ones included (host code: the device
  // code of an input gpu.module is not checked).
  auto isDynamic = [](Type t) {
    auto shaped = dyn_cast<ShapedType>(t);
    return shaped && isa<TensorType, BaseMemRefType>(t) &&
           !shaped.hasStaticShape();
  };
  auto report = [&](StringRef what, unsigned i, Type t) {
    op->emitError() << "'" << op->getName() << "' has a dynamically shaped "
                    << what << " #" << i << " of type " << t
                    << "; the GPU pipeline lowers static shapes only";
    return failure();
  };
  for (auto [i, v] : llvm::enumerate(op->getOperands()))
    if (isDynamic(v.getType()))
      return report("operand", i, v.getType());
  for (auto [i, v] : llvm::enumerate(op->getResults()))
    if (isDynamic(v.getType()))
      return report("result", i, v.getType());
  return success();
}

struct VerifyLoweringInputPass final
    : mxfp8train::impl::MXFP8TrainVerifyLoweringInputPassBase<
          VerifyLoweringInputPass> {
  using Base::Base;

  void runOnOperation() override {
    bool failedOps = false;
    getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      // Annotations that no partition consumed (bufferization would only
      // say "op was not bufferized").
      if (isa<shard::ShardOp, shard::ShardingOp>(op)) {
        op->emitError() << "'" << op->getName()
                        << "': the module is annotated for sharding but not "
                           "partitioned; run sharding-propagation and "
                           "shard-partition first (docs/sharding.md), or "
                           "remove the annotations";
        failedOps = true;
        return WalkResult::advance();
      }
      if (op->isRegistered()) {
        // Device code the input brings (a gpu.module) is the user's own,
        // dynamic shared memory included.
        if (staticShapes && !op->getParentOfType<gpu::GPUModuleOp>() &&
            failed(checkStaticShapes(op)))
          failedOps = true;
        // Tensors whose byte size overflows int64 (linalg's verifiers take
        // them; the lowerings' sizes would wrap: 2^80 elements compiled
        // into kernels of none). The mxfp8train ops check this themselves.
        if (!isa_and_present<MXFP8TrainDialect>(op->getDialect()) &&
            !op->getParentOfType<gpu::GPUModuleOp>() &&
            failed(verifyTensorByteSizes(op)))
          failedOps = true;
        return WalkResult::advance();
      }
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
