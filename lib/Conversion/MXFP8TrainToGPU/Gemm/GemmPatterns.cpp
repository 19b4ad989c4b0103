//===- GemmPatterns.cpp - scaled_mm / scaled_grouped_mm to GEMMs *- C++ -*-===//
//
// The patterns that lower `scaled_mm` (rank 2 and 3) and `scaled_grouped_mm`
// (2d-3d, 2d-2d) to GEMM kernel launches: the problem of each op as a
// GemmSpec, the configuration (kernel variant, tiles, stages, ...), the
// launch sequence of the default pre-dequantized GEMM with its guarded
// fallback, and the dispatch on the target's MMA generation: sm_90a gets
// the wgmma kernels (WGMMA.cpp, WGMMAUpcast.cpp), sm_100a the tcgen05
// kernel (TCGen05.cpp) for the forms it takes; the rest is left to the
// simple GEMM (SimpleGemm.cpp).
//
//===----------------------------------------------------------------------===//

#include "../KernelBuilder.h"
#include "DequantFusion.h"
#include "DequantPrepass.h"
#include "GemmLaunch.h"
#include "GemmMainloop.h"
#include "TCGen05.h"
#include "WGMMA.h"
#include "WGMMAFloat8.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::gpu_lowering;
using gemm::OperandLayout;
using gemm::TileShape;

/// CTAs per SM of a dequantization pre-pass at most (a grid-stride loop
/// covers the rest; `dequant_ctas`, 0 for no cap).
constexpr int64_t kDequantCTAsPerSM = 64;

/// The configuration attribute of `op`, or the default one.
static GemmConfigAttr getGemmConfig(Operation *op) {
  if (auto config =
          op->getAttrOfType<GemmConfigAttr>(GemmConfigAttr::getAttrName()))
    return config;
  return GemmConfigAttr::get(op->getContext(), GemmKernel::DequantBF16,
                             std::nullopt, std::nullopt, std::nullopt,
                             std::nullopt, std::nullopt, /*rebalance=*/true,
                             std::nullopt, std::nullopt, std::nullopt);
}

/// Chooses the kernel variant and its configuration of `spec` from the
/// op's verified `config` (#mxfp8train.gemm_config; its absent fields take
/// the measured defaults). The default kernel is dequant_bf16 (v8: dequantize
/// pre-passes + bf16 GEMM), for every form; its guarded fallback for
/// extreme scale bytes is the fused upcast (v7 for K-major operands with
/// row-major scales except 2d-2d, else v5). Without `allowPreDequant`, the
/// configuration dequant_bf16 falls back to.
static void chooseConfig(GemmConfigAttr config, GemmSpec &spec,
                         bool allowPreDequant = true) {
  // Measured on the H200 (bench/README.md): a deeper register prefetch
  // (2-4 tiles, one CTA per SM) was no faster than one tile ahead, two CTAs
  // per SM were 20 % faster. The MN-major and blocked-scale loaders need
  // more registers (they spill at 128): one CTA per SM.
  spec.prefetch = 1;
  spec.tile = TileShape();
  spec.stages = 3;
  spec.clusterM = 1;
  spec.converterGroups = 2;
  spec.ctasPerSM = spec.a.kMajor && spec.b.kMajor && !spec.a.blockedScales &&
                           !spec.b.blockedScales
                       ? 2
                       : 1;
  if (config.getPrefetch())
    spec.prefetch = *config.getPrefetch();
  if (config.getCtasPerSm())
    spec.ctasPerSM = *config.getCtasPerSm();
  spec.rebalance = config.getRebalance();
  GemmKernel requested = config.getKernel();
  if (requested == GemmKernel::DequantBF16 && allowPreDequant) {
    // v8 (any operand layout; 2d-2d with each token group padded to 64 by
    // the pre-passes): one CTA of 384 threads per SM, 128x256 tiles
    // (m64n256 per MMA warpgroup) and a ring of four stages (192 KiB), or
    // 128x128 tiles with `tile_n = 128` (up to six stages).
    configureDequantBF16Gemm(spec, config.getTileN().value_or(256),
                             config.getStages().value_or(4));
    return;
  }
  // v7 covers K-major operands with row-major scales; the MN-major and
  // blocked-scale loaders spill at their 128 registers per thread (ptxas,
  // also with setmaxnreg 96/160), so they stay on v5. v7 was measured
  // faster than v5 for scaled_mm (+13-29 %) and 2d-3d (+4-17 %); the 2d-2d
  // wgrad was 5 % slower and stays on v5 unless asked (bench/README.md).
  bool kMajorRowScales = spec.a.kMajor && spec.b.kMajor &&
                         !spec.a.blockedScales && !spec.b.blockedScales;
  if (requested == GemmKernel::FusedUpcastWS && kMajorRowScales)
    spec.variant = GemmVariant::FusedUpcastWS;
  else if (requested == GemmKernel::DequantBF16 && kMajorRowScales &&
           spec.kind != GemmKind::Grouped2d2d)
    spec.variant = GemmVariant::FusedUpcastWS;
  else
    spec.variant = GemmVariant::FusedUpcast;
  if (spec.usesStageRing()) {
    // v7: one CTA of 512 threads per SM (128 registers each), a ring of
    // four stages (128 KiB), loads two contraction tiles ahead (the
    // rebalancing maxima of the next stage come from registers already
    // loaded).
    spec.ctasPerSM = 1;
    spec.stages = config.getStages().value_or(4);
    spec.converterGroups = config.getConverters().value_or(2);
    spec.prefetch = config.getPrefetch().value_or(2);
  }
}

