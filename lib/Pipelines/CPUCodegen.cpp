//===- CPUCodegen.cpp - CPU code generation passes ------------------------===//
//
// The CPU code generation passes of the CPU lowering pipeline: canonical f32
// matmuls, long reductions as partial sums (the GPU's schedule), tiling and
// vectorization with upstream linalg transforms, and the lowering of n-D
// vector ops.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Conversion/Utils/Contraction.h"
#include "mxfp8train/Conversion/Utils/SplitReductions.h"
#include "mxfp8train/Pipelines/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/TypeSwitch.h"

#define DEBUG_TYPE "mxfp8train-cpu-codegen"

namespace mlir::mxfp8train {
#define GEN_PASS_DEF_MXFP8TRAINCPUPREPAREMATMULSPASS
#define GEN_PASS_DEF_MXFP8TRAINCPUSPLITREDUCTIONSPASS
#define GEN_PASS_DEF_MXFP8TRAINCPUTILEANDVECTORIZEPASS
#define GEN_PASS_DEF_MXFP8TRAINCPULOWERVECTORSPASS
#include "mxfp8train/Pipelines/Passes.h.inc"
} // namespace mlir::mxfp8train

using namespace mlir;
using namespace mlir::mxfp8train;

/// Emits a linalg.generic that converts `source` (read through `readMap`
/// over `numLoops` loops, of which `keep` are the output's dims in order) to
/// a fresh tensor of element type `elemType`.
static Value convertThroughGeneric(OpBuilder &b, Location loc, Value source,
                                   AffineMap readMap, ArrayRef<unsigned> keep,
                                   Type elemType) {
  MLIRContext *ctx = b.getContext();
  unsigned numLoops = readMap.getNumDims();
  // Compress the loop space to the kept dims, in output order.
  llvm::SmallBitVector unused(numLoops, true);
  for (unsigned d : keep)
    unused.reset(d);
  AffineMap compressedRead = compressDims(readMap, unused);
  SmallVector<unsigned> order;
  for (unsigned d = 0; d < numLoops; ++d)
    if (!unused.test(d))
      order.push_back(d);
  // Position of each kept dim inside the compressed loop space.
  SmallVector<AffineExpr> outExprs;
  for (unsigned d : keep)
    outExprs.push_back(getAffineDimExpr(
        std::distance(order.begin(), llvm::find(order, d)), ctx));
  AffineMap writeMap = AffineMap::get(keep.size(), 0, outExprs, ctx);

  auto srcType = cast<RankedTensorType>(source.getType());
  SmallVector<int64_t> shape(keep.size());
  for (auto [i, e] : llvm::enumerate(compressedRead.getResults()))
    for (auto [j, oe] : llvm::enumerate(outExprs))
      if (e == oe)
        shape[j] = srcType.getDimSize(i);
  Value init = tensor::EmptyOp::create(b, loc, shape, elemType);
  SmallVector<utils::IteratorType> iters(keep.size(),
                                         utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, init.getType(), ValueRange{source}, ValueRange{init},
      ArrayRef<AffineMap>{compressedRead, writeMap}, iters,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value v = args[0];
        if (v.getType() != elemType) {
          if (v.getType().getIntOrFloatBitWidth() <
              elemType.getIntOrFloatBitWidth())
            v = arith::ExtFOp::create(nb, nloc, elemType, v);
          else
            v = arith::TruncFOp::create(nb, nloc, elemType, v);
        }
        linalg::YieldOp::create(nb, nloc, v);
      });
  return generic.getResult(0);
}

namespace {

/// Whether `op` (a linalg.matmul or batch_matmul) has the default indexing
/// maps and operands of one kind, all floats or all integers.
bool isCanonicalNamedMatmul(linalg::LinalgOp op) {
  bool defaultMaps =
      TypeSwitch<Operation *, bool>(op.getOperation())
          .Case<linalg::MatmulOp, linalg::BatchMatmulOp>(
              [](auto named) { return !named.hasUserDefinedMaps(); })
          .Default(false);
  if (!defaultMaps)
    return false;
  auto isFloat = [](Value v) {
    return isa<FloatType>(getElementTypeOrSelf(v.getType()));
  };
  return llvm::all_of(op->getOperands(), isFloat) ||
         llvm::none_of(op->getOperands(), isFloat);
}

//===----------------------------------------------------------------------===//
// mxfp8train-cpu-prepare-matmuls
//===----------------------------------------------------------------------===//

struct CPUPrepareMatmulsPass final
    : mxfp8train::impl::MXFP8TrainCPUPrepareMatmulsPassBase<
          CPUPrepareMatmulsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> matmuls;
    getOperation().walk([&](linalg::LinalgOp op) {
      // The contractions the GPU GEMM kernels take too (Contraction.h).
      if (succeeded(matchGemmContraction(op)) && !op.hasDynamicShape())
        matmuls.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : matmuls)
      prepare(rewriter, op);
  }

