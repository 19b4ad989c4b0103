//===- Modules.cpp - kernel modules and launches ---------------*- C++ -*-===//
//
// Implements Runtime.h's module and launch functions: loading PTX and cubin
// images (JIT options, the per-device module cache with reference counts),
// kernel lookup, and launches with and without a cluster (shapes checked
// against the device's limits before the driver sees them, the launch
// recorded for asynchronous errors, profiled). The runtime core (errors,
// driver loading, contexts) is Runtime.cpp's, reached through
// RuntimeInternal.h.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/runtime/Runtime.h"

#include "CudaDriver.h"
#include "ModuleCache.h"
#include "Profiler.h"
#include "RuntimeInternal.h"

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

using namespace mxfp8rt;
using namespace mxfp8rt::cuda;

namespace {
/// A kernel launch configuration, for messages.
struct LaunchShape {
  unsigned int cluster[3];
  unsigned int grid[3];
  unsigned int block[3];
  unsigned int dynamicShared;
  bool hasCluster;
};
} // namespace

mxfp8rtStatus mxfp8rtModuleLoadData(const void *image, intptr_t sizeBytes,
                                    const char *name, mxfp8rtModule *module) {
  return mxfp8rtModuleLoadDataJIT(image, sizeBytes, -1, name, module);
}

mxfp8rtStatus mxfp8rtModuleLoadDataJIT(const void *image, intptr_t sizeBytes,
                                       int optLevel, const char *name,
                                       mxfp8rtModule *module) {
  static const char *api = "mxfp8rtModuleLoadData";
  CHECK_NOT_NULL(api, module);
  *module = nullptr;
  CHECK_NOT_NULL(api, image);
  if (sizeBytes <= 0)
    return recordError(MXFP8RT_INVALID_ARGUMENT,
                       std::string(api) + ": image size " +
                           std::to_string(sizeBytes) + " must be positive");
  if (optLevel < -1 || optLevel > 4)
    return recordError(MXFP8RT_INVALID_ARGUMENT,
                       std::string(api) + ": JIT optimization level " +
                           std::to_string(optLevel) +
                           " is not in [0, 4] or -1");
  int device = currentDevice;
  ENTER_CONTEXT(device);

  auto load = [&](mxfp8rtModule_st &entry, std::string &message) {
    char log[8192] = {0};
    CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                              CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                              CU_JIT_OPTIMIZATION_LEVEL};
    void *values[] = {log, reinterpret_cast<void *>(sizeof(log) - 1),
                      reinterpret_cast<void *>(
                          static_cast<uintptr_t>(optLevel < 0 ? 0 : optLevel))};
    unsigned int numOptions = optLevel < 0 ? 2 : 3;
    CUmodule native = nullptr;
    CUresult result = getDriver().cuModuleLoadDataEx(
        &native, entry.image.data(), numOptions, options, values);
    if (result != CUDA_SUCCESS) {
      message = "cuModuleLoadDataEx failed for " + entry.describe() + " on " +
                describeDevice(device) + ": " +
                describeResult(getDriver(), result);
      if (log[0])
        message += "; JIT log: " + std::string(log);
      return result == CUDA_ERROR_OUT_OF_MEMORY ? MXFP8RT_OUT_OF_MEMORY
                                                : MXFP8RT_CUDA_ERROR;
    }
    entry.native = native;
    return MXFP8RT_SUCCESS;
  };
  std::string message;
  mxfp8rtModule_st *entry = nullptr;
  mxfp8rtStatus status = getModuleCache().acquire(
      device, optLevel, image, static_cast<size_t>(sizeBytes), name, load,
      entry, message);
  if (status != MXFP8RT_SUCCESS)
    return recordError(status, status == MXFP8RT_INVALID_ARGUMENT
                                   ? std::string(api) + ": " + message
                                   : message);
  *module = entry;
  return MXFP8RT_SUCCESS;
}

