//===- TCGen05Launch.cpp - host side of the tcgen05 GEMMs ------*- C++ -*-===//
//
// The host side of the sm_100a MX GEMMs (TCGen05.cpp holds the kernel
// body): which forms the tcgen05 kernel takes, the scales in the blocked
// layout the kernel reads (re-laid by the to_blocked kernels where the op's
// are row-major), the tensor maps of the operands (and of the scales for
// the 2-CTA kernel), the launch, and the pattern that gives K-major rank-2
// `scaled_mm` blocked scales through a `to_blocked` op before the lowering.
// Float8 `scaled_mm` and `scaled_grouped_mm` (f32 scales) take the same
// kernel in its kind::f8f6f4 form (GemmSpec::tcgen05Float8): their scales
// go to the kernel as they are (flat f32 buffers, or the 0-d buffer of a
// tensorwise scale) for the epilogue. The Float8 2d-2d operands (tokens
// first, token groups padded to 16 by the recipe) are first made K-major
// with each group padded to 128 by the fp8 transpose pre-pass of the sm_90a
// kernel (Float8Transpose.h): an MMA contracts 32 tokens, so a group
// boundary inside a 32-token block could not be masked in place.
//
//===----------------------------------------------------------------------===//

#include "../TMA.h"
#include "Float8Transpose.h"
#include "GemmLaunch.h"
#include "TCGen05.h"
#include "mxfp8train/Conversion/Utils/Tcgen05.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::gpu_lowering;

/// The blocked layout the kernel reads the scales of operand A (`isA`) or B
/// in (SPEC §4): `blocked` for rank-2 scaled_mm, one `to_blocked` per slice
/// for batched operands (rank-3 scaled_mm, 2d-3d B), the token-group
/// layouts for the grouped operands (2d-3d A: `blocked_m_groups`, 2d-2d:
/// `blocked_k_groups`).
static ScaleLayout getKernelScaleLayout(const GemmSpec &spec, bool isA) {
  switch (spec.kind) {
  case GemmKind::Dense:
    return spec.batches > 1 || spec.aBatched ? ScaleLayout::BlockedPerExpert
                                             : ScaleLayout::Blocked;
  case GemmKind::Grouped2d3d:
    return isA ? ScaleLayout::BlockedMGroups : ScaleLayout::BlockedPerExpert;
  case GemmKind::Grouped2d2d:
    return ScaleLayout::BlockedKGroups;
  }
  llvm_unreachable("unknown GEMM kind");
}

/// Operand A's (`isA`) or B's scales as the kernel reads them, a 1-D byte
/// buffer in getKernelScaleLayout's layout: the op's scales when they are
/// in it already, else re-laid from row-major by the `to_blocked` kernels
/// (of the transposed matrix for MN-major data, whose row-major scales are
/// (K / 32, rows)).
static Value getKernelScales(RewriterBase &rewriter, Location loc,
                             const KernelCache &cache, const GemmSpec &spec,
                             bool isA, Value scales, Value offs) {
  const gemm::OperandLayout &l = isA ? spec.a : spec.b;
  Value buf = toBuffer(rewriter, loc, scales);
  if (!l.blockedScales) {
    ScaleLayout layout = getKernelScaleLayout(spec, isA);
    int64_t rows = l.rows, cols = spec.k / 32, groups = spec.batches;
    SmallVector<int64_t, 2> shape;
    switch (layout) {
    case ScaleLayout::Blocked:
      shape = {*getBlockedScaleSize(rows, cols)};
      break;
    case ScaleLayout::BlockedPerExpert:
      shape = {spec.batches, *getBlockedScaleSize(rows, cols)};
      break;
    case ScaleLayout::BlockedMGroups:
      shape = {*getBlockedMGroupsScaleSize(rows, cols, groups)};
      break;
    case ScaleLayout::BlockedKGroups:
      shape = {*getBlockedKGroupsScaleSize(rows, cols, groups)};
      break;
    case ScaleLayout::RowMajor:
      llvm_unreachable("the kernel reads blocked scales");
    }
    Value out = memref::AllocOp::create(
        rewriter, loc,
        MemRefType::get(shape,
                        cast<MemRefType>(buf.getType()).getElementType()));
    bool grouped = layout == ScaleLayout::BlockedMGroups ||
                   layout == ScaleLayout::BlockedKGroups;
    emitToBlocked(rewriter, loc, cache, layout, /*transposed=*/!l.kMajor, buf,
                  grouped ? toBuffer(rewriter, loc, offs) : Value(), out);
    buf = out;
  }
  auto type = cast<MemRefType>(buf.getType());
  return collapseTo(rewriter, loc, buf, {type.getNumElements()});
}

