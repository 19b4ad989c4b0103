//===- FakeDriverTest.cpp - runtime vs the fake driver -------- -*- C++ -*-===//
//
// With `--driver=fake` (or `fake-old`) the runtime talks to FakeCuda.cpp,
// which records every call. These tests check what a GPU-less machine cannot
// otherwise show: which driver calls are made with which arguments and
// context, the module cache end to end, and the error messages built from
// driver errors.
//
//===----------------------------------------------------------------------===//

#include "TestDriver.h"

#include "mxfp8train/runtime/Runtime.h"

#include <cstring>
#include <string>
#include <vector>

using namespace mxfp8rt::test;

namespace {

const char kPtx[] = ".version 8.0\n.target sm_100a\n"
                    ".visible .entry vector_add_f32(\n)\n"
                    ".visible .entry memref_add_f32(\n)\n"
                    ".visible .entry fake_fault(\n)\n";
/// The description of kPtx loaded as module "kernels".
const char kKernelsModule[] = "module 'kernels' (PTX, 127 bytes)";

std::string lastError() { return mxfp8rtGetLastError(); }

class FakeDriver : public testing::Test {
protected:
  void SetUp() override {
    if (!isWorkingFake())
      GTEST_SKIP() << "needs --driver=fake or --driver=fake-old";
    ASSERT_EQ(mxfp8rtInitialize(), MXFP8RT_SUCCESS) << lastError();
    ASSERT_EQ(mxfp8rtSetDevice(0), MXFP8RT_SUCCESS);
    state = getFakeState();
  }
  void TearDown() override {
    if (state) {
      EXPECT_EQ(getFakeContextDepth(), 0)
          << "every pushed context is popped again";
    }
  }

  /// Loads kPtx as "kernels" and looks up `kernel`.
  mxfp8rtFunction load(const char *kernel, mxfp8rtModule &module) {
    mxfp8rtFunction function = nullptr;
    EXPECT_EQ(mxfp8rtModuleLoadData(kPtx, sizeof(kPtx), "kernels", &module),
              MXFP8RT_SUCCESS)
        << lastError();
    EXPECT_EQ(mxfp8rtModuleGetFunction(module, kernel, &function),
              MXFP8RT_SUCCESS)
        << lastError();
    return function;
  }

  const FakeCudaState *state = nullptr;
  /// Arguments of vector_add_f32 that launch nothing harmful: three null
  /// pointers and a zero count.
  uint32_t zeroCount = 0;
  void *nullPointer = nullptr;
  void *nullAddParams[4] = {&nullPointer, &nullPointer, &nullPointer,
                            &zeroCount};
};

} // namespace

TEST_F(FakeDriver, DeviceQueries) {
  int count = 0, version = 0, major = 0, minor = 0, sms = 0, smem = 0;
  int device = -1;
  size_t total = 0;
  char name[64];
  EXPECT_EQ(mxfp8rtIsAvailable(), 1);
  ASSERT_EQ(mxfp8rtGetDeviceCount(&count), MXFP8RT_SUCCESS);
  EXPECT_EQ(count, 2);
  ASSERT_EQ(mxfp8rtGetDriverVersion(&version), MXFP8RT_SUCCESS);
  EXPECT_EQ(version, 12080);
  ASSERT_EQ(mxfp8rtGetDeviceName(1, name, sizeof(name)), MXFP8RT_SUCCESS);
  EXPECT_STREQ(name, "Fake CUDA Device 1");
  ASSERT_EQ(mxfp8rtGetDeviceName(0, name, 5), MXFP8RT_SUCCESS);
  EXPECT_STREQ(name, "Fake") << "truncated to the capacity";
  ASSERT_EQ(mxfp8rtGetDeviceComputeCapability(0, &major, &minor),
            MXFP8RT_SUCCESS);
  EXPECT_EQ(major, 10);
  EXPECT_EQ(minor, 0);
  ASSERT_EQ(mxfp8rtGetDeviceMultiProcessorCount(0, &sms), MXFP8RT_SUCCESS);
  EXPECT_EQ(sms, 148);
  ASSERT_EQ(mxfp8rtGetDeviceMaxSharedMemoryPerBlock(0, &smem), MXFP8RT_SUCCESS);
  EXPECT_EQ(smem, 232448);
  ASSERT_EQ(mxfp8rtGetDeviceTotalMemory(0, &total), MXFP8RT_SUCCESS);
  EXPECT_EQ(total, size_t(80) << 30);
  ASSERT_EQ(mxfp8rtGetDevice(&device), MXFP8RT_SUCCESS);
  EXPECT_EQ(device, 0);
  EXPECT_EQ(mxfp8rtSetDevice(2), MXFP8RT_INVALID_ARGUMENT);
  EXPECT_EQ(lastError(),
            "mxfp8rtSetDevice: device 2 does not exist (this machine has 2)");
  EXPECT_EQ(mxfp8rtGetDeviceName(-1, name, 8), MXFP8RT_INVALID_ARGUMENT);
  EXPECT_EQ(mxfp8rtGetDeviceAttribute(0, 12345, &major), MXFP8RT_CUDA_ERROR);
  EXPECT_EQ(lastError(), "cuDeviceGetAttribute failed for attribute 12345 of "
                         "device 0: CUDA_ERROR_INVALID_VALUE: invalid "
                         "argument");
  EXPECT_EQ(state->initCalls, 1);
}

