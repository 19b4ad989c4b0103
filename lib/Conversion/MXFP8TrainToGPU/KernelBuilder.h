//===- KernelBuilder.h - writing CUDA kernels as IR -------------*- C++ -*-===//
//
// Internal helpers of convert-mxfp8train-to-gpu: creating (or reusing) a
// specialised gpu.func in the kernel module, grid-stride loops, 16-byte
// vector loads and stores, the hardware fp8 conversions, and the host-side
// launch sequence (to_buffer, alloc, launch_func, to_tensor).
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_KERNELBUILDER_H
#define MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_KERNELBUILDER_H

#include "mxfp8train/Conversion/MXFP8TrainToGPU/MXFP8TrainToGPU.h"
#include "mxfp8train/Conversion/Utils/QuantizeArith.h"
#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <memory>

namespace mlir {
namespace mxfp8train {
namespace gpu_lowering {

//===----------------------------------------------------------------------===//
// Kernel bodies
//===----------------------------------------------------------------------===//

/// An ImplicitLocOpBuilder with the vocabulary of the kernel bodies. Index
/// values are `index`; scalar bit arithmetic goes through `bits()` (the
/// shared QuantizeArith helpers).
class KernelBuilder : public ImplicitLocOpBuilder {
public:
  KernelBuilder(Location loc, OpBuilder &builder)
      : ImplicitLocOpBuilder(loc, builder) {}

  /// Index constant.
  Value idx(int64_t v);
  /// i32 constant.
  Value i32(int64_t v);
  /// Splat constant of `type` (a vector of integers or floats) with the bit
  /// pattern `bitsValue` in every lane.
  Value splatBits(VectorType type, uint64_t bitsValue);
  /// `blockIdx.x * blockDim.x + threadIdx.x` as index.
  Value globalThreadId();
  /// `gridDim.x * blockDim.x` as index.
  Value gridThreads();

  /// `scf.for i = gid; i < count; i += gridThreads` around `body(i)`.
  void gridStrideLoop(Value count, function_ref<void(Value)> body);
  /// `scf.for i = start; i < count; i += step` around `body(i)`.
  void forLoop(Value start, Value count, Value step,
               function_ref<void(Value)> body);
  /// `scf.if cond { then() }`.
  void ifThen(Value cond, function_ref<void()> then);

  /// `vector.load` of `type` at `indices`, aligned to `align` bytes.
  Value load(VectorType type, Value memref, ValueRange indices, int64_t align);
  /// `vector.store` aligned to `align` bytes.
  void store(Value vector, Value memref, ValueRange indices, int64_t align);

  /// Reinterprets `v` (a vector or scalar) as `type` of the same bit width.
  Value bitcastTo(Type type, Value v);
  /// |v| of a bf16/f32 vector by clearing the sign bits (exact, no float op).
  Value absBits(Value v);
  /// NaN-propagating maximum of the lanes of `v` (`vector.reduction
  /// <maximumf>`, PTX `max.NaN`).
  Value reduceMax(Value v);
  /// Converts an f32 vector to fp8 bytes with the hardware conversion
  /// (`nvvm.convert.f32x2.to.f8x2 {rn, satfinite}`: round to nearest even,
  /// saturate to ±max, NaN -> NaN); returns vector<N x i8>.
  Value convertToF8(Value f32Vector, Type f8Type);
  /// Converts fp8 bytes (vector<N x i8>) of `f8Type` to their exact f32
  /// values (`nvvm.convert.f8x2.to.f16x2`, then f16 -> f32); returns
  /// vector<N x f32>.
  Value convertFromF8(Value bytes, Type f8Type);
  /// e4m3 bytes (vector<N x i8>, N a multiple of 4) as the bf16 values of
  /// 2^-120 times their values (vector<N x bf16>), exactly and without
  /// conversion instructions: one `prmt` per bf16 pair and a shift and mask
  /// (normal and subnormal alike). The NaN codes (0x7F, 0xFF) read as
  /// +-480 * 2^-120.
  Value placeE4M3(Value bytes);
  /// Vector of the i32 scalars `scalars` truncated to bytes, as vector<N x
  /// `type`> (an 8-bit type).
  Value packBytes(ArrayRef<Value> scalars, Type type);

