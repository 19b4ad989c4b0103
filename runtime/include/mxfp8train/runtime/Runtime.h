//===- Runtime.h - mxfp8train thin CUDA runtime, C ABI ---------- -*- C -*-===//
//
// The runtime loads compiled kernels (cubin, fatbin or PTX) through the CUDA
// driver API and launches them. libcuda.so.1 is opened with dlopen on first
// use, so the library builds, links and loads on machines without a GPU; there
// every entry point that needs the driver returns MXFP8RT_UNAVAILABLE and
// mxfp8rtGetLastError() says why.
//
// Two layers live in this header:
//  - the mxfp8rt* API: every function returns an mxfp8rtStatus and fills
//    out-parameters; on failure mxfp8rtGetLastError() holds a message naming
//    the driver call, the kernel and module where relevant, and the CUDA
//    error name and description;
//  - the mgpu* ABI that upstream MLIR's `gpu-to-llvm` lowering emits calls to
//    (same names and signatures as LLVM 22's CudaRuntimeWrappers), built on
//    the first layer. That ABI has no error return: on failure these
//    functions record the error (mxfp8rtGetLastError), print it to stderr
//    once per distinct message and return a null handle.
//
// Sizes that come from MLIR `index` values are intptr_t. Device pointers are
// `void *`. Handles are opaque.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_RUNTIME_RUNTIME_H
#define MXFP8TRAIN_RUNTIME_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifndef __cplusplus
#include <stdbool.h>
#endif

#if defined(_WIN32)
#define MXFP8RT_EXPORT __declspec(dllexport)
#else
#define MXFP8RT_EXPORT __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

//===----------------------------------------------------------------------===//
// Status and errors
//===----------------------------------------------------------------------===//

/// Result of every mxfp8rt* function.
typedef enum mxfp8rtStatus {
  /// The call succeeded.
  MXFP8RT_SUCCESS = 0,
  /// No CUDA driver (libcuda.so.1) or no CUDA GPU on this machine, or the
  /// driver is too old for an entry point the runtime needs.
  MXFP8RT_UNAVAILABLE = 1,
  /// An argument is invalid (null pointer, negative or zero size where a
  /// positive one is required, unknown handle, out-of-range device).
  MXFP8RT_INVALID_ARGUMENT = 2,
  /// A CUDA driver call failed; the message names the call and the error.
  MXFP8RT_CUDA_ERROR = 3,
  /// A kernel name was not found in a module.
  MXFP8RT_NOT_FOUND = 4,
  /// A device or pinned-host allocation failed for lack of memory.
  MXFP8RT_OUT_OF_MEMORY = 5,
  /// The driver lacks an optional entry point this call needs (for example
  /// cuTensorMapEncodeTiled before CUDA 12).
  MXFP8RT_NOT_SUPPORTED = 6,
} mxfp8rtStatus;

/// The message of the most recent failed mxfp8rt* or mgpu* call on the
/// calling thread, or "" when none failed since the thread started or since
/// mxfp8rtClearLastError(). Successful calls leave it unchanged. The pointer
/// stays valid until the next runtime call on this thread.
MXFP8RT_EXPORT const char *mxfp8rtGetLastError(void);

/// Resets the calling thread's message to "".
MXFP8RT_EXPORT void mxfp8rtClearLastError(void);

/// The enumerator name of `status`, e.g. "MXFP8RT_UNAVAILABLE".
MXFP8RT_EXPORT const char *mxfp8rtGetStatusName(mxfp8rtStatus status);

//===----------------------------------------------------------------------===//
// Initialization and devices
//===----------------------------------------------------------------------===//

/// Opens libcuda.so.1 (or the file named by the MXFP8RT_CUDA_LIBRARY
/// environment variable), resolves the driver entry points and calls cuInit.
/// Idempotent: the first call decides, later calls return the same status and
/// message. Every other entry point that needs the driver calls it.
/// Returns MXFP8RT_UNAVAILABLE with "no CUDA driver (libcuda.so.1) on this
/// machine: <dlerror>" when the library cannot be opened, and with a message
/// naming cuInit or cuDeviceGetCount when there is no GPU.
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtInitialize(void);

