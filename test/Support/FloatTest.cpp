//===- FloatTest.cpp - Float.h and the element kinds against APFloat ------===//
//
// The host-side encoders every generated input goes through (mxfp8-run, the
// C API and Python since session 34, mxfp8-launch always): f64 -> f16 (round
// to nearest even, overflow to infinity), f64 -> fp8 (round to nearest
// even, saturating), f32 -> bf16, and the decoders, each checked against
// llvm::APFloat on every bit pattern's value, on the midpoints between
// neighbouring values (where ties to even decide), just off them, and on
// seeded random doubles over the formats' ranges. Until session 34 the fp8
// encoder gave 0x28 (0.25) for an exact zero (frexp(0) has exponent 0):
// mxfp8-launch's fp8 inputs of `mxfp8run.std = 0` were 0.25, mxfp8-run's
// (APFloat) 0.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Support/Float.h"
#include "mxfp8train/Support/Manifest.h"

#include "llvm/ADT/APFloat.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <vector>

using namespace mlir::mxfp8train;
using llvm::APFloat;

namespace {

/// `value` rounded to nearest even into `sem` by APFloat, as bits.
uint64_t roundWithAPFloat(double value, const llvm::fltSemantics &sem) {
  APFloat f(value);
  bool lost = false;
  f.convert(sem, APFloat::rmNearestTiesToEven, &lost);
  return f.bitcastToAPInt().getZExtValue();
}

/// The value of `bits` in `sem`, by APFloat.
double decodeWithAPFloat(uint64_t bits, const llvm::fltSemantics &sem) {
  APFloat f(sem, llvm::APInt(APFloat::getSizeInBits(sem), bits));
  // (convertToDouble turns e8m0's NaN, 0xFF, into an infinity.)
  return f.isNaN() ? std::nan("") : f.convertToDouble();
}

/// Every probe value for a format whose finite values are `values` (sorted,
/// both signs): each value, the midpoints between neighbours, values a
/// relative 2^-40 off each midpoint, and seeded random doubles spread over
/// the binades from 2^minExp to 2^maxExp, both signs.
std::vector<double> probeValues(std::vector<double> values, int minExp,
                                int maxExp) {
  std::vector<double> probes = values;
  for (size_t i = 0; i + 1 < values.size(); ++i) {
    double mid = values[i] / 2 + values[i + 1] / 2;
    probes.push_back(mid);
    probes.push_back(mid + std::fabs(mid) * 0x1p-40);
    probes.push_back(mid - std::fabs(mid) * 0x1p-40);
  }
  std::mt19937_64 rng(34);
  std::uniform_real_distribution<double> exponent(minExp, maxExp);
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  for (int i = 0; i < 200000; ++i) {
    double v = std::ldexp(mantissa(rng), int(std::floor(exponent(rng))));
    probes.push_back((i & 1) ? -v : v);
  }
  probes.push_back(0.0);
  probes.push_back(-0.0);
  probes.push_back(std::numeric_limits<double>::denorm_min());
  probes.push_back(-std::numeric_limits<double>::denorm_min());
  return probes;
}

/// The finite values of a format of `bits` bits (sorted), by APFloat.
std::vector<double> finiteValues(const llvm::fltSemantics &sem, int bits) {
  std::vector<double> values;
  for (uint64_t b = 0; b < (uint64_t(1) << bits); ++b) {
    double v = decodeWithAPFloat(b, sem);
    if (std::isfinite(v))
      values.push_back(v);
  }
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  return values;
}

} // namespace

TEST(Float, F16DecodesEveryPatternAsAPFloat) {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    double ours = convertF16BitsToDouble(uint16_t(b));
    double ref = decodeWithAPFloat(b, APFloat::IEEEhalf());
    if (std::isnan(ref)) {
      EXPECT_TRUE(std::isnan(ours)) << std::hex << b;
      continue;
    }
    EXPECT_EQ(ours, ref) << std::hex << b;
    EXPECT_EQ(std::signbit(ours), std::signbit(ref)) << std::hex << b;
  }
}

