//===- ProfilerTest.cpp - the runtime's profiler vs the fake driver -------===//
//
// With `--driver=fake` (or `fake-old`): the per-kernel report names each
// launched kernel with its launch count and event times (the fake's clock
// advances 1 ms between two consecutive event records, so a profiled launch
// takes exactly 1 ms), events come from a pool and are only waited for by
// a report, the counters of fills, copies, allocations (pool hits and
// misses) and host waits are exact, and nothing is recorded while
// profiling is off.
//
//===----------------------------------------------------------------------===//

#include "TestDriver.h"

#include "mxfp8train/runtime/Runtime.h"

#include <cstdio>
#include <string>
#include <vector>

using namespace mxfp8rt::test;

namespace {

const char kPtx[] = ".version 8.0\n.target sm_100a\n"
                    ".visible .entry gemm_tile(\n)\n"
                    ".visible .entry quantize_rows(\n)\n"
                    ".visible .entry add_bias(\n)\n";

std::string lastError() { return mxfp8rtGetLastError(); }

/// The report's kernels, largest total first.
std::vector<mxfp8rtProfileKernel> getKernels() {
  intptr_t count = -1;
  EXPECT_EQ(mxfp8rtProfileGetKernels(nullptr, 0, &count), MXFP8RT_SUCCESS)
      << lastError();
  std::vector<mxfp8rtProfileKernel> kernels(count > 0 ? size_t(count) : 0);
  intptr_t again = -1;
  EXPECT_EQ(mxfp8rtProfileGetKernels(kernels.data(), count, &again),
            MXFP8RT_SUCCESS)
      << lastError();
  EXPECT_EQ(again, count);
  return kernels;
}

class Profiler : public testing::Test {
protected:
  void SetUp() override {
    if (!isWorkingFake())
      GTEST_SKIP() << "needs --driver=fake or --driver=fake-old";
    ASSERT_EQ(mxfp8rtInitialize(), MXFP8RT_SUCCESS) << lastError();
    ASSERT_EQ(mxfp8rtSetDevice(0), MXFP8RT_SUCCESS);
    state = getFakeState();
    ASSERT_EQ(mxfp8rtModuleLoadData(kPtx, sizeof(kPtx), "profiled", &module),
              MXFP8RT_SUCCESS)
        << lastError();
    for (const char *name : {"gemm_tile", "quantize_rows", "add_bias"}) {
      mxfp8rtFunction function = nullptr;
      ASSERT_EQ(mxfp8rtModuleGetFunction(module, name, &function),
                MXFP8RT_SUCCESS)
          << lastError();
      functions.push_back(function);
    }
    ASSERT_EQ(mxfp8rtStreamCreate(&stream), MXFP8RT_SUCCESS) << lastError();
    ASSERT_EQ(mxfp8rtProfileReset(), MXFP8RT_SUCCESS);
  }
  void TearDown() override {
    if (!state)
      return;
    EXPECT_EQ(mxfp8rtProfileEnable(0), MXFP8RT_SUCCESS);
    EXPECT_EQ(mxfp8rtProfileReset(), MXFP8RT_SUCCESS);
    // The pooled events are destroyed: no driver object outlives the test.
    int liveEvents = state->liveEvents;
    EXPECT_EQ(mxfp8rtProfileReleaseEvents(), MXFP8RT_SUCCESS);
    EXPECT_LE(state->liveEvents, liveEvents);
    EXPECT_EQ(mxfp8rtStreamDestroy(stream), MXFP8RT_SUCCESS);
    EXPECT_EQ(mxfp8rtModuleUnload(module), MXFP8RT_SUCCESS);
    EXPECT_EQ(getFakeContextDepth(), 0);
  }

  mxfp8rtStatus launch(int kernel) {
    return mxfp8rtLaunchKernel(functions[kernel], 4, 1, 1, 128, 1, 1, 0, stream,
                               nullptr);
  }

  /// One "step": gemm_tile three times, quantize_rows once (with 2x1x1
  /// clusters where the driver has cuLaunchKernelEx), add_bias never.
  void runStep() {
    for (int i = 0; i < 3; ++i)
      ASSERT_EQ(launch(0), MXFP8RT_SUCCESS) << lastError();
    if (getDriverMode() == DriverMode::Fake)
      ASSERT_EQ(mxfp8rtLaunchClusterKernel(functions[1], 2, 1, 1, 4, 1, 1, 128,
                                           1, 1, 0, stream, nullptr),
                MXFP8RT_SUCCESS)
          << lastError();
    else
      ASSERT_EQ(launch(1), MXFP8RT_SUCCESS) << lastError();
  }

