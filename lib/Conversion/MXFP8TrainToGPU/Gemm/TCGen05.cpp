//===- TCGen05.cpp - MX GEMMs on Blackwell (tcgen05) ------------*- C++ -*-===//
//
// Lowers `scaled_mm` (rank 2 and 3) and `scaled_grouped_mm` (2d-3d, 2d-2d)
// with K-major or MN-major operands (A stored M x K or K x M, B stored N x K
// or K x N), e4m3/e5m2 data and blocked scales (SPEC §4) to a persistent
// sm_100a kernel of block-scaled fifth-generation tensor-core MMAs
// (`tcgen05.mma.cta_group::{1,2}.kind::mxf8f6f4.block_scale.block32`),
// KERNELS.md §1.5-1.7 and §5, on GemmMainloop's tile walk, stage ring,
// warp roles, epilogue store and launch.
//
// One CTA of 256 threads per SM; 128 x 256 output tiles in the grouped-M
// order of GemmTiling.h, walked by every role; 128 contraction elements per
// stage: A 16 KiB + B 32 KiB (TMA boxes, 128-byte swizzle) in the
// mainloop's stage, one 512-byte SFA chunk + two SFB chunks (cp.async.bulk)
// in the extra bytes (GemmSpec::tcgen05ExtraBytes), as many stages as fit
// in 227 KiB (four). Warp roles (GemmMainloop::emitWarpRoles):
//   warp 0 (one thread)  TMA producer (GemmMainloop::emitProducerTile):
//                        wait empty[s], expect_tx, the two boxes and the
//                        scale chunks, all completing full[s];
//   warp 1 (one thread)  MMA issuer (GemmMainloop::emitConsumerLoop): wait
//                        acc_empty at a tile's start; per stage wait full[s],
//                        tcgen05.cp of the SFA chunk and both SFB chunks
//                        into stage s's scale columns (.32x128b.warpx4),
//                        four MMAs with SF ID 0..3 (the first of a tile with
//                        enable_input_d = 0), commit to empty[s]; after the
//                        tile's last stage commit to acc_full;
//   warp 2               allocates the 512 TMEM columns first and frees them
//                        last (accumulator 0-255, scales from 256 on);
//   warps 4-7            epilogue: wait acc_full, tcgen05.ld 32x32b.x32 of
//                        their 32 lanes (rows), release acc_empty after the
//                        last load, then GemmMainloop::storeOutput (bias in
//                        f32, round, 16-byte or masked stores).
// The scale columns are per stage, so a tcgen05.cp never overwrites scales
// an earlier MMA may still read: stage s is refilled only after empty[s],
// i.e. after the MMAs that read its columns completed. Rows past M and
// columns past N of edge tiles come from TMA's zero fill (the box bytes
// still count for expect_tx); their scales are the blocked layout's padding
// (rows of A) or stale (a missing second SFB chunk only scales columns past
// N); stores are masked.
//
// MN-major operands: TMA boxes of 128 K rows x 128 M/N bytes (one per 128
// rows of the tile) give the canonical MN-major layout of the 128-byte
// swizzle (1024-byte atoms of 8 K rows; SBO 1024 along K, LBO = one box
// along M/N), the instruction descriptor's MN-major bits, and per K = 32
// MMA 32 rows (4096 bytes) further.
//
// Batched operands (rank 3, the experts of 2d-3d) have rank-3 tensor maps:
// a box holds one slice. Grouped forms (design (b) of KERNELS.md §5,
// docs/gpu.md "Grouped on sm_100a"): 2d-3d tiles start at any token of
// their group (rows past the group end are masked in the epilogue) and
// read their scales from the blocked_m_groups row block of the walk's row
// tile; 2d-2d tiles contract from the group's first token, multiply only
// the 32-token blocks before the group's end, and read the
// blocked_k_groups chunks of their group; an empty 2d-2d group stores
// zeros.
//
// The 2-CTA variant (GemmSpec::ctaGroup = 2, gemm_config cta_group = 2;
// docs/gpu.md "2-CTA variant") is this kernel with `cta_group::2`: a
// cluster of two CTAs per 256 x 256 tile, CTA r holding rows 128 r.. of the
// A and B tiles, its SFA chunk, both SFB chunks and its rows of the
// accumulator; six stages of 16 + 16 KiB. The leader (cluster rank 0)
// expects both CTAs' bytes on its full[s], on which every copy of both CTAs
// completes (cta_group::2 TMA; the scale chunks through 1-D tensor maps),
// issues the M = 256 MMAs and commits with multicast to both CTAs' empty[s]
// and acc_full; both epilogues release the leader's acc_empty; the TMEM
// allocation is the pair's and cluster barriers replace the CTA barriers
// around it.
//
// Float8 (f32 scales, SPEC-float8 §5; GemmSpec::tcgen05Float8) is this
// kernel with `tcgen05.mma.cta_group::{1,2}.kind::f8f6f4` (no scale
// factors; instruction descriptor tcgen05::getF8F6F4InstrDesc): the stages
// hold only the A and B rows (48 KiB: four stages; the pair 32 KiB: six),
// the producer expects only their bytes, the issuer copies nothing to
// Tensor Memory (256 columns: the accumulator), and the epilogue multiplies
// each loaded value by RN_f32(1/sa[m]) then RN_f32(1/sb[n]) (or the
// tensorwise reciprocals; Float8EpilogueScales, shared with the sm_90a
// Float8 kernel: the epilogue warps stage the tile's reciprocals in shared
// memory while its MMAs run) before storeOutput's bias and rounding. f8f6f4
// reads MN-major e4m3 / e5m2, so every operand layout of the Float8 recipes
// (dgrad's rhs (K, N), wgrad's lhs (K, M)) runs without a transpose.
//
// The host side (TCGen05Launch.cpp): row-major scales are re-laid into the
// blocked layout of the form by the to_blocked kernels (emitToBlocked;
// transposed for MN-major operands) before the launch; those of K-major
// rank-2 operands by a `to_blocked` op before the lowering
// (populateTcgen05ScaleLayoutPatterns; it folds into the quantize).
// MN-major operands whose M / N are not multiples of 16 keep the simple
// kernels on sm_100a.
//
//===----------------------------------------------------------------------===//

