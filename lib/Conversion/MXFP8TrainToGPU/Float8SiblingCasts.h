//===- Float8SiblingCasts.h - Float8 casts lowered together ----*- C++ -*-===//
//
// Which dense tensorwise Float8 quantizes share one amax and one cast kernel
// (convert-mxfp8train-to-gpu's `fuse-sibling-casts`): the casts of the
// results of one fused elementwise producer, e.g. the Llama MLP backward's
// dH1 and dH3, two results of one generic over (dA, h1, h3). The cast
// patterns (Float8CastKernels.cpp) launch a group at its first quantize;
// the GEMM epilogue amax plan (Gemm/GemmAmaxFusion.h) takes a whole group's
// words.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_FLOAT8SIBLINGCASTS_H
#define MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_FLOAT8SIBLINGCASTS_H

#include "KernelBuilder.h"

namespace mlir {
namespace mxfp8train {
namespace gpu_lowering {

class KernelInput;

/// The Float8 quantizes lowered together with `op`, whose input `input`
/// reads (KernelInput::get): with the cache's `fuse-sibling-casts` and a
/// fused elementwise producer (no pad), the quantizes of the producer's
/// results that are sibling tensorwise casts of `op` (dense, one block,
/// the same input and fp8 types, pow2 and K-major form), in block order,
/// in groups of at most three; else `op` alone. The group is launched at
/// its first quantize, with amax word r for its r-th quantize.
SmallVector<QuantizeOp> getFloat8SiblingCasts(QuantizeOp op,
                                              const KernelInput &input,
                                              const KernelCache &cache);

} // namespace gpu_lowering
} // namespace mxfp8train
} // namespace mlir

#endif // MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_FLOAT8SIBLINGCASTS_H
