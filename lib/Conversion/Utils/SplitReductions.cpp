//===- SplitReductions.cpp - reductions as partial results ---*- C++ -*-===//
//
// The schedule of SplitReductions.h on upstream linalg::splitReduction.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Conversion/Utils/SplitReductions.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"

using namespace mlir;
using namespace mlir::mxfp8train;

/// Threads the split aims at (parallel points x partial results): the
/// H200's 132 SMs x 2048 resident threads, rounded to a power of two (the
/// CPU uses the same schedule, for the same sums).
constexpr int64_t kTargetThreads = int64_t(1) << 18;
/// Elements each partial result sums at least (fewer: the launches and the
/// partial buffers cost more than the serial loop saves).
constexpr int64_t kMinPerThread = 16;
/// Reduction extents below this stay serial. Measured on an H100
/// (bench/README.md, "Session 31"): a (128 x 128) x 256 contraction on the
/// loop path took 0.075 ms serial (16384 threads of 256 steps) and 0.118
/// ms split into 16 partials (the extra kernels and the partial buffer);
/// 6144 elements to a scalar took 0.415 ms serial and 0.144 ms split.
constexpr int64_t kMinSplitExtent = 1024;

namespace {
/// The iteration space of a candidate: parallel points and reduction
/// extent (both static).
struct Extents {
  int64_t parallel = 1, reduction = 1;
};
} // namespace

static std::optional<Extents> getExtents(linalg::LinalgOp op) {
  Extents e;
  for (auto [range, type] :
       llvm::zip_equal(op.getStaticLoopRanges(), op.getIteratorTypesArray())) {
    if (ShapedType::isDynamic(range))
      return std::nullopt;
    (linalg::isReductionIterator(type) ? e.reduction : e.parallel) *= range;
  }
  return e;
}

/// The number S of partial results for `e` (1: do not split).
static int64_t getSplitRatio(const Extents &e) {
  if (e.reduction < kMinSplitExtent || e.parallel <= 0)
    return 1;
  int64_t limit =
      std::min(kTargetThreads / e.parallel, e.reduction / kMinPerThread);
  for (int64_t s = limit; s >= 2; --s)
    if (e.reduction % s == 0)
      return s;
  return 1;
}

/// Whether `op` is a host linalg op on tensors that the split applies to.
static bool isCandidate(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
      op->getNumResults() != 1 || op.getNumReductionLoops() == 0 ||
      op.hasIndexSemantics() ||
      isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op))
    return false;
  // The init indexed by the parallel loops, each once.
  AffineMap initMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  if (initMap.getNumResults() != op.getNumParallelLoops() ||
      !llvm::all_of(initMap.getResults(), [&](AffineExpr expr) {
        auto dim = dyn_cast<AffineDimExpr>(expr);
        return dim && linalg::isParallelIterator(iterators[dim.getPosition()]);
      }))
    return false;
  // Maps of loop dimensions only: upstream's split builds invalid maps from
  // a constant result (a keepdim output `(i, j) -> (i, 0)`).
  if (!llvm::all_of(op.getIndexingMapsArray(), [](AffineMap map) {
        return map.isProjectedPermutation(/*allowZeroInResults=*/false);
      }))
    return false;
  std::optional<Extents> e = getExtents(op);
  return e && getSplitRatio(*e) > 1;
}

/// The reduction loops of `op` as one group when every indexing map keeps
/// them contiguous (else empty).
static SmallVector<ReassociationIndices>
getReductionGroup(linalg::LinalgOp op) {
  SmallVector<unsigned> dims;
  op.getReductionDims(dims);
  ReassociationIndices group(dims.begin(), dims.end());
  for (size_t i = 1; i < group.size(); ++i)
    if (group[i] != group[i - 1] + 1)
      return {};
  if (!linalg::areDimSequencesPreserved(op.getIndexingMapsArray(), {group}))
    return {};
  return {group};
}

/// Splits `op` once (generalized and its reduction loops collapsed first
/// where needed); returns the op combining the partial results, or null
/// when `op` keeps its serial form.
static linalg::LinalgOp splitOnce(RewriterBase &rewriter, linalg::LinalgOp op) {
  // Only ops whose combiner is one op with a neutral element.
  SmallVector<Operation *, 4> combiners;
  if (!matchReduction(op.getRegionOutputArgs(), 0, combiners) ||
      combiners.size() != 1 || !arith::getNeutralElement(combiners[0]))
    return {};
  rewriter.setInsertionPoint(op);
  if (!isa<linalg::GenericOp>(op)) {
    FailureOr<linalg::GenericOp> generic =
        linalg::generalizeNamedOp(rewriter, op);
    if (failed(generic))
      return {};
    op = *generic;
  }
  if (op.getNumReductionLoops() > 1) {
    SmallVector<ReassociationIndices> group = getReductionGroup(op);
    if (group.empty())
      return {};
    FailureOr<linalg::CollapseResult> collapsed =
        linalg::collapseOpIterationDims(op, group, rewriter);
    if (failed(collapsed))
      return {};
    rewriter.replaceOp(op, collapsed->results);
    op = collapsed->collapsedOp;
  }
  std::optional<Extents> e = getExtents(op);
  if (!e)
    return {};
  int64_t ratio = getSplitRatio(*e);
  if (ratio <= 1)
    return {};
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::SplitReductionResult> split =
      linalg::splitReduction(rewriter, op, [&](linalg::LinalgOp) {
        linalg::SplitReductionOptions options;
        options.ratio = ratio;
        // The partial results' dimension first (it is the split's only new
        // parallel loop; its position in the partial buffer is free).
        options.index = 0;
        options.innerParallel = true;
        return options;
      });
  if (failed(split))
    return {};
  // The partials of a float sum start from -0.0, the identity of addf
  // (upstream fills +0.0: -0.0 + -0.0 summed from it gave +0.0).
  if (auto add = dyn_cast<arith::AddFOp>(combiners[0])) {
    linalg::FillOp fill = split->fillOp;
    const llvm::fltSemantics &semantics =
        cast<FloatType>(add.getType()).getFloatSemantics();
    rewriter.setInsertionPoint(fill);
    Value negZero = arith::ConstantOp::create(
        rewriter, fill.getLoc(),
        rewriter.getFloatAttr(add.getType(),
                              APFloat::getZero(semantics, /*Negative=*/true)));
    rewriter.modifyOpInPlace(
        fill, [&] { fill.getInputsMutable()[0].assign(negZero); });
  }
  return split->resultCombiningLinalgOp;
}

void mxfp8train::splitSerialReductions(Operation *root) {
  IRRewriter rewriter(root->getContext());
  SmallVector<linalg::LinalgOp> worklist;
  root->walk([&](Operation *op) {
    // Host code only; a linalg op in another's body is part of its loops.
    if (isa<gpu::GPUModuleOp>(op))
      return WalkResult::skip();
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
        linalgOp && isCandidate(linalgOp) &&
        !op->getParentOfType<linalg::LinalgOp>())
      worklist.push_back(linalgOp);
    return WalkResult::advance();
  });
  while (!worklist.empty()) {
    linalg::LinalgOp op = worklist.pop_back_val();
    if (linalg::LinalgOp combine = splitOnce(rewriter, op);
        combine && isCandidate(combine))
      worklist.push_back(combine);
  }
}
