//===- ReferenceBits.h - bits and fp8 values for the references -*- C++ -*-===//
//
// What the independent MX (Reference.h) and Float8 (Float8Reference.h)
// reference models share: f32 bit views and the exact value of an fp8 byte
// (OCP e4m3fn / e5m2, SPEC §1, SPEC-float8 §1), computed from the fields
// with std::ldexp. No MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_TEST_EXECUTION_REFERENCEBITS_H
#define MXFP8TRAIN_TEST_EXECUTION_REFERENCEBITS_H

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace refbits {

inline uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float floatOf(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

/// The exact value of fp8 byte `b`: e4m3fn (no infinities, NaN only at
/// S.1111.111) or, with `e5m2`, e5m2 (IEEE-like: ±Inf and NaNs at exponent
/// 31).
inline double decodeFp8(uint8_t b, bool e5m2) {
  int mBits = e5m2 ? 2 : 3, bias = e5m2 ? 15 : 7;
  int eMax = (1 << (7 - mBits)) - 1;
  double sign = (b & 0x80) ? -1.0 : 1.0;
  int e = (b & 0x7F) >> mBits, m = b & ((1 << mBits) - 1);
  if (!e5m2 && (b & 0x7F) == 0x7F)
    return std::numeric_limits<double>::quiet_NaN();
  if (e5m2 && e == eMax)
    return m ? std::numeric_limits<double>::quiet_NaN()
             : sign * std::numeric_limits<double>::infinity();
  if (e == 0)
    return sign * std::ldexp(double(m), 1 - bias - mBits);
  return sign * std::ldexp(double((1 << mBits) + m), e - bias - mBits);
}

} // namespace refbits

#endif // MXFP8TRAIN_TEST_EXECUTION_REFERENCEBITS_H
