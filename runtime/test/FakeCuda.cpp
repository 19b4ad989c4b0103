//===- FakeCuda.cpp - a fake libcuda for the runtime's tests -- -*- C++ -*-===//
//
// Exports the driver entry points the runtime resolves, with the exported
// (versioned) names, and records what it is asked to do. See FakeCuda.h.
//
//===----------------------------------------------------------------------===//

#include "FakeCuda.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

constexpr int kSuccess = 0;
constexpr int kInvalidValue = 1;
constexpr int kOutOfMemory = 2;
constexpr int kNotInitialized = 3;
constexpr int kNoDevice = 100;
constexpr int kInvalidDevice = 101;
constexpr int kInvalidPtx = 218;
constexpr int kInvalidHandle = 400;
constexpr int kNotFound = 500;
constexpr int kIllegalAddress = 700;
constexpr int kDeviceCount = 2;
constexpr int kOptinSharedBytes = 232448;

struct Context {
  int device;
};
struct Module {
  std::vector<std::string> kernels;
  std::map<std::string, struct Function *> functions;
};
struct Function {
  std::string name;
};
struct Stream {
  int id;
};
struct Event {
  unsigned int flags;
  long long timestamp;
};

Context contexts[kDeviceCount] = {{0}, {1}};
FakeCudaState state;
std::mutex mutex;
bool initialized = false;
int stickyError = kSuccess;
long long fakeClock = 0;
std::set<void *> allocations;
// Per thread, never freed: runtime calls from exit handlers (the profile
// report of MXFP8RT_PROFILE=1, modules unloaded by a library's destructors)
// run after thread_local destructors.
thread_local std::vector<Context *> *contextStackStorage = nullptr;
std::vector<Context *> &getContextStack() {
  if (!contextStackStorage)
    contextStackStorage = new std::vector<Context *>();
  return *contextStackStorage;
}

int currentDevice() {
  return getContextStack().empty() ? -1 : getContextStack().back()->device;
}

void copyName(const std::string &name) {
  std::snprintf(state.lastKernel, sizeof(state.lastKernel), "%s", name.c_str());
}

/// With FAKE_CUDA_TRACE set, tensor-map encodes, launches and frees of
/// encoded tensor maps are printed to stderr (lit tests of host code).
bool tracing() { return std::getenv("FAKE_CUDA_TRACE") != nullptr; }

/// The fake encoding's first word (cuTensorMapEncodeTiled below).
constexpr uint64_t kTensorMapWord0 = 0x7e57ull << 16;

/// Whether `memory` is a live allocation holding an encoded tensor map.
bool holdsTensorMap(void *memory) {
  return allocations.count(memory) &&
         *static_cast<const uint64_t *>(memory) == kTensorMapWord0;
}

/// Host emulation of the kernels the tests and the smoke test run.
void emulate(const Function &function, void **params) {
  unsigned long long threads = 1ull * state.grid[0] * state.block[0];
  if (function.name == "vector_add_f32") {
    auto *a = *static_cast<const float **>(params[0]);
    auto *b = *static_cast<const float **>(params[1]);
    auto *c = *static_cast<float **>(params[2]);
    uint32_t n = *static_cast<uint32_t *>(params[3]);
    for (unsigned long long i = 0; i < threads && i < n; ++i)
      c[i] = a[i] + b[i];
  } else if (function.name == "memref_add_f32") {
    // Each memref is 5 parameters: allocated, aligned, offset, size, stride.
    auto element = [&](int memref, int64_t i) -> float & {
      float *aligned = *static_cast<float **>(params[memref * 5 + 1]);
      int64_t offset = *static_cast<int64_t *>(params[memref * 5 + 2]);
      int64_t stride = *static_cast<int64_t *>(params[memref * 5 + 4]);
      return aligned[offset + i * stride];
    };
    int64_t size = *static_cast<int64_t *>(params[2 * 5 + 3]);
    for (int64_t i = 0;
         i < size && static_cast<unsigned long long>(i) < threads; ++i)
      element(2, i) = element(0, i) + element(1, i);
  } else if (function.name == "reverse_in_smem") {
    // out[b * n + t] = in[b * n + (n - 1 - t)] with n threads per block.
    auto *in = *static_cast<const float **>(params[0]);
    auto *out = *static_cast<float **>(params[1]);
    unsigned int n = state.block[0];
    for (unsigned int b = 0; b < state.grid[0]; ++b)
      for (unsigned int t = 0; t < n; ++t)
        out[b * n + t] = in[b * n + (n - 1 - t)];
  } else if (function.name == "fake_fault") {
    stickyError = kIllegalAddress;
  }
}

} // namespace

