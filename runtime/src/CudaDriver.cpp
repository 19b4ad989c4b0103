//===- CudaDriver.cpp - open libcuda, resolve entries --------- -*- C++ -*-===//
//
// dlopen of the driver library and dlsym of every entry of the X-macro table
// in CudaDriver.h, plus the formatting of CUresult values.
//
//===----------------------------------------------------------------------===//

#include "CudaDriver.h"

#include <dlfcn.h>

namespace mxfp8rt {
namespace cuda {

namespace {
enum class EntryKind { Required, Optional, Fallback };
} // namespace

/// dlerror() as a string, never null.
static std::string takeDlerror() {
  const char *error = dlerror();
  return error ? error : "unknown dlopen error";
}

mxfp8rtStatus loadDriver(const std::string &path, Driver &driver,
                         std::string &message) {
  driver = Driver();
  driver.libraryPath = path;
  dlerror();
  // RTLD_LOCAL: the driver's symbols must not satisfy anyone else's lookups.
  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    message = "no CUDA driver (" + path + ") on this machine: " + takeDlerror();
    return MXFP8RT_UNAVAILABLE;
  }
  std::string missingRequired;
  std::string firstError;
  auto resolve = [&](void *&slot, const char *symbol, EntryKind kind) {
    dlerror();
    slot = dlsym(handle, symbol);
    if (slot)
      return;
    std::string error = takeDlerror();
    if (kind == EntryKind::Required) {
      missingRequired += missingRequired.empty() ? "" : ", ";
      missingRequired += symbol;
      if (firstError.empty())
        firstError = error;
    } else if (kind == EntryKind::Optional) {
      driver.missingOptional += driver.missingOptional.empty() ? "" : " ";
      driver.missingOptional += symbol;
    }
  };
#define MXFP8RT_RESOLVE(apiName, symbol, kind, ret, params)                    \
  resolve(reinterpret_cast<void *&>(driver.symbol), #symbol, EntryKind::kind);
  MXFP8RT_CUDA_DRIVER_FUNCTIONS(MXFP8RT_RESOLVE)
#undef MXFP8RT_RESOLVE

  if (!missingRequired.empty()) {
    message = "the CUDA driver " + path + " lacks " + missingRequired +
              " (the driver is too old for this runtime): " + firstError;
    dlclose(handle);
    driver = Driver();
    driver.libraryPath = path;
    return MXFP8RT_UNAVAILABLE;
  }
  driver.handle = handle;
  return MXFP8RT_SUCCESS;
}

/// Names of the errors a driver that cannot describe itself returns at
/// initialization (the toolkit's stub library answers every call with
/// CUDA_ERROR_STUB_LIBRARY, cuGetErrorName included).
static const char *getInitializationErrorName(CUresult result) {
  switch (result) {
  case 34:
    return "CUDA_ERROR_STUB_LIBRARY: the CUDA toolkit's stub libcuda was "
           "loaded instead of the driver's (check LD_LIBRARY_PATH and "
           "MXFP8RT_CUDA_LIBRARY)";
  case 46:
    return "CUDA_ERROR_DEVICE_UNAVAILABLE";
  case 100:
    return "CUDA_ERROR_NO_DEVICE";
  case 803:
    return "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH";
  case 804:
    return "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE";
  default:
    return nullptr;
  }
}

std::string describeResult(const Driver &driver, CUresult result) {
  const char *name = nullptr;
  const char *description = nullptr;
  if (driver.cuGetErrorName &&
      driver.cuGetErrorName(result, &name) != CUDA_SUCCESS)
    name = nullptr;
  if (driver.cuGetErrorString &&
      driver.cuGetErrorString(result, &description) != CUDA_SUCCESS)
    description = nullptr;
  std::string text =
      name ? std::string(name) : "CUDA error " + std::to_string(result);
  if (!name)
    if (const char *known = getInitializationErrorName(result))
      text += std::string(" (") + known + ")";
  if (description)
    text += std::string(": ") + description;
  return text;
}

bool isAsynchronousKernelError(CUresult result) {
  switch (result) {
  case 700: // CUDA_ERROR_ILLEGAL_ADDRESS
  case 702: // CUDA_ERROR_LAUNCH_TIMEOUT
  case 710: // CUDA_ERROR_ASSERT
  case 714: // CUDA_ERROR_HARDWARE_STACK_ERROR
  case 715: // CUDA_ERROR_ILLEGAL_INSTRUCTION
  case 716: // CUDA_ERROR_MISALIGNED_ADDRESS
  case 717: // CUDA_ERROR_INVALID_ADDRESS_SPACE
  case 718: // CUDA_ERROR_INVALID_PC
  case 719: // CUDA_ERROR_LAUNCH_FAILED
  case 721: // CUDA_ERROR_TENSOR_MEMORY_LEAK
    return true;
  default:
    return false;
  }
}

} // namespace cuda
} // namespace mxfp8rt
