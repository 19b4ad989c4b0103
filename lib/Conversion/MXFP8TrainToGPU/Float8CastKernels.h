//===- Float8CastKernels.h - Float8 quantize/dequantize kernels -*- C++ -*-===//
//
// The Float8 (f32-scaled, SPEC-float8 §2) casts of convert-mxfp8train-to-gpu
// (Float8CastKernels.cpp has the kernel designs).
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_FLOAT8CASTKERNELS_H
#define MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_FLOAT8CASTKERNELS_H

#include "KernelBuilder.h"

namespace mlir {
namespace mxfp8train {
namespace gpu_lowering {

/// Adds the Float8 quantize (tensorwise, axiswise along any axis) and
/// dequantize lowerings; with `fuseProducers`, a quantize reads a fusable
/// elementwise producer's operands instead of its result (FusedProducer.h).
void populateFloat8CastKernelPatterns(RewritePatternSet &patterns,
                                      KernelCache &cache, bool fuseProducers);

} // namespace gpu_lowering
} // namespace mxfp8train
} // namespace mlir

#endif // MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_FLOAT8CASTKERNELS_H
