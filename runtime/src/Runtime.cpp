//===- Runtime.cpp - mxfp8rt* API over the CUDA driver -------- -*- C++ -*-===//
//
// Implements Runtime.h's mxfp8rt* functions except memory (Memory.cpp) and
// modules and launches (Modules.cpp): the process state, driver loading,
// errors, devices, streams, events and TMA descriptors, and the helpers
// RuntimeInternal.h shares with the other sources. Arguments are validated
// before the driver is touched, so validation errors are reported the same way
// on machines without a GPU. Every driver call runs with the primary context of
// the relevant device current (pushed and popped around the call when the
// thread has another one current).
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/runtime/Runtime.h"

#include "CudaDriver.h"
#include "ModuleCache.h"
#include "Profiler.h"
#include "RuntimeInternal.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <string>
#include <vector>

using namespace mxfp8rt;
using namespace mxfp8rt::cuda;

namespace {

/// Process-wide runtime state. Never destroyed: generated host code unloads
/// its modules from global destructors, which may run after ours would.
struct State {
  std::once_flag initOnce;
  mxfp8rtStatus initStatus = MXFP8RT_UNAVAILABLE;
  std::string initMessage;
  Driver driver;
  std::vector<CUdevice> devices;

  /// Primary contexts, retained on first use.
  std::mutex contextMutex;
  std::vector<CUcontext> contexts;

  ModuleCache modules;

  /// The most recent launch, for errors that surface later.
  std::mutex lastLaunchMutex;
  std::string lastLaunch;
};

} // namespace

static State &getState() {
  static State *state = new State();
  return *state;
}

// The calling thread's last error. Host code from gpu-to-llvm unloads its
// modules from global destructors, which can run after this thread's
// thread_local objects are destroyed (exit() destroys them first), so the
// message lives behind a trivially destructible pointer; a separate
// thread_local frees it at thread exit and leaves the pointer null, and a
// failure recorded after that allocates a new one that the process exit
// reclaims.
static thread_local std::string *lastError = nullptr;
thread_local int mxfp8rt::currentDevice = 0;

mxfp8rtStatus mxfp8rt::runOnDevice(int device,
                                   const std::function<mxfp8rtStatus()> &fn) {
  int saved = currentDevice;
  currentDevice = device;
  mxfp8rtStatus status = runInContext(device, fn);
  currentDevice = saved;
  return status;
}

namespace {
/// Frees the calling thread's message when the thread exits.
struct LastErrorReclaimer {
  bool armed = false;
  ~LastErrorReclaimer() {
    delete lastError;
    lastError = nullptr;
  }
};
} // namespace
static thread_local LastErrorReclaimer lastErrorReclaimer;

mxfp8rtStatus mxfp8rt::recordError(mxfp8rtStatus status, std::string message) {
  if (!lastError) {
    lastError = new std::string();
    lastErrorReclaimer.armed = true;
  }
  *lastError = std::move(message);
  return status;
}

static const char *getLibraryPath() {
  const char *path = std::getenv("MXFP8RT_CUDA_LIBRARY");
  return path && *path ? path : "libcuda.so.1";
}

static void initializeOnce(State &state) {
  std::string message;
  mxfp8rtStatus status = loadDriver(getLibraryPath(), state.driver, message);
  if (status != MXFP8RT_SUCCESS) {
    state.initStatus = status;
    state.initMessage = std::move(message);
    return;
  }
  const Driver &driver = state.driver;
  CUresult result = driver.cuInit(0);
  if (result != CUDA_SUCCESS) {
    state.initStatus = MXFP8RT_UNAVAILABLE;
    state.initMessage = "no usable CUDA GPU on this machine: cuInit failed: " +
                        describeResult(driver, result);
    return;
  }
  int count = 0;
  result = driver.cuDeviceGetCount(&count);
  if (result != CUDA_SUCCESS) {
    state.initStatus = MXFP8RT_UNAVAILABLE;
    state.initMessage =
        "no usable CUDA GPU on this machine: cuDeviceGetCount failed: " +
        describeResult(driver, result);
    return;
  }
  if (count <= 0) {
    state.initStatus = MXFP8RT_UNAVAILABLE;
    state.initMessage =
        "no CUDA GPU on this machine: the driver reports 0 devices";
    return;
  }
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    CUdevice device = 0;
    result = driver.cuDeviceGet(&device, ordinal);
    if (result != CUDA_SUCCESS) {
      state.initStatus = MXFP8RT_UNAVAILABLE;
      state.initMessage = "cuDeviceGet failed for device " +
                          std::to_string(ordinal) + ": " +
                          describeResult(driver, result);
      state.devices.clear();
      return;
    }
    state.devices.push_back(device);
  }
  state.contexts.assign(state.devices.size(), nullptr);
  state.initStatus = MXFP8RT_SUCCESS;
}

