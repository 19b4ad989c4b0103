//===- CudaDevice.h - the GPU an AOT function runs on -----------*- C++ -*-===//
//
// Choosing the CUDA device through the runtime (Runtime.h), checking that
// the chip a library was compiled for runs on it, and turning the
// runtime's status and last error into a LaunchError. Standard C++ over the
// runtime's C ABI.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_LAUNCH_CUDADEVICE_H
#define MXFP8TRAIN_LAUNCH_CUDADEVICE_H

#include "mxfp8train/Launch/LaunchError.h"
#include "mxfp8train/runtime/Runtime.h"

#include <string>

namespace mlir::mxfp8train::launch {

/// The device initializeCudaDevice() selected.
struct CudaDeviceInfo {
  int index = 0;
  std::string name;
  /// Compute capability major.minor.
  int major = 0, minor = 0;
};

/// A failure of the runtime call described by `what` (NoDevice when the
/// runtime is unavailable, RunFailed otherwise), with the runtime's message
/// and status name.
LaunchError getRuntimeError(mxfp8rtStatus status, const std::string &what);

/// A RunFailed error if an mgpu* call inside a loaded library recorded an
/// error since the last mxfp8rtClearLastError(); `when` says during what.
LaunchError checkRuntimeErrors(const std::string &when);

/// Initializes CUDA and selects device `gpu`; fills `info`.
LaunchError initializeCudaDevice(int gpu, CudaDeviceInfo &info);

/// Checks that code compiled for `chip` ("sm_100a", "sm_90") runs on
/// compute capability major.minor: arch-specific targets (a trailing `a`)
/// only run on exactly their architecture, others on it and later ones.
/// Chips of another form pass. `library` names the code in the message.
LaunchError checkChipRuns(const std::string &chip, int major, int minor,
                          const std::string &library);

} // namespace mlir::mxfp8train::launch

#endif // MXFP8TRAIN_LAUNCH_CUDADEVICE_H