/// The tensor map through which the 2-CTA kernel loads scale chunks from
/// the flat blocked scale buffer `buf`: 1-D, unswizzled boxes of
/// kScaleBoxBytes (a chunk is two), so that the chunks can complete on the
/// leader's barrier (cp.async.bulk.tensor .cta_group::2; the 1-D bulk copy
/// has no such form). The buffer need not hold whole chunks (the grouped
/// layouts pad groups, not the total); bytes past it (a pair's second CTA
/// past the last row block) are zero-filled.
static Value getScaleTensorMap(RewriterBase &rewriter, Location loc,
                               Value buf) {
  tma::TensorMapSpec spec;
  spec.box = {kTcgen05ScaleBoxBytes};
  spec.swizzle = tma::Swizzle::None;
  return tma::createTensorMap(rewriter, loc, buf, spec);
}

/// Whether the Float8 operand `l` of `spec` goes through the fp8 transpose
/// pre-pass rather than being read as stored: both 2d-2d operands (their
/// token groups padded to 128), and MN-major operands whose rows are not
/// 16-byte aligned for TMA (M of a wgrad `dO^T @ x`, which torch._scaled_mm
/// leaves free).
static bool transposesFirst(const GemmSpec &spec,
                            const gemm::OperandLayout &l) {
  return spec.tcgen05Float8 && !l.kMajor &&
         (spec.kind == GemmKind::Grouped2d2d || l.rows % 16 != 0);
}

/// The Float8 operand `data` (MN-major, fp8: (K, rows), or (T, rows) for
/// 2d-2d, per batch when `batched`) of `spec`, described by `l`, made
/// K-major by the fp8 transpose pre-pass, for 2d-2d with each token group
/// of `offs` starting at a multiple of 128 of the output K (zero-filled to
/// the end of its last 128): the ([batches,] rows, K) buffer the kernel's
/// tensor map reads. `l` describes that buffer after.
static Value transposeFloat8Operand(RewriterBase &rewriter, Location loc,
                                    const KernelCache &cache,
                                    const GemmSpec &spec,
                                    gemm::OperandLayout &l, bool batched,
                                    Value data, Value offs) {
  Type dataType = cast<RankedTensorType>(data.getType()).getElementType();
  Float8TransposeSpec d = getFloat8TransposeSpec(spec, l, batched, dataType);
  auto flatType = MemRefType::get({d.getBufferElements()}, d.dataType);
  Value out = memref::AllocOp::create(rewriter, loc, flatType);
  Value source = flatBuffer(rewriter, loc, data);
  Value offsets = d.groups ? flatBuffer(rewriter, loc, offs) : Value();
  launchFloat8Transpose(rewriter, loc, cache, d, source, offsets, out);
  l = {d.rows, d.getOutputK(), /*kMajor=*/true, false};
  SmallVector<int64_t, 3> shape;
  if (batched)
    shape.push_back(d.batches);
  shape.append({d.rows, d.getOutputK()});
  auto viewType = MemRefType::get(shape, d.dataType);
  ReassociationIndices all = llvm::to_vector(llvm::seq<int64_t>(shape.size()));
  return memref::ExpandShapeOp::create(rewriter, loc, viewType, out,
                                       ArrayRef<ReassociationIndices>{all});
}

