//===- Float8ExecutionTest.cpp - Float8 ops on the CPU ----------*- C++ -*-===//
//
// Execution tests of the Float8 forms of quantize, dequantize and scaled_mm
// in convert-mxfp8train-to-linalg: JIT-run through CPUExecutable and compared
// bit for bit with the golden values of SPEC-float8 §2.7 / Appendix A (fixed
// constants) and with the independent reference of Float8Reference.h.
//
//===----------------------------------------------------------------------===//

#include "Float8TestUtils.h"

#include <random>
#include <sstream>

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mxtest;
using f8ref::bitsOf;
using f8ref::floatOf;
using f8ref::Format;

//===----------------------------------------------------------------------===//
// Harness
//===----------------------------------------------------------------------===//

namespace {
/// One Float8 quantize: the function source and its expected results.
struct QuantizeCase {
  llvm::SmallVector<int64_t> shape;
  bool bf16;
  Format fmt;
  bool pow2;
  /// -1: tensorwise; else the axiswise axis.
  int64_t axis;

  llvm::SmallVector<int64_t> scaleShape() const {
    if (axis < 0)
      return {};
    llvm::SmallVector<int64_t> s(shape);
    s[axis] = 1;
    return s;
  }

  std::string source(const std::string &name) const {
    std::string in = tensorType(shape, bf16 ? "bf16" : "f32");
    std::string data = tensorType(shape, elemName(fmt));
    std::string scales = tensorType(scaleShape(), "f32");
    std::ostringstream os;
    os << "func.func @" << name << "(%x: " << in << ") -> (" << data << ", "
       << scales << ") {\n  %q, %s = mxfp8train.quantize %x ";
    if (axis >= 0)
      os << "axis = " << axis << " granularity = axiswise";
    else
      os << "granularity = tensorwise";
    os << (pow2 ? " pow2" : "") << " : " << in << " -> " << data << ", "
       << scales << "\n  return %q, %s : " << data << ", " << scales << "\n}\n";
    return os.str();
  }