FAKE_EXPORT const FakeCudaState *fakeCudaGetState() { return &state; }
FAKE_EXPORT int fakeCudaGetContextDepth() {
  return static_cast<int>(getContextStack().size());
}

FAKE_EXPORT int cuGetErrorName(int error, const char **text) {
  static const std::map<int, const char *> names = {
      {kSuccess, "CUDA_SUCCESS"},
      {kInvalidValue, "CUDA_ERROR_INVALID_VALUE"},
      {kOutOfMemory, "CUDA_ERROR_OUT_OF_MEMORY"},
      {kNotInitialized, "CUDA_ERROR_NOT_INITIALIZED"},
      {kNoDevice, "CUDA_ERROR_NO_DEVICE"},
      {kInvalidDevice, "CUDA_ERROR_INVALID_DEVICE"},
      {kInvalidPtx, "CUDA_ERROR_INVALID_PTX"},
      {kInvalidHandle, "CUDA_ERROR_INVALID_HANDLE"},
      {kNotFound, "CUDA_ERROR_NOT_FOUND"},
      {kIllegalAddress, "CUDA_ERROR_ILLEGAL_ADDRESS"}};
  auto it = names.find(error);
  *text = it == names.end() ? nullptr : it->second;
  return it == names.end() ? kInvalidValue : kSuccess;
}

FAKE_EXPORT int cuGetErrorString(int error, const char **text) {
  static const std::map<int, const char *> strings = {
      {kSuccess, "no error"},
      {kInvalidValue, "invalid argument"},
      {kOutOfMemory, "out of memory"},
      {kNotInitialized, "initialization error"},
      {kNoDevice, "no CUDA-capable device is detected"},
      {kInvalidDevice, "invalid device ordinal"},
      {kInvalidPtx, "a PTX JIT compilation failed"},
      {kInvalidHandle, "invalid resource handle"},
      {kNotFound, "named symbol not found"},
      {kIllegalAddress, "an illegal memory access was encountered"}};
  auto it = strings.find(error);
  *text = it == strings.end() ? nullptr : it->second;
  return it == strings.end() ? kInvalidValue : kSuccess;
}

FAKE_EXPORT int cuInit(unsigned int flags) {
  std::lock_guard<std::mutex> lock(mutex);
  ++state.initCalls;
  if (flags != 0)
    return kInvalidValue;
  const char *noDevice = std::getenv("FAKE_CUDA_NO_DEVICE");
  if (noDevice && std::strcmp(noDevice, "1") == 0)
    return kNoDevice;
  initialized = true;
  return kSuccess;
}

FAKE_EXPORT int cuDriverGetVersion(int *version) {
  *version = 12080;
  return kSuccess;
}

FAKE_EXPORT int cuDeviceGet(int *device, int ordinal) {
  if (!initialized)
    return kNotInitialized;
  if (ordinal < 0 || ordinal >= kDeviceCount)
    return kInvalidDevice;
  *device = ordinal;
  return kSuccess;
}

FAKE_EXPORT int cuDeviceGetCount(int *count) {
  if (!initialized)
    return kNotInitialized;
  *count = kDeviceCount;
  return kSuccess;
}

FAKE_EXPORT int cuDeviceGetName(char *name, int length, int device) {
  if (device < 0 || device >= kDeviceCount || length <= 0)
    return kInvalidValue;
  std::snprintf(name, static_cast<size_t>(length), "Fake CUDA Device %d",
                device);
  return kSuccess;
}

/// The devices' compute capability times ten: 100 (sm_100), or FAKE_CUDA_SM
/// (e.g. 90, for code compiled for sm_90a).
static int fakeComputeCapability() {
  const char *sm = std::getenv("FAKE_CUDA_SM");
  return sm && std::atoi(sm) > 0 ? std::atoi(sm) : 100;
}

