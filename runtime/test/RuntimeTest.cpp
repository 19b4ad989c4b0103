//===- RuntimeTest.cpp - mxfp8rt* and mgpu* entry points ------ -*- C++ -*-===//
//
// Runs once per driver mode (TestDriver.h). Without a driver every entry point
// must return MXFP8RT_UNAVAILABLE with the exact message and nothing may
// crash; argument validation gives the same answers with or without a GPU;
// against the fake driver the runtime must make the right driver calls
// (versioned symbols, contexts, cache, launch configuration, error texts).
//
//===----------------------------------------------------------------------===//

#include "TestDriver.h"

#include "CudaDriver.h"
#include "ModuleCache.h"
#include "mxfp8train/runtime/Runtime.h"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

using namespace mxfp8rt::test;

namespace {

DriverMode driverMode = DriverMode::System;
std::string driverLibrary;
std::string noDriverMessage;
bool systemHasDriver = false;
const FakeCudaState *fakeState = nullptr;
FakeCudaGetContextDepthFn fakeContextDepth = nullptr;

/// PTX text as far as the fake driver is concerned: it reads `.entry` names.
const char kFakePtx[] = ".version 8.0\n.target sm_100a\n"
                        ".visible .entry vector_add_f32(\n)\n"
                        ".visible .entry memref_add_f32(\n)\n"
                        ".visible .entry fake_fault(\n)\n";

/// Runs `body` and returns what it printed to stderr.
std::string captureStderr(const std::function<void()> &body) {
  testing::internal::CaptureStderr();
  body();
  return testing::internal::GetCapturedStderr();
}

/// Number of occurrences of `needle` in `haystack`.
int countOccurrences(const std::string &haystack, const std::string &needle) {
  int count = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos;
       at = haystack.find(needle, at + 1))
    ++count;
  return count;
}

std::string lastError() { return mxfp8rtGetLastError(); }

/// Kernel 'k' of module 'm', never loaded: well-formed handles for calls
/// that must fail before they reach the driver.
struct NeverLoadedKernel {
  NeverLoadedKernel() {
    module.name = "m";
    function.name = "k";
    function.module = &module;
  }
  NeverLoadedKernel(const NeverLoadedKernel &) = delete;
  NeverLoadedKernel &operator=(const NeverLoadedKernel &) = delete;

  mxfp8rtModule_st module;
  mxfp8rtFunction_st function;
};

} // namespace

DriverMode mxfp8rt::test::getDriverMode() { return driverMode; }
const std::string &mxfp8rt::test::getDriverLibrary() { return driverLibrary; }
bool mxfp8rt::test::expectsNoDriver() {
  return driverMode == DriverMode::Missing ||
         (driverMode == DriverMode::System && !systemHasDriver);
}
const std::string &mxfp8rt::test::getNoDriverMessage() {
  return noDriverMessage;
}
const FakeCudaState *mxfp8rt::test::getFakeState() { return fakeState; }
int mxfp8rt::test::getFakeContextDepth() {
  return fakeContextDepth ? fakeContextDepth() : -1;
}

//===----------------------------------------------------------------------===//
// No driver: every entry point says so
//===----------------------------------------------------------------------===//

