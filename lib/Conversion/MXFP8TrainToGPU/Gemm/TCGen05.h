//===- TCGen05.h - the Blackwell (tcgen05) MMA generation -------*- C++ -*-===//
//
// The sm_100a side of the MX GEMM kernels: block-scaled fifth-generation
// tensor-core MMAs (`tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale
// .block32`) on fp8 stages filled by TMA, the accumulator in Tensor Memory.
// The tile walk, the stage ring, the warp roles, the epilogue store and the
// launch are GemmMainloop's; this file supplies the TMA producer, the MMA
// issuer, the TMEM epilogue and the host side (tensor maps).
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_GEMM_TCGEN05_H
#define MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_GEMM_TCGEN05_H

#include "GemmMainloop.h"

namespace mlir {
namespace mxfp8train {
namespace gpu_lowering {

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
