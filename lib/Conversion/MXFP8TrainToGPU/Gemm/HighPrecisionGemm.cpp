//===- HighPrecisionGemm.cpp - bf16 GEMMs on the wgmma kernel ---*- C++ -*-===//
//
// The high-precision GEMMs of a training step on sm_90a: `linalg.matmul`,
// `linalg.batch_matmul` and other linalg contractions with one M, N, K and
// at most one batch dimension, and `grouped_mm` (2d-3d, 2d-2d), with bf16
// (or f16) operands and an f32 or bf16 result, run the kernel the MX GEMMs
// run after their dequantization pre-passes (GemmVariant::DequantBF16,
// WGMMA.cpp): a TMA producer fills a ring of 128B-swizzled K-major stages,
// two warpgroups multiply with wgmma m64n256k16, fp32 accumulators, the
// GemmMainloop epilogue (one rounding to bf16 where the result is bf16).
//
// Operands. The kernel reads K-major tiles through tensor maps. An operand
// that is K-major with 16-byte aligned rows (K a multiple of 8) is read in
// place: a 2-D map over (rows, K), or for a batched operand a 3-D map over
// (batch, rows, K) with one batch per box (GemmSpec::aSlicedMap); TMA fills
// the boxes' parts past the rows and past K with zeros. Any other operand
// (MN-major, unaligned rows, the token-grouped K of 2d-2d) is packed first
// by the pre-pass kernel of DequantPrepass.cpp without scales into a
// zero-padded K-major buffer (batches' padded rows stacked, 2d-2d groups
// each from a multiple of 64 of the padded K), as the MX operands are.
//
// Contractions: the output's batch dimension must lead; an output stored
// (N, M) is the GEMM with the operands swapped. An output initialised by
// `linalg.fill` of +0.0 is written without reading it; any other initial
// value is added in fp32 in the epilogue before the rounding (C += A B).
// GEMMs of fewer than 128 x 128 x 256 multiply-adds, other element types
// and other targets keep the simple kernels (SimpleGemm.cpp, at a lower
// pattern benefit), as does every contraction with `simple-gemm=true`.
//
//===----------------------------------------------------------------------===//

#include "../KernelBuilder.h"
#include "../TMA.h"
#include "DequantPrepass.h"
#include "GemmLaunch.h"
#include "GemmMainloop.h"
#include "WGMMA.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::gpu_lowering;
using gemm::OperandLayout;

/// Multiply-adds (batches x M x N x K) below which a GEMM keeps the simple
/// kernel: one 128 x 128 output tile over K = 256.
constexpr int64_t kMinTunedMacs = 128 * 128 * 256;

/// CTAs per SM of a pack pre-pass at most (as the MX pre-passes).
constexpr int64_t kPackCTAsPerSM = 64;

/// Why the tuned kernel does not take `spec` (empty when it does).
static std::string whyNotTuned(const GemmSpec &spec) {
  bool bf16 = spec.aType.isBF16() && spec.bType.isBF16();
  bool f16 = spec.aType.isF16() && spec.bType.isF16();
  if (!bf16 && !f16)
    return "the tuned GEMM takes bf16 x bf16 or f16 x f16 operands";
  if (!spec.outType.isF32() && !spec.outType.isBF16())
    return "the tuned GEMM writes f32 or bf16 results";
  if (spec.initType && spec.initType != spec.outType)
    return "the initial output has another type than the result";
  if (spec.m <= 0 || spec.n <= 0 || spec.k <= 0 || spec.batches <= 0)
    return "empty GEMM";
  // Saturating: static shapes of a training step do not overflow, but a
  // verifier-legal one might.
  int64_t macs = spec.batches;
  for (int64_t size : {spec.m, spec.n, spec.k}) {
    if (macs > kMinTunedMacs)
      break;
    macs *= size;
  }
  if (macs < kMinTunedMacs)
    return "too small for the tuned GEMM (the simple kernel takes it)";
  return "";
}

