//===- Device.cpp - where mxfp8-run runs ------------------------*- C++ -*-===//
//
// Chooses the CPU or a CUDA GPU (Device.h).
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Runner/Device.h"
#include "mxfp8train/Conversion/MXFP8TrainToGPU/MXFP8TrainToGPU.h"
#include "mxfp8train/ExecutionEngine/CUDARunner.h"

#include "llvm/ADT/Twine.h"

using namespace mlir;
using namespace mlir::mxfp8train;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Expected<DeviceSelection>
mlir::mxfp8train::selectDevice(DeviceRequest request, int gpu,
                               llvm::StringRef chip) {
  if (!chip.empty() && !parseGPUChip(chip))
    return makeError("--chip=" + llvm::Twine(chip) +
                     " is not a GPU target (expected " + kSupportedGPUChips +
                     ")");
  if (gpu < 0)
    return makeError("--gpu=" + llvm::Twine(gpu) +
                     " is not a CUDA device ordinal (0 or more)");
  DeviceSelection selection;
  // A GPU option on the CPU is not an error (a script may pass it for the
  // machines that have one), but the first line says it is unused.
  std::string unused =
      chip.empty() ? std::string() : "; --chip=" + chip.str() + " unused";
  if (request == DeviceRequest::CPU) {
    selection.line = "device: cpu (--device=cpu)" + unused;
    return selection;
  }
  CUDADeviceInfo info = queryCUDADevice(gpu);
  if (!info.available) {
    if (request == DeviceRequest::CUDA)
      return makeError("--device=cuda: no usable GPU: " + info.reason);
    selection.line = "device: cpu (" + info.reason + ")" + unused;
    return selection;
  }
  std::string selectedChip = chip.empty() ? info.chip : std::string(chip);
  std::string capability =
      "sm_" + std::to_string(info.major) + std::to_string(info.minor);
  if (selectedChip.empty()) {
    if (request == DeviceRequest::CUDA)
      return makeError("--device=cuda: the GPU lowering has no target for " +
                       info.name + " (" + capability +
                       "); it supports sm_90a and sm_100a (--chip)");
    selection.line = "device: cpu (GPU " + info.name + " is " + capability +
                     ", which the GPU lowering does not target)";
    return selection;
  }
  selection.device = ExecutionDevice::CUDA;
  selection.chip = selectedChip;
  selection.line = "device: cuda (" + info.name + ", " + capability +
                   ", code for " + selectedChip + ")";
  return selection;
}
