//===- GemmKernels.cpp - MX GEMMs on Hopper (wgmma) --------------*- C++
//-*-===//
//
// Lowers `scaled_mm` (rank 2 and 3) and `scaled_grouped_mm` (2d-3d, 2d-2d)
// to sm_90a kernels: the fp8 operands are upcast exactly to bf16 with their
// block scales (e4m3 * 2^(s-127) is a bf16 value unless the scale is
// extreme), written into 128-byte-swizzled K-major shared-memory tiles, and
// multiplied by `wgmma.mma_async` bf16 m64n128k16 with fp32 accumulators
// (KERNELS.md §2.4: per-32 fp8 promotion is bounded at half the fp8 peak).
//
// Kernel (v1): 256 threads = two consumer warpgroups, a 128x128 CTA tile
// (64 rows per warpgroup), 64 contraction elements per stage and three
// shared-memory stages. Every thread loads its part of the next stage from
// global memory into registers while the tensor cores work on the current
// one (register prefetch), converts it into the next stage, `fence.proxy.
// async`, one CTA barrier per stage, then four wgmma per warpgroup; with
// three stages, `wgmma.wait_group 1` and one barrier per stage protect the
// stage being overwritten. CTAs are persistent: tile t, t + grid, ... in the
// grouped-M order of GemmTiling.h. The epilogue adds the bias in fp32,
// rounds to bf16 (RNE) or keeps f32, and stores with masks on the edges.
//
// Kernel (v6, `mxfp8train.gemm_version = 6`; K-major operands with
// row-major scales): warp-specialised, 512 threads. Warpgroups 0-1 only
// multiply: wait full[s] (mbarrier parity), four wgmma, commit, wait_group 1,
// arrive on empty[s - 1]; then the epilogue. Warpgroups 2-3 only load and
// convert: global loads two contraction tiles ahead into registers, the
// rebalancing maxima of the next stage reduced while the current one is
// converted (a named barrier among the converters, never a CTA barrier),
// wait empty[s], convert into the stage, fence.proxy.async, arrive on
// full[s]. A ring of four stages runs across the persistent tiles.
//
// Kernel (v7, the default for scaled_mm and 2d-3d with K-major operands and
// row-major scales; `mxfp8train.gemm_version` picks 5, 6 or 7): v6 with a
// shorter converter. e4m3 bytes go into bf16 pairs by one `prmt` per pair
// plus shift/mask, the warp maxima of the rebalancing by `redux.sync`
// instead of shuffles, and when every rebalanced tile maximum of the stage
// is at most 134 (one uniform branch per stage) the 2^120 restore is folded
// into the scale factor: one bf16x2 multiply per pair instead of two. The
// 2d-2d wgrad stays on v5 (v7 was not faster there, bench/README.md).
//
// Kernel (v8, the default for scaled_mm and 2d-3d, any operand layout):
// the work is split instead of fused. A memset zeroes a flag word; one
// pre-pass kernel per operand dequantizes it exactly into a zero-padded
// K-major bf16 buffer (prmt placement and two bf16x2 multiplies per pair;
// a nonzero block whose scale byte bf16 cannot hold exactly sets the
// flag); the v8 GEMM (two MMA warpgroups of m64n256k16 on 128x256 tiles,
// one loader warpgroup of 16-byte cp.async into a four-stage mbarrier
// ring) runs when the flag is 0, and the configuration the op has without
// v8 (v7 or v5, on the fp8 operands) runs when it is 1.
//
// Grouped: 2d-3d tiles walk the groups of `offs` (clamped like the CPU path)
// and cover each group's rows in tiles of 128 (masked at the group end); the
// rows past the last group are zero-filled. 2d-2d computes each group's full
// output over the group's token range as contraction, masking every element
// outside the range (an empty group gives zeros).
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"
#include "mxfp8train/Conversion/Utils/GemmTiling.h"

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
using gemm::OperandLayout;
using gemm::TileShape;

namespace {

enum class GemmKind { Dense, Grouped2d3d, Grouped2d2d };

/// Everything a GEMM kernel is specialised on.
struct GemmSpec {
  GemmKind kind = GemmKind::Dense;
  /// GEMM sizes: the output (per batch or group) is m x n, contraction k.
  int64_t m = 0, n = 0, k = 0;
  /// Dense: batches (1 for rank 2); grouped: experts E.
  int64_t batches = 1;
  /// The two operands: `a` is m x k, `b` is n x k (logical rows x K).
  OperandLayout a, b;
  /// Whether the operand has one slice per batch/expert.
  bool aBatched = false, bBatched = false;
  Type aType, bType, outType;
  /// Null without bias.
  Type biasType;
  TileShape tile;
  int64_t stages = 3;
  /// Contraction tiles loaded into registers ahead of their conversion.
  int64_t prefetch = 1;
  /// Resident CTAs per SM the kernel is compiled for (.minnctapersm).
  int64_t ctasPerSM = 1;
  /// Per-K-block scale rebalancing (exactness of extreme scale pairs).
  bool rebalance = true;
  /// Kernel version: 5 (every warp loads, converts and multiplies, CTA
  /// barriers per stage), 6 (warp-specialised: converter warpgroups and
  /// two MMA warpgroups synchronised by mbarriers) or 7 (v6 with the
  /// shorter converter: `prmt` byte placement, one multiply per bf16 pair
  /// where the scales allow it, `redux.sync` maxima).
  int64_t version = 5;
  /// v6: converter warpgroups (1 or 2).
  int64_t converterGroups = 2;
  /// v8 and its fallback: the kernel reads the flag word of the two
  /// dequantization pre-passes and runs only when it is 0 (v8) or 1 (the
  /// fallback, with `runWhenUnsafe`): 1 when a block bf16 cannot hold
  /// exactly was seen.
  bool guarded = false;
  bool runWhenUnsafe = false;

  /// v8: the operands were dequantized by the pre-pass into zero-padded
  /// K-major bf16 buffers (`a`, `b` describe the padded buffers), which a
  /// loader warpgroup copies into the ring with cp.async.
  bool preDequantized() const { return version == 8; }
  bool isSpecialised() const {
    return version == 6 || version == 7 || version == 8;
  }
  /// v7: the shorter converter on the v6 kernel.
  bool fastConverter() const { return version == 7; }
  /// Threads that load and convert the operands.
  int64_t converterThreads() const {
    return isSpecialised() ? 128 * converterGroups : 256;
  }
  /// Threads per CTA: v5 two warpgroups that do everything; v6 the two MMA
  /// warpgroups (threads 0-255) followed by the converters.
  int64_t threads() const {
    return isSpecialised() ? 256 + converterThreads() : 256;
  }

  int64_t tilesM() const { return llvm::divideCeil(m, tile.m); }
  int64_t tilesN() const { return llvm::divideCeil(n, tile.n); }
  /// Tiles the persistent loop walks (an upper bound for 2d-3d, whose real
  /// count depends on `offs`).
  int64_t numTiles() const {
    if (kind == GemmKind::Grouped2d3d)
      return (tilesM() + batches) * tilesN();
    return batches * tilesM() * tilesN();
  }
  /// f32 accumulator registers per MMA thread (m64 x tile.n).
  int64_t accRegs() const { return tile.n / 2; }
  int64_t stageBytesA() const { return tile.m * tile.k * 2; }
  int64_t stageBytesB() const { return tile.n * tile.k * 2; }
  int64_t stageBytes() const { return stageBytesA() + stageBytesB(); }
  /// v6: bytes of the mbarriers (full[stages], empty[stages]) after the
  /// stages, then the rebalancing slots [2][converter warps][4] i32.
  int64_t barrierBytes() const { return 16 * stages; }
  /// v8 has no converters and no rebalancing slots.
  int64_t slotBytes() const {
    if (preDequantized())
      return 0;
    return isSpecialised() ? 2 * (converterThreads() / 32) * 16 : 64;
  }
  /// Dynamic shared memory: the stages, (v6) the mbarriers, the rebalancing
  /// slots and 1 KiB to align the stages to 1024.
  int64_t sharedBytes() const {
    return stages * stageBytes() + (isSpecialised() ? barrierBytes() : 0) +
           slotBytes() + 1024;
  }
  /// v5-v7 2d-2d: elements outside the group's tokens are masked (v8's
  /// padded operands need no masks).
  bool masksElementsAlongK() const {
    return kind == GemmKind::Grouped2d2d && !preDequantized();
  }

  std::string getName() const {
    auto operandTag = [](const OperandLayout &l) {
      return std::string(l.kMajor ? "k" : "mn") + (l.blockedScales ? "b" : "");
    };
    const char *kindTag = kind == GemmKind::Dense         ? "scaled_mm"
                          : kind == GemmKind::Grouped2d3d ? "scaled_gmm_2d3d"
                                                          : "scaled_gmm_2d2d";
    return llvm::formatv(
               "{0}_{1}_{2}_{3}_{4}_{5}{6}_{7}x{8}x{9}_b{10}_p{11}c{12}",
               kindTag, operandTag(a), operandTag(b), getTypeTag(aType),
               getTypeTag(bType), getTypeTag(outType),
               biasType ? "_bias" + getTypeTag(biasType) : "", m, n, k, batches,
               prefetch, ctasPerSM)
               .str() +
           (rebalance ? "" : "_norebal") +
           (isSpecialised() ? llvm::formatv("_v{0}w{1}s{2}", version,
                                            converterGroups, stages)
                                  .str()
                            : "") +
           (tile.n != 128 ? llvm::formatv("_n{0}", tile.n).str() : "") +
           (guarded ? (runWhenUnsafe ? "_gu" : "_gs") : "");
  }
};

/// Threads of the two MMA warpgroups (v5: of the whole CTA).
constexpr int64_t kMmaThreads = 256;
/// v8: registers per thread of the MMA and loader warpgroups (setmaxnreg).
/// The CTA's pool is what it launched with (384 threads x 168, the limit
/// of .maxntid 384): setmaxnreg.inc waits for registers that another
/// warpgroup released, so asking for more than the pool hangs the CTA.
constexpr int32_t kMmaRegisters = 216;
constexpr int32_t kLoaderRegisters = 72;
static_assert(2 * 128 * kMmaRegisters + 128 * kLoaderRegisters <= 384 * 168,
              "the v8 register split must fit the CTA's launch allocation");
/// Elements per global load chunk (16 bytes of fp8).
constexpr int64_t kChunk = 16;

/// The registers of one operand's part of a stage: per chunk the 16 fp8
/// bytes and its scale byte(s) (i32 for a K-major chunk, vector<16xi32> for
/// an MN-major one).
struct OperandRegs {
  SmallVector<Value> data, scales;
};

/// Emits the kernel body.
class GemmEmitter {
public:
  GemmEmitter(KernelBuilder &kb, const GemmSpec &spec, ValueRange args)
      : kb(kb), spec(spec), convThreads(spec.converterThreads()) {
    unsigned i = 0;
    aData = args[i++];
    if (!spec.preDequantized())
      aScales = args[i++];
    bData = args[i++];
    if (!spec.preDequantized())
      bScales = args[i++];
    if (spec.kind != GemmKind::Dense)
      offs = args[i++];
    if (spec.biasType)
      bias = args[i++];
    if (spec.guarded)
      flag = args[i++];
    out = args[i++];
  }