mxfp8rtStatus mxfp8rtModuleUnload(mxfp8rtModule module) {
  static const char *api = "mxfp8rtModuleUnload";
  CHECK_NOT_NULL(api, module);
  if (mxfp8rtStatus status = ensureDriver())
    return status;
  CUresult unloadResult = CUDA_SUCCESS;
  std::string description;
  mxfp8rtStatus contextStatus = MXFP8RT_SUCCESS;
  auto unload = [&](mxfp8rtModule_st &entry) {
    description = entry.describe();
    // Module destructors that gpu-to-llvm registers run at process exit,
    // possibly after the driver has shut down and released every module:
    // nothing is left to unload then.
    CUcontext current = nullptr;
    if (getDriver().cuCtxGetCurrent(&current) == CUDA_ERROR_DEINITIALIZED)
      return;
    ScopedContext scopedContext(entry.device);
    contextStatus = scopedContext.getStatus();
    if (contextStatus == MXFP8RT_SUCCESS)
      unloadResult =
          getDriver().cuModuleUnload(static_cast<CUmodule>(entry.native));
  };
  std::string message;
  bool unloaded = false;
  if (mxfp8rtStatus status =
          getModuleCache().release(module, unload, unloaded, message))
    return recordError(status, std::string(api) + ": " + message);
  if (contextStatus != MXFP8RT_SUCCESS)
    return contextStatus;
  if (unloadResult != CUDA_SUCCESS)
    return failCuda(unloadResult, "cuModuleUnload", "for " + description);
  return MXFP8RT_SUCCESS;
}

mxfp8rtStatus mxfp8rtModuleGetFunction(mxfp8rtModule module, const char *name,
                                       mxfp8rtFunction *function) {
  static const char *api = "mxfp8rtModuleGetFunction";
  CHECK_NOT_NULL(api, function);
  *function = nullptr;
  CHECK_NOT_NULL(api, module);
  CHECK_NOT_NULL(api, name);
  if (mxfp8rtStatus status = ensureDriver())
    return status;
  if (!getModuleCache().contains(module))
    return recordError(MXFP8RT_INVALID_ARGUMENT,
                       std::string(api) +
                           ": unknown or already unloaded module "
                           "handle (looking up kernel '" +
                           name + "')");
  std::lock_guard<std::mutex> lock(module->functionsMutex);
  auto it = module->functions.find(name);
  if (it != module->functions.end()) {
    *function = it->second.get();
    return MXFP8RT_SUCCESS;
  }
  ScopedContext scopedContext(module->device);
  if (mxfp8rtStatus status = scopedContext.getStatus())
    return status;
  CUfunction native = nullptr;
  if (CUresult result = getDriver().cuModuleGetFunction(
          &native, static_cast<CUmodule>(module->native), name)) {
    std::string context = "looking up kernel '" + std::string(name) + "' in " +
                          module->describe();
    return failCuda(result, "cuModuleGetFunction", context,
                    result == CUDA_ERROR_NOT_FOUND ? MXFP8RT_NOT_FOUND
                                                   : MXFP8RT_CUDA_ERROR);
  }
  auto entry = std::make_unique<mxfp8rtFunction_st>();
  entry->native = native;
  entry->name = name;
  entry->module = module;
  *function = entry.get();
  module->functions.emplace(name, std::move(entry));
  return MXFP8RT_SUCCESS;
}

mxfp8rtStatus mxfp8rtGetModuleCacheStats(mxfp8rtModuleCacheStats *stats) {
  CHECK_NOT_NULL("mxfp8rtGetModuleCacheStats", stats);
  *stats = getModuleCache().getStats();
  return MXFP8RT_SUCCESS;
}

