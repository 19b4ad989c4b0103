//===- ScaledMmExecutionTest.cpp - run scaled_mm on the CPU -----*- C++ -*-===//
//
// Execution tests of the scaled_mm lowering: every transpose combination,
// bias, f32 and bf16 results, blocked scales and batches, against a float64
// reference computed on the exactly dequantized operands (SPEC §3.1):
//  - SQNR = 20 log10(||ref|| / ||ref - out||) >= 80 dB (SPEC §8), with ref
//    rounded to the result type;
//  - elementwise, a rigorous bound: out lies between round(ref - e) and
//    round(ref + e) with e = 1.01 (K+1) 2^-24 (sum_k |a_k b_k| + |bias|), the
//    worst-case f32 accumulation error in any order (rounding is monotonic);
//  - scale byte 255 makes exactly its output row (lhs) or column (rhs) NaN;
//  - extreme scale pairs whose operands overflow f32 on their own but whose
//    products are finite (SPEC §3.1: the products are exact): K-blocks 0-3
//    scaled (0, 254), (254, 0), (250, 4), (247, 7) on (lhs, rhs), so that
//    an element of up to 448 * 2^127 meets one of about 2^-127.
//
//===----------------------------------------------------------------------===//

#include "Reference.h"
#include "TestUtils.h"

#include <random>
#include <sstream>

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mxtest;

namespace {
/// One scaled_mm test case.
struct MmCase {
  int64_t batch; ///< 0: rank 2
  int64_t m, k, n;
  bool transposeLhs, transposeRhs;
  bool bf16Out;
  int bias; ///< 0: none, 1: f32, 2: bf16
  bool blocked;
  /// K-blocks 0-3 get the extreme scale pairs (kExtremeLhs, kExtremeRhs).
  bool extreme = false;

  std::string name() const {
    std::ostringstream os;
    os << "mm_" << (batch ? std::to_string(batch) + "x" : "") << m << "x" << k
       << "x" << n << (transposeLhs ? "_tl" : "") << (transposeRhs ? "_tr" : "")
       << (bf16Out ? "_bf16" : "_f32") << "_bias" << bias
       << (blocked ? "_blocked" : "") << (extreme ? "_extreme" : "");
    return os.str();
  }
  /// Stored shape of an operand; K position in it.
  llvm::SmallVector<int64_t> lhsShape() const {
    return withBatch(transposeLhs ? llvm::SmallVector<int64_t>{k, m}
                                  : llvm::SmallVector<int64_t>{m, k});
  }
  llvm::SmallVector<int64_t> rhsShape() const {
    return withBatch(transposeRhs ? llvm::SmallVector<int64_t>{n, k}
                                  : llvm::SmallVector<int64_t>{k, n});
  }
  int64_t lhsKAxis() const { return rank() - (transposeLhs ? 2 : 1); }
  int64_t rhsKAxis() const { return rank() - (transposeRhs ? 1 : 2); }
  int64_t rank() const { return batch ? 3 : 2; }
  llvm::SmallVector<int64_t> withBatch(llvm::SmallVector<int64_t> s) const {
    if (batch)
      s.insert(s.begin(), batch);
    return s;
  }
  llvm::SmallVector<int64_t> scaleShape(llvm::ArrayRef<int64_t> data,
                                        int64_t axis, int64_t rows) const {
    if (blocked)
      return {mxref::blockedSize(rows, k / 32)};
    llvm::SmallVector<int64_t> s(data);
    s[axis] /= 32;
    return s;
  }

