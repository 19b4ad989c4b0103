//===- GemmSpec.cpp - GEMM kernel names ------------------------*- C++ -*-===//
//
// The kernel name of a GemmSpec. The spelling is the one the bench logs and
// tests know, e.g.
//   scaled_mm_k_k_e4m3_e4m3_bf16_256x384x512_b1_p2c1_v7w2s4
// form, operand orientations and scale layouts, types, bias, sizes,
// batches, prefetch and CTAs per SM, then the variant's suffixes.
//
//===----------------------------------------------------------------------===//

#include "GemmSpec.h"
#include "../KernelBuilder.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::gpu_lowering;

/// The version number of a ring kernel in its name suffix (`_v7w2s4`).
static int64_t getVersionNumber(GemmVariant variant) {
  switch (variant) {
  case GemmVariant::FusedUpcast:
    return 5;
  case GemmVariant::FusedUpcastWS:
    return 7;
  case GemmVariant::DequantBF16:
    return 8;
  }
  llvm_unreachable("unknown GEMM variant");
}

std::string GemmSpec::getName() const {
  auto operandTag = [](const gemm::OperandLayout &l) {
    return std::string(l.kMajor ? "k" : "mn") + (l.blockedScales ? "b" : "");
  };
  const char *kindTag = kind == GemmKind::Dense         ? "scaled_mm"
                        : kind == GemmKind::Grouped2d3d ? "scaled_gmm_2d3d"
                                                        : "scaled_gmm_2d2d";
  return llvm::formatv(
             "{0}_{1}_{2}_{3}_{4}_{5}{6}_{7}x{8}x{9}_b{10}_p{11}c{12}", kindTag,
             operandTag(a), operandTag(b), getTypeTag(aType), getTypeTag(bType),
             getTypeTag(outType),
             biasType ? "_bias" + getTypeTag(biasType) : "", m, n, k, batches,
             prefetch, ctasPerSM)
             .str() +
         (rebalance ? "" : "_norebal") +
         (usesStageRing()
              ? llvm::formatv("_v{0}w{1}s{2}", getVersionNumber(variant),
                              converterGroups, stages)
                    .str()
              : "") +
         (tile.n != 128 ? llvm::formatv("_n{0}", tile.n).str() : "") +
         (guarded ? (runWhenUnsafe ? "_gu" : "_gs") : "");
}