FAKE_EXPORT int cuDeviceGetAttribute(int *value, int attribute, int device) {
  if (device < 0 || device >= kDeviceCount)
    return kInvalidDevice;
  switch (attribute) {
  case 1: // MAX_THREADS_PER_BLOCK
    *value = 1024;
    return kSuccess;
  case 16: // MULTIPROCESSOR_COUNT
    *value = 148;
    return kSuccess;
  case 75: // COMPUTE_CAPABILITY_MAJOR
    *value = fakeComputeCapability() / 10;
    return kSuccess;
  case 76: // COMPUTE_CAPABILITY_MINOR
    *value = fakeComputeCapability() % 10;
    return kSuccess;
  case 97: // MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
    *value = kOptinSharedBytes;
    return kSuccess;
  case 115: // MEMORY_POOLS_SUPPORTED
    *value = 1;
    return kSuccess;
  default:
    return kInvalidValue;
  }
}

FAKE_EXPORT int cuDeviceTotalMem_v2(size_t *bytes, int device) {
  if (device < 0 || device >= kDeviceCount)
    return kInvalidDevice;
  *bytes = size_t(80) << 30;
  return kSuccess;
}

FAKE_EXPORT int cuDevicePrimaryCtxRetain(Context **context, int device) {
  if (device < 0 || device >= kDeviceCount)
    return kInvalidDevice;
  *context = &contexts[device];
  return kSuccess;
}

FAKE_EXPORT int cuDevicePrimaryCtxRelease_v2(int) { return kSuccess; }

FAKE_EXPORT int cuCtxGetCurrent(Context **context) {
  *context = getContextStack().empty() ? nullptr : getContextStack().back();
  return kSuccess;
}

FAKE_EXPORT int cuCtxPushCurrent_v2(Context *context) {
  if (!context)
    return kInvalidValue;
  getContextStack().push_back(context);
  return kSuccess;
}

FAKE_EXPORT int cuCtxPopCurrent_v2(Context **context) {
  if (getContextStack().empty())
    return kInvalidValue;
  if (context)
    *context = getContextStack().back();
  getContextStack().pop_back();
  return kSuccess;
}

/// Synchronizing calls report a pending asynchronous error. Unlike CUDA,
/// where such errors are sticky, the fake forgets it once reported so that
/// later tests in the process are unaffected.
static int synchronize() {
  if (currentDevice() < 0)
    return kInvalidValue;
  int error = stickyError;
  stickyError = kSuccess;
  return error;
}

FAKE_EXPORT int cuCtxSynchronize() {
  ++state.contextSynchronizes;
  return synchronize();
}

FAKE_EXPORT int cuModuleLoadDataEx(Module **module, const void *image,
                                   unsigned int numOptions, int *options,
                                   void **values) {
  std::lock_guard<std::mutex> lock(mutex);
  if (currentDevice() < 0)
    return kInvalidValue;
  const char *text = static_cast<const char *>(image);
  char *log = nullptr;
  size_t logSize = 0;
  state.lastJitOptLevel = -1;
  for (unsigned int i = 0; i < numOptions; ++i) {
    if (options[i] == 5)
      log = static_cast<char *>(values[i]);
    else if (options[i] == 6)
      logSize = reinterpret_cast<size_t>(values[i]);
    else if (options[i] == 7)
      state.lastJitOptLevel =
          static_cast<int>(reinterpret_cast<uintptr_t>(values[i]));
  }
  if (std::strstr(text, "FAKE_SYNTAX_ERROR")) {
    if (log && logSize)
      std::snprintf(log, logSize, "ptxas fatal: fake syntax error on line 2");
    return kInvalidPtx;
  }
  auto *result = new Module();
  for (const char *entry = std::strstr(text, ".entry "); entry;
       entry = std::strstr(entry + 1, ".entry ")) {
    const char *begin = entry + 7;
    const char *end = begin;
    while (*end && *end != '(' && *end != ' ' && *end != '\n')
      ++end;
    result->kernels.emplace_back(begin, end);
  }
  ++state.moduleLoads;
  ++state.liveModules;
  state.lastLoadDevice = currentDevice();
  *module = result;
  return kSuccess;
}

