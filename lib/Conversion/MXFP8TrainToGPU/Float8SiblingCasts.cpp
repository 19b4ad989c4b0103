//===- Float8SiblingCasts.cpp - Float8 casts lowered together --*- C++ -*-===//
//
// The sibling groups of Float8SiblingCasts.h.
//
//===----------------------------------------------------------------------===//

#include "Float8SiblingCasts.h"
#include "FusedProducer.h"
#include "Gemm/Float8TransposeFusion.h"

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::gpu_lowering;

/// Whether the Float8 quantizes `a` and `b` can share the amax and cast
/// kernels of a sibling group (see getFloat8SiblingCasts): dense tensorwise
/// casts in one block, of the same input type into the same fp8 type with the
/// same pow2, writing the same K-major form (dense, no token groups) or
/// none.
static bool areSiblingCasts(QuantizeOp a, QuantizeOp b,
                            const Float8TransposeFusion *fusion) {
  auto isDenseTensorwise = [](QuantizeOp q) {
    return q.isFloat8() && !q.isPerGroup() &&
           *q.getGranularity() == Float8Granularity::Tensorwise &&
           hasStaticShapes(q);
  };
  if (!isDenseTensorwise(a) || !isDenseTensorwise(b) ||
      a->getBlock() != b->getBlock() ||
      a.getInput().getType() != b.getInput().getType() ||
      a.getData().getType() != b.getData().getType() ||
      a.getPow2() != b.getPow2())
    return false;
  const FusedTransposedOperand *ka =
      fusion ? fusion->getQuantizeOutput(a) : nullptr;
  const FusedTransposedOperand *kb =
      fusion ? fusion->getQuantizeOutput(b) : nullptr;
  if (!ka || !kb)
    return !ka && !kb;
  return !ka->form.d.groups && ka->form.d.getName() == kb->form.d.getName();
}

/// Casts in one sibling group at most: the K-major cast kernel holds a 16 KiB
/// shared tile per cast, 48 KiB (the static shared memory a kernel gets
/// without opting in) at three.
static constexpr int64_t kMaxSiblingCasts = 3;

SmallVector<QuantizeOp>
gpu_lowering::getFloat8SiblingCasts(QuantizeOp op, const KernelInput &input,
                                    const KernelCache &cache) {
  if (!cache.getFuseSiblingCasts() || !input.isFused() || input.isPadded())
    return {op};
  const Float8TransposeFusion *fusion = cache.getFloat8TransposeFusion();
  SmallVector<QuantizeOp> casts;
  Operation *producer = op.getInput().getDefiningOp();
  for (Value result : producer->getResults())
    for (Operation *user : result.getUsers())
      if (auto q = dyn_cast<QuantizeOp>(user);
          q && (q == op || areSiblingCasts(op, q, fusion)) &&
          !llvm::is_contained(casts, q))
        casts.push_back(q);
  if (casts.size() < 2)
    return {op};
  llvm::sort(casts,
             [](QuantizeOp a, QuantizeOp b) { return a->isBeforeInBlock(b); });
  // Groups of at most kMaxSiblingCasts consecutive casts.
  int64_t first = llvm::find(casts, op) - casts.begin();
  first -= first % kMaxSiblingCasts;
  int64_t count = std::min<int64_t>(kMaxSiblingCasts, casts.size() - first);
  if (count < 2)
    return {op};
  return SmallVector<QuantizeOp>(ArrayRef(casts).slice(first, count));
}
