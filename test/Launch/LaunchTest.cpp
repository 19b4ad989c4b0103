//===- LaunchTest.cpp - tests of the launch library -----------------------===//
//
// The parts of MXFP8TrainLaunch that need neither a loaded library nor a
// GPU, checked against values worked out by hand: which chips run on which
// GPU, which manifest function is selected and the messages otherwise, the
// comparison of two result buffers, the matmul probes and their bars, and
// the generic pointer caller. Loading and calling AOT functions is tested
// through mxfp8-launch (test/tools/mxfp8-launch).
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Launch/AOTFunction.h"
#include "mxfp8train/Launch/CompareResults.h"
#include "mxfp8train/Launch/CudaDevice.h"
#include "mxfp8train/Launch/SelectFunction.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::launch;

namespace {

TensorSpec makeTensor(const std::string &name, ElementKind kind,
                      std::vector<int64_t> shape,
                      const std::string &role = "") {
  TensorSpec t;
  t.name = name;
  t.kind = kind;
  t.shape = std::move(shape);
  t.role = role;
  return t;
}

FunctionSpec makeFunction(const std::string &name, size_t numArgs,
                          const std::string &unsupported = "") {
  FunctionSpec f;
  f.name = name;
  for (size_t i = 0; i < numArgs; ++i)
    f.args.push_back(
        makeTensor("x" + std::to_string(i), ElementKind::F32, {4}));
  f.results.push_back(makeTensor("y", ElementKind::BF16, {2, 4}));
  f.unsupported = unsupported;
  return f;
}

/// A host buffer holding `values` as f32.
HostBuffer makeF32(const std::vector<float> &values) {
  HostBuffer buffer(values.size() * sizeof(float));
  std::memcpy(buffer.data(), values.data(), values.size() * sizeof(float));
  return buffer;
}

TEST(CudaDevice, ArchSpecificChipsRunOnlyOnTheirArchitecture) {
  EXPECT_FALSE(checkChipRuns("sm_90a", 9, 0, "a.so"));
  EXPECT_FALSE(checkChipRuns("sm_100a", 10, 0, "a.so"));
  LaunchError e = checkChipRuns("sm_90a", 10, 0, "a.so");
  EXPECT_EQ(e.kind, LaunchErrorKind::BadInput);
  EXPECT_EQ(e.message, "a.so was compiled for sm_90a, which cannot run on "
                       "this GPU (sm_100)");
  EXPECT_EQ(checkChipRuns("sm_100a", 9, 0, "b.so").message,
            "b.so was compiled for sm_100a, which cannot run on this GPU "
            "(sm_90)");
}

TEST(CudaDevice, PortableChipsRunOnLaterArchitectures) {
  EXPECT_FALSE(checkChipRuns("sm_80", 9, 0, "a.so"));
  EXPECT_FALSE(checkChipRuns("sm_90", 9, 0, "a.so"));
  EXPECT_TRUE(checkChipRuns("sm_90", 8, 9, "a.so"));
  // Not an sm_ chip, or no number: not checked.
  EXPECT_FALSE(checkChipRuns("", 9, 0, "a.so"));
  EXPECT_FALSE(checkChipRuns("gfx942", 9, 0, "a.so"));
  EXPECT_FALSE(checkChipRuns("sm_xa", 9, 0, "a.so"));
}

TEST(SelectFunction, TheOnlyCallableFunctionWithoutAnEntry) {
  Manifest m;
  m.functions.push_back(makeFunction("a", 1, "has a dynamic shape"));
  m.functions.push_back(makeFunction("b", 2));
  const FunctionSpec *f = nullptr;
  EXPECT_FALSE(selectFunction(m, "m.manifest", "", f));
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->name, "b");
}

