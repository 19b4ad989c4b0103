//===- WGMMAUpcast.cpp - fused-upcast wgmma GEMMs (v5, v7) -----*- C++ -*-===//
//
// The GEMM kernels that upcast the fp8 operands inside the kernel, kept as
// the guarded fallback of the pre-dequantized kernel (WGMMA.cpp) for scale
// bytes bf16 cannot hold exactly: every element becomes the exact bf16
// q * 2^(s + c - 127), written into 128-byte-swizzled K-major stages, and
// multiplied by bf16 wgmma (WGMMA.h). The per-K-block rebalancing c =
// floor((max sB - max sA) / 2) of the tile's largest scale bytes moves from
// B to A, so that extreme pairs such as A = 0x00 with B = 0xFE stay exact.
//
// FusedUpcast (v5; MN-major or blocked-scale operands and 2d-2d): 256
// threads = two warpgroups that all load, convert and multiply. Every
// thread loads its part of the next stage into registers while the tensor
// cores work on the current one, converts it into the next stage,
// `fence.proxy.async`, one CTA barrier per stage (plus one for the
// rebalancing maxima, reduced by shared atomics), then four wgmma per
// warpgroup; three stages, `wgmma.wait_group 1`.
//
// FusedUpcastWS (v7; K-major operands with row-major scales): warp
// specialised, 512 threads on the stage ring of GemmMainloop. Warpgroups
// 0-1 multiply (WgmmaConsumer::emitRingTile); warpgroups 2-3 load two
// contraction tiles ahead, reduce the rebalancing maxima of the next stage
// while converting the current one (`redux.sync`, a named barrier among the
// converters), wait empty[s], convert (`prmt` byte placement; one bf16x2
// multiply per pair where every rebalanced scale byte of the stage is at
// most 134), fence, arrive on full[s].
//
// 2d-2d (v5 and v7): each group's output contracts over the group's token
// range, masking every element outside it (an empty group gives zeros).
//
//===----------------------------------------------------------------------===//

#include "WGMMA.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::gpu_lowering;
using gemm::OperandLayout;

/// Elements per global load chunk (16 bytes of fp8).
constexpr int64_t kChunk = 16;

namespace {
/// The registers of one operand's part of a stage: per chunk the 16 fp8
/// bytes and its scale byte(s) (i32 for a K-major chunk, vector<16xi32> for
/// an MN-major one).
struct OperandRegs {
  SmallVector<Value> data, scales;
};

/// Emits the body of a fused-upcast kernel on a GemmMainloop.
class FusedUpcastEmitter : public GemmIndexArith {
public:
  explicit FusedUpcastEmitter(GemmMainloop &mainloop)
      : GemmIndexArith(mainloop.getBuilder()), mainloop(mainloop),
        mma(mainloop), spec(mainloop.getSpec()), args(mainloop.getArgs()),
        convThreads(spec.converterThreads()) {}

  /// The kernel body inside GemmMainloop::emitKernel.
  void emitBody();

private:
  /// Loads one operand's chunks of contraction tile `kt` into registers.
  OperandRegs loadOperand(const OperandLayout &l, bool isA, Value dataBase,
                          Value scaleBase, Value rowBase, Value rowEnd,
                          Value kt, Value kLo, Value kHi);
  /// Converts and stores them into the operand's tile of shared memory at
  /// element offset `tileBase` of the bf16 view.
  void storeOperand(const OperandLayout &l, const OperandRegs &regs,
                    Value tileBase, Value rowBase, Value rowEnd, Value kt,
                    Value kLo, Value kHi, Type f8Type, Value shift0,
                    Value shift1, bool fused = false);
  /// MN-major scale bytes (vector<16xi8>) as vector<16xi32>; i32 as is.
  Value widenScales(Value s) {
    if (auto vt = dyn_cast<VectorType>(s.getType()))
      return arith::ExtUIOp::create(
          kb, VectorType::get(vt.getShape(), kb.getI32Type()), s);
    return s;
  }
  /// The exact bf16 values of 16 fp8 bytes (vector<16xi8>); with
  /// `restore` false (e4m3 only) the values times 2^-120, for a scale
  /// factor that includes 2^120.
  Value convertToBF16(Value bytes, Type f8Type, bool restore = true);
  /// Decoded scale factors 2^(s + shift - 127) (bf16, same shape as
  /// `bytes`, i32), NaN where the byte is 255.
  Value decodeScales(Value bytes, Value shift);
  /// The 32-block (0 or 1 within the stage) of chunk `u` of an operand.
  Value chunkBlock(const OperandLayout &l, int64_t tileRows, int64_t u);
  /// This thread's largest finite scale byte of an operand per 32-block of
  /// the stage (i32, 0 when it has none).
  std::pair<Value, Value> localMax(const OperandLayout &l,
                                   const OperandRegs &regs, int64_t tileRows);
  /// This thread's registers of contraction tile `kt` (A data, A scales, B
  /// data, B scales) and their split.
  SmallVector<Value> loadStage(const GemmTile &t, Value kt);
  std::pair<OperandRegs, OperandRegs> unpackStage(ValueRange all);
  int64_t chunksA() const {
    return spec.tile.m * spec.tile.k / kChunk / convThreads;
  }
  int64_t chunksB() const {
    return spec.tile.n * spec.tile.k / kChunk / convThreads;
  }
  int64_t regsPerStage() const { return 2 * chunksA() + 2 * chunksB(); }
  /// The warp's largest finite scale bytes [A0, A1, B0, B1] of the stage
  /// (v5: butterfly shuffles; v7: `redux.sync`).
  SmallVector<Value> warpMaxima(const OperandRegs &a, const OperandRegs &b);
  /// The rebalancing shifts {A0, A1, B0, B1} (c0, c1, -c0, -c1) from the
  /// tile's maxima.
  SmallVector<Value> shiftsFrom(ArrayRef<Value> cta);
  /// Converts a stage's registers into stage `stage` of shared memory.
  /// v7 with rebalancing: where the stage's largest rebalanced scale
  /// bytes `ctaMax` (NaN bytes excluded) allow it, the e4m3 operands take
  /// one multiply per bf16 pair (2^120 folded into the scale factor).
  void storeStage(const GemmTile &t, Value kt, Value stage,
                  const OperandRegs &a, const OperandRegs &b,
                  ArrayRef<Value> shifts, ArrayRef<Value> ctaMax = {});
  /// v5: computes and stores one output tile.
  void emitTile(const GemmTile &t);
  /// v7: the converter role for one tile.
  void emitConverterTile(const GemmTile &t);

