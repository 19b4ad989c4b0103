//===- CudaDriver.h - CUDA driver entry points ---------------- -*- C++ -*-===//
//
// The runtime does not include cuda.h or link libcuda: it declares the few
// driver types it uses (same layout and values as cuda.h; test/CudaHeaderCheck
// verifies that against cuda.h when the CUDA toolkit is present) and resolves
// the entry points with dlsym from libcuda.so.1 through one X-macro table.
//
// The table names the exact exported symbol that cuda.h of CUDA 13 maps each
// API name to (cuMemAlloc -> cuMemAlloc_v2, ...). Calling the unversioned
// symbol would get the CUDA 3.x ABI.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_RUNTIME_SRC_CUDADRIVER_H
#define MXFP8TRAIN_RUNTIME_SRC_CUDADRIVER_H

#include "mxfp8train/runtime/Runtime.h"

#include <cstddef>
#include <cstdint>
#include <string>

/// The driver entry points, one per line:
///   X(apiName, exportedSymbol, kind, returnType, (parameterTypes))
/// `apiName` is the name in the CUDA documentation, used in messages;
/// `exportedSymbol` is what cuda.h maps it to; `kind` is Required (missing
/// means MXFP8RT_UNAVAILABLE), Optional (missing means MXFP8RT_NOT_SUPPORTED
/// for the calls that need it) or Fallback (an older symbol used only when
/// the newer Optional one of the same apiName is missing).
#define MXFP8RT_CUDA_DRIVER_FUNCTIONS(X)                                       \
  X(cuGetErrorName, cuGetErrorName, Required, CUresult,                        \
    (CUresult, const char **))                                                 \
  X(cuGetErrorString, cuGetErrorString, Required, CUresult,                    \
    (CUresult, const char **))                                                 \
  X(cuInit, cuInit, Required, CUresult, (unsigned int))                        \
  X(cuDriverGetVersion, cuDriverGetVersion, Required, CUresult, (int *))       \
  X(cuDeviceGet, cuDeviceGet, Required, CUresult, (CUdevice *, int))           \
  X(cuDeviceGetCount, cuDeviceGetCount, Required, CUresult, (int *))           \
  X(cuDeviceGetName, cuDeviceGetName, Required, CUresult,                      \
    (char *, int, CUdevice))                                                   \
  X(cuDeviceGetAttribute, cuDeviceGetAttribute, Required, CUresult,            \
    (int *, CUdevice_attribute, CUdevice))                                     \
  X(cuDeviceTotalMem, cuDeviceTotalMem_v2, Required, CUresult,                 \
    (size_t *, CUdevice))                                                      \
  X(cuDevicePrimaryCtxRetain, cuDevicePrimaryCtxRetain, Required, CUresult,    \
    (CUcontext *, CUdevice))                                                   \
  X(cuDevicePrimaryCtxRelease, cuDevicePrimaryCtxRelease_v2, Required,         \
    CUresult, (CUdevice))                                                      \
  X(cuCtxGetCurrent, cuCtxGetCurrent, Required, CUresult, (CUcontext *))       \
  X(cuCtxPushCurrent, cuCtxPushCurrent_v2, Required, CUresult, (CUcontext))    \
  X(cuCtxPopCurrent, cuCtxPopCurrent_v2, Required, CUresult, (CUcontext *))    \
  X(cuCtxSynchronize, cuCtxSynchronize, Required, CUresult, (void))            \
  X(cuModuleLoadDataEx, cuModuleLoadDataEx, Required, CUresult,                \
    (CUmodule *, const void *, unsigned int, CUjit_option *, void **))         \
  X(cuModuleUnload, cuModuleUnload, Required, CUresult, (CUmodule))            \
  X(cuModuleGetFunction, cuModuleGetFunction, Required, CUresult,              \
    (CUfunction *, CUmodule, const char *))                                    \
  X(cuFuncSetAttribute, cuFuncSetAttribute, Required, CUresult,                \
    (CUfunction, CUfunction_attribute, int))                                   \
  X(cuLaunchKernel, cuLaunchKernel, Required, CUresult,                        \
    (CUfunction, unsigned int, unsigned int, unsigned int, unsigned int,       \
     unsigned int, unsigned int, unsigned int, CUstream, void **, void **))    \
  X(cuLaunchKernelEx, cuLaunchKernelEx, Optional, CUresult,                    \
    (const CUlaunchConfig *, CUfunction, void **, void **))                    \
  X(cuMemAlloc, cuMemAlloc_v2, Required, CUresult, (CUdeviceptr *, size_t))    \
  X(cuMemAllocManaged, cuMemAllocManaged, Required, CUresult,                  \
    (CUdeviceptr *, size_t, unsigned int))                                     \
  X(cuMemFree, cuMemFree_v2, Required, CUresult, (CUdeviceptr))                \
  X(cuMemAllocAsync, cuMemAllocAsync, Optional, CUresult,                      \
    (CUdeviceptr *, size_t, CUstream))                                         \
  X(cuMemFreeAsync, cuMemFreeAsync, Optional, CUresult,                        \
    (CUdeviceptr, CUstream))                                                   \
  X(cuDeviceGetDefaultMemPool, cuDeviceGetDefaultMemPool, Optional, CUresult,  \
    (CUmemoryPool *, CUdevice))                                                \
  X(cuMemPoolSetAttribute, cuMemPoolSetAttribute, Optional, CUresult,          \
    (CUmemoryPool, CUmemPool_attribute, void *))                               \
  X(cuMemPoolGetAttribute, cuMemPoolGetAttribute, Optional, CUresult,          \
    (CUmemoryPool, CUmemPool_attribute, void *))                               \
  X(cuMemAllocHost, cuMemAllocHost_v2, Required, CUresult, (void **, size_t))  \
  X(cuMemFreeHost, cuMemFreeHost, Required, CUresult, (void *))                \
  X(cuMemHostRegister, cuMemHostRegister_v2, Required, CUresult,               \
    (void *, size_t, unsigned int))                                            \
  X(cuMemHostUnregister, cuMemHostUnregister, Required, CUresult, (void *))    \
  X(cuMemcpyHtoDAsync, cuMemcpyHtoDAsync_v2, Required, CUresult,               \
    (CUdeviceptr, const void *, size_t, CUstream))                             \
  X(cuMemcpyDtoHAsync, cuMemcpyDtoHAsync_v2, Required, CUresult,               \
    (void *, CUdeviceptr, size_t, CUstream))                                   \
  X(cuMemcpyDtoDAsync, cuMemcpyDtoDAsync_v2, Required, CUresult,               \
    (CUdeviceptr, CUdeviceptr, size_t, CUstream))                              \
  X(cuMemcpyAsync, cuMemcpyAsync, Required, CUresult,                          \
    (CUdeviceptr, CUdeviceptr, size_t, CUstream))                              \
  X(cuMemsetD8Async, cuMemsetD8Async, Required, CUresult,                      \
    (CUdeviceptr, unsigned char, size_t, CUstream))                            \
  X(cuMemsetD16Async, cuMemsetD16Async, Required, CUresult,                    \
    (CUdeviceptr, unsigned short, size_t, CUstream))                           \
  X(cuMemsetD32Async, cuMemsetD32Async, Required, CUresult,                    \
    (CUdeviceptr, unsigned int, size_t, CUstream))                             \
  X(cuStreamCreate, cuStreamCreate, Required, CUresult,                        \
    (CUstream *, unsigned int))                                                \
  X(cuStreamSynchronize, cuStreamSynchronize, Required, CUresult, (CUstream))  \
  X(cuStreamDestroy, cuStreamDestroy_v2, Required, CUresult, (CUstream))       \
  X(cuStreamWaitEvent, cuStreamWaitEvent, Required, CUresult,                  \
    (CUstream, CUevent, unsigned int))                                         \
  X(cuEventCreate, cuEventCreate, Required, CUresult,                          \
    (CUevent *, unsigned int))                                                 \
  X(cuEventRecord, cuEventRecord, Required, CUresult, (CUevent, CUstream))     \
  X(cuEventSynchronize, cuEventSynchronize, Required, CUresult, (CUevent))     \
  X(cuEventElapsedTime, cuEventElapsedTime_v2, Optional, CUresult,             \
    (float *, CUevent, CUevent))                                               \
  X(cuEventElapsedTime, cuEventElapsedTime, Fallback, CUresult,                \
    (float *, CUevent, CUevent))                                               \
  X(cuEventDestroy, cuEventDestroy_v2, Required, CUresult, (CUevent))          \
  X(cuTensorMapEncodeTiled, cuTensorMapEncodeTiled, Optional, CUresult,        \
    (CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *,                   \
     const cuuint64_t *, const cuuint64_t *, const cuuint32_t *,               \
     const cuuint32_t *, CUtensorMapInterleave, CUtensorMapSwizzle,            \
     CUtensorMapL2promotion, CUtensorMapFloatOOBfill))