mxfp8rtStatus mxfp8rt::ensureDriver() {
  State &state = getState();
  std::call_once(state.initOnce, [&] { initializeOnce(state); });
  if (state.initStatus != MXFP8RT_SUCCESS)
    return recordError(state.initStatus, state.initMessage);
  return MXFP8RT_SUCCESS;
}

const Driver &mxfp8rt::getDriver() { return getState().driver; }

std::string mxfp8rt::describeDevice(int device) {
  State &state = getState();
  std::string text = "device " + std::to_string(device);
  if (device < 0 || device >= static_cast<int>(state.devices.size()))
    return text;
  char name[256] = {0};
  int major = 0, minor = 0;
  CUdevice handle = state.devices[device];
  if (getDriver().cuDeviceGetName(name, sizeof(name) - 1, handle) !=
      CUDA_SUCCESS)
    name[0] = 0;
  if (getDriver().cuDeviceGetAttribute(
          &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, handle) !=
          CUDA_SUCCESS ||
      getDriver().cuDeviceGetAttribute(
          &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, handle) !=
          CUDA_SUCCESS)
    return name[0] ? text + " (" + name + ")" : text;
  return text + " (" + (name[0] ? std::string(name) + ", " : std::string()) +
         "compute capability " + std::to_string(major) + "." +
         std::to_string(minor) + ")";
}

mxfp8rtStatus mxfp8rt::failCuda(CUresult result, const char *call,
                                const std::string &context,
                                mxfp8rtStatus status) {
  std::string message = std::string(call) + " failed" +
                        (context.empty() ? "" : " " + context) + ": " +
                        describeResult(getDriver(), result);
  if (isAsynchronousKernelError(result)) {
    State &state = getState();
    std::lock_guard<std::mutex> lock(state.lastLaunchMutex);
    if (!state.lastLaunch.empty())
      message += " (an earlier kernel failed; the most recent launch was " +
                 state.lastLaunch + ")";
  }
  if (result == CUDA_ERROR_OUT_OF_MEMORY && status == MXFP8RT_CUDA_ERROR)
    status = MXFP8RT_OUT_OF_MEMORY;
  return recordError(status, std::move(message));
}

ScopedContext::ScopedContext(int device) {
  State &state = getState();
  CUcontext context = nullptr;
  {
    std::lock_guard<std::mutex> lock(state.contextMutex);
    context = state.contexts[device];
    if (!context) {
      CUresult result =
          getDriver().cuDevicePrimaryCtxRetain(&context, state.devices[device]);
      if (result != CUDA_SUCCESS) {
        status = failCuda(result, "cuDevicePrimaryCtxRetain",
                          "for " + describeDevice(device));
        return;
      }
      state.contexts[device] = context;
    }
  }
  CUcontext current = nullptr;
  CUresult result = getDriver().cuCtxGetCurrent(&current);
  if (result != CUDA_SUCCESS) {
    status = failCuda(result, "cuCtxGetCurrent", "");
    return;
  }
  if (current == context)
    return;
  result = getDriver().cuCtxPushCurrent_v2(context);
  if (result != CUDA_SUCCESS) {
    status =
        failCuda(result, "cuCtxPushCurrent", "for " + describeDevice(device));
    return;
  }
  pushed = true;
}

ScopedContext::~ScopedContext() {
  if (pushed) {
    CUcontext popped = nullptr;
    getDriver().cuCtxPopCurrent_v2(&popped);
  }
}

mxfp8rtStatus mxfp8rt::recordCudaError(CUresult result, const char *call,
                                       const std::string &context) {
  return failCuda(result, call, context);
}

