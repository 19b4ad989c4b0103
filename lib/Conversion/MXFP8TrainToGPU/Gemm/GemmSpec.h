//===- GemmSpec.h - what a GPU GEMM kernel is specialised on ----*- C++ -*-===//
//
// The description of one MX GEMM kernel of convert-mxfp8train-to-gpu: the
// problem (kind, sizes, operand layouts, element types, bias), the kernel
// variant and its configuration (tile, stages, prefetch, ...), the
// shared-memory carve-out sizes, and the kernel name, which spells out
// everything the kernel is specialised on (kernels of equal names are
// reused), and the problem of a scaled_mm / scaled_grouped_mm op. The
// mainloop (GemmMainloop.h), every MMA generation and the patterns
// (GemmPatterns.cpp) read it; nothing here emits IR.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_GEMM_GEMMSPEC_H
#define MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_GEMM_GEMMSPEC_H

#include "mxfp8train/Conversion/Utils/GemmTiling.h"
#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainOps.h"

#include "mlir/IR/Types.h"
#include "llvm/Support/MathExtras.h"

#include <string>

namespace mlir {
namespace mxfp8train {
namespace gpu_lowering {

/// The GEMM problem forms.
enum class GemmKind {
  /// `scaled_mm`, rank 2 or 3 (batches).
  Dense,
  /// `scaled_grouped_mm` 2d-3d: token groups along M, one B per group.
  Grouped2d3d,
  /// `scaled_grouped_mm` 2d-2d: token groups along K, one output per group.
  Grouped2d2d
};

/// The kernel variants (docs/gpu.md; the numbers are the bench history's).
enum class GemmVariant {
  /// v5: every warp loads, upcasts and multiplies; CTA barriers per stage.
  FusedUpcast,
  /// v7: warp-specialised fused upcast: converter warpgroups fill an
  /// mbarrier stage ring that two wgmma warpgroups consume.
  FusedUpcastWS,
  /// v8: the operands were dequantized into padded bf16 by the pre-pass;
  /// a TMA producer (one thread of a warpgroup) fills the ring, two wgmma
  /// warpgroups consume it.
  DequantBF16,
  /// sm_100a: block-scaled tcgen05 MMAs on fp8 stages filled by TMA, the
  /// accumulator in Tensor Memory (TCGen05.cpp).
  Tcgen05,
  /// sm_90a Float8 (f32-scaled) GEMM: the v8 ring (TMA producer, two wgmma
  /// warpgroups) on the fp8 operands as stored (K-major), `wgmma` k32 on
  /// e4m3 / e5m2 stages, the scale reciprocals applied in the epilogue
  /// (WGMMAFloat8.cpp).
  WgmmaFloat8,
};

/// Threads of the two MMA warpgroups of the Hopper kernels (of the whole
/// CTA for the fused-upcast kernel).
inline constexpr int64_t kMmaThreads = 256;

/// Everything a GEMM kernel is specialised on.
struct GemmSpec {
  GemmKind kind = GemmKind::Dense;
  /// MX operands (fp8 data with block scales: `scaled_mm`,
  /// `scaled_grouped_mm`); false for the high-precision GEMMs (bf16 or f16
  /// operands, no scales: linalg contractions, `grouped_mm`), which run the
  /// DequantBF16 kernel on their operands as they are or packed
  /// (HighPrecisionGemm.cpp).
  bool scaled = true;
  /// GEMM sizes: the output (per batch or group) is m x n, contraction k.
  int64_t m = 0, n = 0, k = 0;
  /// Dense: batches (1 for rank 2); grouped: experts E.
  int64_t batches = 1;
  /// The two operands: `a` is m x k, `b` is n x k (logical rows x K).
  gemm::OperandLayout a, b;
  /// Whether the operand has one slice per batch/expert.
  bool aBatched = false, bBatched = false;
  Type aType, bType, outType;
  /// Null without bias.
  Type biasType;
  /// The output's initial value, added in fp32 before the rounding of the
  /// result (linalg semantics, C += A B); null for a zero-filled output.
  Type initType;
  /// A bf16 tensor of the output's shape added after the rounding (the
  /// elementwise sum the result feeds, GemmSumFusion.h): out = bf16(f32(
  /// addend) + f32(bf16(result))); null without.
  Type addendType;
  /// WgmmaFloat8 with a staged epilogue: the elementwise producer
  /// (linalg.generic) whose results' tensorwise amaxes the epilogue takes
  /// from the output values (Gemm/GemmAmaxFusion.h); null without.
  /// amaxInputArgs[i]: -1 where the producer's input i is this GEMM's
  /// result, else the extra bf16 kernel input (of the output's shape) it
  /// is.
  Operation *amaxProducer = nullptr;
  SmallVector<int64_t, 4> amaxInputArgs;
  /// With amaxProducer: 0 for the amaxes in the MMA warps' staged epilogue,
  /// else warps 1.. of the TMA producer warpgroup that take them from each
  /// finished tile (GPUTargetInfo::gemmAmaxWarps), synchronised with the
  /// MMA warps by a ring of kAmaxTileSlots tile mbarriers.
  int64_t amaxWarps = 0;
  static constexpr int64_t kAmaxTileSlots = 4;
  /// Bytes of the amax warps' tile mbarriers (full[slots], empty[slots]),
  /// after the Float8 scale reciprocals; none without amax warps.
  int64_t amaxBarrierBytes() const {
    return amaxProducer && amaxWarps ? 16 * kAmaxTileSlots : 0;
  }
  /// Where the amax warps' tile mbarriers start among the extra bytes
  /// (extraBytes' order: staging slots, scale reciprocals, mbarriers).
  int64_t amaxBarrierOffset() const {
    return stagedEpilogueBytes() + float8FactorBytes();
  }
  /// The extra inputs the amax epilogue reads.
  int64_t getAmaxInputCount() const {
    int64_t count = 0;
    for (int64_t arg : amaxInputArgs)
      count = std::max(count, arg + 1);
    return count;
  }
  /// DequantBF16, batched operands: the tensor map is 3-D (batch, rows, K)
  /// over the operand as it is stored, one batch per box, instead of the
  /// batches' padded rows stacked in a 2-D map.
  bool aSlicedMap = false, bSlicedMap = false;
  gemm::TileShape tile;
  int64_t stages = 3;
  /// Contraction tiles loaded into registers ahead of their conversion.
  int64_t prefetch = 1;
  /// Resident CTAs per SM the kernel is compiled for (.minnctapersm).
  int64_t ctasPerSM = 1;
  /// Per-K-block scale rebalancing (exactness of extreme scale pairs).
  bool rebalance = true;
  GemmVariant variant = GemmVariant::FusedUpcast;
  /// FusedUpcastWS: converter warpgroups (1 or 2).
  int64_t converterGroups = 2;
  /// DequantBF16 and its fallback: the kernel reads the flag word of the
  /// two dequantization pre-passes and runs only when it is 0 (DequantBF16)
  /// or 1 (the fallback, with `runWhenUnsafe`): 1 when a block bf16 cannot
  /// hold exactly was seen.
  bool guarded = false;
  bool runWhenUnsafe = false;
  /// Guarded: one flag word per operand instead of one shared word (an
  /// operand whose bf16 form a quantize kernel wrote raises its own
  /// quantize's flag, DequantFusion.h); the kernel ORs the two.
  bool flagPerOperand = false;
  /// Tcgen05: CTAs per MMA (`cta_group::1` or `::2`). With 2, a cluster of
  /// two CTAs computes each `tile` (256 x 256): CTA r of the pair holds
  /// rows [128 r, 128 r + 128) of the A tile and of the B tile, and its
  /// rows of the output in its Tensor Memory.
  int64_t ctaGroup = 1;
  /// The TMA-fed wgmma kernels (DequantBF16, WgmmaFloat8): CTAs of a
  /// cluster along M (1 or 2). With 2, the two CTAs of a cluster compute the
  /// M-adjacent tiles 2p and 2p + 1 of one pair p of row tiles with the same
  /// N tile (and batch or group); each loads its own A tile and half of the
  /// shared B tile (`getBoxRowsB()` rows), which TMA multicasts into both
  /// CTAs' stage (GemmMainloop.h, "The cluster").
  int64_t clusterM = 1;
  /// WgmmaFloat8: the operand's f32 scale is one tensorwise scalar (else one
  /// per row of `a` / per column of the output for `b`).
  bool aScalarScale = false, bScalarScale = false;
  /// Tcgen05: a Float8 problem (f32 scales, SPEC-float8 §5): `kind::f8f6f4`
  /// MMAs without scale factors, no scale chunks in the ring or Tensor
  /// Memory, and the epilogue multiplies by the scale reciprocals
  /// (Float8EpilogueScales; `aScalarScale` / `bScalarScale` as above).
  bool tcgen05Float8 = false;
  /// WgmmaFloat8: contraction elements (a multiple of tile.k) after which
  /// the MMA accumulators are added into a separate f32 sum and restarted
  /// (the promotion of `torch._scaled_mm(use_fast_accum=False)`); 0 for
  /// fast accumulation (one wgmma accumulator over the whole K).
  int64_t promoteInterval = 0;
  /// WgmmaFloat8 with promoteInterval == tile.k: 1 for one accumulator set,
  /// added into the sum after each tile's `wait_group 0` (the two MMA
  /// warpgroups issue in turn, WgmmaConsumer::usesOrderedIssue; the only
  /// form whose registers fit tiles wider than 128), else contraction tiles per
  /// iteration of the two-set pipelined promotion (even; each iteration
  /// ends with wait_group 0). GPUTargetInfo::float8PromoteUnroll, else
  /// getDefaultPromoteUnroll; the kernel name says `u<N>` when it is not
  /// the default.
  int64_t promoteUnroll = 2;
  /// 4 for dense GEMMs with bf16 results (half the drains of 2: 5-6 % off
  /// the promoted Llama GEMMs on the H200, both sets still in registers),
  /// else 2 (with 4, ptxas spilled the grouped and the f32-output forms).
  int64_t getDefaultPromoteUnroll() const {
    if (tile.n > 128)
      return 1;
    return kind == GemmKind::Dense && outType && outType.isBF16() ? 4 : 2;
  }

