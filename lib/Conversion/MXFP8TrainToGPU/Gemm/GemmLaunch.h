//===- GemmLaunch.h - host side of the GPU GEMM kernels ---------*- C++ -*-===//
//
// What the GEMM patterns (GemmPatterns.cpp, WGMMAFloat8.cpp,
// TCGen05Launch.cpp, HighPrecisionGemm.cpp) build on the host around a
// GEMM kernel of GemmMainloop.h: its buffers (flat views, the tail
// arguments in GemmArgs order, Float8 scale buffers), the padded operand
// buffers with their TMA tensor maps, and the persistent launch.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_GEMM_GEMMLAUNCH_H
#define MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_GEMM_GEMMLAUNCH_H

#include "../KernelBuilder.h"
#include "GemmSpec.h"

namespace mlir {
namespace mxfp8train {
namespace gpu_lowering {

/// `tensor`'s buffer viewed as 1-D.
Value flatBuffer(RewriterBase &rewriter, Location loc, Value tensor);

/// What a GEMM's epilogue reads and writes besides its output: the other
/// term of the sum it writes (GemmSpec::addendType, GemmSumFusion.h), the
/// tensors its amax epilogue reads and the amax words it writes
/// (GemmSpec::amaxProducer, GemmAmaxFusion.h); each null or empty
/// without.
struct GemmEpilogueOperands {
  Value addend;
  SmallVector<Value, 2> amaxInputs;
  Value amaxWords;
};

/// Appends the trailing GEMM kernel arguments (GemmArgs order) to `args`:
/// the buffers of `offs`, `bias`, `epilogue.addend` and the
/// `epilogue.amaxInputs` (viewed as 1-D) where present, the result buffer
/// of `resultType` viewed as 1-D, then `epilogue.amaxWords` if any.
/// Returns the result buffer (its shape).
Value appendGemmTailArgs(RewriterBase &rewriter, Location loc,
                         SmallVectorImpl<Value> &args, Value offs, Value bias,
                         RankedTensorType resultType,
                         const GemmEpilogueOperands &epilogue = {});

/// The f32 scales of a Float8 GEMM operand as the epilogue reads them
/// (Float8EpilogueScales): a tensorwise (0-d) scale's buffer, rowwise
/// scales viewed as 1-D.
Value getFloat8ScalesBuffer(RewriterBase &rewriter, Location loc, Value scales);

/// A pre-dequantized operand's padded bf16 buffer on the host: `rows` rows
/// (batches stacked) of `rowElems` elements, loaded by the GEMM kernel in
/// boxes of `boxRows` rows x 128 bytes (64 elements; 128 for the fp8
/// buffers of the Float8 transpose pre-pass, Float8Transpose.h).
struct PaddedOperandShape {
  int64_t rows, rowElems, boxRows;
  /// bf16 when null (f16 for f16 high-precision operands, fp8 for the
  /// Float8 transposed operands).
  Type elementType = {};
};

/// A pre-dequantized operand on the host: its padded bf16 buffer (flat) and
/// the tensor map through which the GEMM kernel loads it.
struct PaddedOperand {
  Value buffer, map;
};

/// Allocates the flat padded bf16 buffer of each of `shapes` and creates
/// its tensor map: the buffer viewed 2-D, boxes of `boxRows` rows x 128
/// bytes in the 128-byte swizzle, zero fill (the runtime's
/// `mgpuTensorMapEncodeTiledMemref`), freed at the end of the block. The
/// allocations go to the start of the insertion block and the maps, in
/// order, after the block's leading allocations: gpu-async-region
/// synchronizes the stream before any host call that follows GPU work in
/// the block, and there only the (synchronous) allocations precede them,
/// so the block's launches stay on one stream without a wait.
SmallVector<PaddedOperand>
createPaddedOperands(RewriterBase &rewriter, Location loc,
                     ArrayRef<PaddedOperandShape> shapes);

/// Creates (or reuses) the kernel of `spec`, whose body `emitBody` writes
/// from the kernel arguments, and launches it on `args` (GemmArgs order):
/// `spec.threads()` threads, `.maxntid` and `.minnctapersm
/// spec.ctasPerSM`, a persistent grid of min(tiles, ctasPerSM x SMs) CTAs
/// (every argument but the output read only; the amax words, last with
/// GemmSpec::amaxProducer, read and written by atomics)
/// and `spec.sharedBytes()` of dynamic shared memory. With
/// `spec.clusterSize()` > 1 the grid is of clusters of that many CTAs
/// (`clusters in`, the kernel's `nvvm.cluster_dim`), one cluster per unit
/// of the walk (GemmSpec::numTiles): min(units, SMs / clusterSize)
/// clusters.
void launchGemmKernel(
    RewriterBase &rewriter, Location loc, const KernelCache &cache,
    const GemmSpec &spec, ArrayRef<Value> args,
    function_ref<void(KernelBuilder &, ValueRange kernelArgs)> emitBody);

/// Completes `args` (the operands and scales, GemmArgs order) with the tail
/// arguments (appendGemmTailArgs: `offs`, `bias`, the epilogue's operands,
/// the result buffer of `resultType`), launches the kernel of `spec`
/// (launchGemmKernel, body `emitBody`) on them, and replaces `op` with the
/// result, or, with an addend (GemmSumFusion::getAddend), the sum it wrote.
void launchGemmAndReplace(
    RewriterBase &rewriter, Operation *op, const KernelCache &cache,
    const GemmSpec &spec, SmallVectorImpl<Value> &args, Value offs, Value bias,
    RankedTensorType resultType,
    function_ref<void(KernelBuilder &, ValueRange kernelArgs)> emitBody,
    const GemmEpilogueOperands &epilogue = {});

} // namespace gpu_lowering
} // namespace mxfp8train
} // namespace mlir

#endif // MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_GEMM_GEMMLAUNCH_H
