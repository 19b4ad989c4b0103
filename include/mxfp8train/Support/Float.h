//===- Float.h - host conversions of narrow float formats -------*- C++ -*-===//
//
// bf16 <-> f32 bit conversions used on the host side (mxfp8-run inputs and
// outputs), and f16 / fp8 / e8m0 encodings for programs without LLVM
// (mxfp8-launch).
// Standard C++ only. mxfp8-run rounds fp8 through llvm::APFloat; the encoders
// here give the same bits (RNE, saturating), which the mxfp8-launch tests
// check against mxfp8-run's inputs.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_SUPPORT_FLOAT_H
#define MXFP8TRAIN_SUPPORT_FLOAT_H

#include <cmath>
#include <cstdint>
#include <cstring>

namespace mlir::mxfp8train {

/// The bits of an f32.
inline uint32_t getFloatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}

/// The f32 with bits `u`.
inline float getFloatFromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}

/// f32 -> bf16 bit pattern, round to nearest even; NaN stays a quiet NaN with
/// its sign, infinities and subnormals are kept.
inline uint16_t convertFloatToBF16Bits(float f) {
  uint32_t u = getFloatBits(f);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u)
    return uint16_t((u >> 16) | 0x0040u);
  u += 0x7FFFu + ((u >> 16) & 1u);
  return uint16_t(u >> 16);
}

/// bf16 bit pattern -> f32 (exact).
inline float convertBF16BitsToFloat(uint16_t bits) {
  return getFloatFromBits(uint32_t(bits) << 16);
}

/// The bits without sign of a finite magnitude >= 0 in a binary format with
/// `mantissaBits` mantissa bits and exponent `bias`, rounded to nearest
/// even; the caller keeps `magnitude` below the format's overflow threshold.
inline uint32_t encodeMagnitudeNearestEven(double magnitude, int mantissaBits,
                                           int bias) {
  if (magnitude == 0.0)
    return 0;
  // magnitude = f * 2^e with f in [0.5, 1): the binade starts at 2^(e - 1).
  int e = 0;
  (void)std::frexp(magnitude, &e);
  int exponent = e - 1;
  int minNormalExponent = 1 - bias;
  if (exponent < minNormalExponent)
    exponent = minNormalExponent; // subnormals share the smallest quantum
  // Units of the last place, exact (power-of-two scaling of a double).
  double units = std::ldexp(magnitude, mantissaBits - exponent);
  double whole = std::floor(units);
  double fraction = units - whole;
  if (fraction > 0.5 || (fraction == 0.5 && std::fmod(whole, 2.0) != 0.0))
    whole += 1.0;
  // Biased exponent minus one, shifted, plus the units gives the encoding in
  // every case: subnormals (units < 2^m, exponent field 0), normals (units in
  // [2^m, 2^(m+1))) and a carry into the next binade (units == 2^(m+1)).
  return (uint32_t(exponent - minNormalExponent) << mantissaBits) +
         uint32_t(whole);
}

/// f64 -> fp8 bit pattern for a format with `mantissaBits` mantissa bits,
/// exponent `bias` and largest finite magnitude `maxFinite` (bit pattern
/// `maxBits`): rounds to nearest even after clamping to +-maxFinite (so it
/// saturates instead of overflowing), keeps the sign of zero and of values
/// that round to zero, and maps NaN to `nanBits` with the sign.
inline uint8_t convertDoubleToFloat8BitsSaturating(double value,
                                                   int mantissaBits, int bias,
                                                   double maxFinite,
                                                   uint8_t maxBits,
                                                   uint8_t nanBits) {
  uint8_t sign = std::signbit(value) ? 0x80 : 0x00;
  if (std::isnan(value))
    return uint8_t(sign | nanBits);
  double magnitude = std::fabs(value);
  if (magnitude >= maxFinite)
    return uint8_t(sign | maxBits);
  return uint8_t(sign |
                 encodeMagnitudeNearestEven(magnitude, mantissaBits, bias));
}

