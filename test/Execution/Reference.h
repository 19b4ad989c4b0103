//===- Reference.h - independent MX reference model -------------*- C++ -*-===//
//
// A scalar C++ transcription of SPEC Appendix A (the golden model of torchao's
// to_mx) and of SPEC §3/§4.1, written independently of the linalg lowering:
// values are doubles, exponents come from std::frexp / std::ilogb, roundings
// use std::nearbyint (round-half-even in the default rounding mode) and the
// C++ double -> float conversion (RNE, subnormals kept). No f32 bit tricks.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_TEST_EXECUTION_REFERENCE_H
#define MXFP8TRAIN_TEST_EXECUTION_REFERENCE_H

#include "ReferenceBits.h"

#include <cfenv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace mxref {

/// Scale calculation modes of SPEC §2.2-2.5.
enum class Mode { Floor, Rceil, Ceil, Even };

/// Parameters of an fp8 element format (SPEC §1).
struct Format {
  int mantissaBits; ///< 3 (e4m3) or 2 (e5m2)
  int bias;         ///< 7 or 15
  double maxValue;  ///< 448 or 57344
  int emaxPow2;     ///< 8 or 15: floor(log2(maxValue))
  bool e4m3fn;      ///< no infinities; NaN only at S.1111.111
};

inline constexpr Format kE4M3{3, 7, 448.0, 8, true};
inline constexpr Format kE5M2{2, 15, 57344.0, 15, false};

using refbits::bitsOf;
using refbits::floatOf;
inline float bf16ToFloat(uint16_t b) { return floatOf(uint32_t(b) << 16); }

/// fl32(x): round a double to the nearest f32 (ties to even, subnormals kept).
inline double fl32(double x) { return double(float(x)); }

/// floor(log2(a)) for finite a > 0.
inline int floorLog2(double a) {
  int e;
  std::frexp(a, &e); // a = f * 2^e, f in [0.5, 1)
  return e - 1;
}

/// ceil(log2(a)) for finite a > 0.
inline int ceilLog2(double a) {
  int e;
  double f = std::frexp(a, &e);
  return f == 0.5 ? e - 1 : e;
}

inline int clampInt(int v, int lo, int hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}

/// The e8m0 scale byte of a block whose fp32 amax is `amax` (>= 0 or NaN).
inline int scaleByte(double amax, Mode mode, const Format &fmt) {
  if (std::isnan(amax) || std::isinf(amax))
    return 255;
  if (mode == Mode::Rceil) {
    // descale = fl32(amax * fl32(1/max)); round up to a power of two with
    // byte 0 = 2^-127: byte = max(ceil(log2 d) + 127, 0).
    double descale = fl32(amax * fl32(1.0 / fmt.maxValue));
    if (std::isinf(descale))
      return 255;
    if (descale == 0)
      return 0;
    return std::max(ceilLog2(descale) + 127, 0);
  }
  if (amax == 0)
    return 0;
  // Unbiased exponent as torchao extracts it: fp32 subnormals have e = 0,
  // i.e. p = -127 (FLOOR/EVEN) or -126 (CEIL). Either way the byte clamps
  // to 0, as it also does when computed from the true log2.
  int p;
  if (mode == Mode::Floor) {
    p = floorLog2(amax);
  } else if (mode == Mode::Ceil) {
    p = ceilLog2(amax);
  } else {
    // EVEN: amax rounded half-up to `mantissaBits` mantissa bits, then floor.
    int e = floorLog2(amax);
    double q = std::ldexp(1.0, std::max(e, -126) - fmt.mantissaBits);
    double rounded = std::floor(amax / q + 0.5) * q;
    if (rounded >= std::ldexp(1.0, 128))
      return 255;
    if (rounded == 0) // a tiny fp32 subnormal rounds down to zero
      return 0;
    p = floorLog2(rounded);
  }
  if (p < -127)
    p = -127;
  return clampInt(p - fmt.emaxPow2, -127, 128) + 127;
}