mxfp8rtStatus mxfp8rt::runInContext(int device,
                                    const std::function<mxfp8rtStatus()> &fn) {
  ScopedContext scopedContext(device);
  if (mxfp8rtStatus status = scopedContext.getStatus())
    return status;
  return fn();
}

CUdevice mxfp8rt::getDeviceHandle(int device) {
  return getState().devices[device];
}

ModuleCache &mxfp8rt::getModuleCache() { return getState().modules; }

void mxfp8rt::recordLaunch(std::string description) {
  State &state = getState();
  std::lock_guard<std::mutex> lock(state.lastLaunchMutex);
  state.lastLaunch = std::move(description);
}

/// Validates a device ordinal after ensureDriver().
mxfp8rtStatus mxfp8rt::checkDevice(const char *api, int device) {
  int count = static_cast<int>(getState().devices.size());
  if (device < 0 || device >= count)
    return recordError(MXFP8RT_INVALID_ARGUMENT,
                       std::string(api) + ": device " + std::to_string(device) +
                           " does not exist (this machine has " +
                           std::to_string(count) + ")");
  return MXFP8RT_SUCCESS;
}

std::string mxfp8rt::bytes(intptr_t size) {
  return std::to_string(size) + (size == 1 ? " byte" : " bytes");
}

//===----------------------------------------------------------------------===//
// Status and errors
//===----------------------------------------------------------------------===//

const char *mxfp8rtGetLastError(void) {
  return lastError ? lastError->c_str() : "";
}

void mxfp8rtClearLastError(void) {
  if (lastError)
    lastError->clear();
}

const char *mxfp8rtGetStatusName(mxfp8rtStatus status) {
  // A C caller may pass any int; reading `status` as the enum when it holds
  // no enumerator's value is undefined in C++ (UBSan's enum check), so the
  // switch is over its bits as an int.
  int value;
  static_assert(sizeof(value) == sizeof(status), "mxfp8rtStatus is an int");
  std::memcpy(&value, &status, sizeof(value));
  switch (value) {
  case MXFP8RT_SUCCESS:
    return "MXFP8RT_SUCCESS";
  case MXFP8RT_UNAVAILABLE:
    return "MXFP8RT_UNAVAILABLE";
  case MXFP8RT_INVALID_ARGUMENT:
    return "MXFP8RT_INVALID_ARGUMENT";
  case MXFP8RT_CUDA_ERROR:
    return "MXFP8RT_CUDA_ERROR";
  case MXFP8RT_NOT_FOUND:
    return "MXFP8RT_NOT_FOUND";
  case MXFP8RT_OUT_OF_MEMORY:
    return "MXFP8RT_OUT_OF_MEMORY";
  case MXFP8RT_NOT_SUPPORTED:
    return "MXFP8RT_NOT_SUPPORTED";
  }
  return "MXFP8RT_<unknown status>";
}

//===----------------------------------------------------------------------===//
// Initialization and devices
//===----------------------------------------------------------------------===//

mxfp8rtStatus mxfp8rtInitialize(void) { return ensureDriver(); }

int mxfp8rtIsAvailable(void) { return ensureDriver() == MXFP8RT_SUCCESS; }

mxfp8rtStatus mxfp8rtGetDriverVersion(int *version) {
  CHECK_NOT_NULL("mxfp8rtGetDriverVersion", version);
  if (mxfp8rtStatus status = ensureDriver())
    return status;
  if (CUresult result = getDriver().cuDriverGetVersion(version))
    return failCuda(result, "cuDriverGetVersion", "");
  return MXFP8RT_SUCCESS;
}

mxfp8rtStatus mxfp8rtGetDeviceCount(int *count) {
  CHECK_NOT_NULL("mxfp8rtGetDeviceCount", count);
  *count = 0;
  if (mxfp8rtStatus status = ensureDriver())
    return status;
  *count = static_cast<int>(getState().devices.size());
  return MXFP8RT_SUCCESS;
}

mxfp8rtStatus mxfp8rtSetDevice(int device) {
  if (mxfp8rtStatus status = ensureDriver())
    return status;
  if (mxfp8rtStatus status = checkDevice("mxfp8rtSetDevice", device))
    return status;
  currentDevice = device;
  return MXFP8RT_SUCCESS;
}

