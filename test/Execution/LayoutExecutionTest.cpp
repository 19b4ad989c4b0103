//===- LayoutExecutionTest.cpp - scale layouts and padding ------*- C++ -*-===//
//
// Execution tests of the to_blocked, pad_token_groups and unpad_token_groups
// lowerings: every output byte is compared with the literal SPEC §4 / §7.3
// references of GroupedReference.h.
//  - to_blocked `blocked` for the shapes of torchao's to_blocked tests;
//  - `blocked_m_groups`, `blocked_k_groups` (uneven, empty, unaligned
//    groups, offs[-1] short of the total) and `blocked_per_expert`;
//  - malformed offs (decreasing, negative, past the end) give the result of
//    the clamped offs (the documented rule) instead of faulting;
//  - pad/unpad at alignments 32 and 128: exact bytes, zero padding rows,
//    padded_offs values, and unpad(pad(x)) == x;
//  - the canonicalization that folds to_blocked into quantize /
//    quantize_dual (layout = blocked): it fires, and the folded module gives
//    the bytes of the unfolded one and of the reference swizzle of the
//    row-major scales.
//
//===----------------------------------------------------------------------===//

#include "GroupedReference.h"
#include "Reference.h"

#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainOps.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include <cmath>
#include <random>
#include <set>
#include <sstream>

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mxgroup;
using namespace mxtest;

namespace {

std::vector<uint8_t> randomBytes(std::mt19937_64 &rng, int64_t n) {
  std::vector<uint8_t> v(n);
  for (uint8_t &b : v)
    b = uint8_t(rng() % 255 + 1); // never 0x00, so padding is recognisable
  return v;
}

HostTensor scaleTensor(llvm::ArrayRef<int64_t> shape,
                       const std::vector<uint8_t> &bytes) {
  HostTensor t(HostElementType::F8E8M0FNU, shape);
  std::copy(bytes.begin(), bytes.end(), t.data<uint8_t>());
  return t;
}

/// Compares every byte; reports the first few differences.
void expectBytes(const HostTensor &got, const std::vector<uint8_t> &want,
                 const std::string &what) {
  ASSERT_EQ(size_t(got.getNumElements()), want.size()) << what;
  int bad = 0;
  for (size_t i = 0; i < want.size(); ++i)
    if (got.data<uint8_t>()[i] != want[i] && ++bad <= 5)
      ADD_FAILURE() << what << ": byte " << i << " is "
                    << int(got.data<uint8_t>()[i]) << ", expected "
                    << int(want[i]);
  EXPECT_EQ(bad, 0) << what;
}

//===----------------------------------------------------------------------===//
// to_blocked
//===----------------------------------------------------------------------===//

struct LayoutCase {
  std::string name;
  ScaleLayout layout;
  llvm::SmallVector<int64_t> shape; ///< scale shape (R, C) or (E, R, C)
  std::vector<int64_t> offs;        ///< group ends (tokens), as given to the op

