//===- Memory.cpp - device and host memory, copies, fills ----- -*- C++ -*-===//
//
// Implements Runtime.h's memory functions: device allocations (cuMemAlloc,
// managed memory, and mxfp8rtMemAllocAsync from the device's default memory
// pool), pinned and registered host memory, copies and fills. The runtime
// core (errors, driver loading, contexts) is Runtime.cpp's, reached through
// RuntimeInternal.h.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/runtime/Runtime.h"

#include "CudaDriver.h"
#include "Profiler.h"
#include "RuntimeInternal.h"

#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>

using namespace mxfp8rt;
using namespace mxfp8rt::cuda;

/// Validates a size that may be zero.
static mxfp8rtStatus checkSize(const char *api, const char *what,
                               intptr_t size) {
  if (size < 0)
    return recordError(MXFP8RT_INVALID_ARGUMENT,
                       std::string(api) + ": " + what + " " +
                           std::to_string(size) + " is negative");
  return MXFP8RT_SUCCESS;
}

static CUdeviceptr toDevicePtr(const void *pointer) {
  return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(pointer));
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

/// The common path of the device allocations, after the caller has checked
/// and cleared `*ptr`: a zero size allocates nothing, otherwise
/// `allocate(&pointer, size)` (the driver call `call`) runs on the current
/// device.
template <typename AllocateFn>
static mxfp8rtStatus allocateOnDevice(const char *api, const char *call,
                                      intptr_t sizeBytes, void **ptr,
                                      AllocateFn allocate) {
  if (mxfp8rtStatus status = checkSize(api, "size", sizeBytes))
    return status;
  if (sizeBytes == 0)
    return MXFP8RT_SUCCESS;
  int device = currentDevice;
  ENTER_CONTEXT(device);
  CUdeviceptr pointer = 0;
  if (CUresult result = allocate(&pointer, static_cast<size_t>(sizeBytes)))
    return failCuda(result, call,
                    "allocating " + bytes(sizeBytes) + " on " +
                        describeDevice(device));
  *ptr = reinterpret_cast<void *>(static_cast<uintptr_t>(pointer));
  return MXFP8RT_SUCCESS;
}

mxfp8rtStatus mxfp8rtMemAlloc(intptr_t sizeBytes, void **devicePtr) {
  static const char *api = "mxfp8rtMemAlloc";
  CHECK_NOT_NULL(api, devicePtr);
  *devicePtr = nullptr;
  mxfp8rtStatus status =
      allocateOnDevice(api, "cuMemAlloc", sizeBytes, devicePtr,
                       [](CUdeviceptr *pointer, size_t size) {
                         return getDriver().cuMemAlloc_v2(pointer, size);
                       });
  if (status == MXFP8RT_SUCCESS && *devicePtr)
    profile::countAllocation(sizeBytes, profile::PoolOutcome::NotPooled);
  return status;
}

mxfp8rtStatus mxfp8rtMemAllocManaged(intptr_t sizeBytes, void **ptr) {
  static const char *api = "mxfp8rtMemAllocManaged";
  CHECK_NOT_NULL(api, ptr);
  *ptr = nullptr;
  mxfp8rtStatus status =
      allocateOnDevice(api, "cuMemAllocManaged", sizeBytes, ptr,
                       [](CUdeviceptr *pointer, size_t size) {
                         return getDriver().cuMemAllocManaged(
                             pointer, size, CU_MEM_ATTACH_GLOBAL);
                       });
  if (status == MXFP8RT_SUCCESS && *ptr)
    profile::countAllocation(sizeBytes, profile::PoolOutcome::NotPooled);
  return status;
}

static mxfp8rtStatus freePooled(void *devicePtr, mxfp8rtStream stream);
static bool erasePooled(void *devicePtr);

