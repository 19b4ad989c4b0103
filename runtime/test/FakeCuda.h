//===- FakeCuda.h - state of the fake CUDA driver ------------- -*- C++ -*-===//
//
// FakeCuda.cpp builds a stand-in for libcuda.so.1 that the tests point the
// runtime at (MXFP8RT_CUDA_LIBRARY). "Device memory" is host memory, kernels
// are recorded rather than run, except three that the fake emulates on the
// host:
//   vector_add_f32(const float *a, const float *b, float *c, uint32_t n)
//     c[i] = a[i] + b[i] for i = blockIdx.x * blockDim.x + threadIdx.x < n
//   memref_add_f32(3 x 1-D f32 memref descriptors, each expanded to
//     allocated, aligned, offset, size, stride as gpu-to-llvm passes them)
//     c[i] = a[i] + b[i] for i < c.size
//   reverse_in_smem(const float *in, float *out)
//     reverses each block's slice of blockDim.x elements
// and one that fails asynchronously:
//   fake_fault: the next synchronizing call returns CUDA_ERROR_ILLEGAL_ADDRESS
//
// PTX containing "FAKE_SYNTAX_ERROR" fails to load with a JIT log. Devices:
// 2, named "Fake CUDA Device <n>", compute capability 10.0 (FAKE_CUDA_SM=90:
// 9.0), 148 SMs, 227 KiB opt-in shared memory. The environment variable
// FAKE_CUDA_NO_DEVICE=1 makes cuInit return CUDA_ERROR_NO_DEVICE; with
// FAKE_CUDA_TRACE set, tensor-map
// encodes (their arguments), launches (whether argument 0 points to an
// encoded tensor map) and frees of encoded tensor maps go to stderr.
//
// Built three times: complete (CUDA 12.8+ entry points), -DFAKE_CUDA_OLD
// (no cuLaunchKernelEx, cuTensorMapEncodeTiled, cuEventElapsedTime_v2 or
// memory pools, like an 11.x driver) and -DFAKE_CUDA_BROKEN (no
// cuMemAlloc_v2).
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_RUNTIME_TEST_FAKECUDA_H
#define MXFP8TRAIN_RUNTIME_TEST_FAKECUDA_H

#include <cstdint>

/// What the fake driver saw; read by tests through fakeCudaGetState().
struct FakeCudaState {
  int initCalls;
  int moduleLoads;
  int moduleUnloads;
  int functionLookups;
  int launches;
  int clusterLaunches;
  int funcSetAttributeCalls;
  int elapsedTimeV1Calls;
  int elapsedTimeV2Calls;
  int tensorMapEncodes;
  int liveAllocations;
  int liveStreams;
  int liveEvents;
  int hostRegistrations;
  /// The memory-pool entry points: allocations and frees through them, the
  /// stream of the last cuMemFreeAsync, the default pool's release
  /// threshold, cuCtxSynchronize calls.
  int poolAllocations;
  int poolFrees;
  void *lastPoolFreeStream;
  uint64_t releaseThreshold;
  int contextSynchronizes;
  /// Bytes the default pool of device 0 holds (reserved: grows when live
  /// pool allocations exceed it, never shrinks, as with the release
  /// threshold at its maximum) and hands out (used), for
  /// cuMemPoolGetAttribute.
  uint64_t poolReservedBytes;
  uint64_t poolUsedBytes;
  /// Every cuEventCreate, cuEventRecord and cuEventSynchronize.
  int eventCreates;
  int eventRecords;
  int eventSynchronizes;
  /// JIT optimization level of the last module load, -1 when not given.
  int lastJitOptLevel;
  /// Device whose context was current at the last module load / launch.
  int lastLoadDevice;
  int lastLaunchDevice;
  /// Last cuFuncSetAttribute value.
  int lastFuncAttributeValue;
  /// Last launch.
  char lastKernel[64];
  unsigned int grid[3];
  unsigned int block[3];
  unsigned int cluster[3];
  unsigned int sharedBytes;
  void *stream;
  void **params;
  /// Last cuTensorMapEncodeTiled arguments.
  int tmaDataType;
  uint32_t tmaRank;
  void *tmaAddress;
  uint64_t tmaGlobalDim[5];
  uint64_t tmaGlobalStrides[5];
  uint32_t tmaBoxDim[5];
  uint32_t tmaElementStrides[5];
  int tmaInterleave, tmaSwizzle, tmaL2Promotion, tmaOobFill;
  /// Modules loaded and not unloaded yet (the leak check of
  /// LeakCheckTest.cpp reads it with the other live counts).
  int liveModules;
};

/// Exported by the fake library (extern "C").
using FakeCudaGetStateFn = const FakeCudaState *(*)();
/// Depth of the calling thread's context stack (must be 0 between calls).
using FakeCudaGetContextDepthFn = int (*)();

#endif // MXFP8TRAIN_RUNTIME_TEST_FAKECUDA_H
