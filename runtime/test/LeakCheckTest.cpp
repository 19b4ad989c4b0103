//===- LeakCheckTest.cpp - nothing the runtime creates outlives it -------===//
//
// With a fake driver, the fake counts the objects it hands out. After the
// last test of the process (a global test environment's TearDown, so every
// test file's work is included) no device or host allocation, stream,
// event, host registration or module may still be live: every object the
// tests create through the runtime must be released by them or by the
// runtime. Primary contexts are not counted: the runtime retains one per
// device for the life of the process, as the CUDA runtime does.
//
// LeakCheck.DISABLED_LeaksOnPurpose shows that the check fails; test/runtime
// runs it (--gtest_also_run_disabled_tests) and expects the report.
//
//===----------------------------------------------------------------------===//

#include "TestDriver.h"

#include "mxfp8train/runtime/Runtime.h"

#include <sstream>

using namespace mxfp8rt::test;

namespace {

/// Checks the fake's live counts once every test has run.
class LeakCheckEnvironment : public testing::Environment {
public:
  void TearDown() override {
    const FakeCudaState *state = getFakeState();
    if (!state)
      return;
    std::ostringstream leaks;
    auto check = [&](const char *what, int live) {
      if (live != 0)
        leaks << "\n  live " << what << ": " << live;
    };
    check("allocations", state->liveAllocations);
    check("pool allocations", state->poolAllocations - state->poolFrees);
    check("streams", state->liveStreams);
    check("events", state->liveEvents);
    check("host registrations", state->hostRegistrations);
    check("modules", state->liveModules);
    EXPECT_TRUE(leaks.str().empty())
        << "the fake driver still holds objects after the last test:"
        << leaks.str();
  }
};

const testing::Environment *const leakCheck =
    testing::AddGlobalTestEnvironment(new LeakCheckEnvironment());

const char kPtx[] = ".version 8.0\n.target sm_100a\n"
                    ".visible .entry vector_add_f32(\n)\n";

} // namespace

// Leaves one of each object behind; run on purpose only (see the header).
// The handles stay reachable (statics), so that in the sanitizer build
// LeakSanitizer does not end the process before the check reports.
TEST(LeakCheck, DISABLED_LeaksOnPurpose) {
  REQUIRE_DRIVER(isWorkingFake(), "--driver=fake or --driver=fake-old");
  ASSERT_EQ(mxfp8rtInitialize(), MXFP8RT_SUCCESS) << mxfp8rtGetLastError();
  ASSERT_EQ(mxfp8rtSetDevice(0), MXFP8RT_SUCCESS);
  static void *pointer = nullptr;
  ASSERT_EQ(mxfp8rtMemAlloc(64, &pointer), MXFP8RT_SUCCESS);
  static mxfp8rtStream stream = nullptr;
  ASSERT_EQ(mxfp8rtStreamCreate(&stream), MXFP8RT_SUCCESS);
  static mxfp8rtEvent event = nullptr;
  ASSERT_EQ(mxfp8rtEventCreate(&event, 0), MXFP8RT_SUCCESS);
  static mxfp8rtModule module = nullptr;
  ASSERT_EQ(mxfp8rtModuleLoadData(kPtx, sizeof(kPtx), "leak", &module),
            MXFP8RT_SUCCESS)
      << mxfp8rtGetLastError();
}
