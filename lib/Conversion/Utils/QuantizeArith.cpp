//===- QuantizeArith.cpp - MX quantization arithmetic -----------*- C++ -*-===//
//
// Implements the shared scale-byte, reciprocal, cast, decode and blocked
// offset and position arithmetic of QuantizeArith.h (moved here from the CPU
// lowering, unchanged). docs/numerics.md explains why each step is exact.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Conversion/Utils/QuantizeArith.h"

#include <cmath>

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::lowering;

/// The e8m0 scale byte (SPEC §2.2-2.5) of the fp32 block amax `amax`
/// (>= +0.0 or NaN) for element format `fmt`. Returns an i32 in [0, 255].
Value lowering::computeScaleByte(Bits &bb, Value amax, ScaleMode mode,
                                 const ElementFormat &fmt) {
  Value c255 = bb.c(255), c0 = bb.c(0);
  if (mode == ScaleMode::Rceil) {
    // descale = fl32(amax * fl32(1/max)), then round up to a power of two
    // (PTX cvt.rp.ue8m0: no saturation, NaN/Inf -> 255).
    Value descale =
        arith::MulFOp::create(bb.b, amax, bb.cf(1.0f / fmt.maxValue));
    Value d = bb.f32Bits(descale);
    Value e = bb.band(bb.shr(d, bb.c(23)), c255);
    Value m = bb.band(d, bb.c(0x7FFFFF));
    // Byte 0 is 2^-127 = fp32 bits 0x00400000, so a subnormal descale rounds
    // up only when it is above that.
    Value up = bb.select(bb.eq(e, c0), bb.ugt(m, bb.c(0x400000)), bb.ne(m, c0));
    return bb.select(bb.eq(e, c255), c255, bb.add(e, bb.zext(up)));
  }
  Value bits = bb.f32Bits(amax);
  Value e = bb.band(bb.shr(bits, bb.c(23)), c255);
  Value nonFinite = bb.eq(e, c255);
  Value p = e;
  if (mode == ScaleMode::Ceil) {
    Value m = bb.band(bits, bb.c(0x7FFFFF));
    p = bb.add(e, bb.zext(bb.ne(m, c0)));
  } else if (mode == ScaleMode::Even) {
    // Round amax half-up to the element's mantissa width, drop the mantissa;
    // a finite amax may round up to Inf (byte 255).
    int64_t half = int64_t(1) << (23 - fmt.mantissaBits - 1);
    Value rounded = bb.add(bits, bb.c(half));
    p = bb.band(bb.shr(rounded, bb.c(23)), c255);
    nonFinite = bb.lor(nonFinite, bb.eq(p, c255));
  }
  // byte = clamp(p - 127 - emax, -127, 128) + 127 = clamp(p - emax, 0, 255).
  Value byte = bb.mins(bb.maxs(bb.sub(p, bb.c(fmt.emaxPow2)), c0), c255);
  return bb.select(nonFinite, c255, byte);
}

/// 2^(127 - byte) as an f32 (SPEC §2.1.1) for byte in [0, 254]: bits
/// `(254 - byte) << 23`, or the subnormal 2^-127 = 0x00400000 for byte 254.
/// Byte 255 gives a meaningless value; callers select NaN for it.
Value lowering::computeReciprocal(Bits &bb, Value byte) {
  Value r = bb.sub(bb.c(254), byte);
  Value bits =
      bb.select(bb.eq(r, bb.c(0)), bb.c(0x00400000), bb.shl(r, bb.c(23)));
  return bb.f32FromBits(bits);
}

/// fp32 `y` -> fp8 byte of format `fmt` (returned as i32 in [0, 255]):
/// round to nearest even, saturate finite and infinite overflow to ±max
/// (SATFINITE), keep subnormals and the sign of zero, NaN -> 0x7F.
Value lowering::encodeElement(Bits &bb, Value y, const ElementFormat &fmt) {
  Value bits = bb.f32Bits(y);
  Value sign = bb.band(bb.shr(bits, bb.c(24)), bb.c(0x80));
  Value a = bb.band(bits, bb.c(0x7FFFFFFF));
  Value isNaN = bb.ugt(a, bb.c(0x7F800000));

  // Normal results: round the 23-bit mantissa to `mantissaBits` (the carry
  // may propagate into the exponent, which is what RNE wants), re-bias, and
  // saturate. Infinity lands far above maxCode and saturates too.
  int64_t drop = 23 - fmt.mantissaBits;
  Value lsb = bb.band(bb.shr(a, bb.c(drop)), bb.c(1));
  Value rounded = bb.add(bb.add(a, bb.c((int64_t(1) << (drop - 1)) - 1)), lsb);
  Value normal = bb.sub(bb.shr(rounded, bb.c(drop)),
                        bb.c((127 - fmt.bias) << fmt.mantissaBits));
  normal = bb.mins(normal, bb.c(fmt.maxCode));

  // Subnormal results (|y| < 2^(1-bias)): the code is the magnitude in units
  // of 2^(1-bias-mantissaBits), rounded to nearest even. The full fp32
  // significand `sig` has units 2^(max(e,1)-150).
  Value e = bb.shr(a, bb.c(23));
  Value sig = bb.bor(bb.band(a, bb.c(0x7FFFFF)),
                     bb.select(bb.eq(e, bb.c(0)), bb.c(0), bb.c(0x800000)));
  Value eEff = bb.maxs(e, bb.c(1));
  Value shift = bb.sub(bb.c(151 - fmt.bias - fmt.mantissaBits), eEff);
  // The shift is >= 21 wherever this path is selected; clamping keeps every
  // shift amount in [1, 31] so that no lane computes a poison value.
  shift = bb.mins(bb.maxs(shift, bb.c(1)), bb.c(31));
  Value q = bb.shr(sig, shift);
  Value rem = bb.band(sig, bb.sub(bb.shl(bb.c(1), shift), bb.c(1)));
  Value half = bb.shl(bb.c(1), bb.sub(shift, bb.c(1)));
  Value roundUp =
      bb.lor(bb.ugt(rem, half),
             bb.land(bb.eq(rem, half), bb.eq(bb.band(q, bb.c(1)), bb.c(1))));
  Value sub = bb.add(q, bb.zext(roundUp));

  int64_t minNormalBits = (127 + 1 - fmt.bias) << 23;
  Value mag = bb.select(bb.ult(a, bb.c(minNormalBits)), sub, normal);
  return bb.select(isNaN, bb.c(0x7F), bb.bor(sign, mag));
}