/// "grid 4x1x1, block 256x1x1, 0 bytes of dynamic shared memory".
static std::string describeShape(const LaunchShape &shape) {
  auto dims = [](const unsigned int *d) {
    return std::to_string(d[0]) + "x" + std::to_string(d[1]) + "x" +
           std::to_string(d[2]);
  };
  std::string text;
  if (shape.hasCluster)
    text += "cluster " + dims(shape.cluster) + ", ";
  return text + "grid " + dims(shape.grid) + ", block " + dims(shape.block) +
         ", " + bytes(shape.dynamicShared) + " of dynamic shared memory";
}

/// Converts and validates launch dimensions.
static mxfp8rtStatus checkDims(const char *api, const char *what,
                               const intptr_t *values, unsigned int *out) {
  for (int i = 0; i < 3; ++i) {
    if (values[i] < 1 || values[i] > std::numeric_limits<unsigned int>::max())
      return recordError(MXFP8RT_INVALID_ARGUMENT,
                         std::string(api) + ": " + what + " dimension " +
                             "xyz"[i] + " is " + std::to_string(values[i]) +
                             ", expected 1 to 4294967295");
    out[i] = static_cast<unsigned int>(values[i]);
  }
  return MXFP8RT_SUCCESS;
}

static CUresult launchCluster(const LaunchShape &shape, CUfunction native,
                              CUstream cuStream, void **params);

/// The common path of both launch entry points.
static mxfp8rtStatus launch(const char *api, mxfp8rtFunction function,
                            const intptr_t *cluster, const intptr_t *grid,
                            const intptr_t *block, intptr_t dynamicShared,
                            mxfp8rtStream stream, void **params) {
  CHECK_NOT_NULL(api, function);
  LaunchShape shape = {};
  shape.hasCluster = cluster != nullptr;
  if (cluster)
    if (mxfp8rtStatus status =
            checkDims(api, "cluster", cluster, shape.cluster))
      return status;
  if (mxfp8rtStatus status = checkDims(api, "grid", grid, shape.grid))
    return status;
  if (mxfp8rtStatus status = checkDims(api, "block", block, shape.block))
    return status;
  if (dynamicShared < 0 || dynamicShared > std::numeric_limits<int>::max())
    return recordError(MXFP8RT_INVALID_ARGUMENT,
                       std::string(api) + ": dynamic shared memory size " +
                           std::to_string(dynamicShared) + " is out of range");
  shape.dynamicShared = static_cast<unsigned int>(dynamicShared);
  if (cluster)
    for (int i = 0; i < 3; ++i)
      if (shape.grid[i] % shape.cluster[i] != 0)
        return recordError(
            MXFP8RT_INVALID_ARGUMENT,
            std::string(api) + ": grid dimension " + "xyz"[i] + " (" +
                std::to_string(shape.grid[i]) +
                ") is not a multiple of the cluster dimension (" +
                std::to_string(shape.cluster[i]) + ") for kernel '" +
                function->name + "'");
  mxfp8rtModule_st *module = function->module;
  ENTER_CONTEXT(module->device);
  if (cluster && !getDriver().cuLaunchKernelEx)
    return recordError(MXFP8RT_NOT_SUPPORTED,
                       std::string(api) +
                           ": the CUDA driver lacks cuLaunchKernelEx "
                           "(needs CUDA 11.8 or newer) to launch "
                           "kernel '" +
                           function->name + "' with clusters");
  auto where = [&] {
    return "for kernel '" + function->name + "' in " + module->describe() +
           " on " + describeDevice(module->device) + " with " +
           describeShape(shape);
  };

  // Kernels may use at most 48 KiB of dynamic shared memory unless they opt
  // in to more, up to the device's limit.
  if (dynamicShared > function->dynamicSharedLimit.load()) {
    CUresult result = getDriver().cuFuncSetAttribute(
        static_cast<CUfunction>(function->native),
        CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
        static_cast<int>(dynamicShared));
    if (result != CUDA_SUCCESS) {
      int optin = 0;
      std::string limit;
      if (getDriver().cuDeviceGetAttribute(
              &optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
              getDeviceHandle(module->device)) == CUDA_SUCCESS)
        limit = " (the device allows at most " + bytes(optin) +
                " of shared memory per block, static included)";
      return failCuda(result,
                      "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)",
                      where() + limit);
    }
    function->dynamicSharedLimit.store(dynamicShared);
  }

  recordLaunch("kernel '" + function->name + "' in module '" + module->name +
               "' with " + describeShape(shape));

  CUfunction native = static_cast<CUfunction>(function->native);
  CUstream cuStream = reinterpret_cast<CUstream>(stream);
  profile::LaunchToken token =
      profile::beginLaunch(module->device, function->name, cuStream);
  CUresult result =
      cluster ? launchCluster(shape, native, cuStream, params)
              : getDriver().cuLaunchKernel(
                    native, shape.grid[0], shape.grid[1], shape.grid[2],
                    shape.block[0], shape.block[1], shape.block[2],
                    shape.dynamicShared, cuStream, params, nullptr);
  profile::endLaunch(token, function->name, result == CUDA_SUCCESS);
  if (result != CUDA_SUCCESS)
    return failCuda(result, cluster ? "cuLaunchKernelEx" : "cuLaunchKernel",
                    where());
  return MXFP8RT_SUCCESS;
}