std::string gpu_lowering::whyNotTcgen05(const GemmSpec &spec) {
  // TMA needs 16-byte strides: rows of K bytes (K-major; K is a multiple
  // of 32) or of M / N bytes (MN-major; a Float8 operand with other rows is
  // transposed first, transposesFirst).
  for (const gemm::OperandLayout *l : {&spec.a, &spec.b})
    if (!l->kMajor && l->rows % 16 != 0 && !transposesFirst(spec, *l))
      return "the tcgen05 kernel takes MN-major operands with 16-byte "
             "aligned rows (M, N multiples of 16)";
  if (!tcgen05::getElementFormat(spec.aType) ||
      !tcgen05::getElementFormat(spec.bType))
    return "the tcgen05 kernel takes e4m3/e5m2 operands";
  if (spec.m == 0 || spec.n == 0 || spec.k == 0 || spec.batches == 0)
    return "empty GEMM";
  // 2d-3d tiles start at any token: the tokens are the rows of A.
  if (spec.kind == GemmKind::Grouped2d3d && !spec.a.kMajor)
    return "the tcgen05 kernel takes 2d-3d tokens stored K-major";
  return "";
}

LogicalResult gpu_lowering::lowerGemmToTcgen05(
    PatternRewriter &rewriter, const KernelCache &cache, Operation *op,
    GemmSpec spec, int64_t ctaGroup, Value lhs, Value lhsScales, Value rhs,
    Value rhsScales, Value offs, Value bias, RankedTensorType resultType) {
  if (std::string why = whyNotTcgen05(spec); !why.empty())
    return rewriter.notifyMatchFailure(op, why);
  Location loc = op->getLoc();
  configureTcgen05Gemm(spec, ctaGroup);
  if (!isValidTcgen05Mma(spec))
    return rewriter.notifyMatchFailure(
        op, "the tcgen05 tile's MMA shape is not one the PTX ISA allows for "
            "these operand formats and layouts");

  // K-major boxes of 128 K x 128 rows (A) and 128 K x 256 rows (B; 128
  // rows per CTA of a pair), or MN-major boxes of 128 K rows x 128 M/N:
  // 128-byte rows in the 128-byte swizzle, as the MMA descriptors expect.
  // Batched operands (E, ., .) take one slice per box.
  Value aBuf = transposesFirst(spec, spec.a)
                   ? transposeFloat8Operand(rewriter, loc, cache, spec, spec.a,
                                            spec.aBatched, lhs, offs)
                   : toBuffer(rewriter, loc, lhs);
  Value bBuf = transposesFirst(spec, spec.b)
                   ? transposeFloat8Operand(rewriter, loc, cache, spec, spec.b,
                                            spec.bBatched, rhs, offs)
                   : toBuffer(rewriter, loc, rhs);
  auto box = [&](const gemm::OperandLayout &l, int64_t rows,
                 bool batched) -> SmallVector<int64_t> {
    SmallVector<int64_t> extents;
    if (batched)
      extents.push_back(1);
    if (l.kMajor)
      extents.append({rows, spec.tile.k});
    else
      extents.append({spec.tile.k, 128});
    return extents;
  };
  tma::TensorMapSpec aMap, bMap;
  aMap.box = box(spec.a, spec.tile.m / ctaGroup, spec.aBatched);
  bMap.box = box(spec.b, spec.tile.n / ctaGroup, spec.bBatched);
  std::string why;
  if (!tma::canCreateTensorMap(cast<MemRefType>(aBuf.getType()), aMap, &why) ||
      !tma::canCreateTensorMap(cast<MemRefType>(bBuf.getType()), bMap, &why))
    return rewriter.notifyMatchFailure(op, why);
  Value mapA = tma::createTensorMap(rewriter, loc, aBuf, aMap);
  Value mapB = tma::createTensorMap(rewriter, loc, bBuf, bMap);
  // GemmArgs order, the tensor maps in place of the data; with the pair
  // also in place of the scales (getScaleTensorMap).
  SmallVector<Value> maps = {mapA, mapB};
  auto scales = [&](bool isA, Value opScales) {
    if (spec.tcgen05Float8)
      return getFloat8ScalesBuffer(rewriter, loc, opScales);
    Value buf =
        getKernelScales(rewriter, loc, cache, spec, isA, opScales, offs);
    if (ctaGroup == 1)
      return buf;
    maps.push_back(getScaleTensorMap(rewriter, loc, buf));
    return maps.back();
  };
  Value lhsScalesArg = scales(true, lhsScales);
  Value rhsScalesArg = scales(false, rhsScales);
  SmallVector<Value> args = {mapA, lhsScalesArg, mapB, rhsScalesArg};
  for (Value map : maps)
    tma::freeTensorMapAtBlockEnd(rewriter, loc, map);
  launchGemmAndReplace(rewriter, op, cache, spec, args, offs, bias, resultType,
                       [&](KernelBuilder &kb, ValueRange kargs) {
                         emitTcgen05Gemm(kb, spec, kargs);
                       });
  return success();
}