TEST(Float, F16EncodesAsAPFloat) {
  std::vector<double> probes =
      probeValues(finiteValues(APFloat::IEEEhalf(), 16), -30, 17);
  // Around the overflow threshold: 65504 is the largest finite, 65520 the
  // midpoint to the next binade (a tie, rounded to infinity: 65504 is odd).
  for (double v : {65504.0, 65519.0, 65519.999, 65520.0, 65536.0, 1e300,
                   std::numeric_limits<double>::infinity()}) {
    probes.push_back(v);
    probes.push_back(-v);
  }
  for (double v : probes)
    ASSERT_EQ(convertDoubleToF16Bits(v),
              roundWithAPFloat(v, APFloat::IEEEhalf()))
        << v;
}

TEST(Float, F16SpecialValues) {
  EXPECT_EQ(convertDoubleToF16Bits(0.0), 0x0000);
  EXPECT_EQ(convertDoubleToF16Bits(-0.0), 0x8000);
  EXPECT_EQ(convertDoubleToF16Bits(1.0), 0x3C00);
  EXPECT_EQ(convertDoubleToF16Bits(65504.0), 0x7BFF);
  EXPECT_EQ(convertDoubleToF16Bits(65520.0), 0x7C00);
  EXPECT_EQ(convertDoubleToF16Bits(-1e9), 0xFC00);
  EXPECT_EQ(convertDoubleToF16Bits(0x1p-24), 0x0001);   // smallest subnormal
  EXPECT_EQ(convertDoubleToF16Bits(0x1p-25), 0x0000);   // tie to even: 0
  EXPECT_EQ(convertDoubleToF16Bits(0x1.8p-25), 0x0001); // above the tie
  EXPECT_EQ(convertDoubleToF16Bits(std::nan("")), 0x7E00);
  EXPECT_EQ(convertDoubleToF16Bits(-std::nan("")), 0xFE00);
}

/// An fp8 encoder against APFloat after clamping to the largest finite
/// magnitude (the saturation mxfp8-run's inputs use).
void checkFloat8(const llvm::fltSemantics &sem,
                 const std::function<uint8_t(double)> &encode, int minExp,
                 int maxExp) {
  std::vector<double> values = finiteValues(sem, 8);
  double limit = values.back();
  std::vector<double> probes = probeValues(values, minExp, maxExp);
  for (double v : {limit * 1.01, limit * 4, 1e300,
                   std::numeric_limits<double>::infinity()}) {
    probes.push_back(v);
    probes.push_back(-v);
  }
  for (double v : probes) {
    double clamped = std::fmax(-limit, std::fmin(limit, v));
    if (std::signbit(v) != std::signbit(clamped)) // fmax/fmin of a zero
      clamped = -clamped;
    ASSERT_EQ(encode(v), roundWithAPFloat(clamped, sem)) << v;
  }
  EXPECT_EQ(encode(0.0), 0x00);
  EXPECT_EQ(encode(-0.0), 0x80);
}

TEST(Float, F8E4M3FNEncodesAsAPFloatSaturating) {
  checkFloat8(APFloat::Float8E4M3FN(), convertDoubleToF8E4M3FNBits, -12, 10);
  EXPECT_EQ(convertDoubleToF8E4M3FNBits(448.0), 0x7E);
  EXPECT_EQ(convertDoubleToF8E4M3FNBits(1e6), 0x7E);
  EXPECT_EQ(convertDoubleToF8E4M3FNBits(-std::nan("")), 0xFF);
}

TEST(Float, F8E5M2EncodesAsAPFloatSaturating) {
  checkFloat8(APFloat::Float8E5M2(), convertDoubleToF8E5M2Bits, -19, 17);
  EXPECT_EQ(convertDoubleToF8E5M2Bits(57344.0), 0x7B);
  EXPECT_EQ(convertDoubleToF8E5M2Bits(-1e6), 0xFB);
}

TEST(Float, Float8DecodesEveryPatternAsAPFloat) {
  for (uint32_t b = 0; b < 0x100; ++b) {
    double e4 = decodeWithAPFloat(b, APFloat::Float8E4M3FN());
    double e5 = decodeWithAPFloat(b, APFloat::Float8E5M2());
    double e8 = decodeWithAPFloat(b, APFloat::Float8E8M0FNU());
    double ours4 = convertF8E4M3FNBitsToDouble(uint8_t(b));
    double ours5 = convertF8E5M2BitsToDouble(uint8_t(b));
    double ours8 = convertF8E8M0FNUBitsToDouble(uint8_t(b));
    EXPECT_TRUE(std::isnan(e4) ? std::isnan(ours4) : ours4 == e4) << b;
    EXPECT_TRUE(std::isnan(e5) ? std::isnan(ours5) : ours5 == e5) << b;
    EXPECT_TRUE(std::isnan(e8) ? std::isnan(ours8) : ours8 == e8) << b;
  }
}