mxfp8rtStatus mxfp8rtGetDevice(int *device) {
  CHECK_NOT_NULL("mxfp8rtGetDevice", device);
  if (mxfp8rtStatus status = ensureDriver())
    return status;
  *device = currentDevice;
  return MXFP8RT_SUCCESS;
}

mxfp8rtStatus mxfp8rtGetDeviceName(int device, char *name, intptr_t capacity) {
  CHECK_NOT_NULL("mxfp8rtGetDeviceName", name);
  if (capacity <= 0)
    return recordError(MXFP8RT_INVALID_ARGUMENT,
                       "mxfp8rtGetDeviceName: capacity " +
                           std::to_string(capacity) + " must be positive");
  name[0] = 0;
  if (mxfp8rtStatus status = ensureDriver())
    return status;
  if (mxfp8rtStatus status = checkDevice("mxfp8rtGetDeviceName", device))
    return status;
  int length = capacity > std::numeric_limits<int>::max()
                   ? std::numeric_limits<int>::max()
                   : static_cast<int>(capacity);
  if (CUresult result =
          getDriver().cuDeviceGetName(name, length, getState().devices[device]))
    return failCuda(result, "cuDeviceGetName",
                    "for device " + std::to_string(device));
  name[capacity - 1] = 0;
  return MXFP8RT_SUCCESS;
}

mxfp8rtStatus mxfp8rtGetDeviceAttribute(int device, int attribute, int *value) {
  CHECK_NOT_NULL("mxfp8rtGetDeviceAttribute", value);
  if (mxfp8rtStatus status = ensureDriver())
    return status;
  if (mxfp8rtStatus status = checkDevice("mxfp8rtGetDeviceAttribute", device))
    return status;
  if (CUresult result = getDriver().cuDeviceGetAttribute(
          value, attribute, getState().devices[device]))
    return failCuda(result, "cuDeviceGetAttribute",
                    "for attribute " + std::to_string(attribute) +
                        " of device " + std::to_string(device));
  return MXFP8RT_SUCCESS;
}

mxfp8rtStatus mxfp8rtGetDeviceComputeCapability(int device, int *major,
                                                int *minor) {
  CHECK_NOT_NULL("mxfp8rtGetDeviceComputeCapability", major);
  CHECK_NOT_NULL("mxfp8rtGetDeviceComputeCapability", minor);
  if (mxfp8rtStatus status = mxfp8rtGetDeviceAttribute(
          device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, major))
    return status;
  return mxfp8rtGetDeviceAttribute(
      device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, minor);
}

mxfp8rtStatus mxfp8rtGetDeviceMultiProcessorCount(int device, int *count) {
  CHECK_NOT_NULL("mxfp8rtGetDeviceMultiProcessorCount", count);
  return mxfp8rtGetDeviceAttribute(
      device, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, count);
}

mxfp8rtStatus mxfp8rtGetDeviceMaxSharedMemoryPerBlock(int device, int *bytes) {
  CHECK_NOT_NULL("mxfp8rtGetDeviceMaxSharedMemoryPerBlock", bytes);
  return mxfp8rtGetDeviceAttribute(
      device, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, bytes);
}

mxfp8rtStatus mxfp8rtGetDeviceTotalMemory(int device, size_t *bytes) {
  CHECK_NOT_NULL("mxfp8rtGetDeviceTotalMemory", bytes);
  if (mxfp8rtStatus status = ensureDriver())
    return status;
  if (mxfp8rtStatus status = checkDevice("mxfp8rtGetDeviceTotalMemory", device))
    return status;
  if (CUresult result =
          getDriver().cuDeviceTotalMem_v2(bytes, getState().devices[device]))
    return failCuda(result, "cuDeviceTotalMem",
                    "for device " + std::to_string(device));
  return MXFP8RT_SUCCESS;
}

mxfp8rtStatus mxfp8rtDeviceSynchronize(void) {
  ENTER_CONTEXT(currentDevice);
  profile::countHostSynchronization();
  if (CUresult result = getDriver().cuCtxSynchronize())
    return failCuda(result, "cuCtxSynchronize",
                    "on " + describeDevice(currentDevice));
  return MXFP8RT_SUCCESS;
}