  const FakeCudaState *state = nullptr;
  mxfp8rtModule module = nullptr;
  std::vector<mxfp8rtFunction> functions;
  mxfp8rtStream stream = nullptr;
};

} // namespace

TEST_F(Profiler, OffRecordsNothing) {
  ASSERT_EQ(mxfp8rtProfileEnable(0), MXFP8RT_SUCCESS);
  EXPECT_EQ(mxfp8rtProfileIsEnabled(), 0);
  int records = state->eventRecords, creates = state->eventCreates;
  runStep();
  uint32_t zero = 0;
  void *buffer = nullptr;
  ASSERT_EQ(mxfp8rtMemAlloc(64, &buffer), MXFP8RT_SUCCESS);
  ASSERT_EQ(mxfp8rtMemsetD32(buffer, 0, 16, stream), MXFP8RT_SUCCESS);
  ASSERT_EQ(mxfp8rtMemcpyHtoD(buffer, &zero, 4, stream), MXFP8RT_SUCCESS);
  ASSERT_EQ(mxfp8rtStreamSynchronize(stream), MXFP8RT_SUCCESS);
  ASSERT_EQ(mxfp8rtMemFree(buffer), MXFP8RT_SUCCESS);
  EXPECT_EQ(state->eventRecords, records);
  EXPECT_EQ(state->eventCreates, creates);
  EXPECT_TRUE(getKernels().empty());
  mxfp8rtProfileSummary summary;
  ASSERT_EQ(mxfp8rtProfileGetSummary(&summary), MXFP8RT_SUCCESS);
  EXPECT_EQ(summary.launches, 0);
  EXPECT_EQ(summary.memsets, 0);
  EXPECT_EQ(summary.memcpys, 0);
  EXPECT_EQ(summary.allocations, 0);
  EXPECT_EQ(summary.frees, 0);
  EXPECT_EQ(summary.hostSynchronizations, 0);
}

TEST_F(Profiler, ReportNamesEachKernelWithItsLaunchesAndTimes) {
  ASSERT_EQ(mxfp8rtProfileEnable(1), MXFP8RT_SUCCESS);
  EXPECT_EQ(mxfp8rtProfileIsEnabled(), 1);
  int records = state->eventRecords, syncs = state->eventSynchronizes;
  int creates0 = state->eventCreates;
  runStep();
  // A launch the driver refuses (more than 1024 threads) is not counted.
  EXPECT_EQ(mxfp8rtLaunchKernel(functions[2], 1, 1, 1, 2048, 1, 1, 0, stream,
                                nullptr),
            MXFP8RT_CUDA_ERROR);
  // Two events per launch, none waited for before the report.
  EXPECT_EQ(state->eventRecords - records, 2 * 4 + 1);
  EXPECT_EQ(state->eventSynchronizes, syncs);

  std::vector<mxfp8rtProfileKernel> kernels = getKernels();
  EXPECT_GT(state->eventSynchronizes, syncs);
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_STREQ(kernels[0].name, "gemm_tile");
  EXPECT_EQ(kernels[0].launches, 3);
  EXPECT_DOUBLE_EQ(kernels[0].totalMs, 3.0);
  EXPECT_DOUBLE_EQ(kernels[0].minMs, 1.0);
  EXPECT_DOUBLE_EQ(kernels[0].maxMs, 1.0);
  EXPECT_STREQ(kernels[1].name, "quantize_rows");
  EXPECT_EQ(kernels[1].launches, 1);
  EXPECT_DOUBLE_EQ(kernels[1].totalMs, 1.0);

  mxfp8rtProfileSummary summary;
  ASSERT_EQ(mxfp8rtProfileGetSummary(&summary), MXFP8RT_SUCCESS);
  EXPECT_EQ(summary.launches, 4);
  EXPECT_EQ(summary.untimedLaunches, 0);
  EXPECT_DOUBLE_EQ(summary.kernelMs, 4.0);
  // The first profiled step fills the pool: two events per launch, ten
  // when the pool started empty (the refused launch needed a pair while
  // the other eight were pending, then gave it back).
  EXPECT_EQ(summary.eventsCreated, state->eventCreates - creates0);
  EXPECT_LE(summary.eventsCreated, 10);

  // Resolved launches are not counted twice; the next step reuses the
  // pooled events and creates none.
  int creates = state->eventCreates;
  runStep();
  EXPECT_EQ(state->eventCreates, creates);
  kernels = getKernels();
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_EQ(kernels[0].launches, 6);
  EXPECT_DOUBLE_EQ(kernels[0].totalMs, 6.0);
  EXPECT_EQ(kernels[1].launches, 2);
  ASSERT_EQ(mxfp8rtProfileGetSummary(&summary), MXFP8RT_SUCCESS);
  EXPECT_EQ(summary.launches, 8);
  EXPECT_DOUBLE_EQ(summary.kernelMs, 8.0);
  EXPECT_EQ(summary.eventsCreated, state->eventCreates - creates0);

  // A reset drops the rows; the pool stays warm.
  ASSERT_EQ(mxfp8rtProfileReset(), MXFP8RT_SUCCESS);
  EXPECT_TRUE(getKernels().empty());
  creates = state->eventCreates;
  ASSERT_EQ(launch(2), MXFP8RT_SUCCESS);
  EXPECT_EQ(state->eventCreates, creates);
  kernels = getKernels();
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_STREQ(kernels[0].name, "add_bias");
  EXPECT_EQ(kernels[0].launches, 1);
  EXPECT_DOUBLE_EQ(kernels[0].totalMs, 1.0);
}

