//===- Tcgen05.cpp - sm_100a block-scaled MMA encodings ---------*- C++ -*-===//
//
// Implements Tcgen05.h. The bit positions follow the PTX ISA 8.8/9.x tables
// named in the header; the scale-factor placement is derived from the
// blocked layout (GemmTiling.h, QuantizeArith.h) and the `tcgen05.cp`
// shape, not restated.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Conversion/Utils/Tcgen05.h"
#include "mxfp8train/Conversion/Utils/GemmTiling.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::tcgen05;

static bool is8Bit(ElementFormat f) {
  return f == ElementFormat::E4M3 || f == ElementFormat::E5M2;
}

bool tcgen05::isValidMmaShape(const MmaOperands &mma, int64_t ctaGroup) {
  if (ctaGroup != 1 && ctaGroup != 2)
    return false;
  // N's step: 8 (one CTA) or 16 (a pair), doubled for an MN-major 8-bit B.
  int64_t step = 8 * ctaGroup;
  if (mma.bMajor == Major::MN && is8Bit(mma.b))
    step *= 2;
  return mma.m == 128 * ctaGroup && mma.n % step == 0 && mma.n >= step &&
         mma.n <= 256;
}

/// MN-major operands exist for the 8-bit formats only.
static bool hasValidMajors(const MmaOperands &mma) {
  return (mma.aMajor == Major::K || is8Bit(mma.a)) &&
         (mma.bMajor == Major::K || is8Bit(mma.b));
}

bool tcgen05::isValidBlockScaledMma(const BlockScaledMma &mma,
                                    int64_t ctaGroup) {
  return mma.scale == ScaleFormat::UE8M0 && hasValidMajors(mma) &&
         isValidMmaShape(mma, ctaGroup);
}

/// The descriptor bits that kind::mxf8f6f4 and kind::f8f6f4 share: 7-9 A
/// format, 10-12 B format, 13/14 negate A/B, 15/16 A/B MN-major, 17-22
/// N >> 3.
static uint32_t getOperandBits(const MmaOperands &mma) {
  uint32_t d = static_cast<uint32_t>(mma.a) << 7;
  d |= static_cast<uint32_t>(mma.b) << 10;
  d |= uint32_t(mma.negateA) << 13;
  d |= uint32_t(mma.negateB) << 14;
  d |= static_cast<uint32_t>(mma.aMajor) << 15;
  d |= static_cast<uint32_t>(mma.bMajor) << 16;
  d |= (static_cast<uint32_t>(mma.n >> 3) & 0x3Fu) << 17;
  return d;
}

uint32_t tcgen05::getBlockScaledInstrDesc(const BlockScaledMma &mma) {
  uint32_t d = getOperandBits(mma);
  d |= (mma.sfbId & 0x3u) << 4;
  d |= static_cast<uint32_t>(mma.scale) << 23;
  d |= (static_cast<uint32_t>(mma.m >> 7) & 0x3u) << 27;
  d |= (mma.sfaId & 0x3u) << 29;
  return d;
}

bool tcgen05::isValidF8F6F4Mma(const F8F6F4Mma &mma, int64_t ctaGroup) {
  return hasValidMajors(mma) && isValidMmaShape(mma, ctaGroup);
}

uint32_t tcgen05::getF8F6F4InstrDesc(const F8F6F4Mma &mma) {
  // D format 1: f32 accumulators.
  uint32_t d = getOperandBits(mma) | 1u << 4;
  d |= (static_cast<uint32_t>(mma.m >> 4) & 0x1Fu) << 24;
  return d;
}

std::optional<ElementFormat> tcgen05::getElementFormat(Type type) {
  if (isa<Float8E4M3FNType>(type))
    return ElementFormat::E4M3;
  if (isa<Float8E5M2Type>(type))
    return ElementFormat::E5M2;
  if (isa<Float6E2M3FNType>(type))
    return ElementFormat::E2M3;
  if (isa<Float6E3M2FNType>(type))
    return ElementFormat::E3M2;
  if (isa<Float4E2M1FNType>(type))
    return ElementFormat::E2M1;
  return std::nullopt;
}

/// The 14-bit "matrix-descriptor-encode" of a byte quantity.
static uint64_t encode14(uint64_t x) { return (x & 0x3FFFF) >> 4; }

