//===- Device.h - where mxfp8-run runs --------------------------*- C++ -*-===//
//
// The device choice of mxfp8-run (--device, --gpu, --chip): the CPU, or a
// CUDA GPU the GPU lowering has a target for, with the line that says which
// and why (`device: cuda (NAME, sm_XY, code for sm_...)`, `device: cpu
// (why)`).
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_RUNNER_DEVICE_H
#define MXFP8TRAIN_RUNNER_DEVICE_H

#include "mxfp8train/ExecutionEngine/Executable.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace mlir::mxfp8train {

/// What the user asks for.
enum class DeviceRequest {
  /// CUDA if a GPU is usable and targeted, else the CPU.
  Auto,
  CPU,
  /// CUDA or an error.
  CUDA,
};

/// The device chosen.
struct DeviceSelection {
  ExecutionDevice device = ExecutionDevice::CPU;
  /// The NVVM chip of the GPU lowering (CUDA only).
  std::string chip;
  /// `device: ...`, without a newline.
  std::string line;
};

/// Chooses the device for `request` on GPU `gpu`, with `chip` (empty: the
/// GPU's) as the chip of the GPU lowering. Fails for a `chip` that is not a
/// GPU target, and for CUDA requested without a usable, targeted GPU; Auto
/// falls back to the CPU and says why.
llvm::Expected<DeviceSelection> selectDevice(DeviceRequest request, int gpu,
                                             llvm::StringRef chip);

} // namespace mlir::mxfp8train

#endif // MXFP8TRAIN_RUNNER_DEVICE_H