#include "TCGen05.h"
#include "../TMA.h"
#include "WGMMAFloat8.h"
#include "mxfp8train/Conversion/Utils/GemmTiling.h"
#include "mxfp8train/Conversion/Utils/QuantizeArith.h"
#include "mxfp8train/Conversion/Utils/Tcgen05.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::gpu_lowering;

namespace {

/// The warp roles: one producer warp, one MMA warp, the TMEM allocating
/// warp and one idle warp, four epilogue warps (one per 32 TMEM lanes).
constexpr int64_t kAllocWarp = 2;
constexpr int64_t kEpilogueThreads = 128;
/// Accumulator columns per tcgen05.ld (32x32b.x32: 32 f32 of one row).
constexpr int64_t kLoadColumns = 32;
/// Tile of the kernel: 128 x 256 outputs, 128 contraction elements (four
/// 32-element scale blocks, one scale chunk column tile) per stage.
constexpr int64_t kTileM = 128, kTileN = 256, kTileK = 128;
constexpr int64_t kChunkBytes = tcgen05::kScaleChunkBytes;
/// The most stages the ring gets (as many as fit in
/// GemmSpec::kMaxSharedBytes).
constexpr int64_t kMaxStages = 6;

/// Emits the body of one tcgen05 GEMM kernel on a GemmMainloop.
class Tcgen05Kernel : public GemmIndexArith {
public:
  Tcgen05Kernel(GemmMainloop &ml)
      : GemmIndexArith(ml.getBuilder()), ml(ml), spec(ml.getSpec()),
        ctx(kb.getContext()) {}

  void emit();

private:
  Value toI32(Value index) {
    return arith::IndexCastOp::create(kb, kb.getI32Type(), index);
  }
  /// The i32 parity of use `g` of a single barrier.
  Value parity(Value g) { return toI32(remu(g, 2)); }
  Value flip(Value parity) {
    return arith::XOrIOp::create(kb, parity, kb.i32(1));
  }
  Value sharedPtr(Value address) { return tma::getSharedPointer(kb, address); }
  /// `!llvm.ptr<6>` of the i32 Tensor Memory address `address`.
  Value tmemPtr(Value address) {
    return LLVM::IntToPtrOp::create(
        kb, LLVM::LLVMPointerType::get(ctx, /*addressSpace=*/6), address);
  }
  /// A barrier of every thread of the CTA, or of the cluster with the pair
  /// (barrier.cluster.arrive (release) + wait (acquire)).
  void syncThreads() {
    if (!pair()) {
      gpu::BarrierOp::create(kb);
      return;
    }
    NVVM::ClusterArriveOp::create(kb, UnitAttr());
    NVVM::ClusterWaitOp::create(kb, UnitAttr());
  }
  void tcgen05Fence(NVVM::Tcgen05FenceKind kind) {
    NVVM::Tcgen05FenceOp::create(kb,
                                 NVVM::Tcgen05FenceKindAttr::get(ctx, kind));
  }
  /// The `cta_group` of the kernel's tcgen05 ops.
  NVVM::CTAGroupKindAttr ctaGroupAttr() {
    return NVVM::CTAGroupKindAttr::get(ctx, pair() ? NVVM::CTAGroupKind::CTA_2
                                                   : NVVM::CTAGroupKind::CTA_1);
  }
  /// The 2-CTA kernel: a cluster of two CTAs per 256 x 256 tile.
  bool pair() const { return spec.ctaGroup == 2; }
  /// The Float8 kernel: kind::f8f6f4 MMAs, no scale chunks, the f32 scale
  /// reciprocals applied in the epilogue.
  bool float8() const { return spec.tcgen05Float8; }
  /// Tensor Memory columns to allocate: the accumulator and, for MX, the
  /// scale columns of every stage.
  int64_t getTmemAllocColumns() const {
    if (float8())
      return tcgen05::getTmemAllocColumns(spec.tile.n);
    return tcgen05::getTmemLayout(spec.tile.n, /*accStages=*/1, spec.stages)
        .getAllocColumns();
  }
  /// Rows of the A and B tiles this CTA holds (all, or its half).
  int64_t rowsA() const { return spec.tile.m / spec.ctaGroup; }
  int64_t rowsB() const { return spec.tile.n / spec.ctaGroup; }
  /// The leader's (rank 0) copy of this CTA's mbarrier `ptr` (2-CTA).
  Value leaderBarrier(Value ptr) {
    return tma::mapToClusterRank(kb, ptr, kb.i32(0));
  }
  /// The commit of the kernel's prior tcgen05 ops to `barrier`: to this
  /// CTA's, or with the pair to the barrier at the same offset in both
  /// CTAs (multicast mask 0b11).
  void commit(Value barrier) {
    Value mask;
    if (pair())
      mask = arith::ConstantIntOp::create(kb, kb.getI16Type(), 0b11);
    NVVM::Tcgen05CommitOp::create(kb, barrier, mask, ctaGroupAttr());
  }
  /// SFB chunks per stage (one per 128 columns of the tile).
  int64_t sfbChunks() const { return spec.tile.n / 128; }
  /// Shared byte addresses of stage `s`'s tiles and scale chunks.
  Value aTile(Value s) {
    return add(ml.getStagesAddress(), mul(s, c(spec.stageBytes())));
  }
  Value bTile(Value s) { return add(aTile(s), c(spec.stageBytesA())); }
  Value sfaChunk(Value s) { return add(sfaBase, mul(s, c(kChunkBytes))); }
  Value sfbChunk(Value s) {
    return add(sfbBase, mul(s, c(kChunkBytes * sfbChunks())));
  }
  /// A per-thread counter (memref<1xindex>) starting at 0.
  Value makeCounter() {
    // The alloca goes into the kernel's entry block, where LLVM promotes
    // it to a register (a role's counter would otherwise stay in local
    // memory once a barrier separates its store from the next load).
    Value counter;
    {
      OpBuilder::InsertionGuard g(kb);
      Block &entry = kb.getInsertionBlock()
                         ->getParentOp()
                         ->getParentOfType<gpu::GPUFuncOp>()
                         .getBody()
                         .front();
      kb.setInsertionPointToStart(&entry);
      counter =
          memref::AllocaOp::create(kb, MemRefType::get({1}, kb.getIndexType()));
    }
    memref::StoreOp::create(kb, c(0), counter, ValueRange{c(0)});
    return counter;
  }