  /// The reference scales and bytes of `values` (already input-rounded).
  void reference(const std::vector<float> &values, std::vector<float> &scales,
                 std::vector<uint8_t> &bytes) const {
    int64_t n = values.size();
    // Group of each element: tensorwise 0, axiswise the flat index of its
    // scale (the element index with the axis coordinate dropped).
    std::vector<int64_t> group(n, 0);
    int64_t numGroups = 1;
    if (axis >= 0) {
      int64_t inner = 1;
      for (size_t d = axis + 1; d < shape.size(); ++d)
        inner *= shape[d];
      for (int64_t i = 0; i < n; ++i)
        group[i] = (i / (inner * shape[axis])) * inner + i % inner;
      numGroups = n / shape[axis];
    }
    std::vector<std::vector<float>> members(numGroups);
    for (int64_t i = 0; i < n; ++i)
      members[group[i]].push_back(values[i]);
    scales.assign(numGroups, 0.0f);
    for (int64_t g = 0; g < numGroups; ++g)
      scales[g] = f8ref::scaleOf(f8ref::amax(members[g]), fmt, pow2);
    bytes.resize(n);
    for (int64_t i = 0; i < n; ++i)
      bytes[i] = f8ref::castByte(values[i], scales[group[i]], fmt);
  }
};

/// Runs function `fn` of `exe` (the quantize `c`) on `values` and compares
/// scales (bits; NaN as NaN) and bytes with the reference; returns the
/// results for further checks.
std::vector<HostTensor> compareQuantize(const CPUExecutable &exe,
                                        const std::string &fn,
                                        const QuantizeCase &c,
                                        std::vector<float> values,
                                        const std::string &tag) {
  auto out = runOrFail(exe, fn, {makeFloat8Input(c.shape, c.bf16, values)});
  if (out.size() != 2)
    return {};
  std::vector<float> scales;
  std::vector<uint8_t> bytes;
  c.reference(values, scales, bytes);
  expectQuantizeMatches(out, scales, bytes, values, tag, /*scaleCols=*/0,
                        /*dataCols=*/0);
  return out;
}

/// Compiles the single quantize `c` and compares it on `values`.
std::vector<HostTensor> runAndCompare(const QuantizeCase &c,
                                      std::vector<float> values,
                                      const std::string &tag) {
  auto exe = compileOrFail(c.source("q"));
  if (!exe)
    return {};
  return compareQuantize(*exe, "q", c, std::move(values), tag);
}

//===----------------------------------------------------------------------===//
// quantize: the golden values of SPEC-float8 §2.7 and Appendix A
//===----------------------------------------------------------------------===//

struct Golden {
  std::vector<float> row;
  bool bf16;
  Format fmt;
  bool pow2;
  /// Expected scale bits; 0x7FC00000 stands for any NaN.
  uint32_t scaleBits;
  std::vector<uint8_t> bytes;
};

constexpr uint32_t kAnyNaN = 0x7FC00000;

TEST(Float8QuantizeTest, GoldenSpecialValues) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float f32max = std::numeric_limits<float>::max();
  const float bf16max = floatOf(0x7F7F0000);
  const float up1 = floatOf(0x3FE00001), up3 = floatOf(0x3FE00003);
  // 1.75 * 2^-6 + 5 ulp: s is 6 ulps below 2^14, R(14) = 5: no round-up.
  const float up5 = floatOf(0x3CE00005);
  const std::vector<Golden> cases = {
      // Appendix A self-check cases.
      {{0, 0, 0, 0}, false, kE4M3, false, 0x57CBBA10, {0, 0, 0, 0}},
      {{0, 0, 0, 0}, false, kE4M3, true, 0x57800000, {0, 0, 0, 0}},
      {{-0.0f, -0.0f, -0.0f, -0.0f},
       false,
       kE5M2,
       false,
       0x5B4BBA10,
       {0x80, 0x80, 0x80, 0x80}},
      {{0, 0, 0, 0}, true, kE5M2, true, 0x5B000000, {0, 0, 0, 0}},
      {{449, -480, 1, 0},
       false,
       kE4M3,
       false,
       0x3F6EEEEF,
       {0x7D, 0xFE, 0x37, 0x00}},
      {{449, -480, 1, 0},
       false,
       kE4M3,
       true,
       0x3F000000,
       {0x76, 0xF7, 0x30, 0x00}},
      {{bf16max, bf16max, bf16max, bf16max},
       true,
       kE4M3,
       false,
       0x03E0E0E1,
       {0x7E, 0x7E, 0x7E, 0x7E}},
      {{bf16max, bf16max, bf16max, bf16max},
       true,
       kE4M3,
       true,
       0x03800000,
       {0x78, 0x78, 0x78, 0x78}},
      {{inf, -0.5f, 0.5f, 1.0f},
       false,
       kE4M3,
       false,
       0x00000000,
       {0x7F, 0x80, 0x00, 0x00}},
      {{nan, 1, 2, 3}, true, kE4M3, true, kAnyNaN, {0x7F, 0x7F, 0x7F, 0x7F}},
      {{-nan, 1, 2, 3}, false, kE5M2, false, kAnyNaN, {0x7F, 0x7F, 0x7F, 0x7F}},
      {{up1, 1, 0.5f, -1},
       false,
       kE4M3,
       true,
       0x43800000,
       {0x7E, 0x78, 0x70, 0xF8}},
      {{up1, 1, 0.5f, -1},
       false,
       kE4M3,
       false,
       0x437FFFFF,
       {0x7E, 0x78, 0x70, 0xF8}},
      {{up3, 1, 0.5f, -1},
       false,
       kE4M3,
       true,
       0x43000000,
       {0x76, 0x70, 0x68, 0xF0}},
      {{up3, 1, 0.5f, -1},
       false,
       kE4M3,
       false,
       0x437FFFFD,
       {0x7E, 0x78, 0x70, 0xF8}},
      {{up5, 0, 0, 0}, false, kE4M3, false, 0x467FFFFA, {0x7E, 0, 0, 0}},
      {{up5, 0, 0, 0}, false, kE4M3, true, 0x46000000, {0x76, 0, 0, 0}},
      // SPEC-float8 §2.7 rows.
      {{448, 448, 448, 448},
       false,
       kE4M3,
       true,
       0x3F800000,
       {0x7E, 0x7E, 0x7E, 0x7E}},
      {{448, 448, 448, 448},
       true,
       kE5M2,
       false,
       0x43000000,
       {0x7B, 0x7B, 0x7B, 0x7B}},
      {{f32max, -f32max, 0, 0},
       false,
       kE4M3,
       false,
       0x03E00001,
       {0x7E, 0xFE, 0x00, 0x00}},
      {{f32max, -f32max, 0, 0},
       false,
       kE4M3,
       true,
       0x03800000,
       {0x78, 0xF8, 0x00, 0x00}},
      // Subnormal inputs: amax < 1e-12, the EPS scale, bytes ±0.
      {{1e-40f, -1e-40f, 0, 0},
       false,
       kE4M3,
       false,
       0x57CBBA10,
       {0x00, 0x80, 0x00, 0x00}},
      {{1e-40f, -1e-40f, 0, 0},
       false,
       kE4M3,
       true,
       0x57800000,
       {0x00, 0x80, 0x00, 0x00}},
  };
  for (auto [i, g] : llvm::enumerate(cases)) {
    QuantizeCase c{{4}, g.bf16, g.fmt, g.pow2, -1};
    std::string tag = "golden case " + std::to_string(i);
    auto out = runAndCompare(c, g.row, tag);
    ASSERT_EQ(out.size(), 2u) << tag;
    float s = out[1].data<float>()[0];
    if (g.scaleBits == kAnyNaN)
      EXPECT_TRUE(std::isnan(s)) << tag;
    else
      EXPECT_EQ(bitsOf(s), g.scaleBits)
          << tag << std::hex << ": 0x" << bitsOf(s);
    for (int j = 0; j < 4; ++j)
      EXPECT_EQ(int(out[0].bytes[j]), int(g.bytes[j])) << tag << " byte " << j;
  }
}