  GemmMainloop &mainloop;
  WgmmaConsumer mma;
  const GemmSpec &spec;
  const GemmArgs &args;
  int64_t convThreads;
  /// threadIdx.x, and the thread's index among the converters (v5: tid).
  Value tid, ctid;
  /// The stages as bf16.
  Value smem;
  /// Shared i32 slots of the scale rebalancing: v5 [stage][maxA0, maxA1,
  /// maxB0, maxB1] (atomics); v7 [2][converter warp][4] (one writer each).
  Value maxSlots;
};
} // namespace

Value FusedUpcastEmitter::convertToBF16(Value bytes, Type f8Type,
                                        bool restore) {
  auto bf16Vec = VectorType::get({kChunk}, kb.getBF16Type());
  if (!isa<Float8E4M3FNType>(f8Type))
    return arith::TruncFOp::create(kb, bf16Vec,
                                   kb.convertFromF8(bytes, f8Type));
  if (spec.fastConverter()) {
    Value x = kb.placeE4M3(bytes);
    if (!restore)
      return x;
    return arith::MulFOp::create(kb, x, kb.splatBits(bf16Vec, 247 << 7));
  }
  // e4m3 without conversion instructions (F2F runs at 1/8 of the FP32
  // rate): the magnitude bits shifted into place read as a bf16 of 2^-120
  // times the e4m3 value (normal or subnormal alike), the sign moves to bit
  // 15, and one exact multiply by 2^120 restores the value. The e4m3 NaN
  // codes (0x7F/0xFF) are not recognised (NaN comes with scale byte 255).
  // In 32-bit words: each word of 4 bytes gives two bf16x2 words.
  auto words = VectorType::get({kChunk / 4}, kb.getI32Type());
  auto pairs = VectorType::get({kChunk / 2}, kb.getI32Type());
  auto k = [&](VectorType t, uint64_t v) { return kb.splatBits(t, v); };
  auto shl = [&](Value v, VectorType t, int64_t n) -> Value {
    return arith::ShLIOp::create(kb, v, k(t, n));
  };
  auto shr = [&](Value v, VectorType t, int64_t n) -> Value {
    return arith::ShRUIOp::create(kb, v, k(t, n));
  };
  auto andk = [&](Value v, VectorType t, uint64_t m) -> Value {
    return arith::AndIOp::create(kb, v, k(t, m));
  };
  Value w = kb.bitcastTo(words, bytes);
  // lo = b0 | b1 << 16, hi = b2 | b3 << 16.
  Value lo = arith::OrIOp::create(kb, andk(w, words, 0xFF),
                                  andk(shl(w, words, 8), words, 0xFF0000));
  Value hi = arith::OrIOp::create(kb, andk(shr(w, words, 16), words, 0xFF),
                                  andk(shr(w, words, 8), words, 0xFF0000));
  Value t = vector::ShuffleOp::create(
      kb, lo, hi, ArrayRef<int64_t>{0, 4, 1, 5, 2, 6, 3, 7});
  Value bitsV =
      arith::OrIOp::create(kb, andk(shl(t, pairs, 4), pairs, 0x07F007F0),
                           andk(shl(t, pairs, 8), pairs, 0x80008000));
  Value x = kb.bitcastTo(bf16Vec, bitsV);
  // 2^120 in bf16: exponent field 247.
  return arith::MulFOp::create(kb, x, kb.splatBits(bf16Vec, 247 << 7));
}