  std::string func() const {
    auto ls = lhsShape(), rs = rhsShape();
    std::string lt = tensorType(ls, "f8E4M3FN");
    std::string rt = tensorType(rs, "f8E4M3FN");
    std::string lst = tensorType(scaleShape(ls, lhsKAxis(), m), "f8E8M0FNU");
    std::string rst = tensorType(scaleShape(rs, rhsKAxis(), n), "f8E8M0FNU");
    std::string bt = tensorType({n}, bias == 2 ? "bf16" : "f32");
    std::string ot = tensorType(withBatch({m, n}), bf16Out ? "bf16" : "f32");
    std::ostringstream os;
    os << "func.func @" << name() << "(%a: " << lt << ", %as: " << lst
       << ", %b: " << rt << ", %bs: " << rst
       << (bias ? ", %bias: " + bt : std::string()) << ") -> " << ot << " {\n"
       << "  %0 = mxfp8train.scaled_mm %a [%as], %b [%bs]"
       << (bias ? " bias(%bias)" : "") << (transposeLhs ? " transpose_lhs" : "")
       << (transposeRhs ? " transpose_rhs" : "")
       << (blocked ? " lhs_layout = blocked rhs_layout = blocked" : "") << " : "
       << lt << " [" << lst << "], " << rt << " [" << rst << "]"
       << (bias ? ", " + bt : std::string()) << " -> " << ot << "\n"
       << "  return %0 : " << ot << "\n}\n";
    return os.str();
  }
};

/// Host data of one operand: fp8 bytes, row-major scale bytes (stored
/// orientation), and the exact dequantized values in canonical orientation.
struct Operand {
  HostTensor data, scales;
  /// [b][row][k] for lhs (row = m), [b][row][k] for rhs (row = n).
  std::vector<double> values;
};

/// The scale bytes of K-blocks 0-3 of every row in the extreme cases: the
/// products of the two operands' blocks are 2^0, 2^0, 2^0 and 2^-7 times
/// q_a q_b, while lhs block 1 alone reaches 448 * 2^127.
constexpr uint8_t kExtremeLhs[4] = {0, 254, 250, 247};
constexpr uint8_t kExtremeRhs[4] = {254, 0, 4, 7};

/// Random operand of stored shape `shape` blocked along `axis`; `rows` is the
/// non-K logical size. `nanBlock` (row, kblock) gets scale byte 255;
/// `extreme` (4 bytes) overrides the scales of K-blocks 0-3.
Operand makeOperand(std::mt19937_64 &rng, const MmCase &c,
                    llvm::ArrayRef<int64_t> shape, int64_t axis, int64_t rows,
                    std::pair<int64_t, int64_t> nanBlock,
                    const uint8_t *extreme = nullptr) {
  Operand op;
  op.data = HostTensor(HostElementType::F8E4M3FN, shape);
  for (int64_t i = 0; i < op.data.getNumElements(); ++i) {
    uint8_t b;
    do {
      b = uint8_t(rng());
    } while ((b & 0x7F) == 0x7F);
    op.data.data<uint8_t>()[i] = b;
  }
  int64_t kb = c.k / 32, batches = c.batch ? c.batch : 1;
  // Scale matrix S[b][row][kblock].
  std::vector<uint8_t> s(batches * rows * kb);
  for (uint8_t &v : s)
    v = uint8_t(118 + rng() % 18);
  if (extreme)
    for (int64_t r = 0; r < batches * rows; ++r)
      for (int64_t j = 0; j < 4 && j < kb; ++j)
        s[r * kb + j] = extreme[j];
  if (nanBlock.first >= 0)
    for (int64_t b = 0; b < batches; ++b)
      s[(b * rows + nanBlock.first) * kb + nanBlock.second] = 255;
  // Stored position of (row, k) inside one batch.
  bool kLast = axis == c.rank() - 1;
  auto dataIndex = [&](int64_t b, int64_t r, int64_t kk) {
    return b * rows * c.k + (kLast ? r * c.k + kk : kk * rows + r);
  };
  op.values.resize(batches * rows * c.k);
  for (int64_t b = 0; b < batches; ++b)
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t kk = 0; kk < c.k; ++kk)
        op.values[(b * rows + r) * c.k + kk] =
            mxref::decode(op.data.data<uint8_t>()[dataIndex(b, r, kk)],
                          mxref::kE4M3) *
            mxref::decodeScale(s[(b * rows + r) * kb + kk / 32]);
  if (c.blocked) {
    op.scales =
        HostTensor(HostElementType::F8E8M0FNU, {mxref::blockedSize(rows, kb)});
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < kb; ++j)
        op.scales.data<uint8_t>()[mxref::blockedOffset(r, j, kb)] =
            s[r * kb + j];
  } else {
    llvm::SmallVector<int64_t> sshape(shape);
    sshape[axis] /= 32;
    op.scales = HostTensor(HostElementType::F8E8M0FNU, sshape);
    for (int64_t b = 0; b < batches; ++b)
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t j = 0; j < kb; ++j)
          op.scales.data<uint8_t>()[b * rows * kb +
                                    (kLast ? r * kb + j : j * rows + r)] =
              s[(b * rows + r) * kb + j];
  }
  return op;
}

