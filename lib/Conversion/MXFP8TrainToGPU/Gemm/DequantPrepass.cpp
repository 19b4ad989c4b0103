//===- DequantPrepass.cpp - MX operands dequantized into bf16 --*- C++ -*-===//
//
// The pre-pass kernels of the default GEMM (DequantPrepass.h). Per
// operand, `gemm_dequant_*` writes a zero-padded K-major bf16 buffer
// `batches x rowsPad x kPad`. One thread per 8 elements of a row for
// K-major data, grid-stride; MN-major data with rows a multiple of 16 goes
// through a shared-memory transpose tile of 32 K x 128 rows. e4m3 is
// placed by `prmt` as bf16 of 2^-120 times the value and multiplied
// exactly by 2^120 and 2^(s-127); blocks holding an e4m3 NaN code, and
// e5m2, go through the hardware f16 conversion, an f32 multiply and one
// rounding. A nonzero block whose scale byte is outside the exact range
// raises the flag; 2d-2d lays each token group out from a multiple of 64
// of the padded K and raises the flag for a group not aligned to 32.
// Without scales (`gemm_pack_*`) the kernel copies a bf16 / f16 operand
// into the same padded K-major layout: the items of the scaled kernel
// without its transpose tile, element loads where an item is cut by the
// end of K or of a token group (any K, any group bounds), no flag.
// `gemm_restore_*` walks the same form the other way (deferred fp8,
// DequantFusion.h): fp8 bytes from the exact bf16 values, before a
// fallback that runs.
//
//===----------------------------------------------------------------------===//

#include "DequantPrepass.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::gpu_lowering;
using gemm::OperandLayout;

std::string DequantSpec::getName() const {
  return llvm::formatv("gemm_{0}_{1}{2}_{3}_{4}x{5}x{6}_pad{7}x{8}{9}",
                       scaled() ? "dequant" : "pack", l.kMajor ? "k" : "mn",
                       l.blockedScales ? "b" : "", getTypeTag(dataType),
                       batches, l.rows, l.k, rowsPad, kPad,
                       groups ? llvm::formatv("_g{0}", groups).str()
                              : std::string())
      .str();
}

std::pair<int64_t, int64_t> gpu_lowering::getExactScaleRange(Type dataType) {
  // e4m3 values lie in [2^-9, 448], e5m2 in [2^-16, 57344]; bf16 reaches
  // down to 2^-133 and up to 2^128 (1 - 2^-9).
  if (isa<Float8E5M2Type>(dataType))
    return {10, 239};
  return {3, 246};
}

Value gpu_lowering::emitOutsideExactRange(KernelBuilder &kb, Type dataType,
                                          Value s) {
  auto [lo, hi] = getExactScaleRange(dataType);
  return arith::OrIOp::create(
      kb, arith::CmpIOp::create(kb, arith::CmpIPredicate::slt, s, kb.i32(lo)),
      arith::CmpIOp::create(kb, arith::CmpIPredicate::sgt, s, kb.i32(hi)));
}

Value gpu_lowering::emitLoadFlags(KernelBuilder &kb, ValueRange flags) {
  Value f = memref::LoadOp::create(kb, flags.front(), kb.idx(0));
  for (Value flag : flags.drop_front())
    f = arith::OrIOp::create(kb, f,
                             memref::LoadOp::create(kb, flag, kb.idx(0)));
  return f;
}