/// The tcgen05 problem of the Float8 `op` (scaled_mm or scaled_grouped_mm):
/// kind::f8f6f4, each f32 scale rowwise or tensorwise (0-d).
static GemmSpec getTcgen05Float8Spec(Operation *op) {
  GemmSpec spec;
  Value lhsScales, rhsScales;
  if (auto mm = dyn_cast<ScaledMmOp>(op)) {
    spec = getScaledMmSpec(mm);
    lhsScales = mm.getLhsScales();
    rhsScales = mm.getRhsScales();
  } else {
    auto gmm = cast<ScaledGroupedMmOp>(op);
    spec = getScaledGroupedMmSpec(gmm);
    lhsScales = gmm.getLhsScales();
    rhsScales = gmm.getRhsScales();
  }
  spec.tcgen05Float8 = true;
  spec.a.blockedScales = spec.b.blockedScales = false;
  spec.aScalarScale =
      cast<RankedTensorType>(lhsScales.getType()).getRank() == 0;
  spec.bScalarScale =
      cast<RankedTensorType>(rhsScales.getType()).getRank() == 0;
  return spec;
}

std::string gpu_lowering::whyNotTcgen05Float8(Operation *op) {
  if (!hasStaticShapes(op))
    return "it has a dynamic shape";
  GemmSpec spec = getTcgen05Float8Spec(op);
  // 2d-2d: both operands go through the fp8 transpose pre-pass (token
  // groups padded to 128).
  if (spec.kind == GemmKind::Grouped2d2d)
    if (std::string why = whyNotFloat8GroupedTranspose(spec); !why.empty())
      return why;
  return whyNotTcgen05(spec);
}

/// The cta_group of `op`'s gemm_config (1 without one).
static int64_t getCtaGroup(Operation *op) {
  if (auto config =
          op->getAttrOfType<GemmConfigAttr>(GemmConfigAttr::getAttrName()))
    return config.getCtaGroup().value_or(1);
  return 1;
}

namespace {
/// Float8 scaled_mm (rank 2 or 3; lhs stored (M, K) or with transpose_lhs
/// (K, M), rhs (N, K) with transpose_rhs or (K, N): kind::f8f6f4 reads
/// MN-major 8-bit operands) and scaled_grouped_mm 2d-3d (tokens (M, K) in
/// groups, experts stored (E, N, K) or (E, K, N), rowwise scales; the
/// mainloop's 2d-3d walk) -> the tcgen05 kernel on sm_100a.
template <typename OpTy>
struct Float8GemmToTcgen05 final : KernelPattern<OpTy> {
  using KernelPattern<OpTy>::KernelPattern;