Value FusedUpcastEmitter::decodeScales(Value bytes, Value shift) {
  // 2^(e-127), e = s + shift, as bf16 bits: e << 7 for a normal exponent,
  // 1 << (e + 6) down to e = -6 (subnormal; s = 0 without shift gives
  // 2^-127 = 0x0020), 0 below; NaN for s = 255, so that every element of a
  // NaN block is NaN.
  Type i32 = kb.getI32Type();
  auto splat = [&](int64_t v) -> Value {
    if (auto vt = dyn_cast<VectorType>(bytes.getType()))
      return kb.splatBits(vt, uint64_t(v) & 0xFFFFFFFFu);
    return arith::ConstantIntOp::create(kb, i32, v);
  };
  Value e = bytes;
  if (auto vt = dyn_cast<VectorType>(bytes.getType()))
    shift = vector::BroadcastOp::create(kb, vt, shift);
  e = arith::AddIOp::create(kb, bytes, shift);
  Value normal = arith::ShLIOp::create(kb, e, splat(7));
  Value isSub =
      arith::CmpIOp::create(kb, arith::CmpIPredicate::sle, e, splat(0));
  Value subShift = arith::MaxSIOp::create(
      kb, arith::AddIOp::create(kb, e, splat(6)), splat(0));
  Value sub = arith::ShLIOp::create(kb, splat(1), subShift);
  Value tooSmall =
      arith::CmpIOp::create(kb, arith::CmpIPredicate::slt, e, splat(-6));
  sub = select(tooSmall, splat(0), sub);
  Value isNaN =
      arith::CmpIOp::create(kb, arith::CmpIPredicate::eq, bytes, splat(255));
  Value bits = select(isSub, sub, normal);
  bits = select(isNaN, splat(0x7FC0), bits);
  Type bf16 = kb.getBF16Type();
  if (auto vt = dyn_cast<VectorType>(bytes.getType())) {
    auto i16Vec = VectorType::get(vt.getShape(), kb.getI16Type());
    return kb.bitcastTo(VectorType::get(vt.getShape(), bf16),
                        arith::TruncIOp::create(kb, i16Vec, bits));
  }
  return kb.bitcastTo(bf16, arith::TruncIOp::create(kb, kb.getI16Type(), bits));
}

OperandRegs FusedUpcastEmitter::loadOperand(const OperandLayout &l, bool isA,
                                            Value dataBase, Value scaleBase,
                                            Value rowBase, Value rowEnd,
                                            Value kt, Value kLo, Value kHi) {
  Value data = isA ? args.aData : args.bData;
  Value scales = isA ? args.aScales : args.bScales;
  Type f8Type = cast<MemRefType>(data.getType()).getElementType();
  Type scaleType = cast<MemRefType>(scales.getType()).getElementType();
  auto byteVec = VectorType::get({kChunk}, kb.getI8Type());
  int64_t tileRows = isA ? spec.tile.m : spec.tile.n;
  int64_t blocks = l.k / 32;
  Value k0 = mul(kt, c(spec.tile.k));
  OperandRegs regs;
  auto scaleByteAt = [&](Value row, Value kBlock) -> Value {
    Value off;
    if (l.blockedScales) {
      lowering::Bits bb = kb.bits();
      off = lowering::getBlockedOffset(bb, row, kBlock, blocks);
    } else {
      off = l.kMajor ? add(mul(row, c(blocks)), kBlock)
                     : add(mul(kBlock, c(l.rows)), row);
    }
    Value s = memref::LoadOp::create(kb, scales, add(scaleBase, off));
    Value byte = kb.bitcastTo(kb.getI8Type(), s);
    return arith::ExtUIOp::create(kb, kb.getI32Type(), byte);
  };
  int64_t chunksPerThread = tileRows * spec.tile.k / kChunk / convThreads;
  for (int64_t u = 0; u < chunksPerThread; ++u) {
    Value chunk = add(ctid, c(u * convThreads));
    if (l.kMajor) {
      // 16 consecutive k of one row (inside one 32-block).
      int64_t perRow = spec.tile.k / kChunk;
      Value r = divu(chunk, perRow);
      Value kk = add(k0, mul(remu(chunk, perRow), c(kChunk)));
      Value row = add(rowBase, r);
      Value inb = andi(andi(ult(row, rowEnd), ult(kk, kHi)),
                       ult(kLo, add(kk, c(kChunk))));
      auto ifOp =
          scf::IfOp::create(kb, TypeRange{byteVec, kb.getI32Type()}, inb, true);
      {
        OpBuilder::InsertionGuard g(kb);
        kb.setInsertionPointToStart(ifOp.thenBlock());
        Value off = add(dataBase, add(mul(row, c(l.k)), kk));
        Value v = kb.load(VectorType::get({kChunk}, f8Type), data, off, 16);
        Value s = scaleByteAt(row, divu(kk, 32));
        scf::YieldOp::create(kb, ValueRange{kb.bitcastTo(byteVec, v), s});
        kb.setInsertionPointToStart(ifOp.elseBlock());
        scf::YieldOp::create(kb,
                             ValueRange{kb.splatBits(byteVec, 0), kb.i32(127)});
      }
      regs.data.push_back(ifOp.getResult(0));
      regs.scales.push_back(ifOp.getResult(1));
    } else {
      // 16 consecutive rows at one k.
      int64_t perK = tileRows / kChunk;
      Value kk = add(k0, divu(chunk, perK));
      Value r0 = add(rowBase, mul(remu(chunk, perK), c(kChunk)));
      Value kIn = andi(ult(kk, kHi), uge(kk, kLo));
      Value inb = andi(kIn, ult(r0, rowEnd));
      bool aligned = l.rows % kChunk == 0;
      auto ifOp = scf::IfOp::create(kb, TypeRange{byteVec, byteVec}, inb, true);
      {
        OpBuilder::InsertionGuard g(kb);
        kb.setInsertionPointToStart(ifOp.thenBlock());
        Value rowOff = add(dataBase, add(mul(kk, c(l.rows)), r0));
        Value kBlock = divu(kk, 32);
        Value v, s;
        if (aligned) {
          v = kb.bitcastTo(byteVec, kb.load(VectorType::get({kChunk}, f8Type),
                                            data, rowOff, 16));
        } else {
          // Rows not a multiple of 16: byte loads guarded by the row count.
          SmallVector<Value> bytes;
          for (int64_t j = 0; j < kChunk; ++j) {
            Value rj = add(r0, c(j));
            Value ok = ult(rj, c(l.rows));
            Value off = select(ok, add(rowOff, c(j)), rowOff);
            Value q = memref::LoadOp::create(kb, data, off);
            Value byte = kb.bitcastTo(kb.getI8Type(), q);
            bytes.push_back(select(
                ok, byte, arith::ConstantIntOp::create(kb, 0, 8).getResult()));
          }
          v = vector::FromElementsOp::create(kb, byteVec, bytes);
        }
        if (!l.blockedScales && aligned) {
          Value sv =
              kb.load(VectorType::get({kChunk}, scaleType), scales,
                      add(scaleBase, add(mul(kBlock, c(l.rows)), r0)), 16);
          s = kb.bitcastTo(byteVec, sv);
        } else {
          SmallVector<Value> ss;
          for (int64_t j = 0; j < kChunk; ++j) {
            Value rj = arith::MinUIOp::create(kb, add(r0, c(j)), c(l.rows - 1));
            ss.push_back(arith::TruncIOp::create(kb, kb.getI8Type(),
                                                 scaleByteAt(rj, kBlock)));
          }
          s = vector::FromElementsOp::create(kb, byteVec, ss);
        }
        scf::YieldOp::create(kb, ValueRange{v, s});
        kb.setInsertionPointToStart(ifOp.elseBlock());
        scf::YieldOp::create(kb, ValueRange{kb.splatBits(byteVec, 0),
                                            kb.splatBits(byteVec, 127)});
      }
      regs.data.push_back(ifOp.getResult(0));
      regs.scales.push_back(ifOp.getResult(1));
    }
  }
  return regs;
}

