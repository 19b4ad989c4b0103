//===- Float8Arith.cpp - Float8 (tensorwise / rowwise) arithmetic ---------===//
//
// SPEC-float8 §2.3-§2.7 as integer and IEEE f32 `arith` ops. The only float
// operations are those whose IEEE result is the specified one: the division
// `max / amax` (correctly rounded f32 equals torchao's f64 division rounded
// to f32, §2.3), the product `x * s` and the reciprocal `1 / s`.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Conversion/Utils/Float8Arith.h"

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::lowering;

/// R(n) of SPEC-float8 §2.4 for the i32 `n` (= E + 1, in [-125, 128]): how
/// many ulps below 2^n a scale still rounds up. The table is symmetric in
/// octaves: 0 on [-1, 2], then 1, 2, 5, 11, 22, 44 on the ranges
/// [-3, 4], [-7, 8], [-15, 16], [-31, 32], [-63, 64], [-125, 128] outside the
/// previous one.
static Value getPow2RoundUpUlps(Bits &bb, Value n) {
  static constexpr int64_t kRanges[][3] = {{-63, 64, 22}, {-31, 32, 11},
                                           {-15, 16, 5},  {-7, 8, 2},
                                           {-3, 4, 1},    {-1, 2, 0}};
  Value r = bb.c(44);
  for (const auto &[lo, hi, ulps] : kRanges) {
    Value inside = bb.land(bb.cmp(arith::CmpIPredicate::sge, n, bb.c(lo)),
                           bb.cmp(arith::CmpIPredicate::sle, n, bb.c(hi)));
    r = bb.select(inside, bb.c(ulps), r);
  }
  return r;
}

Value lowering::roundFloat8ScaleToPow2(Bits &bb, Value s) {
  Value bits = bb.f32Bits(s);
  Value e = bb.band(bb.shr(bits, bb.c(23)), bb.c(0xFF));
  Value f = bb.band(bits, bb.c(0x7FFFFF));
  // n = E + 1 = e - 126.
  Value n = bb.sub(e, bb.c(126));
  Value threshold = bb.sub(bb.c(1 << 23), getPow2RoundUpUlps(bb, n));
  Value up = bb.zext(bb.cmp(arith::CmpIPredicate::uge, f, threshold));
  // 2^E or 2^(E+1); e + 1 = 255 is the bit pattern of +Inf.
  Value pow2 = bb.shl(bb.add(e, up), bb.c(23));
  // Zero (and subnormals, unreachable), +Inf and NaN keep their bits; scales
  // are never negative.
  Value special = bb.lor(bb.eq(e, bb.c(0)), bb.eq(e, bb.c(0xFF)));
  return bb.f32FromBits(bb.select(special, bits, pow2));
}

Value lowering::computeFloat8Scale(Bits &bb, Value amax,
                                   const ElementFormat &fmt, bool pow2) {
  Value bits = bb.f32Bits(amax);
  // amax is +0.0 or larger, or NaN: an unsigned compare of the bits is an
  // ordered compare, and every NaN pattern lies above the threshold.
  Value belowEps =
      bb.cmp(arith::CmpIPredicate::ule, bits, bb.c(kFloat8EpsAmaxBits));
  Value quotient = arith::DivFOp::create(bb.b, bb.cf(fmt.maxValue), amax);
  Value s = bb.select(
      belowEps, bb.f32FromBits(bb.c(getFloat8EpsScaleBits(fmt))), quotient);
  return pow2 ? roundFloat8ScaleToPow2(bb, s) : s;
}

Value lowering::castToFloat8(Bits &bb, Value x, Value s,
                             const ElementFormat &fmt) {
  // encodeElement rounds to nearest even with SATFINITE saturation, which
  // equals torch's clamp to ±max followed by the RNE cast (SPEC-float8
  // §2.5), and maps NaN to 0x7F.
  Value y = arith::MulFOp::create(bb.b, x, s);
  return encodeElement(bb, y, fmt);
}

Value lowering::computeFloat8InverseScale(Bits &bb, Value s) {
  return arith::DivFOp::create(bb.b, bb.cf(1.0f), s);
}