FAKE_EXPORT int cuModuleUnload(Module *module) {
  std::lock_guard<std::mutex> lock(mutex);
  if (!module)
    return kInvalidHandle;
  for (auto &entry : module->functions)
    delete entry.second;
  delete module;
  ++state.moduleUnloads;
  --state.liveModules;
  return kSuccess;
}

FAKE_EXPORT int cuModuleGetFunction(Function **function, Module *module,
                                    const char *name) {
  std::lock_guard<std::mutex> lock(mutex);
  ++state.functionLookups;
  if (!module)
    return kInvalidHandle;
  for (const std::string &kernel : module->kernels) {
    if (kernel != name)
      continue;
    Function *&entry = module->functions[kernel];
    if (!entry)
      entry = new Function{kernel};
    *function = entry;
    return kSuccess;
  }
  return kNotFound;
}

FAKE_EXPORT int cuFuncSetAttribute(Function *function, int attribute,
                                   int value) {
  std::lock_guard<std::mutex> lock(mutex);
  ++state.funcSetAttributeCalls;
  state.lastFuncAttributeValue = value;
  if (!function || attribute != 8 || value > kOptinSharedBytes)
    return kInvalidValue;
  return kSuccess;
}

static int launch(Function *function, const unsigned int *grid,
                  const unsigned int *block, unsigned int shared, void *stream,
                  void **params) {
  if (!function)
    return kInvalidHandle;
  if (currentDevice() < 0)
    return kInvalidValue;
  copyName(function->name);
  for (int i = 0; i < 3; ++i) {
    state.grid[i] = grid[i];
    state.block[i] = block[i];
  }
  state.sharedBytes = shared;
  state.stream = stream;
  state.params = params;
  state.lastLaunchDevice = currentDevice();
  if (1ull * block[0] * block[1] * block[2] > 1024)
    return kInvalidValue;
  if (tracing()) {
    // Kernels whose first argument is a pointer: say whether it points to a
    // tensor map the host encoded.
    void *first =
        params && params[0] ? *static_cast<void **>(params[0]) : nullptr;
    std::fprintf(stderr,
                 "fake-cuda: launch %s grid %ux%ux%u block %ux%ux%u shared "
                 "%u%s\n",
                 function->name.c_str(), grid[0], grid[1], grid[2], block[0],
                 block[1], block[2], shared,
                 holdsTensorMap(first) ? " arg0=tensormap" : "");
  }
  emulate(*function, params);
  return kSuccess;
}

FAKE_EXPORT int cuLaunchKernel(Function *function, unsigned int gridX,
                               unsigned int gridY, unsigned int gridZ,
                               unsigned int blockX, unsigned int blockY,
                               unsigned int blockZ, unsigned int shared,
                               void *stream, void **params, void **extra) {
  std::lock_guard<std::mutex> lock(mutex);
  ++state.launches;
  if (extra)
    return kInvalidValue;
  const unsigned int grid[] = {gridX, gridY, gridZ};
  const unsigned int block[] = {blockX, blockY, blockZ};
  return launch(function, grid, block, shared, stream, params);
}

#ifndef FAKE_CUDA_OLD
namespace {
/// cuda.h's CUlaunchAttribute and CUlaunchConfig, written out again.
struct LaunchAttribute {
  int id;
  char pad[4];
  union {
    char pad[64];
    struct {
      unsigned int x, y, z;
    } clusterDim;
    int policy;
  } value;
};
struct LaunchConfig {
  unsigned int grid[3];
  unsigned int block[3];
  unsigned int shared;
  void *stream;
  LaunchAttribute *attrs;
  unsigned int numAttrs;
};
} // namespace

FAKE_EXPORT int cuLaunchKernelEx(const LaunchConfig *config, Function *function,
                                 void **params, void **extra) {
  std::lock_guard<std::mutex> lock(mutex);
  ++state.clusterLaunches;
  if (extra)
    return kInvalidValue;
  state.cluster[0] = state.cluster[1] = state.cluster[2] = 0;
  for (unsigned int i = 0; i < config->numAttrs; ++i) {
    if (config->attrs[i].id != 4)
      continue;
    state.cluster[0] = config->attrs[i].value.clusterDim.x;
    state.cluster[1] = config->attrs[i].value.clusterDim.y;
    state.cluster[2] = config->attrs[i].value.clusterDim.z;
  }
  return launch(function, config->grid, config->block, config->shared,
                config->stream, params);
}
#endif