/// Creates (or reuses) the Hopper kernel of `spec` and launches it on
/// `args`.
static void launchHopperGemm(RewriterBase &rewriter, Location loc,
                             const KernelCache &cache, const GemmSpec &spec,
                             ArrayRef<Value> args) {
  launchGemmKernel(rewriter, loc, cache, spec, args,
                   [&](KernelBuilder &kb, ValueRange kargs) {
                     if (spec.preDequantized())
                       emitDequantBF16Gemm(kb, spec, kargs);
                     else
                       emitFusedUpcastGemm(kb, spec, kargs);
                   });
}

/// The padded bf16 forms of the two operands of the pre-dequantized GEMM
/// of `spec` (configured), as its pre-passes write them.
static std::array<PreDequantOperand, 2> getOperandForms(const GemmSpec &spec) {
  // 2d-2d: every token group starts at a multiple of 64 of the padded K.
  bool grouped2d2d = spec.kind == GemmKind::Grouped2d2d;
  int64_t kPad =
      llvm::alignTo(spec.k, 64) + (grouped2d2d ? 64 * spec.batches : 0);
  auto form = [&](const OperandLayout &l, bool batched, int64_t rowsPad,
                  Type f8Type, int64_t boxRows) {
    PreDequantOperand p;
    p.d.l = l;
    p.d.batches = batched ? spec.batches : 1;
    p.d.rowsPad = rowsPad;
    p.d.kPad = kPad;
    p.d.dataType = f8Type;
    p.d.groups = grouped2d2d ? spec.batches : 0;
    p.boxRows = boxRows;
    return p;
  };
  // 2d-3d tiles start at any group start: one extra tile of rows.
  int64_t aRowsPad = llvm::alignTo(spec.m, spec.tile.m) +
                     (spec.kind == GemmKind::Grouped2d3d ? spec.tile.m : 0);
  int64_t bRowsPad = llvm::alignTo(spec.n, spec.tile.n);
  return {
      form(spec.a, spec.aBatched, aRowsPad, spec.aType, spec.tile.m),
      form(spec.b, spec.bBatched, bRowsPad, spec.bType, spec.getBoxRowsB())};
}