//===----------------------------------------------------------------------===//
// quantize: the power-of-2 boundary (SPEC-float8 §2.4)
//===----------------------------------------------------------------------===//

// Rows whose amax is 1.75 * 2^e + j ulp (f32): s = 448/amax lies j-ish ulps
// below 2^(8-e); within R(n) ulps torchao rounds the scale UP to 2^n. One
// axiswise quantize (axis 1) of 8 values per row, e4m3 and e5m2.
TEST(Float8QuantizeTest, Pow2Boundary) {
  for (Format fmt : {kE4M3, kE5M2}) {
    std::vector<float> values;
    int64_t rows = 0;
    for (int e = -100; e <= 100; e += 3) {
      for (uint32_t j = 0; j < 48; ++j) {
        float a = floatOf(bitsOf(std::ldexp(1.75f, e)) + j);
        // e5m2: 57344 = 448 * 2^7 has the same mantissa, so the same rows
        // sit just below powers of two.
        // max |x| of the row is exactly a.
        values.insert(values.end(),
                      {a, -a / 3, a / 2, 0.0f, a / 7, -a, a / 4, a * 0.999f});
        ++rows;
      }
    }
    QuantizeCase c{{rows, 8}, false, fmt, true, 1};
    auto out = runAndCompare(c, values, std::string("pow2 ") + elemName(fmt));
    ASSERT_EQ(out.size(), 2u);
    // Not vacuous: some scales rounded up to the power of two above s.
    int roundedUp = 0;
    for (int64_t r = 0; r < rows; ++r) {
      float s = f8ref::scaleOf(values[r * 8], fmt, /*pow2=*/false);
      if (out[1].data<float>()[r] > s)
        ++roundedUp;
    }
    EXPECT_GT(roundedUp, 50) << elemName(fmt);
  }
}

//===----------------------------------------------------------------------===//
// quantize: random tensors, every granularity, input and element type
//===----------------------------------------------------------------------===//

