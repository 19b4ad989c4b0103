//===- EmptyShapes.h - mxfp8train ops with empty shapes ---------*- C++ -*-===//
//
// Rewrites of mxfp8train ops whose shapes leave nothing to compute, shared by
// the CPU (linalg) and GPU lowerings so that neither tiles, slices or
// launches over a zero-size dimension:
//
//  - an op all of whose results have no elements (a step with no tokens, a
//    grouped GEMM with zero experts or an empty N, to_blocked of zero
//    experts, ...) becomes `tensor.empty` results;
//  - a GEMM whose sum is empty (`scaled_mm` with K = 0, a 2d-3d grouped GEMM
//    with K = 0 or no groups, a 2d-2d grouped GEMM with no tokens) becomes
//    its exact value: zeros, or the bias rounded into the result type;
//  - a Float8 quantize of an empty input whose scales have elements: empty
//    data, every scale that of amax 0.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_CONVERSION_UTILS_EMPTYSHAPES_H
#define MXFP8TRAIN_CONVERSION_UTILS_EMPTYSHAPES_H

#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace mxfp8train {

/// Adds the empty-shape rewrites above with `benefit` (above the lowering
/// patterns of the same op, so that they win).
void populateEmptyShapePatterns(RewritePatternSet &patterns,
                                PatternBenefit benefit = 10);

} // namespace mxfp8train
} // namespace mlir

#endif // MXFP8TRAIN_CONVERSION_UTILS_EMPTYSHAPES_H