/// fp8 byte `byte` (i32 in [0, 255]) of format `fmt` -> its exact f32 value.
Value lowering::decodeElement(Bits &bb, Value byte, const ElementFormat &fmt) {
  int64_t expBits = 7 - fmt.mantissaBits;
  int64_t mantMask = (int64_t(1) << fmt.mantissaBits) - 1;
  int64_t expMask = (int64_t(1) << expBits) - 1;
  Value sign = bb.shl(bb.band(byte, bb.c(0x80)), bb.c(24));
  Value e = bb.band(bb.shr(byte, bb.c(fmt.mantissaBits)), bb.c(expMask));
  Value m = bb.band(byte, bb.c(mantMask));
  Value normalBits = bb.bor(bb.shl(bb.add(e, bb.c(127 - fmt.bias)), bb.c(23)),
                            bb.shl(m, bb.c(23 - fmt.mantissaBits)));
  // Subnormal: m * 2^(1-bias-mantissaBits); m is a small integer, so the
  // conversion and the power-of-two product are exact.
  Value subnormal = arith::MulFOp::create(
      bb.b, arith::UIToFPOp::create(bb.b, bb.b.getF32Type(), m),
      bb.cf(std::ldexp(1.0f, int(1 - fmt.bias - fmt.mantissaBits))));
  Value magBits =
      bb.select(bb.eq(e, bb.c(0)), bb.f32Bits(subnormal), normalBits);
  Value isNaN;
  if (fmt.ieeeSpecials) {
    Value top = bb.eq(e, bb.c(expMask));
    isNaN = bb.land(top, bb.ne(m, bb.c(0)));
    magBits = bb.select(top, bb.c(0x7F800000), magBits);
  } else {
    isNaN = bb.eq(bb.band(byte, bb.c(0x7F)), bb.c(0x7F));
  }
  Value bits = bb.select(isNaN, bb.c(0x7FC00000), bb.bor(magBits, sign));
  return bb.f32FromBits(bits);
}

/// 2^(byte - 127) as an f32 (SPEC §3): byte 0 -> 0x00400000 (2^-127, an fp32
/// subnormal), byte 255 -> NaN.
Value lowering::decodeScale(Bits &bb, Value byte) {
  Value bits =
      bb.select(bb.eq(byte, bb.c(0)), bb.c(0x00400000), bb.shl(byte, bb.c(23)));
  bits = bb.select(bb.eq(byte, bb.c(255)), bb.c(0x7FC00000), bits);
  return bb.f32FromBits(bits);
}

/// Position of entry (r, c) of a 2-D scale matrix with `numCols` columns in
/// the blocked layout of SPEC §4.1, as index values.
Value lowering::getBlockedOffset(Bits &bb, Value r, Value c, int64_t numCols) {
  return getBlockedOffset(bb, r, c, bb.cIdx(llvm::divideCeil(numCols, 4)));
}

/// Position of (r, c) in the blocked layout of a matrix with `colTiles`
/// 4-column tiles (SPEC §4.1): tile (r / 128, c / 4) of 512 bytes, in it
/// row r % 32 of 16 bytes, quarter (r % 128) / 32 of 4 bytes, byte c % 4.
Value lowering::getBlockedOffset(Bits &bb, Value r, Value c, Value colTiles) {
  Value tile = bb.add(bb.mul(bb.divu(r, bb.cIdx(128)), colTiles),
                      bb.divu(c, bb.cIdx(4)));
  Value inTile =
      bb.add(bb.add(bb.mul(bb.remu(r, bb.cIdx(32)), bb.cIdx(16)),
                    bb.mul(bb.divu(bb.remu(r, bb.cIdx(128)), bb.cIdx(32)),
                           bb.cIdx(4))),
             bb.remu(c, bb.cIdx(4)));
  return bb.add(bb.mul(tile, bb.cIdx(512)), inTile);
}

/// Byte `off` lies in tile off / 512 = (r / 128) * colTiles + c / 4; inside
/// the tile, byte (r % 32) * 16 + ((r % 128) / 32) * 4 + c % 4.
std::pair<Value, Value> lowering::getBlockedPosition(Bits &bb, Value off,
                                                     Value colTiles) {
  Value tile = bb.divu(off, bb.cIdx(512));
  Value inTile = bb.remu(off, bb.cIdx(512));
  Value r =
      bb.add(bb.add(bb.mul(bb.divu(tile, colTiles), bb.cIdx(128)),
                    bb.mul(bb.divu(bb.remu(inTile, bb.cIdx(16)), bb.cIdx(4)),
                           bb.cIdx(32))),
             bb.divu(inTile, bb.cIdx(16)));
  Value c = bb.add(bb.mul(bb.remu(tile, colTiles), bb.cIdx(4)),
                   bb.remu(inTile, bb.cIdx(4)));
  return {r, c};
}