/// RNE + SATFINITE cast of a double `y` to an fp8 byte of `fmt` (subnormals
/// kept, sign of zero kept, NaN -> 0x7F).
inline uint8_t encode(double y, const Format &fmt) {
  if (std::isnan(y))
    return 0x7F;
  uint8_t sign = std::signbit(y) ? 0x80 : 0x00;
  double a = std::fabs(y);
  int maxCode = fmt.e4m3fn ? 0x7E : 0x7B;
  if (std::isinf(a))
    return sign | maxCode;
  int emin = 1 - fmt.bias;
  int code;
  if (a < std::ldexp(1.0, emin)) {
    // k units of 2^(emin - mbits); k == 2^mbits is the smallest normal.
    double k = std::nearbyint(std::ldexp(a, fmt.mantissaBits - emin));
    code = int(k);
  } else {
    int e = floorLog2(a);
    double k = std::nearbyint(std::ldexp(a, fmt.mantissaBits - e));
    double value = std::ldexp(k, e - fmt.mantissaBits);
    if (value > fmt.maxValue)
      return sign | maxCode;
    // k in [2^mbits, 2^(mbits+1)]; the upper end carries into the exponent.
    code =
        ((e + fmt.bias) << fmt.mantissaBits) + int(k) - (1 << fmt.mantissaBits);
  }
  if (code > maxCode)
    code = maxCode;
  return uint8_t(sign | code);
}

/// Exact value of fp8 byte `b` of `fmt`.
inline double decode(uint8_t b, const Format &fmt) {
  return refbits::decodeFp8(b, !fmt.e4m3fn);
}

/// Value of e8m0 scale byte `b`: 2^(b-127), NaN for 255.
inline double decodeScale(int b) {
  return b == 255 ? std::numeric_limits<double>::quiet_NaN()
                  : std::ldexp(1.0, b - 127);
}

/// Quantizes one block of fp32 values (SPEC Appendix A `quantize_block`).
/// Writes the scale byte and one element byte per value.
inline void quantizeBlock(const std::vector<double> &values, Mode mode,
                          const Format &fmt, int &byte,
                          std::vector<uint8_t> &codes) {
  double amax = 0.0;
  bool nan = false;
  for (double v : values) {
    if (std::isnan(v))
      nan = true;
    amax = std::max(amax, std::fabs(v));
  }
  if (nan)
    amax = std::numeric_limits<double>::quiet_NaN();
  byte = scaleByte(amax, mode, fmt);
  codes.assign(values.size(), 0x7F);
  if (byte == 255)
    return;
  double rcp = std::ldexp(1.0, 127 - byte);
  for (size_t i = 0; i < values.size(); ++i)
    codes[i] = encode(fl32(values[i] * rcp), fmt);
}

/// Round a double to bf16 (RNE, subnormals kept, overflow to Inf); returns
/// the bf16 bit pattern. NaN gives 0x7FC0 (callers compare NaN as NaN).
inline uint16_t roundToBF16(double x) {
  if (std::isnan(x))
    return 0x7FC0;
  uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  double a = std::fabs(x);
  if (a == 0)
    return sign;
  double value;
  if (std::isinf(a)) {
    value = a;
  } else {
    int e = std::max(floorLog2(a), -126);
    double k = std::nearbyint(std::ldexp(a, 7 - e));
    value = std::ldexp(k, e - 7);
  }
  if (value >= std::ldexp(1.0, 128))
    return sign | 0x7F80;
  return sign | uint16_t(bitsOf(float(value)) >> 16);
}

/// Position of entry (r, c) of an (R, C) scale matrix in the blocked layout
/// (SPEC §4.1, closed form).
inline int64_t blockedOffset(int64_t r, int64_t c, int64_t numCols) {
  int64_t nCB = (numCols + 3) / 4;
  return ((r / 128) * nCB + c / 4) * 512 + (r % 32) * 16 +
         ((r % 128) / 32) * 4 + c % 4;
}

/// Size of the blocked layout of an (R, C) scale matrix.
inline int64_t blockedSize(int64_t numRows, int64_t numCols) {
  return ((numRows + 127) / 128) * 128 * ((numCols + 3) / 4) * 4;
}

} // namespace mxref

#endif // MXFP8TRAIN_TEST_EXECUTION_REFERENCE_H