static int allocate(unsigned long long *pointer, size_t size) {
  std::lock_guard<std::mutex> lock(mutex);
  if (currentDevice() < 0)
    return kInvalidValue;
  if (size == 0)
    return kInvalidValue;
  if (size > (size_t(1) << 40))
    return kOutOfMemory;
  void *memory = std::calloc(1, size);
  allocations.insert(memory);
  ++state.liveAllocations;
  *pointer = reinterpret_cast<uintptr_t>(memory);
  return kSuccess;
}

static int release(void *memory) {
  std::lock_guard<std::mutex> lock(mutex);
  if (tracing() && holdsTensorMap(memory))
    std::fprintf(stderr, "fake-cuda: free tensormap\n");
  if (!allocations.erase(memory))
    return kInvalidValue;
  std::free(memory);
  --state.liveAllocations;
  return kSuccess;
}

#ifndef FAKE_CUDA_BROKEN
FAKE_EXPORT int cuMemAlloc_v2(unsigned long long *pointer, size_t size) {
  return allocate(pointer, size);
}
#endif

#ifndef FAKE_CUDA_OLD
// Memory pools: one default pool per device, whose allocations are the
// fake's host memory like cuMemAlloc's; frees release at once.
struct CUmemPoolHandle_st {
  int device;
};
static CUmemPoolHandle_st defaultPools[kDeviceCount] = {{0}, {1}};

FAKE_EXPORT int cuDeviceGetDefaultMemPool(CUmemPoolHandle_st **pool,
                                          int device) {
  if (device < 0 || device >= kDeviceCount)
    return kInvalidDevice;
  *pool = &defaultPools[device];
  return kSuccess;
}

FAKE_EXPORT int cuMemPoolSetAttribute(CUmemPoolHandle_st *pool, int attribute,
                                      void *value) {
  if (!pool || attribute != 4 /* RELEASE_THRESHOLD */ || !value)
    return kInvalidValue;
  state.releaseThreshold = *static_cast<uint64_t *>(value);
  return kSuccess;
}

FAKE_EXPORT int cuMemPoolGetAttribute(CUmemPoolHandle_st *pool, int attribute,
                                      void *value) {
  if (!pool || !value)
    return kInvalidValue;
  std::lock_guard<std::mutex> lock(mutex);
  if (attribute == 5 /* RESERVED_MEM_CURRENT */)
    *static_cast<uint64_t *>(value) = state.poolReservedBytes;
  else if (attribute == 7 /* USED_MEM_CURRENT */)
    *static_cast<uint64_t *>(value) = state.poolUsedBytes;
  else
    return kInvalidValue;
  return kSuccess;
}

/// Sizes of the live pool allocations.
static std::map<unsigned long long, size_t> poolSizes;

FAKE_EXPORT int cuMemAllocAsync(unsigned long long *pointer, size_t size,
                                void * /*stream*/) {
  int result = allocate(pointer, size);
  if (result == kSuccess) {
    std::lock_guard<std::mutex> lock(mutex);
    ++state.poolAllocations;
    poolSizes[*pointer] = size;
    state.poolUsedBytes += size;
    state.poolReservedBytes =
        std::max(state.poolReservedBytes, state.poolUsedBytes);
  }
  return result;
}

FAKE_EXPORT int cuMemFreeAsync(unsigned long long pointer, void *stream) {
  int result = release(reinterpret_cast<void *>(pointer));
  if (result == kSuccess) {
    std::lock_guard<std::mutex> lock(mutex);
    ++state.poolFrees;
    state.lastPoolFreeStream = stream;
    auto it = poolSizes.find(pointer);
    if (it != poolSizes.end()) {
      state.poolUsedBytes -= it->second;
      poolSizes.erase(it);
    }
  }
  return result;
}
#endif

FAKE_EXPORT int cuMemAllocManaged(unsigned long long *pointer, size_t size,
                                  unsigned int flags) {
  if (flags != 1)
    return kInvalidValue;
  return allocate(pointer, size);
}