/// cuLaunchKernelEx with the cluster shape of `shape` (spread scheduling).
static CUresult launchCluster(const LaunchShape &shape, CUfunction native,
                              CUstream cuStream, void **params) {
  CUlaunchAttribute attributes[2];
  std::memset(attributes, 0, sizeof(attributes));
  attributes[0].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attributes[0].value.clusterDim.x = shape.cluster[0];
  attributes[0].value.clusterDim.y = shape.cluster[1];
  attributes[0].value.clusterDim.z = shape.cluster[2];
  attributes[1].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE;
  attributes[1].value.clusterSchedulingPolicyPreference =
      CU_CLUSTER_SCHEDULING_POLICY_SPREAD;
  CUlaunchConfig config;
  std::memset(&config, 0, sizeof(config));
  config.gridDimX = shape.grid[0];
  config.gridDimY = shape.grid[1];
  config.gridDimZ = shape.grid[2];
  config.blockDimX = shape.block[0];
  config.blockDimY = shape.block[1];
  config.blockDimZ = shape.block[2];
  config.sharedMemBytes = shape.dynamicShared;
  config.hStream = cuStream;
  config.attrs = attributes;
  config.numAttrs = 2;
  return getDriver().cuLaunchKernelEx(&config, native, params, nullptr);
}

mxfp8rtStatus mxfp8rtLaunchKernel(mxfp8rtFunction function, intptr_t gridX,
                                  intptr_t gridY, intptr_t gridZ,
                                  intptr_t blockX, intptr_t blockY,
                                  intptr_t blockZ, intptr_t dynamicSharedBytes,
                                  mxfp8rtStream stream, void **params) {
  const intptr_t grid[] = {gridX, gridY, gridZ};
  const intptr_t block[] = {blockX, blockY, blockZ};
  return launch("mxfp8rtLaunchKernel", function, nullptr, grid, block,
                dynamicSharedBytes, stream, params);
}

mxfp8rtStatus mxfp8rtLaunchClusterKernel(
    mxfp8rtFunction function, intptr_t clusterX, intptr_t clusterY,
    intptr_t clusterZ, intptr_t gridX, intptr_t gridY, intptr_t gridZ,
    intptr_t blockX, intptr_t blockY, intptr_t blockZ,
    intptr_t dynamicSharedBytes, mxfp8rtStream stream, void **params) {
  const intptr_t cluster[] = {clusterX, clusterY, clusterZ};
  const intptr_t grid[] = {gridX, gridY, gridZ};
  const intptr_t block[] = {blockX, blockY, blockZ};
  return launch("mxfp8rtLaunchClusterKernel", function, cluster, grid, block,
                dynamicSharedBytes, stream, params);
}