mxfp8rtStatus mxfp8rtMemFree(void *devicePtr) {
  if (!devicePtr)
    return MXFP8RT_SUCCESS;
  // Memory of mxfp8rtMemAllocAsync goes back to its pool.
  if (erasePooled(devicePtr))
    return freePooled(devicePtr, nullptr);
  ENTER_CONTEXT(currentDevice);
  if (CUresult result = getDriver().cuMemFree_v2(toDevicePtr(devicePtr)))
    return failCuda(result, "cuMemFree", "");
  profile::countFree(/*deviceFree=*/true);
  return MXFP8RT_SUCCESS;
}

//===----------------------------------------------------------------------===//
// Stream-ordered allocations from the device's default memory pool
//===----------------------------------------------------------------------===//

namespace {
/// The pointers of mxfp8rtMemAllocAsync that came from a memory pool (the
/// others are cuMemAlloc's), and the devices whose default pool keeps its
/// memory (release threshold raised).
struct PoolState {
  std::mutex mutex;
  std::unordered_set<void *> pooled;
  std::unordered_map<int, cuda::CUmemoryPool> configured;
};
} // namespace

static PoolState &getPoolState() {
  static PoolState state;
  return state;
}

/// Whether mxfp8rtMemAllocAsync draws from the default memory pool of
/// `device`: the driver has the pool API, the device supports pools and
/// MXFP8RT_ALLOCATOR is not `device`. The first call per device raises the
/// pool's release threshold to the maximum (memory stays in the pool
/// across synchronizations). Call inside ENTER_CONTEXT.
static bool usePool(int device) {
  static const bool disabled = [] {
    const char *env = std::getenv("MXFP8RT_ALLOCATOR");
    return env && std::string(env) == "device";
  }();
  const cuda::Driver &d = getDriver();
  if (disabled || !d.cuMemAllocAsync || !d.cuMemFreeAsync ||
      !d.cuDeviceGetDefaultMemPool || !d.cuMemPoolSetAttribute)
    return false;
  PoolState &state = getPoolState();
  std::lock_guard<std::mutex> lock(state.mutex);
  if (state.configured.count(device))
    return true;
  cuda::CUdevice handle = getDeviceHandle(device);
  int supported = 0;
  if (d.cuDeviceGetAttribute(&supported,
                             cuda::CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED,
                             handle) != cuda::CUDA_SUCCESS ||
      !supported)
    return false;
  cuda::CUmemoryPool pool = nullptr;
  uint64_t threshold = UINT64_MAX;
  if (d.cuDeviceGetDefaultMemPool(&pool, handle) != cuda::CUDA_SUCCESS ||
      d.cuMemPoolSetAttribute(pool, cuda::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
                              &threshold) != cuda::CUDA_SUCCESS)
    return false;
  state.configured.emplace(device, pool);
  return true;
}

namespace {
/// While profiling: the memory the default pool of a device reserved when
/// constructed, compared by getOutcome() after an allocation (a pool that
/// grew missed). Call inside ENTER_CONTEXT, after usePool.
class PoolReservation {
public:
  explicit PoolReservation(int device) {
    if (!profile::isEnabled() || !getDriver().cuMemPoolGetAttribute)
      return;
    PoolState &state = getPoolState();
    {
      std::lock_guard<std::mutex> lock(state.mutex);
      auto it = state.configured.find(device);
      if (it == state.configured.end())
        return;
      pool = it->second;
    }
    known = read(before);
  }

  profile::PoolOutcome getOutcome() const {
    uint64_t after = 0;
    if (!known || !read(after))
      return profile::PoolOutcome::Unknown;
    return after > before ? profile::PoolOutcome::Miss
                          : profile::PoolOutcome::Hit;
  }

private:
  bool read(uint64_t &bytes) const {
    return getDriver().cuMemPoolGetAttribute(
               pool, cuda::CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &bytes) ==
           cuda::CUDA_SUCCESS;
  }

  cuda::CUmemoryPool pool = nullptr;
  uint64_t before = 0;
  bool known = false;
};
} // namespace