/// 1 when mxfp8rtInitialize() succeeds (a driver and at least one GPU), else
/// 0. Sets the last error like mxfp8rtInitialize() when it returns 0.
MXFP8RT_EXPORT int mxfp8rtIsAvailable(void);

/// The driver's CUDA version, e.g. 13000 for CUDA 13.0.
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtGetDriverVersion(int *version);

/// Number of CUDA devices.
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtGetDeviceCount(int *count);

/// Selects the device used by later calls on the calling thread (default 0).
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtSetDevice(int device);

/// The calling thread's device (0 unless mxfp8rtSetDevice was called).
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtGetDevice(int *device);

/// Copies the NUL-terminated name of `device` into `name` (at most
/// `capacity` bytes including the NUL; `capacity` must be positive).
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtGetDeviceName(int device, char *name,
                                                  intptr_t capacity);

/// Compute capability of `device`, e.g. 9 and 0 for sm_90.
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtGetDeviceComputeCapability(int device,
                                                               int *major,
                                                               int *minor);

/// Number of streaming multiprocessors of `device`.
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtGetDeviceMultiProcessorCount(int device,
                                                                 int *count);

/// Largest shared memory per block a kernel can opt into on `device`.
MXFP8RT_EXPORT mxfp8rtStatus
mxfp8rtGetDeviceMaxSharedMemoryPerBlock(int device, int *bytes);

/// Total global memory of `device` in bytes.
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtGetDeviceTotalMemory(int device,
                                                         size_t *bytes);

/// Any attribute: `attribute` is a CUdevice_attribute value from cuda.h.
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtGetDeviceAttribute(int device,
                                                       int attribute,
                                                       int *value);

/// Waits for all work on the current device (cuCtxSynchronize).
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtDeviceSynchronize(void);

//===----------------------------------------------------------------------===//
// Modules and kernels
//===----------------------------------------------------------------------===//

/// A loaded module. Loads are cached by content: loading the same bytes on
/// the same device with the same JIT level returns the same handle and
/// increments its reference count.
typedef struct mxfp8rtModule_st *mxfp8rtModule;
/// A kernel of a module; valid until its module is unloaded for good.
typedef struct mxfp8rtFunction_st *mxfp8rtFunction;
/// A CUDA stream (CUstream). Null is the device's default stream.
typedef struct mxfp8rtStream_st *mxfp8rtStream;
/// A CUDA event (CUevent).
typedef struct mxfp8rtEvent_st *mxfp8rtEvent;

/// Loads a cubin, fatbin or PTX image of `sizeBytes` bytes on the current
/// device. PTX is compiled by the driver; its error log is part of the
/// message on failure. `name` (nullable) names the module in messages.
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtModuleLoadData(const void *image,
                                                   intptr_t sizeBytes,
                                                   const char *name,
                                                   mxfp8rtModule *module);

/// Like mxfp8rtModuleLoadData with a PTX JIT optimization level (0-4, or -1
/// for the driver's default). The level is part of the cache key.
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtModuleLoadDataJIT(const void *image,
                                                      intptr_t sizeBytes,
                                                      int optLevel,
                                                      const char *name,
                                                      mxfp8rtModule *module);

/// Drops one reference; the driver module and its functions go away with the
/// last one. An unknown or already released handle is
/// MXFP8RT_INVALID_ARGUMENT.
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtModuleUnload(mxfp8rtModule module);

/// Looks up kernel `name` (its PTX `.entry` name). MXFP8RT_NOT_FOUND when the
/// module has no such kernel. Repeated lookups return the same handle without
/// a driver call.
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtModuleGetFunction(
    mxfp8rtModule module, const char *name, mxfp8rtFunction *function);

/// Counters of the module cache, for tests and diagnostics.
typedef struct mxfp8rtModuleCacheStats {
  /// Modules currently loaded (distinct images).
  int64_t liveModules;
  /// Loads that went to the driver.
  int64_t driverLoads;
  /// Loads answered from the cache.
  int64_t cacheHits;
} mxfp8rtModuleCacheStats;

/// Fills `stats`.
MXFP8RT_EXPORT mxfp8rtStatus
mxfp8rtGetModuleCacheStats(mxfp8rtModuleCacheStats *stats);