/// Whether operand `l` is read in place: K-major, rows 16-byte aligned, and
/// K not token-grouped.
static bool isReadInPlace(const GemmSpec &spec, const OperandLayout &l,
                          Type elementType) {
  int64_t elemBytes = elementType.getIntOrFloatBitWidth() / 8;
  return l.kMajor && (l.k * elemBytes) % 16 == 0 &&
         spec.kind != GemmKind::Grouped2d2d;
}

/// Lowers the high-precision GEMM `spec` (its problem fields) of `op`:
/// `lhs` is A and `rhs` B as `spec.a` / `spec.b` describe them, `offs` the
/// group offsets (grouped kinds), `init` the initial output (null for a
/// zero-filled one); `op` is replaced by the result of `resultType`.
static LogicalResult
lowerHighPrecisionGemm(PatternRewriter &rewriter, const KernelCache &cache,
                       Operation *op, GemmSpec spec, Value lhs, Value rhs,
                       Value offs, Value init, RankedTensorType resultType) {
  if (std::string why = whyNotTuned(spec); !why.empty())
    return rewriter.notifyMatchFailure(op, why);
  // The measured default of the MX GEMMs: 128 x 256 tiles, four stages.
  configureDequantBF16Gemm(spec, /*tileN=*/256, /*stages=*/4);
  chooseClusterM(spec, cache.getTarget(), op);
  Location loc = op->getLoc();
  bool grouped2d2d = spec.kind == GemmKind::Grouped2d2d;
  // The padded layout of a packed operand (as launchGemmOp's MX operands):
  // 2d-3d tiles start at any group start (one extra tile of rows), 2d-2d
  // groups start at multiples of 64 of K.
  int64_t kPad =
      llvm::alignTo(spec.k, 64) + (grouped2d2d ? 64 * spec.batches : 0);
  int64_t aRowsPad = llvm::alignTo(spec.m, spec.tile.m) +
                     (spec.kind == GemmKind::Grouped2d3d ? spec.tile.m : 0);
  int64_t bRowsPad = llvm::alignTo(spec.n, spec.tile.n);
  Value offsBuf = offs ? toBuffer(rewriter, loc, offs) : Value();

  // In place: the tensor map of the operand as stored, boxes of a tile's
  // rows (of one batch) x 64 K; null when TMA cannot tile it.
  auto mapInPlace = [&](Value tensor, bool batched, int64_t boxRows,
                        const OperandLayout &l, Type elementType) -> Value {
    if (!isReadInPlace(spec, l, elementType))
      return Value();
    tma::TensorMapSpec mapSpec;
    if (batched)
      mapSpec.box.push_back(1);
    mapSpec.box.append({boxRows, 64});
    mapSpec.swizzle = tma::Swizzle::B128;
    if (!tma::canCreateTensorMap(
            getMemRefType(cast<RankedTensorType>(tensor.getType())), mapSpec))
      return Value();
    Value buf = toBuffer(rewriter, loc, tensor);
    Value map = tma::createTensorMap(rewriter, loc, buf, mapSpec);
    tma::freeTensorMapAtBlockEnd(rewriter, loc, map);
    return map;
  };
  int64_t aBatches = spec.aBatched ? spec.batches : 1;
  int64_t bBatches = spec.bBatched ? spec.batches : 1;
  Value aMap = mapInPlace(lhs, spec.aBatched, spec.tile.m, spec.a, spec.aType);
  Value bMap =
      mapInPlace(rhs, spec.bBatched, spec.getBoxRowsB(), spec.b, spec.bType);

  // Packed: the padded buffers with their maps, then the pre-passes.
  SmallVector<PaddedOperandShape> shapes;
  if (!aMap)
    shapes.push_back(
        {aBatches * aRowsPad, kPad, spec.tile.m, /*elementType=*/spec.aType});
  if (!bMap)
    shapes.push_back({bBatches * bRowsPad, kPad, spec.getBoxRowsB(),
                      /*elementType=*/spec.bType});
  SmallVector<PaddedOperand> padded =
      createPaddedOperands(rewriter, loc, shapes);
  auto pack = [&](const OperandLayout &l, int64_t batches, int64_t rowsPad,
                  Type elementType, Value tensor, Value buffer) {
    DequantSpec d;
    d.l = l;
    d.batches = batches;
    d.rowsPad = rowsPad;
    d.kPad = kPad;
    d.dataType = elementType;
    d.groups = grouped2d2d ? spec.batches : 0;
    launchDequantPrepass(rewriter, loc, cache, d, kPackCTAsPerSM,
                         flatBuffer(rewriter, loc, tensor), Value(), offsBuf,
                         Value(), buffer);
  };
  GemmSpec fast = spec;
  unsigned next = 0;
  if (aMap) {
    fast.aSlicedMap = spec.aBatched;
  } else {
    pack(spec.a, aBatches, aRowsPad, spec.aType, lhs, padded[next].buffer);
    aMap = padded[next++].map;
    fast.a = {aRowsPad, kPad, true, false};
  }
  if (bMap) {
    fast.bSlicedMap = spec.bBatched;
  } else {
    pack(spec.b, bBatches, bRowsPad, spec.bType, rhs, padded[next].buffer);
    bMap = padded[next++].map;
    fast.b = {bRowsPad, kPad, true, false};
  }

  // GemmArgs order: the two maps, [offs], [init], out.
  SmallVector<Value> args = {aMap, bMap};
  if (offsBuf)
    args.push_back(offsBuf);
  if (init)
    args.push_back(flatBuffer(rewriter, loc, init));
  Value outBuf = allocResult(rewriter, loc, resultType);
  args.push_back(
      collapseTo(rewriter, loc, outBuf, {resultType.getNumElements()}));
  launchGemmKernel(rewriter, loc, cache, fast, args,
                   [&](KernelBuilder &kb, ValueRange kargs) {
                     emitDequantBF16Gemm(kb, fast, kargs);
                   });
  rewriter.replaceOp(op, toTensor(rewriter, loc, outBuf));
  return success();
}

