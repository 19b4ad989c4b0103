//===- Float8TransposeFusion.h - casts write K-major copies -----*- C++ -*-===//
//
// fp8 wgmma reads K-major shared memory only, so the sm_90a Float8 GEMM
// reads an MN-major operand (the dgrad's weight stored (E, K, N), the
// wgrad's tokens (T, M) and (T, N)) from the K-major buffer of the fp8
// transpose pre-pass (Float8Transpose.h). Where that operand is the data of
// a Float8 `quantize` in the same block (a column cast along K, a per-group
// cast with the GEMM's token groups, or a tensorwise cast), the cast kernel
// writes that buffer itself: the transpose's tile walk
// (emitFloat8TransposeTiles) whose chunks are cast from the cast's input
// instead of copied from its bytes. The bytes are the same (the scale comes
// from the same amax words, the element cast is castLanes), and the
// pre-pass, which read and wrote every fp8 byte once more, goes away.
//
// The plan is made before the lowering patterns run: per fused quantize,
// the K-major buffer and its tensor map (createPaddedOperands, at the start
// of the block) and, 2d-2d, the GEMM's offsets as a buffer created before
// the quantize. The GEMM operands that read exactly that form (the same
// transpose spec and box rows; 2d-2d the same token groups) share it;
// others keep their pre-pass. The cast still writes its row-major data
// when anything else reads it (dense casts only: a per-group cast whose
// data has other readers is not fused).
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_GEMM_FLOAT8TRANSPOSEFUSION_H
#define MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_GEMM_FLOAT8TRANSPOSEFUSION_H

#include "GemmLaunch.h"
#include "WGMMAFloat8.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"

#include <memory>

namespace mlir {
namespace mxfp8train {
namespace gpu_lowering {

class KernelInput;

/// A Float8 cast's data written K-major for the GEMM operands that read it.
struct FusedTransposedOperand {
  Float8TransposedForm form;
  /// The flat fp8 buffer (getBufferElements) and its tensor map.
  Value buffer, map;
  /// 2d-2d: the GEMM's token group offsets (memref<G x i32>, created
  /// before the quantize); null otherwise.
  Value offs;
  /// Whether the cast also writes its row-major data (other users read it).
  bool writeData = false;
};

/// The Float8 quantizes that write a GEMM operand's K-major buffer, and the
/// GEMM operands that read it.
class Float8TransposeFusion {
public:
  /// Plans the fusion over `module` (sm_90a Float8 GEMMs of `target`) and
  /// creates the buffers and maps of the fused operands.
  static std::shared_ptr<Float8TransposeFusion>
  plan(ModuleOp module, const GPUTargetInfo &target);

  /// The form the Float8 `quantize` writes, or null.
  const FusedTransposedOperand *getQuantizeOutput(Operation *quantize) const {
    return byQuantize.lookup(quantize);
  }
  /// The fused form GEMM `gemm` reads for operand `operand` (0: A, 1: B),
  /// or null.
  const FusedTransposedOperand *getGemmOperand(Operation *gemm,
                                               unsigned operand) const {
    return byGemm.lookup({gemm, operand});
  }
  /// Number of fused quantizes.
  size_t size() const { return operands.size(); }

private:
  SmallVector<std::unique_ptr<FusedTransposedOperand>> operands;
  DenseMap<Operation *, FusedTransposedOperand *> byQuantize;
  DenseMap<std::pair<Operation *, unsigned>, FusedTransposedOperand *> byGemm;
};

/// How the scales of a cast that writes a K-major copy are laid out: one
/// (tensorwise, the rank-0 buffer), one per (batch, operand row) (a column
/// cast: batches x rows), one per (token group, operand row) (per-group:
/// groups x rows).
enum class Float8ScaleLayout { Tensor, Column, Group };

/// One cast written by launchFloat8KMajorCast: its fused K-major form, its
/// row-major data viewed (batches x K, rows) when fused->writeData (else
/// null), and its scales (the rank-0 buffer, or flat).
struct Float8KMajorCastOutput {
  const FusedTransposedOperand *fused;
  Value data, scales;
};

/// Launches the cast kernel that writes `outputs` at the current insertion
/// point: `input` (the quantizes' KernelInput: one result per output, in
/// order) with its views `ins` as (batches x K, rows) of the outputs' form
/// (every output has the same Float8TransposeSpec), and the amax words
/// `words` (i32, flat) that the amax kernel filled: Tensor, one word per
/// output; Column and Group, one output with one word per scale. Every
/// scale is written from its word (computeFloat8Scale), each K-major
/// buffer per 128 x 128 tile. Several outputs are sibling tensorwise casts
/// of one producer (Float8SiblingCasts.h): the producer is evaluated once
/// per chunk for all of them.
void launchFloat8KMajorCast(RewriterBase &rewriter, Location loc,
                            const KernelCache &cache,
                            ArrayRef<Float8KMajorCastOutput> outputs,
                            Float8ScaleLayout layout, const KernelInput &input,
                            ValueRange ins, Value words, Type inType,
                            bool pow2);

} // namespace gpu_lowering
} // namespace mxfp8train
} // namespace mlir

#endif // MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_GEMM_FLOAT8TRANSPOSEFUSION_H