//===----------------------------------------------------------------------===//
// Streams and events
//===----------------------------------------------------------------------===//

mxfp8rtStatus mxfp8rtStreamCreate(mxfp8rtStream *stream) {
  CHECK_NOT_NULL("mxfp8rtStreamCreate", stream);
  *stream = nullptr;
  int device = currentDevice;
  ENTER_CONTEXT(device);
  CUstream native = nullptr;
  if (CUresult result =
          getDriver().cuStreamCreate(&native, CU_STREAM_NON_BLOCKING))
    return failCuda(result, "cuStreamCreate", "on " + describeDevice(device));
  *stream = reinterpret_cast<mxfp8rtStream>(native);
  return MXFP8RT_SUCCESS;
}

mxfp8rtStatus mxfp8rtStreamSynchronize(mxfp8rtStream stream) {
  ENTER_CONTEXT(currentDevice);
  profile::countHostSynchronization();
  if (CUresult result =
          getDriver().cuStreamSynchronize(reinterpret_cast<CUstream>(stream)))
    return failCuda(result, "cuStreamSynchronize", "");
  return MXFP8RT_SUCCESS;
}

mxfp8rtStatus mxfp8rtStreamDestroy(mxfp8rtStream stream) {
  if (!stream)
    return recordError(
        MXFP8RT_INVALID_ARGUMENT,
        "mxfp8rtStreamDestroy: stream is null (the default stream "
        "cannot be destroyed)");
  ENTER_CONTEXT(currentDevice);
  if (CUresult result =
          getDriver().cuStreamDestroy_v2(reinterpret_cast<CUstream>(stream)))
    return failCuda(result, "cuStreamDestroy", "");
  return MXFP8RT_SUCCESS;
}

mxfp8rtStatus mxfp8rtStreamWaitEvent(mxfp8rtStream stream, mxfp8rtEvent event) {
  CHECK_NOT_NULL("mxfp8rtStreamWaitEvent", event);
  ENTER_CONTEXT(currentDevice);
  if (CUresult result =
          getDriver().cuStreamWaitEvent(reinterpret_cast<CUstream>(stream),
                                        reinterpret_cast<CUevent>(event), 0))
    return failCuda(result, "cuStreamWaitEvent", "");
  return MXFP8RT_SUCCESS;
}

mxfp8rtStatus mxfp8rtEventCreate(mxfp8rtEvent *event, int enableTiming) {
  CHECK_NOT_NULL("mxfp8rtEventCreate", event);
  *event = nullptr;
  ENTER_CONTEXT(currentDevice);
  CUevent native = nullptr;
  if (CUresult result = getDriver().cuEventCreate(
          &native, enableTiming ? CU_EVENT_DEFAULT : CU_EVENT_DISABLE_TIMING))
    return failCuda(result, "cuEventCreate", "");
  *event = reinterpret_cast<mxfp8rtEvent>(native);
  return MXFP8RT_SUCCESS;
}

mxfp8rtStatus mxfp8rtEventRecord(mxfp8rtEvent event, mxfp8rtStream stream) {
  CHECK_NOT_NULL("mxfp8rtEventRecord", event);
  ENTER_CONTEXT(currentDevice);
  if (CUresult result = getDriver().cuEventRecord(
          reinterpret_cast<CUevent>(event), reinterpret_cast<CUstream>(stream)))
    return failCuda(result, "cuEventRecord", "");
  return MXFP8RT_SUCCESS;
}

mxfp8rtStatus mxfp8rtEventSynchronize(mxfp8rtEvent event) {
  CHECK_NOT_NULL("mxfp8rtEventSynchronize", event);
  ENTER_CONTEXT(currentDevice);
  profile::countHostSynchronization();
  if (CUresult result =
          getDriver().cuEventSynchronize(reinterpret_cast<CUevent>(event)))
    return failCuda(result, "cuEventSynchronize", "");
  return MXFP8RT_SUCCESS;
}