  /// One TMA box of `map` at `coords` into this CTA's shared byte address
  /// `dst`, completing on `full`: this CTA's full[s], or with the pair the
  /// leader's (a shared::cluster pointer; the cta_group::2 form).
  void loadBox(Value dst, Value map, Value full, ValueRange coords) {
    if (pair())
      tma::loadTensorTileForPair(kb, sharedPtr(dst), map, full, coords);
    else
      tma::loadTensorTile(kb, sharedPtr(dst), map, full, coords);
  }
  /// Bytes of one 128-row column of an MN-major tile (tile.k rows of 128
  /// bytes): its descriptor's LBO.
  int64_t mnAtomColumnBytes() const { return spec.tile.k * 128; }
  /// The TMA boxes of one operand tile of `rows` rows at `rowBase`, K from
  /// `k0` (i32), of slice `batch` (null: the operand is not batched), into
  /// `dst` (the tile's shared byte address).
  void loadOperandTile(Value dst, Value map, const gemm::OperandLayout &l,
                       int64_t rows, Value rowBase, Value k0, Value batch,
                       Value full);
  /// The byte offset in operand A's (`isA`) or B's scale buffer of the
  /// chunk of contraction tile `kt` (relative to t.kLo) for the 128 rows
  /// from `row` (a multiple of 128 except for 2d-3d A), in the blocked
  /// layout of the kernel's form (blockedScaleLayout).
  Value getScaleChunkOffset(bool isA, const GemmTile &t, Value row, Value kt);
  /// The tile with its contraction tiles counted from t.kLo: for 2d-2d,
  /// [0, ceil((kHi - kLo) / tile.k)) (a group starts at any multiple of 32
  /// tokens); the other forms start at K = 0 already.
  GemmTile fromGroupStart(const GemmTile &t);
  /// The descriptor bits (address 0) of an operand tile.
  uint64_t getTileDescriptor(const gemm::OperandLayout &l) const {
    return l.kMajor ? tcgen05::getKMajorSwizzle128Descriptor(0)
                    : tcgen05::getMNMajorSwizzle128Descriptor(
                          0, mnAtomColumnBytes());
  }
  /// The address-field step of one K = 32 MMA: 32 bytes along a K-major
  /// row, or 32 K rows of 128 bytes of an MN-major tile (>> 4).
  static int64_t getKStep(const gemm::OperandLayout &l) {
    return l.kMajor ? 2 : 32 * 128 / 16;
  }
  void fillStage(const GemmTile &t, Value kt, const RingSlot &slot);
  void emitMmaTile(const GemmTile &t, Value tileCounter);
  void emitEpilogueTile(const GemmTile &t, Value tileCounter);