uint64_t tcgen05::getSmemDescriptor(const SmemDescriptor &d) {
  uint64_t desc = encode14(d.address);
  desc |= encode14(d.leadingByteOffset) << 16;
  desc |= encode14(d.strideByteOffset) << 32;
  desc |= uint64_t(1) << 46;
  desc |= (d.baseOffset & 0x7) << 49;
  desc |= uint64_t(d.leadingAbsolute) << 52;
  desc |= static_cast<uint64_t>(d.swizzle) << 61;
  return desc;
}

uint64_t tcgen05::getKMajorSwizzle128Descriptor(uint64_t address) {
  SmemDescriptor d;
  d.address = address;
  d.leadingByteOffset = 16;
  d.strideByteOffset = 1024;
  d.swizzle = SmemSwizzle::B128;
  return getSmemDescriptor(d);
}

uint64_t tcgen05::getMNMajorSwizzle128Descriptor(uint64_t address,
                                                 uint64_t atomColumnBytes) {
  SmemDescriptor d;
  d.address = address;
  d.leadingByteOffset = atomColumnBytes;
  d.strideByteOffset = 1024;
  d.swizzle = SmemSwizzle::B128;
  return getSmemDescriptor(d);
}

uint64_t tcgen05::getScaleChunkDescriptor(uint64_t address) {
  SmemDescriptor d;
  d.address = address;
  d.leadingByteOffset = 0;
  d.strideByteOffset = 128;
  d.swizzle = SmemSwizzle::None;
  return getSmemDescriptor(d);
}

Value tcgen05::emitSmemDescriptor(ImplicitLocOpBuilder &b, Value address,
                                  uint64_t bits) {
  // The same encode14 as getSmemDescriptor, on an i64.
  Type i64 = b.getI64Type();
  auto c = [&](uint64_t v) {
    return arith::ConstantIntOp::create(b, i64, static_cast<int64_t>(v));
  };
  Value addr = arith::IndexCastUIOp::create(b, i64, address);
  Value field = arith::ShRUIOp::create(
      b, arith::AndIOp::create(b, addr, c(0x3FFFF)), c(4));
  return arith::OrIOp::create(b, field, c(bits));
}

Value tcgen05::emitTmemAddress(ImplicitLocOpBuilder &b, Value base,
                               uint32_t lane, uint32_t column) {
  uint32_t offset = getTmemAddress(lane, column);
  if (offset == 0)
    return base;
  return arith::AddIOp::create(
      b, base,
      arith::ConstantIntOp::create(b, static_cast<int64_t>(offset), 32));
}

int64_t tcgen05::getTmemAllocColumns(int64_t used) {
  if (used > kTmemColumns)
    return 0;
  int64_t columns = 32;
  while (columns < used)
    columns *= 2;
  return columns;
}

TmemLayout tcgen05::getTmemLayout(int64_t n, int64_t accStages,
                                  int64_t sfStages) {
  TmemLayout l;
  l.n = n;
  l.accStages = accStages;
  // One 128-row chunk of A (M = 128); B's scales in 128-column chunks.
  l.sfaColumns = 4;
  l.sfbColumns = 4 * llvm::divideCeil(n, 128);
  l.sfStages = sfStages;
  return l;
}

int64_t tcgen05::getScaleChunkOffset(int64_t rowBlock, int64_t kChunk,
                                     int64_t numKBlocks) {
  return gemm::getBlockedOffset(128 * rowBlock, 4 * kChunk, numKBlocks);
}

Value tcgen05::emitScaleChunkOffset(lowering::Bits &bb, Value rowBlock,
                                    Value kChunk, Value colTiles) {
  Value row = bb.mul(rowBlock, bb.cIdx(128));
  Value col = bb.mul(kChunk, bb.cIdx(4));
  return lowering::getBlockedOffset(bb, row, col, colTiles);
}

TmemByte tcgen05::getCopy32x128bDestination(int64_t offset) {
  TmemByte t;
  t.lane = offset / 16;
  t.column = offset % 16 / 4;
  t.byte = offset % 4;
  return t;
}

TmemByte tcgen05::getScaleTmemByte(int64_t row, int64_t kBlock) {
  TmemByte t =
      getCopy32x128bDestination(gemm::getBlockedOffset(row % 128, kBlock, 4));
  t.column += 4 * (row / 128);
  return t;
}