  /// Rewrites `op` into an f32 (f64 for an f64 accumulator) matmul with
  /// canonical maps, unless it already is one.
  void prepare(IRRewriter &rewriter, linalg::LinalgOp op) {
    FailureOr<linalg::ContractionDimensions> dims = matchGemmContraction(op);
    if (failed(dims))
      return;
    // linalg.matmul casts both operands to the accumulator's type: an f64
    // accumulator computes in f64, every narrower one in f32 (exact for
    // bf16 / f16 operands; an f64 operand of an f32 matmul is truncated,
    // as linalg's body does). A bf16 / f16 accumulator therefore sums in
    // f32 and rounds once, as torch's bf16 matmul and the GPU kernels do,
    // not at every step as linalg's body reads (Passes.td).
    Type initElem =
        cast<RankedTensorType>(op.getDpsInits()[0].getType()).getElementType();
    Type computeType = rewriter.getF32Type();
    if (auto initFloat = dyn_cast<FloatType>(initElem);
        initFloat && initFloat.getWidth() > 32)
      computeType = initFloat;
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    SmallVector<unsigned> batch(dims->batch.begin(), dims->batch.end());
    SmallVector<unsigned> lhsDims = batch, rhsDims = batch, outDims = batch;
    lhsDims.append({dims->m[0], dims->k[0]});
    rhsDims.append({dims->k[0], dims->n[0]});
    outDims.append({dims->m[0], dims->n[0]});
    auto isCanonical = [&](AffineMap map, ArrayRef<unsigned> want) {
      if (map.getNumResults() != want.size())
        return false;
      for (auto [e, d] : llvm::zip(map.getResults(), want))
        if (e != getAffineDimExpr(d, op.getContext()))
          return false;
      return true;
    };
    Value lhs = op.getDpsInputs()[0], rhs = op.getDpsInputs()[1];
    Value init = op.getDpsInits()[0];
    auto elemOf = [](Value v) {
      return cast<RankedTensorType>(v.getType()).getElementType();
    };
    bool lhsOk = elemOf(lhs) == computeType && isCanonical(maps[0], lhsDims);
    bool rhsOk = elemOf(rhs) == computeType && isCanonical(maps[1], rhsDims);
    bool outOk = elemOf(init) == computeType && isCanonical(maps[2], outDims);
    if (lhsOk && rhsOk && outOk && !op->hasAttr("indexing_maps"))
      return;
    if (!isa<FloatType>(elemOf(lhs)) || !isa<FloatType>(elemOf(rhs)) ||
        !isa<FloatType>(elemOf(init)))
      return;
    // Matmuls whose body is not a plain multiply-accumulate (e.g. with a
    // cast attribute) keep their form.
    rewriter.setInsertionPoint(op);
    Location loc = op.getLoc();
    Value newLhs = lhsOk ? lhs
                         : convertThroughGeneric(rewriter, loc, lhs, maps[0],
                                                 lhsDims, computeType);
    Value newRhs = rhsOk ? rhs
                         : convertThroughGeneric(rewriter, loc, rhs, maps[1],
                                                 rhsDims, computeType);
    Value newInit = outOk ? init
                          : convertThroughGeneric(rewriter, loc, init, maps[2],
                                                  outDims, computeType);
    Value product;
    if (batch.empty())
      product =
          linalg::MatmulOp::create(rewriter, loc, ValueRange{newLhs, newRhs},
                                   ValueRange{newInit})
              .getResult(0);
    else
      product = linalg::BatchMatmulOp::create(rewriter, loc,
                                              ValueRange{newLhs, newRhs},
                                              ValueRange{newInit})
                    .getResult(0);
    Value result = product;
    if (!outOk) {
      // Back to the original accumulator type and orientation: read the
      // canonical result through the inverse of the original output map.
      auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
      unsigned rank = outDims.size();
      SmallVector<AffineExpr> exprs;
      for (AffineExpr e : maps[2].getResults()) {
        unsigned d = cast<AffineDimExpr>(e).getPosition();
        exprs.push_back(getAffineDimExpr(
            std::distance(outDims.begin(), llvm::find(outDims, d)),
            op.getContext()));
      }
      AffineMap readMap =
          AffineMap::getMultiDimIdentityMap(rank, op.getContext());
      AffineMap writeMap = AffineMap::get(rank, 0, exprs, op.getContext());
      Value empty = tensor::EmptyOp::create(
          rewriter, loc, resultType.getShape(), resultType.getElementType());
      SmallVector<utils::IteratorType> iters(rank,
                                             utils::IteratorType::parallel);
      Type outElem = resultType.getElementType();
      result =
          linalg::GenericOp::create(
              rewriter, loc, resultType, ValueRange{product}, ValueRange{empty},
              ArrayRef<AffineMap>{readMap, writeMap}, iters,
              [&](OpBuilder &nb, Location nloc, ValueRange args) {
                Value v = args[0];
                if (v.getType() != outElem)
                  v = arith::TruncFOp::create(nb, nloc, outElem, v);
                linalg::YieldOp::create(nb, nloc, v);
              })
              .getResult(0);
    }
    rewriter.replaceOp(op, result);
  }
};

