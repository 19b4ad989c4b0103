//===- MgpuWrappers.cpp - gpu-to-llvm ABI over mxfp8rt -------- -*- C++ -*-===//
//
// The mgpu* functions that MLIR's `gpu-to-llvm` lowering and the NVVM
// offloading translation emit calls to, with LLVM 22's signatures, so
// upstream-style host code runs against this runtime (load
// libmxfp8train_runtime.so with the ExecutionEngine's sharedLibPaths, or link
// it). The ABI has no error return: a failure records the message for
// mxfp8rtGetLastError(), prints it to stderr the first time that message is
// seen, and returns a null handle.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/runtime/Runtime.h"

#include "MemRef.h"
#include "RuntimeInternal.h"

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

using namespace mxfp8rt;

/// Prints the calling thread's last error, prefixed by the mgpu entry point,
/// unless the same message was printed before.
static void report(const char *api) {
  static std::mutex *mutex = new std::mutex();
  static std::set<std::string> *printed = new std::set<std::string>();
  std::string message = mxfp8rtGetLastError();
  std::lock_guard<std::mutex> lock(*mutex);
  if (!printed->insert(message).second)
    return;
  std::fprintf(stderr, "mxfp8train runtime: %s: %s\n", api, message.c_str());
  std::fflush(stderr);
}

/// Runs `call`; on failure reports it under `api` and returns false.
#define MGPU_CALL(api, call) (checked(api, (call)))

static bool checked(const char *api, mxfp8rtStatus status) {
  if (status == MXFP8RT_SUCCESS)
    return true;
  report(api);
  return false;
}

/// Every entry point first makes sure the driver is there, so that on a
/// machine without a GPU the message is the driver one even when the
/// arguments are null handles from earlier failed calls.
#define MGPU_ENTER(api, failValue)                                             \
  if (!MGPU_CALL(api, mxfp8rtInitialize()))                                    \
    return failValue;

namespace {
/// The device copies of mgpuTensorMapEncodeTiledMemref, by device and the
/// 128 encoded bytes. A step encodes the same maps at every call (its
/// buffers come back from the pool at the same addresses), so from the
/// second call on a map costs no allocation, copy or host wait; the copies
/// are immutable and stay until mxfp8rtReleaseTensorMaps, and mgpuMemFree
/// of one does nothing. At most kCapacity copies are kept; past that, maps
/// get a copy per call from the pool again.
class TensorMapCache {
public:
  using Words = std::array<uint64_t, 16>;
  static constexpr size_t kCapacity = 4096;

  void *lookup(int device, const Words &words) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = copies.find({device, words});
    return it == copies.end() ? nullptr : it->second;
  }
  bool isFull() {
    std::lock_guard<std::mutex> lock(mutex);
    return copies.size() >= kCapacity;
  }
  void insert(int device, const Words &words, void *copy) {
    std::lock_guard<std::mutex> lock(mutex);
    copies.emplace(std::make_pair(device, words), copy);
    pointers.insert(copy);
  }
  bool holds(void *pointer) {
    std::lock_guard<std::mutex> lock(mutex);
    return pointers.count(pointer) != 0;
  }
  /// Forgets every copy and returns them, with their devices.
  std::vector<std::pair<int, void *>> takeAll() {
    std::lock_guard<std::mutex> lock(mutex);
    std::vector<std::pair<int, void *>> all;
    for (auto &[key, copy] : copies)
      all.emplace_back(key.first, copy);
    copies.clear();
    pointers.clear();
    return all;
  }

private:
  std::mutex mutex;
  std::map<std::pair<int, Words>, void *> copies;
  std::set<void *> pointers;
};

TensorMapCache &getTensorMapCache() {
  static auto *cache = new TensorMapCache();
  return *cache;
}
} // namespace

void *mgpuModuleLoad(void *data, size_t gpuBlobSize) {
  MGPU_ENTER("mgpuModuleLoad", nullptr);
  mxfp8rtModule module = nullptr;
  if (gpuBlobSize > static_cast<size_t>(INTPTR_MAX)) {
    recordError(MXFP8RT_INVALID_ARGUMENT, "mgpuModuleLoad: image size " +
                                              std::to_string(gpuBlobSize) +
                                              " is too large");
    report("mgpuModuleLoad");
    return nullptr;
  }
  if (!MGPU_CALL("mgpuModuleLoad",
                 mxfp8rtModuleLoadData(data, static_cast<intptr_t>(gpuBlobSize),
                                       nullptr, &module)))
    return nullptr;
  return module;
}

