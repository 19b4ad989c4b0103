//===- WGMMAFloat8.cpp - the sm_90a Float8 (f32-scaled) GEMM -----*- C++
//-*-===//
//
// Float8 `scaled_mm` (f32 scales, SPEC-float8 §5) on sm_90a, natively in
// fp8: the kernel is the v8 GEMM body (emitDequantBF16Gemm, WGMMA.cpp) on a
// GemmSpec of variant WgmmaFloat8, whose stages hold fp8 instead of bf16:
//
//   - the TMA producer copies the operands as they are stored, without a
//     pre-pass: A (M, K) and B stored (N, K), K-major, boxes of tile.m
//     (tile.n) rows x 128 fp8 (128 bytes, the 128B swizzle span; TMA fills
//     rows past M / N and K past its end with zeros), 48 KiB per stage of a
//     128 x 256 tile, four stages;
//   - the two MMA warpgroups issue four `wgmma.mma_async` m64n256k32 per
//     stage with e4m3 / e5m2 inputs (each operand its own type: e5m2
//     grad_output x e4m3 weight of the tensorwise recipe), f32 accumulators,
//     the same smem descriptors as bf16 (32 bytes per K step);
//   - the epilogue (WgmmaConsumer::emitEpilogue with Float8EpilogueScales)
//     multiplies each accumulator by RN_f32(1/sa[m]) then by
//     RN_f32(1/sb[n]) (or the tensorwise reciprocals), then GemmMainloop's
//     storeOutput adds the bias in f32 and rounds once to bf16 (or keeps
//     f32), masking rows past M and columns past N.
//
// fp8 wgmma reads K-major operands from shared memory only: other operand
// layouts are not taken (whyNotWgmmaFloat8; the pass reports the op).
// Float8 `scaled_grouped_mm` 2d-3d (the MoE forward / grad_input: tokens
// (M, K) in groups, experts stored (E, N, K), rowwise scales (M, 1) and
// (E, N, 1)) runs the same kernel on the mainloop's 2d-3d walk; 2d-2d is
// not lowered yet.
//
//===----------------------------------------------------------------------===//

#include "WGMMAFloat8.h"
#include "../TMA.h"
#include "TCGen05.h"
#include "WGMMA.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::gpu_lowering;

//===----------------------------------------------------------------------===//
// Epilogue scales
//===----------------------------------------------------------------------===//

Float8EpilogueScales::Float8EpilogueScales(GemmMainloop &mainloop, Value batch)
    : GemmIndexArith(mainloop.getBuilder()), spec(mainloop.getSpec()),
      args(mainloop.getArgs()), batch(batch) {
  if (spec.aScalarScale)
    aScalar = reciprocal(args.aScales, Value());
  if (spec.bScalarScale)
    bScalar = reciprocal(args.bScales, Value());
}

Value Float8EpilogueScales::reciprocal(Value scales, Value index) {
  // A tensorwise scale is the 0-d buffer of the op's tensor<f32>.
  SmallVector<Value, 1> indices;
  if (index)
    indices.push_back(index);
  Value s = memref::LoadOp::create(kb, scales, indices);
  Value one = arith::ConstantOp::create(kb, kb.getF32FloatAttr(1.0f));
  // No fast-math flags: an IEEE division (div.rn.f32).
  return arith::DivFOp::create(kb, one, s);
}

Value Float8EpilogueScales::getRowFactor(Value row) {
  if (aScalar)
    return aScalar;
  Value r = arith::MinUIOp::create(kb, row, c(spec.m - 1));
  Value base = spec.aBatched ? mul(batch, c(spec.m)) : c(0);
  return reciprocal(args.aScales, add(base, r));
}

Value Float8EpilogueScales::getColumnFactor(Value col) {
  if (bScalar)
    return bScalar;
  Value n = arith::MinUIOp::create(kb, col, c(spec.n - 1));
  Value base = spec.bBatched ? mul(batch, c(spec.n)) : c(0);
  return reciprocal(args.bScales, add(base, n));
}

Value Float8EpilogueScales::apply(Value acc, Value rowFactor,
                                  Value columnFactor) {
  Value v = arith::MulFOp::create(kb, acc, rowFactor);
  return arith::MulFOp::create(kb, v, columnFactor);
}

//===----------------------------------------------------------------------===//
// Configuration
//===----------------------------------------------------------------------===//