/// Random values over a wide exponent range with a few exact grid values,
/// zeros of both signs and values around ±max.
std::vector<float> randomValues(int64_t n, std::mt19937 &rng, float spread) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::uniform_int_distribution<int> exp(-int(spread), int(spread));
  std::uniform_int_distribution<int> kind(0, 19);
  std::vector<float> v(n);
  for (auto &x : v) {
    switch (kind(rng)) {
    case 0:
      x = 0.0f;
      break;
    case 1:
      x = -0.0f;
      break;
    case 2:
      x = 448.0f * (u(rng) > 0 ? 1 : -1);
      break;
    default:
      x = std::ldexp(u(rng), exp(rng));
    }
  }
  return v;
}

TEST(Float8QuantizeTest, RandomAgainstReference) {
  // Every combination in one module, compiled once.
  std::vector<QuantizeCase> cases;
  for (int64_t axis : {-1, 0, 1})
    for (bool bf16 : {false, true})
      for (Format fmt : {kE4M3, kE5M2})
        for (bool pow2 : {false, true})
          cases.push_back({{12, 32}, bf16, fmt, pow2, axis});
  std::string src;
  for (auto [i, c] : llvm::enumerate(cases))
    src += c.source("q" + std::to_string(i));
  auto exe = compileOrFail(src);
  ASSERT_TRUE(exe);
  std::mt19937 rng(1234);
  for (auto [i, c] : llvm::enumerate(cases)) {
    std::vector<float> values = randomValues(12 * 32, rng, 12);
    std::ostringstream tag;
    tag << "axis " << c.axis << (c.bf16 ? " bf16 " : " f32 ") << elemName(c.fmt)
        << (c.pow2 ? " pow2" : "");
    auto out =
        compareQuantize(*exe, "q" + std::to_string(i), c, values, tag.str());
    EXPECT_EQ(out.size(), 2u) << tag.str();
  }
  EXPECT_EQ(cases.size(), 24u);
}

// A NaN poisons only its own group; an Inf zeroes its group's scale; other
// groups are unaffected (SPEC-float8 §2.7, dense semantics).
TEST(Float8QuantizeTest, SpecialValuesPerGroup) {
  std::mt19937 rng(7);
  std::vector<float> values = randomValues(4 * 32, rng, 4);
  values[1 * 32 + 5] = std::numeric_limits<float>::quiet_NaN();
  values[2 * 32 + 9] = -std::numeric_limits<float>::infinity();
  QuantizeCase c{{4, 32}, false, kE4M3, false, 1};
  auto out = runAndCompare(c, values, "per-group specials");
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(std::isnan(out[1].data<float>()[1]));
  EXPECT_EQ(bitsOf(out[1].data<float>()[2]), 0u);
  EXPECT_EQ(int(out[0].bytes[2 * 32 + 9]), 0x7F);
  for (int i = 0; i < 32; ++i)
    EXPECT_EQ(int(out[0].bytes[32 + i]), 0x7F);
  EXPECT_TRUE(std::isfinite(out[1].data<float>()[0]));
  EXPECT_GT(out[1].data<float>()[0], 0.0f);
}

//===----------------------------------------------------------------------===//
// dequantize
//===----------------------------------------------------------------------===//

