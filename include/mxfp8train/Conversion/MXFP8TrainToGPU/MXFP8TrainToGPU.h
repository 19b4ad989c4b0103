//===- MXFP8TrainToGPU.h - GPU kernels for MX ops ---------------*- C++ -*-===//
//
// Patterns lowering mxfp8train quantization and layout ops on tensors to
// launches of specialised CUDA kernels (gpu.func in a gpu.module), and the
// fusion of two quantizes of one tensor into quantize_dual.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_CONVERSION_MXFP8TRAINTOGPU_MXFP8TRAINTOGPU_H
#define MXFP8TRAIN_CONVERSION_MXFP8TRAINTOGPU_MXFP8TRAINTOGPU_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir {
class RewritePatternSet;
namespace gpu {
class GPUModuleOp;
} // namespace gpu
namespace memref {
class CopyOp;
} // namespace memref
namespace mxfp8train {

/// The GPU targets of the lowering, parsed once from the `chip` option.
enum class GPUChip {
  /// Hopper (H100, H200): the wgmma GEMM kernels.
  SM90a,
  /// Blackwell (B200): the tcgen05 GEMM kernels (rank-2 scaled_mm).
  SM100a,
};

/// The accepted chip names, for diagnostics.
inline constexpr llvm::StringLiteral kSupportedGPUChips = "sm_90a or sm_100a";

/// The NVVM chip name of `chip` (`sm_90a`, `sm_100a`).
llvm::StringRef stringifyGPUChip(GPUChip chip);

/// The chip named exactly `name` (`sm_90a`, `sm_100a`), or std::nullopt.
std::optional<GPUChip> parseGPUChip(llvm::StringRef name);

/// The chip whose code runs on a GPU of compute capability major.minor
/// (9.0: sm_90a, 10.0: sm_100a), or std::nullopt.
std::optional<GPUChip> getGPUChipForComputeCapability(int major, int minor);

/// What the kernels are specialised for on one GPU target.
struct GPUTargetInfo {
  /// The target; the lowering dispatches on it (e.g. the MMA generation of
  /// the GEMM kernels).
  GPUChip chip;
  /// Streaming multiprocessors of the reference part (H100/H200: 132,
  /// B200: 148); the row-copy kernels (token-group padding) launch at most
  /// `numSMs * ctasPerSM` CTAs, each setting up its group table once.
  int64_t numSMs;
  /// Resident CTAs of `kThreadsPerCTA` threads per SM at full occupancy.
  int64_t ctasPerSM;
  /// PTX ISA version feature the target is compiled with (`+ptx86`).
  std::string ptxFeatures;
  /// sm_90a Float8 GEMMs: the accumulator promotion interval in contraction
  /// elements (`float8-promote-interval`; 0: fast accumulation).
  int64_t float8PromoteInterval = 0;
  /// sm_90a promoted Float8 GEMMs with a promotion per contraction tile:
  /// 1 for one accumulator set (GemmSpec::promoteUnroll), else tiles per
  /// iteration of the two-set pipelined loop, which ends in a wgmma drain
  /// (`float8-promote-unroll`: 1, 2, 4 or 6; 0: the form's default,
  /// GemmSpec::getDefaultPromoteUnroll).
  int64_t float8PromoteUnroll = 0;
  /// sm_90a promoted Float8 GEMMs: the output columns of a 128-row tile
  /// (`float8-promote-tile-n`: 128, 160 or 192, one accumulator set above
  /// 128; 0: the default, kDefaultPromotedTileN in WGMMAFloat8.cpp).
  int64_t float8PromoteTileN = 0;
  /// sm_90a TMA-fed wgmma GEMMs: CTAs of the cluster along M
  /// (`gemm-cluster-m`: 1 or 2; 0: the form's default); an op's gemm_config
  /// cluster_m takes precedence.
  int64_t gemmClusterM = 0;
  /// sm_90a Float8 GEMMs that take tensorwise amaxes (`fuse-gemm-amax`):
  /// 0 for the MMA warps' epilogue, else warps of the TMA producer
  /// warpgroup (1 to 3) that take them from each finished tile
  /// (`gemm-amax-warps`; Gemm/GemmAmaxFusion.h).
  int64_t gemmAmaxWarps = 0;

  /// The NVVM chip name (`sm_90a`).
  llvm::StringRef getChipName() const { return stringifyGPUChip(chip); }
};

/// Threads per CTA of every kernel of this lowering.
inline constexpr int64_t kThreadsPerCTA = 256;

/// Name of the gpu.module that holds the kernels.
inline constexpr llvm::StringLiteral kKernelModuleName = "mxfp8train_kernels";

/// The target info of `chip`.
GPUTargetInfo getGPUTargetInfo(GPUChip chip);

/// Checks `features`, the NVVM target features the GPU pipelines'
/// `features` option gives for `chip`: one `+ptxNN` that LLVM's NVPTX
/// backend knows, at least the chip's default (getGPUTargetInfo: the
/// kernels' TMA, wgmma and tcgen05 instructions need it; with a lower PTX
/// version, or a feature the backend ignores, instruction selection aborts).
/// Returns why not, or an empty string when they are usable.
std::string checkPTXFeatures(GPUChip chip, llvm::StringRef features);

/// Adds the patterns that replace quantize, quantize_dual, dequantize,
/// pad_token_groups, unpad_token_groups and to_blocked (every layout) with
/// `bufferization.to_buffer` of the inputs, `memref.alloc` of the results, a
/// `gpu.launch_func` of a kernel created in (or reused from) `kernels`, and
/// `bufferization.to_tensor restrict writable` of the results. Ops with
/// dynamic shapes do not match. With `fuseProducers`, a quantize whose
/// input comes from an elementwise `linalg.generic` that only feeds
/// quantizes evaluates that generic in its own kernel (the generic then
/// has no users left and is erased with them). With `elementwiseKernels`,
/// the other elementwise `linalg.generic` ops (identity maps, arith/math
/// bodies, a multiple of 8 elements) become vectorized kernels too.
void populateMXFP8TrainToGPUConversionPatterns(RewritePatternSet &patterns,
                                               gpu::GPUModuleOp kernels,
                                               const GPUTargetInfo &target,
                                               bool fuseProducers = true,
                                               bool elementwiseKernels = true);

} // namespace mxfp8train
} // namespace mlir

#endif // MXFP8TRAIN_CONVERSION_MXFP8TRAINTOGPU_MXFP8TRAINTOGPU_H
