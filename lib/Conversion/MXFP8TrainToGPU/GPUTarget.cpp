//===- GPUTarget.cpp - the GPU targets of the lowering ----------*- C++ -*-===//
//
// The chips convert-mxfp8train-to-gpu and mxfp8train-lower-to-gpu accept,
// their names, and what the kernels are sized for on each.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Conversion/MXFP8TrainToGPU/MXFP8TrainToGPU.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Triple.h"

#include <memory>

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

/// The PTX ISA version of a `ptxNN` feature name, or std::nullopt.
static std::optional<unsigned> getPTXVersion(StringRef feature) {
  unsigned version;
  if (!feature.consume_front("ptx") || feature.getAsInteger(10, version))
    return std::nullopt;
  return version;
}

std::string mlir::mxfp8train::checkPTXFeatures(GPUChip chip,
                                               StringRef features) {
  StringRef chipName = stringifyGPUChip(chip);
  std::string defaults = getGPUTargetInfo(chip).ptxFeatures;
  unsigned minimum = *getPTXVersion(StringRef(defaults).drop_front());
  std::string usage = llvm::formatv(
      "expected one `+ptxNN` with NN >= {0} for {1} (default {2})", minimum,
      chipName, defaults);
  StringRef feature = features.trim();
  if (!feature.consume_front("+"))
    return llvm::formatv("features '{0}': {1}", features, usage);
  std::optional<unsigned> version = getPTXVersion(feature);
  if (!version)
    return llvm::formatv("features '{0}': {1}", features, usage);
  if (*version < minimum)
    return llvm::formatv("features '{0}': PTX ISA {1}.{2} is too old for the "
                         "kernels of {3}; {4}",
                         features, *version / 10, *version % 10, chipName,
                         usage);
  // A feature the backend does not know is ignored with a warning and the
  // lowest PTX version is used: ask the backend for its list.
  LLVMInitializeNVPTXTargetInfo();
  LLVMInitializeNVPTXTargetMC();
  llvm::Triple triple("nvptx64-nvidia-cuda");
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return "the NVPTX backend is not available: " + error;
  std::unique_ptr<llvm::MCSubtargetInfo> info(
      target->createMCSubtargetInfo(triple, chipName, ""));
  unsigned newest = 0;
  for (const llvm::SubtargetFeatureKV &known :
       info->getAllProcessorFeatures()) {
    if (StringRef(known.Key) == feature)
      return "";
    newest = std::max(newest, getPTXVersion(known.Key).value_or(0));
  }
  return llvm::formatv("features '{0}': LLVM's NVPTX backend knows PTX ISA "
                       "versions up to {1}.{2} (+ptx{3}); {4}",
                       features, newest / 10, newest % 10, newest, usage);
}
