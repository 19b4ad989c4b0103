//===- TCGen05.h - the Blackwell (tcgen05) MMA generation -------*- C++ -*-===//
//
// The sm_100a side of the MX GEMM kernels: block-scaled fifth-generation
// tensor-core MMAs (`tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale
// .block32`, or `cta_group::2` across a cluster of two CTAs) on fp8 stages
// filled by TMA, the accumulator in Tensor Memory.
// The tile walk, the stage ring, the warp roles, the epilogue store and the
// launch are GemmMainloop's; TCGen05.cpp supplies the TMA producer, the MMA
// issuer and the TMEM epilogue, TCGen05Launch.cpp the host side (tensor
// maps, scale re-layouts, the launch). Float8 GEMMs (f32 scales) run the
// same kernel with `tcgen05.mma ... kind::f8f6f4` (no scale factors) and
// the scale reciprocals applied in the epilogue (GemmSpec::tcgen05Float8).
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_GEMM_TCGEN05_H
#define MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_GEMM_TCGEN05_H

#include "GemmMainloop.h"

#include "mxfp8train/Conversion/Utils/Tcgen05.h"

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

/// The operands and shape of the MMAs of the configured `spec`
/// (configureTcgen05Gemm): formats, majorness, and the tile's M x N.
tcgen05::MmaOperands getTcgen05MmaOperands(const GemmSpec &spec);

/// Whether the configured `spec`'s MMA is one the PTX ISA allows
/// (tcgen05::isValidBlockScaledMma for MX, isValidF8F6F4Mma for Float8).
bool isValidTcgen05Mma(const GemmSpec &spec);

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

/// Why the Float8 `scaled_mm` or `scaled_grouped_mm` `op` (f32 scales)
/// cannot take the tcgen05 kernel's kind::f8f6f4 form, or an empty string:
/// 2d-2d is not lowered; otherwise whyNotTcgen05 (MN-major operands are
/// taken: f8f6f4 reads MN-major e4m3 / e5m2 from shared memory).
std::string whyNotTcgen05Float8(Operation *op);

/// Adds the lowering of Float8 `scaled_mm` (rank 2 and 3) and
/// `scaled_grouped_mm` 2d-3d to the tcgen05 kernel on sm_100a
/// (`tcgen05.mma ... kind::f8f6f4`, the f32 scales in the epilogue).
void populateTcgen05Float8GemmPatterns(RewritePatternSet &patterns,
                                       KernelCache &cache);

} // namespace gpu_lowering
} // namespace mxfp8train
} // namespace mlir

#endif // MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_GEMM_TCGEN05_H