TEST(NoDriver, EveryEntryPointIsUnavailableWithTheMessage) {
  REQUIRE_DRIVER(expectsNoDriver(), "a machine (or mode) without libcuda");
  int value = 0;
  size_t size = 0;
  char name[64];
  void *pointer = nullptr;
  float buffer[4] = {0};
  float milliseconds = 0;
  mxfp8rtModule module = nullptr;
  mxfp8rtStream stream = nullptr;
  mxfp8rtEvent event = nullptr;
  // Non-null handles that the runtime must not dereference when there is no
  // driver.
  auto fakeEvent = reinterpret_cast<mxfp8rtEvent>(buffer);
  alignas(128) unsigned char tensorMap[128];
  uint64_t dims[2] = {64, 64}, strides[1] = {256};
  uint32_t box[2] = {32, 32}, elementStrides[2] = {1, 1};
  struct Case {
    const char *name;
    std::function<mxfp8rtStatus()> call;
  };
  std::vector<Case> cases = {
      {"Initialize", [&] { return mxfp8rtInitialize(); }},
      {"GetDriverVersion", [&] { return mxfp8rtGetDriverVersion(&value); }},
      {"GetDeviceCount", [&] { return mxfp8rtGetDeviceCount(&value); }},
      {"SetDevice", [&] { return mxfp8rtSetDevice(0); }},
      {"GetDevice", [&] { return mxfp8rtGetDevice(&value); }},
      {"GetDeviceName", [&] { return mxfp8rtGetDeviceName(0, name, 64); }},
      {"GetDeviceComputeCapability",
       [&] { return mxfp8rtGetDeviceComputeCapability(0, &value, &value); }},
      {"GetDeviceMultiProcessorCount",
       [&] { return mxfp8rtGetDeviceMultiProcessorCount(0, &value); }},
      {"GetDeviceMaxSharedMemoryPerBlock",
       [&] { return mxfp8rtGetDeviceMaxSharedMemoryPerBlock(0, &value); }},
      {"GetDeviceTotalMemory",
       [&] { return mxfp8rtGetDeviceTotalMemory(0, &size); }},
      {"GetDeviceAttribute",
       [&] { return mxfp8rtGetDeviceAttribute(0, 75, &value); }},
      {"DeviceSynchronize", [&] { return mxfp8rtDeviceSynchronize(); }},
      {"ModuleLoadData",
       [&] {
         return mxfp8rtModuleLoadData(kFakePtx, sizeof(kFakePtx), "m", &module);
       }},
      {"ModuleLoadDataJIT",
       [&] {
         return mxfp8rtModuleLoadDataJIT(kFakePtx, sizeof(kFakePtx), 2, "m",
                                         &module);
       }},
      {"MemAlloc", [&] { return mxfp8rtMemAlloc(16, &pointer); }},
      {"MemAllocManaged", [&] { return mxfp8rtMemAllocManaged(16, &pointer); }},
      {"MemFree", [&] { return mxfp8rtMemFree(buffer); }},
      {"HostAlloc", [&] { return mxfp8rtHostAlloc(16, &pointer); }},
      {"HostFree", [&] { return mxfp8rtHostFree(buffer); }},
      {"HostRegister", [&] { return mxfp8rtHostRegister(buffer, 16); }},
      {"HostUnregister", [&] { return mxfp8rtHostUnregister(buffer); }},
      {"MemcpyHtoD",
       [&] { return mxfp8rtMemcpyHtoD(buffer, buffer, 16, nullptr); }},
      {"MemcpyDtoH",
       [&] { return mxfp8rtMemcpyDtoH(buffer, buffer, 16, nullptr); }},
      {"MemcpyDtoD",
       [&] { return mxfp8rtMemcpyDtoD(buffer, buffer, 16, nullptr); }},
      {"Memcpy", [&] { return mxfp8rtMemcpy(buffer, buffer, 16, nullptr); }},
      {"MemsetD8", [&] { return mxfp8rtMemsetD8(buffer, 1, 16, nullptr); }},
      {"MemsetD16", [&] { return mxfp8rtMemsetD16(buffer, 1, 8, nullptr); }},
      {"MemsetD32", [&] { return mxfp8rtMemsetD32(buffer, 1, 4, nullptr); }},
      {"StreamCreate", [&] { return mxfp8rtStreamCreate(&stream); }},
      {"StreamSynchronize", [&] { return mxfp8rtStreamSynchronize(nullptr); }},
      {"StreamDestroy",
       [&] {
         return mxfp8rtStreamDestroy(reinterpret_cast<mxfp8rtStream>(buffer));
       }},
      {"StreamWaitEvent",
       [&] { return mxfp8rtStreamWaitEvent(nullptr, fakeEvent); }},
      {"EventCreate", [&] { return mxfp8rtEventCreate(&event, 1); }},
      {"EventRecord", [&] { return mxfp8rtEventRecord(fakeEvent, nullptr); }},
      {"EventSynchronize", [&] { return mxfp8rtEventSynchronize(fakeEvent); }},
      {"EventElapsedTime",
       [&] {
         return mxfp8rtEventElapsedTime(&milliseconds, fakeEvent, fakeEvent);
       }},
      {"EventDestroy", [&] { return mxfp8rtEventDestroy(fakeEvent); }},
      {"TensorMapEncodeTiled",
       [&] {
         return mxfp8rtTensorMapEncodeTiled(tensorMap, 7, 2, buffer, dims,
                                            strides, box, elementStrides, 0, 0,
                                            0, 0);
       }},
  };
  for (const Case &c : cases) {
    mxfp8rtClearLastError();
    EXPECT_EQ(c.call(), MXFP8RT_UNAVAILABLE) << c.name;
    EXPECT_EQ(lastError(), getNoDriverMessage()) << c.name;
  }
  EXPECT_EQ(mxfp8rtIsAvailable(), 0);
  EXPECT_EQ(module, nullptr);
  EXPECT_EQ(stream, nullptr);
  EXPECT_EQ(event, nullptr);
  EXPECT_EQ(pointer, nullptr);
  EXPECT_EQ(value, 0) << "out-parameters are not written on failure";
}

TEST(NoDriver, MessageNamesTheLibraryAndTheLoaderError) {
  REQUIRE_DRIVER(expectsNoDriver(), "a machine (or mode) without libcuda");
  EXPECT_EQ(mxfp8rtInitialize(), MXFP8RT_UNAVAILABLE);
  std::string expected =
      "no CUDA driver (" + getDriverLibrary() + ") on this machine: ";
  EXPECT_EQ(lastError().rfind(expected, 0), 0u) << lastError();
  // The loader's own words follow, e.g. "cannot open shared object file".
  EXPECT_NE(lastError().find("cannot open shared object file"),
            std::string::npos)
      << lastError();
}