// Every byte of both formats, with rowwise scales (including non-powers of
// two, 0 and NaN) and a tensorwise scale, into f32 and bf16.
TEST(Float8DequantizeTest, AllBytesAgainstReference) {
  for (Format fmt : {kE4M3, kE5M2})
    for (bool bf16 : {false, true})
      for (bool tensorwise : {false, true}) {
        std::vector<float> rowScales = {1.0f,
                                        0.5f,
                                        3.0f,
                                        floatOf(0x3F6EEEEF),
                                        floatOf(0x57CBBA10),
                                        0.0f,
                                        std::numeric_limits<float>::quiet_NaN(),
                                        floatOf(0x03E0E0E1)};
        int64_t rows = tensorwise ? 1 : rowScales.size();
        std::string data = tensorType({rows, 256}, elemName(fmt));
        std::string scales =
            tensorwise ? "tensor<f32>" : tensorType({rows, 1}, "f32");
        std::string out = tensorType({rows, 256}, bf16 ? "bf16" : "f32");
        std::string src = "func.func @d(%q: " + data + ", %s: " + scales +
                          ") -> " + out +
                          " {\n  %x = mxfp8train.dequantize %q [%s] " +
                          (tensorwise ? "granularity = tensorwise"
                                      : "axis = 1 granularity = axiswise") +
                          " : " + data + " [" + scales + "] -> " + out +
                          "\n  return %x : " + out + "\n}\n";
        auto exe = compileOrFail(src);
        ASSERT_TRUE(exe);
        HostTensor q(fmt.e5m2 ? HostElementType::F8E5M2
                              : HostElementType::F8E4M3FN,
                     {rows, 256});
        for (int64_t r = 0; r < rows; ++r)
          for (int b = 0; b < 256; ++b)
            q.bytes[r * 256 + b] = uint8_t(b);
        HostTensor s(HostElementType::F32,
                     tensorwise ? llvm::ArrayRef<int64_t>{}
                                : llvm::ArrayRef<int64_t>{rows, 1});
        for (int64_t r = 0; r < rows; ++r)
          s.data<float>()[r] = tensorwise ? 0.375f : rowScales[r];
        auto res = runOrFail(*exe, "d", {q, s});
        ASSERT_EQ(res.size(), 1u);
        int errors = 0;
        for (int64_t r = 0; r < rows; ++r)
          for (int b = 0; b < 256; ++b) {
            float want = f8ref::dequantize(uint8_t(b), s.data<float>()[r], fmt);
            int64_t i = r * 256 + b;
            bool same;
            if (bf16) {
              uint16_t got = res[0].data<uint16_t>()[i];
              uint16_t w = f8ref::toBF16(want);
              same = std::isnan(want) ? (got & 0x7FFF) > 0x7F80 : got == w;
            } else {
              float got = res[0].data<float>()[i];
              same = std::isnan(want) ? std::isnan(got)
                                      : bitsOf(got) == bitsOf(want);
            }
            if (!same && ++errors <= 5)
              ADD_FAILURE() << elemName(fmt) << " byte 0x" << std::hex << b
                            << " scale " << s.data<float>()[r];
          }
      }
}

//===----------------------------------------------------------------------===//
// scaled_mm
//===----------------------------------------------------------------------===//

/// A random fp8 byte whose value lies in [2^-2, 2^3) in magnitude (or is 0):
/// every product is a multiple of 2^-10 below 2^8, so K = 64 sums are exact
/// in f32 in any order and the GEMM is bit-specifiable.
uint8_t randomGemmByte(std::mt19937 &rng, Format fmt) {
  std::uniform_int_distribution<int> any(0, 255);
  while (true) {
    uint8_t b = uint8_t(any(rng));
    double v = std::fabs(f8ref::decode(b, fmt));
    if (v == 0.0 || (v >= 0.25 && v < 8.0))
      return b;
  }
}

struct GemmCase {
  int64_t m, n, k;
  Format lhsFmt, rhsFmt;
  bool lhsTensorwise, rhsTensorwise, transposeLhs, transposeRhs, bias, bf16Out;
};