void *mgpuModuleLoadJIT(void *data, int optLevel) {
  MGPU_ENTER("mgpuModuleLoadJIT", nullptr);
  mxfp8rtModule module = nullptr;
  intptr_t size =
      data ? static_cast<intptr_t>(std::strlen(static_cast<char *>(data)) + 1)
           : 0;
  if (!MGPU_CALL(
          "mgpuModuleLoadJIT",
          mxfp8rtModuleLoadDataJIT(data, size, optLevel, nullptr, &module)))
    return nullptr;
  return module;
}

void mgpuModuleUnload(void *module) {
  MGPU_ENTER("mgpuModuleUnload", );
  MGPU_CALL("mgpuModuleUnload",
            mxfp8rtModuleUnload(static_cast<mxfp8rtModule>(module)));
}

void *mgpuModuleGetFunction(void *module, const char *name) {
  MGPU_ENTER("mgpuModuleGetFunction", nullptr);
  mxfp8rtFunction function = nullptr;
  if (!MGPU_CALL("mgpuModuleGetFunction",
                 mxfp8rtModuleGetFunction(static_cast<mxfp8rtModule>(module),
                                          name, &function)))
    return nullptr;
  return function;
}

void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t smem, void *stream,
                      void **params, void **extra, size_t /*paramsCount*/) {
  MGPU_ENTER("mgpuLaunchKernel", );
  if (extra) {
    recordError(MXFP8RT_INVALID_ARGUMENT,
                "mgpuLaunchKernel: the `extra` argument is not supported; "
                "pass kernel arguments through `params`");
    report("mgpuLaunchKernel");
    return;
  }
  MGPU_CALL("mgpuLaunchKernel",
            mxfp8rtLaunchKernel(static_cast<mxfp8rtFunction>(function), gridX,
                                gridY, gridZ, blockX, blockY, blockZ, smem,
                                static_cast<mxfp8rtStream>(stream), params));
}

void mgpuLaunchClusterKernel(void *function, intptr_t clusterX,
                             intptr_t clusterY, intptr_t clusterZ,
                             intptr_t gridX, intptr_t gridY, intptr_t gridZ,
                             intptr_t blockX, intptr_t blockY, intptr_t blockZ,
                             int32_t smem, void *stream, void **params,
                             void **extra) {
  MGPU_ENTER("mgpuLaunchClusterKernel", );
  if (extra) {
    recordError(MXFP8RT_INVALID_ARGUMENT,
                "mgpuLaunchClusterKernel: the `extra` argument is not "
                "supported; pass kernel arguments through `params`");
    report("mgpuLaunchClusterKernel");
    return;
  }
  MGPU_CALL("mgpuLaunchClusterKernel",
            mxfp8rtLaunchClusterKernel(
                static_cast<mxfp8rtFunction>(function), clusterX, clusterY,
                clusterZ, gridX, gridY, gridZ, blockX, blockY, blockZ, smem,
                static_cast<mxfp8rtStream>(stream), params));
}

void *mgpuStreamCreate(void) {
  MGPU_ENTER("mgpuStreamCreate", nullptr);
  mxfp8rtStream stream = nullptr;
  if (!MGPU_CALL("mgpuStreamCreate", mxfp8rtStreamCreate(&stream)))
    return nullptr;
  return stream;
}

void mgpuStreamDestroy(void *stream) {
  MGPU_ENTER("mgpuStreamDestroy", );
  MGPU_CALL("mgpuStreamDestroy",
            mxfp8rtStreamDestroy(static_cast<mxfp8rtStream>(stream)));
}

void mgpuStreamSynchronize(void *stream) {
  MGPU_ENTER("mgpuStreamSynchronize", );
  MGPU_CALL("mgpuStreamSynchronize",
            mxfp8rtStreamSynchronize(static_cast<mxfp8rtStream>(stream)));
}

void mgpuStreamWaitEvent(void *stream, void *event) {
  MGPU_ENTER("mgpuStreamWaitEvent", );
  MGPU_CALL("mgpuStreamWaitEvent",
            mxfp8rtStreamWaitEvent(static_cast<mxfp8rtStream>(stream),
                                   static_cast<mxfp8rtEvent>(event)));
}

void *mgpuEventCreate(void) {
  MGPU_ENTER("mgpuEventCreate", nullptr);
  mxfp8rtEvent event = nullptr;
  if (!MGPU_CALL("mgpuEventCreate",
                 mxfp8rtEventCreate(&event, /*enableTiming=*/0)))
    return nullptr;
  return event;
}