TEST_F(FakeDriver, ModuleCacheSharesLoadsAndCountsReferences) {
  int loads = state->moduleLoads, unloads = state->moduleUnloads;
  mxfp8rtModuleCacheStats before = {}, after = {};
  ASSERT_EQ(mxfp8rtGetModuleCacheStats(&before), MXFP8RT_SUCCESS);
  mxfp8rtModule first = nullptr, second = nullptr, jit = nullptr,
                other = nullptr;
  ASSERT_EQ(mxfp8rtModuleLoadData(kPtx, sizeof(kPtx), "kernels", &first),
            MXFP8RT_SUCCESS);
  EXPECT_EQ(state->lastJitOptLevel, -1) << "no level: the driver default";
  EXPECT_EQ(state->lastLoadDevice, 0);
  // Same text without its NUL terminator: the same entry.
  ASSERT_EQ(mxfp8rtModuleLoadData(kPtx, sizeof(kPtx) - 1, "again", &second),
            MXFP8RT_SUCCESS);
  EXPECT_EQ(second, first);
  EXPECT_EQ(state->moduleLoads, loads + 1);
  // A JIT level is part of the key and reaches the driver.
  ASSERT_EQ(mxfp8rtModuleLoadDataJIT(kPtx, sizeof(kPtx), 3, "kernels", &jit),
            MXFP8RT_SUCCESS);
  EXPECT_NE(jit, first);
  EXPECT_EQ(state->lastJitOptLevel, 3);
  // Another device: another driver module, loaded in that device's context.
  ASSERT_EQ(mxfp8rtSetDevice(1), MXFP8RT_SUCCESS);
  ASSERT_EQ(mxfp8rtModuleLoadData(kPtx, sizeof(kPtx), "kernels", &other),
            MXFP8RT_SUCCESS);
  ASSERT_EQ(mxfp8rtSetDevice(0), MXFP8RT_SUCCESS);
  EXPECT_NE(other, first);
  EXPECT_EQ(state->lastLoadDevice, 1);
  EXPECT_EQ(state->moduleLoads, loads + 3);
  ASSERT_EQ(mxfp8rtGetModuleCacheStats(&after), MXFP8RT_SUCCESS);
  EXPECT_EQ(after.driverLoads - before.driverLoads, 3);
  EXPECT_EQ(after.cacheHits - before.cacheHits, 1);
  EXPECT_EQ(after.liveModules - before.liveModules, 3);

  // Kernels of a module on device 1 launch in device 1's context.
  mxfp8rtFunction function = nullptr;
  ASSERT_EQ(mxfp8rtModuleGetFunction(other, "fake_fault", &function),
            MXFP8RT_SUCCESS);

  EXPECT_EQ(mxfp8rtModuleUnload(first), MXFP8RT_SUCCESS);
  EXPECT_EQ(state->moduleUnloads, unloads) << "one reference is left";
  EXPECT_EQ(mxfp8rtModuleUnload(second), MXFP8RT_SUCCESS);
  EXPECT_EQ(state->moduleUnloads, unloads + 1);
  EXPECT_EQ(mxfp8rtModuleUnload(first), MXFP8RT_INVALID_ARGUMENT);
  EXPECT_EQ(lastError(),
            "mxfp8rtModuleUnload: unknown or already unloaded module handle");
  mxfp8rtFunction stale = nullptr;
  EXPECT_EQ(mxfp8rtModuleGetFunction(first, "vector_add_f32", &stale),
            MXFP8RT_INVALID_ARGUMENT);
  EXPECT_EQ(lastError(), "mxfp8rtModuleGetFunction: unknown or already "
                         "unloaded module handle (looking up kernel "
                         "'vector_add_f32')");
  EXPECT_EQ(mxfp8rtModuleUnload(jit), MXFP8RT_SUCCESS);
  EXPECT_EQ(mxfp8rtModuleUnload(other), MXFP8RT_SUCCESS);
  EXPECT_EQ(state->moduleUnloads, unloads + 3);
}

TEST_F(FakeDriver, FunctionLookupIsCachedAndMissingKernelsAreNamed) {
  mxfp8rtModule module = nullptr;
  int lookups = state->functionLookups;
  mxfp8rtFunction function = load("vector_add_f32", module);
  ASSERT_NE(function, nullptr);
  mxfp8rtFunction again = nullptr;
  ASSERT_EQ(mxfp8rtModuleGetFunction(module, "vector_add_f32", &again),
            MXFP8RT_SUCCESS);
  EXPECT_EQ(again, function);
  EXPECT_EQ(state->functionLookups, lookups + 1) << "second lookup is cached";
  mxfp8rtFunction missing = nullptr;
  EXPECT_EQ(mxfp8rtModuleGetFunction(module, "no_such_kernel", &missing),
            MXFP8RT_NOT_FOUND);
  EXPECT_EQ(missing, nullptr);
  EXPECT_EQ(lastError(), std::string("cuModuleGetFunction failed looking up "
                                     "kernel 'no_such_kernel' in ") +
                             kKernelsModule +
                             ": CUDA_ERROR_NOT_FOUND: named symbol not found");
  EXPECT_EQ(mxfp8rtModuleUnload(module), MXFP8RT_SUCCESS);
}