Value FusedUpcastEmitter::chunkBlock(const OperandLayout &l, int64_t tileRows,
                                     int64_t u) {
  Value chunk = add(ctid, c(u * convThreads));
  Value kk = l.kMajor ? mul(remu(chunk, spec.tile.k / kChunk), c(kChunk))
                      : divu(chunk, tileRows / kChunk);
  return divu(kk, 32);
}

std::pair<Value, Value> FusedUpcastEmitter::localMax(const OperandLayout &l,
                                                     const OperandRegs &regs,
                                                     int64_t tileRows) {
  Value zero = kb.i32(0);
  Value m0 = zero, m1 = zero;
  for (auto [u, s8] : llvm::enumerate(regs.scales)) {
    Value s = widenScales(s8);
    Value sm = s;
    if (auto vt = dyn_cast<VectorType>(s.getType())) {
      // NaN bytes do not take part.
      Value nan = arith::CmpIOp::create(kb, arith::CmpIPredicate::eq, s,
                                        kb.splatBits(vt, 255));
      sm = vector::ReductionOp::create(kb, vector::CombiningKind::MAXUI,
                                       select(nan, kb.splatBits(vt, 0), s));
    } else {
      sm = select(
          arith::CmpIOp::create(kb, arith::CmpIPredicate::eq, s, kb.i32(255)),
          zero, s);
    }
    Value first = arith::CmpIOp::create(kb, arith::CmpIPredicate::eq,
                                        chunkBlock(l, tileRows, u), c(0));
    m0 = select(first, arith::MaxUIOp::create(kb, m0, sm), m0);
    m1 = select(first, m1, arith::MaxUIOp::create(kb, m1, sm));
  }
  return {m0, m1};
}

