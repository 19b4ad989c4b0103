//===- WGMMAFloat8.cpp - the sm_90a Float8 (f32-scaled) GEMM ----*- C++ -*-===//
//
// Float8 `scaled_mm` (f32 scales, SPEC-float8 §5) on sm_90a, natively in
// fp8: the kernel is the v8 GEMM body (emitDequantBF16Gemm, WGMMA.cpp) on a
// GemmSpec of variant WgmmaFloat8, whose stages hold fp8 instead of bf16:
//
//   - the TMA producer copies K-major operands as they are stored: A
//     (M, K) and B stored (N, K), boxes of tile.m (tile.n) rows x 128 fp8
//     (128 bytes, the 128B swizzle span; TMA fills rows past M / N and K
//     past its end with zeros), as many stages as fit (at most six,
//     four for grouped GEMMs: configureFromOp). fp8 wgmma reads K-major
//     shared memory only: an MN-major operand (dgrad's weight stored
//     (K, N), wgrad's grad_output and input stored (tokens, rows)) is
//     first copied K-major by the fp8 transpose pre-pass
//     (Float8Transpose.h), whose buffer the tensor map reads instead;
//   - the two MMA warpgroups issue four `wgmma.mma_async` m64nNk32 per
//     stage with e4m3 / e5m2 inputs (each operand its own type: e5m2
//     grad_output x e4m3 weight of the tensorwise recipe), f32 accumulators,
//     the same smem descriptors as bf16 (32 bytes per K step);
//   - accumulation: the forward GEMMs accumulate in the wgmma accumulators
//     over the whole K (torchao's use_fast_accum=True); the others promote
//     them into a separate f32 sum every `float8-promote-interval`
//     contraction elements (use_fast_accum=False: the fp8 tensor core's
//     accumulation keeps fewer mantissa bits), on 128 x 128 tiles, whose
//     two accumulator sets fit the MMA warpgroups' registers;
//   - the epilogue (WgmmaConsumer::emitEpilogue with Float8EpilogueScales)
//     multiplies each accumulator by RN_f32(1/sa[m]) then by
//     RN_f32(1/sb[n]) (or the tensorwise reciprocals), then GemmMainloop's
//     storeOutput adds the bias in f32 and rounds once to bf16 (or keeps
//     f32), masking rows past M and columns past N.
//
// Float8 `scaled_grouped_mm` 2d-3d (the MoE forward / grad_input: tokens
// (M, K) in groups, experts stored (E, N, K) with transpose_rhs, or
// (E, K, N) as the dgrad's weight, transposed per expert by the pre-pass
// into a stacked (E x N, K) buffer; rowwise scales (M, 1) and (E, N, 1) /
// (E, 1, N)) runs the same kernel on the mainloop's 2d-3d walk; 2d-2d (the
// fp8_rowwise grad_weight: tokens (T, M) and (T, N), scales (E, M) and
// (E, N)) transposes both operands with each token group padded to 128
// and runs the mainloop's 2d-2d walk over each group's padded range.
//
//===----------------------------------------------------------------------===//

#include "WGMMAFloat8.h"
#include "../TMA.h"
#include "Float8Transpose.h"
#include "Float8TransposeFusion.h"
#include "GemmAmaxFusion.h"
#include "GemmLaunch.h"
#include "GemmSumFusion.h"
#include "TCGen05.h"
#include "WGMMA.h"

#include "mxfp8train/Dialect/MXFP8Train/Transforms/Transforms.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::gpu_lowering;

//===----------------------------------------------------------------------===//
// Epilogue scales
//===----------------------------------------------------------------------===//