TEST(NoDriver, LaunchWithAHandleIsUnavailableNotACrash) {
  REQUIRE_DRIVER(expectsNoDriver(), "a machine (or mode) without libcuda");
  // A function handle can only come from a loaded module; a well-formed one
  // made here must still not reach a driver that is not there.
  NeverLoadedKernel kernel;
  mxfp8rtModule_st &module = kernel.module;
  mxfp8rtFunction_st &function = kernel.function;
  EXPECT_EQ(
      mxfp8rtLaunchKernel(&function, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr),
      MXFP8RT_UNAVAILABLE);
  EXPECT_EQ(lastError(), getNoDriverMessage());
  EXPECT_EQ(mxfp8rtLaunchClusterKernel(&function, 1, 1, 1, 2, 1, 1, 32, 1, 1, 0,
                                       nullptr, nullptr),
            MXFP8RT_UNAVAILABLE);
  EXPECT_EQ(mxfp8rtModuleGetFunction(&module, "k", nullptr),
            MXFP8RT_INVALID_ARGUMENT)
      << "validation comes first";
  mxfp8rtFunction out = nullptr;
  EXPECT_EQ(mxfp8rtModuleGetFunction(&module, "k", &out), MXFP8RT_UNAVAILABLE);
  EXPECT_EQ(mxfp8rtModuleUnload(&module), MXFP8RT_UNAVAILABLE);
  EXPECT_EQ(lastError(), getNoDriverMessage());
}

TEST(NoDriver, MgpuFunctionsReturnNullAndPrintTheMessageOnce) {
  REQUIRE_DRIVER(expectsNoDriver(), "a machine (or mode) without libcuda");
  float data[16] = {0};
  int64_t box[2] = {8, 8};
  struct {
    void *allocated, *aligned;
    int64_t offset, sizes[2], strides[2];
  } memref = {data, data, 0, {4, 4}, {4, 1}};
  std::string printed = captureStderr([&] {
    mxfp8rtClearLastError();
    EXPECT_EQ(mgpuModuleLoad(const_cast<char *>(kFakePtx), sizeof(kFakePtx)),
              nullptr);
    EXPECT_EQ(lastError(), getNoDriverMessage());
    mxfp8rtClearLastError();
    EXPECT_EQ(mgpuModuleLoadJIT(const_cast<char *>(kFakePtx), 2), nullptr);
    EXPECT_EQ(lastError(), getNoDriverMessage());
    mxfp8rtClearLastError();
    EXPECT_EQ(mgpuModuleGetFunction(nullptr, "vector_add_f32"), nullptr);
    EXPECT_EQ(lastError(), getNoDriverMessage())
        << "the driver message wins over the null handle";
    EXPECT_EQ(mgpuStreamCreate(), nullptr);
    EXPECT_EQ(mgpuEventCreate(), nullptr);
    EXPECT_EQ(mgpuMemAlloc(64, nullptr, false), nullptr);
    EXPECT_EQ(mgpuMemAlloc(64, nullptr, true), nullptr);
    EXPECT_EQ(mgpuTensorMapEncodeTiledMemref(2, &memref, 7, 0, 0, 0, 0, box),
              nullptr);
    mxfp8rtClearLastError();
    mgpuLaunchKernel(nullptr, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr,
                     0);
    EXPECT_EQ(lastError(), getNoDriverMessage());
    mgpuLaunchClusterKernel(nullptr, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, nullptr,
                            nullptr, nullptr);
    mgpuModuleUnload(nullptr);
    mgpuStreamSynchronize(nullptr);
    mgpuStreamWaitEvent(nullptr, nullptr);
    mgpuStreamDestroy(nullptr);
    mgpuEventRecord(nullptr, nullptr);
    mgpuEventSynchronize(nullptr);
    mgpuEventDestroy(nullptr);
    mgpuMemcpy(data, data, 16, nullptr);
    mgpuMemset32(data, 0, 4, nullptr);
    mgpuMemset16(data, 0, 8, nullptr);
    mgpuMemFree(data, nullptr);
    mgpuMemHostRegister(data, sizeof(data));
    mgpuMemHostRegisterMemRef(2, &memref, 4);
    mgpuMemHostUnregister(data);
    mgpuMemHostUnregisterMemRef(2, &memref, 4);
    mxfp8rtClearLastError();
    mgpuSetDefaultDevice(0);
    EXPECT_EQ(lastError(), getNoDriverMessage());
  });
  EXPECT_EQ(countOccurrences(printed, getNoDriverMessage()), 1) << printed;
  EXPECT_EQ(printed.rfind("mxfp8train runtime: mgpuModuleLoad: " +
                              getNoDriverMessage(),
                          0),
            0u)
      << printed;
}

TEST(NoDriver, LoadDriverReportsTheDlopenError) {
  std::string message;
  mxfp8rt::cuda::Driver driver;
  EXPECT_EQ(
      mxfp8rt::cuda::loadDriver("/nonexistent/libcuda.so.1", driver, message),
      MXFP8RT_UNAVAILABLE);
  EXPECT_EQ(message,
            "no CUDA driver (/nonexistent/libcuda.so.1) on this machine: "
            "/nonexistent/libcuda.so.1: cannot open shared object file: No "
            "such file or directory");
  EXPECT_EQ(driver.handle, nullptr);
  EXPECT_EQ(driver.cuInit, nullptr);
}

//===----------------------------------------------------------------------===//
// Argument validation: same answer with or without a GPU
//===----------------------------------------------------------------------===//