  GemmMainloop &ml;
  const GemmSpec &spec;
  MLIRContext *ctx;
  /// Shared byte addresses of the SFA and SFB chunks, acc_full, acc_empty
  /// and the TMEM address slot; the TMEM base address (i32).
  Value sfaBase, sfbBase, accFull, accEmpty, tmemSlot, tmemBase;
  /// Float8: the shared f32 scale reciprocals of the tile
  /// (GemmSpec::float8FactorBytes), after the TMEM address slot.
  Value factorBase;
  /// The CTA's rank in its pair (index; 0 for the 1-CTA kernel) and
  /// whether it is the pair's leader (rank 0, i1; null for 1-CTA).
  Value rank, isLeader;
};
} // namespace

void Tcgen05Kernel::loadOperandTile(Value dst, Value map,
                                    const gemm::OperandLayout &l, int64_t rows,
                                    Value rowBase, Value k0, Value batch,
                                    Value full) {
  // Batched operands have a rank-3 tensor map whose outermost coordinate
  // is the slice: boxes never cross into the next slice (zero fill).
  auto coords = [&](Value inner, Value outer) {
    SmallVector<Value, 3> xs = {inner, outer};
    if (batch)
      xs.push_back(toI32(batch));
    return xs;
  };
  if (l.kMajor) {
    // One box of `rows` rows x 128 K bytes (the tensor is (rows, K)).
    loadBox(dst, map, full, coords(k0, toI32(rowBase)));
    return;
  }
  // MN-major (the tensor is (K, rows)): one box of 128 K rows x 128 row
  // bytes per 128 rows of the tile, the descriptor's LBO apart.
  for (int64_t j = 0; j < rows / 128; ++j)
    loadBox(add(dst, c(j * mnAtomColumnBytes())), map, full,
            coords(toI32(add(rowBase, c(128 * j))), k0));
}

GemmTile Tcgen05Kernel::fromGroupStart(const GemmTile &t) {
  if (spec.kind != GemmKind::Grouped2d2d)
    return t;
  GemmTile r = t;
  r.ktBegin = c(0);
  r.ktEnd = divu(add(sub(t.kHi, t.kLo), c(spec.tile.k - 1)), spec.tile.k);
  return r;
}

Value Tcgen05Kernel::getScaleChunkOffset(bool isA, const GemmTile &t, Value row,
                                         Value kt) {
  const gemm::OperandLayout &l = isA ? spec.a : spec.b;
  lowering::Bits bb = kb.bits();
  // Column tiles (4 scale columns, 128 K) of the blocked matrix.
  int64_t colTiles = llvm::divideCeil(spec.k / 32, 4);
  switch (spec.kind) {
  case GemmKind::Dense:
  case GemmKind::Grouped2d3d: {
    // 2d-3d A (blocked_m_groups): the group-padded row block of the tile's
    // first row, plus the 128-row blocks of `row` past it (the second CTA
    // of a pair). Batched operands (blocked_per_expert): one to_blocked per
    // slice.
    Value rowBlock = spec.kind == GemmKind::Grouped2d3d && isA
                         ? add(t.rowBlock, divu(sub(row, t.rowBase), 128))
                         : divu(row, 128);
    Value off = tcgen05::emitScaleChunkOffset(bb, rowBlock, kt, c(colTiles));
    bool batched = isA ? spec.aBatched : spec.bBatched;
    if (!batched)
      return off;
    int64_t slice = llvm::alignTo(l.rows, 128) * colTiles * 4;
    return add(mul(t.batch, c(slice)), off);
  }
  case GemmKind::Grouped2d2d: {
    // blocked_k_groups: group g's to_blocked (ceil(c_g / 4) column tiles)
    // starts after the padded scale columns of the earlier groups
    // (kPadLo / 32) times the padded rows.
    Value groupTiles = arith::MaxUIOp::create(
        kb, divu(add(sub(t.kHi, t.kLo), c(127)), 128), c(1));
    Value off =
        tcgen05::emitScaleChunkOffset(bb, divu(row, 128), kt, groupTiles);
    return add(mul(divu(t.kPadLo, 32), c(llvm::alignTo(l.rows, 128))), off);
  }
  }
  llvm_unreachable("unknown GEMM kind");
}