mxfp8rtStatus mxfp8rtMemAllocAsync(intptr_t sizeBytes, mxfp8rtStream stream,
                                   void **devicePtr) {
  static const char *api = "mxfp8rtMemAllocAsync";
  CHECK_NOT_NULL(api, devicePtr);
  *devicePtr = nullptr;
  bool pooled = false;
  {
    ENTER_CONTEXT(currentDevice);
    pooled = usePool(currentDevice);
  }
  if (!pooled)
    return mxfp8rtMemAlloc(sizeBytes, devicePtr);
  auto native = reinterpret_cast<CUstream>(stream);
  // While profiling, whether the pool had to grow tells a miss from a hit.
  PoolReservation reservation(currentDevice);
  mxfp8rtStatus status =
      allocateOnDevice(api, "cuMemAllocAsync", sizeBytes, devicePtr,
                       [&](CUdeviceptr *pointer, size_t size) {
                         CUresult result =
                             getDriver().cuMemAllocAsync(pointer, size, native);
                         // On the legacy stream the allocation is ordered after
                         // nothing our (non-blocking) streams see: make it
                         // complete before returning.
                         if (result || native)
                           return result;
                         profile::countHostSynchronization();
                         return getDriver().cuStreamSynchronize(nullptr);
                       });
  if (status || !*devicePtr)
    return status;
  profile::countAllocation(sizeBytes, reservation.getOutcome());
  PoolState &state = getPoolState();
  std::lock_guard<std::mutex> lock(state.mutex);
  state.pooled.insert(*devicePtr);
  return MXFP8RT_SUCCESS;
}

/// Forgets `devicePtr` as a pool allocation; false when it is not one.
static bool erasePooled(void *devicePtr) {
  PoolState &state = getPoolState();
  std::lock_guard<std::mutex> lock(state.mutex);
  return state.pooled.erase(devicePtr) != 0;
}

mxfp8rtStatus mxfp8rtMemFreeAsync(void *devicePtr, mxfp8rtStream stream) {
  if (!devicePtr)
    return MXFP8RT_SUCCESS;
  if (!erasePooled(devicePtr))
    return mxfp8rtMemFree(devicePtr);
  return freePooled(devicePtr, stream);
}

/// cuMemFreeAsync of a pool allocation on `stream`; a null stream after
/// all work of the context.
static mxfp8rtStatus freePooled(void *devicePtr, mxfp8rtStream stream) {
  ENTER_CONTEXT(currentDevice);
  auto native = reinterpret_cast<cuda::CUstream>(stream);
  // The legacy semantics of a free without a stream (cuMemFree): after
  // all work of the context, whatever stream used the memory.
  if (!native) {
    profile::countHostSynchronization();
    if (CUresult result = getDriver().cuCtxSynchronize())
      return failCuda(result, "cuCtxSynchronize", "");
  }
  if (CUresult result =
          getDriver().cuMemFreeAsync(toDevicePtr(devicePtr), native))
    return failCuda(result, "cuMemFreeAsync", "");
  profile::countFree(/*deviceFree=*/false);
  return MXFP8RT_SUCCESS;
}

mxfp8rtStatus mxfp8rtHostAlloc(intptr_t sizeBytes, void **hostPtr) {
  static const char *api = "mxfp8rtHostAlloc";
  CHECK_NOT_NULL(api, hostPtr);
  *hostPtr = nullptr;
  if (mxfp8rtStatus status = checkSize(api, "size", sizeBytes))
    return status;
  if (sizeBytes == 0)
    return MXFP8RT_SUCCESS;
  ENTER_CONTEXT(currentDevice);
  if (CUresult result = getDriver().cuMemAllocHost_v2(
          hostPtr, static_cast<size_t>(sizeBytes)))
    return failCuda(result, "cuMemAllocHost",
                    "allocating " + bytes(sizeBytes) +
                        " of pinned host memory");
  return MXFP8RT_SUCCESS;
}