TEST_F(FakeDriver, PtxErrorsCarryTheJitLog) {
  const char bad[] = ".version 8.0\nFAKE_SYNTAX_ERROR\n";
  mxfp8rtModule module = nullptr;
  mxfp8rtModuleCacheStats before = {}, after = {};
  mxfp8rtGetModuleCacheStats(&before);
  EXPECT_EQ(mxfp8rtModuleLoadData(bad, sizeof(bad), "broken", &module),
            MXFP8RT_CUDA_ERROR);
  EXPECT_EQ(module, nullptr);
  EXPECT_EQ(lastError(),
            "cuModuleLoadDataEx failed for module 'broken' (PTX, 31 bytes) on "
            "device 0 (Fake CUDA Device 0, compute capability 10.0): "
            "CUDA_ERROR_INVALID_PTX: a PTX JIT compilation failed; JIT log: "
            "ptxas fatal: fake syntax error on line 2");
  mxfp8rtGetModuleCacheStats(&after);
  EXPECT_EQ(after.liveModules, before.liveModules) << "failures are not cached";
}

TEST_F(FakeDriver, LaunchPassesTheConfigurationInTheModuleContext) {
  mxfp8rtModule module = nullptr;
  mxfp8rtFunction function = load("vector_add_f32", module);
  mxfp8rtStream stream = nullptr;
  ASSERT_EQ(mxfp8rtStreamCreate(&stream), MXFP8RT_SUCCESS);
  const uint32_t n = 1000;
  std::vector<float> a(n), b(n), c(n, -1.0f);
  for (uint32_t i = 0; i < n; ++i) {
    a[i] = static_cast<float>(i);
    b[i] = 0.5f * static_cast<float>(i);
  }
  void *dA = nullptr, *dB = nullptr, *dC = nullptr;
  intptr_t bytes = n * sizeof(float);
  ASSERT_EQ(mxfp8rtMemAlloc(bytes, &dA), MXFP8RT_SUCCESS);
  ASSERT_EQ(mxfp8rtMemAlloc(bytes, &dB), MXFP8RT_SUCCESS);
  ASSERT_EQ(mxfp8rtMemAlloc(bytes, &dC), MXFP8RT_SUCCESS);
  ASSERT_EQ(mxfp8rtMemcpyHtoD(dA, a.data(), bytes, stream), MXFP8RT_SUCCESS);
  ASSERT_EQ(mxfp8rtMemcpyHtoD(dB, b.data(), bytes, stream), MXFP8RT_SUCCESS);
  uint32_t count = n;
  void *params[] = {&dA, &dB, &dC, &count};
  int launches = state->launches;
  ASSERT_EQ(
      mxfp8rtLaunchKernel(function, 4, 2, 1, 256, 1, 1, 1024, stream, params),
      MXFP8RT_SUCCESS)
      << lastError();
  EXPECT_EQ(state->launches, launches + 1);
  EXPECT_STREQ(state->lastKernel, "vector_add_f32");
  EXPECT_EQ(state->grid[0], 4u);
  EXPECT_EQ(state->grid[1], 2u);
  EXPECT_EQ(state->grid[2], 1u);
  EXPECT_EQ(state->block[0], 256u);
  EXPECT_EQ(state->sharedBytes, 1024u);
  EXPECT_EQ(state->stream, static_cast<void *>(stream));
  EXPECT_EQ(state->params, params);
  EXPECT_EQ(state->lastLaunchDevice, 0);
  ASSERT_EQ(mxfp8rtMemcpyDtoH(c.data(), dC, bytes, stream), MXFP8RT_SUCCESS);
  ASSERT_EQ(mxfp8rtStreamSynchronize(stream), MXFP8RT_SUCCESS);
  for (uint32_t i = 0; i < n; ++i)
    ASSERT_EQ(c[i], 1.5f * static_cast<float>(i)) << i;

  // A driver refusal names the kernel, the module, the device and the shape.
  EXPECT_EQ(
      mxfp8rtLaunchKernel(function, 1, 1, 1, 2048, 1, 1, 0, stream, params),
      MXFP8RT_CUDA_ERROR);
  EXPECT_EQ(lastError(),
            std::string("cuLaunchKernel failed for kernel 'vector_add_f32' "
                        "in ") +
                kKernelsModule +
                " on device 0 (Fake CUDA Device 0, compute capability 10.0) "
                "with grid 1x1x1, block 2048x1x1, 0 bytes of dynamic shared "
                "memory: CUDA_ERROR_INVALID_VALUE: invalid argument");

  for (void *pointer : {dA, dB, dC})
    EXPECT_EQ(mxfp8rtMemFree(pointer), MXFP8RT_SUCCESS);
  EXPECT_EQ(mxfp8rtStreamDestroy(stream), MXFP8RT_SUCCESS);
  EXPECT_EQ(mxfp8rtModuleUnload(module), MXFP8RT_SUCCESS);
}