void FusedUpcastEmitter::storeOperand(const OperandLayout &l,
                                      const OperandRegs &regs, Value tileBase,
                                      Value rowBase, Value rowEnd, Value kt,
                                      Value kLo, Value kHi, Type f8Type,
                                      Value shift0, Value shift1, bool fused) {
  int64_t tileRows = regs.data.size() * kChunk * convThreads / spec.tile.k;
  auto bf16Vec = VectorType::get({kChunk}, kb.getBF16Type());
  Value k0 = mul(kt, c(spec.tile.k));
  for (auto [u, bytes] : llvm::enumerate(regs.data)) {
    Value chunk = add(ctid, c(u * convThreads));
    // Fused (v7): x is 2^-120 times the value and the scale factor
    // 2^(s + shift - 7) carries the 2^120; the one rounding of the exact
    // product is the same.
    Value x = convertToBF16(bytes, f8Type, !fused);
    Value first = arith::CmpIOp::create(kb, arith::CmpIPredicate::eq,
                                        chunkBlock(l, tileRows, u), c(0));
    Value shift = select(first, shift0, shift1);
    if (fused)
      shift = arith::AddIOp::create(kb, shift, kb.i32(120));
    Value scale = decodeScales(widenScales(regs.scales[u]), shift);
    if (!isa<VectorType>(scale.getType()))
      scale = vector::BroadcastOp::create(kb, bf16Vec, scale);
    // One bf16 rounding of the exact product: the same value as the f32
    // product rounded to bf16 (exact unless it underflows bf16).
    Value y = arith::MulFOp::create(kb, x, scale);
    Value zero = kb.splatBits(bf16Vec, 0);
    if (l.kMajor) {
      int64_t perRow = spec.tile.k / kChunk;
      Value r = divu(chunk, perRow);
      Value kc = remu(chunk, perRow);
      if (spec.masksElementsAlongK()) {
        // Elements outside the group's token range [kLo, kHi) are zero.
        // Only chunks that straddle a group boundary compute lane masks.
        Value kk = add(k0, mul(kc, c(kChunk)));
        Value inside = andi(uge(kk, kLo), ult(add(kk, c(kChunk - 1)), kHi));
        auto ifOp = scf::IfOp::create(kb, TypeRange{bf16Vec}, inside, true);
        {
          OpBuilder::InsertionGuard g(kb);
          kb.setInsertionPointToStart(ifOp.thenBlock());
          scf::YieldOp::create(kb, y);
          kb.setInsertionPointToStart(ifOp.elseBlock());
          SmallVector<Value> lanes;
          for (int64_t j = 0; j < kChunk; ++j) {
            Value kj = add(kk, c(j));
            lanes.push_back(andi(uge(kj, kLo), ult(kj, kHi)));
          }
          Value mask = vector::FromElementsOp::create(
              kb, VectorType::get({kChunk}, kb.getI1Type()), lanes);
          scf::YieldOp::create(kb, select(mask, y, zero));
        }
        y = ifOp.getResult(0);
      }
      Value b16 = y;
      // Two 16-byte chunks (2kc, 2kc+1) of row r in the 128B swizzle.
      Value rowOff = add(tileBase, mul(r, c(64)));
      Value phase = remu(r, 8);
      for (int64_t h = 0; h < 2; ++h) {
        SmallVector<int64_t> lanes;
        for (int64_t j = 0; j < 8; ++j)
          lanes.push_back(8 * h + j);
        Value part = vector::ShuffleOp::create(kb, b16, b16, lanes);
        Value logical = add(mul(kc, c(2)), c(h));
        Value phys = arith::XOrIOp::create(kb, logical, phase);
        kb.store(part, smem, add(rowOff, mul(phys, c(8))), 16);
      }
    } else {
      int64_t perK = tileRows / kChunk;
      Value kk = divu(chunk, perK);
      Value r0 = mul(remu(chunk, perK), c(kChunk));
      // Rows past the operand's end (row-masked tiles) are zero.
      SmallVector<Value> lanes;
      for (int64_t j = 0; j < kChunk; ++j)
        lanes.push_back(ult(add(add(rowBase, r0), c(j)), rowEnd));
      Value mask = vector::FromElementsOp::create(
          kb, VectorType::get({kChunk}, kb.getI1Type()), lanes);
      y = select(mask, y, zero);
      Value b16 = y;
      Value logical = divu(kk, 8);
      Value inChunk = remu(kk, 8);
      for (int64_t j = 0; j < kChunk; ++j) {
        Value r = add(r0, c(j));
        Value phys = arith::XOrIOp::create(kb, logical, remu(r, 8));
        Value off =
            add(add(tileBase, mul(r, c(64))), add(mul(phys, c(8)), inChunk));
        Value e = vector::ExtractOp::create(kb, b16, j);
        memref::StoreOp::create(kb, e, smem, off);
      }
    }
  }
}

SmallVector<Value> FusedUpcastEmitter::loadStage(const GemmTile &t, Value kt) {
  OperandRegs a = loadOperand(spec.a, true, t.aDataBase, t.aScaleBase,
                              t.rowBase, t.rowEnd, kt, t.kLo, t.kHi);
  OperandRegs b = loadOperand(spec.b, false, t.bDataBase, t.bScaleBase,
                              t.colBase, t.colEnd, kt, t.kLo, t.kHi);
  SmallVector<Value> all;
  llvm::append_range(all, a.data);
  llvm::append_range(all, a.scales);
  llvm::append_range(all, b.data);
  llvm::append_range(all, b.scales);
  return all;
}