TEST(SelectFunction, SaysWhatIsWrong) {
  Manifest m;
  m.functions.push_back(makeFunction("a", 1));
  m.functions.push_back(makeFunction("b", 2));
  m.functions.push_back(makeFunction("c", 1, "has a dynamic shape"));
  m.functions.push_back(makeFunction("wide", kMaxDescriptors));
  const FunctionSpec *f = nullptr;
  EXPECT_EQ(selectFunction(m, "m.manifest", "", f).message,
            "--entry=NAME is needed: 'm.manifest' lists 3 callable functions "
            "(@a, @b, @c, @wide)");
  EXPECT_EQ(selectFunction(m, "m.manifest", "d", f).message,
            "no function @d in 'm.manifest' (functions: @a, @b, @c, @wide)");
  EXPECT_EQ(selectFunction(m, "m.manifest", "c", f).message,
            "@c cannot be called: has a dynamic shape");
  EXPECT_EQ(selectFunction(m, "m.manifest", "wide", f).message,
            "@wide takes 65 descriptors; mxfp8-launch calls at most 64");
  EXPECT_EQ(selectFunction(Manifest(), "e.manifest", "", f).message,
            "--entry=NAME is needed: 'e.manifest' lists 0 callable functions "
            "(none)");
}

TEST(SelectFunction, SignaturesMustMatchToCompare) {
  FunctionSpec a = makeFunction("a", 1), b = makeFunction("b", 2);
  EXPECT_EQ(describeSignature(a), "(4xf32) -> (2x4xbf16)");
  EXPECT_FALSE(checkSameSignature(a, makeFunction("a2", 1)));
  EXPECT_EQ(checkSameSignature(a, b).message,
            "cannot compare @a (4xf32) -> (2x4xbf16) with @b (4xf32, 4xf32) "
            "-> (2x4xbf16)");
}

TEST(CompareResults, BytesElementsAndSqnr) {
  TensorSpec t = makeTensor("y", ElementKind::F32, {4});
  float nan = std::numeric_limits<float>::quiet_NaN();
  HostBuffer ref = makeF32({1.0f, 2.0f, 2.0f, nan});
  HostBuffer out = makeF32({1.0f, 2.0f, 3.0f, -nan});
  TensorComparison c = compareTensorData(t, ref.data(), out.data());
  // 2.0f = 0x40000000 and 3.0f = 0x40400000 differ in one byte; the NaNs
  // (different signs) count as equal and leave the SQNR.
  EXPECT_EQ(c.differingBytes, 1);
  EXPECT_EQ(c.differingElements, 1);
  EXPECT_FALSE(c.isBitExact());
  // ||ref|| = 3, ||ref - out|| = 1: 20 log10(3) dB.
  EXPECT_NEAR(c.stats.sqnrDb, 20.0 * std::log10(3.0), 1e-12);
  EXPECT_EQ(c.stats.maxAbsError, 1.0);
  EXPECT_EQ(c.stats.count, 3);
}

TEST(CompareResults, TheWorstOverResultsAndNaNWins) {
  FunctionSpec f;
  f.results = {makeTensor("a", ElementKind::F32, {2}),
               makeTensor("b", ElementKind::F32, {2})};
  float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<HostBuffer> ref, out;
  ref.push_back(makeF32({3.0f, 4.0f}));
  out.push_back(makeF32({3.0f, 4.0f}));
  ref.push_back(makeF32({1.0f, 0.0f}));
  out.push_back(makeF32({1.0f, 0.5f}));
  ResultsComparison all = compareResults(f, ref, out);
  ASSERT_EQ(all.results.size(), 2u);
  EXPECT_EQ(all.numDifferent, 1u);
  EXPECT_TRUE(std::isinf(all.results[0].stats.sqnrDb));
  // ||ref|| = 1, ||ref - out|| = 0.5.
  EXPECT_NEAR(all.minSqnrDb, 20.0 * std::log10(2.0), 1e-12);
  EXPECT_EQ(all.maxAbsError, 0.5);
  // A NaN on one side only makes the SQNR and the error NaN.
  out[0] = makeF32({nan, 4.0f});
  all = compareResults(f, ref, out);
  EXPECT_TRUE(std::isnan(all.minSqnrDb));
  EXPECT_TRUE(std::isnan(all.maxAbsError));
}

