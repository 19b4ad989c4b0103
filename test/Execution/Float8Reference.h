//===- Float8Reference.h - independent Float8 reference model ---*- C++ -*-===//
//
// A scalar C++ transcription of SPEC-float8 Appendix A (the golden model of
// torchao's dense Float8 cast) and of §2.6 / §5.4, written independently of
// the linalg lowering: the scale is the f64 division rounded to f32 (not the
// f32 shortcut of §2.3), the power-of-2 rounding is `exp2(floor(f32(log2)))`
// with std::log2 (not the R table of §2.4), and fp8 / bf16 rounding picks
// the nearest representable value by searching the format's values (not
// bit arithmetic). No MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_TEST_EXECUTION_FLOAT8REFERENCE_H
#define MXFP8TRAIN_TEST_EXECUTION_FLOAT8REFERENCE_H

#include "ReferenceBits.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace f8ref {

/// An fp8 element format (SPEC-float8 §1).
struct Format {
  bool e5m2;
  double maxValue() const { return e5m2 ? 57344.0 : 448.0; }
  /// The largest finite magnitude code (0x7E = 448, 0x7B = 57344).
  int maxCode() const { return e5m2 ? 0x7B : 0x7E; }
};

using refbits::bitsOf;
using refbits::floatOf;

/// The exact value of fp8 byte `b` (NaN for the NaN codes, ±Inf for e5m2).
inline double decode(uint8_t b, Format fmt) {
  return refbits::decodeFp8(b, fmt.e5m2);
}

/// amax over `values`: NaN-propagating max |x| from +0.0 (SPEC-float8 §2.2).
inline float amax(const std::vector<float> &values) {
  float a = 0.0f;
  for (float v : values) {
    if (std::isnan(v))
      return std::numeric_limits<float>::quiet_NaN();
    a = std::max(a, std::fabs(v));
  }
  return a;
}

/// torchao `_round_scale_down_to_power_of_2`: `exp2(floor(RN_f32(log2 s)))`
/// (Appendix A `pow2_round`).
inline float pow2Round(float s) {
  float l32 = float(std::log2(double(s)));
  return float(std::exp2(std::floor(double(l32))));
}

/// `s = RN_f32(RN_f64(max / max(amax, 1e-12)))`, then pow2 (Appendix A
/// `amax_to_scale`).
inline float scaleOf(float amaxValue, Format fmt, bool pow2) {
  double a = amaxValue;
  if (!std::isnan(a))
    a = std::max(a, 1e-12);
  float s = float(fmt.maxValue() / a);
  return pow2 ? pow2Round(s) : s;
}

/// `fp8 = RNE(clamp(RN_f32(x * s), -max, max))`, NaN -> 0x7F (Appendix A
/// `cast_bytes`): the nearest finite code by search, ties to the even code.
inline uint8_t castByte(float x, float s, Format fmt) {
  float y = x * s;
  if (std::isnan(y))
    return 0x7F;
  double mag = std::fabs(double(y));
  mag = std::min(mag, fmt.maxValue());
  int best = 0;
  double bestErr = std::numeric_limits<double>::infinity();
  for (int c = 0; c <= fmt.maxCode(); ++c) {
    double err = std::fabs(decode(uint8_t(c), fmt) - mag);
    if (err < bestErr || (err == bestErr && (c & 1) == 0 && (best & 1))) {
      best = c;
      bestErr = err;
    }
  }
  return uint8_t(best | (std::signbit(y) ? 0x80 : 0));
}

/// f32 -> bf16 bits, round to nearest even by comparing the two bf16
/// neighbours; NaN -> a quiet NaN with the sign.
inline uint16_t toBF16(float f) {
  uint32_t u = bitsOf(f);
  if (std::isnan(f))
    return uint16_t((u >> 16) | 0x40);
  if (std::isinf(f))
    return uint16_t(u >> 16);
  uint32_t lo = u & 0xFFFF0000u;
  uint32_t hi = lo + 0x10000u; // the next bf16 away from zero
  double dLo = std::fabs(double(floatOf(lo)) - double(f));
  double dHi = std::fabs(double(floatOf(hi)) - double(f));
  if (std::isinf(floatOf(hi)))
    dHi = std::fabs(std::ldexp(1.0, 128) - std::fabs(double(f)));
  if (dLo < dHi || (dLo == dHi && ((lo >> 16) & 1) == 0))
    return uint16_t(lo >> 16);
  return uint16_t(hi >> 16);
}

/// Dequantization `RN_f32(float(q) / s)` (SPEC-float8 §2.6).
inline float dequantize(uint8_t q, float s, Format fmt) {
  return float(decode(q, fmt)) / s;
}

/// The token groups of `offs` over `rows` rows as [first, last) pairs:
/// group g starts where group g-1 ended (0 for g = 0) and ends at offs[g]
/// pulled into [its start, rows] (the clamping of scaled_grouped_mm).
inline std::vector<std::pair<int64_t, int64_t>>
tokenGroups(const std::vector<int32_t> &offs, int64_t rows) {
  std::vector<std::pair<int64_t, int64_t>> groups;
  int64_t first = 0;
  for (int32_t o : offs) {
    int64_t last = std::min<int64_t>(std::max<int64_t>(o, first), rows);
    groups.push_back({first, last});
    first = last;
  }
  return groups;
}

/// Per-group (jagged) column scales of the row-major `(rows, cols)` tensor
/// `x` (SPEC-float8 §3.3, torchao `triton_fp8_per_group_colwise_scales`
/// with the dense NaN / Inf semantics of §2.7): `scales[g * cols + c]` from
/// the amax of column c over the rows of group g only (an empty group has
/// amax 0), every row cast with its group's scales, rows of no group 0x00.
inline void perGroupColwise(const std::vector<float> &x, int64_t rows,
                            int64_t cols, const std::vector<int32_t> &offs,
                            Format fmt, bool pow2, std::vector<float> &scales,
                            std::vector<uint8_t> &bytes) {
  auto groups = tokenGroups(offs, rows);
  scales.assign(groups.size() * cols, 0.0f);
  bytes.assign(rows * cols, 0);
  for (size_t g = 0; g < groups.size(); ++g)
    for (int64_t c = 0; c < cols; ++c) {
      std::vector<float> column;
      for (int64_t r = groups[g].first; r < groups[g].second; ++r)
        column.push_back(x[r * cols + c]);
      float s = scaleOf(amax(column), fmt, pow2);
      scales[g * cols + c] = s;
      for (int64_t r = groups[g].first; r < groups[g].second; ++r)
        bytes[r * cols + c] = castByte(x[r * cols + c], s, fmt);
    }
}

/// One output of the Float8 GEMM (SPEC-float8 §5.4) from the exact sum
/// `acc` (rounded once to f32 by the caller): `RN_f32(RN_f32(acc *
/// RN_f32(1/sa)) * RN_f32(1/sb)) + bias`, in f32.
inline float gemmEpilogue(float acc, float sa, float sb, float bias) {
  float ia = 1.0f / sa, ib = 1.0f / sb;
  return (acc * ia) * ib + bias;
}

} // namespace f8ref

#endif // MXFP8TRAIN_TEST_EXECUTION_FLOAT8REFERENCE_H
