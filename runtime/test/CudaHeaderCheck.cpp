//===- CudaHeaderCheck.cpp - the driver table against cuda.h -- -*- C++ -*-===//
//
// Compiled only when the CUDA toolkit's cuda.h is found. For every entry of
// MXFP8RT_CUDA_DRIVER_FUNCTIONS it checks at compile time that
//  - cuda.h maps the API name to exactly the exported symbol the runtime
//    resolves (cuMemAlloc -> cuMemAlloc_v2; a Fallback entry is the older
//    name that cuda.h no longer maps to),
//  - the table's signature, read with cuda.h's types, is cuda.h's
//    declaration of that symbol;
// and that the runtime's own copies of cuda.h types and constants have the
// same layout and values. A mismatch fails the build of the tests.
//
//===----------------------------------------------------------------------===//

// Before cuda.h: the runtime's declarations must not see cuda.h's macros.
#include "CudaDriver.h"

#include <cuda.h>

#include "gtest/gtest.h"

#include <cstddef>
#include <type_traits>

namespace {

constexpr bool equal(const char *a, const char *b) {
  return *a == *b && (*a == 0 || equal(a + 1, b + 1));
}
constexpr bool mapsTo(const char *expanded, const char *symbol, bool fallback) {
  return equal(expanded, symbol) != fallback;
}

#define MXFP8RT_STRINGIFY(x) #x
#define MXFP8RT_EXPAND_AND_STRINGIFY(x) MXFP8RT_STRINGIFY(x)
#define MXFP8RT_IS_FALLBACK_Required false
#define MXFP8RT_IS_FALLBACK_Optional false
#define MXFP8RT_IS_FALLBACK_Fallback true

// `apiName` is macro-expanded here, so cuda.h's `#define cuMemAlloc
// cuMemAlloc_v2` shows; `symbol` is also expanded where not stringified,
// which for a Fallback entry yields the newer symbol, whose signature is the
// same.
#define MXFP8RT_CHECK_ENTRY(apiName, symbol, kind, ret, params)                \
  static_assert(mapsTo(MXFP8RT_EXPAND_AND_STRINGIFY(apiName), #symbol,         \
                       MXFP8RT_IS_FALLBACK_##kind),                            \
                "cuda.h does not map " #apiName " to " #symbol);               \
  static_assert(std::is_same<ret(*) params, decltype(&::symbol)>::value,       \
                "the table's signature of " #symbol " differs from cuda.h");
MXFP8RT_CUDA_DRIVER_FUNCTIONS(MXFP8RT_CHECK_ENTRY)
#undef MXFP8RT_CHECK_ENTRY

namespace rt = mxfp8rt::cuda;

static_assert(sizeof(rt::CUresult) == sizeof(::CUresult), "CUresult");
static_assert(sizeof(rt::CUdevice) == sizeof(::CUdevice), "CUdevice");
static_assert(std::is_same<rt::CUdeviceptr, ::CUdeviceptr>::value,
              "CUdeviceptr");
static_assert(sizeof(rt::CUtensorMap) == sizeof(::CUtensorMap) &&
                  alignof(rt::CUtensorMap) == alignof(::CUtensorMap),
              "CUtensorMap");
static_assert(sizeof(rt::CUlaunchAttribute) == sizeof(::CUlaunchAttribute) &&
                  offsetof(rt::CUlaunchAttribute, value) ==
                      offsetof(::CUlaunchAttribute, value),
              "CUlaunchAttribute");
static_assert(sizeof(rt::CUlaunchConfig) == sizeof(::CUlaunchConfig) &&
                  offsetof(rt::CUlaunchConfig, sharedMemBytes) ==
                      offsetof(::CUlaunchConfig, sharedMemBytes) &&
                  offsetof(rt::CUlaunchConfig, hStream) ==
                      offsetof(::CUlaunchConfig, hStream) &&
                  offsetof(rt::CUlaunchConfig, attrs) ==
                      offsetof(::CUlaunchConfig, attrs) &&
                  offsetof(rt::CUlaunchConfig, numAttrs) ==
                      offsetof(::CUlaunchConfig, numAttrs),
              "CUlaunchConfig");

#define MXFP8RT_CHECK_VALUE(name)                                              \
  static_assert(static_cast<long long>(rt::name) ==                            \
                    static_cast<long long>(::name),                            \
                #name);
MXFP8RT_CHECK_VALUE(CUDA_SUCCESS)
MXFP8RT_CHECK_VALUE(CUDA_ERROR_INVALID_VALUE)
MXFP8RT_CHECK_VALUE(CUDA_ERROR_OUT_OF_MEMORY)
MXFP8RT_CHECK_VALUE(CUDA_ERROR_DEINITIALIZED)
MXFP8RT_CHECK_VALUE(CUDA_ERROR_NO_DEVICE)
MXFP8RT_CHECK_VALUE(CUDA_ERROR_NOT_FOUND)
MXFP8RT_CHECK_VALUE(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)
MXFP8RT_CHECK_VALUE(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
MXFP8RT_CHECK_VALUE(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)
MXFP8RT_CHECK_VALUE(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)
MXFP8RT_CHECK_VALUE(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
MXFP8RT_CHECK_VALUE(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)
MXFP8RT_CHECK_VALUE(CU_JIT_ERROR_LOG_BUFFER)
MXFP8RT_CHECK_VALUE(CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
MXFP8RT_CHECK_VALUE(CU_JIT_OPTIMIZATION_LEVEL)
MXFP8RT_CHECK_VALUE(CU_STREAM_NON_BLOCKING)
MXFP8RT_CHECK_VALUE(CU_EVENT_DEFAULT)
MXFP8RT_CHECK_VALUE(CU_EVENT_DISABLE_TIMING)
MXFP8RT_CHECK_VALUE(CU_MEM_ATTACH_GLOBAL)
MXFP8RT_CHECK_VALUE(CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED)
MXFP8RT_CHECK_VALUE(CU_MEMPOOL_ATTR_RELEASE_THRESHOLD)
MXFP8RT_CHECK_VALUE(CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT)
MXFP8RT_CHECK_VALUE(CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)
MXFP8RT_CHECK_VALUE(CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE)
MXFP8RT_CHECK_VALUE(CU_CLUSTER_SCHEDULING_POLICY_SPREAD)
#undef MXFP8RT_CHECK_VALUE

// The initialization errors the runtime names itself.
static_assert(CUDA_ERROR_STUB_LIBRARY == 34 &&
                  CUDA_ERROR_DEVICE_UNAVAILABLE == 46 &&
                  CUDA_ERROR_NO_DEVICE == 100 &&
                  CUDA_ERROR_SYSTEM_DRIVER_MISMATCH == 803 &&
                  CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE == 804,
              "initialization error codes");

// The asynchronous kernel errors the runtime lists by number.
static_assert(CUDA_ERROR_ILLEGAL_ADDRESS == 700 &&
                  CUDA_ERROR_LAUNCH_TIMEOUT == 702 &&
                  CUDA_ERROR_ASSERT == 710 &&
                  CUDA_ERROR_HARDWARE_STACK_ERROR == 714 &&
                  CUDA_ERROR_ILLEGAL_INSTRUCTION == 715 &&
                  CUDA_ERROR_MISALIGNED_ADDRESS == 716 &&
                  CUDA_ERROR_INVALID_ADDRESS_SPACE == 717 &&
                  CUDA_ERROR_INVALID_PC == 718 &&
                  CUDA_ERROR_LAUNCH_FAILED == 719 &&
                  CUDA_ERROR_TENSOR_MEMORY_LEAK == 721,
              "asynchronous error codes");

} // namespace

TEST(CudaHeader, DriverTableMatchesCudaH) {
  // The checks above are static; reaching this test means they passed
  // against this cuda.h.
  EXPECT_GE(CUDA_VERSION, 12000);
  EXPECT_TRUE(
      mxfp8rt::cuda::isAsynchronousKernelError(CUDA_ERROR_MISALIGNED_ADDRESS));
  EXPECT_FALSE(mxfp8rt::cuda::isAsynchronousKernelError(
      CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES));
  std::printf("driver table checked against cuda.h %d\n", CUDA_VERSION);
}