double toBF16Value(double x) {
  return mxref::bf16ToFloat(mxref::roundToBF16(x));
}

/// Runs case `c` on random data and checks it against the float64 reference.
/// With `nanRow`/`nanCol` >= 0, the matching lhs / rhs scale is 255.
void checkCase(const CPUExecutable &exe, const MmCase &c, uint64_t seed,
               int64_t nanRow = -1, int64_t nanCol = -1) {
  std::mt19937_64 rng(seed);
  Operand lhs = makeOperand(rng, c, c.lhsShape(), c.lhsKAxis(), c.m,
                            {nanRow, nanRow >= 0 ? 1 : 0},
                            c.extreme ? kExtremeLhs : nullptr);
  Operand rhs = makeOperand(rng, c, c.rhsShape(), c.rhsKAxis(), c.n,
                            {nanCol, 0}, c.extreme ? kExtremeRhs : nullptr);
  HostTensor bias(c.bias == 2 ? HostElementType::BF16 : HostElementType::F32,
                  {c.n});
  std::vector<double> biasValues(c.n, 0.0);
  for (int64_t j = 0; j < c.n && c.bias; ++j) {
    double v = double(int64_t(rng() % 2001) - 1000) / 64.0;
    if (c.bias == 2) {
      bias.data<uint16_t>()[j] = mxref::roundToBF16(v);
      biasValues[j] = toBF16Value(v);
    } else {
      bias.data<float>()[j] = float(v);
      biasValues[j] = float(v);
    }
  }
  std::vector<HostTensor> inputs = {lhs.data, lhs.scales, rhs.data, rhs.scales};
  if (c.bias)
    inputs.push_back(bias);
  auto out = exe.run(c.name(), inputs);
  ASSERT_TRUE(bool(out)) << llvm::toString(out.takeError());
  ASSERT_EQ(out->size(), 1u);
  const HostTensor &res = (*out)[0];
  int64_t batches = c.batch ? c.batch : 1;
  double refSq = 0, errSq = 0;
  int errors = 0;
  for (int64_t b = 0; b < batches; ++b) {
    for (int64_t i = 0; i < c.m; ++i) {
      for (int64_t j = 0; j < c.n; ++j) {
        double sum = biasValues[j], mag = std::fabs(biasValues[j]);
        const double *a = &lhs.values[(b * c.m + i) * c.k];
        const double *w = &rhs.values[(b * c.n + j) * c.k];
        for (int64_t kk = 0; kk < c.k; ++kk) {
          sum += a[kk] * w[kk];
          mag += std::fabs(a[kk] * w[kk]);
        }
        int64_t idx = (b * c.m + i) * c.n + j;
        double got = res.getAsDouble(idx);
        bool wantNaN = i == nanRow || j == nanCol;
        if (wantNaN || std::isnan(sum)) {
          if (!std::isnan(got) && ++errors <= 5)
            ADD_FAILURE() << c.name() << " (" << b << "," << i << "," << j
                          << "): expected NaN, got " << got;
          continue;
        }
        double e = 1.01 * double(c.k + 1) * 0x1p-24 * mag;
        double lo = c.bf16Out ? toBF16Value(sum - e) : double(float(sum - e));
        double hi = c.bf16Out ? toBF16Value(sum + e) : double(float(sum + e));
        double want = c.bf16Out ? toBF16Value(sum) : sum;
        if (!(got >= lo && got <= hi) && ++errors <= 5) // NaN fails too
          ADD_FAILURE() << c.name() << " (" << b << "," << i << "," << j
                        << "): got " << got << ", reference " << sum
                        << ", allowed [" << lo << ", " << hi << "]";
        refSq += want * want;
        errSq += (want - got) * (want - got);
      }
    }
  }
  EXPECT_EQ(errors, 0) << c.name();
  double sqnr = errSq == 0 ? INFINITY : 10 * std::log10(refSq / errSq);
  EXPECT_GE(sqnr, 80.0) << c.name();
}