  LogicalResult rewriteStatic(OpTy op,
                              PatternRewriter &rewriter) const override {
    if (!op.isFloat8())
      return rewriter.notifyMatchFailure(op, "not a Float8 GEMM");
    if (this->cache.getTarget().chip != GPUChip::SM100a)
      return rewriter.notifyMatchFailure(op, "not sm_100a");
    if (std::string why = whyNotTcgen05Float8(op); !why.empty())
      return rewriter.notifyMatchFailure(op, why);
    Value offs, bias;
    if constexpr (std::is_same_v<OpTy, ScaledGroupedMmOp>)
      offs = op.getOffs();
    else
      bias = op.getBias();
    return lowerGemmToTcgen05(
        rewriter, this->cache, op, getTcgen05Float8Spec(op), getCtaGroup(op),
        op.getLhs(), op.getLhsScales(), op.getRhs(), op.getRhsScales(), offs,
        bias, op.getResult().getType());
  }
};

/// scaled_mm that the tcgen05 kernel takes but with row-major scales ->
/// `to_blocked` of those scales and the same scaled_mm on blocked ones.
struct ScaledMmScalesToBlocked final : OpRewritePattern<ScaledMmOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ScaledMmOp op,
                                PatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op) || op.getLhs().getType().getRank() != 2)
      return rewriter.notifyMatchFailure(
          op, "rank-2 scaled_mm with static shapes only (the lowering "
              "re-lays rank-3 scales itself)");
    if (op.isFloat8())
      return rewriter.notifyMatchFailure(op, "Float8 (f32 scales)");
    if (std::string why = whyNotTcgen05(getScaledMmSpec(op)); !why.empty())
      return rewriter.notifyMatchFailure(op, why);
    auto needsRelayout = [](ScaleLayout layout, bool mnMajor) {
      return layout == ScaleLayout::RowMajor && !mnMajor;
    };
    if (!needsRelayout(op.getLhsScaleLayout(), op.getTransposeLhs()) &&
        !needsRelayout(op.getRhsScaleLayout(), !op.getTransposeRhs()))
      return rewriter.notifyMatchFailure(op, "no K-major row-major scales");
    Location loc = op.getLoc();
    auto blocked = ScaleLayoutAttr::get(op.getContext(), ScaleLayout::Blocked);
    // Row-major scales of MN-major data, (K / 32, rows), stay: the lowering
    // re-lays them (launchTransposedToBlocked).
    auto relay = [&](Value scales, ScaleLayout layout, bool mnMajor) -> Value {
      if (layout == ScaleLayout::Blocked || mnMajor)
        return scales;
      auto type = cast<RankedTensorType>(scales.getType());
      // (rows, K / 32) -> ceil(rows / 128) * 128 * ceil(K / 128) * 4 bytes.
      int64_t size = llvm::alignTo(type.getDimSize(0), 128) *
                     llvm::alignTo(type.getDimSize(1), 4);
      return ToBlockedOp::create(
          rewriter, loc, RankedTensorType::get({size}, type.getElementType()),
          scales, Value(), blocked);
    };
    Value lhsScales =
        relay(op.getLhsScales(), op.getLhsScaleLayout(), op.getTransposeLhs());
    Value rhsScales =
        relay(op.getRhsScales(), op.getRhsScaleLayout(), !op.getTransposeRhs());
    auto newOp = ScaledMmOp::create(
        rewriter, loc, op.getResult().getType(), op.getLhs(), lhsScales,
        op.getRhs(), rhsScales, op.getBias(), op.getTransposeLhsAttr(),
        op.getTransposeRhsAttr(),
        lhsScales == op.getLhsScales() ? op.getLhsScaleLayoutAttr() : blocked,
        rhsScales == op.getRhsScales() ? op.getRhsScaleLayoutAttr() : blocked);
    newOp->setDiscardableAttrs(op->getDiscardableAttrDictionary());
    rewriter.replaceOp(op, newOp.getResult());
    return success();
  }
};
} // namespace

void gpu_lowering::populateTcgen05ScaleLayoutPatterns(
    RewritePatternSet &patterns) {
  patterns.add<ScaledMmScalesToBlocked>(patterns.getContext());
}

void gpu_lowering::populateTcgen05Float8GemmPatterns(
    RewritePatternSet &patterns, KernelCache &cache) {
  patterns.add<Float8GemmToTcgen05<ScaledMmOp>,
               Float8GemmToTcgen05<ScaledGroupedMmOp>>(patterns.getContext(),
                                                       cache);
}