TEST(CompareResults, SummaryOfValues) {
  TensorSpec t = makeTensor("y", ElementKind::F32, {3});
  HostBuffer data = makeF32({3.0f, -4.0f, 0.0f});
  ValueSummary s = summarizeValues(t, data.data());
  EXPECT_EQ(s.l2Norm, 5.0);
  EXPECT_EQ(s.maxAbs, 4.0);
}

TEST(CompareResults, MatmulProbesPairHighPrecisionAndConverted) {
  FunctionSpec f;
  f.results = {
      makeTensor("out", ElementKind::F32, {1}, "output"),
      makeTensor("mlp.w1.fwd", ElementKind::F32, {2}, "matmul_hp"),
      makeTensor("mlp.w1.fwd", ElementKind::F32, {2}, "matmul_forward"),
      makeTensor("mlp.w1.wgrad", ElementKind::F32, {2}, "matmul_hp"),
      makeTensor("mlp.w1.wgrad", ElementKind::F32, {2}, "matmul_wgrad"),
      makeTensor("mlp.w2.fwd", ElementKind::F32, {2}, "matmul_hp"),
      makeTensor("mlp.w2.fwd", ElementKind::F32, {2}, "matmul_forward")};
  // The bars mxfp8-compile --per-matmul records (MX: forward 27, wgrad 24);
  // the last probe has none.
  f.results[2].hasBar = true;
  f.results[2].bar = 27.0;
  f.results[4].hasBar = true;
  f.results[4].bar = 24.0;
  std::vector<HostBuffer> results;
  results.push_back(makeF32({0.0f}));
  // SQNR 20 log10(||(1, 1)|| / ||(0.1, 0)||) = 23.01 dB: below 27.
  results.push_back(makeF32({1.0f, 1.0f}));
  results.push_back(makeF32({1.1f, 1.0f}));
  // Exact: +inf dB, above 24.
  results.push_back(makeF32({2.0f, 2.0f}));
  results.push_back(makeF32({2.0f, 2.0f}));
  // 23.01 dB again, but without a bar: not judged.
  results.push_back(makeF32({1.0f, 1.0f}));
  results.push_back(makeF32({1.1f, 1.0f}));
  std::vector<MatmulProbe> probes = getMatmulProbes(f, results);
  ASSERT_EQ(probes.size(), 3u);
  EXPECT_EQ(probes[0].index, 1u);
  EXPECT_EQ(probes[0].role, "forward");
  EXPECT_EQ(probes[0].barDb, 27.0);
  EXPECT_NEAR(probes[0].comparison.stats.sqnrDb,
              20.0 * std::log10(std::sqrt(2.0) / (1.1f - 1.0f)), 1e-9);
  EXPECT_FALSE(probes[0].passes);
  EXPECT_EQ(probes[1].index, 3u);
  EXPECT_EQ(probes[1].role, "wgrad");
  EXPECT_EQ(probes[1].barDb, 24.0);
  EXPECT_TRUE(probes[1].passes);
  EXPECT_EQ(probes[2].index, 5u);
  EXPECT_FALSE(probes[2].hasBar);
  EXPECT_TRUE(probes[2].passes);
}

void *calledWith[3];

void recordThree(void *a, void *b, void *c) {
  calledWith[0] = a;
  calledWith[1] = b;
  calledWith[2] = c;
}

TEST(AOTFunction, CallsWithThePointersInOrder) {
  int x = 0, y = 0, z = 0;
  callWithPointers(reinterpret_cast<void *>(&recordThree), {&x, &y, &z});
  EXPECT_EQ(calledWith[0], &x);
  EXPECT_EQ(calledWith[1], &y);
  EXPECT_EQ(calledWith[2], &z);
}

TEST(AOTFunction, HostBuffersAreZeroedAndAligned) {
  HostBuffer buffer(100);
  ASSERT_NE(buffer.data(), nullptr);
  EXPECT_EQ(buffer.size(), 100u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(buffer.data()) % 64, 0u);
  for (size_t i = 0; i < buffer.size(); ++i)
    EXPECT_EQ(buffer.data()[i], 0) << i;
}

} // namespace
