//===- QuantizeExecutionTest.cpp - quantize on the CPU ----------*- C++ -*-===//
//
// Execution tests of convert-mxfp8train-to-linalg: modules are lowered with
// the CPU pipeline, JIT-compiled through CPUExecutable and run on host data.
// quantize / dequantize results are compared byte for byte with the SPEC §2.7
// table and with the independent reference of Reference.h; scaled_mm is
// compared with a float64 reference on the dequantized operands.
//
//===----------------------------------------------------------------------===//

#include "Reference.h"
#include "TestUtils.h"

#include <map>
#include <random>
#include <sstream>
#include <string>

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mxtest;
using mxref::Format;
using mxref::Mode;

//===----------------------------------------------------------------------===//
// Harness
//===----------------------------------------------------------------------===//

namespace {
const char *modeName(Mode m) {
  switch (m) {
  case Mode::Floor:
    return "floor";
  case Mode::Rceil:
    return "rceil";
  case Mode::Ceil:
    return "ceil";
  case Mode::Even:
    return "even";
  }
  return "?";
}

/// Row-major scale shape of data `shape` blocked along `axis`.
llvm::SmallVector<int64_t> scaleShapeOf(llvm::ArrayRef<int64_t> shape,
                                        int64_t axis) {
  llvm::SmallVector<int64_t> s(shape);
  s[axis] /= 32;
  return s;
}

/// The scale tensor type of data `shape` blocked along `axis`: row-major,
/// or the 1-D blocked layout of a 2-D tensor.
std::string scalesTypeOf(llvm::ArrayRef<int64_t> shape, int64_t axis,
                         bool blocked) {
  if (blocked)
    return tensorType({mxref::blockedSize(shape[1 - axis], shape[axis] / 32)},
                      "f8E8M0FNU");
  return tensorType(scaleShapeOf(shape, axis), "f8E8M0FNU");
}

/// One quantize function: `@name(x) -> (data, scales)`.
std::string quantizeFunc(const std::string &name, llvm::ArrayRef<int64_t> shape,
                         int64_t axis, bool bf16, Mode mode, bool e5m2,
                         bool blocked) {
  std::string in = tensorType(shape, bf16 ? "bf16" : "f32");
  std::string data = tensorType(shape, e5m2 ? "f8E5M2" : "f8E4M3FN");
  std::string scales = scalesTypeOf(shape, axis, blocked);
  std::ostringstream os;
  os << "func.func @" << name << "(%x: " << in << ") -> (" << data << ", "
     << scales << ") {\n"
     << "  %q, %s = mxfp8train.quantize %x axis = " << axis
     << " mode = " << modeName(mode) << (blocked ? " layout = blocked" : "")
     << " : " << in << " -> " << data << ", " << scales << "\n"
     << "  return %q, %s : " << data << ", " << scales << "\n}\n";
  return os.str();
}

/// One dequantize function: `@name(q, s) -> x`.
std::string dequantizeFunc(const std::string &name,
                           llvm::ArrayRef<int64_t> shape, int64_t axis,
                           bool e5m2, bool bf16Out, bool blocked) {
  std::string data = tensorType(shape, e5m2 ? "f8E5M2" : "f8E4M3FN");
  std::string scales = scalesTypeOf(shape, axis, blocked);
  std::string out = tensorType(shape, bf16Out ? "bf16" : "f32");
  std::ostringstream os;
  os << "func.func @" << name << "(%q: " << data << ", %s: " << scales
     << ") -> " << out << " {\n"
     << "  %x = mxfp8train.dequantize %q [%s] axis = " << axis
     << (blocked ? " layout = blocked" : "") << " : " << data << " [" << scales
     << "] -> " << out << "\n"
     << "  return %x : " << out << "\n}\n";
  return os.str();
}

/// Writes an f32 or bf16 input tensor from fp32 values (bf16: the values
/// must already be bf16-representable).
HostTensor makeInput(llvm::ArrayRef<int64_t> shape, bool bf16,
                     const std::vector<float> &values) {
  HostTensor t(bf16 ? HostElementType::BF16 : HostElementType::F32, shape);
  for (size_t i = 0; i < values.size(); ++i) {
    if (bf16)
      t.data<uint16_t>()[i] = uint16_t(mxref::bitsOf(values[i]) >> 16);
    else
      t.data<float>()[i] = values[i];
  }
  return t;
}

/// Visits the blocks of a tensor of `shape` blocked along `axis`: calls
/// `fn(blockIndex, offsets)` with the 32 flat element offsets of each block,
/// blockIndex being the flat index into the row-major scale tensor.
template <typename Fn>
void forEachBlock(llvm::ArrayRef<int64_t> shape, int64_t axis, Fn fn) {
  int64_t rank = shape.size();
  llvm::SmallVector<int64_t> strides(rank, 1);
  for (int64_t i = rank - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  llvm::SmallVector<int64_t> sshape = scaleShapeOf(shape, axis);
  int64_t numBlocks = 1;
  for (int64_t d : sshape)
    numBlocks *= d;
  std::vector<int64_t> offsets(32);
  for (int64_t blk = 0; blk < numBlocks; ++blk) {
    // Multi-index of the block in the scale tensor.
    int64_t rem = blk, base = 0;
    for (int64_t i = rank - 1; i >= 0; --i) {
      int64_t idx = rem % sshape[i];
      rem /= sshape[i];
      base += (i == axis ? idx * 32 : idx) * strides[i];
    }
    for (int64_t j = 0; j < 32; ++j)
      offsets[j] = base + j * strides[axis];
    fn(blk, offsets);
  }
}

/// Reference quantization of a whole tensor of fp32 `values`.
void referenceQuantize(llvm::ArrayRef<int64_t> shape, int64_t axis,
                       const std::vector<float> &values, Mode mode,
                       const Format &fmt, std::vector<uint8_t> &data,
                       std::vector<uint8_t> &scales) {
  data.assign(values.size(), 0);
  int64_t numBlocks = int64_t(values.size()) / 32;
  scales.assign(numBlocks, 0);
  std::vector<double> block(32);
  std::vector<uint8_t> codes;
  forEachBlock(shape, axis, [&](int64_t blk, const std::vector<int64_t> &off) {
    for (int j = 0; j < 32; ++j)
      block[j] = values[off[j]];
    int byte;
    mxref::quantizeBlock(block, mode, fmt, byte, codes);
    scales[blk] = uint8_t(byte);
    for (int j = 0; j < 32; ++j)
      data[off[j]] = codes[j];
  });
}

std::string hexByte(int b) {
  char buf[8];
  snprintf(buf, sizeof(buf), "0x%02X", b & 0xFF);
  return buf;
}
} // namespace

//===----------------------------------------------------------------------===//
// SPEC §2.7: the special-value contract, literal expectations
//===----------------------------------------------------------------------===//

namespace {
/// One row of SPEC §2.7: a block [first, rest x 31] and the expected scale
/// byte and data bytes (first element, the other 31) for FLOOR and RCEIL.
struct SpecialCase {
  const char *name;
  uint32_t first, rest; ///< fp32 bit patterns of the inputs
  int floorByte, floorFirst, floorRest;
  int rceilByte, rceilFirst, rceilRest;
};

constexpr uint32_t kInf = 0x7F800000, kNaN = 0x7FC00000, kOne = 0x3F800000;
constexpr uint32_t kF32Max = 0x7F7FFFFF, kBF16Max = 0x7F7F0000;
constexpr uint32_t kF32MinSub = 0x00000001, kBF16MinSub = 0x00010000;
constexpr uint32_t kMinNormal = 0x00800000;
constexpr uint32_t kNeg = 0x80000000;

// name, first, rest, FLOOR: byte, data[0], data[1..31], RCEIL: the same.
// NaN data is 0x7F (the lowering's documented choice of the two encodings).
const SpecialCase kCommonCases[] = {
    {"zero", 0, 0, 0, 0x00, 0x00, 0, 0x00, 0x00},
    {"smallest_normal", kMinNormal, kMinNormal, 0, 0x40, 0x40, 0, 0x40, 0x40},
    {"mixed_inf", kInf, kOne, 255, 0x7F, 0x7F, 255, 0x7F, 0x7F},
    {"mixed_neg_inf", kNeg | kInf, kOne, 255, 0x7F, 0x7F, 255, 0x7F, 0x7F},
    {"mixed_nan", kNaN, kOne, 255, 0x7F, 0x7F, 255, 0x7F, 0x7F},
    {"all_nan", kNaN, kNaN, 255, 0x7F, 0x7F, 255, 0x7F, 0x7F},
    {"pos_448", 0x43E00000, 0x43E00000, 127, 0x7E, 0x7E, 127, 0x7E, 0x7E},
    {"neg_448", kNeg | 0x43E00000, kNeg | 0x43E00000, 127, 0xFE, 0xFE, 127,
     0xFE, 0xFE},
    {"pos_480", 0x43F00000, 0x43F00000, 127, 0x7E, 0x7E, 128, 0x77, 0x77},
    {"neg_480", kNeg | 0x43F00000, kNeg | 0x43F00000, 127, 0xFE, 0xFE, 128,
     0xF7, 0xF7},
};

const SpecialCase kF32Cases[] = {
    {"pos_f32_max", kF32Max, kF32Max, 246, 0x7E, 0x7E, 247, 0x78, 0x78},
    {"neg_f32_max", kNeg | kF32Max, kNeg | kF32Max, 246, 0xFE, 0xFE, 247, 0xF8,
     0xF8},
    {"pos_f32_min_subnormal", kF32MinSub, kF32MinSub, 0, 0x00, 0x00, 0, 0x00,
     0x00},
    {"neg_f32_min_subnormal", kNeg | kF32MinSub, kNeg | kF32MinSub, 0, 0x80,
     0x80, 0, 0x80, 0x80},
    {"mixed_pos_underflow", kF32MinSub, kOne, 119, 0x00, 0x78, 119, 0x00, 0x78},
    {"mixed_neg_underflow", kNeg | kF32MinSub, kOne, 119, 0x80, 0x78, 119, 0x80,
     0x78},
    {"saturation_underflow", kF32Max, kOne, 246, 0x7E, 0x00, 247, 0x78, 0x00},
    {"f32_3.5_plus_ulp", 0x40600001, 0x40600001, 120, 0x7E, 0x7E, 121, 0x76,
     0x76},
    {"f32_below_512", 0x43FFFFFF, 0x43FFFFFF, 127, 0x7E, 0x7E, 128, 0x78, 0x78},
    // SPEC §10 A1: FLOOR follows the reference formula max(e - 8, 0) = 0
    // (data saturates to 448), not the kernels' byte 1.
    {"a1_floor_amax_047FFFFF", 0x047FFFFF, 0x047FFFFF, 0, 0x7E, 0x7E, 1, 0x78,
     0x78},
};

const SpecialCase kBF16Cases[] = {
    {"pos_bf16_max", kBF16Max, kBF16Max, 246, 0x7E, 0x7E, 247, 0x78, 0x78},
    {"neg_bf16_max", kNeg | kBF16Max, kNeg | kBF16Max, 246, 0xFE, 0xFE, 247,
     0xF8, 0xF8},
    {"pos_bf16_min_subnormal", kBF16MinSub, kBF16MinSub, 0, 0x08, 0x08, 0, 0x08,
     0x08},
    {"neg_bf16_min_subnormal", kNeg | kBF16MinSub, kNeg | kBF16MinSub, 0, 0x88,
     0x88, 0, 0x88, 0x88},
    {"mixed_pos_underflow", kBF16MinSub, kOne, 119, 0x00, 0x78, 119, 0x00,
     0x78},
    {"mixed_neg_underflow", kNeg | kBF16MinSub, kOne, 119, 0x80, 0x78, 119,
     0x80, 0x78},
    {"saturation_underflow", kBF16Max, kOne, 246, 0x7E, 0x00, 247, 0x78, 0x00},
    {"bf16_3.5", 0x40600000, 0x40600000, 120, 0x7E, 0x7E, 120, 0x7E, 0x7E},
    {"bf16_512", 0x44000000, 0x44000000, 128, 0x78, 0x78, 128, 0x78, 0x78},
};

/// Runs every case of `cases` as one row of a (numCases, 32) tensor along
/// axis 1 and as one column of a (32, numCases) tensor along axis 0.
void checkSpecialCases(llvm::ArrayRef<SpecialCase> cases, bool bf16) {
  int64_t n = cases.size();
  std::string mod;
  for (Mode mode : {Mode::Floor, Mode::Rceil}) {
    mod += quantizeFunc(std::string("rows_") + modeName(mode), {n, 32}, 1, bf16,
                        mode, false, false);
    mod += quantizeFunc(std::string("cols_") + modeName(mode), {32, n}, 0, bf16,
                        mode, false, false);
  }
  auto exe = compileOrFail(mod);
  ASSERT_TRUE(exe);
  std::vector<float> rows(n * 32), cols(n * 32);
  for (int64_t c = 0; c < n; ++c) {
    for (int64_t j = 0; j < 32; ++j) {
      float v = mxref::floatOf(j == 0 ? cases[c].first : cases[c].rest);
      rows[c * 32 + j] = v;
      cols[j * n + c] = v;
    }
  }
  for (Mode mode : {Mode::Floor, Mode::Rceil}) {
    bool fl = mode == Mode::Floor;
    for (bool colwise : {false, true}) {
      std::string fn =
          std::string(colwise ? "cols_" : "rows_") + modeName(mode);
      llvm::SmallVector<int64_t> shape =
          colwise ? llvm::SmallVector<int64_t>{32, n}
                  : llvm::SmallVector<int64_t>{n, 32};
      auto out =
          runOrFail(*exe, fn, {makeInput(shape, bf16, colwise ? cols : rows)});
      ASSERT_EQ(out.size(), 2u);
      for (int64_t c = 0; c < n; ++c) {
        const SpecialCase &sc = cases[c];
        int wantByte = fl ? sc.floorByte : sc.rceilByte;
        int wantFirst = fl ? sc.floorFirst : sc.rceilFirst;
        int wantRest = fl ? sc.floorRest : sc.rceilRest;
        EXPECT_EQ(out[1].data<uint8_t>()[c], wantByte)
            << sc.name << " " << fn << (bf16 ? " bf16" : " f32");
        for (int64_t j = 0; j < 32; ++j) {
          int64_t off = colwise ? j * n + c : c * 32 + j;
          EXPECT_EQ(hexByte(out[0].data<uint8_t>()[off]),
                    hexByte(j == 0 ? wantFirst : wantRest))
              << sc.name << " element " << j << " " << fn
              << (bf16 ? " bf16" : " f32");
        }
      }
    }
  }
}
} // namespace

TEST(QuantizeSpecialValues, F32Input) {
  std::vector<SpecialCase> cases(std::begin(kCommonCases),
                                 std::end(kCommonCases));
  cases.insert(cases.end(), std::begin(kF32Cases), std::end(kF32Cases));
  checkSpecialCases(cases, /*bf16=*/false);
}

TEST(QuantizeSpecialValues, BF16Input) {
  std::vector<SpecialCase> cases(std::begin(kCommonCases),
                                 std::end(kCommonCases));
  cases.insert(cases.end(), std::begin(kBF16Cases), std::end(kBF16Cases));
  checkSpecialCases(cases, /*bf16=*/true);
}

/// The reference reproduces the literal table too (guards Reference.h).
TEST(QuantizeSpecialValues, ReferenceAgreesWithTable) {
  for (bool bf16 : {false, true}) {
    std::vector<SpecialCase> cases(std::begin(kCommonCases),
                                   std::end(kCommonCases));
    if (bf16)
      cases.insert(cases.end(), std::begin(kBF16Cases), std::end(kBF16Cases));
    else
      cases.insert(cases.end(), std::begin(kF32Cases), std::end(kF32Cases));
    for (const SpecialCase &sc : cases) {
      std::vector<double> block(32, mxref::floatOf(sc.rest));
      block[0] = mxref::floatOf(sc.first);
      for (Mode mode : {Mode::Floor, Mode::Rceil}) {
        bool fl = mode == Mode::Floor;
        int byte;
        std::vector<uint8_t> codes;
        mxref::quantizeBlock(block, mode, mxref::kE4M3, byte, codes);
        EXPECT_EQ(byte, fl ? sc.floorByte : sc.rceilByte) << sc.name;
        EXPECT_EQ(codes[0], fl ? sc.floorFirst : sc.rceilFirst) << sc.name;
        EXPECT_EQ(codes[1], fl ? sc.floorRest : sc.rceilRest) << sc.name;
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// Random blocks vs the reference
//===----------------------------------------------------------------------===//

namespace {
/// Generator of adversarial 32-element blocks.
class BlockGenerator {
public:
  explicit BlockGenerator(uint64_t seed) : rng(seed) {}

  /// Fills `block` with 32 fp32 values of a randomly chosen kind; with
  /// `bf16`, every value is rounded to a bf16-representable one.
  void next(std::vector<float> &block, bool bf16, const Format &fmt) {
    block.resize(32);
    int kind = int(uniform(0, 11));
    switch (kind) {
    case 0: // Gaussian with a random overall exponent (wide range).
    {
      int e = int(uniform(-150, 127));
      for (float &v : block)
        v = clampFinite(normal() * std::ldexp(1.0, e));
      break;
    }
    case 1: // Wide dynamic range inside the block.
    {
      int top = int(uniform(-100, 127));
      for (float &v : block)
        v = clampFinite(sign() * (1.0 + uniform(0, 1)) *
                        std::ldexp(1.0, top - int(uniform(0, 60))));
      break;
    }
    case 2: // fp32 / bf16 subnormals (and a few tiny normals).
      for (float &v : block)
        v = sign() * std::ldexp(uniform(0, 1), -126 - int(uniform(0, 24)));
      break;
    case 3: // Values whose scaled image is near an fp8 rounding tie.
    {
      int byte = int(uniform(100, 150));
      for (float &v : block) {
        int code = int(uniform(0, fmt.e4m3fn ? 126 : 123));
        double lo = mxref::decode(uint8_t(code), fmt);
        double hi = mxref::decode(uint8_t(code + 1), fmt);
        double tie = (lo + hi) / 2;
        uint32_t bits = mxref::bitsOf(float(tie * std::ldexp(1.0, byte - 127)));
        bits += int(uniform(-2, 3)); // the tie itself, or a few ulps off
        v = sign() * std::fabs(mxref::floatOf(bits));
      }
      break;
    }
    case 4: // amax near 448 / 464 / 480 / 496 / 512 times a power of two.
    {
      static const double marks[] = {448, 464, 480,   496,   512,
                                     256, 224, 57344, 61440, 28672};
      double mark = marks[int(uniform(0, 10))];
      int shift = int(uniform(-130, 100));
      for (float &v : block)
        v = clampFinite(sign() * mark * std::ldexp(1.0, shift) *
                        (1.0 + uniform(-1, 1) * 0.02));
      // One exact mark with +-1 ulp.
      uint32_t bits = mxref::bitsOf(float(mark * std::ldexp(1.0, shift))) +
                      int(uniform(-1, 2));
      block[int(uniform(0, 32))] = mxref::floatOf(bits);
      break;
    }
    case 5: // Signed zeros, some values.
      for (float &v : block) {
        double u = uniform(0, 1);
        v = u < 0.4 ? 0.0f : (u < 0.8 ? -0.0f : float(normal()));
      }
      break;
    case 6: // All signed zeros.
      for (float &v : block)
        v = uniform(0, 1) < 0.5 ? 0.0f : -0.0f;
      break;
    case 7: // Random finite fp32 bit patterns.
      for (float &v : block) {
        uint32_t bits;
        do {
          bits = uint32_t(rng());
        } while ((bits & 0x7F800000) == 0x7F800000);
        v = mxref::floatOf(bits);
      }
      break;
    case 8: // Non-finite entries in an otherwise normal block.
    {
      for (float &v : block)
        v = float(normal());
      double u = uniform(0, 1);
      float special = u < 0.33 ? INFINITY : (u < 0.66 ? -INFINITY : NAN);
      block[int(uniform(0, 32))] = special;
      break;
    }
    case 9: // amax with all mantissa patterns near a binade boundary (EVEN,
            // CEIL, RCEIL edges): 1.875, 1.9375, 1.96875, (1 + 2^-23).
    {
      static const double fracs[] = {1.875, 1.9375,        1.96875,
                                     1.0,   1.0 + 0x1p-23, 2.0 - 0x1p-23,
                                     1.75,  1.8125};
      double f = fracs[int(uniform(0, 8))];
      int e = int(uniform(-140, 127));
      for (float &v : block)
        v = float(normal() * std::ldexp(1.0, e - 2));
      uint32_t bits = mxref::bitsOf(float(f * std::ldexp(1.0, e)));
      bits += int(uniform(-1, 2));
      block[int(uniform(0, 32))] = mxref::floatOf(bits) * float(sign());
      break;
    }
    default: // Uniform magnitudes in one binade (typical activations).
    {
      int e = int(uniform(-20, 20));
      for (float &v : block)
        v = float(sign() * uniform(0, 1) * std::ldexp(1.0, e));
      break;
    }
    }
    if (bf16)
      for (float &v : block)
        v = mxref::bf16ToFloat(roundBF16(v));
  }

private:
  double uniform(double lo, double hi) {
    return lo + (hi - lo) * (double(rng() >> 11) * 0x1p-53);
  }
  double sign() { return (rng() & 1) ? -1.0 : 1.0; }
  double normal() {
    double u1 = uniform(0, 1) + 0x1p-60, u2 = uniform(0, 1);
    return std::sqrt(-2 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }
  static float clampFinite(double v) {
    double m = 3.4028234663852886e38;
    return float(v > m ? m : (v < -m ? -m : v));
  }
  /// f32 -> bf16 bits by round to nearest even (NaN kept as quiet NaN).
  static uint16_t roundBF16(float f) {
    if (std::isnan(f))
      return 0x7FC0;
    if (std::isinf(f))
      return uint16_t(mxref::bitsOf(f) >> 16);
    return mxref::roundToBF16(double(f));
  }

  std::mt19937_64 rng;
};

struct RandomConfig {
  bool bf16;
  Mode mode;
  int64_t axis;
  bool e5m2;
  llvm::SmallVector<int64_t> shape;
  std::string name() const {
    return std::string("q_") + (bf16 ? "bf16_" : "f32_") + modeName(mode) +
           "_a" + std::to_string(axis) + (e5m2 ? "_e5m2" : "_e4m3") + "_r" +
           std::to_string(shape.size());
  }
};

/// Generates adversarial data of `shape`, quantizes it with the lowering and
/// the reference, and compares every byte.
void checkRandomQuantize(const CPUExecutable &exe, const RandomConfig &cfg,
                         uint64_t seed) {
  const Format &fmt = cfg.e5m2 ? mxref::kE5M2 : mxref::kE4M3;
  int64_t numel = 1;
  for (int64_t d : cfg.shape)
    numel *= d;
  std::vector<float> values(numel);
  BlockGenerator gen(seed);
  std::vector<float> block;
  forEachBlock(cfg.shape, cfg.axis,
               [&](int64_t, const std::vector<int64_t> &off) {
                 gen.next(block, cfg.bf16, fmt);
                 for (int j = 0; j < 32; ++j)
                   values[off[j]] = block[j];
               });
  std::vector<uint8_t> wantData, wantScales;
  referenceQuantize(cfg.shape, cfg.axis, values, cfg.mode, fmt, wantData,
                    wantScales);
  auto out =
      runOrFail(exe, cfg.name(), {makeInput(cfg.shape, cfg.bf16, values)});
  ASSERT_EQ(out.size(), 2u);
  int scaleErrors = 0, dataErrors = 0;
  for (size_t i = 0; i < wantScales.size(); ++i) {
    uint8_t got = out[1].data<uint8_t>()[i];
    if (got != wantScales[i] && ++scaleErrors <= 5)
      ADD_FAILURE() << cfg.name() << " block " << i << ": scale byte "
                    << int(got) << ", expected " << int(wantScales[i]);
  }
  for (size_t i = 0; i < wantData.size(); ++i) {
    uint8_t got = out[0].data<uint8_t>()[i];
    if (got != wantData[i] && ++dataErrors <= 5)
      ADD_FAILURE() << cfg.name() << " element " << i << " (input bits "
                    << std::hex << mxref::bitsOf(values[i]) << std::dec
                    << "): " << hexByte(got) << ", expected "
                    << hexByte(wantData[i]);
  }
  EXPECT_EQ(scaleErrors, 0) << cfg.name();
  EXPECT_EQ(dataErrors, 0) << cfg.name();
}

/// Every combination of input type, mode, axis and element type, plus rank
/// 1 and rank 3 tensors blocked along a middle axis.
std::vector<RandomConfig> getRandomConfigs() {
  std::vector<RandomConfig> configs;
  for (bool e5m2 : {false, true})
    for (bool bf16 : {false, true})
      for (Mode mode : {Mode::Floor, Mode::Rceil, Mode::Ceil, Mode::Even})
        for (int64_t axis : {0, 1})
          configs.push_back({bf16, mode, axis, e5m2,
                             axis == 1 ? llvm::SmallVector<int64_t>{64, 1024}
                                       : llvm::SmallVector<int64_t>{1024, 64}});
  for (Mode mode : {Mode::Floor, Mode::Rceil, Mode::Ceil, Mode::Even}) {
    configs.push_back({false, mode, 1, false, {3, 96, 40}});
    configs.push_back({true, mode, 0, false, {4096}});
  }
  return configs;
}

/// One JIT-compiled module holding every random-quantize configuration.
class RandomQuantize : public CompiledSuite<RandomQuantize> {
public:
  static std::string getModuleSource() {
    std::string mod;
    for (const RandomConfig &cfg : getRandomConfigs())
      mod += quantizeFunc(cfg.name(), cfg.shape, cfg.axis, cfg.bf16, cfg.mode,
                          cfg.e5m2, false);
    return mod;
  }
};
} // namespace

TEST_F(RandomQuantize, AllModesAxesAndTypes) {
  ASSERT_TRUE(exe);
  uint64_t seed = 1;
  for (const RandomConfig &cfg : getRandomConfigs())
    for (int rep = 0; rep < 2; ++rep)
      checkRandomQuantize(*exe, cfg, 1000 * seed++ + rep);
}

//===----------------------------------------------------------------------===//
// Dequantize vs the reference, all byte values
//===----------------------------------------------------------------------===//

namespace {
/// Compares a bf16/f32 output element with a reference double (the exact
/// dequantized value): bit-exact after rounding, NaN matches any NaN.
bool sameRounded(const HostTensor &t, int64_t i, double want,
                 std::string &detail) {
  if (t.type == HostElementType::F32) {
    float got = t.data<float>()[i];
    if (std::isnan(want))
      return std::isnan(got);
    float w = float(want); // exact values: the cast is RNE into f32
    detail = std::to_string(got) + " vs " + std::to_string(w);
    return mxref::bitsOf(got) == mxref::bitsOf(w);
  }
  uint16_t got = t.data<uint16_t>()[i];
  if (std::isnan(want))
    return (got & 0x7FFF) > 0x7F80;
  uint16_t w = mxref::roundToBF16(want);
  char buf[64];
  snprintf(buf, sizeof(buf), "bf16 0x%04X vs 0x%04X", got, w);
  detail = buf;
  return got == w;
}
} // namespace

TEST(Dequantize, AllBytesExact) {
  struct Config {
    bool e5m2, bf16Out;
    int64_t axis;
    bool blocked;
    llvm::SmallVector<int64_t> shape;
    std::string name() const {
      return std::string("dq_") + (e5m2 ? "e5m2_" : "e4m3_") +
             (bf16Out ? "bf16_" : "f32_") + "a" + std::to_string(axis) +
             (blocked ? "_blocked" : "") + "_r" + std::to_string(shape.size());
    }
  };
  std::vector<Config> configs;
  for (bool e5m2 : {false, true})
    for (bool bf16Out : {false, true})
      for (int64_t axis : {0, 1})
        for (bool blocked : {false, true})
          configs.push_back({e5m2, bf16Out, axis, blocked,
                             axis == 1 ? llvm::SmallVector<int64_t>{160, 256}
                                       : llvm::SmallVector<int64_t>{256, 160}});
  configs.push_back({false, false, 1, false, {2, 64, 3}});
  configs.push_back({true, true, 2, false, {3, 2, 64}});
  std::string mod;
  for (const Config &c : configs)
    mod +=
        dequantizeFunc(c.name(), c.shape, c.axis, c.e5m2, c.bf16Out, c.blocked);
  auto exe = compileOrFail(mod);
  ASSERT_TRUE(exe);
  std::mt19937_64 rng(77);
  for (const Config &c : configs) {
    const Format &fmt = c.e5m2 ? mxref::kE5M2 : mxref::kE4M3;
    HostTensor q(c.e5m2 ? HostElementType::F8E5M2 : HostElementType::F8E4M3FN,
                 c.shape);
    // Every byte value appears many times.
    for (int64_t i = 0; i < q.getNumElements(); ++i)
      q.data<uint8_t>()[i] = uint8_t(i * 7 + (rng() % 3));
    llvm::SmallVector<int64_t> sshape = scaleShapeOf(c.shape, c.axis);
    HostTensor srm(HostElementType::F8E8M0FNU, sshape);
    for (int64_t i = 0; i < srm.getNumElements(); ++i)
      srm.data<uint8_t>()[i] = uint8_t(rng() % 256);
    // Make sure the extremes are present.
    srm.data<uint8_t>()[0] = 0;
    srm.data<uint8_t>()[1] = 254;
    srm.data<uint8_t>()[2] = 255;
    srm.data<uint8_t>()[3] = 127;
    HostTensor s = srm;
    if (c.blocked) {
      int64_t rows = c.shape[1 - c.axis], cols = c.shape[c.axis] / 32;
      s = HostTensor(HostElementType::F8E8M0FNU,
                     {mxref::blockedSize(rows, cols)});
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t col = 0; col < cols; ++col) {
          int64_t rm = c.axis == 1 ? r * cols + col : col * rows + r;
          s.data<uint8_t>()[mxref::blockedOffset(r, col, cols)] =
              srm.data<uint8_t>()[rm];
        }
    }
    auto out = runOrFail(*exe, c.name(), {q, s});
    ASSERT_EQ(out.size(), 1u);
    int errors = 0;
    forEachBlock(
        c.shape, c.axis, [&](int64_t blk, const std::vector<int64_t> &off) {
          double scale = mxref::decodeScale(srm.data<uint8_t>()[blk]);
          for (int j = 0; j < 32; ++j) {
            double want = mxref::decode(q.data<uint8_t>()[off[j]], fmt) * scale;
            std::string detail;
            if (!sameRounded(out[0], off[j], want, detail) && ++errors <= 5)
              ADD_FAILURE() << c.name() << " element " << off[j] << " byte "
                            << hexByte(q.data<uint8_t>()[off[j]]) << " scale "
                            << int(srm.data<uint8_t>()[blk]) << ": " << detail;
          }
        });
    EXPECT_EQ(errors, 0) << c.name();
  }
}

//===----------------------------------------------------------------------===//
// Blocked scale layout (SPEC §4.1)
//===----------------------------------------------------------------------===//

TEST(BlockedLayout, QuantizeAndDequantizeMatchFormula) {
  // (R, C) scale-matrix shapes of torchao's to_blocked tests.
  const std::pair<int64_t, int64_t> shapes[] = {{128, 4},   {100, 3}, {50, 10},
                                                {63, 1023}, {128, 1}, {300, 9}};
  // The data whose (rows, cols) scale matrix is blocked along `axis`.
  auto dataShapeOf = [](int64_t rows, int64_t cols, int64_t axis) {
    return axis == 1 ? llvm::SmallVector<int64_t>{rows, cols * 32}
                     : llvm::SmallVector<int64_t>{cols * 32, rows};
  };
  auto tagOf = [](int64_t rows, int64_t cols, int64_t axis) {
    return std::to_string(rows) + "_" + std::to_string(cols) + "_a" +
           std::to_string(axis);
  };
  std::string mod;
  for (auto [rows, cols] : shapes) {
    for (int64_t axis : {0, 1}) {
      llvm::SmallVector<int64_t> shape = dataShapeOf(rows, cols, axis);
      std::string tag = tagOf(rows, cols, axis);
      mod += quantizeFunc("qrm_" + tag, shape, axis, true, Mode::Rceil, false,
                          false);
      mod += quantizeFunc("qbl_" + tag, shape, axis, true, Mode::Rceil, false,
                          true);
      mod += dequantizeFunc("dbl_" + tag, shape, axis, false, false, true);
    }
  }
  auto exe = compileOrFail(mod);
  ASSERT_TRUE(exe);
  BlockGenerator gen(5);
  for (auto [rows, cols] : shapes) {
    for (int64_t axis : {0, 1}) {
      llvm::SmallVector<int64_t> shape = dataShapeOf(rows, cols, axis);
      std::string tag = tagOf(rows, cols, axis);
      std::vector<float> values(rows * cols * 32);
      std::vector<float> block;
      forEachBlock(shape, axis, [&](int64_t, const std::vector<int64_t> &off) {
        gen.next(block, true, mxref::kE4M3);
        for (int j = 0; j < 32; ++j)
          values[off[j]] = block[j];
      });
      HostTensor input = makeInput(shape, true, values);
      auto rm = runOrFail(*exe, "qrm_" + tag, {input});
      auto bl = runOrFail(*exe, "qbl_" + tag, {input});
      ASSERT_EQ(rm.size(), 2u);
      ASSERT_EQ(bl.size(), 2u);
      // Row-major scales vs the reference, then the blocked bytes vs the
      // closed-form swizzle of them (padding 0x00).
      std::vector<uint8_t> wantData, wantScales;
      referenceQuantize(shape, axis, values, Mode::Rceil, mxref::kE4M3,
                        wantData, wantScales);
      EXPECT_TRUE(std::equal(wantScales.begin(), wantScales.end(),
                             rm[1].data<uint8_t>()))
          << tag;
      EXPECT_EQ(bl[0].bytes, rm[0].bytes) << tag;
      std::vector<uint8_t> want(mxref::blockedSize(rows, cols), 0);
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c)
          want[mxref::blockedOffset(r, c, cols)] =
              wantScales[axis == 1 ? r * cols + c : c * rows + r];
      ASSERT_EQ(bl[1].bytes.size(), want.size()) << tag;
      int errors = 0;
      for (size_t i = 0; i < want.size(); ++i)
        if (bl[1].bytes[i] != want[i] && ++errors <= 5)
          ADD_FAILURE() << tag << " blocked byte " << i << ": "
                        << int(bl[1].bytes[i]) << ", expected " << int(want[i]);
      EXPECT_EQ(errors, 0) << tag;
      // Dequantizing with the blocked scales gives the exact products.
      HostTensor q(HostElementType::F8E4M3FN, shape);
      q.bytes = rm[0].bytes;
      auto dq = runOrFail(*exe, "dbl_" + tag, {q, bl[1]});
      ASSERT_EQ(dq.size(), 1u);
      errors = 0;
      forEachBlock(
          shape, axis, [&](int64_t blk, const std::vector<int64_t> &off) {
            double scale = mxref::decodeScale(wantScales[blk]);
            for (int j = 0; j < 32; ++j) {
              double want =
                  mxref::decode(wantData[off[j]], mxref::kE4M3) * scale;
              std::string detail;
              if (!sameRounded(dq[0], off[j], want, detail) && ++errors <= 5)
                ADD_FAILURE() << tag << " dequantized element " << off[j]
                              << ": " << detail;
            }
          });
      EXPECT_EQ(errors, 0) << tag;
    }
  }
}