std::vector<MmCase> getCases() {
  std::vector<MmCase> cases;
  const int64_t shapes[][3] = {
      {128, 128, 128}, {129, 256, 384}, {133, 512, 528}};
  for (auto &s : shapes)
    for (int t = 0; t < 4; ++t) {
      bool tl = t & 1, tr = t & 2;
      cases.push_back({0, s[0], s[1], s[2], tl, tr, false, 1, false});
      cases.push_back(
          {0, s[0], s[1], s[2], tl, tr, true, (t % 2) ? 2 : 0, false});
    }
  cases.push_back({0, 128, 128, 128, false, true, false, 0, false});
  cases.push_back({0, 128, 128, 128, false, false, true, 1, false});
  // Blocked scales (the tcgen05 layout) in three orientations.
  cases.push_back({0, 129, 256, 384, false, true, true, 2, true});
  cases.push_back({0, 129, 256, 384, true, false, false, 0, true});
  cases.push_back({0, 100, 96, 72, false, false, false, 1, true});
  // Batched.
  for (int t = 0; t < 4; ++t)
    cases.push_back({3, 64, 96, 80, bool(t & 1), bool(t & 2), t == 3,
                     t == 2 ? 1 : 0, false});
  return cases;
}

/// The extreme scale pairs in every operand orientation, a batch, blocked
/// scales, bias and both result types.
std::vector<MmCase> getExtremeCases() {
  std::vector<MmCase> cases;
  for (int t = 0; t < 4; ++t)
    cases.push_back({0, 129, 256, 72, bool(t & 1), bool(t & 2), t % 2 == 0,
                     t == 1 ? 1 : 0, false, true});
  cases.push_back({3, 64, 128, 80, true, false, true, 2, false, true});
  cases.push_back({0, 129, 256, 384, false, true, false, 1, true, true});
  return cases;
}

class ScaledMm : public CompiledSuite<ScaledMm> {
public:
  static std::string getModuleSource() {
    std::string mod;
    for (const MmCase &c : getCases())
      mod += c.func();
    for (const MmCase &c : getExtremeCases())
      mod += c.func();
    return mod;
  }
};
} // namespace

TEST_F(ScaledMm, MatchesFloat64Reference) {
  ASSERT_TRUE(exe);
  uint64_t seed = 11;
  for (const MmCase &c : getCases())
    checkCase(*exe, c, seed++);
}

TEST_F(ScaledMm, NaNScaleGivesNaNRowAndColumn) {
  ASSERT_TRUE(exe);
  uint64_t seed = 500;
  for (const MmCase &c : getCases()) {
    if (c.m == 133)
      continue; // same code paths as the other shapes
    checkCase(*exe, c, seed++, /*nanRow=*/5, /*nanCol=*/7);
  }
}

TEST_F(ScaledMm, ExactProductsOfExtremeScales) {
  ASSERT_TRUE(exe);
  uint64_t seed = 900;
  for (const MmCase &c : getExtremeCases())
    checkCase(*exe, c, seed++);
}
