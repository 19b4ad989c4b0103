//===- GemmSumFusion.h - GEMM epilogues write bf16 sums ---------*- C++ -*-===//
//
// The backward of a SwiGLU MLP sums two GEMM results into the input
// gradient (dx = dh1 W1 + dh3 W3, both bf16): an elementwise generic
// `truncf(extf(a) + extf(b))` that reads and writes the whole tensor once
// more (0.16 ms of the DeepSeek-V3 experts step on the H200). Where one
// term is the result of a Float8 scaled_grouped_mm used by that sum
// only, and the other term is defined before the GEMM, the GEMM's epilogue
// reads the other term and writes the sum instead: after its own rounding
// to bf16 it adds the term's element in f32 and rounds again, the bits of
// the generic (GemmSpec::addendType). When both terms are such GEMMs, the
// later one takes the sum. Only Float8 grouped GEMMs are planned: on the
// H200 the fused DeepSeek step saved 0.1 ms of kernel time, while the
// dense promoted Float8 (Llama) and the MX kernels lost 0.07-0.14 ms (the
// epilogue's reads are not hidden there). The Float8 kernel takes the
// addend in every epilogue form (staged, per element, the 2d-3d zero
// rows).
//
// The plan is made before the lowering patterns (sm_90a): the GEMM
// patterns replace the sum by their result; the elementwise pattern leaves
// a planned sum alone while its GEMM still defines the term, so that a GEMM
// lowered without the epilogue (a form the wgmma kernels do not take)
// leaves the sum to the elementwise kernel.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_GEMM_GEMMSUMFUSION_H
#define MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_GEMM_GEMMSUMFUSION_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/DenseMap.h"

#include <memory>

namespace mlir {
namespace mxfp8train {
namespace gpu_lowering {

/// Which GEMMs write which bf16 sums.
class GemmSumFusion {
public:
  /// Plans the fusion over `module`.
  static std::shared_ptr<GemmSumFusion> plan(ModuleOp module);

  /// The sum `gemm` (a Float8 scaled_grouped_mm, by address) writes,
  /// if it is planned and still its result's only user; null otherwise.
  linalg::GenericOp getSum(Operation *gemm) const;
  /// The other term of the sum `gemm` writes (getSum non-null).
  Value getAddend(Operation *gemm) const;
  /// Whether the elementwise pattern leaves `generic` to its GEMM: it is a
  /// planned sum whose GEMM still defines its term.
  bool isLeftToGemm(linalg::GenericOp generic) const;

private:
  struct Sum {
    Operation *gemm;
    /// The generic's input the GEMM's result is (0 or 1).
    unsigned term;
  };
  DenseMap<Operation *, Sum> sums;
  DenseMap<Operation *, Operation *> sumOfGemm;
};

/// Replaces GEMM `op` by its output `out` (a tensor): the planned sum of
/// `fusion` when the GEMM wrote it (`wroteSum`), else the GEMM's result.
void replaceGemmResult(RewriterBase &rewriter, Operation *op, Value out,
                       const GemmSumFusion *fusion, bool wroteSum);

} // namespace gpu_lowering
} // namespace mxfp8train
} // namespace mlir

#endif // MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_GEMM_GEMMSUMFUSION_H