/// Launches the GEMM of `spec` on `args` (A data, A scales, B data,
/// B scales, [offs], [bias], out). Pre-dequantized: the two pre-passes into
/// padded bf16 buffers (allocated with their tensor maps at the start of
/// the block, createPaddedOperands), the bf16 kernel on the maps, and the
/// fallback kernel (the configuration `config` gives without the
/// pre-passes) on the fp8 operands; each of the two reads the pre-passes'
/// flag and only one of them runs. An operand `fusion` has the bf16 form
/// of (a quantize kernel wrote it, DequantFusion.h) has no pre-pass; the
/// kernels then read one flag word per operand, the quantize's for it.
static void launchGemmOp(RewriterBase &rewriter, Location loc,
                         const KernelCache &cache, Operation *op,
                         GemmConfigAttr config, const GemmSpec &spec,
                         SmallVector<Value> args) {
  if (!spec.preDequantized()) {
    launchHopperGemm(rewriter, loc, cache, spec, args);
    return;
  }
  const DequantFusion *fusion = cache.getDequantFusion();
  std::array<const FusedDequantOperand *, 2> fused = {
      fusion ? fusion->getGemmOperand(op, 0) : nullptr,
      fusion ? fusion->getGemmOperand(op, 1) : nullptr};
  bool perOperand = fused[0] || fused[1];
  std::array<PreDequantOperand, 2> forms = getOperandForms(spec);
  // The flag word of the pre-passes, zeroed on the stream before them.
  Value flag;
  if (!fused[0] || !fused[1]) {
    flag = allocZeroedWords(rewriter, loc, {1});
  }
  int64_t dequantCTAs = config.getDequantCtas().value_or(kDequantCTAsPerSM);
  // The padded buffers with the tensor maps the GEMM loads them through
  // (batches stacked along the rows, boxes of a tile's rows).
  SmallVector<PaddedOperandShape> shapes;
  for (unsigned i = 0; i < 2; ++i) {
    const DequantSpec &d = forms[i].d;
    if (!fused[i])
      shapes.push_back({d.batches * d.rowsPad, d.kPad, forms[i].boxRows});
  }
  SmallVector<PaddedOperand> padded =
      createPaddedOperands(rewriter, loc, shapes);
  bool grouped2d2d = spec.kind == GemmKind::Grouped2d2d;
  std::array<Value, 2> maps, flags;
  for (unsigned i = 0, next = 0; i < 2; ++i) {
    if (fused[i]) {
      // The plan (DequantFusion::plan) made the form with this GEMM's
      // configuration: a map of another box would never fill a stage.
      assert(fused[i]->form.boxRows == forms[i].boxRows &&
             fused[i]->form.d.getName() == forms[i].d.getName() &&
             "the fused form is the one this GEMM reads");
      maps[i] = fused[i]->map;
      flags[i] = fused[i]->flag;
      continue;
    }
    launchDequantPrepass(rewriter, loc, cache, forms[i].d, dequantCTAs,
                         args[2 * i], args[2 * i + 1],
                         grouped2d2d ? args[4] : Value(), flag,
                         padded[next].buffer);
    maps[i] = padded[next++].map;
    flags[i] = flag;
  }
  GemmSpec fast = spec;
  fast.a = {forms[0].d.rowsPad, forms[0].d.kPad, true, false};
  fast.b = {forms[1].d.rowsPad, forms[1].d.kPad, true, false};
  fast.aType = fast.bType = rewriter.getBF16Type();
  fast.guarded = true;
  fast.flagPerOperand = perOperand;
  SmallVector<Value> rest(args.begin() + 4, args.end() - 1);
  SmallVector<Value> flagArgs = {flags[0]};
  if (perOperand)
    flagArgs.push_back(flags[1]);
  SmallVector<Value> fastArgs = {maps[0], maps[1]};
  llvm::append_range(fastArgs, rest);
  llvm::append_range(fastArgs, flagArgs);
  fastArgs.push_back(args.back());
  launchHopperGemm(rewriter, loc, cache, fast, fastArgs);

  // Deferred fp8 data (DequantFusion.h): the blocks the quantize did not
  // store, written back from the bf16 form where the fallback runs.
  for (unsigned i = 0; i < 2; ++i)
    if (fused[i] && fused[i]->fp8Deferred)
      launchFp8Restore(rewriter, loc, cache, fused[i]->form.d, fused[i]->buffer,
                       args[2 * i + 1], grouped2d2d ? args[4] : Value(),
                       flagArgs, args[2 * i]);

  GemmSpec slow = spec;
  chooseConfig(config, slow, /*allowPreDequant=*/false);
  slow.guarded = true;
  slow.runWhenUnsafe = true;
  slow.flagPerOperand = perOperand;
  SmallVector<Value> slowArgs(args.begin(), args.begin() + 4);
  llvm::append_range(slowArgs, rest);
  llvm::append_range(slowArgs, flagArgs);
  slowArgs.push_back(args.back());
  launchHopperGemm(rewriter, loc, cache, slow, slowArgs);
}

/// The configuration of `op`'s GEMM `spec` as lowered on `target`:
/// chooseConfig, then the cluster along M of a pre-dequantized GEMM. One
/// function for the lowering and for the fusion plan
/// (getPreDequantOperands), whose tensor maps carry the GEMM's boxes.
static void configureGemmOp(Operation *op, const GPUTargetInfo &target,
                            GemmSpec &spec) {
  chooseConfig(getGemmConfig(op), spec);
  if (spec.preDequantized())
    chooseClusterM(spec, target, op);
}

/// The host side shared by both patterns: the operand buffers (data and
/// scales of both operands, then `offs` and `bias` where present), the
/// result buffer, the configuration of `spec` for `op`, the launches, and
/// `op` replaced by the result.
static LogicalResult lowerGemmOp(PatternRewriter &rewriter,
                                 const KernelCache &cache, Operation *op,
                                 GemmSpec spec, Value lhs, Value lhsScales,
                                 Value rhs, Value rhsScales, Value offs,
                                 Value bias, RankedTensorType resultType) {
  // sm_100a reads the configuration's cta_group only.
  if (cache.getTarget().chip == GPUChip::SM100a)
    return lowerGemmToTcgen05(
        rewriter, cache, op, spec, getGemmConfig(op).getCtaGroup().value_or(1),
        lhs, lhsScales, rhs, rhsScales, offs, bias, resultType);
  // The Hopper kernels read row-major scales (and blocked ones of rank-2
  // scaled_mm).
  if (spec.kind != GemmKind::Dense &&
      (spec.a.blockedScales || spec.b.blockedScales))
    return rewriter.notifyMatchFailure(
        op, "grouped blocked scale layouts are not supported on sm_90a");
  Location loc = op->getLoc();
  SmallVector<Value> args = {
      flatBuffer(rewriter, loc, lhs), flatBuffer(rewriter, loc, lhsScales),
      flatBuffer(rewriter, loc, rhs), flatBuffer(rewriter, loc, rhsScales)};
  Value outBuf =
      appendGemmTailArgs(rewriter, loc, args, offs, bias, resultType);
  configureGemmOp(op, cache.getTarget(), spec);
  GemmConfigAttr config = getGemmConfig(op);
  launchGemmOp(rewriter, loc, cache, op, config, spec, args);
  rewriter.replaceOp(op, toTensor(rewriter, loc, outBuf));
  return success();
}

