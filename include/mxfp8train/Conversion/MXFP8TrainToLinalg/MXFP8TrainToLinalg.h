//===- MXFP8TrainToLinalg.h - CPU reference lowering ---------------*- C++ -*-===//
//
// Patterns lowering mxfp8train ops to linalg/arith/tensor.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_CONVERSION_MXFP8TRAINTOLINALG_MXFP8TRAINTOLINALG_H
#define MXFP8TRAIN_CONVERSION_MXFP8TRAINTOLINALG_MXFP8TRAINTOLINALG_H

namespace mlir {
class RewritePatternSet;
namespace mxfp8train {

/// Adds the patterns that lower quantize, dequantize and scaled_mm to
/// linalg, tensor and arith ops (SPEC §2-§3, bit-exact).
void populateMXFP8TrainToLinalgConversionPatterns(RewritePatternSet &patterns);

} // namespace mxfp8train
} // namespace mlir

#endif // MXFP8TRAIN_CONVERSION_MXFP8TRAINTOLINALG_MXFP8TRAINTOLINALG_H
