//===- MXFP8TrainToLinalg.h - CPU reference lowering ------------*- C++ -*-===//
//
// Patterns lowering mxfp8train ops to linalg/arith/tensor.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_CONVERSION_MXFP8TRAINTOLINALG_MXFP8TRAINTOLINALG_H
#define MXFP8TRAIN_CONVERSION_MXFP8TRAINTOLINALG_MXFP8TRAINTOLINALG_H

namespace mlir {
class RewritePatternSet;
namespace mxfp8train {

/// Adds the patterns that lower every mxfp8train op (quantize, dequantize,
/// scaled_mm, grouped_mm, scaled_grouped_mm, to_blocked, pad_token_groups,
/// unpad_token_groups) to linalg, tensor, scf and arith ops (SPEC §2-§4, §7,
/// bit-exact). The patterns need static shapes.
void populateMXFP8TrainToLinalgConversionPatterns(RewritePatternSet &patterns);

} // namespace mxfp8train
} // namespace mlir

#endif // MXFP8TRAIN_CONVERSION_MXFP8TRAINTOLINALG_MXFP8TRAINTOLINALG_H