//===----------------------------------------------------------------------===//
// mxfp8train-cpu-split-reductions
//===----------------------------------------------------------------------===//

struct CPUSplitReductionsPass final
    : mxfp8train::impl::MXFP8TrainCPUSplitReductionsPassBase<
          CPUSplitReductionsPass> {
  void runOnOperation() override {
    // (The named GEMMs, canonical after cpu-prepare-matmuls, stay whole:
    // the schedule leaves them to the GEMM lowerings of both devices.)
    splitSerialReductions(getOperation());
  }
};

//===----------------------------------------------------------------------===//
// mxfp8train-cpu-tile-and-vectorize
//===----------------------------------------------------------------------===//

/// Register tile of an f32 matmul (M x N x K) and the loop order N, K, M so
/// that each B tile is reused by all M tiles while it sits in L1. Each tile
/// becomes one straight-line block of M x K outer products; LLVM's
/// instruction scheduling is superlinear in a block's size, so K stays
/// short: K = 64 took 1.5 s of JIT time per GEMM (10.5 s for the 4-GEMM
/// step of test/tools/mxfp8-launch/step-bars.mlir), K = 8 takes 0.2 s (1.7 s
/// for that step) and runs a 2048^3 GEMM as fast.
constexpr int64_t kTileM = 8, kTileN = 32, kTileK = 8;
/// Innermost tile of elementwise and reduction generics.
constexpr int64_t kTileInner = 16;
/// Second-innermost tile of elementwise generics. A tile is one
/// straight-line block too, and the bf16 and fp8 conversions expand to tens
/// of integer ops per element without native instructions: 8 x 64 tiles
/// spent 43 s of JIT time on examples/mlp_train_step_small.mlir, 4 x 16
/// tiles 1.9 s (the same bits: elementwise code in any tiling).
constexpr int64_t kTileOuter = 4;

/// The largest divisor of `n` that is at most `bound` (at least 1).
static int64_t largestDivisorAtMost(int64_t n, int64_t bound) {
  for (int64_t d = std::min(n, bound); d > 1; --d)
    if (n % d == 0)
      return d;
  return 1;
}

/// Reductions longer than this (product of the reduction loops' extents)
/// are tiled (isLongReduction). A whole reduction of a few hundred elements
/// unrolls into one straight-line block: at 1024, the Float8 MoE step's
/// per-row and per-column amax made its CPU run take 25 s (JIT), at 64 it
/// takes 5.6 s with the same bytes out; a sum over a 64 x 96 tensor took
/// 4 s to compile and one over 4096 x 64 did not finish in 10 minutes.
constexpr int64_t kMaxWholeReduction = 64;

/// The elements `op` reduces per output element (1: no reduction).
static int64_t getReductionExtent(linalg::LinalgOp op,
                                  ArrayRef<int64_t> ranges) {
  int64_t extent = 1;
  for (auto [iter, range] : llvm::zip(op.getIteratorTypesArray(), ranges))
    if (iter == utils::IteratorType::reduction)
      extent *= range;
  return extent;
}

/// Whether `op` reduces more than kMaxWholeReduction elements per output
/// element.
static bool isLongReduction(linalg::LinalgOp op, ArrayRef<int64_t> ranges) {
  return getReductionExtent(op, ranges) > kMaxWholeReduction;
}