FAKE_EXPORT int cuMemFree_v2(unsigned long long pointer) {
  return release(reinterpret_cast<void *>(pointer));
}

FAKE_EXPORT int cuMemAllocHost_v2(void **pointer, size_t size) {
  unsigned long long address = 0;
  int result = allocate(&address, size);
  *pointer = reinterpret_cast<void *>(address);
  return result;
}

FAKE_EXPORT int cuMemFreeHost(void *pointer) { return release(pointer); }

FAKE_EXPORT int cuMemHostRegister_v2(void *pointer, size_t size, unsigned int) {
  if (!pointer || size == 0)
    return kInvalidValue;
  ++state.hostRegistrations;
  return kSuccess;
}

FAKE_EXPORT int cuMemHostUnregister(void *pointer) {
  if (!pointer)
    return kInvalidValue;
  --state.hostRegistrations;
  return kSuccess;
}

static int copy(unsigned long long dst, const void *src, size_t size) {
  if (currentDevice() < 0)
    return kInvalidValue;
  std::memcpy(reinterpret_cast<void *>(dst), src, size);
  return kSuccess;
}

FAKE_EXPORT int cuMemcpyHtoDAsync_v2(unsigned long long dst, const void *src,
                                     size_t size, void *) {
  return copy(dst, src, size);
}

FAKE_EXPORT int cuMemcpyDtoHAsync_v2(void *dst, unsigned long long src,
                                     size_t size, void *) {
  return copy(reinterpret_cast<uintptr_t>(dst),
              reinterpret_cast<const void *>(src), size);
}

FAKE_EXPORT int cuMemcpyDtoDAsync_v2(unsigned long long dst,
                                     unsigned long long src, size_t size,
                                     void *) {
  return copy(dst, reinterpret_cast<const void *>(src), size);
}

FAKE_EXPORT int cuMemcpyAsync(unsigned long long dst, unsigned long long src,
                              size_t size, void *) {
  return copy(dst, reinterpret_cast<const void *>(src), size);
}

template <typename T>
static int fill(unsigned long long dst, T value, size_t count) {
  if (currentDevice() < 0)
    return kInvalidValue;
  T *data = reinterpret_cast<T *>(dst);
  for (size_t i = 0; i < count; ++i)
    data[i] = value;
  return kSuccess;
}

FAKE_EXPORT int cuMemsetD8Async(unsigned long long dst, unsigned char value,
                                size_t count, void *) {
  return fill(dst, value, count);
}

FAKE_EXPORT int cuMemsetD16Async(unsigned long long dst, unsigned short value,
                                 size_t count, void *) {
  return fill(dst, value, count);
}

FAKE_EXPORT int cuMemsetD32Async(unsigned long long dst, unsigned int value,
                                 size_t count, void *) {
  return fill(dst, value, count);
}

FAKE_EXPORT int cuStreamCreate(Stream **stream, unsigned int flags) {
  std::lock_guard<std::mutex> lock(mutex);
  if (currentDevice() < 0 || flags != 1)
    return kInvalidValue;
  *stream = new Stream{state.liveStreams++};
  return kSuccess;
}

FAKE_EXPORT int cuStreamSynchronize(Stream *) { return synchronize(); }

FAKE_EXPORT int cuStreamDestroy_v2(Stream *stream) {
  std::lock_guard<std::mutex> lock(mutex);
  if (!stream)
    return kInvalidHandle;
  delete stream;
  --state.liveStreams;
  return kSuccess;
}

FAKE_EXPORT int cuStreamWaitEvent(Stream *, Event *event, unsigned int flags) {
  return event && flags == 0 ? kSuccess : kInvalidHandle;
}

FAKE_EXPORT int cuEventCreate(Event **event, unsigned int flags) {
  std::lock_guard<std::mutex> lock(mutex);
  if (currentDevice() < 0)
    return kInvalidValue;
  *event = new Event{flags, -1};
  ++state.liveEvents;
  ++state.eventCreates;
  return kSuccess;
}