  void emit();

private:
  /// The kernel without its guard.
  void emitBody();
  Value c(int64_t v) { return kb.idx(v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(kb, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(kb, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(kb, x, y); }
  Value divu(Value x, int64_t y) { return arith::DivUIOp::create(kb, x, c(y)); }
  Value remu(Value x, int64_t y) { return arith::RemUIOp::create(kb, x, c(y)); }
  Value ult(Value x, Value y) {
    return arith::CmpIOp::create(kb, arith::CmpIPredicate::ult, x, y);
  }
  Value uge(Value x, Value y) {
    return arith::CmpIOp::create(kb, arith::CmpIPredicate::uge, x, y);
  }
  Value andi(Value x, Value y) { return arith::AndIOp::create(kb, x, y); }
  Value select(Value p, Value x, Value y) {
    return arith::SelectOp::create(kb, p, x, y);
  }

  /// The clamped end of group `g` given the previous end (CPU path rule).
  Value groupEnd(Value g, Value start, int64_t total);
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
  /// v7: 16 e4m3 bytes as bf16 values times 2^-120 by `prmt` byte
  /// placement (two bf16 per 32-bit word).
  Value placeE4M3(Value bytes);
  /// Decoded scale factors 2^(s + shift - 127) (bf16, same shape as
  /// `bytes`, i32), NaN where the byte is 255.
  Value decodeScales(Value bytes, Value shift);
  /// The 32-block (0 or 1 within the stage) of chunk `u` of an operand.
  Value chunkBlock(const OperandLayout &l, int64_t tileRows, int64_t u);
  /// This thread's largest finite scale byte of an operand per 32-block of
  /// the stage (i32, 0 when it has none).
  std::pair<Value, Value> localMax(const OperandLayout &l,
                                   const OperandRegs &regs, int64_t tileRows);
  /// One output tile's coordinates, operand bases and contraction tiles.
  struct Tile {
    Value batch, rowBase, rowEnd, colBase, colEnd, kLo, kHi;
    Value aDataBase, aScaleBase, bDataBase, bScaleBase;
    Value ktBegin, ktEnd;
  };
  Tile makeTile(Value batch, Value rowBase, Value rowEnd, Value colBase,
                Value kLo, Value kHi);
  /// Calls `body` for every output tile of this CTA in the persistent
  /// order (the same walk for every role of a v6 CTA).
  void walkTiles(function_ref<void(Value batch, Value rowBase, Value rowEnd,
                                   Value colBase, Value kLo, Value kHi)>
                     body);
  /// This thread's registers of contraction tile `kt` (A data, A scales, B
  /// data, B scales) and their split.
  SmallVector<Value> loadStage(const Tile &t, Value kt);
  std::pair<OperandRegs, OperandRegs> unpackStage(ValueRange all);
  int64_t chunksA() const {
    return spec.tile.m * spec.tile.k / kChunk / convThreads;
  }
  int64_t chunksB() const {
    return spec.tile.n * spec.tile.k / kChunk / convThreads;
  }
  int64_t regsPerStage() const { return 2 * chunksA() + 2 * chunksB(); }
  /// The warp's largest finite scale bytes [A0, A1, B0, B1] of the stage
  /// (butterfly shuffles).
  SmallVector<Value> warpMaxima(const OperandRegs &a, const OperandRegs &b);
  /// The rebalancing shifts {A0, A1, B0, B1} (c0, c1, -c0, -c1) from the
  /// tile's maxima.
  SmallVector<Value> shiftsFrom(ArrayRef<Value> cta);
  /// Converts a stage's registers into stage `stage` of shared memory.
  /// v7 with rebalancing: where the stage's largest rebalanced scale
  /// bytes `ctaMax` (NaN bytes excluded) allow it, the e4m3 operands take
  /// one multiply per bf16 pair (2^120 folded into the scale factor).
  void storeStage(const Tile &t, Value kt, Value stage, const OperandRegs &a,
                  const OperandRegs &b, ArrayRef<Value> shifts,
                  ArrayRef<Value> ctaMax = {});
  /// Issues the four wgmma of stage `stage` on `acc` (fence, mma, commit).
  Value issueWgmma(Value acc, Value stage);
  /// The m64n128 f32 accumulators, zero.
  Value zeroAccumulators();
  /// Computes and stores one output tile (v5).
  void emitTile(Value batch, Value rowBase, Value rowEnd, Value colBase,
                Value kLo, Value kHi);
  void emitEpilogue(Value acc, Value batch, Value rowBase, Value rowEnd,
                    Value colBase);
  /// v6: the warp-specialised kernel body and its two roles.
  void emitSpecialised();
  void emitConverterTile(const Tile &t);
  void emitMmaTile(const Tile &t);
  /// v8: the loader role; cp.async of one operand's tile rows
  /// [rowBase, rowBase + rows) x [k0, k0 + 64) of the padded bf16 buffer
  /// at element `dataBase` into the swizzled tile at byte `dst`.
  void emitLoaderTile(const Tile &t);
  void copyTile(Value data, Value dataBase, Value rowBase, int64_t rows,
                int64_t rowElems, Value k0, Value dst);
  /// Whether this kernel runs: the pre-passes' flag word against
  /// `runWhenUnsafe`.
  Value guardCondition();
  /// v6: the mbarrier `i` (full[s] = s, empty[s] = stages + s) as a shared
  /// pointer, its parity wait and arrive.
  Value barrier(Value i);
  void waitBarrier(Value i, Value parity);
  void arriveBarrier(Value i);
  /// v6: the ring position (stages converted or consumed by this thread).
  Value loadCounter();
  void storeCounter(Value v);

  KernelBuilder &kb;
  const GemmSpec &spec;
  int64_t convThreads;
  Value aData, aScales, bData, bScales, offs, bias, out, flag;
  /// Shared i32 slots of the scale rebalancing: v5 [stage][maxA0, maxA1,
  /// maxB0, maxB1] (atomics); v6 [2][converter warp][4] (one writer each).
  Value maxSlots;
  Value tid, smem, smemBase, smemAddr;
  /// The thread's index among the converters (v5: tid).
  Value ctid;
  /// v6: the shared byte address of the mbarriers and the per-thread ring
  /// counter (memref<1xindex>, promoted to a register).
  Value barAddr, counter;
};
} // namespace

static Value placeE4M3Bytes(KernelBuilder &kb, Value bytes);

Value GemmEmitter::groupEnd(Value g, Value start, int64_t total) {
  Value raw = memref::LoadOp::create(kb, offs, g);
  Value end = arith::IndexCastOp::create(kb, kb.getIndexType(), raw);
  end = arith::MaxSIOp::create(kb, end, start);
  return arith::MinSIOp::create(kb, end, c(total));
}

Value GemmEmitter::placeE4M3(Value bytes) { return placeE4M3Bytes(kb, bytes); }

/// e4m3 bytes (vector<N x i8>, N a multiple of 4) as the bf16 values of
/// 2^-120 times their values (vector<N x bf16>), by `prmt` byte placement.
/// The NaN codes (0x7F, 0xFF) read as +-480 * 2^-120.
static Value placeE4M3Bytes(KernelBuilder &kb, Value bytes) {
  // Each 32-bit word b3 b2 b1 b0 gives the pairs (b0, b1) and (b2, b3) by
  // one `prmt` each: x = b1 << 24 | b0 << 8 (every byte in the high byte of
  // its bf16 half, the sign already at bit 15). The magnitude bits shifted
  // right by 4 read as the bf16 of 2^-120 times the e4m3 value (normal or
  // subnormal alike).
  int64_t n = cast<VectorType>(bytes.getType()).getNumElements();
  Type i32 = kb.getI32Type();
  auto words = VectorType::get({n / 4}, i32);
  auto pairs = VectorType::get({n / 2}, i32);
  Value w = kb.bitcastTo(words, bytes);
  Value zero = kb.i32(0);
  // Selector nibbles from byte 3 down to byte 0; index 4 is a zero byte.
  Value selectors[2] = {kb.i32(0x1404), kb.i32(0x3424)};
  SmallVector<Value> xs;
  for (int64_t i = 0; i < n / 4; ++i) {
    Value word = vector::ExtractOp::create(kb, w, i);
    for (Value sel : selectors)
      xs.push_back(NVVM::PermuteOp::create(kb, i32, word, zero, sel,
                                           NVVM::PermuteMode::DEFAULT));
  }
  Value x = vector::FromElementsOp::create(kb, pairs, xs);
  Value mag = arith::AndIOp::create(
      kb, arith::ShRUIOp::create(kb, x, kb.splatBits(pairs, 4)),
      kb.splatBits(pairs, 0x07F007F0));
  Value sign = arith::AndIOp::create(kb, x, kb.splatBits(pairs, 0x80008000));
  return kb.bitcastTo(VectorType::get({n}, kb.getBF16Type()),
                      arith::OrIOp::create(kb, mag, sign));
}

Value GemmEmitter::convertToBF16(Value bytes, Type f8Type, bool restore) {
  auto bf16Vec = VectorType::get({kChunk}, kb.getBF16Type());
  if (!isa<Float8E4M3FNType>(f8Type))
    return arith::TruncFOp::create(kb, bf16Vec,
                                   kb.convertFromF8(bytes, f8Type));
  if (spec.fastConverter()) {
    Value x = placeE4M3(bytes);
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

Value GemmEmitter::decodeScales(Value bytes, Value shift) {
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

OperandRegs GemmEmitter::loadOperand(const OperandLayout &l, bool isA,
                                     Value dataBase, Value scaleBase,
                                     Value rowBase, Value rowEnd, Value kt,
                                     Value kLo, Value kHi) {
  Value data = isA ? aData : bData;
  Value scales = isA ? aScales : bScales;
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

Value GemmEmitter::chunkBlock(const OperandLayout &l, int64_t tileRows,
                              int64_t u) {
  Value chunk = add(ctid, c(u * convThreads));
  Value kk = l.kMajor ? mul(remu(chunk, spec.tile.k / kChunk), c(kChunk))
                      : divu(chunk, tileRows / kChunk);
  return divu(kk, 32);
}

std::pair<Value, Value> GemmEmitter::localMax(const OperandLayout &l,
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

void GemmEmitter::storeOperand(const OperandLayout &l, const OperandRegs &regs,
                               Value tileBase, Value rowBase, Value rowEnd,
                               Value kt, Value kLo, Value kHi, Type f8Type,
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

void GemmEmitter::emitEpilogue(Value acc, Value batch, Value rowBase,
                               Value rowEnd, Value colBase) {
  Value wg = divu(tid, 128);
  Value warp = divu(remu(tid, 128), 32);
  Value lane = remu(tid, 32);
  Value rowT =
      add(add(rowBase, mul(wg, c(64))), add(mul(warp, c(16)), divu(lane, 4)));
  Value colT = add(colBase, mul(remu(lane, 4), c(2)));
  Value outBase = spec.kind == GemmKind::Grouped2d3d
                      ? c(0)
                      : mul(batch, c(spec.m * spec.n));
  Type f32 = kb.getF32Type();
  bool pairs = spec.n % 2 == 0;
  for (int64_t i = 0; i < spec.accRegs(); i += 2) {
    Value row = add(rowT, c(8 * ((i / 2) % 2)));
    Value col = add(colT, c(8 * (i / 4)));
    SmallVector<Value> vals;
    for (int64_t j = 0; j < 2; ++j) {
      Value v = LLVM::ExtractValueOp::create(kb, acc, i + j);
      if (bias) {
        Value cj = arith::MinUIOp::create(kb, add(col, c(j)), c(spec.n - 1));
        Value bv = memref::LoadOp::create(kb, bias, cj);
        if (!spec.biasType.isF32())
          bv = arith::ExtFOp::create(kb, f32, bv);
        v = arith::AddFOp::create(kb, v, bv);
      }
      if (spec.outType.isBF16())
        v = arith::TruncFOp::create(kb, spec.outType, v);
      vals.push_back(v);
    }
    Value rowOk = ult(row, rowEnd);
    Value off = add(outBase, add(mul(row, c(spec.n)), col));
    if (pairs) {
      Value ok = andi(rowOk, ult(col, c(spec.n)));
      kb.ifThen(ok, [&] {
        Value v = vector::FromElementsOp::create(
            kb, VectorType::get({2}, spec.outType), vals);
        int64_t bytes = spec.outType.getIntOrFloatBitWidth() / 4;
        kb.store(v, out, off, bytes);
      });
    } else {
      for (int64_t j = 0; j < 2; ++j) {
        Value ok = andi(rowOk, ult(add(col, c(j)), c(spec.n)));
        kb.ifThen(ok, [&] {
          memref::StoreOp::create(kb, vals[j], out, add(off, c(j)));
        });
      }
    }
  }
}

GemmEmitter::Tile GemmEmitter::makeTile(Value batch, Value rowBase,
                                        Value rowEnd, Value colBase, Value kLo,
                                        Value kHi) {
  Tile t;
  t.batch = batch;
  t.rowBase = rowBase;
  t.rowEnd = rowEnd;
  t.colBase = colBase;
  t.kLo = kLo;
  t.kHi = kHi;
  t.aDataBase = spec.aBatched ? mul(batch, c(spec.a.getDataSize())) : c(0);
  t.aScaleBase = spec.aBatched ? mul(batch, c(spec.a.getScaleSize())) : c(0);
  t.bDataBase = spec.bBatched ? mul(batch, c(spec.b.getDataSize())) : c(0);
  t.bScaleBase = spec.bBatched ? mul(batch, c(spec.b.getScaleSize())) : c(0);
  t.colEnd = c(spec.n);
  t.ktBegin = divu(kLo, spec.tile.k);
  Value ktEnd = divu(add(kHi, c(spec.tile.k - 1)), spec.tile.k);
  t.ktEnd = arith::MaxUIOp::create(kb, ktEnd, t.ktBegin);
  return t;
}

SmallVector<Value> GemmEmitter::loadStage(const Tile &t, Value kt) {
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

std::pair<OperandRegs, OperandRegs> GemmEmitter::unpackStage(ValueRange all) {
  int64_t na = chunksA(), nb = chunksB();
  OperandRegs a, b;
  a.data.assign(all.begin(), all.begin() + na);
  a.scales.assign(all.begin() + na, all.begin() + 2 * na);
  b.data.assign(all.begin() + 2 * na, all.begin() + 2 * na + nb);
  b.scales.assign(all.begin() + 2 * na + nb, all.begin() + 2 * na + 2 * nb);
  return {a, b};
}

SmallVector<Value> GemmEmitter::warpMaxima(const OperandRegs &a,
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

SmallVector<Value> GemmEmitter::shiftsFrom(ArrayRef<Value> cta) {
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

void GemmEmitter::storeStage(const Tile &t, Value kt, Value stage,
                             const OperandRegs &a, const OperandRegs &b,
                             ArrayRef<Value> shifts, ArrayRef<Value> ctaMax) {
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

Value GemmEmitter::issueWgmma(Value acc, Value stage) {
  MLIRContext *ctx = kb.getContext();
  const TileShape &t = spec.tile;
  uint64_t descBits = gemm::getWgmmaDescriptorBits(
      /*leadingByteOffset=*/16, /*strideByteOffset=*/1024, gemm::Swizzle::B128);
  Value wg = divu(tid, 128);
  Value stageElems = mul(stage, c(spec.stageBytes() / 2));
  // Descriptors: the stage's byte address, warpgroup wg's 64 A rows.
  auto toI64 = [&](Value idx) {
    return arith::IndexCastUIOp::create(kb, kb.getI64Type(), idx);
  };
  Value aAddr = add(add(smemAddr, mul(stageElems, c(2))), mul(wg, c(8192)));
  Value bAddr =
      add(add(smemAddr, mul(stageElems, c(2))), c(spec.stageBytesA()));
  auto desc = [&](Value addr) -> Value {
    Value field = arith::AndIOp::create(
        kb,
        arith::ShRUIOp::create(kb, toI64(addr),
                               arith::ConstantIntOp::create(kb, 4, 64)),
        arith::ConstantIntOp::create(kb, 0x3FFF, 64));
    return arith::OrIOp::create(
        kb, field, arith::ConstantIntOp::create(kb, kb.getI64Type(), descBits));
  };
  Value descA = desc(aAddr), descB = desc(bAddr);
  NVVM::WgmmaFenceAlignedOp::create(kb);
  auto shape = NVVM::MMAShapeAttr::get(ctx, 64, t.n, 16);
  auto bf16 = NVVM::WGMMATypesAttr::get(ctx, NVVM::WGMMATypes::bf16);
  auto f32t = NVVM::WGMMATypesAttr::get(ctx, NVVM::WGMMATypes::f32);
  auto one = NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one);
  for (int64_t kk = 0; kk < t.k / 16; ++kk) {
    // k16 step kk: 32 bytes further along each K-major row (the swizzle
    // is applied by the hardware to the address bits).
    Value step = arith::ConstantIntOp::create(kb, 2 * kk, 64);
    acc = NVVM::WgmmaMmaAsyncOp::create(
        kb, acc.getType(), acc, arith::AddIOp::create(kb, descA, step),
        arith::AddIOp::create(kb, descB, step), shape, bf16, bf16, f32t,
        NVVM::WGMMAScaleOutAttr::get(ctx, NVVM::WGMMAScaleOut::one), one, one,
        NVVM::MMALayoutAttr::get(ctx, NVVM::MMALayout::row),
        NVVM::MMALayoutAttr::get(ctx, NVVM::MMALayout::col),
        NVVM::MMAIntOverflowAttr());
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(kb);
  return acc;
}

Value GemmEmitter::zeroAccumulators() {
  auto accType = LLVM::LLVMStructType::getLiteral(
      kb.getContext(), SmallVector<Type>(spec.accRegs(), kb.getF32Type()));
  return LLVM::ZeroOp::create(kb, accType);
}

void GemmEmitter::emitTile(Value batch, Value rowBase, Value rowEnd,
                           Value colBase, Value kLo, Value kHi) {
  Tile t = makeTile(batch, rowBase, rowEnd, colBase, kLo, kHi);
  Value acc0 = zeroAccumulators();
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
    acc = issueWgmma(acc, stage);
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
  emitEpilogue(loop.getResult(0), batch, rowBase, rowEnd, colBase);
}

//===----------------------------------------------------------------------===//
// v6: warp specialisation
//===----------------------------------------------------------------------===//

Value GemmEmitter::barrier(Value i) {
  Value addr = add(barAddr, mul(i, c(8)));
  Value addr64 = arith::IndexCastUIOp::create(kb, kb.getI64Type(), addr);
  auto ptrType = LLVM::LLVMPointerType::get(
      kb.getContext(), static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared));
  return LLVM::IntToPtrOp::create(kb, ptrType, addr64);
}

void GemmEmitter::waitBarrier(Value i, Value parity) {
  // Suspend-time hint of the try_wait loop (ns), as the nvgpu lowering.
  NVVM::MBarrierTryWaitParityOp::create(kb, barrier(i), parity,
                                        kb.i32(10000000));
}

void GemmEmitter::arriveBarrier(Value i) {
  NVVM::MBarrierArriveOp::create(kb, Type(), barrier(i), Value(),
                                 NVVM::MemScopeKind::CTA, false);
}

Value GemmEmitter::loadCounter() {
  return memref::LoadOp::create(kb, counter, ValueRange{c(0)});
}

void GemmEmitter::storeCounter(Value v) {
  memref::StoreOp::create(kb, v, counter, ValueRange{c(0)});
}

void GemmEmitter::emitConverterTile(const Tile &t) {
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
                loadCounter());
  auto loop = scf::ForOp::create(kb, t.ktBegin, t.ktEnd, c(1), inits);
  OpBuilder::InsertionGuard g(kb);
  kb.setInsertionPointToStart(loop.getBody());
  Value kt = loop.getInductionVar();
  SmallVector<Value> next = loadStage(t, add(kt, c(spec.prefetch)));
  ValueRange args = loop.getRegionIterArgs();
  auto [aRegs, bRegs] = unpackStage(args.take_front(perStage));
  Value ring = loadCounter();
  Value stage = remu(ring, spec.stages);
  Value parity = arith::IndexCastUIOp::create(kb, kb.getI32Type(),
                                              remu(divu(ring, spec.stages), 2));
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
  Value one = kb.i32(1);
  waitBarrier(add(c(spec.stages), stage),
              arith::XOrIOp::create(kb, parity, one));
  // The next stage's warp maxima, in the block of this stage's conversion
  // (its registers arrived a stage ago when the prefetch distance is at
  // least 2); stored after the stage is published.
  SmallVector<Value> nextMaxima;
  if (spec.rebalance)
    nextMaxima = stageMaxima(
        spec.prefetch >= 2 ? args.drop_front(perStage).take_front(perStage)
                           : ValueRange(next));
  storeStage(t, kt, stage, aRegs, bRegs, shifts, ctaMax);
  arriveBarrier(stage);
  if (spec.rebalance)
    writeMaxima(nextMaxima, add(ring, c(1)));
  storeCounter(add(ring, c(1)));
  SmallVector<Value> yielded;
  llvm::append_range(yielded, args.drop_front(perStage));
  llvm::append_range(yielded, next);
  scf::YieldOp::create(kb, yielded);
}

void GemmEmitter::emitMmaTile(const Tile &t) {
  // Waits full[s], issues the stage's wgmma, keeps one stage in flight
  // (wait_group 1) and releases the previous stage (empty[s - 1]); the last
  // stage of the tile is released after wait_group 0.
  auto loop =
      scf::ForOp::create(kb, t.ktBegin, t.ktEnd, c(1), zeroAccumulators());
  {
    OpBuilder::InsertionGuard g(kb);
    kb.setInsertionPointToStart(loop.getBody());
    Value kt = loop.getInductionVar();
    Value ring = loadCounter();
    Value stage = remu(ring, spec.stages);
    Value parity = arith::IndexCastUIOp::create(
        kb, kb.getI32Type(), remu(divu(ring, spec.stages), 2));
    waitBarrier(stage, parity);
    if (spec.preDequantized()) {
      // v8: the stage was written by cp.async (generic proxy); order those
      // writes, observed through full[s], before the tensor cores' reads.
      MLIRContext *ctx = kb.getContext();
      NVVM::FenceProxyOp::create(
          kb, NVVM::ProxyKindAttr::get(ctx, NVVM::ProxyKind::async_shared),
          NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
    }
    Value acc = issueWgmma(loop.getRegionIterArgs()[0], stage);
    NVVM::WgmmaWaitGroupSyncOp::create(kb, 1);
    Value notFirst =
        arith::CmpIOp::create(kb, arith::CmpIPredicate::ugt, kt, t.ktBegin);
    kb.ifThen(notFirst, [&] {
      Value prev = remu(add(ring, c(spec.stages - 1)), spec.stages);
      arriveBarrier(add(c(spec.stages), prev));
    });
    storeCounter(add(ring, c(1)));
    scf::YieldOp::create(kb, acc);
  }
  NVVM::WgmmaWaitGroupSyncOp::create(kb, 0);
  kb.ifThen(ult(t.ktBegin, t.ktEnd), [&] {
    Value prev = remu(add(loadCounter(), c(spec.stages - 1)), spec.stages);
    arriveBarrier(add(c(spec.stages), prev));
  });
  emitEpilogue(loop.getResult(0), t.batch, t.rowBase, t.rowEnd, t.colBase);
}

void GemmEmitter::emitSpecialised() {
  // Thread 0 initialises the ring's mbarriers: full[s] completes when every
  // converter thread has arrived (after its async-proxy fence), empty[s]
  // when every MMA thread has (after wait_group shows the stage read).
  Value t0 = arith::CmpIOp::create(kb, arith::CmpIPredicate::eq, tid, c(0));
  kb.ifThen(t0, [&] {
    for (int64_t s = 0; s < spec.stages; ++s) {
      NVVM::MBarrierInitOp::create(kb, barrier(c(s)), kb.i32(convThreads),
                                   Value());
      NVVM::MBarrierInitOp::create(kb, barrier(c(spec.stages + s)),
                                   kb.i32(kMmaThreads), Value());
    }
  });
  gpu::BarrierOp::create(kb);
  counter =
      memref::AllocaOp::create(kb, MemRefType::get({1}, kb.getIndexType()));
  storeCounter(c(0));
  Value isMma = ult(tid, c(kMmaThreads));
  auto roles = scf::IfOp::create(kb, TypeRange{}, isMma, true);
  {
    OpBuilder::InsertionGuard g(kb);
    kb.setInsertionPointToStart(roles.thenBlock());
    // v8: registers move from the loader warpgroup to the MMA warpgroups
    // (128 accumulators each): 2 x 128 x 216 + 128 x 72 = 384 x 168. ptxas
    // allocates each role within its limit (without setmaxnreg the 2d-3d
    // kernel spilled at the launch limit of 168).
    if (spec.preDequantized())
      NVVM::SetMaxRegisterOp::create(kb, kMmaRegisters,
                                     NVVM::SetMaxRegisterAction::increase);
    walkTiles([&](Value batch, Value rowBase, Value rowEnd, Value colBase,
                  Value kLo, Value kHi) {
      emitMmaTile(makeTile(batch, rowBase, rowEnd, colBase, kLo, kHi));
    });
    kb.setInsertionPointToStart(roles.elseBlock());
    if (spec.preDequantized())
      NVVM::SetMaxRegisterOp::create(kb, kLoaderRegisters,
                                     NVVM::SetMaxRegisterAction::decrease);
    ctid = sub(tid, c(kMmaThreads));
    walkTiles([&](Value batch, Value rowBase, Value rowEnd, Value colBase,
                  Value kLo, Value kHi) {
      Tile t = makeTile(batch, rowBase, rowEnd, colBase, kLo, kHi);
      if (spec.preDequantized())
        emitLoaderTile(t);
      else
        emitConverterTile(t);
    });
  }
}

void GemmEmitter::copyTile(Value data, Value dataBase, Value rowBase,
                           int64_t rows, int64_t rowElems, Value k0,
                           Value dst) {
  // 128 loader threads, 8 per 128-byte row: thread j copies chunk j % 8 of
  // rows j / 8 + 16 i. In the 128-byte swizzle chunk c of row r sits at
  // c ^ (r % 8), the same for every i (16 i is a multiple of 8).
  Type i64 = kb.getI64Type();
  MLIRContext *ctx = kb.getContext();
  auto globalPtr = LLVM::LLVMPointerType::get(
      ctx, static_cast<unsigned>(NVVM::NVVMMemorySpace::Global));
  auto sharedPtr = LLVM::LLVMPointerType::get(
      ctx, static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared));
  Value r0 = divu(ctid, 8);
  Value chunk = remu(ctid, 8);
  Value phys = arith::XOrIOp::create(kb, chunk, remu(r0, 8));
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(kb, data);
  Value src =
      add(base, mul(add(add(dataBase, mul(add(rowBase, r0), c(rowElems))),
                        add(k0, mul(chunk, c(8)))),
                    c(2)));
  Value to = add(dst, add(mul(r0, c(128)), mul(phys, c(16))));
  for (int64_t i = 0; i < rows / 16; ++i) {
    Value s = add(src, c(i * 16 * rowElems * 2));
    Value d = add(to, c(i * 16 * 128));
    Value sp = LLVM::IntToPtrOp::create(
        kb, globalPtr, arith::IndexCastUIOp::create(kb, i64, s).getResult());
    Value dp = LLVM::IntToPtrOp::create(
        kb, sharedPtr, arith::IndexCastUIOp::create(kb, i64, d).getResult());
    NVVM::CpAsyncOp::create(kb, dp, sp, kb.getI32IntegerAttr(16),
                            NVVM::LoadCacheModifierKindAttr::get(
                                ctx, NVVM::LoadCacheModifierKind::CG),
                            Value());
  }
}

void GemmEmitter::emitLoaderTile(const Tile &t) {
  // Stage g of the ring: wait until the MMA warpgroups released it
  // (empty[s]), issue the 16-byte copies of both operand tiles, and let
  // full[s] complete when this thread's copies have landed
  // (cp.async.mbarrier.arrive.noinc: one of the 128 expected arrivals).
  // The padded buffers need no masks: rows and K are whole tiles, zero
  // past the operands.
  auto loop = scf::ForOp::create(kb, t.ktBegin, t.ktEnd, c(1));
  OpBuilder::InsertionGuard g(kb);
  kb.setInsertionPointToStart(loop.getBody());
  Value kt = loop.getInductionVar();
  Value ring = loadCounter();
  Value stage = remu(ring, spec.stages);
  Value parity = arith::IndexCastUIOp::create(kb, kb.getI32Type(),
                                              remu(divu(ring, spec.stages), 2));
  waitBarrier(add(c(spec.stages), stage),
              arith::XOrIOp::create(kb, parity, kb.i32(1)));
  Value stageAddr = add(smemAddr, mul(stage, c(spec.stageBytes())));
  Value k0 = mul(kt, c(spec.tile.k));
  copyTile(aData, t.aDataBase, t.rowBase, spec.tile.m, spec.a.k, k0, stageAddr);
  copyTile(bData, t.bDataBase, t.colBase, spec.tile.n, spec.b.k, k0,
           add(stageAddr, c(spec.stageBytesA())));
  NVVM::CpAsyncMBarrierArriveOp::create(kb, barrier(stage), /*noinc=*/true);
  storeCounter(add(ring, c(1)));
}

Value GemmEmitter::guardCondition() {
  // One uniform load of the flag word (the pre-passes finished before this
  // launch on the same stream).
  Value f = memref::LoadOp::create(kb, flag, c(0));
  return arith::CmpIOp::create(kb,
                               spec.runWhenUnsafe ? arith::CmpIPredicate::ne
                                                  : arith::CmpIPredicate::eq,
                               f, kb.i32(0));
}

void GemmEmitter::walkTiles(
    function_ref<void(Value, Value, Value, Value, Value, Value)> body) {
  Value bid = gpu::BlockIdOp::create(kb, gpu::Dimension::x);
  Value grid = gpu::GridDimOp::create(kb, gpu::Dimension::x);
  const TileShape &t = spec.tile;
  int64_t tilesM = spec.tilesM(), tilesN = spec.tilesN();
  kb.forLoop(bid, c(spec.numTiles()), grid, [&](Value tile) {
    switch (spec.kind) {
    case GemmKind::Dense:
    case GemmKind::Grouped2d2d: {
      Value batch = divu(tile, tilesM * tilesN);
      auto [mt, nt] = gemm::emitGroupedTile(kb, remu(tile, tilesM * tilesN),
                                            tilesM, tilesN, t.groupM);
      Value kLo = c(0), kHi = c(spec.k);
      if (spec.kind == GemmKind::Grouped2d2d) {
        // The group's clamped token range: walk the ends up to `batch`.
        // v8: the group's range of the padded K instead (each group
        // rounded up to 64, DequantSpec::groups).
        auto walk = scf::ForOp::create(kb, c(0), add(batch, c(1)), c(1),
                                       ValueRange{c(0), c(0), c(0), c(0)});
        {
          OpBuilder::InsertionGuard g(kb);
          kb.setInsertionPointToStart(walk.getBody());
          ValueRange it = walk.getRegionIterArgs();
          Value start = it[1];
          Value end = groupEnd(walk.getInductionVar(), start, spec.k);
          Value padStart = it[3];
          Value padEnd =
              add(padStart, mul(divu(add(sub(end, start), c(63)), 64), c(64)));
          scf::YieldOp::create(kb, ValueRange{start, end, padStart, padEnd});
        }
        bool padded = spec.preDequantized();
        kLo = walk.getResult(padded ? 2 : 0);
        kHi = walk.getResult(padded ? 3 : 1);
      }
      body(batch, mul(mt, c(t.m)), c(spec.m), mul(nt, c(t.n)), kLo, kHi);
      break;
    }
    case GemmKind::Grouped2d3d: {
      // Tile rows of every group in turn: group g covers [start, end) in
      // ceil((end - start) / 128) tiles.
      Value mt = divu(tile, tilesN);
      Value nt = remu(tile, tilesN);
      Value f = arith::ConstantIntOp::create(kb, 0, 1);
      auto walk =
          scf::ForOp::create(kb, c(0), c(spec.batches), c(1),
                             ValueRange{c(0), c(0), f, c(0), c(0), c(0)});
      {
        OpBuilder::InsertionGuard g(kb);
        kb.setInsertionPointToStart(walk.getBody());
        ValueRange it = walk.getRegionIterArgs();
        Value start = it[0], cum = it[1], found = it[2];
        Value g0 = walk.getInductionVar();
        Value end = groupEnd(g0, start, spec.m);
        Value count = divu(add(sub(end, start), c(t.m - 1)), t.m);
        Value next = add(cum, count);
        Value hit = andi(uge(mt, cum), ult(mt, next));
        Value row = add(start, mul(sub(mt, cum), c(t.m)));
        scf::YieldOp::create(
            kb, ValueRange{end, next, arith::OrIOp::create(kb, found, hit),
                           select(hit, g0, it[3]), select(hit, row, it[4]),
                           select(hit, end, it[5])});
      }
      Value found = walk.getResult(2);
      kb.ifThen(found, [&] {
        body(walk.getResult(3), walk.getResult(4), walk.getResult(5),
             mul(nt, c(t.n)), c(0), c(spec.k));
      });
      break;
    }
    }
  });
}

void GemmEmitter::emit() {
  tid = gpu::ThreadIdOp::create(kb, gpu::Dimension::x);
  ctid = tid;
  if (spec.guarded) {
    kb.ifThen(guardCondition(), [&] { emitBody(); });
    return;
  }
  emitBody();
}

void GemmEmitter::emitBody() {
  MLIRContext *ctx = kb.getContext();
  auto wgSpace = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  auto rawType = MemRefType::get({ShapedType::kDynamic}, kb.getI8Type(),
                                 MemRefLayoutAttrInterface(), wgSpace);
  Value raw = gpu::DynamicSharedMemoryOp::create(kb, rawType);
  Value rawAddr = memref::ExtractAlignedPointerAsIndexOp::create(kb, raw);
  // The stages start at the first 1024-byte boundary (128B swizzle atoms).
  Value pad = remu(sub(c(1024), remu(rawAddr, 1024)), 1024);
  smemAddr = add(rawAddr, pad);
  auto viewType = MemRefType::get({ShapedType::kDynamic}, kb.getBF16Type(),
                                  MemRefLayoutAttrInterface(), wgSpace);
  smem = memref::ViewOp::create(
      kb, viewType, raw, pad,
      ValueRange{c(spec.stages * spec.stageBytes() / 2)});
  int64_t stagesBytes = spec.stages * spec.stageBytes();
  if (spec.isSpecialised()) {
    // The mbarriers follow the stages, then the rebalancing slots (both
    // 16-byte aligned).
    barAddr = add(smemAddr, c(stagesBytes));
    if (spec.slotBytes()) {
      auto slotsType =
          MemRefType::get({2, convThreads / 32, 4}, kb.getI32Type(),
                          MemRefLayoutAttrInterface(), wgSpace);
      maxSlots = memref::ViewOp::create(
          kb, slotsType, raw, add(pad, c(stagesBytes + spec.barrierBytes())),
          ValueRange{});
    }
    emitSpecialised();
  } else {
    // The rebalancing slots follow the stages (16-byte aligned).
    auto slotsType = MemRefType::get({spec.stages, 4}, kb.getI32Type(),
                                     MemRefLayoutAttrInterface(), wgSpace);
    maxSlots = memref::ViewOp::create(kb, slotsType, raw,
                                      add(pad, c(stagesBytes)), ValueRange{});
    walkTiles([&](Value batch, Value rowBase, Value rowEnd, Value colBase,
                  Value kLo, Value kHi) {
      emitTile(batch, rowBase, rowEnd, colBase, kLo, kHi);
    });
  }

  if (spec.kind == GemmKind::Grouped2d3d) {
    // Rows at or past the last group's end are zero.
    Value bid = gpu::BlockIdOp::create(kb, gpu::Dimension::x);
    Value grid = gpu::GridDimOp::create(kb, gpu::Dimension::x);
    auto walk =
        scf::ForOp::create(kb, c(0), c(spec.batches), c(1), ValueRange{c(0)});
    {
      OpBuilder::InsertionGuard g(kb);
      kb.setInsertionPointToStart(walk.getBody());
      Value end =
          groupEnd(walk.getInductionVar(), walk.getRegionIterArgs()[0], spec.m);
      scf::YieldOp::create(kb, end);
    }
    Value first = mul(walk.getResult(0), c(spec.n));
    Value gtid = add(mul(bid, c(spec.threads())), tid);
    Value zero = spec.outType.isBF16()
                     ? arith::ConstantOp::create(
                           kb, kb.getFloatAttr(kb.getBF16Type(), 0.0))
                           .getResult()
                     : arith::ConstantOp::create(kb, kb.getF32FloatAttr(0.0f))
                           .getResult();
    kb.forLoop(add(first, gtid), c(spec.m * spec.n),
               mul(grid, c(spec.threads())),
               [&](Value i) { memref::StoreOp::create(kb, zero, out, i); });
  }
}

//===----------------------------------------------------------------------===//
// v8 pre-pass: operand dequantization into padded bf16
//===----------------------------------------------------------------------===//

/// Bytes per K row of the pre-pass's shared transpose tile (128 rows plus
/// 16 bytes, so that a column's bytes spread over the banks).
constexpr int64_t kTransposeStride = 144;

namespace {
/// One MX operand dequantized by the v8 pre-pass.
struct DequantSpec {
  /// The stored operand (rows x K per batch).
  OperandLayout l;
  int64_t batches = 1;
  /// The padded bf16 buffer: `batches x rowsPad x kPad`, K-major.
  int64_t rowsPad = 0, kPad = 0;
  Type f8Type;
  /// CTAs of 256 threads.
  int64_t grid = 1;
  /// 2d-2d: the token groups of `offs` along K; each group's tokens start
  /// at a multiple of 64 of the padded K (0: K is not grouped).
  int64_t groups = 0;

  /// Elements per item (one thread's work): 8 of one row for K-major data
  /// (a warp loads 256 and stores 512 contiguous bytes), a 32-block of one
  /// row for MN-major data (rows fastest, so that each of the 32 byte loads
  /// of a warp is contiguous).
  int64_t vec() const { return l.kMajor ? 8 : 32; }
  /// MN-major data with rows a multiple of 16 goes through shared memory
  /// in tiles of 32 K x 128 rows (16-byte loads of row chunks).
  bool transpose() const { return !l.kMajor && l.rows % 16 == 0; }
  /// Work items: tiles (transpose) or items of vec() elements.
  int64_t numItems() const {
    if (transpose())
      return batches * (kPad / 32) * (rowsPad / 128);
    return batches * rowsPad * (kPad / vec());
  }
  /// Dynamic shared memory: the 2d-2d group table, then (transpose) the
  /// byte tile and 128 scale words.
  int64_t sharedBytes() const {
    int64_t bytes = llvm::alignTo(24 * groups, 16);
    if (transpose())
      bytes += 32 * kTransposeStride + 128 * 4;
    return groups || transpose() ? bytes : 0;
  }
  std::string getName() const {
    return llvm::formatv(
               "gemm_dequant_{0}{1}_{2}_{3}x{4}x{5}_pad{6}x{7}{8}",
               l.kMajor ? "k" : "mn", l.blockedScales ? "b" : "",
               getTypeTag(f8Type), batches, l.rows, l.k, rowsPad, kPad,
               groups ? llvm::formatv("_g{0}", groups).str() : std::string())
        .str();
  }
};
} // namespace

/// The scale bytes s for which every value e * 2^(s - 127) of an fp8
/// element e is a bf16 value (normal or subnormal), so that the pre-pass
/// keeps the operand exact: e4m3 values lie in [2^-9, 448], e5m2 in
/// [2^-16, 57344]; bf16 reaches down to 2^-133 and up to 2^128 (1 - 2^-9).
static std::pair<int64_t, int64_t> getExactScaleRange(Type f8Type) {
  if (isa<Float8E5M2Type>(f8Type))
    return {10, 239};
  return {3, 246};
}

/// Writes the dequantization kernel body: item i is `vec` elements of one
/// row of the padded output (DequantSpec::vec), K fastest for K-major data
/// and rows fastest for MN-major data. Elements inside the operand become
/// bf16(e * 2^(s - 127)) (NaN for s = 255 and for the fp8 NaN codes),
/// padding zeros. A nonzero block whose scale byte is outside
/// getExactScaleRange sets the flag word (zeroed by a memset before the
/// pre-passes): the GEMM then runs the fallback kernel on the fp8 operands
/// instead. 2d-2d: group g's tokens [start_g, end_g) go to padded K
/// [P_g, P_g + len_g), P_g the sum of the earlier groups' lengths rounded
/// up to 64, zeros up to the next group; a nonempty group whose start or
/// end is not a multiple of 32 (a scale block shared by two groups) sets
/// the flag too.
static void emitDequantKernel(KernelBuilder &kb, const DequantSpec &d,
                              ValueRange args) {
  unsigned ai = 0;
  Value data = args[ai++], scales = args[ai++];
  Value offs = d.groups ? args[ai++] : Value();
  Value out = args[ai++], flag = args[ai++];
  const OperandLayout &l = d.l;
  const int64_t vec = d.vec();
  auto c = [&](int64_t v) { return kb.idx(v); };
  auto divu = [&](Value x, int64_t y) -> Value {
    return arith::DivUIOp::create(kb, x, c(y));
  };
  auto remu = [&](Value x, int64_t y) -> Value {
    return arith::RemUIOp::create(kb, x, c(y));
  };
  auto add = [&](Value x, Value y) -> Value {
    return arith::AddIOp::create(kb, x, y);
  };
  auto sub = [&](Value x, Value y) -> Value {
    return arith::SubIOp::create(kb, x, y);
  };
  auto mul = [&](Value x, int64_t y) -> Value {
    return arith::MulIOp::create(kb, x, c(y));
  };
  auto ult = [&](Value x, Value y) -> Value {
    return arith::CmpIOp::create(kb, arith::CmpIPredicate::ult, x, y);
  };
  Type i32 = kb.getI32Type();
  auto setFlag = [&] { memref::StoreOp::create(kb, kb.i32(1), flag, c(0)); };

  // 2d-2d: the group table (padded end E_g, start_g, len_g) in shared
  // memory, written by thread 0.
  Value table, raw;
  MLIRContext *ctx = kb.getContext();
  auto wgSpace = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  if (d.sharedBytes())
    raw = gpu::DynamicSharedMemoryOp::create(
        kb, MemRefType::get({ShapedType::kDynamic}, kb.getI8Type(),
                            MemRefLayoutAttrInterface(), wgSpace));
  if (d.groups) {
    table = memref::ViewOp::create(
        kb,
        MemRefType::get({3 * d.groups}, kb.getIndexType(),
                        MemRefLayoutAttrInterface(), wgSpace),
        raw, c(0), ValueRange{});
    Value tid = gpu::ThreadIdOp::create(kb, gpu::Dimension::x);
    kb.ifThen(
        arith::CmpIOp::create(kb, arith::CmpIPredicate::eq, tid, c(0)), [&] {
          auto loop = scf::ForOp::create(kb, c(0), c(d.groups), c(1),
                                         ValueRange{c(0), c(0)});
          OpBuilder::InsertionGuard g(kb);
          kb.setInsertionPointToStart(loop.getBody());
          Value gi = loop.getInductionVar();
          Value start = loop.getRegionIterArgs()[0];
          Value padEnd = loop.getRegionIterArgs()[1];
          Value raw = arith::IndexCastOp::create(
              kb, kb.getIndexType(), memref::LoadOp::create(kb, offs, gi));
          Value end = arith::MinSIOp::create(
              kb, arith::MaxSIOp::create(kb, raw, start), c(l.k));
          Value len = sub(end, start);
          Value misaligned = arith::AndIOp::create(
              kb, ult(c(0), len),
              arith::CmpIOp::create(
                  kb, arith::CmpIPredicate::ne,
                  remu(arith::OrIOp::create(kb, start, end), 32), c(0)));
          kb.ifThen(misaligned, setFlag);
          Value nextPad = add(padEnd, mul(divu(add(len, c(63)), 64), 64));
          memref::StoreOp::create(kb, nextPad, table, mul(gi, 3));
          memref::StoreOp::create(kb, start, table, add(mul(gi, 3), c(1)));
          memref::StoreOp::create(kb, len, table, add(mul(gi, 3), c(2)));
          scf::YieldOp::create(kb, ValueRange{end, nextPad});
        });
    gpu::BarrierOp::create(kb);
  }

  int64_t blocks = l.k / 32;
  auto [lo, hi] = getExactScaleRange(d.f8Type);

  // The source K of padded K `pk` and whether it holds operand data.
  auto lookup = [&](Value pk) -> std::pair<Value, Value> {
    if (!d.groups)
      return {pk, ult(pk, c(l.k))};
    // Group g: the number of groups whose padded end is <= pk.
    auto scan =
        scf::ForOp::create(kb, c(0), c(d.groups), c(1), ValueRange{c(0), c(0)});
    {
      OpBuilder::InsertionGuard g(kb);
      kb.setInsertionPointToStart(scan.getBody());
      Value e =
          memref::LoadOp::create(kb, table, mul(scan.getInductionVar(), 3));
      Value before =
          arith::CmpIOp::create(kb, arith::CmpIPredicate::ule, e, pk);
      Value gNext = add(scan.getRegionIterArgs()[0],
                        arith::SelectOp::create(kb, before, c(1), c(0)));
      Value pStart =
          arith::SelectOp::create(kb, before, e, scan.getRegionIterArgs()[1]);
      scf::YieldOp::create(kb, ValueRange{gNext, pStart});
    }
    Value gi = scan.getResult(0);
    Value pStart = scan.getResult(1);
    Value inGroups = ult(gi, c(d.groups));
    Value gs = arith::MinUIOp::create(kb, gi, c(d.groups - 1));
    Value start = memref::LoadOp::create(kb, table, add(mul(gs, 3), c(1)));
    Value len = memref::LoadOp::create(kb, table, add(mul(gs, 3), c(2)));
    Value off = sub(pk, pStart);
    // A group starting off a 32-boundary is flagged by the table; its
    // items are not loaded (the vector loads would be misaligned).
    Value aligned = arith::CmpIOp::create(kb, arith::CmpIPredicate::eq,
                                          remu(start, 32), c(0));
    return {
        add(start, off),
        arith::AndIOp::create(
            kb, arith::AndIOp::create(kb, inGroups, ult(off, len)), aligned)};
  };
  // The scale byte (i32) of row r at source K k0.
  auto scaleByte = [&](Value batch, Value r, Value k0) -> Value {
    Value kBlock = divu(k0, 32);
    Value sOff;
    if (l.blockedScales) {
      lowering::Bits bb = kb.bits();
      sOff = lowering::getBlockedOffset(bb, r, kBlock, blocks);
    } else {
      sOff =
          l.kMajor ? add(mul(r, blocks), kBlock) : add(mul(kBlock, l.rows), r);
    }
    sOff = add(mul(batch, l.getScaleSize()), sOff);
    return arith::ExtUIOp::create(
        kb, i32,
        kb.bitcastTo(kb.getI8Type(), memref::LoadOp::create(kb, scales, sOff)));
  };
  // bf16 of the fp8 bytes `v` (vector<n x i8>) with scale byte `s`; sets
  // the flag where bf16 cannot hold them exactly.
  auto convert = [&](Value v, Value s) -> Value {
    int64_t n = cast<VectorType>(v.getType()).getNumElements();
    auto bf16V = VectorType::get({n}, kb.getBF16Type());
    auto f32V = VectorType::get({n}, kb.getF32Type());
    auto words = VectorType::get({n / 4}, i32);
    Value isNaN =
        arith::CmpIOp::create(kb, arith::CmpIPredicate::eq, s, kb.i32(255));
    Value mag = arith::AndIOp::create(kb, kb.bitcastTo(words, v),
                                      kb.splatBits(words, 0x7F7F7F7F));
    // The exact conversion (hardware cvt to f16, f32 multiply by
    // 2^(s - 127) as f32 bits s << 23, one rounding to bf16 that is exact
    // in the range): e5m2, and e4m3 items holding a NaN code.
    auto exactConvert = [&]() -> Value {
      Value factorBits =
          arith::SelectOp::create(kb, isNaN, kb.i32(0x7FC00000),
                                  arith::ShLIOp::create(kb, s, kb.i32(23)));
      Value factor = kb.bitcastTo(kb.getF32Type(), factorBits);
      Value x = kb.convertFromF8(v, d.f8Type);
      Value y = arith::MulFOp::create(
          kb, x, vector::BroadcastOp::create(kb, f32V, factor));
      return arith::TruncFOp::create(kb, bf16V, y);
    };
    Value bf;
    if (isa<Float8E4M3FNType>(d.f8Type)) {
      // e4m3 without conversion instructions: the bytes placed as bf16 of
      // 2^-120 times the values, then two exact bf16x2 multiplies by 2^120
      // and 2^(s - 127) (bits s << 7; 0 for s = 0, exact only for a zero
      // block and otherwise flagged; NaN for 255). A NaN code (magnitude
      // 0x7F: adding 1 carries into bit 7) takes exactConvert.
      Value carry = arith::AndIOp::create(
          kb, arith::AddIOp::create(kb, mag, kb.splatBits(words, 0x01010101)),
          kb.splatBits(words, 0x80808080));
      Value nanCode = arith::CmpIOp::create(
          kb, arith::CmpIPredicate::ne,
          vector::ReductionOp::create(kb, vector::CombiningKind::OR, carry),
          kb.i32(0));
      auto conv = scf::IfOp::create(kb, TypeRange{bf16V}, nanCode, true);
      OpBuilder::InsertionGuard g(kb);
      kb.setInsertionPointToStart(conv.thenBlock());
      scf::YieldOp::create(kb, exactConvert());
      kb.setInsertionPointToStart(conv.elseBlock());
      Value x = placeE4M3Bytes(kb, v);
      x = arith::MulFOp::create(kb, x, kb.splatBits(bf16V, 247 << 7));
      Value fBits = arith::SelectOp::create(
          kb, isNaN, kb.i32(0x7FC0), arith::ShLIOp::create(kb, s, kb.i32(7)));
      Value f = kb.bitcastTo(
          kb.getBF16Type(),
          arith::TruncIOp::create(kb, kb.getI16Type(), fBits).getResult());
      scf::YieldOp::create(
          kb, arith::MulFOp::create(kb, x,
                                    vector::BroadcastOp::create(kb, bf16V, f))
                  .getResult());
      kb.setInsertionPointAfter(conv);
      bf = conv.getResult(0);
    } else {
      bf = exactConvert();
    }
    // Flag: a nonzero magnitude (the NaN codes included) with a scale byte
    // outside the exact range.
    Value any = vector::ReductionOp::create(kb, vector::CombiningKind::OR, mag);
    Value nonzero =
        arith::CmpIOp::create(kb, arith::CmpIPredicate::ne, any, kb.i32(0));
    Value outside = arith::OrIOp::create(
        kb, arith::CmpIOp::create(kb, arith::CmpIPredicate::slt, s, kb.i32(lo)),
        arith::CmpIOp::create(kb, arith::CmpIPredicate::sgt, s, kb.i32(hi)));
    Value unsafe = arith::AndIOp::create(
        kb, arith::AndIOp::create(kb, nonzero, outside),
        arith::XOrIOp::create(kb, isNaN,
                              arith::ConstantIntOp::create(kb, 1, 1)));
    kb.ifThen(unsafe, setFlag);
    return bf;
  };

  if (d.transpose()) {
    // MN-major data through shared memory: CTA tile = one 32-block of K x
    // 128 rows. 256 threads load the 32 x 128 bytes as 16-byte row chunks
    // (and 128 scale bytes), then thread t converts 16 K of row t / 2 and
    // stores them as 32 contiguous bytes of the K-major output.
    int64_t tableBytes = llvm::alignTo(24 * d.groups, 16);
    auto tileType = MemRefType::get({32 * kTransposeStride}, kb.getI8Type(),
                                    MemRefLayoutAttrInterface(), wgSpace);
    Value tileBuf =
        memref::ViewOp::create(kb, tileType, raw, c(tableBytes), ValueRange{});
    auto sType =
        MemRefType::get({128}, i32, MemRefLayoutAttrInterface(), wgSpace);
    Value sBuf = memref::ViewOp::create(
        kb, sType, raw, c(tableBytes + 32 * kTransposeStride), ValueRange{});
    Value tid = gpu::ThreadIdOp::create(kb, gpu::Dimension::x);
    Value bid = gpu::BlockIdOp::create(kb, gpu::Dimension::x);
    Value gridDim = gpu::GridDimOp::create(kb, gpu::Dimension::x);
    int64_t rowTiles = d.rowsPad / 128, kBlocksPad = d.kPad / 32;
    auto b16 = VectorType::get({16}, kb.getI8Type());
    kb.forLoop(bid, c(d.numItems()), gridDim, [&](Value tile) {
      Value rt = remu(tile, rowTiles);
      Value kbp = remu(divu(tile, rowTiles), kBlocksPad);
      Value batch = divu(tile, rowTiles * kBlocksPad);
      Value pk = mul(kbp, 32);
      auto [k0, kIn] = lookup(pk);
      Value rowBase = mul(rt, 128);
      // Load: thread t copies row chunk t % 8 of K row t / 8.
      Value kk = divu(tid, 8), chunk = remu(tid, 8);
      Value r0 = add(rowBase, mul(chunk, 16));
      Value in = arith::AndIOp::create(kb, kIn, ult(r0, c(l.rows)));
      auto ld = scf::IfOp::create(kb, TypeRange{b16}, in, true);
      {
        OpBuilder::InsertionGuard g(kb);
        kb.setInsertionPointToStart(ld.thenBlock());
        Value off =
            add(mul(batch, l.getDataSize()), add(mul(add(k0, kk), l.rows), r0));
        scf::YieldOp::create(
            kb, kb.bitcastTo(b16, kb.load(VectorType::get({16}, d.f8Type), data,
                                          off, 16)));
        kb.setInsertionPointToStart(ld.elseBlock());
        scf::YieldOp::create(kb, kb.splatBits(b16, 0));
      }
      kb.store(ld.getResult(0), tileBuf,
               add(mul(kk, kTransposeStride), mul(chunk, 16)), 16);
      kb.ifThen(ult(tid, c(128)), [&] {
        Value r = add(rowBase, tid);
        Value ok = arith::AndIOp::create(kb, kIn, ult(r, c(l.rows)));
        auto sIf = scf::IfOp::create(kb, TypeRange{i32}, ok, true);
        OpBuilder::InsertionGuard g(kb);
        kb.setInsertionPointToStart(sIf.thenBlock());
        scf::YieldOp::create(kb, scaleByte(batch, r, k0));
        kb.setInsertionPointToStart(sIf.elseBlock());
        scf::YieldOp::create(kb, kb.i32(127));
        kb.setInsertionPointAfter(sIf);
        memref::StoreOp::create(kb, sIf.getResult(0), sBuf, tid);
      });
      gpu::BarrierOp::create(kb);
      // Convert: thread t takes row t / 2, K half t % 2.
      Value row = divu(tid, 2), half = remu(tid, 2);
      SmallVector<Value> bytes;
      for (int64_t j = 0; j < 16; ++j)
        bytes.push_back(memref::LoadOp::create(
            kb, tileBuf,
            add(mul(add(mul(half, 16), c(j)), kTransposeStride), row)));
      Value v = vector::FromElementsOp::create(kb, b16, bytes);
      Value sv = memref::LoadOp::create(kb, sBuf, row);
      Value bf = convert(v, sv);
      Value outOff =
          add(mul(add(mul(batch, d.rowsPad), add(rowBase, row)), d.kPad),
              add(pk, mul(half, 16)));
      kb.store(bf, out, outOff, 16);
      // The tile is read before the next one overwrites it.
      gpu::BarrierOp::create(kb);
    });
    return;
  }

  auto bytesV = VectorType::get({vec}, kb.getI8Type());
  kb.gridStrideLoop(kb.idx(d.numItems()), [&](Value i) {
    int64_t chunks = d.kPad / vec;
    Value r, kc;
    if (l.kMajor) {
      kc = remu(i, chunks);
      r = remu(divu(i, chunks), d.rowsPad);
    } else {
      r = remu(i, d.rowsPad);
      kc = remu(divu(i, d.rowsPad), chunks);
    }
    Value batch = divu(i, d.rowsPad * chunks);
    Value pk = mul(kc, vec);
    auto [k0, kIn] = lookup(pk);
    Value inside = arith::AndIOp::create(kb, ult(r, c(l.rows)), kIn);
    // Padding: zero bytes with scale byte 127 convert to zeros.
    auto ifOp = scf::IfOp::create(kb, TypeRange{bytesV, i32}, inside, true);
    {
      OpBuilder::InsertionGuard g(kb);
      kb.setInsertionPointToStart(ifOp.thenBlock());
      Value dataBase = mul(batch, l.getDataSize());
      Value v;
      if (l.kMajor) {
        Value off = add(dataBase, add(mul(r, l.k), k0));
        v = kb.bitcastTo(
            bytesV, kb.load(VectorType::get({vec}, d.f8Type), data, off, vec));
      } else {
        SmallVector<Value> elems;
        for (int64_t j = 0; j < vec; ++j) {
          Value off = add(dataBase, add(mul(add(k0, c(j)), l.rows), r));
          elems.push_back(kb.bitcastTo(kb.getI8Type(),
                                       memref::LoadOp::create(kb, data, off)));
        }
        v = vector::FromElementsOp::create(kb, bytesV, elems);
      }
      scf::YieldOp::create(kb, ValueRange{v, scaleByte(batch, r, k0)});
      kb.setInsertionPointToStart(ifOp.elseBlock());
      scf::YieldOp::create(kb,
                           ValueRange{kb.splatBits(bytesV, 0), kb.i32(127)});
    }
    Value bf = convert(ifOp.getResult(0), ifOp.getResult(1));
    Value outOff = add(mul(add(mul(batch, d.rowsPad), r), d.kPad), pk);
    kb.store(bf, out, outOff, 16);
  });
}

//===----------------------------------------------------------------------===//
// Host side
//===----------------------------------------------------------------------===//

/// Views `tensor`'s buffer as 1-D.
static Value flatBuffer(RewriterBase &rewriter, Location loc, Value tensor) {
  Value buf = toBuffer(rewriter, loc, tensor);
  auto type = cast<MemRefType>(buf.getType());
  return collapseTo(rewriter, loc, buf, {type.getNumElements()});
}

/// The kernel version used unless `mxfp8train.gemm_version` says otherwise:
/// v8 (dequantize pre-passes + bf16 GEMM) wherever it applies (not 2d-2d),
/// else the fused-upcast v7 for K-major operands with row-major scales, else
/// v5. v7/v5 are also v8's guarded fallback for extreme scale bytes.
constexpr int64_t kDefaultGemmVersion = 8;
constexpr int64_t kDefaultFusedVersion = 7;

/// Chooses the pipeline configuration of `spec`; the discardable integer
/// attributes `mxfp8train.gemm_version` (5, 6, 7 or 8),
/// `mxfp8train.gemm_prefetch`, `mxfp8train.gemm_ctas_per_sm`,
/// `mxfp8train.gemm_rebalance`, for v6/v7 `mxfp8train.gemm_stages` and
/// `mxfp8train.gemm_converters`, for v8 `mxfp8train.gemm_stages` and
/// `mxfp8train.gemm_tile_n` (128 or 256) of `op` override it, for
/// measurements. Without `allowPreDequant`, the configuration v8 falls
/// back to.
static void chooseConfig(Operation *op, GemmSpec &spec,
                         bool allowPreDequant = true) {
  // Measured on the H200 (bench/README.md): a deeper register prefetch
  // (2-4 tiles, one CTA per SM) was no faster than one tile ahead, two CTAs
  // per SM were 20 % faster. The MN-major and blocked-scale loaders need
  // more registers (they spill at 128): one CTA per SM.
  spec.prefetch = 1;
  spec.tile = TileShape();
  spec.stages = 3;
  spec.converterGroups = 2;
  spec.ctasPerSM = spec.a.kMajor && spec.b.kMajor && !spec.a.blockedScales &&
                           !spec.b.blockedScales
                       ? 2
                       : 1;
  if (auto a = op->getAttrOfType<IntegerAttr>("mxfp8train.gemm_prefetch"))
    spec.prefetch = std::clamp<int64_t>(a.getInt(), 1, 4);
  if (auto a = op->getAttrOfType<IntegerAttr>("mxfp8train.gemm_ctas_per_sm"))
    spec.ctasPerSM = std::clamp<int64_t>(a.getInt(), 1, 2);
  if (auto a = op->getAttrOfType<IntegerAttr>("mxfp8train.gemm_rebalance"))
    spec.rebalance = a.getInt() != 0;
  int64_t requested = kDefaultGemmVersion;
  if (auto a = op->getAttrOfType<IntegerAttr>("mxfp8train.gemm_version"))
    requested = a.getInt();
  if (requested == 8 && allowPreDequant) {
    // v8 (any operand layout; 2d-2d with each token group padded to 64 by
    // the pre-passes): one CTA of 384 threads per SM, 128x256 tiles
    // (m64n256 per MMA warpgroup) and a ring of four stages (192 KiB), or
    // 128x128 tiles with `gemm_tile_n = 128`.
    spec.version = 8;
    spec.ctasPerSM = 1;
    spec.converterGroups = 1;
    spec.prefetch = 1;
    spec.tile.n = 256;
    spec.stages = 4;
    if (auto tn = op->getAttrOfType<IntegerAttr>("mxfp8train.gemm_tile_n");
        tn && tn.getInt() == 128)
      spec.tile.n = 128;
    if (auto st = op->getAttrOfType<IntegerAttr>("mxfp8train.gemm_stages"))
      spec.stages =
          std::clamp<int64_t>(st.getInt(), 2, spec.tile.n == 256 ? 4 : 6);
    return;
  }
  // v6/v7 cover K-major operands with row-major scales; the MN-major and
  // blocked-scale loaders spill at their 128 registers per thread (ptxas,
  // also with setmaxnreg 96/160), so they stay on v5. v7 was measured
  // faster than v5 for scaled_mm (+13-29 %) and 2d-3d (+4-17 %); the 2d-2d
  // wgrad was 5 % slower and stays on v5 unless asked (bench/README.md).
  bool kMajorRowScales = spec.a.kMajor && spec.b.kMajor &&
                         !spec.a.blockedScales && !spec.b.blockedScales;
  if ((requested == 6 || requested == 7) && kMajorRowScales)
    spec.version = requested;
  else if (requested == 8 && kMajorRowScales &&
           spec.kind != GemmKind::Grouped2d2d)
    spec.version = kDefaultFusedVersion;
  else
    spec.version = 5;
  if (spec.isSpecialised()) {
    // v6: one CTA of 512 threads per SM (128 registers each), a ring of
    // four stages (128 KiB), loads two contraction tiles ahead (the
    // rebalancing maxima of the next stage come from registers already
    // loaded).
    spec.ctasPerSM = 1;
    spec.stages = 4;
    spec.converterGroups = 2;
    spec.prefetch = 2;
    if (auto a = op->getAttrOfType<IntegerAttr>("mxfp8train.gemm_prefetch"))
      spec.prefetch = std::clamp<int64_t>(a.getInt(), 1, 4);
    if (auto a = op->getAttrOfType<IntegerAttr>("mxfp8train.gemm_stages"))
      spec.stages = std::clamp<int64_t>(a.getInt(), 2, 6);
    if (auto a = op->getAttrOfType<IntegerAttr>("mxfp8train.gemm_converters"))
      spec.converterGroups = std::clamp<int64_t>(a.getInt(), 1, 2);
  }
}

/// Creates (or reuses) the kernel of `spec` and launches it on `args`.
static void launchGemm(RewriterBase &rewriter, Location loc,
                       const KernelCache &cache, const GemmSpec &spec,
                       SmallVector<Value> args) {
  SmallVector<Type> argTypes =
      llvm::map_to_vector(args, [](Value v) { return v.getType(); });
  gpu::GPUFuncOp kernel =
      cache.getOrCreate(rewriter, spec.getName(), argTypes, args.size() - 1, {},
                        [&](KernelBuilder &kb, ValueRange kargs, ValueRange) {
                          GemmEmitter(kb, spec, kargs).emit();
                        });
  const GPUTargetInfo &target = cache.getTarget();
  // Two resident CTAs per SM where the registers allow (2 x 97 KiB of
  // shared memory; 128 registers per thread by .minnctapersm 2, no spills
  // in ptxas): one CTA's conversion overlaps the other's loads and wgmma.
  // Persistent grid.
  int64_t ctasPerSM = spec.ctasPerSM;
  kernel->setAttr("nvvm.minctasm", rewriter.getI32IntegerAttr(ctasPerSM));
  kernel->setAttr("nvvm.maxntid", rewriter.getDenseI32ArrayAttr(
                                      {int32_t(spec.threads()), 1, 1}));
  kernel.setKnownBlockSizeAttr(
      rewriter.getDenseI32ArrayAttr({int32_t(spec.threads()), 1, 1}));
  int64_t grid = std::min<int64_t>(spec.numTiles(), ctasPerSM * target.numSMs);
  auto c = [&](int64_t v) {
    return arith::ConstantIndexOp::create(rewriter, loc, v).getResult();
  };
  Value one = c(1);
  Value shared =
      arith::ConstantIntOp::create(rewriter, loc, spec.sharedBytes(), 32);
  gpu::LaunchFuncOp::create(
      rewriter, loc, kernel, gpu::KernelDim3{c(grid), one, one},
      gpu::KernelDim3{c(spec.threads()), one, one}, shared, args);
}

/// CTAs per SM of a dequantization pre-pass at most (a grid-stride loop
/// covers the rest; `mxfp8train.gemm_dequant_ctas`, 0 for no cap).
constexpr int64_t kDequantCTAsPerSM = 64;

/// Launches the GEMM of `spec` on `args` (A data, A scales, B data,
/// B scales, [offs], [bias], out). v8: the two dequantization pre-passes
/// into padded bf16 buffers, the v8 kernel on them, and the fallback kernel
/// (the configuration `op` has without v8) on the fp8 operands; each of the
/// two reads the pre-passes' flags and only one of them runs.
static void launchGemmOp(RewriterBase &rewriter, Location loc,
                         const KernelCache &cache, Operation *op,
                         const GemmSpec &spec, SmallVector<Value> args) {
  if (!spec.preDequantized()) {
    launchGemm(rewriter, loc, cache, spec, args);
    return;
  }
  const GPUTargetInfo &target = cache.getTarget();
  // 2d-2d: every token group starts at a multiple of 64 of the padded K.
  bool grouped2d2d = spec.kind == GemmKind::Grouped2d2d;
  int64_t kPad =
      llvm::alignTo(spec.k, 64) + (grouped2d2d ? 64 * spec.batches : 0);
  // The flag word, zeroed on the stream before the pre-passes.
  Value flag = memref::AllocOp::create(
      rewriter, loc, MemRefType::get({1}, rewriter.getI32Type()));
  gpu::MemsetOp::create(
      rewriter, loc, Type(), ValueRange{}, flag,
      arith::ConstantIntOp::create(rewriter, loc, 0, 32).getResult());
  auto prePass = [&](const OperandLayout &l, bool batched, int64_t rowsPad,
                     Type f8Type, Value data, Value scales) -> Value {
    DequantSpec d;
    d.l = l;
    d.batches = batched ? spec.batches : 1;
    d.rowsPad = rowsPad;
    d.kPad = kPad;
    d.f8Type = f8Type;
    d.groups = grouped2d2d ? spec.batches : 0;
    int64_t ctasPerSM = kDequantCTAsPerSM;
    if (auto a = op->getAttrOfType<IntegerAttr>("mxfp8train.gemm_dequant_ctas"))
      ctasPerSM = a.getInt();
    // One CTA per tile (transpose) or per 256 items.
    d.grid = d.transpose() ? std::max<int64_t>(d.numItems(), 1)
                           : cache.getGridSize(d.numItems());
    if (ctasPerSM > 0)
      d.grid = std::min<int64_t>(d.grid, ctasPerSM * target.numSMs);
    Value padded = memref::AllocOp::create(
        rewriter, loc,
        MemRefType::get({d.batches * rowsPad * kPad}, rewriter.getBF16Type()));
    SmallVector<Value> kargs = {data, scales};
    if (grouped2d2d)
      kargs.push_back(args[4]);
    kargs.append({padded, flag});
    SmallVector<Type> types =
        llvm::map_to_vector(kargs, [](Value v) { return v.getType(); });
    gpu::GPUFuncOp kernel =
        cache.getOrCreate(rewriter, d.getName(), types, grouped2d2d ? 3 : 2, {},
                          [&](KernelBuilder &kb, ValueRange kargs, ValueRange) {
                            emitDequantKernel(kb, d, kargs);
                          });
    auto c = [&](int64_t v) {
      return arith::ConstantIndexOp::create(rewriter, loc, v).getResult();
    };
    // 2d-2d: the group table; MN-major: the transpose tile.
    Value shared =
        d.sharedBytes()
            ? arith::ConstantIntOp::create(rewriter, loc, d.sharedBytes(), 32)
                  .getResult()
            : Value();
    gpu::LaunchFuncOp::create(
        rewriter, loc, kernel, gpu::KernelDim3{c(d.grid), c(1), c(1)},
        gpu::KernelDim3{c(kThreadsPerCTA), c(1), c(1)}, shared, kargs);
    return padded;
  };
  GemmSpec fast = spec;
  // 2d-3d tiles start at any group start: one extra tile of rows.
  int64_t aRowsPad = llvm::alignTo(spec.m, spec.tile.m) +
                     (spec.kind == GemmKind::Grouped2d3d ? spec.tile.m : 0);
  int64_t bRowsPad = llvm::alignTo(spec.n, spec.tile.n);
  Value aPad =
      prePass(spec.a, spec.aBatched, aRowsPad, spec.aType, args[0], args[1]);
  Value bPad =
      prePass(spec.b, spec.bBatched, bRowsPad, spec.bType, args[2], args[3]);
  fast.a = {aRowsPad, kPad, true, false};
  fast.b = {bRowsPad, kPad, true, false};
  fast.aType = fast.bType = rewriter.getBF16Type();
  fast.guarded = true;
  SmallVector<Value> rest(args.begin() + 4, args.end() - 1);
  SmallVector<Value> fastArgs = {aPad, bPad};
  llvm::append_range(fastArgs, rest);
  fastArgs.append({flag, args.back()});
  launchGemm(rewriter, loc, cache, fast, fastArgs);

  GemmSpec slow = spec;
  chooseConfig(op, slow, /*allowPreDequant=*/false);
  slow.guarded = true;
  slow.runWhenUnsafe = true;
  SmallVector<Value> slowArgs(args.begin(), args.begin() + 4);
  llvm::append_range(slowArgs, rest);
  slowArgs.append({flag, args.back()});
  launchGemm(rewriter, loc, cache, slow, slowArgs);
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
  Location loc = op->getLoc();
  SmallVector<Value> args = {
      flatBuffer(rewriter, loc, lhs), flatBuffer(rewriter, loc, lhsScales),
      flatBuffer(rewriter, loc, rhs), flatBuffer(rewriter, loc, rhsScales)};
  if (offs)
    args.push_back(toBuffer(rewriter, loc, offs));
  if (bias)
    args.push_back(toBuffer(rewriter, loc, bias));
  Value outBuf = allocResult(rewriter, loc, resultType);
  args.push_back(
      collapseTo(rewriter, loc, outBuf, {resultType.getNumElements()}));
  chooseConfig(op, spec);
  launchGemmOp(rewriter, loc, cache, op, spec, args);
  rewriter.replaceOp(op, toTensor(rewriter, loc, outBuf));
  return success();
}

namespace {
/// scaled_mm (rank 2 or 3) -> one persistent GEMM kernel.
struct ScaledMmOpToGPU final : KernelPattern<ScaledMmOp> {
  using KernelPattern::KernelPattern;

  LogicalResult rewriteStatic(ScaledMmOp op,
                              PatternRewriter &rewriter) const override {
    // sm_100a: the tcgen05 kernel (TCGen05Gemm.cpp) or the simple kernels.
    if (cache.getTarget().chip == "sm_100a")
      return lowerScaledMmToTcgen05(rewriter, cache, op);
    if (cache.getTarget().chip.rfind("sm_90", 0) != 0)
      return rewriter.notifyMatchFailure(op, "GEMM kernels need sm_90a");
    auto lhsType = op.getLhs().getType();
    auto resultType = op.getResult().getType();
    int64_t rank = lhsType.getRank();
    GemmSpec spec;
    spec.kind = GemmKind::Dense;
    spec.batches = rank == 3 ? lhsType.getDimSize(0) : 1;
    spec.m = resultType.getDimSize(rank - 2);
    spec.n = resultType.getDimSize(rank - 1);
    bool tl = op.getTransposeLhs(), tr = op.getTransposeRhs();
    spec.k = lhsType.getDimSize(tl ? rank - 2 : rank - 1);
    spec.a = {spec.m, spec.k, !tl,
              op.getLhsScaleLayout() == ScaleLayout::Blocked};
    spec.b = {spec.n, spec.k, tr,
              op.getRhsScaleLayout() == ScaleLayout::Blocked};
    if (rank == 3 && (spec.a.blockedScales || spec.b.blockedScales))
      return rewriter.notifyMatchFailure(op, "blocked scales need rank 2");
    spec.aBatched = spec.bBatched = rank == 3;
    spec.aType = lhsType.getElementType();
    spec.bType = op.getRhs().getType().getElementType();
    spec.outType = resultType.getElementType();
    if (op.getBias())
      spec.biasType = op.getBias().getType().getElementType();
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
    if (cache.getTarget().chip.rfind("sm_90", 0) != 0)
      return rewriter.notifyMatchFailure(op, "GEMM kernels need sm_90a");
    if (op.getLhsScaleLayout() != ScaleLayout::RowMajor ||
        op.getRhsScaleLayout() != ScaleLayout::RowMajor)
      return rewriter.notifyMatchFailure(
          op, "grouped blocked scale layouts are not supported on the GPU");
    auto lhsType = op.getLhs().getType();
    auto rhsType = op.getRhs().getType();
    auto resultType = op.getResult().getType();
    bool tl = op.getTransposeLhs(), tr = op.getTransposeRhs();
    GemmSpec spec;
    spec.batches = cast<RankedTensorType>(op.getOffs().getType()).getDimSize(0);
    if (!op.isTwoDTwoD()) {
      spec.kind = GemmKind::Grouped2d3d;
      spec.m = resultType.getDimSize(0);
      spec.n = resultType.getDimSize(1);
      spec.k = lhsType.getDimSize(tl ? 0 : 1);
      spec.bBatched = true;
    } else {
      // result[g] (N, K) = lhs (N, tokens) x rhs (tokens, K) over group g.
      spec.kind = GemmKind::Grouped2d2d;
      spec.m = resultType.getDimSize(1);
      spec.n = resultType.getDimSize(2);
      spec.k = lhsType.getDimSize(tl ? 0 : 1);
    }
    spec.a = {spec.m, spec.k, !tl, false};
    spec.b = {spec.n, spec.k, tr, false};
    spec.aType = lhsType.getElementType();
    spec.bType = rhsType.getElementType();
    spec.outType = resultType.getElementType();
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
}