/// Expects `status` to be MXFP8RT_INVALID_ARGUMENT with message `message`.
#define EXPECT_INVALID(call, message)                                          \
  do {                                                                         \
    mxfp8rtClearLastError();                                                   \
    EXPECT_EQ((call), MXFP8RT_INVALID_ARGUMENT) << #call;                      \
    EXPECT_EQ(lastError(), std::string(message)) << #call;                     \
  } while (false)

TEST(Validation, NullOutParameters) {
  EXPECT_INVALID(mxfp8rtGetDriverVersion(nullptr),
                 "mxfp8rtGetDriverVersion: version is null");
  EXPECT_INVALID(mxfp8rtGetDeviceCount(nullptr),
                 "mxfp8rtGetDeviceCount: count is null");
  EXPECT_INVALID(mxfp8rtGetDevice(nullptr), "mxfp8rtGetDevice: device is null");
  EXPECT_INVALID(mxfp8rtGetDeviceName(0, nullptr, 10),
                 "mxfp8rtGetDeviceName: name is null");
  EXPECT_INVALID(mxfp8rtGetDeviceComputeCapability(0, nullptr, nullptr),
                 "mxfp8rtGetDeviceComputeCapability: major is null");
  EXPECT_INVALID(mxfp8rtGetDeviceTotalMemory(0, nullptr),
                 "mxfp8rtGetDeviceTotalMemory: bytes is null");
  EXPECT_INVALID(mxfp8rtMemAlloc(16, nullptr),
                 "mxfp8rtMemAlloc: devicePtr is null");
  EXPECT_INVALID(mxfp8rtHostAlloc(16, nullptr),
                 "mxfp8rtHostAlloc: hostPtr is null");
  EXPECT_INVALID(mxfp8rtStreamCreate(nullptr),
                 "mxfp8rtStreamCreate: stream is null");
  EXPECT_INVALID(mxfp8rtEventCreate(nullptr, 1),
                 "mxfp8rtEventCreate: event is null");
  EXPECT_INVALID(mxfp8rtGetModuleCacheStats(nullptr),
                 "mxfp8rtGetModuleCacheStats: stats is null");
  EXPECT_INVALID(
      mxfp8rtModuleLoadData(kFakePtx, sizeof(kFakePtx), "m", nullptr),
      "mxfp8rtModuleLoadData: module is null");
  mxfp8rtFunction function = nullptr;
  EXPECT_INVALID(mxfp8rtModuleGetFunction(nullptr, "k", &function),
                 "mxfp8rtModuleGetFunction: module is null");
}

TEST(Validation, NullHandles) {
  float milliseconds = 1;
  auto handle = reinterpret_cast<mxfp8rtEvent>(&milliseconds);
  EXPECT_INVALID(
      mxfp8rtLaunchKernel(nullptr, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr),
      "mxfp8rtLaunchKernel: function is null");
  EXPECT_INVALID(mxfp8rtModuleUnload(nullptr),
                 "mxfp8rtModuleUnload: module is null");
  EXPECT_INVALID(mxfp8rtStreamDestroy(nullptr),
                 "mxfp8rtStreamDestroy: stream is null (the default stream "
                 "cannot be destroyed)");
  EXPECT_INVALID(mxfp8rtStreamWaitEvent(nullptr, nullptr),
                 "mxfp8rtStreamWaitEvent: event is null");
  EXPECT_INVALID(mxfp8rtEventRecord(nullptr, nullptr),
                 "mxfp8rtEventRecord: event is null");
  EXPECT_INVALID(mxfp8rtEventSynchronize(nullptr),
                 "mxfp8rtEventSynchronize: event is null");
  EXPECT_INVALID(mxfp8rtEventDestroy(nullptr),
                 "mxfp8rtEventDestroy: event is null");
  EXPECT_INVALID(mxfp8rtEventElapsedTime(&milliseconds, nullptr, handle),
                 "mxfp8rtEventElapsedTime: start is null");
  EXPECT_EQ(milliseconds, 0.0f) << "the result is cleared first";
  EXPECT_INVALID(mxfp8rtEventElapsedTime(&milliseconds, handle, nullptr),
                 "mxfp8rtEventElapsedTime: end is null");
  EXPECT_INVALID(mxfp8rtHostUnregister(nullptr),
                 "mxfp8rtHostUnregister: hostPtr is null");
}

