//===- TCGen05Gemm.cpp - MX GEMMs on Blackwell (tcgen05) --------*- C++ -*-===//
//
// Lowers rank-2 `scaled_mm` with K-major operands (A stored M x K, B stored
// N x K: `transpose_rhs`), e4m3/e5m2 data and blocked scales (SPEC §4.1) to
// a persistent sm_100a kernel of block-scaled fifth-generation tensor-core
// MMAs (`tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.block32`),
// KERNELS.md §1.5-1.7 and §5.
//
// One CTA of 256 threads per SM; 128 x 256 output tiles in the grouped-M
// order of GemmTiling.h, walked by every role; 128 contraction elements per
// stage: A 16 KiB + B 32 KiB (TMA boxes, 128-byte swizzle) + one 512-byte
// SFA chunk + two SFB chunks (cp.async.bulk), as many stages as fit in
// 227 KiB (four). Warp roles:
//   warp 0 (one thread)  TMA producer: wait empty[s], expect_tx, the two
//                        boxes and the scale chunks, all completing full[s];
//   warp 1 (one thread)  MMA issuer: wait acc_empty at a tile's start; per
//                        stage wait full[s], tcgen05.cp of the SFA chunk and
//                        both SFB chunks into stage s's scale columns
//                        (.32x128b.warpx4), four MMAs with SF ID 0..3 (the
//                        first of a tile with enable_input_d = 0), commit
//                        to empty[s]; after the tile's last stage commit to
//                        acc_full;
//   warp 2               allocates the 512 TMEM columns first and frees them
//                        last (accumulator 0-255, scales from 256 on);
//   warps 4-7            epilogue: wait acc_full, tcgen05.ld 32x32b.x32 of
//                        their 32 lanes (rows), release acc_empty after the
//                        last load, bias in f32, round, masked stores.
// The scale columns are per stage, so a tcgen05.cp never overwrites scales
// an earlier MMA may still read: stage s is refilled only after empty[s],
// i.e. after the MMAs that read its columns completed. Rows past M and
// columns past N of edge tiles come from TMA's zero fill (the box bytes
// still count for expect_tx); their scales are the blocked layout's padding
// (rows of A) or stale (a missing second SFB chunk only scales columns past
// N); stores are masked.
//
// Row-major scales are re-laid by a `to_blocked` op before the lowering
// (populateTcgen05ScaleLayoutPatterns), so that every scaled_mm of this form
// takes the kernel. Other forms (MN-major operands, rank 3) keep the simple
// kernels on sm_100a.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"
#include "TMA.h"
#include "mxfp8train/Conversion/Utils/GemmTiling.h"
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

/// Opt-in dynamic shared memory per CTA on sm_100a (227 KiB).
constexpr int64_t kSharedLimit = 232448;
/// Threads per CTA and the warp roles.
constexpr int64_t kThreads = 256;
constexpr int64_t kProducerThread = 0;
constexpr int64_t kMmaThread = 32;
constexpr int64_t kAllocWarp = 2;
constexpr int64_t kFirstEpilogueWarp = 4;
constexpr int64_t kEpilogueThreads = 128;
/// Accumulator columns per tcgen05.ld (32x32b.x32: 32 f32 of one row).
constexpr int64_t kLoadColumns = 32;

/// Everything the tcgen05 scaled_mm kernel is specialised on, and its
/// shared-memory layout: the A tiles of every stage, the B tiles, the SFA
/// chunks, the SFB chunk pairs, the mbarriers full[s], empty[s], acc_full,
/// acc_empty, then the TMEM address slot.
struct Tcgen05GemmSpec {
  int64_t m = 0, n = 0, k = 0;
  Type aType, bType, outType;
  /// Null without bias.
  Type biasType;
  int64_t stages = 4;
  int64_t groupM = 8;

  static constexpr int64_t kTileM = 128, kTileN = 256, kTileK = 128;
  static constexpr int64_t kABytes = kTileM * kTileK;
  static constexpr int64_t kBBytes = kTileN * kTileK;
  static constexpr int64_t kSfaBytes = tcgen05::kScaleChunkBytes;
  static constexpr int64_t kSfbBytes = 2 * tcgen05::kScaleChunkBytes;

  int64_t tilesM() const { return llvm::divideCeil(m, kTileM); }
  int64_t tilesN() const { return llvm::divideCeil(n, kTileN); }
  int64_t numTiles() const { return tilesM() * tilesN(); }
  int64_t kTiles() const { return llvm::divideCeil(k, kTileK); }
  /// 4-column tiles of the (rows, K / 32) scale matrices.
  int64_t scaleColTiles() const { return llvm::divideCeil(k / 32, 4); }
  /// 128-row blocks of B's scales; odd: the last N tile has one SFB chunk.
  int64_t rowBlocksB() const { return llvm::divideCeil(n, 128); }