  int64_t resultSize() const {
    int64_t g = offs.size();
    switch (layout) {
    case ScaleLayout::Blocked:
      return mxref::blockedSize(shape[0], shape[1]);
    case ScaleLayout::BlockedMGroups:
      return (shape[0] + 128 * g) * roundUp(shape[1], 4);
    case ScaleLayout::BlockedKGroups:
      return roundUp(shape[0], 128) * (shape[1] + 4 * g);
    default:
      return shape[0] * mxref::blockedSize(shape[1], shape[2]);
    }
  }
  llvm::SmallVector<int64_t> resultShape() const {
    if (layout == ScaleLayout::BlockedPerExpert)
      return {shape[0], mxref::blockedSize(shape[1], shape[2])};
    return {resultSize()};
  }
  std::string func() const {
    std::string in = tensorType(shape, "f8E8M0FNU");
    std::string out = tensorType(resultShape(), "f8E8M0FNU");
    std::string offsType = tensorType({int64_t(offs.size())}, "i32");
    bool grouped = !offs.empty();
    std::ostringstream os;
    os << "func.func @" << name << "(%s: " << in
       << (grouped ? ", %offs: " + offsType : std::string()) << ") -> " << out
       << " {\n  %0 = mxfp8train.to_blocked %s"
       << (grouped ? " offs(%offs)" : "")
       << " layout = " << stringifyScaleLayout(layout).str() << " : " << in
       << (grouped ? ", " + offsType : std::string()) << " -> " << out
       << "\n  return %0 : " << out << "\n}\n";
    return os.str();
  }
  std::vector<uint8_t> reference(const std::vector<uint8_t> &s) const {
    switch (layout) {
    case ScaleLayout::Blocked:
      return toBlocked(s, shape[0], shape[1]);
    case ScaleLayout::BlockedMGroups:
      return toBlockedMGroups(s, shape[0], shape[1], clampOffs(offs, shape[0]));
    case ScaleLayout::BlockedKGroups:
      return toBlockedKGroups(s, shape[0], shape[1],
                              clampOffs(offs, shape[1] * 32));
    default:
      return toBlockedPerExpert(s, shape[0], shape[1], shape[2]);
    }
  }
};

std::vector<LayoutCase> getLayoutCases() {
  std::vector<LayoutCase> cases;
  // torchao test_to_blocked_from_blocked_roundtrip and test_rearrange.
  const int64_t shapes[][2] = {{128, 4},   {256, 8},   {100, 3},   {4, 4},
                               {50, 10},   {384, 12},  {63, 1023}, {300, 9},
                               {133, 512}, {528, 512}, {128, 1}};
  for (auto &s : shapes)
    cases.push_back(
        {"blocked_" + std::to_string(s[0]) + "x" + std::to_string(s[1]),
         ScaleLayout::Blocked,
         {s[0], s[1]},
         {}});
  auto m = ScaleLayout::BlockedMGroups, k = ScaleLayout::BlockedKGroups;
  // M-groups: uneven, empty (first, middle, last), unaligned, short of R.
  cases.push_back({"mgroups_uneven", m, {300, 9}, {100, 100, 250, 300}});
  cases.push_back({"mgroups_empty_first_short", m, {300, 9}, {0, 37, 200}});
  cases.push_back({"mgroups_aligned", m, {512, 8}, {128, 256, 384, 512}});
  cases.push_back({"mgroups_single", m, {133, 5}, {133}});
  cases.push_back({"mgroups_empty_last", m, {200, 3}, {7, 7, 200, 200}});
  cases.push_back(
      {"mgroups_many", m, {640, 4}, {32, 64, 64, 96, 224, 352, 353, 640}});
  cases.push_back({"mgroups_all_empty", m, {64, 4}, {0, 0}});
  // Malformed offs: decreasing, negative, past the end (clamped).
  cases.push_back({"mgroups_bad_offs", m, {160, 6}, {50, 20, 400, -5}});
  // K-groups: scale columns are 32-token blocks; C = total tokens / 32.
  cases.push_back({"kgroups_uneven", k, {100, 10}, {64, 64, 192, 320}});
  cases.push_back({"kgroups_aligned", k, {256, 16}, {128, 256, 384, 512}});
  cases.push_back({"kgroups_short", k, {130, 12}, {32, 96, 224}});
  cases.push_back({"kgroups_empty_first", k, {7, 9}, {0, 288}});
  cases.push_back(
      {"kgroups_many", k, {64, 40}, {32, 32, 160, 416, 448, 480, 1280, 1280}});
  // Offsets that are not multiples of 32 use offs // 32, as torchao.
  cases.push_back({"kgroups_unaligned", k, {40, 8}, {48, 100, 256}});
  cases.push_back({"kgroups_bad_offs", k, {64, 8}, {200, 64, 9999, -1}});
  // Per expert (3-D).
  cases.push_back(
      {"per_expert_3x100x3", ScaleLayout::BlockedPerExpert, {3, 100, 3}, {}});
  cases.push_back(
      {"per_expert_2x256x8", ScaleLayout::BlockedPerExpert, {2, 256, 8}, {}});
  cases.push_back(
      {"per_expert_4x33x7", ScaleLayout::BlockedPerExpert, {4, 33, 7}, {}});
  cases.push_back({"per_expert_1x63x1023",
                   ScaleLayout::BlockedPerExpert,
                   {1, 63, 1023},
                   {}});
  return cases;
}

TEST(Layout, ToBlockedMatchesSpecBytes) {
  std::vector<LayoutCase> cases = getLayoutCases();
  std::string mod;
  for (const LayoutCase &c : cases)
    mod += c.func();
  auto exe = compileOrFail(mod);
  ASSERT_TRUE(exe);
  std::mt19937_64 rng(3);
  for (const LayoutCase &c : cases) {
    int64_t n = 1;
    for (int64_t d : c.shape)
      n *= d;
    std::vector<uint8_t> s = randomBytes(rng, n);
    std::vector<HostTensor> inputs = {scaleTensor(c.shape, s)};
    if (!c.offs.empty())
      inputs.push_back(makeOffs(c.offs));
    std::vector<HostTensor> out = runOrFail(*exe, c.name, inputs);
    ASSERT_EQ(out.size(), 1u) << c.name;
    expectBytes(out[0], c.reference(s), c.name);
  }
}

/// With groups that are multiples of 128 rows, blocked_m_groups is the
/// global to_blocked followed by zeros (SPEC §4.2 "equivalence"): an
/// independent check of the group placement.
TEST(Layout, AlignedMGroupsEqualGlobalBlocked) {
  LayoutCase grouped{
      "eq_mgroups", ScaleLayout::BlockedMGroups, {384, 7}, {128, 128, 384}};
  LayoutCase global{"eq_global", ScaleLayout::Blocked, {384, 7}, {}};
  auto exe = compileOrFail(grouped.func() + global.func());
  ASSERT_TRUE(exe);
  std::mt19937_64 rng(5);
  std::vector<uint8_t> s = randomBytes(rng, 384 * 7);
  auto a = runOrFail(*exe, grouped.name,
                     {scaleTensor(grouped.shape, s), makeOffs(grouped.offs)});
  auto b = runOrFail(*exe, global.name, {scaleTensor(global.shape, s)});
  ASSERT_EQ(a.size(), 1u);
  ASSERT_EQ(b.size(), 1u);
  int64_t n = b[0].getNumElements();
  std::vector<uint8_t> want(b[0].data<uint8_t>(), b[0].data<uint8_t>() + n);
  want.resize(a[0].getNumElements(), 0);
  expectBytes(a[0], want, "aligned M-groups vs global to_blocked");
}

//===----------------------------------------------------------------------===//
// pad_token_groups / unpad_token_groups
//===----------------------------------------------------------------------===//

struct PadCase {
  std::string name;
  int64_t tokens, cols, alignment;
  bool bf16;
  std::vector<int64_t> offs;