void runGemmCase(const GemmCase &c, std::mt19937 &rng, const std::string &tag) {
  llvm::SmallVector<int64_t> lhsShape =
      c.transposeLhs ? llvm::SmallVector<int64_t>{c.k, c.m}
                     : llvm::SmallVector<int64_t>{c.m, c.k};
  llvm::SmallVector<int64_t> rhsShape =
      c.transposeRhs ? llvm::SmallVector<int64_t>{c.n, c.k}
                     : llvm::SmallVector<int64_t>{c.k, c.n};
  llvm::SmallVector<int64_t> lhsScaleShape, rhsScaleShape;
  if (!c.lhsTensorwise)
    lhsScaleShape = c.transposeLhs ? llvm::SmallVector<int64_t>{1, c.m}
                                   : llvm::SmallVector<int64_t>{c.m, 1};
  if (!c.rhsTensorwise)
    rhsScaleShape = c.transposeRhs ? llvm::SmallVector<int64_t>{c.n, 1}
                                   : llvm::SmallVector<int64_t>{1, c.n};
  std::string lt = tensorType(lhsShape, elemName(c.lhsFmt));
  std::string rt = tensorType(rhsShape, elemName(c.rhsFmt));
  std::string lst = tensorType(lhsScaleShape, "f32");
  std::string rst = tensorType(rhsScaleShape, "f32");
  std::string outElem = c.bf16Out ? "bf16" : "f32";
  std::string ot = tensorType({c.m, c.n}, outElem);
  std::string bt = tensorType({c.n}, "bf16");
  std::ostringstream os;
  os << "func.func @mm(%a: " << lt << ", %as: " << lst << ", %b: " << rt
     << ", %bs: " << rst << (c.bias ? ", %bias: " + bt : "") << ") -> " << ot
     << " {\n  %y = mxfp8train.scaled_mm %a [%as], %b [%bs]"
     << (c.bias ? " bias(%bias)" : "")
     << (c.transposeLhs ? " transpose_lhs" : "")
     << (c.transposeRhs ? " transpose_rhs" : "") << " : " << lt << " [" << lst
     << "], " << rt << " [" << rst << "]" << (c.bias ? ", " + bt : "") << " -> "
     << ot << "\n  return %y : " << ot << "\n}\n";
  auto exe = compileOrFail(os.str());
  ASSERT_TRUE(exe) << tag;

  auto fmtType = [](Format f) {
    return f.e5m2 ? HostElementType::F8E5M2 : HostElementType::F8E4M3FN;
  };
  HostTensor a(fmtType(c.lhsFmt), lhsShape), b(fmtType(c.rhsFmt), rhsShape);
  for (auto &byte : a.bytes)
    byte = randomGemmByte(rng, c.lhsFmt);
  for (auto &byte : b.bytes)
    byte = randomGemmByte(rng, c.rhsFmt);
  // Scales: powers of two and arbitrary f32 values (non-pow2 rowwise).
  std::uniform_real_distribution<float> us(0.01f, 300.0f);
  HostTensor as(HostElementType::F32, lhsScaleShape),
      bs(HostElementType::F32, rhsScaleShape);
  for (int64_t i = 0; i < as.getNumElements(); ++i)
    as.data<float>()[i] =
        i % 3 == 0 ? std::ldexp(1.0f, int(i % 7) - 3) : us(rng);
  for (int64_t i = 0; i < bs.getNumElements(); ++i)
    bs.data<float>()[i] = i % 4 == 0 ? 64.0f : us(rng);
  HostTensor bias(HostElementType::BF16, {c.n});
  for (int64_t i = 0; i < c.n; ++i)
    bias.data<uint16_t>()[i] = f8ref::toBF16(us(rng) - 150.0f);
  std::vector<HostTensor> inputs = {a, as, b, bs};
  if (c.bias)
    inputs.push_back(bias);
  auto out = runOrFail(*exe, "mm", inputs);
  ASSERT_EQ(out.size(), 1u) << tag;

  int errors = 0;
  for (int64_t m = 0; m < c.m; ++m)
    for (int64_t n = 0; n < c.n; ++n) {
      double acc = 0;
      for (int64_t k = 0; k < c.k; ++k) {
        uint8_t qa = a.bytes[c.transposeLhs ? k * c.m + m : m * c.k + k];
        uint8_t qb = b.bytes[c.transposeRhs ? n * c.k + k : k * c.n + n];
        acc += f8ref::decode(qa, c.lhsFmt) * f8ref::decode(qb, c.rhsFmt);
      }
      float sa = c.lhsTensorwise ? as.data<float>()[0] : as.data<float>()[m];
      float sb = c.rhsTensorwise ? bs.data<float>()[0] : bs.data<float>()[n];
      float bv =
          c.bias ? floatOf(uint32_t(bias.data<uint16_t>()[n]) << 16) : 0.0f;
      float want = f8ref::gemmEpilogue(float(acc), sa, sb, bv);
      bool same;
      if (c.bf16Out)
        same = out[0].data<uint16_t>()[m * c.n + n] == f8ref::toBF16(want);
      else
        same = bitsOf(out[0].data<float>()[m * c.n + n]) == bitsOf(want);
      if (!same && ++errors <= 5)
        ADD_FAILURE() << tag << ": (" << m << ", " << n << ") want " << want;
    }
}