/// f64 -> IEEE f16 bits, round to nearest even (once, from the f64); values
/// from 65520 (the midpoint above the largest finite, 65504) overflow to
/// infinity, NaN becomes the quiet NaN 0x7E00 with the sign. What mxfp8-run
/// generates for f16 inputs and what numpy's float16() gives.
inline uint16_t convertDoubleToF16Bits(double value) {
  uint16_t sign = std::signbit(value) ? 0x8000 : 0x0000;
  if (std::isnan(value))
    return uint16_t(sign | 0x7E00);
  double magnitude = std::fabs(value);
  if (magnitude >= 65520.0)
    return uint16_t(sign | 0x7C00);
  return uint16_t(sign | encodeMagnitudeNearestEven(magnitude, 10, 15));
}

/// The value of `bits` in a binary format with a sign bit, `exponentBits`
/// exponent bits (bias 2^(exponentBits - 1) - 1, the all-ones exponent for
/// infinities and NaNs, as IEEE 754) and `mantissaBits` mantissa bits
/// (exact).
inline double decodeIEEELikeBits(uint32_t bits, int exponentBits,
                                 int mantissaBits) {
  double sign = (bits >> (exponentBits + mantissaBits)) & 1 ? -1.0 : 1.0;
  int maxExponent = (1 << exponentBits) - 1;
  int bias = maxExponent / 2;
  int exponent = int(bits >> mantissaBits) & maxExponent;
  int mantissa = int(bits & ((1u << mantissaBits) - 1));
  if (exponent == maxExponent)
    return mantissa ? std::nan("") : sign * INFINITY;
  if (exponent == 0)
    return sign * std::ldexp(mantissa, 1 - bias - mantissaBits);
  return sign * std::ldexp((1 << mantissaBits) + mantissa,
                           exponent - bias - mantissaBits);
}

/// IEEE f16 bits -> f64 (exact).
inline double convertF16BitsToDouble(uint16_t bits) {
  return decodeIEEELikeBits(bits, 5, 10);
}

/// f64 -> f8E4M3FN bits (RNE, saturating to +-448, NaN -> 0x7F with sign),
/// the rounding mxfp8-run applies to generated fp8 inputs.
inline uint8_t convertDoubleToF8E4M3FNBits(double value) {
  return convertDoubleToFloat8BitsSaturating(value, 3, 7, 448.0, 0x7E, 0x7F);
}

/// f64 -> f8E5M2 bits (RNE, saturating to +-57344, NaN -> 0x7E with sign).
inline uint8_t convertDoubleToF8E5M2Bits(double value) {
  return convertDoubleToFloat8BitsSaturating(value, 2, 15, 57344.0, 0x7B, 0x7E);
}

/// f8E4M3FN bits -> f64 (exact; S.1111.111 is NaN, there is no infinity).
inline double convertF8E4M3FNBitsToDouble(uint8_t bits) {
  double sign = (bits & 0x80) ? -1.0 : 1.0;
  int exponent = (bits >> 3) & 0xF, mantissa = bits & 0x7;
  if (exponent == 0xF && mantissa == 0x7)
    return std::nan("");
  if (exponent == 0)
    return sign * std::ldexp(mantissa, -9);
  return sign * std::ldexp(8 + mantissa, exponent - 10);
}

/// f8E5M2 bits -> f64 (exact; IEEE-style infinities and NaNs).
inline double convertF8E5M2BitsToDouble(uint8_t bits) {
  return decodeIEEELikeBits(bits, 5, 2);
}

/// f8E8M0FNU bits -> f64: 2^(bits - 127), 0xFF is NaN.
inline double convertF8E8M0FNUBitsToDouble(uint8_t bits) {
  return bits == 0xFF ? std::nan("") : std::ldexp(1.0, int(bits) - 127);
}

} // namespace mlir::mxfp8train

#endif // MXFP8TRAIN_SUPPORT_FLOAT_H