  int64_t paddedRows() const {
    int64_t g = offs.size();
    return roundUp(tokens + alignment * g, alignment);
  }
  std::string funcs() const {
    std::string elem = bf16 ? "bf16" : "f32";
    std::string x = tensorType({tokens, cols}, elem);
    std::string xp = tensorType({paddedRows(), cols}, elem);
    std::string o = tensorType({int64_t(offs.size())}, "i32");
    std::ostringstream os;
    os << "func.func @pad_" << name << "(%x: " << x << ", %offs: " << o
       << ") -> (" << xp << ", " << o << ") {\n"
       << "  %p, %po = mxfp8train.pad_token_groups %x offs(%offs) alignment = "
       << alignment << " : " << x << ", " << o << " -> " << xp << ", " << o
       << "\n  return %p, %po : " << xp << ", " << o << "\n}\n";
    os << "func.func @unpad_" << name << "(%xp: " << xp << ", %offs: " << o
       << ") -> " << x << " {\n"
       << "  %u = mxfp8train.unpad_token_groups %xp offs(%offs) alignment = "
       << alignment << " : " << xp << ", " << o << " -> " << x
       << "\n  return %u : " << x << "\n}\n";
    os << "func.func @roundtrip_" << name << "(%x: " << x << ", %offs: " << o
       << ") -> " << x << " {\n"
       << "  %p, %po = mxfp8train.pad_token_groups %x offs(%offs) alignment = "
       << alignment << " : " << x << ", " << o << " -> " << xp << ", " << o
       << "\n  %u = mxfp8train.unpad_token_groups %p offs(%offs) alignment = "
       << alignment << " : " << xp << ", " << o << " -> " << x
       << "\n  return %u : " << x << "\n}\n";
    return os.str();
  }
};

std::vector<PadCase> getPadCases() {
  return {
      {"a32_uneven", 157, 48, 32, true, {13, 13, 100, 157}},
      {"a32_short", 200, 16, 32, false, {64, 64, 65, 130}},
      {"a128_uneven", 300, 24, 128, true, {1, 129, 129, 300}},
      {"a128_aligned", 256, 8, 128, false, {128, 256}},
      {"a32_empty_first_last", 96, 40, 32, true, {0, 0, 96, 96}},
      {"a32_single", 33, 8, 32, false, {33}},
      {"a32_bad_offs", 100, 8, 32, true, {40, 10, 1000, -3}},
      {"a128_dsv3_dim", 157, 7168, 128, true, {50, 100, 100, 157}},
  };
}

/// A random input whose values are exact in bf16 and never zero.
HostTensor randomRows(std::mt19937_64 &rng, int64_t rows, int64_t cols,
                      bool bf16) {
  HostTensor t(bf16 ? HostElementType::BF16 : HostElementType::F32,
               {rows, cols});
  for (int64_t i = 0; i < rows * cols; ++i) {
    float v =
        float(int64_t(rng() % 2001) - 1000 + (rng() % 2 ? 0 : 4000)) / 8.0f;
    if (v == 0)
      v = 0.5f;
    if (bf16)
      t.data<uint16_t>()[i] = uint16_t(mxref::bitsOf(v) >> 16);
    else
      t.data<float>()[i] = v;
  }
  return t;
}

/// Row `r` of a host tensor as raw bytes.
std::vector<uint8_t> rowBytes(const HostTensor &t, int64_t r) {
  int64_t w = t.shape[1] * getHostElementSize(t.type);
  return std::vector<uint8_t>(t.bytes.begin() + r * w,
                              t.bytes.begin() + (r + 1) * w);
}

TEST(Layout, PadUnpadTokenGroups) {
  std::vector<PadCase> cases = getPadCases();
  std::string mod;
  for (const PadCase &c : cases)
    mod += c.funcs();
  auto exe = compileOrFail(mod);
  ASSERT_TRUE(exe);
  std::mt19937_64 rng(7);
  for (const PadCase &c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<int64_t> offs = clampOffs(c.offs, c.tokens);
    HostTensor x = randomRows(rng, c.tokens, c.cols, c.bf16);
    std::vector<uint8_t> zeroRow(c.cols * getHostElementSize(x.type), 0);

    // pad: exact rows, zero padding, padded offsets.
    auto padded = runOrFail(*exe, "pad_" + c.name, {x, makeOffs(c.offs)});
    ASSERT_EQ(padded.size(), 2u);
    const HostTensor &xp = padded[0], &po = padded[1];
    std::vector<int64_t> srcOfRow(c.paddedRows(), -1);
    int64_t start = 0, padStart = 0;
    for (size_t g = 0; g < offs.size(); ++g) {
      int64_t n = offs[g] - start;
      for (int64_t i = 0; i < n; ++i)
        srcOfRow[padStart + i] = start + i;
      padStart += roundUp(n, c.alignment);
      EXPECT_EQ(po.data<int32_t>()[g], padStart) << "padded_offs[" << g << "]";
      EXPECT_EQ(padStart % c.alignment, 0);
      start = offs[g];
    }
    int bad = 0;
    for (int64_t r = 0; r < c.paddedRows(); ++r) {
      std::vector<uint8_t> want =
          srcOfRow[r] < 0 ? zeroRow : rowBytes(x, srcOfRow[r]);
      if (rowBytes(xp, r) != want && ++bad <= 3)
        ADD_FAILURE() << "padded row " << r << " (source " << srcOfRow[r]
                      << ") differs";
    }
    EXPECT_EQ(bad, 0);

    // unpad of a padded tensor whose padding rows are not zero: it must pick
    // exactly the group rows.
    HostTensor noisy = randomRows(rng, c.paddedRows(), c.cols, c.bf16);
    auto unpadded =
        runOrFail(*exe, "unpad_" + c.name, {noisy, makeOffs(c.offs)});
    ASSERT_EQ(unpadded.size(), 1u);
    std::vector<int64_t> padRowOf(c.tokens, -1);
    for (int64_t r = 0; r < c.paddedRows(); ++r)
      if (srcOfRow[r] >= 0)
        padRowOf[srcOfRow[r]] = r;
    bad = 0;
    for (int64_t r = 0; r < c.tokens; ++r) {
      std::vector<uint8_t> want =
          padRowOf[r] < 0 ? zeroRow : rowBytes(noisy, padRowOf[r]);
      if (rowBytes(unpadded[0], r) != want && ++bad <= 3)
        ADD_FAILURE() << "unpadded row " << r << " differs";
    }
    EXPECT_EQ(bad, 0);

    // unpad(pad(x)) == x on the grouped rows, zero after offs[-1].
    auto round = runOrFail(*exe, "roundtrip_" + c.name, {x, makeOffs(c.offs)});
    ASSERT_EQ(round.size(), 1u);
    bad = 0;
    int64_t last = offs.empty() ? 0 : offs.back();
    for (int64_t r = 0; r < c.tokens; ++r) {
      std::vector<uint8_t> want = r < last ? rowBytes(x, r) : zeroRow;
      if (rowBytes(round[0], r) != want && ++bad <= 3)
        ADD_FAILURE() << "round-trip row " << r << " differs";
    }
    EXPECT_EQ(bad, 0);
  }
}

//===----------------------------------------------------------------------===//
// Folding to_blocked into quantize (canonicalization)
//===----------------------------------------------------------------------===//

/// Values of every binade from 2^-40 to 2^40 (one binade per 32-element run,
/// so consecutive blocks get different scale bytes), both signs, zeros, and
/// a NaN / Inf block now and then (scale byte 255).
HostTensor randomQuantizeInput(std::mt19937_64 &rng,
                               llvm::ArrayRef<int64_t> shape, bool bf16) {
  HostTensor t(bf16 ? HostElementType::BF16 : HostElementType::F32, shape);
  int64_t n = t.getNumElements();
  int exponent = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (i % 32 == 0)
      exponent = int(rng() % 81) - 40;
    double u = double(rng() % 1000000) / 1000000.0;
    float v =
        float((rng() % 2 ? -1.0 : 1.0) * (0.5 + u) * std::ldexp(1.0, exponent));
    uint64_t pick = rng() % 4096;
    if (pick == 0)
      v = NAN;
    else if (pick == 1)
      v = -INFINITY;
    else if (pick < 64)
      v = 0.0f;
    if (bf16)
      t.data<uint16_t>()[i] = mxref::roundToBF16(v);
    else
      t.data<float>()[i] = v;
  }
  return t;
}