void mgpuEventDestroy(void *event) {
  MGPU_ENTER("mgpuEventDestroy", );
  MGPU_CALL("mgpuEventDestroy",
            mxfp8rtEventDestroy(static_cast<mxfp8rtEvent>(event)));
}

void mgpuEventSynchronize(void *event) {
  MGPU_ENTER("mgpuEventSynchronize", );
  MGPU_CALL("mgpuEventSynchronize",
            mxfp8rtEventSynchronize(static_cast<mxfp8rtEvent>(event)));
}

void mgpuEventRecord(void *event, void *stream) {
  MGPU_ENTER("mgpuEventRecord", );
  MGPU_CALL("mgpuEventRecord",
            mxfp8rtEventRecord(static_cast<mxfp8rtEvent>(event),
                               static_cast<mxfp8rtStream>(stream)));
}

void *mgpuMemAlloc(uint64_t sizeBytes, void *stream, bool isHostShared) {
  MGPU_ENTER("mgpuMemAlloc", nullptr);
  if (sizeBytes > static_cast<uint64_t>(INTPTR_MAX)) {
    recordError(MXFP8RT_INVALID_ARGUMENT, "mgpuMemAlloc: size " +
                                              std::to_string(sizeBytes) +
                                              " is too large");
    report("mgpuMemAlloc");
    return nullptr;
  }
  void *pointer = nullptr;
  intptr_t size = static_cast<intptr_t>(sizeBytes);
  // Device buffers come from the stream-ordered pool (mxfp8rtMemAllocAsync).
  mxfp8rtStatus status =
      isHostShared ? mxfp8rtMemAllocManaged(size, &pointer)
                   : mxfp8rtMemAllocAsync(
                         size, static_cast<mxfp8rtStream>(stream), &pointer);
  if (!MGPU_CALL("mgpuMemAlloc", status))
    return nullptr;
  return pointer;
}

void mgpuMemFree(void *ptr, void *stream) {
  MGPU_ENTER("mgpuMemFree", );
  // A cached tensor map stays (mxfp8rtReleaseTensorMaps frees it).
  if (ptr && getTensorMapCache().holds(ptr))
    return;
  MGPU_CALL("mgpuMemFree",
            mxfp8rtMemFreeAsync(ptr, static_cast<mxfp8rtStream>(stream)));
}

void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, void *stream) {
  MGPU_ENTER("mgpuMemcpy", );
  MGPU_CALL("mgpuMemcpy",
            mxfp8rtMemcpy(dst, src, static_cast<intptr_t>(sizeBytes),
                          static_cast<mxfp8rtStream>(stream)));
}

void mgpuMemset32(void *dst, unsigned int value, size_t count, void *stream) {
  MGPU_ENTER("mgpuMemset32", );
  MGPU_CALL("mgpuMemset32",
            mxfp8rtMemsetD32(dst, value, static_cast<intptr_t>(count),
                             static_cast<mxfp8rtStream>(stream)));
}

void mgpuMemset16(void *dst, unsigned short value, size_t count, void *stream) {
  MGPU_ENTER("mgpuMemset16", );
  MGPU_CALL("mgpuMemset16",
            mxfp8rtMemsetD16(dst, value, static_cast<intptr_t>(count),
                             static_cast<mxfp8rtStream>(stream)));
}

void mgpuMemHostRegister(void *ptr, uint64_t sizeBytes) {
  MGPU_ENTER("mgpuMemHostRegister", );
  MGPU_CALL("mgpuMemHostRegister",
            mxfp8rtHostRegister(ptr, static_cast<intptr_t>(sizeBytes)));
}

void mgpuMemHostRegisterMemRef(int64_t rank, void *descriptor,
                               int64_t elementSizeBytes) {
  MGPU_ENTER("mgpuMemHostRegisterMemRef", );
  void *data = nullptr;
  size_t size = 0;
  std::string message;
  if (mxfp8rtStatus status = getDenseMemRefExtent(
          rank, descriptor, elementSizeBytes, data, size, message)) {
    recordError(status, "mgpuMemHostRegisterMemRef: " + message);
    report("mgpuMemHostRegisterMemRef");
    return;
  }
  if (size == 0)
    return;
  MGPU_CALL("mgpuMemHostRegisterMemRef",
            mxfp8rtHostRegister(data, static_cast<intptr_t>(size)));
}

void mgpuMemHostUnregister(void *ptr) {
  MGPU_ENTER("mgpuMemHostUnregister", );
  MGPU_CALL("mgpuMemHostUnregister", mxfp8rtHostUnregister(ptr));
}

