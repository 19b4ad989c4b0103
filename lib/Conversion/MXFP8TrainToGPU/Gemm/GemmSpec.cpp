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
#include "../FusedProducer.h"
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
  case GemmVariant::Tcgen05:
    return 10;
  case GemmVariant::WgmmaFloat8:
    return 9;
  }
  llvm_unreachable("unknown GEMM variant");
}

GemmSpec gpu_lowering::getScaledMmSpec(ScaledMmOp op) {
  RankedTensorType lhsType = op.getLhs().getType();
  RankedTensorType resultType = op.getResult().getType();
  int64_t rank = lhsType.getRank();
  GemmSpec spec;
  spec.kind = GemmKind::Dense;
  spec.batches = rank == 3 ? lhsType.getDimSize(0) : 1;
  spec.m = resultType.getDimSize(rank - 2);
  spec.n = resultType.getDimSize(rank - 1);
  bool tl = op.getTransposeLhs(), tr = op.getTransposeRhs();
  spec.k = lhsType.getDimSize(tl ? rank - 2 : rank - 1);
  spec.a = {spec.m, spec.k, !tl,
            op.getLhsScaleLayout() == ScaleLayout::Blocked};
  spec.b = {spec.n, spec.k, tr, op.getRhsScaleLayout() == ScaleLayout::Blocked};
  spec.aBatched = spec.bBatched = rank == 3;
  spec.aType = lhsType.getElementType();
  spec.bType = op.getRhs().getType().getElementType();
  spec.outType = resultType.getElementType();
  if (op.getBias())
    spec.biasType = op.getBias().getType().getElementType();
  return spec;
}

/// The kind, sizes, orientations and types of a grouped GEMM op (2d-3d:
/// tokens along M, one B per group; 2d-2d: tokens along K, one output per
/// group).
template <typename OpT> static GemmSpec getGroupedSpec(OpT op) {
  auto lhsType = cast<RankedTensorType>(op.getLhs().getType());
  auto resultType = cast<RankedTensorType>(op.getResult().getType());
  bool tl = op.getTransposeLhs(), tr = op.getTransposeRhs();
  GemmSpec spec;
  spec.batches = op.getOffs().getType().getDimSize(0);
  if (!op.isTwoDTwoD()) {
    spec.kind = GemmKind::Grouped2d3d;
    spec.m = resultType.getDimSize(0);
    spec.n = resultType.getDimSize(1);
    spec.bBatched = true;
  } else {
    // result[g] (N, K) = lhs (N, tokens) x rhs (tokens, K) over group g.
    spec.kind = GemmKind::Grouped2d2d;
    spec.m = resultType.getDimSize(1);
    spec.n = resultType.getDimSize(2);
  }
  spec.k = lhsType.getDimSize(tl ? 0 : 1);
  spec.a = {spec.m, spec.k, !tl, false};
  spec.b = {spec.n, spec.k, tr, false};
  spec.aType = lhsType.getElementType();
  spec.bType = cast<RankedTensorType>(op.getRhs().getType()).getElementType();
  spec.outType = resultType.getElementType();
  return spec;
}

GemmSpec gpu_lowering::getScaledGroupedMmSpec(ScaledGroupedMmOp op) {
  GemmSpec spec = getGroupedSpec(op);
  spec.a.blockedScales = op.getLhsScaleLayout() != ScaleLayout::RowMajor;
  spec.b.blockedScales = op.getRhsScaleLayout() != ScaleLayout::RowMajor;
  return spec;
}

GemmSpec gpu_lowering::getGroupedMmSpec(GroupedMmOp op) {
  GemmSpec spec = getGroupedSpec(op);
  spec.scaled = false;
  return spec;
}

std::string GemmSpec::getName() const {
  // `s`: a 3-D tensor map with one batch per box (GemmSpec::aSlicedMap).
  auto operandTag = [](const gemm::OperandLayout &l, bool sliced) {
    return std::string(l.kMajor ? "k" : "mn") + (l.blockedScales ? "b" : "") +
           (sliced ? "s" : "");
  };
  const char *kindTag = kind == GemmKind::Dense         ? "mm"
                        : kind == GemmKind::Grouped2d3d ? "gmm_2d3d"
                                                        : "gmm_2d2d";
  std::string form = (scaled ? "scaled_" : "hp_") + std::string(kindTag);
  if (isTcgen05()) {
    // e.g. scaled_mm_tc05_kb_kb_e4m3_e4m3_bf16_256x512x256_s4 (`_bB` for
    // B > 1 batches or groups, `_cg2` for the 2-CTA kernel; Float8 `_f8rt`
    // etc. before the stages, as below).
    return llvm::formatv(
               "{0}_tc05_{1}_{2}_{3}_{4}_{5}{6}_{7}x{8}x{9}{10}{13}_s{11}{12}",
               form, operandTag(a, false), operandTag(b, false),
               getTypeTag(aType), getTypeTag(bType), getTypeTag(outType),
               biasType ? "_bias" + getTypeTag(biasType) : "", m, n, k,
               batches > 1 ? llvm::formatv("_b{0}", batches).str() : "", stages,
               ctaGroup > 1 ? llvm::formatv("_cg{0}", ctaGroup).str() : "",
               tcgen05Float8 ? std::string("_f8") + (aScalarScale ? "t" : "r") +
                                   (bScalarScale ? "t" : "r")
                             : "")
        .str();
  }
  return llvm::formatv(
             "{0}_{1}_{2}_{3}_{4}_{5}{6}{7}_{8}x{9}x{10}_b{11}_p{12}c{13}",
             form, operandTag(a, aSlicedMap), operandTag(b, bSlicedMap),
             getTypeTag(aType), getTypeTag(bType), getTypeTag(outType),
             biasType ? "_bias" + getTypeTag(biasType) : "",
             (initType ? "_init" + getTypeTag(initType) : "") +
                 (addendType ? "_sum" : ""),
             m, n, k, batches, prefetch, ctasPerSM)
             .str() +
         (rebalance ? "" : "_norebal") +
         (usesStageRing()
              ? llvm::formatv("_v{0}w{1}s{2}", getVersionNumber(variant),
                              converterGroups, stages)
                    .str()
              : "") +
         (tile.n != 128 ? llvm::formatv("_n{0}", tile.n).str() : "") +
         (clusterM > 1 ? llvm::formatv("_c{0}", clusterM).str() : "") +
         // Float8: `t` tensorwise or `r` rowwise scale of A, then of B.
         (isWgmmaFloat8()
              ? std::string("_f8") + (aScalarScale ? "t" : "r") +
                    (bScalarScale ? "t" : "r") +
                    (promoteInterval
                         ? llvm::formatv("_acc{0}", promoteInterval).str()
                         : "") +
                    (promoteInterval &&
                             promoteUnroll != getDefaultPromoteUnroll()
                         ? llvm::formatv("u{0}", promoteUnroll).str()
                         : "")
              : "") +
         // The amaxes the epilogue takes: `_amax` and the producer's body
         // hash with the inputs' places (GemmAmaxFusion.h).
         (amaxProducer
              ? "_amax" +
                    getElementwiseBodyHash(
                        cast<linalg::GenericOp>(amaxProducer),
                        llvm::join(llvm::map_range(amaxInputArgs,
                                                   [](int64_t a) {
                                                     return std::to_string(a);
                                                   }),
                                   ",")) +
                    (amaxWarps ? llvm::formatv("w{0}", amaxWarps).str() : "")
              : "") +
         (guarded ? (runWhenUnsafe ? "_gu" : "_gs") : "") +
         (guarded && flagPerOperand ? "2" : "");
}