TEST(Validation, Sizes) {
  void *pointer = &pointer;
  EXPECT_INVALID(mxfp8rtMemAlloc(-1, &pointer),
                 "mxfp8rtMemAlloc: size -1 is negative");
  EXPECT_EQ(pointer, nullptr) << "the out-parameter is cleared first";
  EXPECT_INVALID(mxfp8rtHostRegister(&pointer, 0),
                 "mxfp8rtHostRegister: size 0 must be positive");
  EXPECT_INVALID(mxfp8rtModuleLoadData(kFakePtx, 0, "m", nullptr),
                 "mxfp8rtModuleLoadData: module is null");
  mxfp8rtModule module = nullptr;
  EXPECT_INVALID(mxfp8rtModuleLoadData(kFakePtx, 0, "m", &module),
                 "mxfp8rtModuleLoadData: image size 0 must be positive");
  EXPECT_INVALID(mxfp8rtModuleLoadData(nullptr, 10, "m", &module),
                 "mxfp8rtModuleLoadData: image is null");
  EXPECT_INVALID(
      mxfp8rtModuleLoadDataJIT(kFakePtx, sizeof(kFakePtx), 5, "m", &module),
      "mxfp8rtModuleLoadData: JIT optimization level 5 is not in "
      "[0, 4] or -1");
  char name[8];
  EXPECT_INVALID(mxfp8rtGetDeviceName(0, name, 0),
                 "mxfp8rtGetDeviceName: capacity 0 must be positive");
  float data[4];
  EXPECT_INVALID(mxfp8rtMemcpyHtoD(nullptr, data, 16, nullptr),
                 "mxfp8rtMemcpyHtoD: destination pointer is null (copying "
                 "16 bytes)");
  EXPECT_INVALID(mxfp8rtMemcpyDtoH(data, nullptr, 16, nullptr),
                 "mxfp8rtMemcpyDtoH: source pointer is null (copying 16 "
                 "bytes)");
  EXPECT_INVALID(mxfp8rtMemcpy(data, data, -4, nullptr),
                 "mxfp8rtMemcpy: size -4 is negative");
  EXPECT_INVALID(mxfp8rtMemsetD32(nullptr, 0, 4, nullptr),
                 "mxfp8rtMemsetD32: destination pointer is null (filling 4 "
                 "elements)");
  EXPECT_INVALID(mxfp8rtMemsetD8(data, 0, -1, nullptr),
                 "mxfp8rtMemsetD8: count -1 is negative");
}

TEST(Validation, EmptyOperationsSucceedWithoutTheDriver) {
  // Zero-sized work and freeing null succeed whatever the machine, like
  // cudaMalloc(0) and free(NULL).
  void *pointer = &pointer;
  EXPECT_EQ(mxfp8rtMemAlloc(0, &pointer), MXFP8RT_SUCCESS);
  EXPECT_EQ(pointer, nullptr);
  EXPECT_EQ(mxfp8rtHostAlloc(0, &pointer), MXFP8RT_SUCCESS);
  EXPECT_EQ(mxfp8rtMemFree(nullptr), MXFP8RT_SUCCESS);
  EXPECT_EQ(mxfp8rtHostFree(nullptr), MXFP8RT_SUCCESS);
  EXPECT_EQ(mxfp8rtMemcpyHtoD(nullptr, nullptr, 0, nullptr), MXFP8RT_SUCCESS);
  EXPECT_EQ(mxfp8rtMemcpy(nullptr, nullptr, 0, nullptr), MXFP8RT_SUCCESS);
  EXPECT_EQ(mxfp8rtMemsetD16(nullptr, 0, 0, nullptr), MXFP8RT_SUCCESS);
}

TEST(Validation, LaunchDimensions) {
  NeverLoadedKernel kernel;
  mxfp8rtFunction_st &function = kernel.function;
  EXPECT_INVALID(
      mxfp8rtLaunchKernel(&function, 0, 1, 1, 1, 1, 1, 0, nullptr, nullptr),
      "mxfp8rtLaunchKernel: grid dimension x is 0, expected 1 to "
      "4294967295");
  EXPECT_INVALID(
      mxfp8rtLaunchKernel(&function, 1, 1, 1, 1, -3, 1, 0, nullptr, nullptr),
      "mxfp8rtLaunchKernel: block dimension y is -3, expected 1 "
      "to 4294967295");
  EXPECT_INVALID(mxfp8rtLaunchKernel(&function, 1, 1, intptr_t(1) << 33, 1, 1,
                                     1, 0, nullptr, nullptr),
                 "mxfp8rtLaunchKernel: grid dimension z is 8589934592, "
                 "expected 1 to 4294967295");
  EXPECT_INVALID(
      mxfp8rtLaunchKernel(&function, 1, 1, 1, 1, 1, 1, -1, nullptr, nullptr),
      "mxfp8rtLaunchKernel: dynamic shared memory size -1 is out "
      "of range");
  EXPECT_INVALID(mxfp8rtLaunchClusterKernel(&function, 2, 1, 1, 3, 1, 1, 32, 1,
                                            1, 0, nullptr, nullptr),
                 "mxfp8rtLaunchClusterKernel: grid dimension x (3) is not a "
                 "multiple of the cluster dimension (2) for kernel 'k'");
  EXPECT_INVALID(mxfp8rtLaunchClusterKernel(&function, 1, 0, 1, 3, 1, 1, 32, 1,
                                            1, 0, nullptr, nullptr),
                 "mxfp8rtLaunchClusterKernel: cluster dimension y is 0, "
                 "expected 1 to 4294967295");
}