/// Launches `function` on `stream` with a grid of gridX*gridY*gridZ blocks of
/// blockX*blockY*blockZ threads and `dynamicSharedBytes` of dynamic shared
/// memory; raises the kernel's dynamic shared memory limit when needed (above
/// 48 KiB). `params` points to one pointer per kernel argument, each
/// pointing to the argument's value (cuLaunchKernel's kernelParams).
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtLaunchKernel(
    mxfp8rtFunction function, intptr_t gridX, intptr_t gridY, intptr_t gridZ,
    intptr_t blockX, intptr_t blockY, intptr_t blockZ,
    intptr_t dynamicSharedBytes, mxfp8rtStream stream, void **params);

/// Like mxfp8rtLaunchKernel with thread block clusters of
/// clusterX*clusterY*clusterZ blocks (sm_90+, cuLaunchKernelEx). The grid
/// dimensions must be multiples of the cluster dimensions.
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtLaunchClusterKernel(
    mxfp8rtFunction function, intptr_t clusterX, intptr_t clusterY,
    intptr_t clusterZ, intptr_t gridX, intptr_t gridY, intptr_t gridZ,
    intptr_t blockX, intptr_t blockY, intptr_t blockZ,
    intptr_t dynamicSharedBytes, mxfp8rtStream stream, void **params);

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

/// Allocates `sizeBytes` of device memory on the current device. A size of 0
/// succeeds with a null pointer (as cudaMalloc does); negative sizes are
/// invalid.
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtMemAlloc(intptr_t sizeBytes,
                                             void **devicePtr);

/// Allocates managed (host-and-device) memory, as mgpuMemAlloc does for
/// `host_shared` allocations. Same size rules as mxfp8rtMemAlloc.
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtMemAllocManaged(intptr_t sizeBytes,
                                                    void **ptr);

/// Frees device or managed memory; null is a no-op.
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtMemFree(void *devicePtr);

/// Allocates `sizeBytes` of device memory on the current device, ordered on
/// `stream` (null: the legacy default stream, and the call returns once the
/// memory is usable on every stream). The memory comes from the device's
/// default memory pool, which keeps freed memory for later allocations
/// (its release threshold is raised to the maximum on first use), so a
/// training step that allocates and frees the same buffers every call
/// reaches no cuMemAlloc/cuMemFree after the first (cuMemFree synchronizes
/// the device). Where the driver or device has no memory pools, or
/// MXFP8RT_ALLOCATOR=device is set, this is mxfp8rtMemAlloc. Free with
/// mxfp8rtMemFreeAsync. Same size rules as mxfp8rtMemAlloc.
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtMemAllocAsync(intptr_t sizeBytes,
                                                  mxfp8rtStream stream,
                                                  void **devicePtr);

/// Frees memory of mxfp8rtMemAllocAsync ordered on `stream`: the memory may
/// be reused by work ordered after the free on that stream, so every use
/// of it must be ordered before (the caller's contract, as cudaFreeAsync).
/// A null stream frees with the legacy semantics: after every stream of the
/// context is idle. Memory of mxfp8rtMemAlloc goes to mxfp8rtMemFree; null
/// is a no-op.
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtMemFreeAsync(void *devicePtr,
                                                 mxfp8rtStream stream);

/// Allocates page-locked host memory (fast asynchronous copies). Same size
/// rules as mxfp8rtMemAlloc.
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtHostAlloc(intptr_t sizeBytes,
                                              void **hostPtr);

/// Frees memory from mxfp8rtHostAlloc; null is a no-op.
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtHostFree(void *hostPtr);

/// Page-locks `sizeBytes` (positive) of existing host memory.
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtHostRegister(void *hostPtr,
                                                 intptr_t sizeBytes);

/// Undoes mxfp8rtHostRegister.
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtHostUnregister(void *hostPtr);

/// Asynchronous copies on `stream`. A size of 0 is a no-op; otherwise both
/// pointers must be non-null. Synchronize the stream before reading the
/// destination on the host.
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtMemcpyHtoD(void *dstDevice,
                                               const void *srcHost,
                                               intptr_t sizeBytes,
                                               mxfp8rtStream stream);
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtMemcpyDtoH(void *dstHost,
                                               const void *srcDevice,
                                               intptr_t sizeBytes,
                                               mxfp8rtStream stream);
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtMemcpyDtoD(void *dstDevice,
                                               const void *srcDevice,
                                               intptr_t sizeBytes,
                                               mxfp8rtStream stream);