Value gpu_lowering::emitExactBF16(KernelBuilder &kb, Type f8Type, Value v,
                                  Value s, Value flag) {
  int64_t n = cast<VectorType>(v.getType()).getNumElements();
  if (n % 4 != 0) {
    // Whole words below: zero bytes after the n given ones (zeros never
    // raise the flag), the first n results kept.
    int64_t padded = llvm::alignTo(n, 4);
    SmallVector<int64_t> mask;
    for (int64_t j = 0; j < padded; ++j)
      mask.push_back(j < n ? j : n);
    auto one = VectorType::get({1}, kb.getI8Type());
    Value zeros = kb.splatBits(one, 0);
    Value wide = vector::ShuffleOp::create(kb, v, zeros, mask);
    Value bf = emitExactBF16(kb, f8Type, wide, s, flag);
    SmallVector<int64_t> head;
    for (int64_t j = 0; j < n; ++j)
      head.push_back(j);
    return vector::ShuffleOp::create(kb, bf, bf, head);
  }
  Type i32 = kb.getI32Type();
  auto setFlag = [&] {
    memref::StoreOp::create(kb, kb.i32(1), flag, kb.idx(0));
  };
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
    Value x = kb.convertFromF8(v, f8Type);
    Value y = arith::MulFOp::create(
        kb, x, vector::BroadcastOp::create(kb, f32V, factor));
    return arith::TruncFOp::create(kb, bf16V, y);
  };
  Value bf;
  if (isa<Float8E4M3FNType>(f8Type)) {
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
    Value x = kb.placeE4M3(v);
    x = arith::MulFOp::create(kb, x, kb.splatBits(bf16V, 247 << 7));
    Value fBits = arith::SelectOp::create(
        kb, isNaN, kb.i32(0x7FC0), arith::ShLIOp::create(kb, s, kb.i32(7)));
    Value f = kb.bitcastTo(
        kb.getBF16Type(),
        arith::TruncIOp::create(kb, kb.getI16Type(), fBits).getResult());
    scf::YieldOp::create(
        kb,
        arith::MulFOp::create(kb, x, vector::BroadcastOp::create(kb, bf16V, f))
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
  Value outside = emitOutsideExactRange(kb, f8Type, s);
  Value unsafe = arith::AndIOp::create(
      kb, arith::AndIOp::create(kb, nonzero, outside),
      arith::XOrIOp::create(kb, isNaN, arith::ConstantIntOp::create(kb, 1, 1)));
  kb.ifThen(unsafe, setFlag);
  return bf;
}

TokenGroup gpu_lowering::emitTokenGroup(KernelBuilder &kb, Value offs, Value g,
                                        Value start, Value padStart, int64_t k,
                                        Value flag) {
  auto c = [&](int64_t v) { return kb.idx(v); };
  Value raw = arith::IndexCastOp::create(kb, kb.getIndexType(),
                                         memref::LoadOp::create(kb, offs, g));
  Value atLeastStart = arith::MaxSIOp::create(kb, raw, start);
  Value end = arith::MinSIOp::create(kb, atLeastStart, c(k));
  Value len = arith::SubIOp::create(kb, end, start);
  if (flag) {
    Value nonEmpty =
        arith::CmpIOp::create(kb, arith::CmpIPredicate::ult, c(0), len);
    Value bounds = arith::OrIOp::create(kb, start, end);
    Value offBlock =
        arith::CmpIOp::create(kb, arith::CmpIPredicate::ne,
                              arith::RemUIOp::create(kb, bounds, c(32)), c(0));
    kb.ifThen(arith::AndIOp::create(kb, nonEmpty, offBlock),
              [&] { memref::StoreOp::create(kb, kb.i32(1), flag, c(0)); });
  }
  Value tiles =
      arith::DivUIOp::create(kb, arith::AddIOp::create(kb, len, c(63)), c(64));
  Value nextPad = arith::AddIOp::create(
      kb, padStart, arith::MulIOp::create(kb, tiles, c(64)));
  return {end, len, nextPad};
}

namespace {
/// The addressing of an operand and its padded form that the pre-pass and
/// the fp8 restore share: items, the 2d-2d group table (in dynamic shared
/// memory, built by thread 0), the source K of a padded K, and the scale
/// byte of an element.
class PaddedFormWalk {
public:
  /// The source K of padded K `pk`, whether it holds operand data, and how
  /// many operand elements follow it along K in its group (meaningful only
  /// where it holds data).
  struct Source {
    Value k, inside, avail;
  };
  /// Item i: (batch, row r, padded K pk) of its first element.
  struct Item {
    Value batch, r, pk;
  };

  /// Builds the group table of a 2d-2d form from `offs`, raising `flag`
  /// (if given) for a group off the 32-element blocks.
  PaddedFormWalk(KernelBuilder &kb, const DequantSpec &d, Value scales,
                 Value offs, Value flag)
      : kb(kb), d(d), l(d.l), scales(scales) {
    MLIRContext *ctx = kb.getContext();
    wgSpace = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
    if (d.sharedBytes())
      raw = gpu::DynamicSharedMemoryOp::create(
          kb, MemRefType::get({ShapedType::kDynamic}, kb.getI8Type(),
                              MemRefLayoutAttrInterface(), wgSpace));
    if (d.groups)
      buildGroupTable(offs, flag);
  }

  /// The dynamic shared memory (null without), its address space.
  Value raw;
  Attribute wgSpace;

  Source lookup(Value pk) {
    if (!d.groups)
      return {pk, ult(pk, c(l.k)), sub(c(l.k), pk)};
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
    Value inside = arith::AndIOp::create(kb, inGroups, ult(off, len));
    // A group of MX data starting off a 32-boundary is flagged by the
    // table; its items are not loaded (the vector loads would be
    // misaligned). Packed data is loaded by elements there.
    if (d.scaled())
      inside = arith::AndIOp::create(
          kb, inside,
          arith::CmpIOp::create(kb, arith::CmpIPredicate::eq, remu(start, 32),
                                c(0)));
    return {add(start, off), inside, sub(len, off)};
  }

  /// The scale byte (i32) of row r at source K k0.
  Value scaleByte(Value batch, Value r, Value k0) {
    int64_t blocks = l.k / 32;
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
        kb, kb.getI32Type(),
        kb.bitcastTo(kb.getI8Type(), memref::LoadOp::create(kb, scales, sOff)));
  }

  /// Item i of DequantSpec::vec elements: K fastest for K-major data, rows
  /// fastest for MN-major data.
  Item getItem(Value i) {
    int64_t chunks = d.kPad / d.vec();
    Value r, kc;
    if (l.kMajor) {
      kc = remu(i, chunks);
      r = remu(divu(i, chunks), d.rowsPad);
    } else {
      r = remu(i, d.rowsPad);
      kc = remu(divu(i, d.rowsPad), chunks);
    }
    return {divu(i, d.rowsPad * chunks), r, mul(kc, d.vec())};
  }

  /// Index arithmetic.
  Value c(int64_t v) { return kb.idx(v); }
  Value divu(Value x, int64_t y) { return arith::DivUIOp::create(kb, x, c(y)); }
  Value remu(Value x, int64_t y) { return arith::RemUIOp::create(kb, x, c(y)); }
  Value add(Value x, Value y) { return arith::AddIOp::create(kb, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(kb, x, y); }
  Value mul(Value x, int64_t y) { return arith::MulIOp::create(kb, x, c(y)); }
  Value ult(Value x, Value y) {
    return arith::CmpIOp::create(kb, arith::CmpIPredicate::ult, x, y);
  }

private:
  /// 2d-2d: the group table (padded end E_g, start_g, len_g) in shared
  /// memory, written by thread 0.
  void buildGroupTable(Value offs, Value flag) {
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
          TokenGroup group = emitTokenGroup(
              kb, offs, gi, start, loop.getRegionIterArgs()[1], l.k, flag);
          Value slot = mul(gi, 3);
          memref::StoreOp::create(kb, group.nextPad, table, slot);
          Value startSlot = add(slot, c(1));
          memref::StoreOp::create(kb, start, table, startSlot);
          Value lenSlot = add(slot, c(2));
          memref::StoreOp::create(kb, group.len, table, lenSlot);
          scf::YieldOp::create(kb, ValueRange{group.end, group.nextPad});
        });
    gpu::BarrierOp::create(kb);
  }

  KernelBuilder &kb;
  const DequantSpec &d;
  const OperandLayout &l;
  Value scales, table;
};
} // namespace

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
  Value data = args[ai++];
  Value scales = d.scaled() ? args[ai++] : Value();
  Value offs = d.groups ? args[ai++] : Value();
  Value out = args[ai++];
  Value flag = d.scaled() ? args[ai++] : Value();
  const OperandLayout &l = d.l;
  const int64_t vec = d.vec();
  PaddedFormWalk walk(kb, d, scales, offs, flag);
  auto c = [&](int64_t v) { return walk.c(v); };
  auto divu = [&](Value x, int64_t y) { return walk.divu(x, y); };
  auto remu = [&](Value x, int64_t y) { return walk.remu(x, y); };
  auto add = [&](Value x, Value y) { return walk.add(x, y); };
  auto mul = [&](Value x, int64_t y) { return walk.mul(x, y); };
  auto ult = [&](Value x, Value y) { return walk.ult(x, y); };
  auto lookup = [&](Value pk) { return walk.lookup(pk); };
  auto scaleByte = [&](Value batch, Value r, Value k0) {
    return walk.scaleByte(batch, r, k0);
  };
  auto getItem = [&](Value i) { return walk.getItem(i); };
  using Item = PaddedFormWalk::Item;
  using Source = PaddedFormWalk::Source;
  Value raw = walk.raw;
  Attribute wgSpace = walk.wgSpace;
  Type i32 = kb.getI32Type();
  // bf16 of the fp8 bytes `v` (vector<n x i8>) with scale byte `s`; sets
  // the flag where bf16 cannot hold them exactly.
  auto convert = [&](Value v, Value s) -> Value {
    return emitExactBF16(kb, d.dataType, v, s, flag);
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
      auto [k0, kIn, kAvail] = lookup(pk);
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
            kb, kb.bitcastTo(b16, kb.load(VectorType::get({16}, d.dataType),
                                          data, off, 16)));
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

  if (!d.scaled()) {
    // Packing: the `vec` elements of an item copied, zeros outside the
    // operand (past its rows, past K, past the item's token group). A
    // K-major item wholly inside and 16-byte aligned is one vector load;
    // other items load element by element.
    Type elemType = d.dataType;
    auto itemType = VectorType::get({vec}, elemType);
    int64_t elemBytes = elemType.getIntOrFloatBitWidth() / 8;
    kb.gridStrideLoop(kb.idx(d.numItems()), [&](Value i) {
      Item item = getItem(i);
      Source src = lookup(item.pk);
      Value r = item.r, kAvail = src.avail;
      Value inside = arith::AndIOp::create(kb, ult(r, c(l.rows)), src.inside);
      Value dataBase = mul(item.batch, l.getDataSize());
      auto offsetOf = [&](int64_t j) -> Value {
        Value kj = add(src.k, c(j));
        return add(dataBase,
                   l.kMajor ? add(mul(r, l.k), kj) : add(mul(kj, l.rows), r));
      };
      auto loadElements = [&]() -> Value {
        Value zero =
            arith::ConstantOp::create(kb, kb.getFloatAttr(elemType, 0.0));
        SmallVector<Value> elems;
        for (int64_t j = 0; j < vec; ++j) {
          Value ok = arith::AndIOp::create(kb, inside, ult(c(j), kAvail));
          auto ld = scf::IfOp::create(kb, TypeRange{elemType}, ok, true);
          OpBuilder::InsertionGuard g(kb);
          kb.setInsertionPointToStart(ld.thenBlock());
          scf::YieldOp::create(
              kb, memref::LoadOp::create(kb, data, offsetOf(j)).getResult());
          kb.setInsertionPointToStart(ld.elseBlock());
          scf::YieldOp::create(kb, zero);
          kb.setInsertionPointAfter(ld);
          elems.push_back(ld.getResult(0));
        }
        return vector::FromElementsOp::create(kb, itemType, elems);
      };
      Value v;
      if (l.kMajor) {
        Value off0 = offsetOf(0);
        Value whole = arith::AndIOp::create(
            kb,
            arith::AndIOp::create(
                kb, inside,
                arith::CmpIOp::create(kb, arith::CmpIPredicate::uge, kAvail,
                                      c(vec))),
            arith::CmpIOp::create(kb, arith::CmpIPredicate::eq, remu(off0, vec),
                                  c(0)));
        auto ld = scf::IfOp::create(kb, TypeRange{itemType}, whole, true);
        OpBuilder::InsertionGuard g(kb);
        kb.setInsertionPointToStart(ld.thenBlock());
        scf::YieldOp::create(kb,
                             kb.load(itemType, data, off0, vec * elemBytes));
        kb.setInsertionPointToStart(ld.elseBlock());
        scf::YieldOp::create(kb, loadElements());
        kb.setInsertionPointAfter(ld);
        v = ld.getResult(0);
      } else {
        v = loadElements();
      }
      Value outOff =
          add(mul(add(mul(item.batch, d.rowsPad), r), d.kPad), item.pk);
      kb.store(v, out, outOff, 16);
    });
    return;
  }

  auto bytesV = VectorType::get({vec}, kb.getI8Type());
  kb.gridStrideLoop(kb.idx(d.numItems()), [&](Value i) {
    auto [batch, r, pk] = getItem(i);
    auto [k0, kIn, kAvail] = lookup(pk);
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
        v = kb.bitcastTo(bytesV, kb.load(VectorType::get({vec}, d.dataType),
                                         data, off, vec));
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

/// Writes the fp8 restore kernel body (launchFp8Restore): returns unless one
/// of the `numFlags` flag words is raised; otherwise, over the pre-pass's
/// items (without its transpose tile), every element of a block the bf16
/// form holds exactly (inside the operand, scale byte s in
/// getExactScaleRange; 2d-2d, all 32 values inside a group that starts at a
/// multiple of 32) becomes the fp8 value bf16 * 2^(127 - s): an exact
/// product (f32 factor bits (254 - s) << 23) and an exact conversion.
static void emitRestoreKernel(KernelBuilder &kb, const DequantSpec &d,
                              ValueRange args, unsigned numFlags) {
  assert(d.scaled() && (!d.groups || !d.l.kMajor) &&
         "fp8 operands; 2d-2d forms MN-major (one block per item)");
  unsigned ai = 0;
  Value padded = args[ai++];
  Value scales = args[ai++];
  Value offs = d.groups ? args[ai++] : Value();
  ValueRange flags = args.slice(ai, numFlags);
  Value data = args[ai + numFlags];
  const OperandLayout &l = d.l;
  const int64_t vec = d.vec();
  PaddedFormWalk walk(kb, d, scales, offs, Value());
  auto c = [&](int64_t v) { return walk.c(v); };
  auto add = [&](Value x, Value y) { return walk.add(x, y); };
  auto mul = [&](Value x, int64_t y) { return walk.mul(x, y); };
  auto bf16V = VectorType::get({vec}, kb.getBF16Type());
  auto f32V = VectorType::get({vec}, kb.getF32Type());
  auto f8V = VectorType::get({vec}, d.dataType);
  Value fallbackRuns = arith::CmpIOp::create(
      kb, arith::CmpIPredicate::ne, emitLoadFlags(kb, flags), kb.i32(0));
  kb.ifThen(fallbackRuns, [&] {
    int64_t items = d.batches * d.rowsPad * (d.kPad / vec);
    kb.gridStrideLoop(c(items), [&](Value i) {
      auto [batch, r, pk] = walk.getItem(i);
      auto [k0, kIn, kAvail] = walk.lookup(pk);
      Value inside = arith::AndIOp::create(kb, walk.ult(r, c(l.rows)), kIn);
      if (d.groups)
        inside = arith::AndIOp::create(
            kb, inside,
            arith::CmpIOp::create(kb, arith::CmpIPredicate::uge, kAvail,
                                  c(32)));
      kb.ifThen(inside, [&] {
        Value s = walk.scaleByte(batch, r, k0);
        Value exact =
            arith::XOrIOp::create(kb, emitOutsideExactRange(kb, d.dataType, s),
                                  arith::ConstantIntOp::create(kb, 1, 1));
        kb.ifThen(exact, [&] {
          Value off = add(mul(add(mul(batch, d.rowsPad), r), d.kPad), pk);
          Value x =
              arith::ExtFOp::create(kb, f32V, kb.load(bf16V, padded, off, 16));
          Value factorBits = arith::ShLIOp::create(
              kb, arith::SubIOp::create(kb, kb.i32(254), s), kb.i32(23));
          Value factor = kb.bitcastTo(kb.getF32Type(), factorBits);
          Value y = arith::MulFOp::create(
              kb, x, vector::BroadcastOp::create(kb, f32V, factor));
          Value q = kb.bitcastTo(f8V, kb.convertToF8(y, d.dataType));
          Value dataBase = mul(batch, l.getDataSize());
          if (l.kMajor) {
            kb.store(q, data, add(dataBase, add(mul(r, l.k), k0)), vec);
            return;
          }
          for (int64_t j = 0; j < vec; ++j)
            memref::StoreOp::create(
                kb, vector::ExtractOp::create(kb, q, j), data,
                add(dataBase, add(mul(add(k0, c(j)), l.rows), r)));
        });
      });
    });
  });
}

void gpu_lowering::launchFp8Restore(RewriterBase &rewriter, Location loc,
                                    const KernelCache &cache,
                                    const DequantSpec &d, Value padded,
                                    Value scales, Value offs, ValueRange flags,
                                    Value data) {
  // One CTA per SM: the kernel nearly always returns at once, and its
  // launch then costs what its CTAs cost (measured on the H200: 9 us with
  // 64 CTAs per SM, as many as the fallback GEMM's 4 us with one).
  int64_t items = d.batches * d.rowsPad * (d.kPad / d.vec());
  int64_t grid =
      std::min<int64_t>(cache.getGridSize(items), cache.getTarget().numSMs);
  SmallVector<Value> kargs = {padded, scales};
  if (d.groups)
    kargs.push_back(offs);
  llvm::append_range(kargs, flags);
  int64_t numInputs = kargs.size();
  kargs.push_back(data);
  SmallVector<Type> types =
      llvm::map_to_vector(kargs, [](Value v) { return v.getType(); });
  // gemm_dequant_* -> gemm_restore_*, and the number of flag words.
  std::string name = d.getName();
  name.replace(0, StringRef("gemm_dequant").size(), "gemm_restore");
  name += llvm::formatv("_f{0}", flags.size()).str();
  auto numFlags = static_cast<unsigned>(flags.size());
  gpu::GPUFuncOp kernel =
      cache.getOrCreate(rewriter, name, types, numInputs, {},
                        [&](KernelBuilder &kb, ValueRange kargs, ValueRange) {
                          emitRestoreKernel(kb, d, kargs, numFlags);
                        });
  auto c = [&](int64_t v) {
    return arith::ConstantIndexOp::create(rewriter, loc, v).getResult();
  };
  // 2d-2d: the group table (no transpose tile).
  Value shared = d.groups
                     ? arith::ConstantIntOp::create(
                           rewriter, loc, llvm::alignTo(24 * d.groups, 16), 32)
                           .getResult()
                     : Value();
  gpu::LaunchFuncOp::create(
      rewriter, loc, kernel, gpu::KernelDim3{c(grid), c(1), c(1)},
      gpu::KernelDim3{c(kThreadsPerCTA), c(1), c(1)}, shared, kargs);
}

void gpu_lowering::launchDequantPrepass(RewriterBase &rewriter, Location loc,
                                        const KernelCache &cache,
                                        const DequantSpec &d,
                                        int64_t maxCTAsPerSM, Value data,
                                        Value scales, Value offs, Value flag,
                                        Value padded) {
  const GPUTargetInfo &target = cache.getTarget();
  // One CTA per tile (transpose) or per 256 items.
  int64_t grid = d.transpose() ? std::max<int64_t>(d.numItems(), 1)
                               : cache.getGridSize(d.numItems());
  if (maxCTAsPerSM > 0)
    grid = std::min<int64_t>(grid, maxCTAsPerSM * target.numSMs);
  assert(cast<MemRefType>(padded.getType()).getNumElements() ==
             d.batches * d.rowsPad * d.kPad &&
         "the padded buffer holds batches x rowsPad x kPad elements");
  SmallVector<Value> kargs = {data};
  if (d.scaled())
    kargs.push_back(scales);
  if (d.groups)
    kargs.push_back(offs);
  int64_t numInputs = kargs.size();
  kargs.push_back(padded);
  if (d.scaled())
    kargs.push_back(flag);
  SmallVector<Type> types =
      llvm::map_to_vector(kargs, [](Value v) { return v.getType(); });
  gpu::GPUFuncOp kernel =
      cache.getOrCreate(rewriter, d.getName(), types, numInputs, {},
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
      rewriter, loc, kernel, gpu::KernelDim3{c(grid), c(1), c(1)},
      gpu::KernelDim3{c(kThreadsPerCTA), c(1), c(1)}, shared, kargs);
}