void mgpuMemHostUnregisterMemRef(int64_t rank, void *descriptor,
                                 int64_t elementSizeBytes) {
  MGPU_ENTER("mgpuMemHostUnregisterMemRef", );
  void *data = nullptr;
  size_t size = 0;
  std::string message;
  if (mxfp8rtStatus status = getDenseMemRefExtent(
          rank, descriptor, elementSizeBytes, data, size, message)) {
    recordError(status, "mgpuMemHostUnregisterMemRef: " + message);
    report("mgpuMemHostUnregisterMemRef");
    return;
  }
  if (size == 0)
    return;
  MGPU_CALL("mgpuMemHostUnregisterMemRef", mxfp8rtHostUnregister(data));
}

void mgpuSetDefaultDevice(int32_t device) {
  MGPU_ENTER("mgpuSetDefaultDevice", );
  MGPU_CALL("mgpuSetDefaultDevice", mxfp8rtSetDevice(device));
}

mxfp8rtStatus mxfp8rtReleaseTensorMaps(void) {
  mxfp8rtStatus first = MXFP8RT_SUCCESS;
  int current = 0;
  if (mxfp8rtStatus status = mxfp8rtGetDevice(&current))
    return status;
  for (auto [device, copy] : getTensorMapCache().takeAll()) {
    mxfp8rtStatus status = mxfp8rtSetDevice(device);
    if (!status)
      status = mxfp8rtMemFree(copy);
    if (status && !first)
      first = status;
  }
  if (mxfp8rtStatus status = mxfp8rtSetDevice(current); status && !first)
    first = status;
  return first;
}

void *mgpuTensorMapEncodeTiledMemref(int64_t tensorRank, void *rankedDescriptor,
                                     int64_t tensorDataType, int64_t interleave,
                                     int64_t swizzle, int64_t l2Promotion,
                                     int64_t oobFill, int64_t *boxDims) {
  static const char *api = "mgpuTensorMapEncodeTiledMemref";
  MGPU_ENTER(api, nullptr);
  TiledTensorMapArgs args;
  std::string message;
  if (mxfp8rtStatus status =
          computeTiledTensorMapArgs(tensorRank, rankedDescriptor,
                                    tensorDataType, boxDims, args, message)) {
    recordError(status, std::string(api) + ": " + message);
    report(api);
    return nullptr;
  }
  struct alignas(128) {
    uint64_t words[16];
  } tensorMap = {};
  if (!MGPU_CALL(api,
                 mxfp8rtTensorMapEncodeTiled(
                     &tensorMap, static_cast<int>(tensorDataType), args.rank,
                     args.globalAddress, args.globalDim, args.globalStrides,
                     args.boxDim, args.elementStrides,
                     static_cast<int>(interleave), static_cast<int>(swizzle),
                     static_cast<int>(l2Promotion), static_cast<int>(oobFill))))
    return nullptr;
  TensorMapCache &cache = getTensorMapCache();
  TensorMapCache::Words words;
  std::memcpy(words.data(), &tensorMap, sizeof(words));
  int device = 0;
  if (!MGPU_CALL(api, mxfp8rtGetDevice(&device)))
    return nullptr;
  if (void *copy = cache.lookup(device, words))
    return copy;
  if (!cache.isFull()) {
    void *copy = nullptr;
    if (!MGPU_CALL(api, mxfp8rtMemAlloc(sizeof(tensorMap), &copy)))
      return nullptr;
    if (!MGPU_CALL(api, mxfp8rtMemcpyHtoD(copy, &tensorMap, sizeof(tensorMap),
                                          nullptr)) ||
        !MGPU_CALL(api, mxfp8rtStreamSynchronize(nullptr))) {
      mxfp8rtMemFree(copy);
      return nullptr;
    }
    cache.insert(device, words, copy);
    return copy;
  }
  // Cache full: a copy from the stream-ordered pool, freed by mgpuMemFree.
  void *deviceCopy = nullptr;
  if (!MGPU_CALL(api,
                 mxfp8rtMemAllocAsync(sizeof(tensorMap), nullptr, &deviceCopy)))
    return nullptr;
  if (!MGPU_CALL(api, mxfp8rtMemcpyHtoD(deviceCopy, &tensorMap,
                                        sizeof(tensorMap), nullptr)) ||
      !MGPU_CALL(api, mxfp8rtStreamSynchronize(nullptr))) {
    mxfp8rtMemFree(deviceCopy);
    return nullptr;
  }
  return deviceCopy;
}