  /// The first (`second` false) or second half of the 1-D vector `v`.
  Value half(Value v, bool second);
  /// The 1-D vectors `a` and `b` concatenated.
  Value concat(Value a, Value b);
  /// The 1-D vector `v` of lane `lane ^ mask` of the warp
  /// (`shfl.sync.bfly`): one shuffle per 32-bit word, or one for a vector of
  /// fewer than 32 bits (zero-extended); otherwise a multiple of 32 bits.
  Value shuffleXor(Value v, int64_t mask);

  /// The shared scalar arithmetic (computeScaleByte, getBlockedOffset, ...)
  /// inserting at the current insertion point.
  lowering::Bits bits() { return lowering::Bits(*this, getLoc()); }
};

class DequantFusion;
class Float8TransposeFusion;
class GemmAmaxFusion;
class GemmSumFusion;

/// The kernel module, the target, and the kernels created so far.
class KernelCache {
public:
  KernelCache(gpu::GPUModuleOp module, const GPUTargetInfo &target)
      : module(module), target(target) {}

  /// Returns the kernel `name` of `module`, or creates it (through
  /// `rewriter`, at the end of the module) with arguments `argTypes`, of
  /// which the first `numInputs` are only read and the others only written,
  /// `workgroup` attributions and the body written by `body` (which
  /// receives the builder and the kernel arguments; the terminator is added
  /// after it). Every buffer argument is `llvm.noalias` (the host passes
  /// distinct buffers), inputs `llvm.readonly` (PTX `ld.global.nc`),
  /// outputs `llvm.writeonly`. Kernels are specialised on everything in
  /// their name, so an existing kernel of that name is the same kernel.
  gpu::GPUFuncOp getOrCreate(
      RewriterBase &rewriter, StringRef name, TypeRange argTypes,
      unsigned numInputs, TypeRange workgroup,
      function_ref<void(KernelBuilder &, ValueRange args, ValueRange wg)> body)
      const;

  /// CTAs of a grid-stride launch over `work` items of one thread each.
  int64_t getGridSize(int64_t work) const;

  const GPUTargetInfo &getTarget() const { return target; }

  /// The quantize kernels that write a GEMM's bf16 operands
  /// (Gemm/DequantFusion.h); null: none (every operand has its pre-pass).
  const DequantFusion *getDequantFusion() const { return fusion.get(); }
  void setDequantFusion(std::shared_ptr<const DequantFusion> plan) {
    fusion = std::move(plan);
  }

  /// The Float8 casts that write a Float8 GEMM's K-major operands
  /// (Gemm/Float8TransposeFusion.h); null: none (every MN-major operand has
  /// its transpose pre-pass).
  const Float8TransposeFusion *getFloat8TransposeFusion() const {
    return transposeFusion.get();
  }
  void
  setFloat8TransposeFusion(std::shared_ptr<const Float8TransposeFusion> plan) {
    transposeFusion = std::move(plan);
  }

  /// The GEMMs whose epilogue writes the bf16 sum their result feeds
  /// (Gemm/GemmSumFusion.h); null: none.
  const GemmSumFusion *getGemmSumFusion() const { return sumFusion.get(); }
  void setGemmSumFusion(std::shared_ptr<const GemmSumFusion> plan) {
    sumFusion = std::move(plan);
  }

  /// The GEMMs whose epilogue takes tensorwise Float8 casts' amaxes
  /// (Gemm/GemmAmaxFusion.h); null: none.
  const GemmAmaxFusion *getGemmAmaxFusion() const { return amaxFusion.get(); }
  void setGemmAmaxFusion(std::shared_ptr<const GemmAmaxFusion> plan) {
    amaxFusion = std::move(plan);
  }