TEST(Float8ScaledMmTest, AgainstReference) {
  std::mt19937 rng(99);
  const std::vector<GemmCase> cases = {
      // Rowwise forward x @ Wᵀ, bias, bf16 out.
      {24, 32, 64, kE4M3, kE4M3, false, false, false, true, true, true},
      // Rowwise grad_weight gOᵀ @ x (transpose_lhs), f32 out.
      {32, 48, 16, kE4M3, kE4M3, false, false, true, false, false, false},
      // Tensorwise grad_input with e5m2 grad_output.
      {8, 16, 32, kE5M2, kE4M3, true, true, false, false, false, true},
      // rowwise_with_gw_hp grad_input: rowwise gO, tensorwise W.
      {5, 32, 48, kE4M3, kE4M3, false, true, false, false, false, true},
      // Tensorwise lhs, rowwise transposed rhs, f32 out with bias.
      {16, 16, 64, kE4M3, kE5M2, true, false, true, true, true, false},
  };
  for (auto [i, c] : llvm::enumerate(cases))
    runGemmCase(c, rng, "gemm case " + std::to_string(i));
}
} // namespace

//===----------------------------------------------------------------------===//
// scaled_grouped_mm
//===----------------------------------------------------------------------===//

namespace {
/// Random positive f32 scales, some powers of two.
void fillScales(HostTensor &t, std::mt19937 &rng) {
  std::uniform_real_distribution<float> us(0.01f, 300.0f);
  for (int64_t i = 0; i < t.getNumElements(); ++i)
    t.data<float>()[i] =
        i % 3 == 0 ? std::ldexp(1.0f, int(i % 5) - 2) : us(rng);
}

HostTensor makeOffs(const std::vector<int32_t> &offs) {
  HostTensor t(HostElementType::I32, {int64_t(offs.size())});
  for (size_t i = 0; i < offs.size(); ++i)
    t.data<int32_t>()[i] = offs[i];
  return t;
}

/// Compares a bf16 or f32 result element with the reference value.
bool sameOut(const HostTensor &t, int64_t i, float want, bool bf16) {
  if (bf16)
    return t.data<uint16_t>()[i] == f8ref::toBF16(want);
  return bitsOf(t.data<float>()[i]) == bitsOf(want);
}

// 2d-3d (forward with W stored (E, N, K)): rows of group g use expert g's
// per-(expert, n) scales; an empty group and rows past the last group.
TEST(Float8ScaledGroupedMmTest, TwoDThreeDAgainstReference) {
  const int64_t m = 40, k = 32, n = 16, e = 4;
  const std::vector<int32_t> offs = {7, 7, 20, 33}; // rows 33..39: no group
  for (bool bf16 : {true, false}) {
    std::string out = tensorType({m, n}, bf16 ? "bf16" : "f32");
    std::string src =
        "func.func @g(%a: tensor<40x32xf8E4M3FN>, %as: tensor<40x1xf32>, "
        "%w: tensor<4x16x32xf8E4M3FN>, %ws: tensor<4x16x1xf32>, %offs: "
        "tensor<4xi32>) -> " +
        out +
        " {\n  %y = mxfp8train.scaled_grouped_mm %a [%as], %w [%ws] "
        "offs(%offs) transpose_rhs : tensor<40x32xf8E4M3FN> "
        "[tensor<40x1xf32>], tensor<4x16x32xf8E4M3FN> [tensor<4x16x1xf32>], "
        "tensor<4xi32> -> " +
        out + "\n  return %y : " + out + "\n}\n";
    auto exe = compileOrFail(src);
    ASSERT_TRUE(exe);
    std::mt19937 rng(5);
    HostTensor a(HostElementType::F8E4M3FN, {m, k}),
        w(HostElementType::F8E4M3FN, {e, n, k});
    for (auto &byte : a.bytes)
      byte = randomGemmByte(rng, kE4M3);
    for (auto &byte : w.bytes)
      byte = randomGemmByte(rng, kE4M3);
    HostTensor as(HostElementType::F32, {m, 1}),
        ws(HostElementType::F32, {e, n, 1});
    fillScales(as, rng);
    fillScales(ws, rng);
    auto res = runOrFail(*exe, "g", {a, as, w, ws, makeOffs(offs)});
    ASSERT_EQ(res.size(), 1u);
    int errors = 0, nonZero = 0;
    for (int64_t r = 0; r < m; ++r) {
      int64_t g = 0;
      while (g < e && offs[g] <= r)
        ++g;
      for (int64_t c = 0; c < n; ++c) {
        float want = 0.0f;
        if (g < e) {
          double acc = 0;
          for (int64_t j = 0; j < k; ++j)
            acc += f8ref::decode(a.bytes[r * k + j], kE4M3) *
                   f8ref::decode(w.bytes[(g * n + c) * k + j], kE4M3);
          want = f8ref::gemmEpilogue(float(acc), as.data<float>()[r],
                                     ws.data<float>()[g * n + c], 0.0f);
        }
        nonZero += want != 0.0f;
        if (!sameOut(res[0], r * n + c, want, bf16) && ++errors <= 5)
          ADD_FAILURE() << "2d-3d (" << r << ", " << c << ") want " << want;
      }
    }
    EXPECT_GT(nonZero, 400);
  }
}

// 2d-2d (wgrad, dO stored (M, N) and x stored (M, K)): per-(group, column)
// scales; an empty group gives exact zeros even with a zero scale.
TEST(Float8ScaledGroupedMmTest, TwoDTwoDAgainstReference) {
  const int64_t m = 48, n = 16, k = 32, e = 4;
  const std::vector<int32_t> offs = {16, 16, 35, 48};
  std::string src =
      "func.func @g(%go: tensor<48x16xf8E4M3FN>, %gos: tensor<4x16xf32>, "
      "%x: tensor<48x32xf8E4M3FN>, %xs: tensor<4x32xf32>, %offs: "
      "tensor<4xi32>) -> tensor<4x16x32xbf16> {\n  %y = "
      "mxfp8train.scaled_grouped_mm %go [%gos], %x [%xs] offs(%offs) "
      "transpose_lhs : tensor<48x16xf8E4M3FN> [tensor<4x16xf32>], "
      "tensor<48x32xf8E4M3FN> [tensor<4x32xf32>], tensor<4xi32> -> "
      "tensor<4x16x32xbf16>\n  return %y : tensor<4x16x32xbf16>\n}\n";
  auto exe = compileOrFail(src);
  ASSERT_TRUE(exe);
  std::mt19937 rng(11);
  HostTensor go(HostElementType::F8E4M3FN, {m, n}),
      x(HostElementType::F8E4M3FN, {m, k});
  for (auto &byte : go.bytes)
    byte = randomGemmByte(rng, kE4M3);
  for (auto &byte : x.bytes)
    byte = randomGemmByte(rng, kE4M3);
  HostTensor gos(HostElementType::F32, {e, n}),
      xs(HostElementType::F32, {e, k});
  fillScales(gos, rng);
  fillScales(xs, rng);
  gos.data<float>()[1 * n + 3] = 0.0f; // group 1 is empty
  auto res = runOrFail(*exe, "g", {go, gos, x, xs, makeOffs(offs)});
  ASSERT_EQ(res.size(), 1u);
  int errors = 0;
  for (int64_t g = 0; g < e; ++g) {
    int64_t start = g == 0 ? 0 : offs[g - 1], end = offs[g];
    for (int64_t r = 0; r < n; ++r)
      for (int64_t c = 0; c < k; ++c) {
        double acc = 0;
        for (int64_t t = start; t < end; ++t)
          acc += f8ref::decode(go.bytes[t * n + r], kE4M3) *
                 f8ref::decode(x.bytes[t * k + c], kE4M3);
        float want =
            start == end
                ? 0.0f
                : f8ref::gemmEpilogue(float(acc), gos.data<float>()[g * n + r],
                                      xs.data<float>()[g * k + c], 0.0f);
        if (!sameOut(res[0], (g * n + r) * k + c, want, true) && ++errors <= 5)
          ADD_FAILURE() << "2d-2d (" << g << ", " << r << ", " << c << ") want "
                        << want;
      }
  }
}
} // namespace