/// `@folded_<tag>` (quantize + to_blocked, or quantize_dual + to_blocked of
/// its rowwise scales) and `@plain_<tag>` (the row-major quantization).
struct FoldCase {
  std::string tag;
  int64_t rows, cols;
  bool bf16, dual;
  std::string mode, f8;

  std::string funcs() const {
    std::string x = tensorType({rows, cols}, bf16 ? "bf16" : "f32");
    std::string q = tensorType({rows, cols}, f8);
    std::string s = tensorType({rows, cols / 32}, "f8E8M0FNU");
    std::string b = tensorType({blockedSize()}, "f8E8M0FNU");
    std::string cs = tensorType({rows / 32, cols}, "f8E8M0FNU");
    std::ostringstream os;
    if (dual) {
      std::string outs = q + ", " + s + ", " + q + ", " + cs;
      os << "func.func @folded_" << tag << "(%x: " << x << ") -> (" << q << ", "
         << b << ", " << q << ", " << cs << ") {\n"
         << "  %rq, %rs, %cq, %cs = mxfp8train.quantize_dual %x mode = " << mode
         << " : " << x << " -> " << outs << "\n"
         << "  %b = mxfp8train.to_blocked %rs layout = blocked : " << s
         << " -> " << b << "\n"
         << "  return %rq, %b, %cq, %cs : " << q << ", " << b << ", " << q
         << ", " << cs << "\n}\n";
      os << "func.func @plain_" << tag << "(%x: " << x << ") -> (" << outs
         << ") {\n"
         << "  %rq, %rs, %cq, %cs = mxfp8train.quantize_dual %x mode = " << mode
         << " : " << x << " -> " << outs << "\n"
         << "  return %rq, %rs, %cq, %cs : " << outs << "\n}\n";
      return os.str();
    }
    os << "func.func @folded_" << tag << "(%x: " << x << ") -> (" << q << ", "
       << b << ") {\n"
       << "  %q, %s = mxfp8train.quantize %x axis = 1 mode = " << mode << " : "
       << x << " -> " << q << ", " << s << "\n"
       << "  %b = mxfp8train.to_blocked %s layout = blocked : " << s << " -> "
       << b << "\n"
       << "  return %q, %b : " << q << ", " << b << "\n}\n";
    os << "func.func @plain_" << tag << "(%x: " << x << ") -> (" << q << ", "
       << s << ") {\n"
       << "  %q, %s = mxfp8train.quantize %x axis = 1 mode = " << mode << " : "
       << x << " -> " << q << ", " << s << "\n"
       << "  return %q, %s : " << q << ", " << s << "\n}\n";
    return os.str();
  }
  int64_t blockedSize() const { return mxref::blockedSize(rows, cols / 32); }
};

