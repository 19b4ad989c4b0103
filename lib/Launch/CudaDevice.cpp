//===- CudaDevice.cpp - the GPU an AOT function runs on -------------------===//
//
// Implements CudaDevice.h.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Launch/CudaDevice.h"

#include <cctype>

using namespace mlir::mxfp8train::launch;

LaunchError mlir::mxfp8train::launch::getRuntimeError(mxfp8rtStatus status,
                                                      const std::string &what) {
  return makeLaunchError(status == MXFP8RT_UNAVAILABLE
                             ? LaunchErrorKind::NoDevice
                             : LaunchErrorKind::RunFailed,
                         what + ": " + mxfp8rtGetLastError() + " (" +
                             mxfp8rtGetStatusName(status) + ")");
}

LaunchError
mlir::mxfp8train::launch::checkRuntimeErrors(const std::string &when) {
  const char *error = mxfp8rtGetLastError();
  if (error && *error)
    return makeLaunchError(LaunchErrorKind::RunFailed,
                           "the GPU runtime reported an error " + when + ": " +
                               error +
                               " (the first error printed above is the cause)");
  return {};
}

LaunchError
mlir::mxfp8train::launch::initializeCudaDevice(int gpu, CudaDeviceInfo &info) {
  if (mxfp8rtStatus s = mxfp8rtInitialize())
    return getRuntimeError(s, "--device=cuda");
  int count = 0;
  if (mxfp8rtStatus s = mxfp8rtGetDeviceCount(&count))
    return getRuntimeError(s, "counting CUDA devices");
  if (gpu >= count)
    return makeLaunchError(LaunchErrorKind::BadInput,
                           "--gpu=" + std::to_string(gpu) +
                               ": the machine has " + std::to_string(count) +
                               " GPU(s)");
  if (mxfp8rtStatus s = mxfp8rtSetDevice(gpu))
    return getRuntimeError(s, "selecting GPU " + std::to_string(gpu));
  char name[256] = "";
  if (mxfp8rtStatus s = mxfp8rtGetDeviceName(gpu, name, sizeof(name)))
    return getRuntimeError(s, "querying GPU " + std::to_string(gpu));
  info.index = gpu;
  info.name = name;
  if (mxfp8rtStatus s =
          mxfp8rtGetDeviceComputeCapability(gpu, &info.major, &info.minor))
    return getRuntimeError(s, "querying GPU " + std::to_string(gpu));
  return {};
}

LaunchError
mlir::mxfp8train::launch::checkChipRuns(const std::string &chip, int major,
                                        int minor, const std::string &library) {
  if (chip.size() < 4 || chip.rfind("sm_", 0) != 0)
    return {};
  std::string digits = chip.substr(3);
  bool archSpecific = !digits.empty() && digits.back() == 'a';
  if (archSpecific)
    digits.pop_back();
  if (digits.empty() || digits.size() > 9)
    return {};
  for (char c : digits)
    if (!std::isdigit(static_cast<unsigned char>(c)))
      return {};
  int want = std::stoi(digits), have = major * 10 + minor;
  if ((archSpecific && want != have) || want > have)
    return makeLaunchError(LaunchErrorKind::BadInput,
                           library + " was compiled for " + chip +
                               ", which cannot run on this GPU (sm_" +
                               std::to_string(have) + ")");
  return {};
}