  /// The operands were dequantized by the pre-pass into zero-padded K-major
  /// bf16 buffers (`a`, `b` describe the padded buffers), which one thread
  /// of the producer warpgroup copies into the ring with TMA.
  bool preDequantized() const { return variant == GemmVariant::DequantBF16; }
  /// The Blackwell kernel: fp8 stages, scale chunks, TMEM accumulator.
  bool isTcgen05() const { return variant == GemmVariant::Tcgen05; }
  /// The Hopper Float8 kernel: fp8 stages filled by TMA from the operands
  /// as stored, f32 scale reciprocals in the epilogue.
  bool isWgmmaFloat8() const { return variant == GemmVariant::WgmmaFloat8; }
  /// The operands are loaded by TMA (kernel arguments are tensor maps).
  bool loadsOperandsByTma() const {
    return preDequantized() || isWgmmaFloat8();
  }
  /// Warp roles synchronised by the mbarrier stage ring (GemmMainloop).
  bool usesStageRing() const { return variant != GemmVariant::FusedUpcast; }
  /// The shorter converter of v7 (`prmt` byte placement, one multiply per
  /// bf16 pair where the scales allow it, `redux.sync` maxima).
  bool fastConverter() const { return variant == GemmVariant::FusedUpcastWS; }
  /// Threads that fill the stages: the converter warpgroups of v7, the TMA
  /// producer warpgroup of v8 (one thread issues the copies; a whole
  /// warpgroup so that setmaxnreg can move its registers to the MMA
  /// warpgroups); all 256 of v5.
  int64_t converterThreads() const {
    return usesStageRing() ? 128 * converterGroups : 256;
  }
  /// Threads per CTA: FusedUpcast two warpgroups that do everything; the
  /// ring kernels the two MMA warpgroups (threads 0-255) followed by the
  /// producers.
  int64_t threads() const {
    if (isTcgen05())
      return 256;
    return usesStageRing() ? kMmaThreads + converterThreads() : 256;
  }