TEST(Float, BF16EncodesAsAPFloat) {
  std::mt19937 rng(34);
  std::vector<uint32_t> patterns = {0x00000000u, 0x80000000u, 0x3F808000u,
                                    0x3F818000u, 0x7F7FFFFFu, 0x00000001u,
                                    0x7F800000u, 0xFF800000u};
  for (int i = 0; i < 1000000; ++i)
    patterns.push_back(rng());
  for (uint32_t u : patterns) {
    float f = getFloatFromBits(u);
    if (std::isnan(f))
      continue;
    ASSERT_EQ(convertFloatToBF16Bits(f),
              roundWithAPFloat(double(f), APFloat::BFloat()))
        << std::hex << u;
  }
}

TEST(ElementKinds, NamesSizesAndNpyDescriptors) {
  struct Row {
    ElementKind kind;
    const char *name;
    int64_t size;
    const char *descr;
    bool isFloat;
  };
  const Row rows[] = {
      {ElementKind::BF16, "bf16", 2, "<u2", true},
      {ElementKind::F16, "f16", 2, "<f2", true},
      {ElementKind::F32, "f32", 4, "<f4", true},
      {ElementKind::F64, "f64", 8, "<f8", true},
      {ElementKind::F8E4M3FN, "f8E4M3FN", 1, "|u1", true},
      {ElementKind::F8E5M2, "f8E5M2", 1, "|u1", true},
      {ElementKind::F8E8M0FNU, "f8E8M0FNU", 1, "|u1", true},
      {ElementKind::I1, "i1", 1, "|b1", false},
      {ElementKind::I8, "i8", 1, "|i1", false},
      {ElementKind::I16, "i16", 2, "<i2", false},
      {ElementKind::I32, "i32", 4, "<i4", false},
      {ElementKind::I64, "i64", 8, "<i8", false},
  };
  for (const Row &row : rows) {
    EXPECT_STREQ(getElementKindName(row.kind), row.name);
    EXPECT_EQ(getElementKindSize(row.kind), row.size) << row.name;
    EXPECT_STREQ(getNpyDescrForKind(row.kind, false), row.descr);
    EXPECT_EQ(isFloatKind(row.kind), row.isFloat) << row.name;
    ElementKind parsed = ElementKind::F32;
    EXPECT_TRUE(parseElementKind(row.name, parsed));
    EXPECT_EQ(parsed, row.kind);
  }
  ElementKind parsed;
  EXPECT_FALSE(parseElementKind("ui8", parsed));
  EXPECT_FALSE(parseElementKind("f80", parsed));
}

TEST(ElementKinds, DecodeNarrowKinds) {
  const uint8_t bools[] = {0, 1, 1, 0};
  EXPECT_EQ(decodeElement(ElementKind::I1, bools, 1), 1.0);
  EXPECT_EQ(decodeElement(ElementKind::I1, bools, 3), 0.0);
  const int8_t bytes[] = {-128, 127, -1};
  const auto *raw8 = reinterpret_cast<const uint8_t *>(bytes);
  EXPECT_EQ(decodeElement(ElementKind::I8, raw8, 0), -128.0);
  EXPECT_EQ(decodeElement(ElementKind::I8, raw8, 2), -1.0);
  const int16_t shorts[] = {-32768, 300};
  const auto *raw16 = reinterpret_cast<const uint8_t *>(shorts);
  EXPECT_EQ(decodeElement(ElementKind::I16, raw16, 0), -32768.0);
  EXPECT_EQ(decodeElement(ElementKind::I16, raw16, 1), 300.0);
  const uint16_t halves[] = {0x3C00, 0xC500, 0x7C00};
  const auto *rawHalf = reinterpret_cast<const uint8_t *>(halves);
  EXPECT_EQ(decodeElement(ElementKind::F16, rawHalf, 0), 1.0);
  EXPECT_EQ(decodeElement(ElementKind::F16, rawHalf, 1), -5.0);
  EXPECT_TRUE(std::isinf(decodeElement(ElementKind::F16, rawHalf, 2)));
}