TEST_F(FakeDriver, LargeDynamicSharedMemoryIsOptedIntoOnce) {
  mxfp8rtModule module = nullptr;
  mxfp8rtFunction add = load("vector_add_f32", module);
  void **params = nullAddParams;
  int calls = state->funcSetAttributeCalls;
  ASSERT_EQ(
      mxfp8rtLaunchKernel(add, 1, 1, 1, 32, 1, 1, 48 * 1024, nullptr, params),
      MXFP8RT_SUCCESS);
  EXPECT_EQ(state->funcSetAttributeCalls, calls) << "48 KiB needs no opt-in";
  ASSERT_EQ(
      mxfp8rtLaunchKernel(add, 1, 1, 1, 32, 1, 1, 100 * 1024, nullptr, params),
      MXFP8RT_SUCCESS);
  EXPECT_EQ(state->funcSetAttributeCalls, calls + 1);
  EXPECT_EQ(state->lastFuncAttributeValue, 100 * 1024);
  ASSERT_EQ(
      mxfp8rtLaunchKernel(add, 1, 1, 1, 32, 1, 1, 64 * 1024, nullptr, params),
      MXFP8RT_SUCCESS);
  EXPECT_EQ(state->funcSetAttributeCalls, calls + 1) << "already allowed";
  EXPECT_EQ(
      mxfp8rtLaunchKernel(add, 1, 1, 1, 32, 1, 1, 300000, nullptr, params),
      MXFP8RT_CUDA_ERROR);
  EXPECT_EQ(lastError(),
            std::string("cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES) "
                        "failed for kernel 'vector_add_f32' in ") +
                kKernelsModule +
                " on device 0 (Fake CUDA Device 0, compute capability 10.0) "
                "with grid 1x1x1, block 32x1x1, 300000 bytes of dynamic "
                "shared memory (the device allows at most 232448 bytes of "
                "shared memory per block, static included): "
                "CUDA_ERROR_INVALID_VALUE: invalid argument");
  EXPECT_EQ(mxfp8rtModuleUnload(module), MXFP8RT_SUCCESS);
}

TEST_F(FakeDriver, AsynchronousFaultsNameTheLastLaunch) {
  mxfp8rtModule module = nullptr;
  mxfp8rtFunction fault = load("fake_fault", module);
  ASSERT_EQ(mxfp8rtLaunchKernel(fault, 8, 1, 1, 128, 1, 1, 0, nullptr, nullptr),
            MXFP8RT_SUCCESS);
  EXPECT_EQ(mxfp8rtStreamSynchronize(nullptr), MXFP8RT_CUDA_ERROR);
  EXPECT_EQ(lastError(),
            "cuStreamSynchronize failed: CUDA_ERROR_ILLEGAL_ADDRESS: an "
            "illegal memory access was encountered (an earlier kernel "
            "failed; the most recent launch was kernel 'fake_fault' in "
            "module 'kernels' with grid 8x1x1, block 128x1x1, 0 bytes of "
            "dynamic shared memory)");
  ASSERT_EQ(mxfp8rtLaunchKernel(fault, 2, 1, 1, 32, 1, 1, 0, nullptr, nullptr),
            MXFP8RT_SUCCESS);
  EXPECT_EQ(mxfp8rtDeviceSynchronize(), MXFP8RT_CUDA_ERROR);
  EXPECT_EQ(lastError().rfind("cuCtxSynchronize failed on device 0 (Fake "
                              "CUDA Device 0, compute capability 10.0): "
                              "CUDA_ERROR_ILLEGAL_ADDRESS",
                              0),
            0u)
      << lastError();
  EXPECT_NE(lastError().find("the most recent launch was kernel "
                             "'fake_fault' in module 'kernels' with grid "
                             "2x1x1"),
            std::string::npos)
      << lastError();
  // Other errors do not mention launches.
  EXPECT_EQ(mxfp8rtMemFree(&module), MXFP8RT_CUDA_ERROR);
  EXPECT_EQ(lastError().find("most recent launch"), std::string::npos);
  EXPECT_EQ(mxfp8rtModuleUnload(module), MXFP8RT_SUCCESS);
}

TEST_F(FakeDriver, ClusterLaunch) {
  mxfp8rtModule module = nullptr;
  mxfp8rtFunction add = load("vector_add_f32", module);
  void **params = nullAddParams;
  mxfp8rtStatus status = mxfp8rtLaunchClusterKernel(add, 2, 1, 1, 8, 4, 1, 128,
                                                    1, 1, 0, nullptr, params);
  if (getDriverMode() == DriverMode::FakeOld) {
    EXPECT_EQ(status, MXFP8RT_NOT_SUPPORTED);
    EXPECT_EQ(lastError(), "mxfp8rtLaunchClusterKernel: the CUDA driver lacks "
                           "cuLaunchKernelEx (needs CUDA 11.8 or newer) to "
                           "launch kernel 'vector_add_f32' with clusters");
  } else {
    ASSERT_EQ(status, MXFP8RT_SUCCESS) << lastError();
    EXPECT_EQ(state->cluster[0], 2u);
    EXPECT_EQ(state->cluster[1], 1u);
    EXPECT_EQ(state->cluster[2], 1u);
    EXPECT_EQ(state->grid[0], 8u);
    EXPECT_EQ(state->grid[1], 4u);
    EXPECT_EQ(state->block[0], 128u);
    EXPECT_EQ(state->params, params);
  }
  EXPECT_EQ(mxfp8rtModuleUnload(module), MXFP8RT_SUCCESS);
}

