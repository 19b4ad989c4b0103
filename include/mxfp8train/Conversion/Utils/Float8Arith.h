//===- Float8Arith.h - Float8 (tensorwise / rowwise) arithmetic -*- C++ -*-===//
//
// The bit-exact scalar arithmetic of torchao's Float8 casts (SPEC-float8 §2),
// emitted as `arith` ops: the f32 scale of a scaling-group amax, torchao's
// power-of-2 rounding of it (§2.4, with integers), the data cast, and the
// GEMM's reciprocal scale. The element encoding and decoding are shared with
// MX (QuantizeArith.h): the Float8 cast is the same RNE satfinite cast.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_CONVERSION_UTILS_FLOAT8ARITH_H
#define MXFP8TRAIN_CONVERSION_UTILS_FLOAT8ARITH_H

#include "mxfp8train/Conversion/Utils/QuantizeArith.h"

namespace mlir {
namespace mxfp8train {
namespace lowering {

/// f32 bits of the scale of an amax below 1e-12 (SPEC-float8 §2.3):
/// RN_f32(max / 1e-12), 4.48e14 for e4m3 and 5.7344e16 for e5m2.
inline int64_t getFloat8EpsScaleBits(const ElementFormat &fmt) {
  return fmt.ieeeSpecials ? 0x5B4BBA10 : 0x57CBBA10;
}

/// The largest f32 below 1e-12 (9.99999996e-13): amax bits at or below it
/// take the EPS scale.
inline constexpr int64_t kFloat8EpsAmaxBits = 0x2B8CBCCC;

/// torchao's `round_scales_to_power_of_2` of an f32 scale `s`:
/// `2^floor(RN_f32(log2 s))` (SPEC-float8 §2.4), by the integer rule
/// `(f >= 2^23 - R(E+1)) ? 2^(E+1) : 2^E` for a positive normal `s`; 0,
/// +Inf and NaN are kept; 2^128 becomes +Inf.
Value roundFloat8ScaleToPow2(Bits &bb, Value s);

/// The f32 scale `s` (the multiplier, fp8 = x * s) of the f32 group amax
/// `amax` (>= +0.0 or NaN) for element format `fmt` (SPEC-float8 §2.3):
/// NaN -> NaN, amax < 1e-12 -> the EPS scale, else `RN_f32(max / amax)`
/// (+Inf -> 0); with `pow2`, rounded by roundFloat8ScaleToPow2.
Value computeFloat8Scale(Bits &bb, Value amax, const ElementFormat &fmt,
                         bool pow2);

/// The fp8 byte (i32 in [0, 255]) of f32 `x` with scale `s`:
/// `RNE(clamp(RN_f32(x * s), -max, max))`, subnormals and the sign of zero
/// kept, NaN -> 0x7F (SPEC-float8 §2.5, §2.7).
Value castToFloat8(Bits &bb, Value x, Value s, const ElementFormat &fmt);

/// `RN_f32(1 / s)`, the factor a Float8 GEMM applies (SPEC-float8 §2.6):
/// 0 -> +Inf, NaN -> NaN, exact for power-of-2 scales.
Value computeFloat8InverseScale(Bits &bb, Value s);

} // namespace lowering
} // namespace mxfp8train
} // namespace mlir

#endif // MXFP8TRAIN_CONVERSION_UTILS_FLOAT8ARITH_H