namespace mxfp8rt {
namespace cuda {

// The subset of cuda.h the table uses. Enums are plain ints here: same size
// and calling convention as cuda.h's C enums.
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using cuuint32_t = uint32_t;
using cuuint64_t = uint64_t;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUevent = struct CUevent_st *;
using CUmemoryPool = struct CUmemPoolHandle_st *;
using CUmemPool_attribute = int;
using CUdevice_attribute = int;
using CUfunction_attribute = int;
using CUjit_option = int;
using CUtensorMapDataType = int;
using CUtensorMapInterleave = int;
using CUtensorMapSwizzle = int;
using CUtensorMapL2promotion = int;
using CUtensorMapFloatOOBfill = int;

/// cuda.h's CUtensorMap: 128 opaque bytes, 128-byte aligned.
struct alignas(128) CUtensorMap {
  cuuint64_t opaque[16];
};

/// cuda.h's CUlaunchAttribute (only the members the runtime sets).
struct CUlaunchAttribute {
  int id;
  char pad[8 - sizeof(int)];
  union {
    char pad[64];
    struct {
      unsigned int x, y, z;
    } clusterDim;
    int clusterSchedulingPolicyPreference;
  } value;
};

/// cuda.h's CUlaunchConfig.
struct CUlaunchConfig {
  unsigned int gridDimX, gridDimY, gridDimZ;
  unsigned int blockDimX, blockDimY, blockDimZ;
  unsigned int sharedMemBytes;
  CUstream hStream;
  CUlaunchAttribute *attrs;
  unsigned int numAttrs;
};

// Values from cuda.h (CUDA 13.0).
constexpr CUresult CUDA_SUCCESS = 0;
constexpr CUresult CUDA_ERROR_INVALID_VALUE = 1;
constexpr CUresult CUDA_ERROR_OUT_OF_MEMORY = 2;
constexpr CUresult CUDA_ERROR_DEINITIALIZED = 4;
constexpr CUresult CUDA_ERROR_NO_DEVICE = 100;
constexpr CUresult CUDA_ERROR_NOT_FOUND = 500;
constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1;
constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
constexpr CUdevice_attribute
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97;
constexpr CUfunction_attribute CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES =
    8;
constexpr CUjit_option CU_JIT_ERROR_LOG_BUFFER = 5;
constexpr CUjit_option CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;
constexpr CUjit_option CU_JIT_OPTIMIZATION_LEVEL = 7;
constexpr unsigned int CU_STREAM_NON_BLOCKING = 1;
constexpr unsigned int CU_EVENT_DEFAULT = 0;
constexpr unsigned int CU_EVENT_DISABLE_TIMING = 2;
constexpr unsigned int CU_MEM_ATTACH_GLOBAL = 1;
constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED = 115;
constexpr CUmemPool_attribute CU_MEMPOOL_ATTR_RELEASE_THRESHOLD = 4;
constexpr CUmemPool_attribute CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT = 5;
constexpr int CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4;
constexpr int CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE = 5;
constexpr int CU_CLUSTER_SCHEDULING_POLICY_SPREAD = 1;

/// The resolved entry points. A member is named after the exported symbol
/// (cuMemAlloc_v2) so the version called is visible at every call site.
struct Driver {
#define MXFP8RT_DECLARE_MEMBER(apiName, symbol, kind, ret, params)             \
  ret(*symbol) params = nullptr;
  MXFP8RT_CUDA_DRIVER_FUNCTIONS(MXFP8RT_DECLARE_MEMBER)
#undef MXFP8RT_DECLARE_MEMBER

  /// The path given to dlopen.
  std::string libraryPath;
  /// The dlopen handle, null when the library could not be opened.
  void *handle = nullptr;
  /// Space-separated Optional symbols the library lacks.
  std::string missingOptional;
};

/// Opens `path` and resolves the table into `driver`. On failure returns
/// MXFP8RT_UNAVAILABLE and a message: "no CUDA driver (<path>) on this
/// machine: <dlerror>" or, for a missing Required symbol, one naming it.
/// Does not call cuInit.
mxfp8rtStatus loadDriver(const std::string &path, Driver &driver,
                         std::string &message);

/// "CUDA_ERROR_X: description" for `result`, asking the driver; falls back to
/// "CUDA error <n>" when the driver does not know the code.
std::string describeResult(const Driver &driver, CUresult result);

/// True for errors that a kernel raises asynchronously and a later call
/// reports (illegal address, launch failure, trap, ...).
bool isAsynchronousKernelError(CUresult result);

} // namespace cuda
} // namespace mxfp8rt

#endif // MXFP8TRAIN_RUNTIME_SRC_CUDADRIVER_H