  int64_t bOffset() const { return stages * kABytes; }
  int64_t sfaOffset() const { return stages * (kABytes + kBBytes); }
  int64_t sfbOffset() const { return sfaOffset() + stages * kSfaBytes; }
  int64_t barrierOffset() const { return sfbOffset() + stages * kSfbBytes; }
  int64_t fullBarrier(int64_t s) const { return barrierOffset() + 8 * s; }
  int64_t emptyBarrier(int64_t s) const {
    return barrierOffset() + 8 * (stages + s);
  }
  int64_t accFullBarrier() const { return barrierOffset() + 16 * stages; }
  int64_t accEmptyBarrier() const { return accFullBarrier() + 8; }
  int64_t tmemSlot() const { return accFullBarrier() + 16; }
  /// With 1 KiB to align the tiles to 1024 bytes (128B swizzle atoms).
  int64_t sharedBytes() const { return tmemSlot() + 16 + 1024; }
  tcgen05::TmemLayout tmem() const {
    return tcgen05::getTmemLayout(kTileN, /*accStages=*/1, stages);
  }

  std::string getName() const {
    return llvm::formatv(
               "scaled_mm_tc05_kb_kb_{0}_{1}_{2}{3}_{4}x{5}x{6}_s{7}",
               getTypeTag(aType), getTypeTag(bType), getTypeTag(outType),
               biasType ? "_bias" + getTypeTag(biasType) : "", m, n, k, stages)
        .str();
  }
};

/// Emits the kernel body.
class Tcgen05GemmEmitter {
public:
  Tcgen05GemmEmitter(KernelBuilder &kb, const Tcgen05GemmSpec &spec,
                     ValueRange args)
      : kb(kb), spec(spec), ctx(kb.getContext()) {
    unsigned i = 0;
    mapA = args[i++];
    mapB = args[i++];
    sfa = args[i++];
    sfb = args[i++];
    if (spec.biasType)
      bias = args[i++];
    out = args[i++];
  }