  /// Lanes per 32-row column tile of the 32x1 and dual cast kernels (1, 2
  /// or 4); 0: the measured default (ColumnCastKernels.cpp, getColumnSplit).
  int64_t getColumnCastLanes() const { return columnCastLanes; }
  void setColumnCastLanes(int64_t lanes) { columnCastLanes = lanes; }

  /// Whether quantize_dual kernels gather a CTA's rowwise scale bytes in
  /// workgroup memory and store them as whole words of each row
  /// (ColumnCastKernels.cpp, getStagedRowScaleBlocks).
  bool getStageRowScales() const { return stageRowScales; }
  void setStageRowScales(bool stage) { stageRowScales = stage; }

  /// Whether 32x1 MX quantize kernels read a pad_token_groups' input in
  /// place of its padded data (FusedProducer.h, isFusablePad).
  bool getFusePadding() const { return fusePadding; }
  void setFusePadding(bool fuse) { fusePadding = fuse; }
  /// Whether sibling tensorwise Float8 casts of one fused producer share
  /// their amax and cast kernels (Float8SiblingCasts.h).
  bool getFuseSiblingCasts() const { return fuseSiblingCasts; }
  void setFuseSiblingCasts(bool fuse) { fuseSiblingCasts = fuse; }

private:
  gpu::GPUModuleOp module;
  GPUTargetInfo target;
  int64_t columnCastLanes = 0;
  bool stageRowScales = true;
  bool fusePadding = true;
  bool fuseSiblingCasts = true;
  std::shared_ptr<const DequantFusion> fusion;
  std::shared_ptr<const Float8TransposeFusion> transposeFusion;
  std::shared_ptr<const GemmSumFusion> sumFusion;
  std::shared_ptr<const GemmAmaxFusion> amaxFusion;
};

//===----------------------------------------------------------------------===//
// Host side
//===----------------------------------------------------------------------===//

/// True when every operand and result of `op` has a static shape.
bool hasStaticShapes(Operation *op);

/// The memref type of `type` with identity layout.
MemRefType getMemRefType(RankedTensorType type);

/// `bufferization.to_buffer %tensor read_only` (identity layout).
Value toBuffer(RewriterBase &rewriter, Location loc, Value tensor);

/// `memref.alloc` of the buffer of a result tensor of `type`.
Value allocResult(RewriterBase &rewriter, Location loc, RankedTensorType type);

/// `memref.alloc` of i32 words of `shape` (amax words, guard flags), zeroed
/// in-stream by `gpu.memset` (an empty buffer is not set).
Value allocZeroedWords(RewriterBase &rewriter, Location loc,
                       ArrayRef<int64_t> shape);

/// `bufferization.to_tensor %buffer restrict writable`.
Value toTensor(RewriterBase &rewriter, Location loc, Value buffer);

/// True for a statically shaped memref with no elements. Such buffers are
/// no kernel parameters (the bare-pointer calling convention cannot pass
/// them): KernelCache::getOrCreate gives the body a local placeholder and
/// launch() leaves them out.
bool isEmptyBuffer(Type type);

/// allocResult for every result of `op` (ranked tensors), in order.
SmallVector<Value> allocResults(RewriterBase &rewriter, Operation *op);

/// Views an identity-layout memref as `shape` (same element count): a
/// collapse of groups of consecutive dims where `shape` is a coarsening of the
/// memref's shape, else a flatten to 1-D followed by an expand (e.g. a rank-1
/// buffer viewed as 1 x N).
Value collapseTo(RewriterBase &rewriter, Location loc, Value memref,
                 ArrayRef<int64_t> shape);

/// `gpu.launch_func` of `kernel` with `gridX` CTAs of kThreadsPerCTA
/// threads.
void launch(RewriterBase &rewriter, Location loc, gpu::GPUFuncOp kernel,
            int64_t gridX, ValueRange args);

/// `op` replaced by toTensor of each of `buffers` (the buffers of its
/// results, in order, written by launches already created).
LogicalResult replaceWithBuffers(RewriterBase &rewriter, Operation *op,
                                 ValueRange buffers);

/// launch of `kernel` at `op`, then `op` replaced by toTensor of each of
/// `buffers` (the buffers of its results, in order).
LogicalResult launchAndReplace(RewriterBase &rewriter, Operation *op,
                               gpu::GPUFuncOp kernel, int64_t gridX,
                               ValueRange args, ValueRange buffers);

/// Short names used in kernel names: `bf16`, `f32`, `e4m3`, `e5m2`.
std::string getTypeTag(Type type);

/// `AxBxC` for kernel names.
std::string getShapeTag(ArrayRef<int64_t> shape);

/// The lowering of `OpTy` to kernel launches of a KernelCache: an op with a
/// dynamic shape is reported and left alone, the others go to
/// `rewriteStatic`.
template <typename OpTy> class KernelPattern : public OpRewritePattern<OpTy> {
public:
  KernelPattern(MLIRContext *ctx, KernelCache cache)
      : OpRewritePattern<OpTy>(ctx), cache(std::move(cache)) {}

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const final {
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    return rewriteStatic(op, rewriter);
  }

protected:
  /// Rewrites `op`, whose operands and results all have static shapes.
  virtual LogicalResult rewriteStatic(OpTy op,
                                      PatternRewriter &rewriter) const = 0;

  KernelCache cache;
};

//===----------------------------------------------------------------------===//
// Kernel families (QuantizeKernels.cpp, DequantizeKernels.cpp,
// LayoutKernels.cpp, Gemm/)
//===----------------------------------------------------------------------===//

/// Rewrites what the kernel patterns left for the upstream loop path and
/// bufferization (RemainingOps.cpp): linalg ops get their parallel loops
/// outside their reduction loops, linalg ops without a parallel loop get a
/// unit loop, tensors an scf.for yields other than in-place updates are
/// copied into its iter_args, and those of an scf.if into one destination.
LogicalResult prepareRemainingOps(Operation *root);
/// The linalg ops of the host code under `root` (kernel bodies, gpu.module,
/// carry no tensors; a linalg op in another's body is part of that op's
/// loops) for which `pred` holds.
SmallVector<linalg::LinalgOp>
collectHostLinalgOps(Operation *root,
                     llvm::function_ref<bool(linalg::LinalgOp)> pred);
/// Whether `op` is a host linalg op on static tensors with reduction loops
/// that a reduction kernel computes (ReductionKernels.cpp): one result,
/// indexing maps of loop dimensions and constants, the init indexed by
/// every parallel loop once (constants only on unit dimensions), no
/// linalg.index, a body
/// of side-effect-free arith/math ops on its arguments and constants,
/// i8-i64, bf16, f16, f32 or f64 operands, and not inside an scf.while.
bool isReductionKernelCandidate(linalg::LinalgOp op);
/// Fuses into each host reduction that is isReductionKernelCandidate and
/// no contraction (isSimpleGemmCandidate: a GEMM kernel may take it) the
/// elementwise producers (isElementwiseGeneric) of its inputs that have no
/// other use (upstream linalg::fuseElementwiseOps; ReductionKernels.cpp).
void fuseProducersIntoReductions(Operation *root);
/// Replaces `op` (isReductionKernelCandidate) by a launch of its reduction
/// kernel (ReductionKernels.cpp): a thread per parallel point, the
/// reduction loops in order with the accumulator in a register.
LogicalResult lowerReductionKernel(RewriterBase &rewriter, linalg::LinalgOp op,
                                   const KernelCache &cache);

/// Adds the MX quantize and quantize_dual lowerings (QuantizeKernels.cpp);
/// with `fuseProducers`, a quantize reads a fusable elementwise producer's
/// operands instead of its result (FusedProducer.h).
void populateQuantizeKernelPatterns(RewritePatternSet &patterns,
                                    KernelCache &cache, bool fuseProducers);

/// Adds the MX dequantize lowering (DequantizeKernels.cpp).
void populateDequantizeKernelPatterns(RewritePatternSet &patterns,
                                      KernelCache &cache);

/// Adds the lowering of elementwise linalg.generic ops to vectorized
/// kernels (ElementwiseKernels.cpp); with `fuseProducers`, those the
/// quantize kernels evaluate are left to them.
void populateElementwiseKernelPatterns(RewritePatternSet &patterns,
                                       KernelCache &cache, bool fuseProducers);

/// Adds pad_token_groups, unpad_token_groups and to_blocked lowerings.
void populateLayoutKernelPatterns(RewritePatternSet &patterns,
                                  KernelCache &cache);

/// Launches the re-layout of the row-major scale buffer `in` into the
/// blocked `layout` (SPEC §4; `to_blocked`'s semantics, offsets clamped as
/// on the CPU) written to `out` (the layout's shape: 1-D, or (E, size) for
/// blocked_per_expert). `in` is the scale matrix (R, C) ((E, R, C) for
/// blocked_per_expert), or with `transposed` its transpose (C, R)
/// ((E, C, R)): the scales of an MN-major operand, whose blocked layout is
/// that of the (rows, K / 32) matrix. `offs` (G, i32) for the grouped
/// layouts, else null.
void emitToBlocked(RewriterBase &rewriter, Location loc,
                   const KernelCache &cache, ScaleLayout layout,
                   bool transposed, Value in, Value offs, Value out);

/// Adds the simple tiled GEMM kernels (Gemm/SimpleGemm.cpp): linalg
/// contractions and grouped_mm in bf16/f32, and scaled_mm /
/// scaled_grouped_mm with row-major scales, all with benefit `benefit` (by
/// default 0, below the specialised GEMM kernels, which take the forms they
/// can first; `simple-gemm=true` adds them again above those).
void populateSimpleGemmKernelPatterns(RewritePatternSet &patterns,
                                      KernelCache &cache, unsigned benefit = 0);

/// True for the ops populateSimpleGemmKernelPatterns may lower that are not
/// mxfp8train MX ops (linalg contractions, grouped_mm).
bool isSimpleGemmCandidate(Operation *op);

/// The loops of `op` when it is a static tensor contraction the GEMM
/// lowerings take (mxfp8train::matchGemmContraction, Contraction.h: two
/// inputs, one result, one M, N and K loop and at most one batch loop, a
/// multiply-accumulate body), the form both the simple and the
/// high-precision wgmma GEMMs take; else a match failure on `rewriter`
/// saying why.
FailureOr<linalg::ContractionDimensions>
matchGemmContraction(linalg::LinalgOp op, RewriterBase &rewriter);

/// Adds the scaled_mm and scaled_grouped_mm lowerings to the MX GEMM
/// kernels of the target's MMA generation (Gemm/GemmPatterns.cpp; sm_90a:
/// wgmma, sm_100a: tcgen05), and the high-precision GEMMs of sm_90a
/// (populateHighPrecisionGemmPatterns).
void populateGemmKernelPatterns(RewritePatternSet &patterns,
                                KernelCache &cache);

/// Adds the high-precision GEMMs on sm_90a (Gemm/HighPrecisionGemm.cpp):
/// bf16 / f16 linalg contractions and grouped_mm on the wgmma kernel of the
/// MX GEMMs, above the simple kernels' benefit.
void populateHighPrecisionGemmPatterns(RewritePatternSet &patterns,
                                       KernelCache &cache);

/// Adds the pattern that gives every scaled_mm the tcgen05 kernel takes
/// blocked scales: each row-major scale operand goes through `to_blocked`
/// (applied before the GPU lowering on sm_100a).
void populateTcgen05ScaleLayoutPatterns(RewritePatternSet &patterns);

} // namespace gpu_lowering
} // namespace mxfp8train
} // namespace mlir

#endif // MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_KERNELBUILDER_H