TEST_F(FakeDriver, MemoryRoundTripsAndFills) {
  uint8_t host[64];
  for (int i = 0; i < 64; ++i)
    host[i] = static_cast<uint8_t>(i * 3);
  void *device = nullptr, *copy = nullptr;
  int live = state->liveAllocations;
  ASSERT_EQ(mxfp8rtMemAlloc(64, &device), MXFP8RT_SUCCESS);
  ASSERT_EQ(mxfp8rtMemAlloc(64, &copy), MXFP8RT_SUCCESS);
  EXPECT_EQ(state->liveAllocations, live + 2);
  ASSERT_EQ(mxfp8rtMemcpyHtoD(device, host, 64, nullptr), MXFP8RT_SUCCESS);
  ASSERT_EQ(mxfp8rtMemcpyDtoD(copy, device, 64, nullptr), MXFP8RT_SUCCESS);
  uint8_t back[64] = {0};
  ASSERT_EQ(mxfp8rtMemcpyDtoH(back, copy, 64, nullptr), MXFP8RT_SUCCESS);
  EXPECT_EQ(std::memcmp(back, host, 64), 0);

  ASSERT_EQ(mxfp8rtMemsetD8(device, 0xab, 64, nullptr), MXFP8RT_SUCCESS);
  ASSERT_EQ(mxfp8rtMemsetD16(device, 0x1234, 4, nullptr), MXFP8RT_SUCCESS);
  ASSERT_EQ(mxfp8rtMemsetD32(static_cast<char *>(device) + 16, 0xdeadbeefu, 2,
                             nullptr),
            MXFP8RT_SUCCESS);
  ASSERT_EQ(mxfp8rtMemcpy(back, device, 64, nullptr), MXFP8RT_SUCCESS);
  uint16_t halves[4];
  uint32_t words[2];
  std::memcpy(halves, back, 8);
  std::memcpy(words, back + 16, 8);
  for (uint16_t half : halves)
    EXPECT_EQ(half, 0x1234);
  for (uint32_t word : words)
    EXPECT_EQ(word, 0xdeadbeefu);
  for (int i = 8; i < 16; ++i)
    EXPECT_EQ(back[i], 0xab) << i;
  for (int i = 24; i < 64; ++i)
    EXPECT_EQ(back[i], 0xab) << i;

  EXPECT_EQ(mxfp8rtMemFree(device), MXFP8RT_SUCCESS);
  EXPECT_EQ(mxfp8rtMemFree(copy), MXFP8RT_SUCCESS);
  EXPECT_EQ(state->liveAllocations, live);
  EXPECT_EQ(mxfp8rtMemFree(device), MXFP8RT_CUDA_ERROR) << "double free";
  EXPECT_EQ(lastError(),
            "cuMemFree failed: CUDA_ERROR_INVALID_VALUE: invalid argument");

  void *huge = &huge;
  EXPECT_EQ(mxfp8rtMemAlloc(intptr_t(1) << 41, &huge), MXFP8RT_OUT_OF_MEMORY);
  EXPECT_EQ(huge, nullptr);
  EXPECT_EQ(lastError(), "cuMemAlloc failed allocating 2199023255552 bytes on "
                         "device 0 (Fake CUDA Device 0, compute capability "
                         "10.0): CUDA_ERROR_OUT_OF_MEMORY: out of memory");

  void *pinned = nullptr, *managed = nullptr;
  ASSERT_EQ(mxfp8rtHostAlloc(32, &pinned), MXFP8RT_SUCCESS);
  ASSERT_EQ(mxfp8rtMemAllocManaged(32, &managed), MXFP8RT_SUCCESS);
  EXPECT_EQ(mxfp8rtHostFree(pinned), MXFP8RT_SUCCESS);
  EXPECT_EQ(mxfp8rtMemFree(managed), MXFP8RT_SUCCESS);
  int registrations = state->hostRegistrations;
  EXPECT_EQ(mxfp8rtHostRegister(host, 64), MXFP8RT_SUCCESS);
  EXPECT_EQ(state->hostRegistrations, registrations + 1);
  EXPECT_EQ(mxfp8rtHostUnregister(host), MXFP8RT_SUCCESS);
  EXPECT_EQ(state->hostRegistrations, registrations);
}