  void emit();

private:
  Value c(int64_t v) { return kb.idx(v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(kb, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(kb, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(kb, x, y); }
  Value divu(Value x, int64_t y) { return arith::DivUIOp::create(kb, x, c(y)); }
  Value remu(Value x, int64_t y) { return arith::RemUIOp::create(kb, x, c(y)); }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(kb, p, x, y);
  }
  Value toI32(Value index) {
    return arith::IndexCastOp::create(kb, kb.getI32Type(), index);
  }
  /// Shared byte address `smemBase + offset` (index).
  Value smem(Value offset) { return add(smemBase, offset); }
  Value smem(int64_t offset) { return smem(c(offset)); }
  /// The mbarrier at byte offset `offset` of the layout.
  Value barrier(Value offset) {
    return tma::getSharedPointer(kb, smem(offset));
  }
  Value barrier(int64_t offset) { return barrier(c(offset)); }
  Value fullBarrier(Value s) {
    return barrier(add(c(spec.fullBarrier(0)), mul(s, c(8))));
  }
  Value emptyBarrier(Value s) {
    return barrier(add(c(spec.emptyBarrier(0)), mul(s, c(8))));
  }
  /// Parity of ring position `g` of a ring of `size` slots (i32).
  Value parity(Value g, int64_t size) { return toI32(remu(divu(g, size), 2)); }
  Value flip(Value parity) {
    return arith::XOrIOp::create(kb, parity, kb.i32(1));
  }
  /// `!llvm.ptr<6>` of the i32 Tensor Memory address `address`.
  Value tmemPtr(Value address) {
    return LLVM::IntToPtrOp::create(
        kb, LLVM::LLVMPointerType::get(ctx, /*addressSpace=*/6), address);
  }
  void tcgen05Fence(NVVM::Tcgen05FenceKind kind) {
    NVVM::Tcgen05FenceOp::create(kb,
                                 NVVM::Tcgen05FenceKindAttr::get(ctx, kind));
  }
  NVVM::CTAGroupKindAttr ctaGroup1() {
    return NVVM::CTAGroupKindAttr::get(ctx, NVVM::CTAGroupKind::CTA_1);
  }
  /// Runs `body(mTile, nTile, iters)` for this CTA's tiles (t = blockIdx,
  /// blockIdx + gridDim, ...) in the grouped-M order, carrying `inits`;
  /// returns the final values.
  ValueRange
  forEachTile(ValueRange inits,
              function_ref<SmallVector<Value>(Value, Value, ValueRange)> body);

  void emitProducer();
  void emitMma();
  void emitEpilogue();
  /// Bias, rounding and the stores of 32 f32 accumulators of `row` from
  /// column `col0`.
  void storeColumns(Value acc, Value row, Value col0);

  KernelBuilder &kb;
  const Tcgen05GemmSpec &spec;
  MLIRContext *ctx;
  Value mapA, mapB, sfa, sfb, bias, out;
  Value tid, smemBase, tmemBase;
};
} // namespace

ValueRange Tcgen05GemmEmitter::forEachTile(
    ValueRange inits,
    function_ref<SmallVector<Value>(Value, Value, ValueRange)> body) {
  Value bid = gpu::BlockIdOp::create(kb, gpu::Dimension::x);
  Value grid = gpu::GridDimOp::create(kb, gpu::Dimension::x);
  auto loop = scf::ForOp::create(kb, bid, c(spec.numTiles()), grid, inits);
  OpBuilder::InsertionGuard g(kb);
  kb.setInsertionPointToStart(loop.getBody());
  auto [mTile, nTile] = gemm::emitGroupedTile(
      kb, loop.getInductionVar(), spec.tilesM(), spec.tilesN(), spec.groupM);
  SmallVector<Value> next = body(mTile, nTile, loop.getRegionIterArgs());
  scf::YieldOp::create(kb, next);
  return loop.getResults();
}

void Tcgen05GemmEmitter::emitProducer() {
  // Odd 128-row blocks of B scales: the last N tile has one SFB chunk.
  bool halfLastB = spec.rowBlocksB() % 2 == 1;
  Value sfaAddr = memref::ExtractAlignedPointerAsIndexOp::create(kb, sfa);
  Value sfbAddr = memref::ExtractAlignedPointerAsIndexOp::create(kb, sfb);
  Value colTiles = c(spec.scaleColTiles());
  forEachTile(c(0), [&](Value mt, Value nt, ValueRange iters) {
    Value secondB = halfLastB
                        ? cmp(arith::CmpIPredicate::ult,
                              add(mul(nt, c(2)), c(1)), c(spec.rowBlocksB()))
                        : Value();
    int64_t fixedBytes = Tcgen05GemmSpec::kABytes + Tcgen05GemmSpec::kBBytes +
                         Tcgen05GemmSpec::kSfaBytes;
    Value txBytes = kb.i32(fixedBytes + Tcgen05GemmSpec::kSfbBytes);
    if (secondB)
      txBytes = arith::SelectOp::create(
          kb, secondB, txBytes, kb.i32(fixedBytes + tcgen05::kScaleChunkBytes));
    auto loop = scf::ForOp::create(kb, c(0), c(spec.kTiles()), c(1), iters);
    {
      OpBuilder::InsertionGuard g(kb);
      kb.setInsertionPointToStart(loop.getBody());
      Value kt = loop.getInductionVar();
      Value ring = loop.getRegionIterArgs()[0];
      Value s = remu(ring, spec.stages);
      Value full = fullBarrier(s);
      // The stage's previous MMAs have completed (a fresh barrier passes).
      tma::waitBarrier(kb, emptyBarrier(s), flip(parity(ring, spec.stages)));
      tma::arriveExpectTx(kb, full, txBytes);
      Value k0 = toI32(mul(kt, c(Tcgen05GemmSpec::kTileK)));
      tma::loadTensorTile(
          kb,
          tma::getSharedPointer(kb, smem(mul(s, c(Tcgen05GemmSpec::kABytes)))),
          mapA, full,
          ValueRange{k0, toI32(mul(mt, c(Tcgen05GemmSpec::kTileM)))});
      tma::loadTensorTile(
          kb,
          tma::getSharedPointer(kb,
                                smem(add(c(spec.bOffset()),
                                         mul(s, c(Tcgen05GemmSpec::kBBytes))))),
          mapB, full,
          ValueRange{k0, toI32(mul(nt, c(Tcgen05GemmSpec::kTileN)))});
      // Scale chunks at the quantizer's blocked offsets (Tcgen05.h).
      auto chunk = [&](Value base, Value rowBlock) {
        // Bits inserts at the builder's current position (inside an if).
        lowering::Bits bb = kb.bits();
        return tma::getGlobalPointer(
            kb, add(base,
                    tcgen05::emitScaleChunkOffset(bb, rowBlock, kt, colTiles)));
      };
      Value sfaDst =
          smem(add(c(spec.sfaOffset()), mul(s, c(Tcgen05GemmSpec::kSfaBytes))));
      tma::loadBulk(kb, tma::getSharedPointer(kb, sfaDst), chunk(sfaAddr, mt),
                    full, tcgen05::kScaleChunkBytes);
      Value sfbDst =
          smem(add(c(spec.sfbOffset()), mul(s, c(Tcgen05GemmSpec::kSfbBytes))));
      Value rowBlockB = mul(nt, c(2));
      tma::loadBulk(kb, tma::getSharedPointer(kb, sfbDst),
                    chunk(sfbAddr, rowBlockB), full, tcgen05::kScaleChunkBytes);
      auto second = [&] {
        tma::loadBulk(kb,
                      tma::getSharedPointer(
                          kb, add(sfbDst, c(tcgen05::kScaleChunkBytes))),
                      chunk(sfbAddr, add(rowBlockB, c(1))), full,
                      tcgen05::kScaleChunkBytes);
      };
      if (secondB)
        kb.ifThen(secondB, second);
      else
        second();
      scf::YieldOp::create(kb, ValueRange{add(ring, c(1))});
    }
    return SmallVector<Value>{loop.getResult(0)};
  });
}

void Tcgen05GemmEmitter::emitMma() {
  tcgen05::BlockScaledMma mma;
  mma.a = *tcgen05::getElementFormat(spec.aType);
  mma.b = *tcgen05::getElementFormat(spec.bType);
  mma.m = Tcgen05GemmSpec::kTileM;
  mma.n = Tcgen05GemmSpec::kTileN;
  tcgen05::TmemLayout tmem = spec.tmem();
  uint64_t tileDesc = tcgen05::getKMajorSwizzle128Descriptor(0);
  uint64_t chunkDesc = tcgen05::getScaleChunkDescriptor(0);
  auto cpShape =
      NVVM::Tcgen05CpShapeAttr::get(ctx, NVVM::Tcgen05CpShape::SHAPE_32x128b);
  auto warpx4 =
      NVVM::Tcgen05CpMulticastAttr::get(ctx, NVVM::Tcgen05CpMulticast::WARPX4);
  auto copyChunk = [&](Value taddr, Value smemAddr) {
    NVVM::Tcgen05CpOp::create(
        kb, cpShape, ctaGroup1(), warpx4, NVVM::Tcgen05CpSrcFormatAttr(),
        tmemPtr(taddr), tcgen05::emitSmemDescriptor(kb, smemAddr, chunkDesc));
  };
  Value accumulator = tmemPtr(tcgen05::emitTmemAddress(
      kb, tmemBase, 0, static_cast<uint32_t>(tmem.getAccColumn(0))));
  Value accEmpty = barrier(spec.accEmptyBarrier());
  Value accFull = barrier(spec.accFullBarrier());
  forEachTile(ValueRange{c(0), c(0)}, [&](Value, Value, ValueRange iters) {
    Value ring0 = iters[0], tiles = iters[1];
    // The epilogue has read the previous tile's accumulator.
    tma::waitBarrier(kb, accEmpty, flip(parity(tiles, 1)));
    tcgen05Fence(NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
    auto loop =
        scf::ForOp::create(kb, c(0), c(spec.kTiles()), c(1), ValueRange{ring0});
    {
      OpBuilder::InsertionGuard g(kb);
      kb.setInsertionPointToStart(loop.getBody());
      Value kt = loop.getInductionVar();
      Value ring = loop.getRegionIterArgs()[0];
      Value s = remu(ring, spec.stages);
      tma::waitBarrier(kb, fullBarrier(s), parity(ring, spec.stages));
      tcgen05Fence(NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
      // Stage s's scale columns: SFA (4), then SFB (4 per 128 columns).
      Value sfaCol = add(c(tmem.getSfaColumn(0)),
                         mul(s, c(tmem.sfaColumns + tmem.sfbColumns)));
      Value sfaT = add(tmemBase, toI32(sfaCol));
      Value sfbT = add(sfaT, kb.i32(tmem.sfaColumns));
      Value sfaSmem =
          smem(add(c(spec.sfaOffset()), mul(s, c(Tcgen05GemmSpec::kSfaBytes))));
      Value sfbSmem =
          smem(add(c(spec.sfbOffset()), mul(s, c(Tcgen05GemmSpec::kSfbBytes))));
      copyChunk(sfaT, sfaSmem);
      copyChunk(sfbT, sfbSmem);
      copyChunk(add(sfbT, kb.i32(4)),
                add(sfbSmem, c(tcgen05::kScaleChunkBytes)));
      Value descA = tcgen05::emitSmemDescriptor(
          kb, smem(mul(s, c(Tcgen05GemmSpec::kABytes))), tileDesc);
      Value descB = tcgen05::emitSmemDescriptor(
          kb, smem(add(c(spec.bOffset()), mul(s, c(Tcgen05GemmSpec::kBBytes)))),
          tileDesc);
      Value notFirst = cmp(arith::CmpIPredicate::ne, kt, c(0));
      Value yes = arith::ConstantIntOp::create(kb, kb.getI1Type(), 1);
      for (int64_t kk = 0; kk < 4; ++kk) {
        // K block kk of the stage: 32 bytes further along the swizzled rows
        // (+2 in the address field), scale byte kk of each TMEM word.
        mma.sfaId = mma.sfbId = static_cast<uint32_t>(kk);
        Value step = arith::ConstantIntOp::create(kb, kb.getI64Type(), 2 * kk);
        NVVM::Tcgen05MMABlockScaleOp::create(
            kb,
            NVVM::MMABlockScaleKindAttr::get(ctx,
                                             NVVM::MMABlockScaleKind::MXF8F6F4),
            ctaGroup1(),
            NVVM::Tcgen05MMABlockScaleAttr::get(
                ctx, NVVM::Tcgen05MMABlockScale::BLOCK32),
            NVVM::Tcgen05MMACollectorOpAttr::get(
                ctx, NVVM::Tcgen05MMACollectorOp::DISCARD),
            accumulator, arith::AddIOp::create(kb, descA, step),
            arith::AddIOp::create(kb, descB, step),
            kb.i32(tcgen05::getBlockScaledInstrDesc(mma)),
            kk == 0 ? notFirst : yes, tmemPtr(sfaT), tmemPtr(sfbT));
      }
      // empty[s] arrives when these MMAs (and the copies) have completed.
      NVVM::Tcgen05CommitOp::create(kb, emptyBarrier(s), Value(), ctaGroup1());
      scf::YieldOp::create(kb, ValueRange{add(ring, c(1))});
    }
    NVVM::Tcgen05CommitOp::create(kb, accFull, Value(), ctaGroup1());
    return SmallVector<Value>{loop.getResult(0), add(tiles, c(1))};
  });
}

void Tcgen05GemmEmitter::emitEpilogue() {
  // Warp w (4-7) may access TMEM lanes 32 (w % 4) .. + 31: rows of the tile.
  Value quarter = sub(divu(tid, 32), c(kFirstEpilogueWarp));
  Value lane = remu(tid, 32);
  Value accEmpty = barrier(spec.accEmptyBarrier());
  Value accFull = barrier(spec.accFullBarrier());
  Value laneBase = add(tmemBase, toI32(mul(quarter, c(int64_t(32) << 16))));
  auto rowsType = VectorType::get({kLoadColumns}, kb.getI32Type());
  auto shape = NVVM::Tcgen05LdStShapeAttr::get(
      ctx, NVVM::Tcgen05LdStShape::SHAPE_32X32B);
  forEachTile(c(0), [&](Value mt, Value nt, ValueRange iters) {
    Value tiles = iters[0];
    tma::waitBarrier(kb, accFull, parity(tiles, 1));
    tcgen05Fence(NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
    Value row = add(mul(mt, c(Tcgen05GemmSpec::kTileM)),
                    add(mul(quarter, c(32)), lane));
    int64_t chunks = Tcgen05GemmSpec::kTileN / kLoadColumns;
    for (int64_t j = 0; j < chunks; ++j) {
      Value words = NVVM::Tcgen05LdOp::create(
          kb, rowsType, UnitAttr(), shape,
          tmemPtr(add(laneBase, kb.i32(j * kLoadColumns))), Value());
      NVVM::Tcgen05WaitOp::create(
          kb, NVVM::Tcgen05WaitKindAttr::get(ctx, NVVM::Tcgen05WaitKind::LOAD));
      if (j == chunks - 1) {
        // The whole accumulator is in registers: the next tile's MMAs may
        // overwrite it.
        tcgen05Fence(NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
        tma::arriveBarrier(kb, accEmpty);
      }
      Value acc =
          kb.bitcastTo(VectorType::get({kLoadColumns}, kb.getF32Type()), words);
      storeColumns(
          acc, row,
          add(mul(nt, c(Tcgen05GemmSpec::kTileN)), c(j * kLoadColumns)));
    }
    return SmallVector<Value>{add(tiles, c(1))};
  });
}

void Tcgen05GemmEmitter::storeColumns(Value acc, Value row, Value col0) {
  Type f32 = kb.getF32Type();
  if (bias) {
    // bias[col] for the 32 columns (clamped; masked columns are not stored).
    SmallVector<Value> values;
    for (int64_t j = 0; j < kLoadColumns; ++j) {
      Value col = arith::MinUIOp::create(kb, add(col0, c(j)), c(spec.n - 1));
      Value v = memref::LoadOp::create(kb, bias, col);
      if (!spec.biasType.isF32())
        v = arith::ExtFOp::create(kb, f32, v);
      values.push_back(v);
    }
    acc = arith::AddFOp::create(
        kb, acc,
        vector::FromElementsOp::create(kb, VectorType::get({kLoadColumns}, f32),
                                       values));
  }
  auto outVecType = VectorType::get({kLoadColumns}, spec.outType);
  // f32 -> bf16 round to nearest even (cvt.rn.bf16x2.f32).
  Value vals = spec.outType.isF32()
                   ? acc
                   : arith::TruncFOp::create(kb, outVecType, acc).getResult();
  Value rowOk = cmp(arith::CmpIPredicate::ult, row, c(spec.m));
  Value off = add(mul(row, c(spec.n)), col0);
  auto masked = [&] {
    // Columns past N and rows past M are not stored.
    SmallVector<int32_t> iota = llvm::to_vector(
        llvm::seq<int32_t>(0, static_cast<int32_t>(kLoadColumns)));
    auto iotaType = VectorType::get({kLoadColumns}, kb.getI32Type());
    Value cols = add(vector::BroadcastOp::create(kb, iotaType, toI32(col0)),
                     arith::ConstantOp::create(
                         kb, DenseIntElementsAttr::get(iotaType, iota)));
    Value inN = cmp(arith::CmpIPredicate::slt, cols,
                    vector::BroadcastOp::create(kb, iotaType, kb.i32(spec.n)));
    Value mask = arith::AndIOp::create(
        kb, inN,
        vector::BroadcastOp::create(
            kb, VectorType::get({kLoadColumns}, kb.getI1Type()), rowOk));
    vector::MaskedStoreOp::create(kb, out, ValueRange{off}, mask, vals);
  };
  int64_t elemBytes = spec.outType.getIntOrFloatBitWidth() / 8;
  int64_t perStore = 16 / elemBytes;
  if (spec.n % perStore != 0) {
    // Rows are not 16-byte aligned.
    masked();
    return;
  }
  Value whole = arith::AndIOp::create(
      kb, rowOk,
      cmp(arith::CmpIPredicate::ule, add(col0, c(kLoadColumns)), c(spec.n)));
  auto ifOp =
      scf::IfOp::create(kb, TypeRange{}, whole, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard g(kb);
  kb.setInsertionPointToStart(ifOp.thenBlock());
  for (int64_t p = 0; p < kLoadColumns; p += perStore) {
    Value piece = vector::ShuffleOp::create(
        kb, vals, vals, llvm::to_vector(llvm::seq<int64_t>(p, p + perStore)));
    kb.store(piece, out, add(off, c(p)), 16);
  }
  kb.setInsertionPointToStart(ifOp.elseBlock());
  masked();
}

void Tcgen05GemmEmitter::emit() {
  auto wgSpace = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  Value raw = gpu::DynamicSharedMemoryOp::create(
      kb, MemRefType::get({ShapedType::kDynamic}, kb.getI8Type(),
                          MemRefLayoutAttrInterface(), wgSpace));
  Value rawAddr = memref::ExtractAlignedPointerAsIndexOp::create(kb, raw);
  smemBase =
      arith::AndIOp::create(kb, add(rawAddr, c(1023)), c(~int64_t(1023)));
  tid = gpu::ThreadIdOp::create(kb, gpu::Dimension::x);
  Value warp = divu(tid, 32);
  auto eq = [&](Value x, int64_t v) {
    return cmp(arith::CmpIPredicate::eq, x, c(v));
  };
  tcgen05::TmemLayout tmem = spec.tmem();
  Value allocColumns = kb.i32(tmem.getAllocColumns());
  Value slot = tma::getSharedPointer(kb, smem(spec.tmemSlot()));

  kb.ifThen(eq(tid, 0), [&] {
    for (int64_t s = 0; s < spec.stages; ++s) {
      // full[s]: the producer's expect_tx arrival plus the bytes; empty[s]
      // and acc_full: one tcgen05.commit each; acc_empty: the epilogue.
      tma::initBarrier(kb, barrier(spec.fullBarrier(s)), 1);
      tma::initBarrier(kb, barrier(spec.emptyBarrier(s)), 1);
    }
    tma::initBarrier(kb, barrier(spec.accFullBarrier()), 1);
    tma::initBarrier(kb, barrier(spec.accEmptyBarrier()), kEpilogueThreads);
    NVVM::FenceMbarrierInitOp::create(kb);
  });
  // One warp allocates the Tensor Memory (its address lands in the slot).
  kb.ifThen(eq(warp, kAllocWarp), [&] {
    NVVM::Tcgen05AllocOp::create(kb, slot, allocColumns, ctaGroup1());
    NVVM::Tcgen05RelinquishAllocPermitOp::create(kb, ctaGroup1());
  });
  tcgen05Fence(NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
  gpu::BarrierOp::create(kb);
  tcgen05Fence(NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
  tmemBase = LLVM::LoadOp::create(kb, kb.getI32Type(), slot);

  kb.ifThen(eq(tid, kProducerThread), [&] { emitProducer(); });
  kb.ifThen(eq(tid, kMmaThread), [&] { emitMma(); });
  kb.ifThen(cmp(arith::CmpIPredicate::uge, warp, c(kFirstEpilogueWarp)),
            [&] { emitEpilogue(); });

  // Every role is done (the epilogue read the last accumulator after the
  // last MMA completed): the allocating warp frees the columns.
  tcgen05Fence(NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
  gpu::BarrierOp::create(kb);
  kb.ifThen(eq(warp, kAllocWarp), [&] {
    tcgen05Fence(NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
    NVVM::Tcgen05DeallocOp::create(kb, tmemPtr(tmemBase), allocColumns,
                                   ctaGroup1());
  });
}

//===----------------------------------------------------------------------===//
// Host side
//===----------------------------------------------------------------------===//

/// Why `op` cannot take the tcgen05 kernel, or an empty string. With
/// `rowMajorScalesOk`, row-major scales are accepted (to be re-laid).
static std::string whyNotTcgen05(ScaledMmOp op, bool rowMajorScalesOk) {
  if (!hasStaticShapes(op))
    return "dynamic shapes";
  RankedTensorType lhsType = op.getLhs().getType();
  if (lhsType.getRank() != 2)
    return "the tcgen05 kernel takes rank 2";
  if (op.getTransposeLhs() || !op.getTransposeRhs())
    return "the tcgen05 kernel takes K-major operands (lhs M x K, rhs N x K)";
  if (!tcgen05::getElementFormat(lhsType.getElementType()) ||
      !tcgen05::getElementFormat(op.getRhs().getType().getElementType()))
    return "the tcgen05 kernel takes e4m3/e5m2 operands";
  RankedTensorType resultType = op.getResult().getType();
  if (resultType.getNumElements() == 0 || lhsType.getDimSize(1) == 0)
    return "empty GEMM";
  for (ScaleLayout layout : {op.getLhsScaleLayout(), op.getRhsScaleLayout()})
    if (layout != ScaleLayout::Blocked &&
        !(rowMajorScalesOk && layout == ScaleLayout::RowMajor))
      return "the tcgen05 kernel takes blocked scales";
  return "";
}

LogicalResult gpu_lowering::lowerScaledMmToTcgen05(PatternRewriter &rewriter,
                                                   const KernelCache &cache,
                                                   ScaledMmOp op) {
  if (std::string why = whyNotTcgen05(op, /*rowMajorScalesOk=*/false);
      !why.empty())
    return rewriter.notifyMatchFailure(op, why);
  Location loc = op.getLoc();
  RankedTensorType resultType = op.getResult().getType();
  Tcgen05GemmSpec spec;
  spec.m = resultType.getDimSize(0);
  spec.n = resultType.getDimSize(1);
  spec.k = op.getLhs().getType().getDimSize(1);
  spec.aType = op.getLhs().getType().getElementType();
  spec.bType = op.getRhs().getType().getElementType();
  spec.outType = resultType.getElementType();
  if (op.getBias())
    spec.biasType = op.getBias().getType().getElementType();
  while (spec.stages > 2 && spec.sharedBytes() > kSharedLimit)
    --spec.stages;

  // K-major boxes of 128 K x 128 rows (A) and 128 K x 256 rows (B): 128-byte
  // rows in the 128-byte swizzle, as the MMA descriptors expect.
  Value aBuf = toBuffer(rewriter, loc, op.getLhs());
  Value bBuf = toBuffer(rewriter, loc, op.getRhs());
  tma::TensorMapSpec aMap, bMap;
  aMap.box = {Tcgen05GemmSpec::kTileM, Tcgen05GemmSpec::kTileK};
  bMap.box = {Tcgen05GemmSpec::kTileN, Tcgen05GemmSpec::kTileK};
  std::string why;
  if (!tma::canCreateTensorMap(cast<MemRefType>(aBuf.getType()), aMap, &why) ||
      !tma::canCreateTensorMap(cast<MemRefType>(bBuf.getType()), bMap, &why))
    return rewriter.notifyMatchFailure(op, why);
  Value mapA = tma::createTensorMap(rewriter, loc, aBuf, aMap);
  Value mapB = tma::createTensorMap(rewriter, loc, bBuf, bMap);
  SmallVector<Value> args = {mapA, mapB,
                             toBuffer(rewriter, loc, op.getLhsScales()),
                             toBuffer(rewriter, loc, op.getRhsScales())};
  if (op.getBias())
    args.push_back(toBuffer(rewriter, loc, op.getBias()));
  Value outBuf = allocResult(rewriter, loc, resultType);
  args.push_back(
      collapseTo(rewriter, loc, outBuf, {resultType.getNumElements()}));

  SmallVector<Type> argTypes =
      llvm::map_to_vector(args, [](Value v) { return v.getType(); });
  gpu::GPUFuncOp kernel =
      cache.getOrCreate(rewriter, spec.getName(), argTypes, args.size() - 1, {},
                        [&](KernelBuilder &kb, ValueRange kargs, ValueRange) {
                          Tcgen05GemmEmitter(kb, spec, kargs).emit();
                        });
  kernel->setAttr("nvvm.minctasm", rewriter.getI32IntegerAttr(1));
  kernel->setAttr("nvvm.maxntid",
                  rewriter.getDenseI32ArrayAttr({int32_t(kThreads), 1, 1}));
  // Persistent: one CTA per SM at most.
  int64_t grid = std::min<int64_t>(spec.numTiles(), cache.getTarget().numSMs);
  auto c = [&](int64_t v) {
    return arith::ConstantIndexOp::create(rewriter, loc, v).getResult();
  };
  gpu::LaunchFuncOp::create(
      rewriter, loc, kernel, gpu::KernelDim3{c(grid), c(1), c(1)},
      gpu::KernelDim3{c(kThreads), c(1), c(1)},
      arith::ConstantIntOp::create(rewriter, loc, spec.sharedBytes(), 32),
      args);
  tma::freeTensorMapAtBlockEnd(rewriter, loc, mapA);
  tma::freeTensorMapAtBlockEnd(rewriter, loc, mapB);
  rewriter.replaceOp(op, toTensor(rewriter, loc, outBuf));
  return success();
}

namespace {
/// scaled_mm that the tcgen05 kernel takes but with row-major scales ->
/// `to_blocked` of those scales and the same scaled_mm on blocked ones.
struct ScaledMmScalesToBlocked final : OpRewritePattern<ScaledMmOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ScaledMmOp op,
                                PatternRewriter &rewriter) const override {
    if (std::string why = whyNotTcgen05(op, /*rowMajorScalesOk=*/true);
        !why.empty())
      return rewriter.notifyMatchFailure(op, why);
    if (op.getLhsScaleLayout() == ScaleLayout::Blocked &&
        op.getRhsScaleLayout() == ScaleLayout::Blocked)
      return rewriter.notifyMatchFailure(op, "scales already blocked");
    Location loc = op.getLoc();
    auto blocked = ScaleLayoutAttr::get(op.getContext(), ScaleLayout::Blocked);
    auto relay = [&](Value scales, ScaleLayout layout) -> Value {
      if (layout == ScaleLayout::Blocked)
        return scales;
      // (rows, K / 32) -> ceil(rows / 128) * 128 * ceil(K / 128) * 4 bytes.
      auto type = cast<RankedTensorType>(scales.getType());
      int64_t size = llvm::alignTo(type.getDimSize(0), 128) *
                     llvm::alignTo(type.getDimSize(1), 4);
      return ToBlockedOp::create(
          rewriter, loc, RankedTensorType::get({size}, type.getElementType()),
          scales, Value(), blocked);
    };
    Value lhsScales = relay(op.getLhsScales(), op.getLhsScaleLayout());
    Value rhsScales = relay(op.getRhsScales(), op.getRhsScaleLayout());
    auto newOp = ScaledMmOp::create(
        rewriter, loc, op.getResult().getType(), op.getLhs(), lhsScales,
        op.getRhs(), rhsScales, op.getBias(), op.getTransposeLhsAttr(),
        op.getTransposeRhsAttr(), blocked, blocked);
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