Float8EpilogueScales::Float8EpilogueScales(GemmMainloop &mainloop, Value batch)
    : GemmIndexArith(mainloop.getBuilder()), mainloop(mainloop),
      spec(mainloop.getSpec()), args(mainloop.getArgs()), batch(batch) {
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

void Float8EpilogueScales::stageFactors(Value sharedAddr, Value thread,
                                        int64_t threads, Value rowBase,
                                        Value colBase) {
  auto barrier = [&] {
    NVVM::BarrierOp::create(kb, Type(), kb.i32(kFactorBarrier), kb.i32(threads),
                            {}, Value());
  };
  barrier();
  Value rows = sharedAddr;
  Value cols = add(sharedAddr, c(spec.tile.m * 4));
  // Factor i of an operand of `count` per tile: threads take i = thread,
  // thread + threads, ... (coalesced scale loads).
  auto stage = [&](Value dst, int64_t count, Value base,
                   function_ref<Value(Value)> compute) {
    for (int64_t i0 = 0; i0 < count; i0 += threads) {
      Value i = add(thread, c(i0));
      auto body = [&] {
        // Sequenced (argument evaluation order is unspecified): the
        // factor's ops, then the address's.
        Value factor = compute(add(base, i));
        Value ptr = mainloop.getSharedPointer(add(dst, mul(i, c(4))));
        LLVM::StoreOp::create(kb, factor, ptr);
      };
      if (i0 + threads <= count)
        body();
      else
        kb.ifThen(ult(i, c(count)), body);
    }
  };
  if (!aScalar)
    stage(rows, spec.tile.m, rowBase,
          [&](Value r) { return computeRowFactor(r); });
  if (!bScalar)
    stage(cols, spec.tile.n, colBase,
          [&](Value n) { return computeColumnFactor(n); });
  barrier();
  this->rowBase = rowBase;
  this->colBase = colBase;
  rowFactors = rows;
  columnFactors = cols;
}

Value Float8EpilogueScales::loadStaged(Value base, Value index) {
  Value ptr = mainloop.getSharedPointer(add(base, mul(index, c(4))));
  return LLVM::LoadOp::create(kb, kb.getF32Type(), ptr, /*alignment=*/4);
}

Value Float8EpilogueScales::getRowFactor(Value row) {
  if (aScalar)
    return aScalar;
  if (rowFactors)
    return loadStaged(rowFactors, sub(row, rowBase));
  return computeRowFactor(row);
}

Value Float8EpilogueScales::getColumnFactor(Value col) {
  if (bScalar)
    return bScalar;
  if (columnFactors)
    return loadStaged(columnFactors, sub(col, colBase));
  return computeColumnFactor(col);
}

Value Float8EpilogueScales::computeRowFactor(Value row) {
  Value r = arith::MinUIOp::create(kb, row, c(spec.m - 1));
  // Batched operands and 2d-2d (scales (E, M), SPEC-float8 §3.3): one row
  // of scales per batch or group.
  bool perBatch = spec.aBatched || spec.kind == GemmKind::Grouped2d2d;
  Value base = perBatch ? mul(batch, c(spec.m)) : c(0);
  return reciprocal(args.aScales, add(base, r));
}

Value Float8EpilogueScales::computeColumnFactor(Value col) {
  Value n = arith::MinUIOp::create(kb, col, c(spec.n - 1));
  bool perBatch = spec.bBatched || spec.kind == GemmKind::Grouped2d2d;
  Value base = perBatch ? mul(batch, c(spec.n)) : c(0);
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
  // The cluster along M for the grouped forms with 128 x 256 tiles and
  // fast accumulation. Measured on the H200 (bench/README.md, "Session
  // 19" and "Session 21"): the DeepSeek Float8 steps' grouped GEMMs 1-2 %
  // faster with the pair in both calls; the dense fast-accumulation
  // kernels 0-5 % faster with it in three calls, 1 % slower in one; the
  // promoted 128 x 128 kernels 2-14 % slower with it (twice as slow
  // before the stage release became predicated: ptxas spilled them).
  spec.clusterM =
      spec.kind != GemmKind::Dense && tileN == 256 && !spec.promoteInterval ? 2
                                                                            : 1;
}

std::string gpu_lowering::whyNotWgmmaFloat8(ScaledMmOp op) {
  // K-major operands are read in place; MN-major ones go through the fp8
  // transpose pre-pass, which needs K a multiple of 16.
  GemmSpec spec = getScaledMmSpec(op);
  for (const gemm::OperandLayout *l : {&spec.a, &spec.b})
    if (!l->kMajor)
      if (std::string why = whyNotFloat8Transpose(l->k); !why.empty())
        return why;
  return "";
}

std::string gpu_lowering::whyNotWgmmaFloat8Grouped(ScaledGroupedMmOp op) {
  GemmSpec spec = getScaledGroupedMmSpec(op);
  // 2d-2d: both operands are transposed with their token groups padded to
  // 128.
  if (op.isTwoDTwoD())
    return whyNotFloat8GroupedTranspose(spec);
  if (op.getTransposeLhs())
    return "the sm_90a Float8 grouped GEMM 2d-3d needs lhs stored (M, K) "
           "(fp8 wgmma reads K-major operands only; the token groups run "
           "along M)";
  // Experts stored (E, K, N) (the dgrad's weight) are transposed per expert
  // by the pre-pass.
  if (!spec.b.kMajor)
    return whyNotFloat8Transpose(spec.b.k);
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

/// The promotion interval of `op` (GemmSpec::promoteInterval): 0 with
/// fast accumulation, which the op's `mxfp8train.use_fast_accum` gives
/// (set by the rewrite from torchao's Float8LinearConfig and grouped
/// recipe, RecipeAttrInterface::usesFastAccum) and, without it, torchao's
/// rule: every grouped GEMM and the forward dense GEMM (`mxfp8train.role`);
/// else the target's interval.
static int64_t getPromoteInterval(Operation *op, const GPUTargetInfo &target) {
  bool fastAccum;
  if (auto attr = op->getAttrOfType<BoolAttr>(kUseFastAccumAttrName)) {
    fastAccum = attr.getValue();
  } else {
    auto role = op->getAttrOfType<StringAttr>(kMatmulRoleAttrName);
    fastAccum =
        isa<ScaledGroupedMmOp>(op) || (role && role.getValue() == "forward");
  }
  return fastAccum ? 0 : target.float8PromoteInterval;
}

/// The most ring stages of the dense Float8 kernel by default, and of the
/// grouped ones (whose group walks hold more registers: with six stages,
/// whose ring index is a division rather than a mask, ptxas spilled the
/// promoted 2d-2d kernel).
constexpr int64_t kMaxFloat8Stages = 6, kMaxGroupedFloat8Stages = 4;

/// The output columns of the promoted kernels' 128-row tiles by default
/// (GPUTargetInfo::float8PromoteTileN).
constexpr int64_t kDefaultPromotedTileN = 128;

/// The gemm_config of `op` read by the Float8 kernel (tile_n, stages; by
/// default 128 x 256 tiles, with promotion 128 x `float8-promote-tile-n`
/// (kDefaultPromotedTileN), and as many stages as fit in
/// GemmSpec::kMaxSharedBytes, at most kMaxFloat8Stages, or
/// kMaxGroupedFloat8Stages for grouped GEMMs: four of 48 KiB, six of 32
/// KiB for dense 128 x 128 tiles), applied to `spec`.
static void configureFromOp(Operation *op, const GPUTargetInfo &target,
                            GemmSpec &spec) {
  spec.promoteInterval = getPromoteInterval(op, target);
  int64_t tileN = 256;
  if (spec.promoteInterval)
    tileN = target.float8PromoteTileN ? target.float8PromoteTileN
                                      : kDefaultPromotedTileN;
  std::optional<int64_t> stages;
  if (auto config =
          op->getAttrOfType<GemmConfigAttr>(GemmConfigAttr::getAttrName())) {
    // The promoted kernels' f32 sum and accumulators of m64n256 do not fit
    // the MMA warpgroups' 216 registers: a tile_n of 256 keeps their width.
    if (std::optional<int64_t> n = config.getTileN();
        n && (!spec.promoteInterval || *n <= 192))
      tileN = *n;
    stages = config.getStages();
  }
  int64_t maxStages =
      spec.kind == GemmKind::Dense ? kMaxFloat8Stages : kMaxGroupedFloat8Stages;
  configureWgmmaFloat8Gemm(spec, tileN, stages.value_or(maxStages));
  // (After the tile, on which the default depends; two sets fit tiles of
  // at most 128 columns.)
  spec.promoteUnroll = target.float8PromoteUnroll && tileN <= 128
                           ? target.float8PromoteUnroll
                           : spec.getDefaultPromoteUnroll();
  chooseClusterM(spec, target, op);
  if (stages)
    return;
  // (ncu on the H200: with four stages of 128 x 128 the MMA warps of the
  // promoted kernel waited for full stages a fifth of the time.)
  spec.fitStagesToSharedMemory();
}

std::array<std::optional<Float8TransposedForm>, 2>
gpu_lowering::getFloat8TransposedForms(Operation *op,
                                       const GPUTargetInfo &target) {
  std::array<std::optional<Float8TransposedForm>, 2> forms;
  auto mm = dyn_cast<ScaledMmOp>(op);
  auto gmm = dyn_cast<ScaledGroupedMmOp>(op);
  if (!(mm && mm.isFloat8()) && !(gmm && gmm.isFloat8()))
    return forms;
  if (!hasStaticShapes(op) ||
      !whyNoFloat8GemmLowering(op, GPUChip::SM90a).empty())
    return forms;
  GemmSpec spec;
  std::array<Value, 2> operands;
  if (mm) {
    spec = getScaledMmSpec(mm);
    operands = {mm.getLhs(), mm.getRhs()};
  } else {
    spec = getScaledGroupedMmSpec(gmm);
    operands = {gmm.getLhs(), gmm.getRhs()};
  }
  configureFromOp(op, target, spec);
  std::array<const gemm::OperandLayout *, 2> layouts = {&spec.a, &spec.b};
  std::array<bool, 2> batched = {spec.aBatched, spec.bBatched};
  // The boxes of the GEMM's tensor maps (B: its share with the cluster
  // along M), as lowerFloat8Gemm creates them.
  std::array<int64_t, 2> boxRows = {spec.tile.m, spec.getBoxRowsB()};
  for (unsigned i = 0; i < 2; ++i) {
    if (layouts[i]->kMajor)
      continue;
    Type type = cast<RankedTensorType>(operands[i].getType()).getElementType();
    forms[i] = Float8TransposedForm{
        getFloat8TransposeSpec(spec, *layouts[i], batched[i], type),
        boxRows[i]};
  }
  return forms;
}

/// The host side of a Float8 GEMM: the tensor maps of the operands (in
/// place for a K-major operand: boxes of a tile's rows x 128 fp8, one
/// batch / expert per box for a batched operand, a 3-D map,
/// GemmSpec::aSlicedMap; an MN-major operand is first transposed by the
/// fp8 transpose pre-pass into a K-major buffer allocated at the start of
/// the block, whose 2-D map stacks the batches), the scale buffers (a
/// tensorwise scale stays the 0-d buffer), [offs], [bias], the result, the
/// launches, and `op` replaced.
static LogicalResult lowerFloat8Gemm(PatternRewriter &rewriter,
                                     const KernelCache &cache, Operation *op,
                                     GemmSpec spec, Value lhs, Value lhsScales,
                                     Value rhs, Value rhsScales, Value offs,
                                     Value bias, RankedTensorType resultType) {
  spec.aScalarScale =
      cast<RankedTensorType>(lhsScales.getType()).getRank() == 0;
  spec.bScalarScale =
      cast<RankedTensorType>(rhsScales.getType()).getRank() == 0;
  configureFromOp(op, cache.getTarget(), spec);
  Location loc = op->getLoc();
  auto mapSpec = [&](int64_t rows, bool batched) {
    tma::TensorMapSpec s;
    if (batched)
      s.box.push_back(1);
    s.box.append({rows, spec.tile.k});
    s.swizzle = tma::Swizzle::B128;
    return s;
  };
  // The K-major operands' maps over the operands as stored.
  std::array<Value, 2> operands = {lhs, rhs};
  std::array<gemm::OperandLayout *, 2> layouts = {&spec.a, &spec.b};
  std::array<bool, 2> batched = {spec.aBatched, spec.bBatched};
  std::array<int64_t, 2> boxRows = {spec.tile.m, spec.getBoxRowsB()};
  std::array<Value, 2> maps;
  for (unsigned i = 0; i < 2; ++i) {
    if (!layouts[i]->kMajor)
      continue;
    Value buf = toBuffer(rewriter, loc, operands[i]);
    tma::TensorMapSpec s = mapSpec(boxRows[i], batched[i]);
    std::string why;
    if (!tma::canCreateTensorMap(cast<MemRefType>(buf.getType()), s, &why))
      return rewriter.notifyMatchFailure(op, why);
    maps[i] = tma::createTensorMap(rewriter, loc, buf, s);
    tma::freeTensorMapAtBlockEnd(rewriter, loc, maps[i]);
  }
  spec.aSlicedMap = spec.aBatched && spec.a.kMajor;
  spec.bSlicedMap = spec.bBatched && spec.b.kMajor;
  // The MN-major operands: their K-major buffers (and maps) at the start of
  // the block, the transposes here.
  SmallVector<Float8TransposeSpec> transposes;
  SmallVector<PaddedOperandShape> shapes;
  SmallVector<unsigned> transposed;
  const Float8TransposeFusion *fusion = cache.getFloat8TransposeFusion();
  for (unsigned i = 0; i < 2; ++i) {
    if (layouts[i]->kMajor)
      continue;
    Type type = cast<RankedTensorType>(operands[i].getType()).getElementType();
    Float8TransposeSpec d =
        getFloat8TransposeSpec(spec, *layouts[i], batched[i], type);
    // A Float8 cast already wrote this K-major buffer (and its map).
    if (const FusedTransposedOperand *fused =
            fusion ? fusion->getGemmOperand(op, i) : nullptr) {
      assert(fused->form.d.getName() == d.getName() &&
             fused->form.boxRows == boxRows[i] &&
             "the plan's form is the one this GEMM reads");
      maps[i] = fused->map;
      *layouts[i] = {d.rows, d.getOutputK(), true, false};
      continue;
    }
    transposes.push_back(d);
    shapes.push_back({d.batches * d.rows, d.getOutputK(), boxRows[i], type});
    transposed.push_back(i);
  }
  SmallVector<PaddedOperand> buffers =
      createPaddedOperands(rewriter, loc, shapes);
  Value offsBuf = offs ? flatBuffer(rewriter, loc, offs) : Value();
  for (auto [i, d, buffer] : llvm::zip_equal(transposed, transposes, buffers)) {
    launchFloat8Transpose(rewriter, loc, cache, d,
                          flatBuffer(rewriter, loc, operands[i]), offsBuf,
                          buffer.buffer);
    maps[i] = buffer.map;
    // The GEMM reads the K-major buffer (a stacked 2-D map).
    *layouts[i] = {d.rows, d.getOutputK(), true, false};
  }

  // GemmArgs order: A map, A scales, B map, B scales, [offs], [bias],
  // [addend], [amax inputs], out, [amax words]; the addend is the other
  // term of the bf16 sum the result feeds (GemmSumFusion.h), the amax
  // inputs and words those of the casts whose amaxes the epilogue takes
  // (GemmAmaxFusion.h).
  GemmEpilogueOperands epilogue;
  const GemmSumFusion *sums = cache.getGemmSumFusion();
  epilogue.addend = sums ? sums->getAddend(op) : Value();
  if (epilogue.addend)
    spec.addendType = getElementTypeOrSelf(epilogue.addend.getType());
  const GemmAmaxFusion *amaxes = cache.getGemmAmaxFusion();
  const GemmAmaxEpilogue *amax = amaxes ? amaxes->getEpilogue(op) : nullptr;
  if (amax && spec.usesStagedEpilogue() && !epilogue.addend) {
    spec.amaxProducer = amax->producer;
    spec.amaxInputArgs = amax->inputArgs;
    spec.amaxWarps = cache.getTarget().gemmAmaxWarps;
    epilogue.amaxInputs = getInputs(*amax);
    // One word per cast, zeroed in-stream before the GEMM's launch.
    epilogue.amaxWords = allocZeroedWords(
        rewriter, loc, {static_cast<int64_t>(amax->casts.size())});
    amaxes->setWords(*amax, epilogue.amaxWords);
    // (The amax warps' tile mbarriers take a few more shared bytes; this
    // lowers the stage count only where they would not fit, an explicit
    // gemm_config count included.)
    spec.fitStagesToSharedMemory();
  } else if (amax) {
    // (Not reached: the plan asks for the staged epilogue without a sum.)
    amaxes->decline(*amax);
  }
  Value lhsScalesBuf = getFloat8ScalesBuffer(rewriter, loc, lhsScales);
  Value rhsScalesBuf = getFloat8ScalesBuffer(rewriter, loc, rhsScales);
  SmallVector<Value> args = {maps[0], lhsScalesBuf, maps[1], rhsScalesBuf};
  launchGemmAndReplace(
      rewriter, op, cache, spec, args, offs, bias, resultType,
      [&](KernelBuilder &kb, ValueRange kargs) {
        emitDequantBF16Gemm(kb, spec, kargs);
      },
      epilogue);
  return success();
}

namespace {
/// Float8 scaled_mm (rank 2 or 3, K-major operands) and scaled_grouped_mm
/// -> one persistent Float8 kernel on sm_90a. 2d-3d (tokens (M, K), experts
/// stored (E, N, K), or (E, K, N) through the transpose pre-pass, rowwise
/// scales): the kernel walks the token groups
/// (GemmMainloop::walkTiles), the rows of each tile past its group masked,
/// the rows past the last group zeroed. 2d-2d (tokens (T, M) and (T, N),
/// scales (E, M) and (E, N)): the two transposes (token groups padded to
/// 128) and the kernel on each group's padded range (an empty group's
/// output is zeros).
template <typename OpTy> struct Float8GemmToWgmma final : KernelPattern<OpTy> {
  using KernelPattern<OpTy>::KernelPattern;

  LogicalResult rewriteStatic(OpTy op,
                              PatternRewriter &rewriter) const override {
    if (!op.isFloat8())
      return rewriter.notifyMatchFailure(op, "not a Float8 GEMM");
    if (this->cache.getTarget().chip != GPUChip::SM90a)
      return rewriter.notifyMatchFailure(
          op, "the Float8 GEMM is lowered on sm_90a only");
    if (std::string why = whyNoFloat8GemmLowering(op, GPUChip::SM90a);
        !why.empty())
      return rewriter.notifyMatchFailure(op, why);
    GemmSpec spec;
    Value offs, bias;
    if constexpr (std::is_same_v<OpTy, ScaledGroupedMmOp>) {
      spec = getScaledGroupedMmSpec(op);
      offs = op.getOffs();
    } else {
      spec = getScaledMmSpec(op);
      bias = op.getBias();
    }
    return lowerFloat8Gemm(rewriter, this->cache, op, spec, op.getLhs(),
                           op.getLhsScales(), op.getRhs(), op.getRhsScales(),
                           offs, bias, op.getResult().getType());
  }
};
} // namespace

void gpu_lowering::populateFloat8GemmPatterns(RewritePatternSet &patterns,
                                              KernelCache &cache) {
  patterns
      .add<Float8GemmToWgmma<ScaledMmOp>, Float8GemmToWgmma<ScaledGroupedMmOp>>(
          patterns.getContext(), cache);
}