TEST_F(Profiler, CountsFillsCopiesAllocationsAndHostWaits) {
  ASSERT_EQ(mxfp8rtProfileEnable(1), MXFP8RT_SUCCESS);
  bool pools = getDriverMode() == DriverMode::Fake;
  // Larger than anything the pool holds: the first allocation grows it
  // (a miss), the second, after the first went back, reuses it (a hit).
  intptr_t size = 1 << 20;
  if (pools)
    size += intptr_t(state->poolReservedBytes - state->poolUsedBytes);
  void *pooled = nullptr;
  ASSERT_EQ(mxfp8rtMemAllocAsync(size, stream, &pooled), MXFP8RT_SUCCESS)
      << lastError();
  ASSERT_EQ(mxfp8rtMemsetD8(pooled, 1, 100, stream), MXFP8RT_SUCCESS);
  ASSERT_EQ(mxfp8rtMemsetD16(pooled, 1, 100, stream), MXFP8RT_SUCCESS);
  ASSERT_EQ(mxfp8rtMemsetD32(pooled, 1, 100, stream), MXFP8RT_SUCCESS);
  float values[8] = {};
  ASSERT_EQ(mxfp8rtMemcpyDtoH(values, pooled, sizeof(values), stream),
            MXFP8RT_SUCCESS);
  ASSERT_EQ(mxfp8rtStreamSynchronize(stream), MXFP8RT_SUCCESS);
  ASSERT_EQ(mxfp8rtMemFreeAsync(pooled, stream), MXFP8RT_SUCCESS);
  ASSERT_EQ(mxfp8rtMemAllocAsync(size, stream, &pooled), MXFP8RT_SUCCESS);
  ASSERT_EQ(mxfp8rtMemFreeAsync(pooled, stream), MXFP8RT_SUCCESS);
  void *plain = nullptr;
  ASSERT_EQ(mxfp8rtMemAlloc(256, &plain), MXFP8RT_SUCCESS);
  ASSERT_EQ(mxfp8rtMemFree(plain), MXFP8RT_SUCCESS);
  ASSERT_EQ(mxfp8rtDeviceSynchronize(), MXFP8RT_SUCCESS);

  mxfp8rtProfileSummary summary;
  ASSERT_EQ(mxfp8rtProfileGetSummary(&summary), MXFP8RT_SUCCESS);
  EXPECT_EQ(summary.launches, 0);
  EXPECT_DOUBLE_EQ(summary.kernelMs, 0.0);
  // Fills and copies are timed like launches, one row per driver call.
  EXPECT_DOUBLE_EQ(summary.memsetMs, 3.0);
  EXPECT_DOUBLE_EQ(summary.memcpyMs, 1.0);
  std::vector<mxfp8rtProfileKernel> rows = getKernels();
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_STREQ(rows[0].name, "cuMemcpyDtoHAsync");
  EXPECT_STREQ(rows[1].name, "cuMemsetD16Async");
  EXPECT_STREQ(rows[2].name, "cuMemsetD32Async");
  EXPECT_STREQ(rows[3].name, "cuMemsetD8Async");
  for (const mxfp8rtProfileKernel &row : rows) {
    EXPECT_EQ(row.launches, 1);
    EXPECT_DOUBLE_EQ(row.totalMs, 1.0);
  }
  EXPECT_EQ(summary.memsets, 3);
  EXPECT_EQ(summary.memsetBytes, 100 + 200 + 400);
  EXPECT_EQ(summary.memcpys, 1);
  EXPECT_EQ(summary.memcpyBytes, intptr_t(sizeof(values)));
  EXPECT_EQ(summary.allocations, 3);
  EXPECT_EQ(summary.allocatedBytes, 2 * size + 256);
  EXPECT_EQ(summary.frees, 3);
  EXPECT_EQ(summary.hostSynchronizations, 2);
  if (pools) {
    EXPECT_EQ(summary.poolAllocations, 2);
    EXPECT_EQ(summary.poolMisses, 1);
    EXPECT_EQ(summary.poolHits, 1);
    EXPECT_EQ(summary.deviceFrees, 1);
  } else {
    // Without memory pools every allocation is cuMemAlloc's and every free
    // cuMemFree's.
    EXPECT_EQ(summary.poolAllocations, 0);
    EXPECT_EQ(summary.deviceFrees, 3);
  }
}