TEST(Validation, TensorMapArguments) {
  alignas(128) unsigned char tensorMap[256];
  float data[4];
  uint64_t dims[2] = {64, 64}, strides[1] = {256};
  uint32_t box[2] = {32, 32}, elementStrides[2] = {1, 1};
  EXPECT_INVALID(mxfp8rtTensorMapEncodeTiled(tensorMap + 8, 7, 2, data, dims,
                                             strides, box, elementStrides, 0, 0,
                                             0, 0),
                 "mxfp8rtTensorMapEncodeTiled: tensorMap is not 64-byte "
                 "aligned");
  EXPECT_INVALID(mxfp8rtTensorMapEncodeTiled(tensorMap, 7, 6, data, dims,
                                             strides, box, elementStrides, 0, 0,
                                             0, 0),
                 "mxfp8rtTensorMapEncodeTiled: rank 6 is not in [1, 5]");
  EXPECT_INVALID(mxfp8rtTensorMapEncodeTiled(tensorMap, 7, 2, data, dims,
                                             nullptr, box, elementStrides, 0, 0,
                                             0, 0),
                 "mxfp8rtTensorMapEncodeTiled: globalStrides is null");
  EXPECT_INVALID(mxfp8rtTensorMapEncodeTiled(tensorMap, 7, 2, nullptr, dims,
                                             strides, box, elementStrides, 0, 0,
                                             0, 0),
                 "mxfp8rtTensorMapEncodeTiled: globalAddress is null");
}

TEST(Errors, StatusNames) {
  EXPECT_STREQ(mxfp8rtGetStatusName(MXFP8RT_SUCCESS), "MXFP8RT_SUCCESS");
  EXPECT_STREQ(mxfp8rtGetStatusName(MXFP8RT_UNAVAILABLE),
               "MXFP8RT_UNAVAILABLE");
  EXPECT_STREQ(mxfp8rtGetStatusName(MXFP8RT_INVALID_ARGUMENT),
               "MXFP8RT_INVALID_ARGUMENT");
  EXPECT_STREQ(mxfp8rtGetStatusName(MXFP8RT_CUDA_ERROR), "MXFP8RT_CUDA_ERROR");
  EXPECT_STREQ(mxfp8rtGetStatusName(MXFP8RT_NOT_FOUND), "MXFP8RT_NOT_FOUND");
  EXPECT_STREQ(mxfp8rtGetStatusName(MXFP8RT_OUT_OF_MEMORY),
               "MXFP8RT_OUT_OF_MEMORY");
  EXPECT_STREQ(mxfp8rtGetStatusName(MXFP8RT_NOT_SUPPORTED),
               "MXFP8RT_NOT_SUPPORTED");
  EXPECT_STREQ(mxfp8rtGetStatusName(static_cast<mxfp8rtStatus>(42)),
               "MXFP8RT_<unknown status>");
}

TEST(Errors, LastErrorIsPerThreadAndSticksUntilCleared) {
  mxfp8rtClearLastError();
  EXPECT_STREQ(mxfp8rtGetLastError(), "");
  EXPECT_EQ(mxfp8rtMemAlloc(-2, nullptr), MXFP8RT_INVALID_ARGUMENT);
  std::string mine = lastError();
  std::string theirs = "unset";
  std::thread other([&] {
    theirs = mxfp8rtGetLastError();
    mxfp8rtStreamCreate(nullptr);
  });
  other.join();
  EXPECT_EQ(theirs, "") << "another thread starts with no error";
  EXPECT_EQ(lastError(), mine) << "another thread's failure is not ours";
  void *pointer = nullptr;
  EXPECT_EQ(mxfp8rtMemAlloc(0, &pointer), MXFP8RT_SUCCESS);
  EXPECT_EQ(lastError(), mine) << "a success leaves the message";
  mxfp8rtClearLastError();
  EXPECT_STREQ(mxfp8rtGetLastError(), "");
}

extern "C" int mxfp8rtTestCallFromC(void);

TEST(Errors, CallableFromC) { EXPECT_EQ(mxfp8rtTestCallFromC(), 1); }

//===----------------------------------------------------------------------===//
// The shared library loads anywhere and exports the ABI
//===----------------------------------------------------------------------===//