TEST_F(FakeDriver, EventsTimeWithTheNewestEntryPoint) {
  mxfp8rtEvent start = nullptr, stop = nullptr, untimed = nullptr;
  int live = state->liveEvents;
  ASSERT_EQ(mxfp8rtEventCreate(&start, 1), MXFP8RT_SUCCESS);
  ASSERT_EQ(mxfp8rtEventCreate(&stop, 1), MXFP8RT_SUCCESS);
  ASSERT_EQ(mxfp8rtEventCreate(&untimed, 0), MXFP8RT_SUCCESS);
  EXPECT_EQ(state->liveEvents, live + 3);
  ASSERT_EQ(mxfp8rtEventRecord(start, nullptr), MXFP8RT_SUCCESS);
  ASSERT_EQ(mxfp8rtEventRecord(untimed, nullptr), MXFP8RT_SUCCESS);
  ASSERT_EQ(mxfp8rtEventRecord(stop, nullptr), MXFP8RT_SUCCESS);
  ASSERT_EQ(mxfp8rtStreamWaitEvent(nullptr, stop), MXFP8RT_SUCCESS);
  ASSERT_EQ(mxfp8rtEventSynchronize(stop), MXFP8RT_SUCCESS);
  int v1 = state->elapsedTimeV1Calls, v2 = state->elapsedTimeV2Calls;
  float ms = 0;
  ASSERT_EQ(mxfp8rtEventElapsedTime(&ms, start, stop), MXFP8RT_SUCCESS);
  // Two recordings apart, 4 fake ticks of 0.25 ms each.
  EXPECT_EQ(ms, 2.0f);
  if (getDriverMode() == DriverMode::FakeOld) {
    EXPECT_EQ(state->elapsedTimeV1Calls, v1 + 1) << "falls back to v1";
  } else {
    EXPECT_EQ(state->elapsedTimeV2Calls, v2 + 1) << "uses _v2 when present";
    EXPECT_EQ(state->elapsedTimeV1Calls, v1);
  }
  EXPECT_EQ(mxfp8rtEventElapsedTime(&ms, start, untimed), MXFP8RT_CUDA_ERROR);
  EXPECT_EQ(lastError(), "cuEventElapsedTime failed: "
                         "CUDA_ERROR_INVALID_HANDLE: invalid resource handle");
  for (mxfp8rtEvent event : {start, stop, untimed})
    EXPECT_EQ(mxfp8rtEventDestroy(event), MXFP8RT_SUCCESS);
  EXPECT_EQ(state->liveEvents, live);
}

TEST_F(FakeDriver, MgpuAbiRunsAKernelEndToEnd) {
  // What host code from gpu-to-llvm does for one gpu.launch_func on memrefs.
  void *module = mgpuModuleLoad(const_cast<char *>(kPtx), sizeof(kPtx));
  ASSERT_NE(module, nullptr) << lastError();
  void *function = mgpuModuleGetFunction(module, "memref_add_f32");
  ASSERT_NE(function, nullptr) << lastError();
  void *stream = mgpuStreamCreate();
  ASSERT_NE(stream, nullptr);
  const int64_t n = 40;
  std::vector<float> a(n), b(n), c(n, 0.0f);
  for (int64_t i = 0; i < n; ++i) {
    a[i] = 0.25f * static_cast<float>(i);
    b[i] = 100.0f + static_cast<float>(i);
  }
  void *dA = mgpuMemAlloc(n * 4, stream, false);
  void *dB = mgpuMemAlloc(n * 4, stream, false);
  void *dC = mgpuMemAlloc(n * 4, stream, /*isHostShared=*/true);
  ASSERT_TRUE(dA && dB && dC);
  mgpuMemcpy(dA, a.data(), n * 4, stream);
  mgpuMemcpy(dB, b.data(), n * 4, stream);
  mgpuMemset32(dC, 0x7fc00000u, n, stream);
  // Three memrefs expanded: allocated, aligned, offset, size, stride.
  int64_t offset = 0, size = n, stride = 1;
  void *params[15] = {&dA, &dA, &offset, &size, &stride,
                      &dB, &dB, &offset, &size, &stride,
                      &dC, &dC, &offset, &size, &stride};
  mgpuLaunchKernel(function, 1, 1, 1, 64, 1, 1, 0, stream, params, nullptr, 15);
  mgpuMemcpy(c.data(), dC, n * 4, stream);
  mgpuStreamSynchronize(stream);
  for (int64_t i = 0; i < n; ++i)
    EXPECT_EQ(c[i], a[i] + b[i]) << i;
  void *event = mgpuEventCreate();
  ASSERT_NE(event, nullptr);
  mgpuEventRecord(event, stream);
  mgpuStreamWaitEvent(stream, event);
  mgpuEventSynchronize(event);
  mgpuEventDestroy(event);
  int live = state->liveAllocations;
  mgpuMemFree(dA, stream);
  mgpuMemFree(dB, stream);
  mgpuMemFree(dC, stream);
  EXPECT_EQ(state->liveAllocations, live - 3);
  mgpuStreamDestroy(stream);
  int unloads = state->moduleUnloads;
  mgpuModuleUnload(module);
  EXPECT_EQ(state->moduleUnloads, unloads + 1);

  float host[8];
  struct {
    void *allocated, *aligned;
    int64_t offset, sizes[2], strides[2];
  } memref = {host, host, 2, {2, 3}, {3, 1}};
  int registrations = state->hostRegistrations;
  mgpuMemHostRegisterMemRef(2, &memref, 4);
  EXPECT_EQ(state->hostRegistrations, registrations + 1);
  mgpuMemHostUnregisterMemRef(2, &memref, 4);
  EXPECT_EQ(state->hostRegistrations, registrations);
  mgpuSetDefaultDevice(1);
  int device = -1;
  EXPECT_EQ(mxfp8rtGetDevice(&device), MXFP8RT_SUCCESS);
  EXPECT_EQ(device, 1);
  mgpuSetDefaultDevice(0);
}

