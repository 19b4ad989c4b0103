//===- TCGen05.h - the Blackwell (tcgen05) MMA generation -------*- C++ -*-===//
//
// The sm_100a side of the MX GEMM kernels: block-scaled fifth-generation
// tensor-core MMAs (`tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale
// .block32`, or `cta_group::2` across a cluster of two CTAs) on fp8 stages
// filled by TMA, the accumulator in Tensor Memory.
// The tile walk, the stage ring, the warp roles, the epilogue store and the
// launch are GemmMainloop's; TCGen05.cpp supplies the TMA producer, the MMA
// issuer and the TMEM epilogue, TCGen05Launch.cpp the host side (tensor
// maps, scale re-layouts, the launch).
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_GEMM_TCGEN05_H
#define MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_GEMM_TCGEN05_H

#include "GemmMainloop.h"

namespace mlir {
namespace mxfp8train {
namespace gpu_lowering {

/// Bytes of one TMA box of a scale chunk in the 2-CTA kernel, which loads
/// the scales through 1-D tensor maps (a 512-byte chunk is two boxes: box
/// extents are at most 256).
inline constexpr int64_t kTcgen05ScaleBoxBytes = 256;

/// Sets the kernel fields of the problem `spec`: the variant, `ctaGroup`
/// CTAs per MMA (1 or 2), the tile (128 x 256 x 128 per CTA; 256 x 256 x
/// 128 for a pair), and as many ring stages as fit in sm_100a's 227 KiB.
void configureTcgen05Gemm(GemmSpec &spec, int64_t ctaGroup);

/// The body of the tcgen05 GEMM (GemmVariant::Tcgen05) on `args` in
/// GemmArgs order, A and B data being the TMA tensor maps (`!llvm.ptr`).
void emitTcgen05Gemm(KernelBuilder &kb, const GemmSpec &spec, ValueRange args);

/// Why the GEMM problem `spec` (getScaledMmSpec, getScaledGroupedMmSpec)
/// cannot take the tcgen05 kernel, or an empty string. Every scale layout
/// is taken: row-major scales are re-laid into the blocked layout of the
/// form by the to_blocked kernels before the launch.
std::string whyNotTcgen05(const GemmSpec &spec);

/// sm_100a: replaces `op` (problem `spec`, from GemmPatterns.cpp) by a
/// launch of the tcgen05 kernel, of `ctaGroup` CTAs per MMA (1: 128 x 256
/// tiles per CTA; 2: clusters of two CTAs per 256 x 256 tile,
/// `cta_group::2`); fails with the reason, creating nothing, for a form
/// the kernel does not take.
LogicalResult lowerGemmToTcgen05(PatternRewriter &rewriter,
                                 const KernelCache &cache, Operation *op,
                                 GemmSpec spec, int64_t ctaGroup, Value lhs,
                                 Value lhsScales, Value rhs, Value rhsScales,
                                 Value offs, Value bias,
                                 RankedTensorType resultType);

} // namespace gpu_lowering
} // namespace mxfp8train
} // namespace mlir

#endif // MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_GEMM_TCGEN05_H