TEST(SharedLibrary, LoadsAndExportsTheUpstreamAbi) {
  void *library = dlopen(MXFP8RT_TEST_SHARED_RUNTIME, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(library, nullptr) << dlerror();
  // Every function LLVM 22's gpu-to-llvm lowering and NVVM offloading
  // translation call, and the mxfp8rt entry points.
  const char *symbols[] = {"mgpuModuleLoad",
                           "mgpuModuleLoadJIT",
                           "mgpuModuleUnload",
                           "mgpuModuleGetFunction",
                           "mgpuLaunchKernel",
                           "mgpuLaunchClusterKernel",
                           "mgpuStreamCreate",
                           "mgpuStreamDestroy",
                           "mgpuStreamSynchronize",
                           "mgpuStreamWaitEvent",
                           "mgpuEventCreate",
                           "mgpuEventDestroy",
                           "mgpuEventSynchronize",
                           "mgpuEventRecord",
                           "mgpuMemAlloc",
                           "mgpuMemFree",
                           "mgpuMemcpy",
                           "mgpuMemset32",
                           "mgpuMemset16",
                           "mgpuMemHostRegister",
                           "mgpuMemHostRegisterMemRef",
                           "mgpuMemHostUnregister",
                           "mgpuMemHostUnregisterMemRef",
                           "mgpuSetDefaultDevice",
                           "mgpuTensorMapEncodeTiledMemref",
                           "mxfp8rtInitialize",
                           "mxfp8rtGetLastError",
                           "mxfp8rtModuleLoadData",
                           "mxfp8rtLaunchKernel",
                           "mxfp8rtMemAlloc",
                           "mxfp8rtEventElapsedTime"};
  for (const char *symbol : symbols)
    EXPECT_NE(dlsym(library, symbol), nullptr) << symbol;
  // Internals stay hidden.
  EXPECT_EQ(dlsym(library, "_ZN7mxfp8rt9hashBytesEPKvm"), nullptr);
  EXPECT_EQ(dlsym(library, "cuInit"), nullptr);

  auto initialize = reinterpret_cast<mxfp8rtStatus (*)()>(
      dlsym(library, "mxfp8rtInitialize"));
  auto getLastError = reinterpret_cast<const char *(*)()>(
      dlsym(library, "mxfp8rtGetLastError"));
  ASSERT_TRUE(initialize && getLastError);
  if (expectsNoDriver()) {
    EXPECT_EQ(initialize(), MXFP8RT_UNAVAILABLE);
    EXPECT_EQ(std::string(getLastError()), getNoDriverMessage());
  } else if (isWorkingFake()) {
    EXPECT_EQ(initialize(), MXFP8RT_SUCCESS) << getLastError();
  }
  // Not closed: the runtime's state is never torn down.
}

//===----------------------------------------------------------------------===//
// Driver loading edge cases
//===----------------------------------------------------------------------===//

TEST(DriverLoading, NoDeviceIsUnavailable) {
  REQUIRE_DRIVER(getDriverMode() == DriverMode::FakeNoDevice,
                 "--driver=fake-no-device");
  EXPECT_EQ(mxfp8rtInitialize(), MXFP8RT_UNAVAILABLE);
  EXPECT_EQ(lastError(), "no usable CUDA GPU on this machine: cuInit failed: "
                         "CUDA_ERROR_NO_DEVICE: no CUDA-capable device is "
                         "detected");
  void *pointer = nullptr;
  EXPECT_EQ(mxfp8rtMemAlloc(64, &pointer), MXFP8RT_UNAVAILABLE);
  EXPECT_EQ(mxfp8rtIsAvailable(), 0);
  EXPECT_EQ(getFakeState()->initCalls, 1) << "cuInit is tried once";
  std::string printed =
      captureStderr([] { EXPECT_EQ(mgpuStreamCreate(), nullptr); });
  EXPECT_EQ(printed, "mxfp8train runtime: mgpuStreamCreate: no usable CUDA "
                     "GPU on this machine: cuInit failed: "
                     "CUDA_ERROR_NO_DEVICE: no CUDA-capable device is "
                     "detected\n");
}

TEST(DriverLoading, MissingRequiredSymbolIsUnavailable) {
  REQUIRE_DRIVER(getDriverMode() == DriverMode::FakeBroken,
                 "--driver=fake-broken");
  EXPECT_EQ(mxfp8rtInitialize(), MXFP8RT_UNAVAILABLE);
  std::string expected = "the CUDA driver " + getDriverLibrary() +
                         " lacks cuMemAlloc_v2 (the driver is too old for "
                         "this runtime): ";
  EXPECT_EQ(lastError().rfind(expected, 0), 0u) << lastError();
  EXPECT_NE(lastError().find("undefined symbol: cuMemAlloc_v2"),
            std::string::npos)
      << lastError();
}

TEST(DriverLoading, StubLibraryResolvesEverySymbolButHasNoGpu) {
  REQUIRE_DRIVER(getDriverMode() == DriverMode::Stub, "--driver=stub");
  // The CUDA 13 toolkit's stub exports the same symbols as the real driver:
  // every Required and Optional name of the table must be there.
  mxfp8rt::cuda::Driver driver;
  std::string message;
  ASSERT_EQ(mxfp8rt::cuda::loadDriver(getDriverLibrary(), driver, message),
            MXFP8RT_SUCCESS)
      << message;
  EXPECT_EQ(driver.missingOptional, "");
  EXPECT_NE(driver.cuEventElapsedTime, nullptr) << "the fallback too";
  // The stub's cuInit fails with CUDA_ERROR_STUB_LIBRARY and its
  // cuGetErrorName does not help: the runtime names the error itself.
  EXPECT_EQ(mxfp8rtInitialize(), MXFP8RT_UNAVAILABLE);
  EXPECT_EQ(lastError(), "no usable CUDA GPU on this machine: cuInit failed: "
                         "CUDA error 34 (CUDA_ERROR_STUB_LIBRARY: the CUDA "
                         "toolkit's stub libcuda was loaded instead of the "
                         "driver's (check LD_LIBRARY_PATH and "
                         "MXFP8RT_CUDA_LIBRARY))");
}

TEST(DriverLoading, SystemDriver) {
  REQUIRE_DRIVER(getDriverMode() == DriverMode::System && systemHasDriver,
                 "a machine with libcuda.so.1");
  mxfp8rtStatus status = mxfp8rtInitialize();
  if (status == MXFP8RT_UNAVAILABLE) {
    EXPECT_NE(lastError().find("cuInit"), std::string::npos) << lastError();
    GTEST_SKIP() << "libcuda.so.1 but no GPU: " << lastError();
  }
  ASSERT_EQ(status, MXFP8RT_SUCCESS) << lastError();
  int count = 0, major = 0, minor = 0, sms = 0;
  char name[256];
  ASSERT_EQ(mxfp8rtGetDeviceCount(&count), MXFP8RT_SUCCESS);
  EXPECT_GE(count, 1);
  ASSERT_EQ(mxfp8rtGetDeviceName(0, name, sizeof(name)), MXFP8RT_SUCCESS);
  EXPECT_GT(std::strlen(name), 0u);
  ASSERT_EQ(mxfp8rtGetDeviceComputeCapability(0, &major, &minor),
            MXFP8RT_SUCCESS);
  EXPECT_GE(major, 5);
  ASSERT_EQ(mxfp8rtGetDeviceMultiProcessorCount(0, &sms), MXFP8RT_SUCCESS);
  EXPECT_GT(sms, 0);
  std::printf("system driver: %d device(s), device 0: %s, sm_%d%d, %d SMs\n",
              count, name, major, minor, sms);
}

//===----------------------------------------------------------------------===//
// main: pick the driver before any runtime call
//===----------------------------------------------------------------------===//

namespace {
/// Runtime calls from a global destructor, after the main thread's
/// thread_local objects are gone, as generated host code makes them
/// (mgpuModuleUnload in llvm.global_dtors). Must not crash the exit.
struct ExitTimeCalls {
  ~ExitTimeCalls() {
    void *pointer = nullptr;
    if (mxfp8rtMemAlloc(-1, &pointer) != MXFP8RT_INVALID_ARGUMENT ||
        std::strcmp(mxfp8rtGetLastError(),
                    "mxfp8rtMemAlloc: size -1 is negative") != 0)
      std::_Exit(3);
    mgpuStreamSynchronize(nullptr);
  }
} exitTimeCalls;
} // namespace

int main(int argc, char **argv) {
  std::string mode = "system";
  std::vector<char *> arguments;
  for (int i = 0; i < argc; ++i) {
    if (std::strncmp(argv[i], "--driver=", 9) == 0)
      mode = argv[i] + 9;
    else
      arguments.push_back(argv[i]);
  }
  int count = static_cast<int>(arguments.size());
  arguments.push_back(nullptr);

  const char *fakeLibrary = nullptr;
  if (mode == "system") {
    driverMode = DriverMode::System;
    driverLibrary = "libcuda.so.1";
  } else if (mode == "missing") {
    driverMode = DriverMode::Missing;
    driverLibrary = "/nonexistent/mxfp8rt-test/libcuda.so.1";
  } else if (mode == "fake") {
    driverMode = DriverMode::Fake;
    driverLibrary = fakeLibrary = MXFP8RT_TEST_FAKE_CUDA;
  } else if (mode == "fake-no-device") {
    driverMode = DriverMode::FakeNoDevice;
    driverLibrary = fakeLibrary = MXFP8RT_TEST_FAKE_CUDA;
    setenv("FAKE_CUDA_NO_DEVICE", "1", 1);
  } else if (mode == "fake-old") {
    driverMode = DriverMode::FakeOld;
    driverLibrary = fakeLibrary = MXFP8RT_TEST_FAKE_CUDA_OLD;
  } else if (mode == "fake-broken") {
    driverMode = DriverMode::FakeBroken;
    driverLibrary = MXFP8RT_TEST_FAKE_CUDA_BROKEN;
  } else if (mode == "stub") {
    driverMode = DriverMode::Stub;
    driverLibrary = MXFP8RT_TEST_CUDA_STUB;
    if (driverLibrary.empty()) {
      std::printf("--driver=stub: no CUDA toolkit stub libcuda.so was found "
                  "at configure time; nothing to test\n");
      return 0;
    }
  } else {
    std::fprintf(stderr, "unknown --driver=%s\n", mode.c_str());
    return 2;
  }
  if (driverMode == DriverMode::System)
    unsetenv("MXFP8RT_CUDA_LIBRARY");
  else
    setenv("MXFP8RT_CUDA_LIBRARY", driverLibrary.c_str(), 1);

  // What the loader says about the library: the runtime must repeat it.
  dlerror();
  void *probe = dlopen(driverLibrary.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (probe) {
    systemHasDriver = driverMode == DriverMode::System;
    if (fakeLibrary) {
      fakeState = reinterpret_cast<FakeCudaGetStateFn>(
          dlsym(probe, "fakeCudaGetState"))();
      fakeContextDepth = reinterpret_cast<FakeCudaGetContextDepthFn>(
          dlsym(probe, "fakeCudaGetContextDepth"));
    }
  } else {
    noDriverMessage =
        "no CUDA driver (" + driverLibrary + ") on this machine: " + dlerror();
  }
  std::printf("mxfp8train-runtime-tests: --driver=%s (%s)\n", mode.c_str(),
              driverLibrary.c_str());

  testing::InitGoogleTest(&count, arguments.data());
  return RUN_ALL_TESTS();
}