TEST_F(FakeDriver, StreamOrderedAllocationsComeFromTheDefaultPool) {
  if (getDriverMode() == DriverMode::FakeOld) {
    // No memory pools: mxfp8rtMemAllocAsync is mxfp8rtMemAlloc.
    int live = state->liveAllocations;
    void *a = nullptr;
    ASSERT_EQ(mxfp8rtMemAllocAsync(64, nullptr, &a), MXFP8RT_SUCCESS);
    EXPECT_EQ(state->poolAllocations, 0);
    EXPECT_EQ(state->liveAllocations, live + 1);
    EXPECT_EQ(mxfp8rtMemFreeAsync(a, nullptr), MXFP8RT_SUCCESS);
    EXPECT_EQ(state->poolFrees, 0);
    EXPECT_EQ(state->liveAllocations, live);
    return;
  }
  mxfp8rtStream stream = nullptr;
  ASSERT_EQ(mxfp8rtStreamCreate(&stream), MXFP8RT_SUCCESS);
  int allocs = state->poolAllocations, frees = state->poolFrees;
  int live = state->liveAllocations;
  void *a = nullptr, *empty = &empty;
  ASSERT_EQ(mxfp8rtMemAllocAsync(64, stream, &a), MXFP8RT_SUCCESS);
  ASSERT_NE(a, nullptr);
  ASSERT_EQ(mxfp8rtMemAllocAsync(0, stream, &empty), MXFP8RT_SUCCESS);
  EXPECT_EQ(empty, nullptr);
  EXPECT_EQ(state->poolAllocations, allocs + 1);
  // The pool keeps what is freed (release threshold raised to the maximum).
  EXPECT_EQ(state->releaseThreshold, UINT64_MAX);
  EXPECT_EQ(state->liveAllocations, live + 1);
  // A free on a stream is ordered there, without a synchronization.
  int syncs = state->contextSynchronizes;
  EXPECT_EQ(mxfp8rtMemFreeAsync(a, stream), MXFP8RT_SUCCESS);
  EXPECT_EQ(state->poolFrees, frees + 1);
  EXPECT_EQ(state->lastPoolFreeStream, static_cast<void *>(stream));
  EXPECT_EQ(state->contextSynchronizes, syncs);
  // A second free of the same pointer is not a pool free any more: the
  // driver's cuMemFree rejects it.
  EXPECT_EQ(mxfp8rtMemFreeAsync(a, stream), MXFP8RT_CUDA_ERROR);
  EXPECT_EQ(state->poolFrees, frees + 1);
  // mxfp8rtMemFree of a pool allocation: after the context is idle, on the
  // legacy stream.
  ASSERT_EQ(mxfp8rtMemAllocAsync(64, stream, &a), MXFP8RT_SUCCESS);
  EXPECT_EQ(mxfp8rtMemFree(a), MXFP8RT_SUCCESS);
  EXPECT_EQ(state->contextSynchronizes, syncs + 1);
  EXPECT_EQ(state->lastPoolFreeStream, nullptr);
  // Memory of mxfp8rtMemAlloc freed "async" goes to cuMemFree.
  void *plain = nullptr;
  ASSERT_EQ(mxfp8rtMemAlloc(16, &plain), MXFP8RT_SUCCESS);
  EXPECT_EQ(mxfp8rtMemFreeAsync(plain, stream), MXFP8RT_SUCCESS);
  EXPECT_EQ(state->poolFrees, frees + 2);
  // The mgpu ABI's device buffers go through the pool on their stream;
  // host-shared ones do not.
  void *m = mgpuMemAlloc(32, stream, false);
  void *shared = mgpuMemAlloc(32, stream, /*isHostShared=*/true);
  ASSERT_TRUE(m && shared);
  EXPECT_EQ(state->poolAllocations, allocs + 3);
  mgpuMemFree(m, stream);
  mgpuMemFree(shared, stream);
  EXPECT_EQ(state->poolFrees, frees + 3);
  EXPECT_EQ(state->liveAllocations, live);
  EXPECT_EQ(mxfp8rtStreamDestroy(stream), MXFP8RT_SUCCESS);
}

TEST_F(FakeDriver, MgpuErrorsArePrintedOnceAndReturnNull) {
  testing::internal::CaptureStderr();
  void *module = mgpuModuleLoad(const_cast<char *>(kPtx), sizeof(kPtx));
  EXPECT_EQ(mgpuModuleGetFunction(module, "not_there"), nullptr);
  EXPECT_EQ(mgpuModuleGetFunction(module, "not_there"), nullptr);
  mgpuLaunchKernel(nullptr, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr, 0);
  mgpuLaunchKernel(nullptr, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr, 0);
  EXPECT_EQ(mgpuModuleLoadJIT(nullptr, 2), nullptr);
  mgpuModuleUnload(module);
  std::string printed = testing::internal::GetCapturedStderr();
  // mgpuModuleLoad passes no name, so the module is named by its hash
  // unless a named load of the same text is still alive.
  std::string first = printed.substr(0, printed.find('\n') + 1);
  EXPECT_EQ(first.rfind("mxfp8train runtime: mgpuModuleGetFunction: "
                        "cuModuleGetFunction failed looking up kernel "
                        "'not_there' in module '",
                        0),
            0u)
      << printed;
  std::string tail =
      "' (PTX, 127 bytes): CUDA_ERROR_NOT_FOUND: named symbol not found\n";
  EXPECT_EQ(first.size() >= tail.size() &&
                first.compare(first.size() - tail.size(), tail.size(), tail) ==
                    0,
            true)
      << printed;
  EXPECT_EQ(printed.substr(first.size()),
            "mxfp8train runtime: mgpuLaunchKernel: mxfp8rtLaunchKernel: "
            "function is null\n"
            "mxfp8train runtime: mgpuModuleLoadJIT: mxfp8rtModuleLoadData: "
            "image is null\n")
      << "each distinct message once";
}

