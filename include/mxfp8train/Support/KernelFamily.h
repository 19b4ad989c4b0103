//===- KernelFamily.h - kernel names grouped by what they do ----*- C++ -*-===//
//
// The families of the kernels the GPU pipeline emits, recognized from their
// names (lib/Conversion/MXFP8TrainToGPU names every kernel it builds after
// its op and specialization), plus the runtime's timed fills and copies
// (named after their driver call). The one place that maps names to
// families: mxfp8-launch --profile groups its report with it and writes the
// family into --profile-json, which bench/device/step-bench.sh reads.
// Standard C++ only, for MLIR-free programs.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_SUPPORT_KERNELFAMILY_H
#define MXFP8TRAIN_SUPPORT_KERNELFAMILY_H

#include <string>
#include <vector>

namespace mlir::mxfp8train {

/// A family: its short name (JSON, scripts) and what it holds (tables).
struct KernelFamily {
  const char *name;
  const char *description;
};

/// Every family in report order, "other" last:
///   gemm          scaled_mm_*, scaled_gmm_* (the tuned GEMMs), gemm_* and
///                 grouped_gemm_* (the simple GEMM), not gemm_dequant_*
///   dequant       gemm_dequant_*: the GEMM's dequantize pre-passes
///   quantize      quantize_* (1x32, 32x1, dual) and dequantize_*
///   layout        to_blocked*: scale layouts for the GEMMs
///   token_groups  pad_token_groups_*, unpad_token_groups_*
///   memset        cuMemset*: the runtime's fills
///   memcpy        cuMemcpy*: the runtime's copies
///   other         everything else: the generic kernels outlined from
///                 linalg (`<function>_kernel`, `<function>_kernel_<n>`:
///                 elementwise chains, reductions)
const std::vector<KernelFamily> &getKernelFamilies();

/// The family name of the kernel (or runtime operation) `name`.
const char *getKernelFamily(const std::string &name);

} // namespace mlir::mxfp8train

#endif // MXFP8TRAIN_SUPPORT_KERNELFAMILY_H