mxfp8rtStatus mxfp8rtEventElapsedTime(float *milliseconds, mxfp8rtEvent start,
                                      mxfp8rtEvent end) {
  static const char *api = "mxfp8rtEventElapsedTime";
  CHECK_NOT_NULL(api, milliseconds);
  *milliseconds = 0;
  CHECK_NOT_NULL(api, start);
  CHECK_NOT_NULL(api, end);
  ENTER_CONTEXT(currentDevice);
  auto elapsed = getDriver().cuEventElapsedTime_v2
                     ? getDriver().cuEventElapsedTime_v2
                     : getDriver().cuEventElapsedTime;
  if (!elapsed)
    return recordError(MXFP8RT_NOT_SUPPORTED, std::string(api) +
                                                  ": the CUDA driver has no "
                                                  "cuEventElapsedTime");
  if (CUresult result = elapsed(milliseconds, reinterpret_cast<CUevent>(start),
                                reinterpret_cast<CUevent>(end)))
    return failCuda(result, "cuEventElapsedTime", "");
  return MXFP8RT_SUCCESS;
}

mxfp8rtStatus mxfp8rtEventDestroy(mxfp8rtEvent event) {
  CHECK_NOT_NULL("mxfp8rtEventDestroy", event);
  ENTER_CONTEXT(currentDevice);
  if (CUresult result =
          getDriver().cuEventDestroy_v2(reinterpret_cast<CUevent>(event)))
    return failCuda(result, "cuEventDestroy", "");
  return MXFP8RT_SUCCESS;
}

//===----------------------------------------------------------------------===//
// TMA descriptors
//===----------------------------------------------------------------------===//

mxfp8rtStatus mxfp8rtTensorMapEncodeTiled(
    void *tensorMap, int dataType, uint32_t rank, void *globalAddress,
    const uint64_t *globalDim, const uint64_t *globalStrides,
    const uint32_t *boxDim, const uint32_t *elementStrides, int interleave,
    int swizzle, int l2Promotion, int oobFill) {
  static const char *api = "mxfp8rtTensorMapEncodeTiled";
  CHECK_NOT_NULL(api, tensorMap);
  CHECK_NOT_NULL(api, globalAddress);
  CHECK_NOT_NULL(api, globalDim);
  CHECK_NOT_NULL(api, boxDim);
  CHECK_NOT_NULL(api, elementStrides);
  if (rank < 1 || rank > 5)
    return recordError(MXFP8RT_INVALID_ARGUMENT, std::string(api) + ": rank " +
                                                     std::to_string(rank) +
                                                     " is not in [1, 5]");
  if (rank > 1 && !globalStrides)
    return recordError(MXFP8RT_INVALID_ARGUMENT,
                       std::string(api) + ": globalStrides is null");
  if (reinterpret_cast<uintptr_t>(tensorMap) % 64 != 0)
    return recordError(MXFP8RT_INVALID_ARGUMENT,
                       std::string(api) + ": tensorMap is not 64-byte aligned");
  ENTER_CONTEXT(currentDevice);
  if (!getDriver().cuTensorMapEncodeTiled)
    return recordError(MXFP8RT_NOT_SUPPORTED,
                       std::string(api) +
                           ": the CUDA driver lacks "
                           "cuTensorMapEncodeTiled (needs CUDA 12.0 "
                           "or newer)");
  if (CUresult result = getDriver().cuTensorMapEncodeTiled(
          static_cast<CUtensorMap *>(tensorMap), dataType, rank, globalAddress,
          globalDim, globalStrides, boxDim, elementStrides, interleave, swizzle,
          l2Promotion, oobFill)) {
    std::string shape;
    for (uint32_t i = 0; i < rank; ++i)
      shape += (i ? "x" : "") + std::to_string(globalDim[i]);
    std::string box;
    for (uint32_t i = 0; i < rank; ++i)
      box += (i ? "x" : "") + std::to_string(boxDim[i]);
    return failCuda(result, "cuTensorMapEncodeTiled",
                    "for a rank-" + std::to_string(rank) + " tensor of " +
                        shape + " elements (innermost first), data type " +
                        std::to_string(dataType) + ", box " + box +
                        ", swizzle " + std::to_string(swizzle));
  }
  return MXFP8RT_SUCCESS;
}