void gpu_lowering::configureWgmmaFloat8Gemm(GemmSpec &spec, int64_t tileN,
                                            int64_t stages) {
  configureDequantBF16Gemm(spec, tileN, stages);
  spec.variant = GemmVariant::WgmmaFloat8;
  spec.tile.k = 128;
}

std::string gpu_lowering::whyNotWgmmaFloat8(ScaledMmOp op) {
  if (op.getTransposeLhs())
    return "the sm_90a Float8 GEMM needs lhs stored (M, K) (fp8 wgmma reads "
           "K-major operands only; transpose_lhs is not supported)";
  if (!op.getTransposeRhs())
    return "the sm_90a Float8 GEMM needs rhs stored (N, K) with "
           "transpose_rhs (fp8 wgmma reads K-major operands only)";
  return "";
}

std::string gpu_lowering::whyNotWgmmaFloat8Grouped(ScaledGroupedMmOp op) {
  if (op.isTwoDTwoD())
    return "the Float8 scaled_grouped_mm 2d-2d (grad_weight) is not lowered "
           "to the GPU yet";
  if (op.getTransposeLhs() || !op.getTransposeRhs())
    return "the sm_90a Float8 grouped GEMM needs lhs stored (M, K) and rhs "
           "(E, N, K) with transpose_rhs (fp8 wgmma reads K-major operands "
           "only)";
  return "";
}

std::string gpu_lowering::whyNoFloat8GemmLowering(Operation *op, GPUChip chip) {
  if (chip == GPUChip::SM100a)
    return whyNotTcgen05Float8(op);
  if (chip != GPUChip::SM90a)
    return "the Float8 " + op->getName().stripDialect().str() +
           " is lowered on sm_90a only";
  if (auto mm = dyn_cast<ScaledMmOp>(op))
    return whyNotWgmmaFloat8(mm);
  if (auto gmm = dyn_cast<ScaledGroupedMmOp>(op))
    return whyNotWgmmaFloat8Grouped(gmm);
  return "";
}

//===----------------------------------------------------------------------===//
// Host side
//===----------------------------------------------------------------------===//

/// The gemm_config of `op` read by the Float8 kernel (tile_n, stages; the
/// v8 defaults 256 and 4 otherwise), applied to `spec`.
static void configureFromOp(Operation *op, GemmSpec &spec) {
  int64_t tileN = 256, stages = 4;
  if (auto config =
          op->getAttrOfType<GemmConfigAttr>(GemmConfigAttr::getAttrName())) {
    tileN = config.getTileN().value_or(tileN);
    stages = config.getStages().value_or(stages);
  }
  configureWgmmaFloat8Gemm(spec, tileN, stages);
}