mxfp8rtStatus mxfp8rtHostFree(void *hostPtr) {
  if (!hostPtr)
    return MXFP8RT_SUCCESS;
  ENTER_CONTEXT(currentDevice);
  if (CUresult result = getDriver().cuMemFreeHost(hostPtr))
    return failCuda(result, "cuMemFreeHost", "");
  return MXFP8RT_SUCCESS;
}

mxfp8rtStatus mxfp8rtHostRegister(void *hostPtr, intptr_t sizeBytes) {
  static const char *api = "mxfp8rtHostRegister";
  CHECK_NOT_NULL(api, hostPtr);
  if (sizeBytes <= 0)
    return recordError(MXFP8RT_INVALID_ARGUMENT, std::string(api) + ": size " +
                                                     std::to_string(sizeBytes) +
                                                     " must be positive");
  ENTER_CONTEXT(currentDevice);
  if (CUresult result = getDriver().cuMemHostRegister_v2(
          hostPtr, static_cast<size_t>(sizeBytes), 0))
    return failCuda(result, "cuMemHostRegister",
                    "registering " + bytes(sizeBytes) + " of host memory");
  return MXFP8RT_SUCCESS;
}

mxfp8rtStatus mxfp8rtHostUnregister(void *hostPtr) {
  CHECK_NOT_NULL("mxfp8rtHostUnregister", hostPtr);
  ENTER_CONTEXT(currentDevice);
  if (CUresult result = getDriver().cuMemHostUnregister(hostPtr))
    return failCuda(result, "cuMemHostUnregister", "");
  return MXFP8RT_SUCCESS;
}

/// The common path of the copies: a zero size is a no-op, otherwise both
/// pointers must be non-null; then `copy(size)` (the driver call `call`)
/// runs on the current device. `direction` ends the failure message
/// (" to the device", or "" when the driver infers it).
template <typename CopyFn>
static mxfp8rtStatus copyAsync(const char *api, const char *call,
                               const char *direction, const void *dst,
                               const void *src, intptr_t sizeBytes,
                               mxfp8rtStream stream, CopyFn copy) {
  if (mxfp8rtStatus status = checkSize(api, "size", sizeBytes))
    return status;
  if (sizeBytes == 0)
    return MXFP8RT_SUCCESS;
  if (!dst || !src)
    return recordError(
        MXFP8RT_INVALID_ARGUMENT,
        std::string(api) + ": " + (dst ? "source" : "destination") +
            " pointer is null (copying " + bytes(sizeBytes) + ")");
  ENTER_CONTEXT(currentDevice);
  profile::LaunchToken token = profile::beginLaunch(
      currentDevice, call, reinterpret_cast<CUstream>(stream),
      profile::OpKind::Memcpy);
  CUresult result = copy(static_cast<size_t>(sizeBytes));
  profile::endLaunch(token, call, result == CUDA_SUCCESS);
  if (result != CUDA_SUCCESS)
    return failCuda(result, call, "copying " + bytes(sizeBytes) + direction);
  profile::countMemcpy(sizeBytes);
  return MXFP8RT_SUCCESS;
}

mxfp8rtStatus mxfp8rtMemcpyHtoD(void *dstDevice, const void *srcHost,
                                intptr_t sizeBytes, mxfp8rtStream stream) {
  return copyAsync("mxfp8rtMemcpyHtoD", "cuMemcpyHtoDAsync", " to the device",
                   dstDevice, srcHost, sizeBytes, stream, [&](size_t size) {
                     return getDriver().cuMemcpyHtoDAsync_v2(
                         toDevicePtr(dstDevice), srcHost, size,
                         reinterpret_cast<CUstream>(stream));
                   });
}

mxfp8rtStatus mxfp8rtMemcpyDtoH(void *dstHost, const void *srcDevice,
                                intptr_t sizeBytes, mxfp8rtStream stream) {
  return copyAsync("mxfp8rtMemcpyDtoH", "cuMemcpyDtoHAsync", " to the host",
                   dstHost, srcDevice, sizeBytes, stream, [&](size_t size) {
                     return getDriver().cuMemcpyDtoHAsync_v2(
                         dstHost, toDevicePtr(srcDevice), size,
                         reinterpret_cast<CUstream>(stream));
                   });
}