std::pair<OperandRegs, OperandRegs>
FusedUpcastEmitter::unpackStage(ValueRange all) {
  int64_t na = chunksA(), nb = chunksB();
  OperandRegs a, b;
  a.data.assign(all.begin(), all.begin() + na);
  a.scales.assign(all.begin() + na, all.begin() + 2 * na);
  b.data.assign(all.begin() + 2 * na, all.begin() + 2 * na + nb);
  b.scales.assign(all.begin() + 2 * na + nb, all.begin() + 2 * na + 2 * nb);
  return {a, b};
}

SmallVector<Value> FusedUpcastEmitter::warpMaxima(const OperandRegs &a,
                                                  const OperandRegs &b) {
  auto [a0, a1] = localMax(spec.a, a, spec.tile.m);
  auto [b0, b1] = localMax(spec.b, b, spec.tile.n);
  SmallVector<Value> maxima = {a0, a1, b0, b1};
  if (spec.fastConverter()) {
    // v7: one `redux.sync.max.u32` each instead of five shuffles and maxima.
    auto kind =
        NVVM::ReduxKindAttr::get(kb.getContext(), NVVM::ReduxKind::UMAX);
    for (Value &v : maxima)
      v = NVVM::ReduxOp::create(kb, kb.getI32Type(), v, kind, kb.i32(-1));
    return maxima;
  }
  for (Value &v : maxima)
    for (int64_t w = 1; w < 32; w *= 2)
      v = arith::MaxUIOp::create(
          kb, v,
          gpu::ShuffleOp::create(kb, v, w, 32, gpu::ShuffleMode::XOR)
              .getShuffleResult());
  return maxima;
}

SmallVector<Value> FusedUpcastEmitter::shiftsFrom(ArrayRef<Value> cta) {
  // Per 32-block, c = floor((maxB - maxA) / 2) of the tile's largest scale
  // bytes moves from B to A (the products are unchanged), so that the bf16
  // operands stay exact for extreme pairs such as A = 0x00 with B = 0xFE.
  auto half = [&](Value d) {
    return arith::ShRSIOp::create(kb, d, kb.i32(1)).getResult();
  };
  Value zero32 = kb.i32(0);
  Value c0 = half(arith::SubIOp::create(kb, cta[2], cta[0]));
  Value c1 = half(arith::SubIOp::create(kb, cta[3], cta[1]));
  return {c0, c1, arith::SubIOp::create(kb, zero32, c0),
          arith::SubIOp::create(kb, zero32, c1)};
}