  int64_t tilesM() const { return llvm::divideCeil(m, tile.m); }
  int64_t tilesN() const { return llvm::divideCeil(n, tile.n); }
  /// CTAs of a cluster (`clusters in` at the launch): the tcgen05 pair
  /// (ctaGroup) or the wgmma cluster along M (clusterM); 1 without one.
  int64_t clusterSize() const { return ctaGroup * clusterM; }
  /// Row-tile units of the walk: row tiles, or pairs of them with
  /// clusterM = 2 (ceil(tilesM / clusterM)).
  int64_t walkTilesM() const { return llvm::divideCeil(tilesM(), clusterM); }
  /// Work units the persistent loop walks, one per cluster (a tile, or a
  /// pair of M-adjacent tiles with clusterM = 2); an upper bound for 2d-3d,
  /// whose real count depends on `offs`: group g has ceil(rows_g /
  /// (clusterM tile.m)) units, at most rows_g / (clusterM tile.m) + 1, and
  /// the rows sum to at most m.
  int64_t numTiles() const {
    if (kind == GemmKind::Grouped2d3d)
      return (walkTilesM() + batches) * tilesN();
    return batches * walkTilesM() * tilesN();
  }
  /// Rows of the B box one CTA loads per stage (the TMA-fed wgmma kernels):
  /// the whole tile.n, or its 1 / clusterM share, which the CTA multicasts
  /// to the cluster.
  int64_t getBoxRowsB() const { return tile.n / clusterM; }
  /// Bytes per element of the staged operands (fp8 for tcgen05 and the
  /// Float8 wgmma kernel, else bf16).
  int64_t stageElementBytes() const {
    return isTcgen05() || isWgmmaFloat8() ? 1 : 2;
  }
  /// Bytes of one stage of one CTA: its rows of the A and B tiles (all of
  /// them, or its 1 / ctaGroup share).
  int64_t stageBytesA() const {
    return tile.m / ctaGroup * tile.k * stageElementBytes();
  }
  int64_t stageBytesB() const {
    return tile.n / ctaGroup * tile.k * stageElementBytes();
  }
  int64_t stageBytes() const { return stageBytesA() + stageBytesB(); }
  /// Bytes of the ring's mbarriers (full[stages], empty[stages]) after the
  /// stages; none without a ring.
  int64_t barrierBytes() const { return usesStageRing() ? 16 * stages : 0; }
  /// Bytes after the mbarriers: the rebalancing slots of the fused-upcast
  /// kernels (FusedUpcast [stages][4] i32 rounded to 64 bytes,
  /// FusedUpcastWS [2][converter warps][4] i32); the TMA-fed wgmma kernels
  /// (DequantBF16, WgmmaFloat8) their staged epilogue's slots, if any,
  /// then the Float8 scale reciprocals (float8FactorBytes);
  /// Tcgen05 its scale chunks, accumulator mbarriers and TMEM address slot
  /// (tcgen05ExtraBytes, TCGen05.h).
  int64_t extraBytes() const {
    if (isTcgen05())
      return tcgen05ExtraBytes();
    if (loadsOperandsByTma())
      return stagedEpilogueBytes() + float8FactorBytes() + amaxBarrierBytes();
    return usesStageRing() ? 2 * (converterThreads() / 32) * 16 : 64;
  }
  /// The wgmma kernels' staged epilogue (WgmmaConsumer::emitEpilogue): bf16
  /// results without an initial output, n a multiple of 8. Each MMA warp
  /// writes 16 rows x 64 columns of its accumulators with `stmatrix` into
  /// its own slot, then stores them as 16-byte row chunks.
  bool usesStagedEpilogue() const {
    return loadsOperandsByTma() && !isTcgen05() && outType &&
           outType.isBF16() && !initType && n % 8 == 0;
  }
  /// The staging slots: 8 MMA warps x 16 rows of 144 bytes (64 bf16 and 16
  /// bytes of padding, so that the 8 rows of one `stmatrix` matrix fall
  /// into distinct banks).
  static constexpr int64_t kStagedRowBytes = 144;
  int64_t stagedEpilogueBytes() const {
    return usesStagedEpilogue() ? 8 * 16 * kStagedRowBytes : 0;
  }
  /// A Float8 kernel (WgmmaFloat8, Tcgen05 with tcgen05Float8) with a
  /// rowwise scale: the tile's scale reciprocals, A's tile.m row factors
  /// then B's tile.n column factors (f32; Float8EpilogueScales::
  /// stageFactors), after the staging slots (WgmmaFloat8) or the TMEM
  /// address slot (Tcgen05).
  int64_t float8FactorBytes() const {
    bool float8 = isWgmmaFloat8() || (isTcgen05() && tcgen05Float8);
    if (!float8 || (aScalarScale && bScalarScale))
      return 0;
    return (tile.m + tile.n) * 4;
  }
  /// The opt-in dynamic shared memory of one CTA on sm_90a and sm_100a
  /// (227 KiB): the ring kernels that size their stage count to fit
  /// (Tcgen05, WgmmaFloat8) stay within it.
  static constexpr int64_t kMaxSharedBytes = 232448;
  /// Lowers `stages` (down to 2) until sharedBytes() fits in
  /// kMaxSharedBytes: as many stages as fit, from the count asked for.
  void fitStagesToSharedMemory() {
    while (stages > 2 && sharedBytes() > kMaxSharedBytes)
      --stages;
  }
  /// Dynamic shared memory: the stages, the mbarriers, the extra bytes and
  /// 1 KiB to align the stages to 1024.
  int64_t sharedBytes() const {
    return stages * stageBytes() + barrierBytes() + extraBytes() + 1024;
  }
  /// The fused-upcast 2d-2d kernels mask elements outside the group's
  /// tokens (the pre-dequantized operands are padded per group instead).
  bool masksElementsAlongK() const {
    return kind == GemmKind::Grouped2d2d && !preDequantized();
  }
  /// 2d-2d: the kernel contracts over each group's range of a K padded per
  /// group (getKGroupPadding) as a pre-pass laid the operands out: the
  /// pre-dequantized bf16 operands, and the Float8 kernels' operands (sm_90a
  /// and sm_100a), which the fp8 transpose pre-pass writes
  /// (Float8Transpose.h).
  bool readsGroupPaddedK() const {
    return preDequantized() || isWgmmaFloat8() || tcgen05Float8;
  }