TEST(Layout, ToBlockedFoldsIntoQuantizeBitExact) {
  // Scale matrices (R, C): 200x3 and 130x10 (R and C not multiples of 128 /
  // 4: padding in both directions), 256x8 (none), 96x2 for the dual.
  const FoldCase cases[] = {
      {"bf16_rceil", 200, 96, true, false, "rceil", "f8E4M3FN"},
      {"f32_floor_e5m2", 130, 320, false, false, "floor", "f8E5M2"},
      {"bf16_even", 256, 256, true, false, "even", "f8E4M3FN"},
      {"dual_bf16_rceil", 96, 64, true, true, "rceil", "f8E4M3FN"},
  };
  std::string source;
  for (const FoldCase &c : cases)
    source += c.funcs();
  OwningOpRef<ModuleOp> unfolded =
      parseSourceString<ModuleOp>(source, &getContext());
  ASSERT_TRUE(unfolded);
  OwningOpRef<ModuleOp> folded = unfolded->clone();
  PassManager pm(&getContext());
  pm.addPass(createCanonicalizerPass());
  ASSERT_TRUE(succeeded(pm.run(*folded)));

  // The fold fired in every @folded_ function: no to_blocked left, and the
  // quantization writes blocked scales.
  int toBlockedOps = 0, blockedCasts = 0;
  folded->walk([&](Operation *op) {
    if (isa<ToBlockedOp>(op))
      ++toBlockedOps;
    if (auto q = dyn_cast<QuantizeOp>(op))
      blockedCasts += q.getScaleLayout() == ScaleLayout::Blocked;
    if (auto d = dyn_cast<QuantizeDualOp>(op))
      blockedCasts += d.getRowwiseLayout() == ScaleLayout::Blocked;
  });
  EXPECT_EQ(toBlockedOps, 0);
  EXPECT_EQ(blockedCasts, int(std::size(cases)));

  auto exeUnfolded = CPUExecutable::compile(*unfolded, vectorizeTests());
  auto exeFolded = CPUExecutable::compile(*folded, vectorizeTests());
  ASSERT_TRUE(bool(exeUnfolded)) << llvm::toString(exeUnfolded.takeError());
  ASSERT_TRUE(bool(exeFolded)) << llvm::toString(exeFolded.takeError());
  std::mt19937_64 rng(11);
  for (const FoldCase &c : cases) {
    SCOPED_TRACE(c.tag);
    HostTensor x = randomQuantizeInput(rng, {c.rows, c.cols}, c.bf16);
    auto plain = runOrFail(**exeFolded, "plain_" + c.tag, {x});
    auto got = runOrFail(**exeFolded, "folded_" + c.tag, {x});
    auto before = runOrFail(**exeUnfolded, "folded_" + c.tag, {x});
    size_t n = c.dual ? 4 : 2;
    ASSERT_EQ(plain.size(), n);
    ASSERT_EQ(got.size(), n);
    ASSERT_EQ(before.size(), n);
    // The scale bytes vary (the test would not see a misplaced byte
    // otherwise).
    std::set<uint8_t> distinct(plain[1].bytes.begin(), plain[1].bytes.end());
    EXPECT_GT(distinct.size(), 40u);
    // Folded == unfolded, result for result; data == the row-major
    // quantization's; blocked scales == SPEC §4.1 of the row-major scales.
    for (size_t i = 0; i < n; ++i)
      EXPECT_EQ(got[i].bytes, before[i].bytes) << "result " << i;
    EXPECT_EQ(got[0].bytes, plain[0].bytes);
    expectBytes(got[1], toBlocked(plain[1].bytes, c.rows, c.cols / 32),
                c.tag + " blocked scales");
    for (size_t i = 2; i < n; ++i)
      EXPECT_EQ(got[i].bytes, plain[i].bytes) << "colwise result " << i;
  }
}

} // namespace