void FusedUpcastEmitter::storeStage(const GemmTile &t, Value kt, Value stage,
                                    const OperandRegs &a, const OperandRegs &b,
                                    ArrayRef<Value> shifts,
                                    ArrayRef<Value> ctaMax) {
  MLIRContext *ctx = kb.getContext();
  // Offsets in bf16 elements of the bf16 view of shared memory.
  Value stageElems = mul(stage, c(spec.stageBytes() / 2));
  Value aTile = stageElems;
  Value bTile = add(stageElems, c(spec.stageBytesA() / 2));
  bool fuseA = isa<Float8E4M3FNType>(spec.aType);
  bool fuseB = isa<Float8E4M3FNType>(spec.bType);
  auto store = [&](bool fused) {
    storeOperand(spec.a, a, aTile, t.rowBase, t.rowEnd, kt, t.kLo, t.kHi,
                 spec.aType, shifts[0], shifts[1], fused && fuseA);
    storeOperand(spec.b, b, bTile, t.colBase, t.colEnd, kt, t.kLo, t.kHi,
                 spec.bType, shifts[2], shifts[3], fused && fuseB);
  };
  if (spec.fastConverter() && ctaMax.size() == 4 && (fuseA || fuseB)) {
    // The fused factor 2^(s + shift - 7) is a bf16 (normal or subnormal)
    // for every rebalanced byte s + shift <= 134; the tile maxima bound
    // every finite byte of the stage (NaN bytes decode to NaN either way).
    // One uniform branch per stage; the two-multiply path otherwise.
    Value ok = arith::ConstantIntOp::create(kb, kb.getI1Type(), 1);
    for (int64_t j = 0; j < 4; ++j) {
      if (!(j < 2 ? fuseA : fuseB))
        continue;
      Value e = arith::AddIOp::create(kb, ctaMax[j], shifts[j]);
      ok = andi(ok, arith::CmpIOp::create(kb, arith::CmpIPredicate::sle, e,
                                          kb.i32(134)));
    }
    auto ifOp = scf::IfOp::create(kb, TypeRange{}, ok, /*withElseRegion=*/true);
    OpBuilder::InsertionGuard g(kb);
    kb.setInsertionPointToStart(ifOp.thenBlock());
    store(true);
    kb.setInsertionPointToStart(ifOp.elseBlock());
    store(false);
  } else {
    store(false);
  }
  // Generic-proxy smem writes become visible to the tensor cores (async
  // proxy) before the stage is published.
  NVVM::FenceProxyOp::create(
      kb, NVVM::ProxyKindAttr::get(ctx, NVVM::ProxyKind::async_shared),
      NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
}

void FusedUpcastEmitter::emitTile(const GemmTile &t) {
  Value acc0 = mma.zeroAccumulators();
  // The previous tile's wgmma reads (and rebalancing reads) are complete in
  // every warpgroup before this tile overwrites a stage.
  Value t0 = arith::CmpIOp::create(kb, arith::CmpIPredicate::eq, tid, c(0));
  kb.ifThen(t0, [&] {
    for (int64_t st = 0; st < spec.stages; ++st)
      for (int64_t j = 0; j < 4; ++j)
        memref::StoreOp::create(kb, kb.i32(0), maxSlots,
                                ValueRange{c(st), c(j)});
  });
  gpu::BarrierOp::create(kb);
  SmallVector<Value> inits = {acc0, c(0)};
  for (int64_t d = 0; d < spec.prefetch; ++d)
    llvm::append_range(inits, loadStage(t, add(t.ktBegin, c(d))));
  int64_t perStage = regsPerStage();

  auto loop = scf::ForOp::create(kb, t.ktBegin, t.ktEnd, c(1), inits);
  {
    OpBuilder::InsertionGuard g(kb);
    kb.setInsertionPointToStart(loop.getBody());
    Value kt = loop.getInductionVar();
    Value acc = loop.getRegionIterArgs()[0];
    Value stage = loop.getRegionIterArgs()[1];
    auto [aRegs, bRegs] = unpackStage(
        loop.getRegionIterArgs().drop_front(2).take_front(perStage));
    // Rebalancing: warp maxima by butterfly shuffles, CTA maxima by shared
    // atomics, one barrier.
    Value zero32 = kb.i32(0);
    SmallVector<Value> shifts(4, zero32);
    if (spec.rebalance) {
      SmallVector<Value> maxima = warpMaxima(aRegs, bRegs);
      Value lane0 = arith::CmpIOp::create(kb, arith::CmpIPredicate::eq,
                                          remu(tid, 32), c(0));
      kb.ifThen(lane0, [&] {
        for (int64_t j = 0; j < 4; ++j)
          memref::AtomicRMWOp::create(kb, arith::AtomicRMWKind::maxu, maxima[j],
                                      maxSlots, ValueRange{stage, c(j)});
      });
      gpu::BarrierOp::create(kb);
      SmallVector<Value> cta;
      for (int64_t j = 0; j < 4; ++j)
        cta.push_back(
            memref::LoadOp::create(kb, maxSlots, ValueRange{stage, c(j)}));
      // The slots of the next stage were last read two stages ago.
      Value t0 = arith::CmpIOp::create(kb, arith::CmpIPredicate::eq, tid, c(0));
      kb.ifThen(t0, [&] {
        Value nextSlot = remu(add(stage, c(1)), spec.stages);
        for (int64_t j = 0; j < 4; ++j)
          memref::StoreOp::create(kb, kb.i32(0), maxSlots,
                                  ValueRange{nextSlot, c(j)});
      });
      shifts = shiftsFrom(cta);
    }
    storeStage(t, kt, stage, aRegs, bRegs, shifts);
    // The whole stage is written.
    gpu::BarrierOp::create(kb);
    SmallVector<Value> next = loadStage(t, add(kt, c(spec.prefetch)));
    acc = mma.issue(acc, stage);
    // The previous stage's wgmma are done: with three stages the one
    // written next iteration (read two stages ago) is free after the next
    // barrier.
    NVVM::WgmmaWaitGroupSyncOp::create(kb, 1);
    Value nextStage = remu(add(stage, c(1)), spec.stages);
    SmallVector<Value> yielded = {acc, nextStage};
    llvm::append_range(yielded,
                       loop.getRegionIterArgs().drop_front(2 + perStage));
    llvm::append_range(yielded, next);
    scf::YieldOp::create(kb, yielded);
  }
  NVVM::WgmmaWaitGroupSyncOp::create(kb, 0);
  mma.emitEpilogue(loop.getResult(0), t.batch, t.rowBase, t.rowEnd, t.colBase);
}

void FusedUpcastEmitter::emitConverterTile(const GemmTile &t) {
  // Stage g of the ring (g counts every stage this CTA converts, across
  // tiles) goes to slot g % stages once the MMA warpgroups have released
  // it (empty[s], parity of the previous use), and is published by
  // full[s]. The loads of contraction tile kt + prefetch are issued first,
  // so that they are in flight while tile kt is converted.
  //
  // Rebalancing one stage ahead: the tile maxima of stage g are reduced
  // while stage g - 1 is converted (warp maxima by shuffles, interleaved
  // with the conversion; each warp's maxima in its own slot of a
  // double-buffered array), and read after a named barrier of the
  // converter threads at the start of stage g. Slot pair g % 2 is written
  // again for stage g + 2 after every converter has passed the barrier of
  // stage g + 1, so all reads of it are done; the MMA warpgroups never wait
  // for this.
  int64_t perStage = regsPerStage();
  auto vec4 = VectorType::get({4}, kb.getI32Type());
  auto stageMaxima = [&](ValueRange regs) {
    auto [a, b] = unpackStage(regs);
    return warpMaxima(a, b);
  };
  auto writeMaxima = [&](ArrayRef<Value> maxima, Value ring) {
    Value lane0 = arith::CmpIOp::create(kb, arith::CmpIPredicate::eq,
                                        remu(ctid, 32), c(0));
    kb.ifThen(lane0, [&] {
      Value v = vector::FromElementsOp::create(kb, vec4, maxima);
      kb.store(v, maxSlots, ValueRange{remu(ring, 2), divu(ctid, 32), c(0)},
               16);
    });
  };
  SmallVector<Value> inits;
  for (int64_t d = 0; d < spec.prefetch; ++d)
    llvm::append_range(inits, loadStage(t, add(t.ktBegin, c(d))));
  if (spec.rebalance)
    writeMaxima(stageMaxima(ValueRange(inits).take_front(perStage)),
                mainloop.loadRingCounter());
  auto loop = scf::ForOp::create(kb, t.ktBegin, t.ktEnd, c(1), inits);
  OpBuilder::InsertionGuard g(kb);
  kb.setInsertionPointToStart(loop.getBody());
  Value kt = loop.getInductionVar();
  SmallVector<Value> next = loadStage(t, add(kt, c(spec.prefetch)));
  ValueRange args = loop.getRegionIterArgs();
  auto [aRegs, bRegs] = unpackStage(args.take_front(perStage));
  RingSlot slot = mainloop.loadRingSlot();
  Value ring = slot.counter, stage = slot.stage;
  SmallVector<Value> shifts(4, kb.i32(0));
  SmallVector<Value> ctaMax;
  if (spec.rebalance) {
    NVVM::BarrierOp::create(kb, Type(), kb.i32(1), kb.i32(convThreads), {},
                            Value());
    Value cta = kb.splatBits(vec4, 0);
    for (int64_t w = 0; w < convThreads / 32; ++w)
      cta = arith::MaxUIOp::create(
          kb, cta,
          kb.load(vec4, maxSlots, ValueRange{remu(ring, 2), c(w), c(0)}, 16));
    for (int64_t j = 0; j < 4; ++j)
      ctaMax.push_back(vector::ExtractOp::create(kb, cta, j));
    shifts = shiftsFrom(ctaMax);
  }
  mainloop.waitEmpty(slot);
  // The next stage's warp maxima, in the block of this stage's conversion
  // (its registers arrived a stage ago when the prefetch distance is at
  // least 2); stored after the stage is published.
  SmallVector<Value> nextMaxima;
  if (spec.rebalance)
    nextMaxima = stageMaxima(
        spec.prefetch >= 2 ? args.drop_front(perStage).take_front(perStage)
                           : ValueRange(next));
  storeStage(t, kt, stage, aRegs, bRegs, shifts, ctaMax);
  mainloop.arriveFull(stage);
  if (spec.rebalance)
    writeMaxima(nextMaxima, add(ring, c(1)));
  mainloop.advanceRing(slot);
  SmallVector<Value> yielded;
  llvm::append_range(yielded, args.drop_front(perStage));
  llvm::append_range(yielded, next);
  scf::YieldOp::create(kb, yielded);
}

void FusedUpcastEmitter::emitBody() {
  tid = mainloop.getThreadId();
  ctid = tid;
  smem = mainloop.getStagesView();
  auto wgSpace =
      gpu::AddressSpaceAttr::get(kb.getContext(), gpu::AddressSpace::Workgroup);
  if (!spec.usesStageRing()) {
    // v5: the rebalancing slots follow the stages (16-byte aligned).
    maxSlots = mainloop.viewExtra(
        MemRefType::get({spec.stages, 4}, kb.getI32Type(),
                        MemRefLayoutAttrInterface(), wgSpace));
    mainloop.walkTiles([&](const GemmTile &t) { emitTile(t); });
    return;
  }
  // v7: the slots follow the mbarriers.
  maxSlots = mainloop.viewExtra(
      MemRefType::get({2, convThreads / 32, 4}, kb.getI32Type(),
                      MemRefLayoutAttrInterface(), wgSpace));
  // full[s] completes when every converter thread has arrived (after its
  // async-proxy fence), empty[s] when every MMA thread has (after
  // wait_group shows the stage read).
  mainloop.initRing(convThreads, mainloop.getReleaseArrivals());
  auto mmaRole = [&] {
    mainloop.walkTiles([&](const GemmTile &t) {
      mma.emitRingTile(t, /*fenceAfterFull=*/false);
    });
  };
  auto converterRole = [&] {
    ctid = mainloop.getRoleThreadId();
    mainloop.walkTiles([&](const GemmTile &t) { emitConverterTile(t); });
  };
  mainloop.emitWarpRoles(
      {WarpRole{kMmaThreads, 0, NVVM::SetMaxRegisterAction::increase, mmaRole},
       WarpRole{convThreads, 0, NVVM::SetMaxRegisterAction::increase,
                converterRole}});
}

void gpu_lowering::emitFusedUpcastGemm(KernelBuilder &kb, const GemmSpec &spec,
                                       ValueRange args) {
  GemmMainloop mainloop(kb, spec, args);
  FusedUpcastEmitter emitter(mainloop);
  mainloop.emitKernel([&] { emitter.emitBody(); });
}
