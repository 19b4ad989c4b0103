//===- SplitReductions.h - reductions as partial results -------*- C++ -*-===//
//
// Reductions with few outputs and a long reduction (a loss or a norm summed
// to a scalar, a bias gradient's column sums, a row max) rewritten on
// tensors as parallel partial results and their combination, with upstream
// `linalg::splitReduction` (inner-parallel form). Shared by both pipelines
// with one schedule, so that they add the same elements in the same order:
//
// - GPU (`convert-mxfp8train-to-gpu`, split-reductions): the loop path
//   gives a linalg op one thread per point of its parallel loops and runs
//   the reduction inside it; an MSE loss of (16384, 4096) ran on one thread
//   for seconds;
// - CPU (`mxfp8train-cpu-split-reductions` in mxfp8train-lower-to-cpu): a
//   sequential f32 sum of 2^24 positive values stalls once the running sum
//   is large (30.8 dB against float64 for the MSE of (4096, 4096) normal
//   values); the partial sums keep each addend within 2^8 to 2^12 terms.
//
// The schedule: a named op (linalg.reduce, linalg.dot, ...) is
// generalized; several reduction loops that every indexing map keeps
// contiguous are collapsed into one; the reduction of R iterations with P
// parallel points becomes S partial results, partial s adding elements
// s, s + S, s + 2S, ... in order (consecutive GPU threads read consecutive
// elements), S the largest divisor of R with S <= 2^18 / P and R / S >= 16,
// when R >= 1024; the op combining the S partials into the original init is
// split again while it qualifies (2^26 elements: 2^18 partials of 256, then
// 2^14, 2^10, 64, then 64 in one). The combiner must be one op with a
// neutral element (arith.addf, mulf, maximumf, addi, ...:
// `arith::getNeutralElement`, which fills the partials; for addf -0.0
// rather than upstream's +0.0, so that a sum of -0.0 stays -0.0 as in
// linalg's sequential order); bodies reading linalg.index, several
// results, dynamic shapes, maps with a constant result (a keepdim output
// `(i, j) -> (i, 0)`: upstream's split builds an invalid op from it), an
// init map other than the parallel loops each once (a reduction loop in
// it: upstream builds an invalid op), reduction loops a map permutes, and
// extents without a divisor in range (a prime R) are left as they are. So
// are the named GEMMs (linalg.matmul, linalg.batch_matmul): the GEMM
// lowerings of both devices take them whole (GPU GEMM kernels, the CPU's
// tiled matmuls), and one a GPU GEMM declines (f64, integers) keeps the
// CPU's order.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_CONVERSION_UTILS_SPLITREDUCTIONS_H
#define MXFP8TRAIN_CONVERSION_UTILS_SPLITREDUCTIONS_H

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"

namespace mlir {
namespace mxfp8train {

/// Splits the linalg reductions on tensors in `root` (outside gpu.module
/// bodies and other linalg ops' bodies) that the schedule above takes.
void splitSerialReductions(Operation *root);

} // namespace mxfp8train
} // namespace mlir

#endif // MXFP8TRAIN_CONVERSION_UTILS_SPLITREDUCTIONS_H