/// The host side of a Float8 GEMM: the tensor maps of the operands in
/// place (K-major boxes of a tile's rows x 128 fp8, one batch / expert per
/// box for a batched operand: a 3-D map, GemmSpec::aSlicedMap), the scale
/// buffers (a tensorwise scale stays the 0-d buffer), [offs], [bias], the
/// result, the launch, and `op` replaced.
static LogicalResult lowerFloat8Gemm(PatternRewriter &rewriter,
                                     const KernelCache &cache, Operation *op,
                                     GemmSpec spec, Value lhs, Value lhsScales,
                                     Value rhs, Value rhsScales, Value offs,
                                     Value bias, RankedTensorType resultType) {
  spec.aScalarScale =
      cast<RankedTensorType>(lhsScales.getType()).getRank() == 0;
  spec.bScalarScale =
      cast<RankedTensorType>(rhsScales.getType()).getRank() == 0;
  configureFromOp(op, spec);
  Location loc = op->getLoc();
  auto mapSpec = [&](int64_t rows, bool batched) {
    tma::TensorMapSpec s;
    if (batched)
      s.box.push_back(1);
    s.box.append({rows, spec.tile.k});
    s.swizzle = tma::Swizzle::B128;
    return s;
  };
  Value aBuf = toBuffer(rewriter, loc, lhs);
  Value bBuf = toBuffer(rewriter, loc, rhs);
  tma::TensorMapSpec aSpec = mapSpec(spec.tile.m, spec.aBatched);
  tma::TensorMapSpec bSpec = mapSpec(spec.tile.n, spec.bBatched);
  std::string why;
  if (!tma::canCreateTensorMap(cast<MemRefType>(aBuf.getType()), aSpec, &why) ||
      !tma::canCreateTensorMap(cast<MemRefType>(bBuf.getType()), bSpec, &why))
    return rewriter.notifyMatchFailure(op, why);
  spec.aSlicedMap = spec.aBatched;
  spec.bSlicedMap = spec.bBatched;
  Value aMap = tma::createTensorMap(rewriter, loc, aBuf, aSpec);
  Value bMap = tma::createTensorMap(rewriter, loc, bBuf, bSpec);
  tma::freeTensorMapAtBlockEnd(rewriter, loc, aMap);
  tma::freeTensorMapAtBlockEnd(rewriter, loc, bMap);

  // GemmArgs order: A map, A scales, B map, B scales, [offs], [bias], out.
  auto scales = [&](Value tensor) -> Value {
    if (cast<RankedTensorType>(tensor.getType()).getRank() == 0)
      return toBuffer(rewriter, loc, tensor);
    return flatBuffer(rewriter, loc, tensor);
  };
  SmallVector<Value> args = {aMap, scales(lhsScales), bMap, scales(rhsScales)};
  Value outBuf =
      appendGemmTailArgs(rewriter, loc, args, offs, bias, resultType);
  launchGemmKernel(rewriter, loc, cache, spec, args,
                   [&](KernelBuilder &kb, ValueRange kargs) {
                     emitDequantBF16Gemm(kb, spec, kargs);
                   });
  rewriter.replaceOp(op, toTensor(rewriter, loc, outBuf));
  return success();
}

namespace {
/// Float8 scaled_mm (rank 2 or 3, K-major operands) -> one persistent
/// Float8 kernel on sm_90a.
struct Float8ScaledMmToWgmma final : KernelPattern<ScaledMmOp> {
  using KernelPattern::KernelPattern;

  LogicalResult rewriteStatic(ScaledMmOp op,
                              PatternRewriter &rewriter) const override {
    if (!op.isFloat8())
      return rewriter.notifyMatchFailure(op, "not a Float8 scaled_mm");
    if (cache.getTarget().chip != GPUChip::SM90a)
      return rewriter.notifyMatchFailure(
          op, "the Float8 GEMM is lowered on sm_90a only");
    if (std::string why = whyNotWgmmaFloat8(op); !why.empty())
      return rewriter.notifyMatchFailure(op, why);
    return lowerFloat8Gemm(rewriter, cache, op, getScaledMmSpec(op),
                           op.getLhs(), op.getLhsScales(), op.getRhs(),
                           op.getRhsScales(), Value(), op.getBias(),
                           op.getResult().getType());
  }
};

/// Float8 scaled_grouped_mm 2d-3d (tokens (M, K), experts stored (E, N, K),
/// rowwise scales) -> one persistent Float8 kernel on sm_90a walking the
/// token groups (GemmMainloop::walkTiles), the rows of each tile past its
/// group masked, the rows past the last group zeroed.
struct Float8ScaledGroupedMmToWgmma final : KernelPattern<ScaledGroupedMmOp> {
  using KernelPattern::KernelPattern;

  LogicalResult rewriteStatic(ScaledGroupedMmOp op,
                              PatternRewriter &rewriter) const override {
    if (!op.isFloat8())
      return rewriter.notifyMatchFailure(op, "not a Float8 scaled_grouped_mm");
    if (cache.getTarget().chip != GPUChip::SM90a)
      return rewriter.notifyMatchFailure(
          op, "the Float8 GEMM is lowered on sm_90a only");
    if (std::string why = whyNotWgmmaFloat8Grouped(op); !why.empty())
      return rewriter.notifyMatchFailure(op, why);
    return lowerFloat8Gemm(rewriter, cache, op, getScaledGroupedMmSpec(op),
                           op.getLhs(), op.getLhsScales(), op.getRhs(),
                           op.getRhsScales(), op.getOffs(), Value(),
                           op.getResult().getType());
  }
};
} // namespace

void gpu_lowering::populateFloat8GemmPatterns(RewritePatternSet &patterns,
                                              KernelCache &cache) {
  patterns.add<Float8ScaledMmToWgmma, Float8ScaledGroupedMmToWgmma>(
      patterns.getContext(), cache);
}