FAKE_EXPORT int cuEventRecord(Event *event, Stream *) {
  std::lock_guard<std::mutex> lock(mutex);
  if (!event)
    return kInvalidHandle;
  // Each recording advances the fake clock by 4 ticks of 0.25 ms.
  fakeClock += 4;
  ++state.eventRecords;
  event->timestamp = fakeClock;
  return kSuccess;
}

FAKE_EXPORT int cuEventSynchronize(Event *event) {
  ++state.eventSynchronizes;
  return event ? synchronize() : kInvalidHandle;
}

static int elapsed(float *milliseconds, Event *start, Event *end) {
  if (!start || !end || (start->flags & 2) || (end->flags & 2) ||
      start->timestamp < 0 || end->timestamp < 0)
    return kInvalidHandle;
  *milliseconds = 0.25f * static_cast<float>(end->timestamp - start->timestamp);
  return kSuccess;
}

#ifndef FAKE_CUDA_OLD
FAKE_EXPORT int cuEventElapsedTime_v2(float *milliseconds, Event *start,
                                      Event *end) {
  ++state.elapsedTimeV2Calls;
  return elapsed(milliseconds, start, end);
}
#endif

FAKE_EXPORT int cuEventElapsedTime(float *milliseconds, Event *start,
                                   Event *end) {
  ++state.elapsedTimeV1Calls;
  return elapsed(milliseconds, start, end);
}

FAKE_EXPORT int cuEventDestroy_v2(Event *event) {
  std::lock_guard<std::mutex> lock(mutex);
  if (!event)
    return kInvalidHandle;
  delete event;
  --state.liveEvents;
  return kSuccess;
}

#ifndef FAKE_CUDA_OLD
FAKE_EXPORT int
cuTensorMapEncodeTiled(void *tensorMap, int dataType, uint32_t rank,
                       void *address, const uint64_t *globalDim,
                       const uint64_t *globalStrides, const uint32_t *boxDim,
                       const uint32_t *elementStrides, int interleave,
                       int swizzle, int l2Promotion, int oobFill) {
  std::lock_guard<std::mutex> lock(mutex);
  ++state.tensorMapEncodes;
  if (rank < 1 || rank > 5 || reinterpret_cast<uintptr_t>(address) % 16 != 0)
    return kInvalidValue;
  state.tmaDataType = dataType;
  state.tmaRank = rank;
  state.tmaAddress = address;
  for (uint32_t i = 0; i < 5; ++i) {
    state.tmaGlobalDim[i] = i < rank ? globalDim[i] : 0;
    state.tmaGlobalStrides[i] = i + 1 < rank ? globalStrides[i] : 0;
    state.tmaBoxDim[i] = i < rank ? boxDim[i] : 0;
    state.tmaElementStrides[i] = i < rank ? elementStrides[i] : 0;
  }
  state.tmaInterleave = interleave;
  state.tmaSwizzle = swizzle;
  state.tmaL2Promotion = l2Promotion;
  state.tmaOobFill = oobFill;
  if (tracing()) {
    std::fprintf(stderr, "fake-cuda: cuTensorMapEncodeTiled type %d rank %u",
                 dataType, rank);
    auto list = [&](const char *what, auto *values, uint32_t n) {
      std::fprintf(stderr, " %s", what);
      for (uint32_t i = 0; i < n; ++i)
        std::fprintf(stderr, "%s%llu", i ? "x" : " ",
                     static_cast<unsigned long long>(values[i]));
    };
    list("dims", globalDim, rank);
    list("strides", globalStrides, rank - 1);
    list("box", boxDim, rank);
    list("elementStrides", elementStrides, rank);
    std::fprintf(stderr,
                 " interleave %d swizzle %d l2 %d oob %d aligned16 %d\n",
                 interleave, swizzle, l2Promotion, oobFill,
                 int(reinterpret_cast<uintptr_t>(address) % 16 == 0));
  }
  // The "encoding": word i holds 0x7e57 << 16 | i, the last one the
  // address (maps of different tensors differ, as real ones do).
  auto *words = static_cast<uint64_t *>(tensorMap);
  for (int i = 0; i < 15; ++i)
    words[i] = (0x7e57ull << 16) | static_cast<uint64_t>(i);
  words[15] = reinterpret_cast<uintptr_t>(address);
  return kSuccess;
}
#endif