TEST_F(Profiler, PrintsTheTableLargestFirst) {
  ASSERT_EQ(mxfp8rtProfileEnable(1), MXFP8RT_SUCCESS);
  runStep();
  std::FILE *file = std::tmpfile();
  ASSERT_NE(file, nullptr);
  ASSERT_EQ(mxfp8rtProfilePrint(file), MXFP8RT_SUCCESS) << lastError();
  std::rewind(file);
  std::string text;
  char buffer[512];
  while (std::fgets(buffer, sizeof(buffer), file))
    text += buffer;
  std::fclose(file);
  auto row = [](const char *name, const char *rest) {
    char line[160];
    std::snprintf(line, sizeof(line), "%-56s %s\n", name, rest);
    return std::string(line);
  };
  std::string expected =
      row("kernel", "launches    total ms    mean ms   share") +
      row("gemm_tile", "       3      3.0000     1.0000   75.0%") +
      row("quantize_rows", "       1      1.0000     1.0000   25.0%") +
      row("all kernels", "       4      4.0000") +
      row("all memsets", "       0      0.0000") +
      row("all copies", "       0      0.0000");
  EXPECT_EQ(text.substr(0, expected.size()), expected) << text;
  EXPECT_NE(text.find("untimed operations 0; memsets 0 (0 bytes)"),
            std::string::npos)
      << text;
}

TEST_F(Profiler, ArgumentsAreChecked) {
  EXPECT_EQ(mxfp8rtProfileGetSummary(nullptr), MXFP8RT_INVALID_ARGUMENT);
  EXPECT_EQ(lastError(), "mxfp8rtProfileGetSummary: summary is null");
  intptr_t count = 0;
  EXPECT_EQ(mxfp8rtProfileGetKernels(nullptr, 2, &count),
            MXFP8RT_INVALID_ARGUMENT);
  EXPECT_EQ(lastError(), "mxfp8rtProfileGetKernels: kernels is null "
                         "(capacity 2)");
  EXPECT_EQ(mxfp8rtProfileGetKernels(nullptr, -1, &count),
            MXFP8RT_INVALID_ARGUMENT);
  EXPECT_EQ(lastError(), "mxfp8rtProfileGetKernels: capacity -1 is negative");
  EXPECT_EQ(mxfp8rtProfileGetKernels(nullptr, 0, nullptr),
            MXFP8RT_INVALID_ARGUMENT);
  EXPECT_EQ(mxfp8rtProfilePrint(nullptr), MXFP8RT_INVALID_ARGUMENT);
  EXPECT_EQ(lastError(), "mxfp8rtProfilePrint: file is null");
}