struct CPUTileAndVectorizePass final
    : mxfp8train::impl::MXFP8TrainCPUTileAndVectorizePassBase<
          CPUTileAndVectorizePass> {
  using Base::Base;

  void runOnOperation() override {
    fuseElementwise();
    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op.hasPureTensorSemantics() && !op.hasDynamicShape())
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : ops)
      tileAndVectorize(rewriter, op);

    RewritePatternSet patterns(&getContext());
    vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
    vector::populateVectorReductionToContractPatterns(patterns);
    linalg::populateLinalgTilingCanonicalizationPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }

  /// Fuses producer/consumer pairs of all-parallel generics (elementwise
  /// chains), never into or out of a contraction or reduction, so that
  /// matmuls keep their canonical form and block reductions stay separate.
  void fuseElementwise() {
    RewritePatternSet patterns(&getContext());
    auto allParallel = [](Operation *op) {
      auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
      return generic && generic.getNumLoops() == generic.getNumParallelLoops();
    };
    linalg::populateElementwiseOpsFusionPatterns(
        patterns, [&](OpOperand *operand) {
          return allParallel(operand->get().getDefiningOp()) &&
                 allParallel(operand->getOwner());
        });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }

  void tileAndVectorize(IRRewriter &rewriter, linalg::LinalgOp op) {
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    // An op with an empty iteration space does no work: tiling it would ask
    // for a zero tile size. It stays whole and lowers to zero-trip loops.
    if (llvm::is_contained(ranges, 0))
      return;
    // i1 tensors stay scalar: a vector of i1 is stored as packed bits, while
    // the scalar loads and stores of other ops take a byte per element (an
    // any-reduction of a comparison's vectorized result read wrong bits).
    if (llvm::any_of(op->getOperands(), [](Value v) {
          return getElementTypeOrSelf(v.getType()).isInteger(1);
        }))
      return;
    // So do bodies with math.fpowi: vectorized, its exponent becomes a
    // vector, which llvm.intr.powi does not take (invalid IR).
    if (!op->getRegion(0).getOps<math::FPowIOp>().empty())
      return;
    // Named matmuls the vector contraction lowering does not take stay
    // scalar: maps other than the default ones (a batch_matmul with a
    // broadcast operand left its vector.contract unlowered) and operands
    // that are not all floats or all integers (i8 x i8 -> f32: the
    // contraction cast the i8 vectors with arith.extf). The canonical f32
    // matmuls of mxfp8train-cpu-prepare-matmuls are neither.
    if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op) &&
        !isCanonicalNamedMatmul(op))
      return;
    SmallVector<int64_t> tiles, interchange;
    bool isMatmul = false;
    if (isa<linalg::MatmulOp>(op) && op.getNumLoops() == 3) {
      tiles = {kTileM, kTileN, kTileK};
      interchange = {1, 2, 0};
      isMatmul = true;
    } else if (isa<linalg::BatchMatmulOp>(op) && op.getNumLoops() == 4) {
      tiles = {1, kTileM, kTileN, kTileK};
      interchange = {0, 2, 3, 1};
      isMatmul = true;
    } else if (isa<linalg::GenericOp, linalg::FillOp, linalg::TransposeOp,
                   linalg::CopyOp, linalg::BroadcastOp>(op)) {
      unsigned n = op.getNumLoops();
      if (n == 0)
        return;
      // Keep reductions whole (they are short block reductions); tile the
      // innermost parallel loop to a vector and the rest to 1.
      SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
      tiles.assign(n, 1);
      int64_t innermostParallel = -1;
      for (unsigned d = 0; d < n; ++d) {
        if (iters[d] == utils::IteratorType::reduction)
          tiles[d] = 0;
        else
          innermostParallel = d;
      }
      bool hasReduction = llvm::is_contained(tiles, 0);
      if (hasReduction && isLongReduction(op, ranges)) {
        // A long reduction (Float8 amax over a row, a column or the whole
        // tensor; a loss or a norm summed to a scalar) is tiled along its
        // innermost reduction loop to a vector and to 1 along the others,
        // the running value carried through the output: kept whole it
        // would vectorize to one vector of the whole extent, which LLVM
        // unrolls (minutes of compile time for a 48x64 tensorwise cast).
        // The order of the elements is the loops' either way: each tile's
        // vector.multi_reduction starts from the running value and, without
        // reassociation flags, adds its lanes in order (a max is exact in
        // any order). Where the innermost loop is parallel (the partial
        // results of a split reduction, column sums) it is the vector
        // instead, each lane its own running value, and the reduction
        // loops step by one.
        if (iters[n - 1] == utils::IteratorType::parallel) {
          for (unsigned d = 0; d < n; ++d)
            if (iters[d] == utils::IteratorType::reduction)
              tiles[d] = 1;
          tiles[n - 1] = std::min<int64_t>(ranges[n - 1], kTileInner);
        } else {
          for (int64_t d = n - 1, inner = 1; d >= 0; --d) {
            if (iters[d] != utils::IteratorType::reduction)
              continue;
            tiles[d] = inner ? std::min<int64_t>(ranges[d], kTileInner) : 1;
            inner = 0;
          }
        }
      }
      // A short reduction whose innermost loop is parallel (the combination
      // of split partial results, a 32-row block's column maxima): a vector
      // along that loop, the reduction whole, each lane adding its elements
      // in order; lanes times the reduction's extent at most
      // kMaxWholeReduction (one straight-line block: 16 lanes of a 64-row
      // column amax took 0.5 s of llc per op).
      if (hasReduction && !isLongReduction(op, ranges) &&
          iters[n - 1] == utils::IteratorType::parallel) {
        int64_t lanes = std::clamp<int64_t>(
            kMaxWholeReduction / getReductionExtent(op, ranges), 1, kTileInner);
        tiles[n - 1] = std::min<int64_t>(ranges[n - 1], lanes);
      }
      if (innermostParallel >= 0 && !hasReduction) {
        tiles[innermostParallel] =
            std::min<int64_t>(ranges[innermostParallel], kTileInner);
        // A second tiled dim turns transposing reads into short contiguous
        // runs instead of one element per cache line.
        if (innermostParallel >= 1)
          tiles[innermostParallel - 1] =
              std::min<int64_t>(ranges[innermostParallel - 1], kTileOuter);
      }
    } else {
      return;
    }
    // Tiles divide their loop exactly: partial tiles would need masked
    // vectorization, which does not compose with every vector lowering.
    for (auto [t, r] : llvm::zip(tiles, ranges))
      if (t != 0)
        t = largestDivisorAtMost(r, t);

    rewriter.setInsertionPoint(op);
    scf::SCFTilingOptions options;
    options.setTileSizes(getAsIndexOpFoldResult(op.getContext(), tiles));
    if (!interchange.empty())
      options.setInterchange(interchange);
    FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
        rewriter, cast<TilingInterface>(op.getOperation()), options);
    if (failed(tiled))
      return;
    rewriter.replaceOp(op, tiled->replacements);
    for (Operation *tiledOp : tiled->tiledOps) {
      auto linalgOp = dyn_cast<linalg::LinalgOp>(tiledOp);
      if (!linalgOp)
        continue;
      SmallVector<int64_t> vectorSizes;
      if (linalgOp.hasDynamicShape())
        continue;
      if (failed(linalg::vectorizeOpPrecondition(linalgOp, vectorSizes, {},
                                                 /*vectorizeNDExtract=*/true)))
        continue;
      rewriter.setInsertionPoint(linalgOp);
      FailureOr<linalg::VectorizationResult> result = linalg::vectorize(
          rewriter, linalgOp, vectorSizes, {}, /*vectorizeNDExtract=*/true,
          false, false, /*createNamedContraction=*/isMatmul);
      if (succeeded(result))
        rewriter.replaceOp(linalgOp, result->replacements);
    }
  }
};

//===----------------------------------------------------------------------===//
// mxfp8train-cpu-lower-vectors
//===----------------------------------------------------------------------===//

struct CPULowerVectorsPass final
    : mxfp8train::impl::MXFP8TrainCPULowerVectorsPassBase<CPULowerVectorsPass> {
  using Base::Base;
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    vector::populateVectorContractLoweringPatterns(
        patterns, vector::VectorContractLowering::OuterProduct);
    vector::populateVectorOuterProductLoweringPatterns(patterns);
    vector::populateVectorMultiReductionLoweringPatterns(
        patterns, vector::VectorMultiReductionLowering::InnerParallel);
    vector::populateVectorBroadcastLoweringPatterns(patterns);
    vector::populateVectorMaskOpLoweringPatterns(patterns);
    vector::populateVectorShapeCastLoweringPatterns(patterns);
    vector::populateVectorTransposeLoweringPatterns(
        patterns, vector::VectorTransposeLowering::Shuffle1D);
    vector::populateVectorTransferLoweringPatterns(patterns,
                                                   /*maxTransferRank=*/1);
    vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
    vector::populateVectorGatherLoweringPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
