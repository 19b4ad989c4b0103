//===- GPUTarget.cpp - the GPU targets of the lowering ----------*- C++ -*-===//
//
// The chips convert-mxfp8train-to-gpu and mxfp8train-lower-to-gpu accept,
// their names, and what the kernels are sized for on each.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Conversion/MXFP8TrainToGPU/MXFP8TrainToGPU.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/ErrorHandling.h"

using namespace mlir;
using namespace mlir::mxfp8train;

StringRef mlir::mxfp8train::stringifyGPUChip(GPUChip chip) {
  switch (chip) {
  case GPUChip::SM90a:
    return "sm_90a";
  case GPUChip::SM100a:
    return "sm_100a";
  }
  llvm_unreachable("unknown GPU chip");
}

std::optional<GPUChip> mlir::mxfp8train::parseGPUChip(StringRef name) {
  return llvm::StringSwitch<std::optional<GPUChip>>(name)
      .Case("sm_90a", GPUChip::SM90a)
      .Case("sm_100a", GPUChip::SM100a)
      .Default(std::nullopt);
}

std::optional<GPUChip>
mlir::mxfp8train::getGPUChipForComputeCapability(int major, int minor) {
  // The arch-specific targets run on exactly their architecture.
  if (major == 9 && minor == 0)
    return GPUChip::SM90a;
  if (major == 10 && minor == 0)
    return GPUChip::SM100a;
  return std::nullopt;
}

GPUTargetInfo mlir::mxfp8train::getGPUTargetInfo(GPUChip chip) {
  // 2048 resident threads per SM on both generations -> 8 CTAs of 256.
  switch (chip) {
  case GPUChip::SM90a:
    return GPUTargetInfo{chip, 132, 8, "+ptx86"};
  case GPUChip::SM100a:
    // tcgen05 / block32 forms need PTX ISA 8.8 on sm_100a (docs/gpu.md).
    return GPUTargetInfo{chip, 148, 8, "+ptx88"};
  }
  llvm_unreachable("unknown GPU chip");
}