mxfp8rtStatus mxfp8rtMemcpyDtoD(void *dstDevice, const void *srcDevice,
                                intptr_t sizeBytes, mxfp8rtStream stream) {
  return copyAsync("mxfp8rtMemcpyDtoD", "cuMemcpyDtoDAsync",
                   " within the device", dstDevice, srcDevice, sizeBytes,
                   stream, [&](size_t size) {
                     return getDriver().cuMemcpyDtoDAsync_v2(
                         toDevicePtr(dstDevice), toDevicePtr(srcDevice), size,
                         reinterpret_cast<CUstream>(stream));
                   });
}

mxfp8rtStatus mxfp8rtMemcpy(void *dst, const void *src, intptr_t sizeBytes,
                            mxfp8rtStream stream) {
  return copyAsync("mxfp8rtMemcpy", "cuMemcpyAsync", "", dst, src, sizeBytes,
                   stream, [&](size_t size) {
                     return getDriver().cuMemcpyAsync(
                         toDevicePtr(dst), toDevicePtr(src), size,
                         reinterpret_cast<CUstream>(stream));
                   });
}

/// The common path of the fills: a zero count is a no-op, otherwise `dst`
/// must be non-null; then `fill` (the driver's cuMemsetD<N>Async, named
/// `call`) writes `count` copies of `value` on the current device.
/// `elements` names the unit in the failure message ("bytes", ...).
template <typename T>
static mxfp8rtStatus fillAsync(const char *api, const char *call,
                               CUresult (*Driver::*fill)(CUdeviceptr, T, size_t,
                                                         CUstream),
                               const char *elements, void *dst, T value,
                               intptr_t count, mxfp8rtStream stream) {
  if (mxfp8rtStatus status = checkSize(api, "count", count))
    return status;
  if (count == 0)
    return MXFP8RT_SUCCESS;
  if (!dst)
    return recordError(MXFP8RT_INVALID_ARGUMENT,
                       std::string(api) +
                           ": destination pointer is null (filling " +
                           std::to_string(count) + " elements)");
  ENTER_CONTEXT(currentDevice);
  auto native = reinterpret_cast<CUstream>(stream);
  profile::LaunchToken token = profile::beginLaunch(currentDevice, call, native,
                                                    profile::OpKind::Memset);
  CUresult result = (getDriver().*fill)(toDevicePtr(dst), value,
                                        static_cast<size_t>(count), native);
  profile::endLaunch(token, call, result == CUDA_SUCCESS);
  if (result != CUDA_SUCCESS)
    return failCuda(result, call,
                    "filling " + std::to_string(count) + " " + elements);
  profile::countMemset(count * static_cast<intptr_t>(sizeof(T)));
  return MXFP8RT_SUCCESS;
}

mxfp8rtStatus mxfp8rtMemsetD8(void *dstDevice, uint8_t value, intptr_t count,
                              mxfp8rtStream stream) {
  return fillAsync("mxfp8rtMemsetD8", "cuMemsetD8Async",
                   &Driver::cuMemsetD8Async, "bytes", dstDevice, value, count,
                   stream);
}

mxfp8rtStatus mxfp8rtMemsetD16(void *dstDevice, uint16_t value, intptr_t count,
                               mxfp8rtStream stream) {
  return fillAsync("mxfp8rtMemsetD16", "cuMemsetD16Async",
                   &Driver::cuMemsetD16Async, "16-bit elements", dstDevice,
                   value, count, stream);
}

mxfp8rtStatus mxfp8rtMemsetD32(void *dstDevice, uint32_t value, intptr_t count,
                               mxfp8rtStream stream) {
  return fillAsync("mxfp8rtMemsetD32", "cuMemsetD32Async",
                   &Driver::cuMemsetD32Async, "32-bit elements", dstDevice,
                   value, count, stream);
}