/// Copy in any direction; the driver infers it from the addresses (unified
/// addressing).
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtMemcpy(void *dst, const void *src,
                                           intptr_t sizeBytes,
                                           mxfp8rtStream stream);

/// Asynchronous fills of `count` 8-, 16- or 32-bit elements on `stream`. A
/// count of 0 is a no-op.
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtMemsetD8(void *dstDevice, uint8_t value,
                                             intptr_t count,
                                             mxfp8rtStream stream);
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtMemsetD16(void *dstDevice, uint16_t value,
                                              intptr_t count,
                                              mxfp8rtStream stream);
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtMemsetD32(void *dstDevice, uint32_t value,
                                              intptr_t count,
                                              mxfp8rtStream stream);

//===----------------------------------------------------------------------===//
// Streams and events
//===----------------------------------------------------------------------===//

/// Creates a non-blocking stream on the current device.
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtStreamCreate(mxfp8rtStream *stream);
/// Waits for all work queued on `stream`.
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtStreamSynchronize(mxfp8rtStream stream);
/// Destroys `stream` (non-null) once its work is done.
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtStreamDestroy(mxfp8rtStream stream);
/// Makes later work on `stream` wait for `event`.
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtStreamWaitEvent(mxfp8rtStream stream,
                                                    mxfp8rtEvent event);

/// Creates an event; with `enableTiming` zero the event cannot be timed but
/// is cheaper.
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtEventCreate(mxfp8rtEvent *event,
                                                int enableTiming);
/// Records `event` on `stream`.
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtEventRecord(mxfp8rtEvent event,
                                                mxfp8rtStream stream);
/// Waits until `event` has completed.
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtEventSynchronize(mxfp8rtEvent event);
/// Milliseconds between two recorded, completed, timing-enabled events.
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtEventElapsedTime(float *milliseconds,
                                                     mxfp8rtEvent start,
                                                     mxfp8rtEvent end);
/// Destroys `event` (non-null).
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtEventDestroy(mxfp8rtEvent event);

//===----------------------------------------------------------------------===//
// Profiling
//===----------------------------------------------------------------------===//
//
// While profiling is on, every kernel launch (mxfp8rtLaunchKernel,
// mxfp8rtLaunchClusterKernel and so the mgpu* launches) records a pair of
// timing events on its stream around the launch, keyed by the kernel's name
// (fills and copies too, keyed by their driver call: "cuMemsetD32Async");
// the events come from a pool that the report refills, so a warm profiler
// creates none. Fills, copies, allocations (with the stream-ordered pool's
// hits and misses) and host synchronizations are counted. Nothing waits for
// the events until a report asks for the times (mxfp8rtProfileGetKernels,
// mxfp8rtProfileGetSummary, mxfp8rtProfilePrint), so profiling adds no host
// synchronization to the work it measures. MXFP8RT_PROFILE=1 in the
// environment turns profiling on from the start and prints the report to
// stderr at process exit. docs/runtime.md "Profiling".

/// Turns profiling on (nonzero) or off. Records already taken stay until
/// mxfp8rtProfileReset.
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtProfileEnable(int enable);

/// 1 while profiling is on, else 0.
MXFP8RT_EXPORT int mxfp8rtProfileIsEnabled(void);

/// Drops every record and counter (pending events go back to the pool
/// untimed). Names returned by mxfp8rtProfileGetKernels become invalid.
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtProfileReset(void);

/// Destroys the profiler's pooled CUDA events (pending ones untimed); the
/// next profiled operations create new ones. For programs that end
/// profiling and want no driver object left (the runtime tests' leak
/// check).
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtProfileReleaseEvents(void);

