//===- KernelFamily.cpp - kernel names grouped by what they do ------------===//
//
// Prefix rules over the kernel names of lib/Conversion/MXFP8TrainToGPU; the
// first rule that matches wins (gemm_dequant_ before gemm_).
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Support/KernelFamily.h"

namespace mlir::mxfp8train {

const std::vector<KernelFamily> &getKernelFamilies() {
  static const std::vector<KernelFamily> families = {
      {"gemm", "GEMMs (scaled_mm, scaled_gmm; simple gemm, grouped_gemm)"},
      {"dequant", "GEMM dequantize pre-passes (gemm_dequant)"},
      {"quantize", "quantize (1x32, 32x1, dual) and dequantize"},
      {"layout", "scale layouts (to_blocked)"},
      {"token_groups", "token-group padding (pad/unpad_token_groups)"},
      {"memset", "fills (cuMemset)"},
      {"memcpy", "copies (cuMemcpy)"},
      {"elementwise", "elementwise linalg.generic kernels (vectorized)"},
      {"other", "generic kernels from linalg (parallel loops: transposes, "
                "broadcasts, reductions, other elementwise)"},
  };
  return families;
}

const char *getKernelFamily(const std::string &name) {
  struct Rule {
    const char *prefix;
    const char *family;
  };
  static const Rule rules[] = {
      {"gemm_dequant_", "dequant"},
      {"scaled_mm_", "gemm"},
      {"scaled_gmm_", "gemm"},
      {"grouped_gemm_", "gemm"},
      {"gemm_", "gemm"},
      {"quantize_", "quantize"},
      {"dequantize_", "quantize"},
      {"to_blocked", "layout"},
      {"pad_token_groups_", "token_groups"},
      {"unpad_token_groups_", "token_groups"},
      {"elementwise_", "elementwise"},
      {"cuMemset", "memset"},
      {"cuMemcpy", "memcpy"},
  };
  for (const Rule &rule : rules)
    if (name.rfind(rule.prefix, 0) == 0)
      return rule.family;
  return "other";
}

} // namespace mlir::mxfp8train