/// The layout of a contraction operand whose stored dimensions are `dims`
/// ('b' batch, 'k' contraction, `row` its M or N): batch first where
/// present, then (row, K) or (K, row). Sets `batched`.
static FailureOr<OperandLayout> getOperandLayout(ArrayRef<char> dims, char row,
                                                 int64_t rows, int64_t k,
                                                 bool &batched) {
  batched = !dims.empty() && dims.front() == 'b';
  ArrayRef<char> rest = batched ? dims.drop_front() : dims;
  if (rest.size() != 2)
    return failure();
  if (rest[0] == row && rest[1] == 'k')
    return OperandLayout{rows, k, /*kMajor=*/true, false};
  if (rest[0] == 'k' && rest[1] == row)
    return OperandLayout{rows, k, /*kMajor=*/false, false};
  return failure();
}

/// Whether `init` is a `linalg.fill` of +0.0.
static bool isZeroFill(Value init) {
  auto fill = init.getDefiningOp<linalg::FillOp>();
  if (!fill)
    return false;
  auto cst = fill.getInputs()[0].getDefiningOp<arith::ConstantOp>();
  auto f = cst ? dyn_cast<FloatAttr>(cst.getValue()) : FloatAttr();
  return f && f.getValue().isPosZero();
}

namespace {
/// linalg contractions (one M, N, K, at most one batch dimension, operands
/// stored as (batch, rows, K) or (batch, K, rows), the output (batch, M, N)
/// or (batch, N, M)) with bf16 / f16 operands -> the wgmma GEMM (sm_90a).
struct ContractionToWgmma final : OpInterfaceRewritePattern<linalg::LinalgOp> {
  ContractionToWgmma(MLIRContext *ctx, KernelCache cache)
      : OpInterfaceRewritePattern(ctx), cache(std::move(cache)) {}

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (cache.getTarget().chip != GPUChip::SM90a)
      return rewriter.notifyMatchFailure(op, "the wgmma GEMM is sm_90a's");
    FailureOr<linalg::ContractionDimensions> dims =
        matchGemmContraction(op, rewriter);
    if (failed(dims))
      return failure();
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    auto letterOf = [&](unsigned loop) -> char {
      if (loop == dims->m[0])
        return 'm';
      if (loop == dims->n[0])
        return 'n';
      if (loop == dims->k[0])
        return 'k';
      return 'b';
    };
    auto storedDims = [&](OpOperand &operand) -> FailureOr<SmallVector<char>> {
      AffineMap map = op.getMatchingIndexingMap(&operand);
      if (!map.isProjectedPermutation())
        return failure();
      SmallVector<char> letters;
      for (AffineExpr e : map.getResults())
        letters.push_back(letterOf(cast<AffineDimExpr>(e).getPosition()));
      return letters;
    };
    OpOperand *a = op.getDpsInputOperand(0), *b = op.getDpsInputOperand(1);
    OpOperand *c = op.getDpsInitOperand(0);
    FailureOr<SmallVector<char>> aDims = storedDims(*a), bDims = storedDims(*b),
                                 cDims = storedDims(*c);
    if (failed(aDims) || failed(bDims) || failed(cDims))
      return rewriter.notifyMatchFailure(op, "unsupported indexing maps");