/// The totals since the last reset.
typedef struct mxfp8rtProfileSummary {
  /// Kernel launches and the sum of their event-timed milliseconds.
  int64_t launches;
  double kernelMs;
  /// Event-timed milliseconds of the fills and copies.
  double memsetMs;
  double memcpyMs;
  /// Launches, fills and copies whose time could not be measured (a failed
  /// event record or query); their milliseconds are in no total.
  int64_t untimedLaunches;
  /// mxfp8rtMemsetD8/D16/D32 calls and the bytes they filled.
  int64_t memsets;
  int64_t memsetBytes;
  /// mxfp8rtMemcpy* calls and the bytes they copied.
  int64_t memcpys;
  int64_t memcpyBytes;
  /// Device allocations: all of them (mxfp8rtMemAlloc, mxfp8rtMemAllocAsync,
  /// managed), those of the stream-ordered pool, and of these the ones the
  /// pool served from memory it held (hits) or had to grow for (misses);
  /// poolHits + poolMisses < poolAllocations when the driver cannot say.
  int64_t allocations;
  int64_t allocatedBytes;
  int64_t poolAllocations;
  int64_t poolHits;
  int64_t poolMisses;
  /// Frees, and of these the cuMemFree calls (each synchronizes the device).
  int64_t frees;
  int64_t deviceFrees;
  /// Host waits the runtime made: stream, event and device synchronizations,
  /// including those inside frees and null-stream pool allocations.
  int64_t hostSynchronizations;
  /// Timing events created for profiling since the last reset (0 once the
  /// pool is warm).
  int64_t eventsCreated;
} mxfp8rtProfileSummary;

/// Waits for the pending launch events, adds their times in and fills
/// `summary`.
MXFP8RT_EXPORT mxfp8rtStatus
mxfp8rtProfileGetSummary(mxfp8rtProfileSummary *summary);

/// One kernel name's launches (or one kind of fill or copy) since the last
/// reset.
typedef struct mxfp8rtProfileKernel {
  /// The name given to mxfp8rtModuleGetFunction, or the driver call of a
  /// fill or copy ("cuMemsetD32Async"); valid until the next
  /// mxfp8rtProfileReset.
  const char *name;
  int64_t launches;
  /// Sum, smallest and largest of the event-timed milliseconds.
  double totalMs;
  double minMs;
  double maxMs;
} mxfp8rtProfileKernel;

/// Waits for the pending launch events and writes up to `capacity` kernels,
/// largest total time first (ties by name), to `kernels`; `*count` is the
/// number of distinct kernel names (may exceed `capacity`; `kernels` may be
/// null when `capacity` is 0).
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtProfileGetKernels(
    mxfp8rtProfileKernel *kernels, intptr_t capacity, intptr_t *count);

/// Writes the report as text to `file` (a FILE *): one row per kernel name
/// and kind of fill or copy (launches, total ms, mean ms, share of the
/// timed total), largest total first, then the totals and counters.
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtProfilePrint(void *file);

//===----------------------------------------------------------------------===//
// TMA descriptors (sm_90+)
//===----------------------------------------------------------------------===//

/// Encodes a tiled TMA descriptor into `tensorMap` (128 bytes, 64-byte
/// aligned host memory) with cuTensorMapEncodeTiled; the enum arguments take
/// the CUtensorMap* values of cuda.h. MXFP8RT_NOT_SUPPORTED before CUDA 12.
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtTensorMapEncodeTiled(
    void *tensorMap, int dataType, uint32_t rank, void *globalAddress,
    const uint64_t *globalDim, const uint64_t *globalStrides,
    const uint32_t *boxDim, const uint32_t *elementStrides, int interleave,
    int swizzle, int l2Promotion, int oobFill);

//===----------------------------------------------------------------------===//
// Upstream MLIR `gpu-to-llvm` ABI (LLVM 22 CudaRuntimeWrappers)
//===----------------------------------------------------------------------===//
//
// Handles are the mxfp8rt ones above behind `void *`. On failure: null handle
// (or nothing), error recorded for mxfp8rtGetLastError(), message printed to
// stderr once per distinct text.
//
//===----------------------------------------------------------------------===//