void Tcgen05Kernel::fillStage(const GemmTile &t, Value kt,
                              const RingSlot &slot) {
  // Odd 128-row blocks of B scales: the last N tile has one SFB chunk (MX).
  int64_t rowBlocksB = llvm::divideCeil(spec.n, 128);
  Value nt = divu(t.colBase, spec.tile.n);
  Value secondB = !float8() && rowBlocksB % 2 == 1
                      ? ult(add(mul(nt, c(2)), c(1)), c(rowBlocksB))
                      : Value();
  // The bytes of one CTA's stage: its A and B rows, its SFA chunk and the
  // SFB chunks of the whole tile (Float8: the rows only).
  int64_t fixedBytes = spec.stageBytes() + (float8() ? 0 : kChunkBytes);
  Value txBytes =
      kb.i32(fixedBytes + (float8() ? 0 : sfbChunks()) * kChunkBytes);
  if (secondB)
    txBytes = select(secondB, txBytes, kb.i32(fixedBytes + kChunkBytes));
  Value full = ml.getFullBarrier(slot.stage);
  if (pair()) {
    // Every copy of both CTAs completes on the leader's full[s], whose one
    // arrival (the leader's) expects the bytes of both.
    kb.ifThen(isLeader, [&] {
      tma::arriveExpectTx(kb, full,
                          arith::MulIOp::create(kb, txBytes, kb.i32(2)));
    });
    full = leaderBarrier(full);
  } else {
    tma::arriveExpectTx(kb, full, txBytes);
  }
  // Contraction tile kt from the tile's first token (2d-2d: the group's).
  // CTA r of a pair loads rows [128 r, 128 r + 128) of both tiles.
  Value k0 = toI32(add(t.kLo, mul(kt, c(spec.tile.k))));
  const GemmArgs &args = ml.getArgs();
  Value rowA = add(t.rowBase, mul(rank, c(rowsA())));
  Value rowB = add(t.colBase, mul(rank, c(rowsB())));
  loadOperandTile(aTile(slot.stage), args.aData, spec.a, rowsA(), rowA, k0,
                  spec.aBatched ? t.batch : Value(), full);
  loadOperandTile(bTile(slot.stage), args.bData, spec.b, rowsB(), rowB, k0,
                  spec.bBatched ? t.batch : Value(), full);
  // Float8: the f32 scales are the epilogue's.
  if (float8())
    return;
  // Scale chunks at the quantizer's blocked offsets (Tcgen05.h) in the
  // layout of the form: 1-D bulk copies, or with the pair boxes of the
  // scales' 1-D tensor maps, which can complete on the leader's barrier.
  auto loadChunk = [&](Value dst, bool isA, Value row) {
    Value scales = isA ? args.aScales : args.bScales;
    Value offset = getScaleChunkOffset(isA, t, row, kt);
    if (pair()) {
      for (int64_t j = 0; j < kChunkBytes; j += kTcgen05ScaleBoxBytes)
        loadBox(add(dst, c(j)), scales, full, {toI32(add(offset, c(j)))});
      return;
    }
    Value base = memref::ExtractAlignedPointerAsIndexOp::create(kb, scales);
    tma::loadBulk(kb, sharedPtr(dst),
                  tma::getGlobalPointer(kb, add(base, offset)), full,
                  kChunkBytes);
  };
  loadChunk(sfaChunk(slot.stage), true, rowA);
  Value sfbDst = sfbChunk(slot.stage);
  loadChunk(sfbDst, false, t.colBase);
  auto second = [&] {
    loadChunk(add(sfbDst, c(kChunkBytes)), false, add(t.colBase, c(128)));
  };
  if (secondB)
    kb.ifThen(secondB, second);
  else
    second();
}