std::optional<std::array<PreDequantOperand, 2>>
gpu_lowering::getPreDequantOperands(Operation *op,
                                    const GPUTargetInfo &target) {
  if (!isa<ScaledMmOp, ScaledGroupedMmOp>(op) || !hasStaticShapes(op))
    return std::nullopt;
  GemmSpec spec = isa<ScaledMmOp>(op)
                      ? getScaledMmSpec(cast<ScaledMmOp>(op))
                      : getScaledGroupedMmSpec(cast<ScaledGroupedMmOp>(op));
  // The forms lowerGemmOp takes on sm_90a.
  if (spec.kind != GemmKind::Dense &&
      (spec.a.blockedScales || spec.b.blockedScales))
    return std::nullopt;
  configureGemmOp(op, target, spec);
  if (!spec.preDequantized())
    return std::nullopt;
  return getOperandForms(spec);
}

/// The dispatch on the target's MMA generation. sm_90a: the wgmma kernels
/// of this file; sm_100a: the tcgen05 kernel (TCGen05.cpp). A match failure
/// leaves the op to the simple GEMM (populateSimpleGemmKernelPatterns), at a
/// lower benefit.
static LogicalResult checkGemmTarget(PatternRewriter &rewriter,
                                     const KernelCache &cache, Operation *op) {
  switch (cache.getTarget().chip) {
  case GPUChip::SM90a:
    return success();
  case GPUChip::SM100a:
    // The tcgen05 kernel (lowerGemmOp -> lowerGemmToTcgen05) for the forms
    // it takes; the others fail there and keep the simple GEMM.
    return success();
  }
  llvm_unreachable("unknown GPU chip");
}

namespace {
/// scaled_mm (rank 2 or 3) -> one persistent GEMM kernel.
struct ScaledMmOpToGPU final : KernelPattern<ScaledMmOp> {
  using KernelPattern::KernelPattern;

  LogicalResult rewriteStatic(ScaledMmOp op,
                              PatternRewriter &rewriter) const override {
    // Float8 (f32 scales): WGMMAFloat8.cpp.
    if (op.isFloat8())
      return rewriter.notifyMatchFailure(op, "a Float8 scaled_mm");
    if (failed(checkGemmTarget(rewriter, cache, op)))
      return failure();
    GemmSpec spec = getScaledMmSpec(op);
    auto resultType = op.getResult().getType();
    return lowerGemmOp(rewriter, cache, op, spec, op.getLhs(),
                       op.getLhsScales(), op.getRhs(), op.getRhsScales(),
                       Value(), op.getBias(), resultType);
  }
};

/// scaled_grouped_mm (2d-3d, 2d-2d; row-major scales) -> one kernel.
struct ScaledGroupedMmOpToGPU final : KernelPattern<ScaledGroupedMmOp> {
  using KernelPattern::KernelPattern;

  LogicalResult rewriteStatic(ScaledGroupedMmOp op,
                              PatternRewriter &rewriter) const override {
    if (op.isFloat8())
      return rewriter.notifyMatchFailure(op, "a Float8 scaled_grouped_mm");
    if (failed(checkGemmTarget(rewriter, cache, op)))
      return failure();
    GemmSpec spec = getScaledGroupedMmSpec(op);
    auto resultType = op.getResult().getType();
    return lowerGemmOp(rewriter, cache, op, spec, op.getLhs(),
                       op.getLhsScales(), op.getRhs(), op.getRhsScales(),
                       op.getOffs(), Value(), resultType);
  }
};
} // namespace

void gpu_lowering::populateGemmKernelPatterns(RewritePatternSet &patterns,
                                              KernelCache &cache) {
  patterns.add<ScaledMmOpToGPU, ScaledGroupedMmOpToGPU>(patterns.getContext(),
                                                        cache);
  populateHighPrecisionGemmPatterns(patterns, cache);
  populateFloat8GemmPatterns(patterns, cache);
  populateTcgen05Float8GemmPatterns(patterns, cache);
}