/// Loads a cubin or fatbin of `gpuBlobSize` bytes (gpu.binary, bin format).
MXFP8RT_EXPORT void *mgpuModuleLoad(void *data, size_t gpuBlobSize);
/// Loads NUL-terminated PTX (gpu.binary, assembly format) at `optLevel`.
MXFP8RT_EXPORT void *mgpuModuleLoadJIT(void *data, int optLevel);
MXFP8RT_EXPORT void mgpuModuleUnload(void *module);
MXFP8RT_EXPORT void *mgpuModuleGetFunction(void *module, const char *name);
/// `paramsCount` is informational; `extra` must be null.
MXFP8RT_EXPORT void mgpuLaunchKernel(void *function, intptr_t gridX,
                                     intptr_t gridY, intptr_t gridZ,
                                     intptr_t blockX, intptr_t blockY,
                                     intptr_t blockZ, int32_t smem,
                                     void *stream, void **params, void **extra,
                                     size_t paramsCount);
/// The arguments LLVM 22's lowering passes (it passes no parameter count).
MXFP8RT_EXPORT void
mgpuLaunchClusterKernel(void *function, intptr_t clusterX, intptr_t clusterY,
                        intptr_t clusterZ, intptr_t gridX, intptr_t gridY,
                        intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                        intptr_t blockZ, int32_t smem, void *stream,
                        void **params, void **extra);
MXFP8RT_EXPORT void *mgpuStreamCreate(void);
MXFP8RT_EXPORT void mgpuStreamDestroy(void *stream);
MXFP8RT_EXPORT void mgpuStreamSynchronize(void *stream);
MXFP8RT_EXPORT void mgpuStreamWaitEvent(void *stream, void *event);
/// Creates an event without timing, as upstream does.
MXFP8RT_EXPORT void *mgpuEventCreate(void);
MXFP8RT_EXPORT void mgpuEventDestroy(void *event);
MXFP8RT_EXPORT void mgpuEventSynchronize(void *event);
MXFP8RT_EXPORT void mgpuEventRecord(void *event, void *stream);
/// Device memory, or managed memory when `isHostShared`. Synchronous.
MXFP8RT_EXPORT void *mgpuMemAlloc(uint64_t sizeBytes, void *stream,
                                  bool isHostShared);
MXFP8RT_EXPORT void mgpuMemFree(void *ptr, void *stream);
MXFP8RT_EXPORT void mgpuMemcpy(void *dst, void *src, size_t sizeBytes,
                               void *stream);
MXFP8RT_EXPORT void mgpuMemset32(void *dst, unsigned int value, size_t count,
                                 void *stream);
MXFP8RT_EXPORT void mgpuMemset16(void *dst, unsigned short value, size_t count,
                                 void *stream);
MXFP8RT_EXPORT void mgpuMemHostRegister(void *ptr, uint64_t sizeBytes);
/// `descriptor` is a ranked memref descriptor of rank `rank` (dense).
MXFP8RT_EXPORT void mgpuMemHostRegisterMemRef(int64_t rank, void *descriptor,
                                              int64_t elementSizeBytes);
MXFP8RT_EXPORT void mgpuMemHostUnregister(void *ptr);
MXFP8RT_EXPORT void mgpuMemHostUnregisterMemRef(int64_t rank, void *descriptor,
                                                int64_t elementSizeBytes);
/// Selects the device for later calls on the calling thread.
MXFP8RT_EXPORT void mgpuSetDefaultDevice(int32_t device);
/// Frees the cached device copies of mgpuTensorMapEncodeTiledMemref (every
/// device). Call it when no launched kernel still reads them (after a
/// synchronization); later encodes make new copies. Returns the first
/// failure, after trying every copy.
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtReleaseTensorMaps(void);
/// Encodes a tiled TMA descriptor of the ranked memref `rankedDescriptor`
/// (rank 1-5) with box `boxDims` (outermost first) and returns a device copy
/// of it. Enum arguments as in mxfp8rtTensorMapEncodeTiled. Copies are
/// cached by device and content (up to 4096): the same map again costs no
/// allocation, copy or host wait; `mgpuMemFree` of a cached copy does
/// nothing, mxfp8rtReleaseTensorMaps frees them all.
MXFP8RT_EXPORT void *
mgpuTensorMapEncodeTiledMemref(int64_t tensorRank, void *rankedDescriptor,
                               int64_t tensorDataType, int64_t interleave,
                               int64_t swizzle, int64_t l2Promotion,
                               int64_t oobFill, int64_t *boxDims);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // MXFP8TRAIN_RUNTIME_RUNTIME_H