    // The output (batch, M, N), or (batch, N, M): C^T = B^T A^T, the
    // operands swapped.
    bool batched = !dims->batch.empty();
    SmallVector<char> mn(*cDims);
    if (batched) {
      if (mn.front() != 'b')
        return rewriter.notifyMatchFailure(op, "output batch not leading");
      mn.erase(mn.begin());
    }
    bool swap = mn == SmallVector<char>{'n', 'm'};
    if (!swap && mn != SmallVector<char>{'m', 'n'})
      return rewriter.notifyMatchFailure(op, "unsupported output layout");
    OpOperand *first = swap ? b : a, *second = swap ? a : b;
    GemmSpec spec;
    spec.scaled = false;
    spec.kind = GemmKind::Dense;
    spec.m = ranges[swap ? dims->n[0] : dims->m[0]];
    spec.n = ranges[swap ? dims->m[0] : dims->n[0]];
    spec.k = ranges[dims->k[0]];
    spec.batches = batched ? ranges[dims->batch[0]] : 1;
    FailureOr<OperandLayout> aLayout =
        getOperandLayout(swap ? *bDims : *aDims, swap ? 'n' : 'm', spec.m,
                         spec.k, spec.aBatched);
    FailureOr<OperandLayout> bLayout =
        getOperandLayout(swap ? *aDims : *bDims, swap ? 'm' : 'n', spec.n,
                         spec.k, spec.bBatched);
    if (failed(aLayout) || failed(bLayout))
      return rewriter.notifyMatchFailure(op, "unsupported operand layout");
    spec.a = *aLayout;
    spec.b = *bLayout;
    spec.aType = getElementTypeOrSelf(first->get().getType());
    spec.bType = getElementTypeOrSelf(second->get().getType());
    spec.outType = getElementTypeOrSelf(c->get().getType());
    Value init;
    if (!isZeroFill(c->get())) {
      init = c->get();
      spec.initType = spec.outType;
    }
    return lowerHighPrecisionGemm(
        rewriter, cache, op, spec, first->get(), second->get(), Value(), init,
        cast<RankedTensorType>(op->getResult(0).getType()));
  }

  KernelCache cache;
};

/// grouped_mm (2d-3d, 2d-2d) with bf16 / f16 operands -> the wgmma GEMM
/// (sm_90a).
struct GroupedMmToWgmma final : OpRewritePattern<GroupedMmOp> {
  GroupedMmToWgmma(MLIRContext *ctx, KernelCache cache)
      : OpRewritePattern(ctx), cache(std::move(cache)) {}

  LogicalResult matchAndRewrite(GroupedMmOp op,
                                PatternRewriter &rewriter) const override {
    if (cache.getTarget().chip != GPUChip::SM90a)
      return rewriter.notifyMatchFailure(op, "the wgmma GEMM is sm_90a's");
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    return lowerHighPrecisionGemm(rewriter, cache, op, getGroupedMmSpec(op),
                                  op.getLhs(), op.getRhs(), op.getOffs(),
                                  Value(), op.getResult().getType());
  }

  KernelCache cache;
};
} // namespace

void gpu_lowering::populateHighPrecisionGemmPatterns(
    RewritePatternSet &patterns, KernelCache &cache) {
  patterns.add<ContractionToWgmma, GroupedMmToWgmma>(patterns.getContext(),
                                                     cache);
}