  /// 2d-2d: each group's tokens are padded to a multiple of this in the
  /// contraction of the kernel: 64 for the pre-dequantized operands (one
  /// bf16 contraction tile, as the pre-pass lays them out), 128 for tcgen05
  /// (one column tile of the blocked_k_groups scales: four 32-token scale
  /// columns, SPEC §4.2 b) and for the Float8 kernel (one fp8 contraction
  /// tile).
  int64_t getKGroupPadding() const {
    return isTcgen05() || isWgmmaFloat8() ? 128 : 64;
  }

  /// Tcgen05: per stage one 512-byte SFA chunk and tile.n / 128 SFB chunks
  /// (each CTA of a pair holds the SFB of the whole tile), then acc_full
  /// and acc_empty (8 bytes each) and the 16-byte slot the TMEM allocation
  /// writes its address to.
  int64_t tcgen05ExtraBytes() const {
    int64_t chunks = tcgen05Float8 ? 0 : stages * 512 * (1 + tile.n / 128);
    return tcgen05ScalePad() + chunks + 16 + 16 + float8FactorBytes();
  }
  /// Tcgen05 with a CTA pair: the scale chunks are TMA tensor boxes, whose
  /// shared destination must be 128-byte aligned; the bytes from the end of
  /// the mbarriers (the stages are 1024-aligned) to the next 128 (none for
  /// Float8: no chunks).
  int64_t tcgen05ScalePad() const {
    return ctaGroup > 1 && !tcgen05Float8
               ? llvm::alignTo(barrierBytes(), 128) - barrierBytes()
               : 0;
  }

  /// The kernel name: every field above that changes the kernel.
  std::string getName() const;
};

/// The problem of a static-shaped `scaled_mm` (rank 2 or 3) or
/// `scaled_grouped_mm` (2d-3d, 2d-2d): kind, sizes, operand orientations,
/// whether their scales are blocked (in the layout of the op's form), types
/// and bias; the configuration fields keep their defaults.
GemmSpec getScaledMmSpec(ScaledMmOp op);
GemmSpec getScaledGroupedMmSpec(ScaledGroupedMmOp op);
/// The same for the high-precision `grouped_mm` (`scaled` false).
GemmSpec getGroupedMmSpec(GroupedMmOp op);

} // namespace gpu_lowering
} // namespace mxfp8train
} // namespace mlir

#endif // MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_GEMM_GEMMSPEC_H