void Tcgen05Kernel::emitMmaTile(const GemmTile &t, Value tileCounter) {
  tcgen05::MmaOperands operands = getTcgen05MmaOperands(spec);
  // MX: kind::mxf8f6f4 with scale factors; Float8: the same operands
  // without them (kind::f8f6f4).
  tcgen05::BlockScaledMma mma{operands};
  tcgen05::F8F6F4Mma f8Mma{operands};
  tcgen05::TmemLayout tmem =
      tcgen05::getTmemLayout(spec.tile.n, /*accStages=*/1, spec.stages);
  uint64_t descBitsA = getTileDescriptor(spec.a);
  uint64_t descBitsB = getTileDescriptor(spec.b);
  uint64_t chunkDesc = tcgen05::getScaleChunkDescriptor(0);
  auto cpShape =
      NVVM::Tcgen05CpShapeAttr::get(ctx, NVVM::Tcgen05CpShape::SHAPE_32x128b);
  auto warpx4 =
      NVVM::Tcgen05CpMulticastAttr::get(ctx, NVVM::Tcgen05CpMulticast::WARPX4);
  auto copyChunk = [&](Value taddr, Value smemAddr) {
    NVVM::Tcgen05CpOp::create(
        kb, cpShape, ctaGroupAttr(), warpx4, NVVM::Tcgen05CpSrcFormatAttr(),
        tmemPtr(taddr), tcgen05::emitSmemDescriptor(kb, smemAddr, chunkDesc));
  };
  Value accumulator = tmemPtr(tcgen05::emitTmemAddress(
      kb, tmemBase, 0, static_cast<uint32_t>(tmem.getAccColumn(0))));
  Value tiles = memref::LoadOp::create(kb, tileCounter, ValueRange{c(0)});
  // The epilogue has read the previous tile's accumulator (with the pair,
  // in both CTAs: the peer's release arrives at cluster scope, which the
  // wait must acquire at).
  // One op per statement, in g++'s (right-to-left) order of the former
  // call's arguments: the IR must not depend on the host compiler.
  Value emptyParity = flip(parity(tiles));
  Value emptyBarrier = sharedPtr(accEmpty);
  if (pair())
    tma::waitClusterBarrier(kb, emptyBarrier, emptyParity);
  else
    tma::waitBarrier(kb, emptyBarrier, emptyParity);
  tcgen05Fence(NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
  ml.emitConsumerLoop(
      t, ValueRange{}, /*fenceAfterFull=*/false,
      [&](Value kt, const RingSlot &slot, ValueRange) {
        Value s = slot.stage;
        tcgen05Fence(NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
        // Stage s's scale columns: SFA (4), then SFB (4 per 128 columns).
        Value sfaT, sfbT;
        if (!float8()) {
          Value sfaCol = add(c(tmem.getSfaColumn(0)),
                             mul(s, c(tmem.sfaColumns + tmem.sfbColumns)));
          sfaT = add(tmemBase, toI32(sfaCol));
          sfbT = add(sfaT, kb.i32(tmem.sfaColumns));
          copyChunk(sfaT, sfaChunk(s));
          for (int64_t j = 0; j < sfbChunks(); ++j)
            copyChunk(add(sfbT, kb.i32(4 * j)),
                      add(sfbChunk(s), c(j * kChunkBytes)));
        }
        Value descA = tcgen05::emitSmemDescriptor(kb, aTile(s), descBitsA);
        Value descB = tcgen05::emitSmemDescriptor(kb, bTile(s), descBitsB);
        Value notFirst =
            arith::CmpIOp::create(kb, arith::CmpIPredicate::ne, kt, t.ktBegin);
        Value yes = arith::ConstantIntOp::create(kb, kb.getI1Type(), 1);
        for (int64_t kk = 0; kk < spec.tile.k / 32; ++kk) {
          // K block kk of the stage: 32 bytes further along the swizzled
          // K-major rows (+2 in the address field) or 32 rows further down
          // an MN-major tile (+256), scale byte kk of each TMEM word.
          mma.sfaId = mma.sfbId = static_cast<uint32_t>(kk);
          auto step = [&](const gemm::OperandLayout &l) {
            return arith::ConstantIntOp::create(kb, kb.getI64Type(),
                                                getKStep(l) * kk);
          };
          auto issue = [&] {
            Value a = arith::AddIOp::create(kb, descA, step(spec.a));
            Value b = arith::AddIOp::create(kb, descB, step(spec.b));
            Value enableInputD = kk == 0 ? notFirst : yes;
            if (float8()) {
              NVVM::Tcgen05MMAOp::create(
                  kb,
                  NVVM::Tcgen05MMAKindAttr::get(ctx,
                                                NVVM::Tcgen05MMAKind::F8F6F4),
                  ctaGroupAttr(),
                  NVVM::Tcgen05MMACollectorOpAttr::get(
                      ctx, NVVM::Tcgen05MMACollectorOp::DISCARD),
                  UnitAttr(), accumulator, a, b,
                  kb.i32(tcgen05::getF8F6F4InstrDesc(f8Mma)), enableInputD,
                  /*scaleInputD=*/Value(), /*disableOutputLane=*/Value());
              return;
            }
            NVVM::Tcgen05MMABlockScaleOp::create(
                kb,
                NVVM::MMABlockScaleKindAttr::get(
                    ctx, NVVM::MMABlockScaleKind::MXF8F6F4),
                ctaGroupAttr(),
                NVVM::Tcgen05MMABlockScaleAttr::get(
                    ctx, NVVM::Tcgen05MMABlockScale::BLOCK32),
                NVVM::Tcgen05MMACollectorOpAttr::get(
                    ctx, NVVM::Tcgen05MMACollectorOp::DISCARD),
                accumulator, a, b,
                kb.i32(tcgen05::getBlockScaledInstrDesc(mma)), enableInputD,
                tmemPtr(sfaT), tmemPtr(sfbT));
          };
          // 2d-2d: a group ends at any multiple of 32 tokens; the K blocks
          // of the stage past it (the next group's tokens) are not
          // multiplied. The first block of a stage is always inside.
          if (spec.kind == GemmKind::Grouped2d2d && kk > 0)
            kb.ifThen(ult(add(t.kLo, add(mul(kt, c(spec.tile.k)), c(32 * kk))),
                          t.kHi),
                      issue);
          else
            issue();
        }
        // empty[s] arrives when these MMAs (and the copies) have completed
        // (in both CTAs of a pair).
        commit(ml.getEmptyBarrier(s));
        return SmallVector<Value>{};
      });
  commit(sharedPtr(accFull));
  memref::StoreOp::create(kb, add(tiles, c(1)), tileCounter, ValueRange{c(0)});
}

void Tcgen05Kernel::emitEpilogueTile(const GemmTile &t, Value tileCounter) {
  // Warp w (4-7) may access TMEM lanes 32 (w % 4) .. + 31: rows of the tile.
  Value roleTid = ml.getRoleThreadId();
  Value quarter = divu(roleTid, 32);
  Value lane = remu(roleTid, 32);
  Value laneBase = add(tmemBase, toI32(mul(quarter, c(int64_t(32) << 16))));
  auto rowsType = VectorType::get({kLoadColumns}, kb.getI32Type());
  auto shape = NVVM::Tcgen05LdStShapeAttr::get(
      ctx, NVVM::Tcgen05LdStShape::SHAPE_32X32B);
  Value tiles = memref::LoadOp::create(kb, tileCounter, ValueRange{c(0)});
  // Float8: the tile's scale reciprocals, staged in shared memory by the
  // epilogue warps while the tile's MMAs run.
  std::optional<Float8EpilogueScales> scales;
  if (float8()) {
    scales.emplace(ml, t.batch);
    if (spec.float8FactorBytes())
      scales->stageFactors(factorBase, roleTid, kEpilogueThreads, t.rowBase,
                           t.colBase);
  }
  tma::waitBarrier(kb, sharedPtr(accFull), parity(tiles));
  tcgen05Fence(NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
  // CTA r of a pair holds rows [128 r, 128 r + 128) of the tile.
  Value row = add(add(t.rowBase, mul(rank, c(rowsA()))),
                  add(mul(quarter, c(32)), lane));
  Value outBase = ml.getOutputBase(t.batch);
  // 2d-2d: a group without tokens had no MMA (the accumulator holds the
  // previous tile's sums); its weight gradient is exactly zero.
  Value emptyGroup, zeros;
  if (spec.kind == GemmKind::Grouped2d2d) {
    emptyGroup = uge(t.kLo, t.kHi);
    zeros = arith::ConstantOp::create(
        kb, cast<TypedAttr>(kb.getZeroAttr(
                VectorType::get({kLoadColumns}, kb.getF32Type()))));
  }
  // Float8: the reciprocal of this thread's row scale, once per tile.
  Value rowFactor;
  if (scales)
    rowFactor = scales->getRowFactor(row);
  // 16 bytes of output per store.
  int64_t width = 16 / (spec.outType.getIntOrFloatBitWidth() / 8);
  int64_t chunks = spec.tile.n / kLoadColumns;
  for (int64_t j = 0; j < chunks; ++j) {
    Value words = NVVM::Tcgen05LdOp::create(
        kb, rowsType, UnitAttr(), shape,
        tmemPtr(add(laneBase, kb.i32(j * kLoadColumns))), Value());
    NVVM::Tcgen05WaitOp::create(
        kb, NVVM::Tcgen05WaitKindAttr::get(ctx, NVVM::Tcgen05WaitKind::LOAD));
    if (j == chunks - 1) {
      // The whole accumulator is in registers: the next tile's MMAs may
      // overwrite it (the pair's wait for both CTAs' epilogues on the
      // leader's acc_empty).
      tcgen05Fence(NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
      if (pair())
        tma::arriveClusterBarrier(kb, leaderBarrier(sharedPtr(accEmpty)));
      else
        tma::arriveBarrier(kb, sharedPtr(accEmpty));
    }
    Value acc =
        kb.bitcastTo(VectorType::get({kLoadColumns}, kb.getF32Type()), words);
    if (emptyGroup)
      acc = select(emptyGroup, zeros, acc);
    Value col0 = add(t.colBase, c(j * kLoadColumns));
    for (int64_t p = 0; p < kLoadColumns; p += width)
      ml.storeOutput(
          outBase, row, add(col0, c(p)), t.rowEnd, width, [&](int64_t i) {
            Value v = vector::ExtractOp::create(kb, acc, p + i).getResult();
            if (!scales)
              return v;
            // (acc * RN_f32(1/sa[m])) * RN_f32(1/sb[n]) (SPEC-float8 §5.4);
            // storeOutput adds the bias and rounds once.
            return scales->apply(v, rowFactor,
                                 scales->getColumnFactor(add(col0, c(p + i))));
          });
  }
  memref::StoreOp::create(kb, add(tiles, c(1)), tileCounter, ValueRange{c(0)});
}

void Tcgen05Kernel::emit() {
  ml.emitKernel([&] {
    // The extra bytes: (the pair: the pad to 128 bytes) SFA chunks, SFB
    // chunks, acc_full, acc_empty, the TMEM address slot.
    // (Float8: no chunks.)
    int64_t chunkStages = float8() ? 0 : spec.stages;
    sfaBase = add(ml.getExtraAddress(), c(spec.tcgen05ScalePad()));
    sfbBase = add(sfaBase, c(chunkStages * kChunkBytes));
    accFull = add(sfbBase, c(chunkStages * sfbChunks() * kChunkBytes));
    accEmpty = add(accFull, c(8));
    tmemSlot = add(accFull, c(16));
    factorBase = add(accFull, c(32));
    Value tid = ml.getThreadId();
    Value warp = divu(tid, 32);
    auto eq = [&](Value x, int64_t v) {
      return arith::CmpIOp::create(kb, arith::CmpIPredicate::eq, x, c(v));
    };
    rank = c(0);
    if (pair()) {
      rank = arith::IndexCastUIOp::create(
          kb, kb.getIndexType(),
          NVVM::ClusterId::create(kb, kb.getI32Type()).getResult());
      isLeader = eq(rank, 0);
    }
    // full[s]: the producer's expect_tx arrival plus the bytes; empty[s]
    // and acc_full: one tcgen05.commit each; acc_empty: the epilogue (of
    // both CTAs of a pair). A pair uses the leader's full[s] and acc_empty
    // only.
    ml.initRing(1, 1, [&] {
      tma::initBarrier(kb, sharedPtr(accFull), 1);
      tma::initBarrier(kb, sharedPtr(accEmpty),
                       kEpilogueThreads * spec.ctaGroup);
    });
    Value allocColumns = kb.i32(getTmemAllocColumns());
    // One warp allocates the Tensor Memory (its address lands in the slot);
    // with the pair, one warp of each CTA, together (cta_group::2).
    kb.ifThen(eq(warp, kAllocWarp), [&] {
      NVVM::Tcgen05AllocOp::create(kb, sharedPtr(tmemSlot), allocColumns,
                                   ctaGroupAttr());
      NVVM::Tcgen05RelinquishAllocPermitOp::create(kb, ctaGroupAttr());
    });
    // The pair synchronises as a cluster: each CTA's barriers are
    // initialised before the other's copies and commits reach them.
    tcgen05Fence(NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
    syncThreads();
    tcgen05Fence(NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
    tmemBase = LLVM::LoadOp::create(kb, kb.getI32Type(), sharedPtr(tmemSlot));

    auto producer = [&] {
      kb.ifThen(eq(ml.getRoleThreadId(), 0), [&] {
        ml.walkTiles([&](const GemmTile &t) {
          ml.emitProducerTile(
              fromGroupStart(t),
              [&](const GemmTile &t, Value kt, const RingSlot &slot) {
                fillStage(t, kt, slot);
              });
        });
        // The last stages' tcgen05.commit arrivals on empty[s] (from the
        // leader, in both CTAs of a pair) land before this CTA may exit:
        // a CTA must not exit while a peer's cta_group::2 operation may
        // still reach its shared memory (PTX ISA "tcgen05", issue
        // granularity).
        ml.emitProducerTail();
      });
    };
    // The pair's MMAs are the leader's (cta_group::2 reads both CTAs'
    // stages and writes both Tensor Memories).
    auto mmaIssuer = [&] {
      Value issuer = eq(ml.getRoleThreadId(), 0);
      if (pair())
        issuer = andi(issuer, isLeader);
      kb.ifThen(issuer, [&] {
        Value tiles = makeCounter();
        ml.walkTiles(
            [&](const GemmTile &t) { emitMmaTile(fromGroupStart(t), tiles); });
      });
    };
    auto epilogue = [&] {
      Value tiles = makeCounter();
      ml.walkTiles([&](const GemmTile &t) { emitEpilogueTile(t, tiles); });
    };
    ml.emitWarpRoles(
        {WarpRole{32, 0, NVVM::SetMaxRegisterAction::increase, producer},
         WarpRole{32, 0, NVVM::SetMaxRegisterAction::increase, mmaIssuer},
         WarpRole{64, 0, NVVM::SetMaxRegisterAction::increase, [] {}},
         WarpRole{kEpilogueThreads, 0, NVVM::SetMaxRegisterAction::increase,
                  epilogue}});

    // Every role is done (the epilogue read the last accumulator after the
    // last MMA completed; with the pair, in both CTAs): the allocating
    // warp frees the columns.
    tcgen05Fence(NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
    syncThreads();
    kb.ifThen(eq(warp, kAllocWarp), [&] {
      tcgen05Fence(NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
      NVVM::Tcgen05DeallocOp::create(kb, tmemPtr(tmemBase), allocColumns,
                                     ctaGroupAttr());
    });
  });
}

void gpu_lowering::emitTcgen05Gemm(KernelBuilder &kb, const GemmSpec &spec,
                                   ValueRange args) {
  GemmMainloop ml(kb, spec, args);
  Tcgen05Kernel(ml).emit();
}

tcgen05::MmaOperands gpu_lowering::getTcgen05MmaOperands(const GemmSpec &spec) {
  tcgen05::MmaOperands operands;
  operands.a = *tcgen05::getElementFormat(spec.aType);
  operands.b = *tcgen05::getElementFormat(spec.bType);
  operands.aMajor = spec.a.kMajor ? tcgen05::Major::K : tcgen05::Major::MN;
  operands.bMajor = spec.b.kMajor ? tcgen05::Major::K : tcgen05::Major::MN;
  operands.m = spec.tile.m;
  operands.n = spec.tile.n;
  return operands;
}

bool gpu_lowering::isValidTcgen05Mma(const GemmSpec &spec) {
  tcgen05::MmaOperands operands = getTcgen05MmaOperands(spec);
  if (spec.tcgen05Float8)
    return tcgen05::isValidF8F6F4Mma(tcgen05::F8F6F4Mma{operands},
                                     spec.ctaGroup);
  return tcgen05::isValidBlockScaledMma(tcgen05::BlockScaledMma{operands},
                                        spec.ctaGroup);
}

void gpu_lowering::configureTcgen05Gemm(GemmSpec &spec, int64_t ctaGroup) {
  spec.variant = GemmVariant::Tcgen05;
  // The pair's tile is 256 x 256: 128 rows of A and B per CTA.
  spec.ctaGroup = ctaGroup;
  spec.tile = gemm::TileShape{kTileM * ctaGroup, kTileN, kTileK, /*groupM=*/8};
  spec.ctasPerSM = 1;
  spec.prefetch = 1;
  // As many stages as fit: four of 49 KiB (1-CTA), six of 33 KiB (2-CTA).
  spec.stages = kMaxStages;
  spec.fitStagesToSharedMemory();
}
