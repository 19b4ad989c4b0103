//===- RuntimeInternal.h - shared by the runtime's sources ---- -*- C++ -*-===//
//
// What the runtime's sources share beyond the public header, all defined in
// Runtime.cpp: what the mgpu* wrappers and the collectives need from the
// mxfp8rt* implementation, then the helpers of the implementation itself
// (Runtime.cpp, Memory.cpp and Modules.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_RUNTIME_SRC_RUNTIMEINTERNAL_H
#define MXFP8TRAIN_RUNTIME_SRC_RUNTIMEINTERNAL_H

#include "mxfp8train/runtime/Runtime.h"

#include "CudaDriver.h"

#include <cstdint>
#include <functional>
#include <string>

namespace mxfp8rt {

/// Sets the calling thread's mxfp8rtGetLastError() text and returns
/// `status`.
mxfp8rtStatus recordError(mxfp8rtStatus status, std::string message);

/// Records a failed driver call as failCuda does ("<call> failed <context>:
/// <CUDA error>") and returns MXFP8RT_CUDA_ERROR (or OUT_OF_MEMORY).
mxfp8rtStatus recordCudaError(cuda::CUresult result, const char *call,
                              const std::string &context);

/// The resolved driver table; valid after a successful mxfp8rtInitialize.
const cuda::Driver &getDriver();

/// Runs `fn` with the primary context of `device` current (pushed and popped
/// around it when needed) and returns its status, or the failure to make
/// the context current. Call after a successful mxfp8rtInitialize.
mxfp8rtStatus runInContext(int device,
                           const std::function<mxfp8rtStatus()> &fn);

//===----------------------------------------------------------------------===//
// The mxfp8rt* implementation (Runtime.cpp, Memory.cpp, Modules.cpp)
//===----------------------------------------------------------------------===//

/// Records a failed driver call: "<call> failed<context>: <CUDA error>".
/// Asynchronous kernel errors also name the most recent launch.
mxfp8rtStatus failCuda(cuda::CUresult result, const char *call,
                       const std::string &context,
                       mxfp8rtStatus status = MXFP8RT_CUDA_ERROR);

/// Initializes on first use; on failure records the initialization message.
mxfp8rtStatus ensureDriver();

/// "device 0 (NVIDIA H200, compute capability 9.0)", best effort.
std::string describeDevice(int device);

/// The driver's handle of device ordinal `device`; after ensureDriver(), for
/// an ordinal that exists.
cuda::CUdevice getDeviceHandle(int device);

/// "1 byte", "16 bytes".
std::string bytes(intptr_t size);

/// Validates a device ordinal after ensureDriver(): an INVALID_ARGUMENT
/// error naming `api` for one that does not exist.
mxfp8rtStatus checkDevice(const char *api, int device);

class ModuleCache;
/// The process's loaded modules (Modules.cpp).
ModuleCache &getModuleCache();

/// Remembers the most recent launch ("kernel 'k' in module 'm' with ..."),
/// which failCuda names when an asynchronous kernel error surfaces.
void recordLaunch(std::string description);

/// The calling thread's device (mxfp8rtSetDevice); 0 until it sets one.
extern thread_local int currentDevice;

/// Runs `fn` with `device` as the calling thread's current device (the one
/// mxfp8rt* calls use) and its primary context current, then restores both:
/// for work on a communicator's GPU whatever device the thread selected.
mxfp8rtStatus runOnDevice(int device, const std::function<mxfp8rtStatus()> &fn);

/// Makes the primary context of a device current for its lifetime.
class ScopedContext {
public:
  /// Retains the primary context of `device` on first use and pushes it
  /// unless it is already current; getStatus() tells whether that worked.
  explicit ScopedContext(int device);
  /// Pops the context if the constructor pushed it.
  ~ScopedContext();
  ScopedContext(const ScopedContext &) = delete;
  ScopedContext &operator=(const ScopedContext &) = delete;

  /// MXFP8RT_SUCCESS, or the recorded failure to make the context current.
  mxfp8rtStatus getStatus() const { return status; }

private:
  mxfp8rtStatus status = MXFP8RT_SUCCESS;
  bool pushed = false;
};

} // namespace mxfp8rt

// The macros below are for the mxfp8rt* entry points, whose files have
// `using namespace mxfp8rt`.

/// ensureDriver plus the current device's context; used by most entry
/// points as `ENTER_CONTEXT(device)`.
#define ENTER_CONTEXT(device)                                                  \
  if (mxfp8rtStatus status = ensureDriver())                                   \
    return status;                                                             \
  ScopedContext scopedContext(device);                                         \
  if (mxfp8rtStatus status = scopedContext.getStatus())                        \
    return status;

/// Validates a non-null out-parameter.
#define CHECK_NOT_NULL(api, pointer)                                           \
  if (!(pointer))                                                              \
    return recordError(MXFP8RT_INVALID_ARGUMENT,                               \
                       std::string(api) + ": " #pointer " is null");

#endif // MXFP8TRAIN_RUNTIME_SRC_RUNTIMEINTERNAL_H