TEST_F(FakeDriver, MgpuTensorMapFromAMemRef) {
  // memref<128x64xf16> at element offset 8, box 64x32, 128B swizzle.
  alignas(16) static uint16_t storage[8 + 128 * 64];
  struct {
    void *allocated, *aligned;
    int64_t offset, sizes[2], strides[2];
  } memref = {storage, storage, 8, {128, 64}, {64, 1}};
  int64_t box[2] = {64, 32};
  int encodes = state->tensorMapEncodes;
  void *deviceMap = mgpuTensorMapEncodeTiledMemref(
      2, &memref, /*FLOAT16=*/6, /*interleave=*/0, /*swizzle 128B=*/3,
      /*l2=*/2, /*oob=*/0, box);
  if (getDriverMode() == DriverMode::FakeOld) {
    EXPECT_EQ(deviceMap, nullptr);
    EXPECT_EQ(lastError(), "mxfp8rtTensorMapEncodeTiled: the CUDA driver "
                           "lacks cuTensorMapEncodeTiled (needs CUDA 12.0 or "
                           "newer)");
    return;
  }
  ASSERT_NE(deviceMap, nullptr) << lastError();
  EXPECT_EQ(state->tensorMapEncodes, encodes + 1);
  EXPECT_EQ(state->tmaDataType, 6);
  EXPECT_EQ(state->tmaRank, 2u);
  EXPECT_EQ(state->tmaAddress, static_cast<void *>(storage + 8));
  EXPECT_EQ(state->tmaGlobalDim[0], 64u) << "innermost first";
  EXPECT_EQ(state->tmaGlobalDim[1], 128u);
  EXPECT_EQ(state->tmaGlobalStrides[0], 128u) << "bytes";
  EXPECT_EQ(state->tmaBoxDim[0], 32u);
  EXPECT_EQ(state->tmaBoxDim[1], 64u);
  EXPECT_EQ(state->tmaElementStrides[0], 1u);
  EXPECT_EQ(state->tmaElementStrides[1], 1u);
  EXPECT_EQ(state->tmaSwizzle, 3);
  EXPECT_EQ(state->tmaL2Promotion, 2);
  // The returned device copy holds the 128 bytes the driver wrote.
  uint64_t words[16];
  ASSERT_EQ(mxfp8rtMemcpyDtoH(words, deviceMap, sizeof(words), nullptr),
            MXFP8RT_SUCCESS);
  for (int i = 0; i < 15; ++i)
    EXPECT_EQ(words[i], (0x7e57ull << 16) | static_cast<uint64_t>(i)) << i;
  EXPECT_EQ(words[15], reinterpret_cast<uintptr_t>(storage + 8));
  mgpuMemFree(deviceMap, nullptr);
  EXPECT_EQ(mxfp8rtReleaseTensorMaps(), MXFP8RT_SUCCESS);
}

TEST_F(FakeDriver, MgpuTensorMapCopiesAreCached) {
  if (getDriverMode() == DriverMode::FakeOld)
    return;
  alignas(16) static uint16_t first[128 * 64], second[128 * 64];
  struct {
    void *allocated, *aligned;
    int64_t offset, sizes[2], strides[2];
  } a = {first, first, 0, {128, 64}, {64, 1}},
    b = {second, second, 0, {128, 64}, {64, 1}};
  int64_t box[2] = {64, 32};
  auto encode = [&](void *memref) {
    return mgpuTensorMapEncodeTiledMemref(2, memref, 6, 0, 3, 2, 0, box);
  };
  int live = state->liveAllocations;
  void *mapA = encode(&a);
  ASSERT_NE(mapA, nullptr) << lastError();
  EXPECT_EQ(state->liveAllocations, live + 1) << "one device copy";
  // The same map again: the same copy, no allocation; a free keeps it.
  mgpuMemFree(mapA, nullptr);
  EXPECT_EQ(encode(&a), mapA);
  EXPECT_EQ(state->liveAllocations, live + 1);
  // Another tensor: another copy with its own bytes.
  void *mapB = encode(&b);
  ASSERT_NE(mapB, nullptr);
  EXPECT_NE(mapB, mapA);
  EXPECT_EQ(state->liveAllocations, live + 2);
  uint64_t words[16];
  ASSERT_EQ(mxfp8rtMemcpyDtoH(words, mapB, sizeof(words), nullptr),
            MXFP8RT_SUCCESS);
  EXPECT_EQ(words[15], reinterpret_cast<uintptr_t>(second));
  // Released: both copies freed; the next encode makes a new one.
  EXPECT_EQ(mxfp8rtReleaseTensorMaps(), MXFP8RT_SUCCESS);
  EXPECT_EQ(state->liveAllocations, live);
  EXPECT_NE(encode(&a), nullptr);
  EXPECT_EQ(state->liveAllocations, live + 1);
  EXPECT_EQ(mxfp8rtReleaseTensorMaps(), MXFP8RT_SUCCESS);
  EXPECT_EQ(state->liveAllocations, live);
}
