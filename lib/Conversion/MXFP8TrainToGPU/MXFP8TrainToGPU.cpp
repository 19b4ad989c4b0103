//===- MXFP8TrainToGPU.cpp - convert-mxfp8train-to-gpu ----------*- C++ -*-===//
//
// The pass driver: optionally fuses quantize pairs into quantize_dual, makes
// sure the module is a GPU container with `gpu.module @mxfp8train_kernels`,
// plans (sm_90a) the quantize kernels that write their GEMMs' bf16
// operands, rewrites every supported op into a kernel launch, reports the
// ops it cannot lower, and prepares the ops left to the upstream loop path
// (RemainingOps.cpp).
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Conversion/MXFP8TrainToGPU/MXFP8TrainToGPU.h"
#include "Float8CastKernels.h"
#include "FusedProducer.h"
#include "Gemm/DequantFusion.h"
#include "Gemm/Float8TransposeFusion.h"
#include "Gemm/GemmAmaxFusion.h"
#include "Gemm/GemmSumFusion.h"
#include "Gemm/WGMMAFloat8.h"
#include "KernelBuilder.h"
#include "mxfp8train/Conversion/Passes.h"
#include "mxfp8train/Conversion/Utils/EmptyShapes.h"
#include "mxfp8train/Conversion/Utils/SplitReductions.h"
#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainOps.h"
#include "mxfp8train/Dialect/MXFP8Train/Transforms/Transforms.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "convert-mxfp8train-to-gpu"

namespace mlir::mxfp8train {
#define GEN_PASS_DEF_CONVERTMXFP8TRAINTOGPUPASS
#include "mxfp8train/Conversion/Passes.h.inc"
} // namespace mlir::mxfp8train

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::gpu_lowering;

/// Every lowering pattern on the kernels of `cache`.
static void populateKernelPatterns(RewritePatternSet &patterns,
                                   KernelCache &cache, bool fuseProducers,
                                   bool elementwiseKernels) {
  populateQuantizeKernelPatterns(patterns, cache, fuseProducers);
  populateDequantizeKernelPatterns(patterns, cache);
  populateFloat8CastKernelPatterns(patterns, cache, fuseProducers);
  populateFloat8GroupCastKernelPatterns(patterns, cache, fuseProducers);
  if (elementwiseKernels)
    populateElementwiseKernelPatterns(patterns, cache, fuseProducers);
  populateLayoutKernelPatterns(patterns, cache);
  populateGemmKernelPatterns(patterns, cache);
  populateSimpleGemmKernelPatterns(patterns, cache);
}

void mlir::mxfp8train::populateMXFP8TrainToGPUConversionPatterns(
    RewritePatternSet &patterns, gpu::GPUModuleOp kernels,
    const GPUTargetInfo &target, bool fuseProducers, bool elementwiseKernels) {
  KernelCache cache(kernels, target);
  populateKernelPatterns(patterns, cache, fuseProducers, elementwiseKernels);
}

/// Whether `op` is a Float8 (f32-scaled) scaled_mm / scaled_grouped_mm.
static bool isFloat8Gemm(Operation *op) {
  if (auto mm = dyn_cast<ScaledMmOp>(op))
    return mm.isFloat8();
  if (auto gmm = dyn_cast<ScaledGroupedMmOp>(op))
    return gmm.isFloat8();
  return false;
}

/// Returns the kernel module of `module`, creating it (and marking `module`
/// as a GPU container) if needed. Fails, at the clashing op, when a symbol
/// of another kind already has the kernel module's name.
static FailureOr<gpu::GPUModuleOp> getOrCreateKernelModule(ModuleOp module) {
  if (Operation *existing = module.lookupSymbol(kKernelModuleName)) {
    if (auto kernels = dyn_cast<gpu::GPUModuleOp>(existing))
      return kernels;
    return existing->emitError() << "the symbol name '" << kKernelModuleName
                                 << "' is reserved for the kernel module of "
                                    "convert-mxfp8train-to-gpu; rename this '"
                                 << existing->getName() << "'";
  }
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  UnitAttr::get(module.getContext()));
  OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
  return gpu::GPUModuleOp::create(builder, module.getLoc(), kKernelModuleName);
}

/// Whether the integer option `name` has one of the values `allowed`;
/// reports at `module` otherwise ("NAME must be A, B or C (got V)").
static bool checkOneOf(ModuleOp module, StringRef name, int64_t value,
                       ArrayRef<int64_t> allowed) {
  if (llvm::is_contained(allowed, value))
    return true;
  InFlightDiagnostic diag = mlir::emitError(module.getLoc())
                            << "convert-mxfp8train-to-gpu: " << name
                            << " must be ";
  for (auto [i, a] : llvm::enumerate(allowed))
    diag << (i == 0 ? "" : i + 1 == allowed.size() ? " or " : ", ") << a;
  diag << " (got " << value << ")";
  return false;
}

namespace {
struct ConvertMXFP8TrainToGPUPass final
    : mxfp8train::impl::ConvertMXFP8TrainToGPUPassBase<
          ConvertMXFP8TrainToGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The chip is parsed once; the patterns dispatch on the enum.
    std::optional<GPUChip> chipKind = parseGPUChip(chip);
    if (!chipKind) {
      mlir::emitError(module.getLoc())
          << "convert-mxfp8train-to-gpu: unsupported chip '" << chip
          << "' (expected " << kSupportedGPUChips << ")";
      return signalPassFailure();
    }
    GPUTargetInfo target = getGPUTargetInfo(*chipKind);
    int64_t promoteInterval = float8PromoteInterval;
    if (promoteInterval < 0 || promoteInterval % 128) {
      mlir::emitError(module.getLoc())
          << "convert-mxfp8train-to-gpu: float8-promote-interval "
             "must be a non-negative multiple of 128 (got "
          << promoteInterval << ")";
      return signalPassFailure();
    }
    target.float8PromoteInterval = promoteInterval;
    int64_t promoteUnroll = float8PromoteUnroll;
    int64_t promoteTileN = float8PromoteTileN;
    if (!checkOneOf(module, "float8-promote-unroll", promoteUnroll,
                    {0, 1, 2, 4, 6}) ||
        !checkOneOf(module, "gemm-amax-warps", gemmAmaxWarps, {0, 1, 2, 3}) ||
        !checkOneOf(module, "float8-promote-tile-n", promoteTileN,
                    {0, 128, 160, 192}) ||
        !checkOneOf(module, "gemm-cluster-m", gemmClusterM, {0, 1, 2}) ||
        !checkOneOf(module, "column-cast-lanes", columnCastLanes, {0, 1, 2, 4}))
      return signalPassFailure();
    target.float8PromoteUnroll = promoteUnroll;
    target.gemmAmaxWarps = gemmAmaxWarps;
    if (promoteTileN > 128 && promoteUnroll > 1) {
      mlir::emitError(module.getLoc())
          << "convert-mxfp8train-to-gpu: float8-promote-tile-n " << promoteTileN
          << " keeps one accumulator set: float8-promote-unroll must be 0 or "
             "1 with it (got "
          << promoteUnroll << ")";
      return signalPassFailure();
    }
    if (gemmAmaxWarps > 0 && !fuseGemmAmax) {
      mlir::emitError(module.getLoc())
          << "convert-mxfp8train-to-gpu: gemm-amax-warps="
          << static_cast<int64_t>(gemmAmaxWarps)
          << " chooses where fuse-gemm-amax takes its amaxes: it needs "
             "fuse-gemm-amax=true";
      return signalPassFailure();
    }
    target.float8PromoteTileN = promoteTileN;
    target.gemmClusterM = gemmClusterM;
    MLIRContext *ctx = &getContext();

    {
      // Ops with nothing to compute launch nothing.
      RewritePatternSet empty(ctx);
      populateEmptyShapePatterns(empty);
      if (failed(applyPatternsGreedily(module, std::move(empty))))
        return signalPassFailure();
    }

    if (fuseDual) {
      RewritePatternSet fusion(ctx);
      populateFuseQuantizeDualPatterns(fusion);
      if (failed(applyPatternsGreedily(module, std::move(fusion))))
        return signalPassFailure();
    }

    if (*chipKind == GPUChip::SM100a && !simpleGemm) {
      // scaled_mm with row-major scales gets blocked ones through
      // to_blocked where the tcgen05 kernel takes it.
      RewritePatternSet relayout(ctx);
      populateTcgen05ScaleLayoutPatterns(relayout);
      if (failed(applyPatternsGreedily(module, std::move(relayout))))
        return signalPassFailure();
    }

    // Elementwise producers read only by a reduction the reduction kernels
    // take are evaluated in that kernel (before the elementwise kernels
    // would take them).
    if (reductionKernels)
      fuseProducersIntoReductions(module);

    bool hasWork = false;
    module.walk([&](Operation *op) {
      if (isa_and_present<MXFP8TrainDialect>(op->getDialect()) ||
          isSimpleGemmCandidate(op) ||
          (elementwiseKernels &&
           gpu_lowering::isElementwiseGeneric(dyn_cast<linalg::GenericOp>(op))))
        hasWork = true;
    });
    if (!hasWork) {
      if (failed(lowerRemainingOps(module, target, /*cache=*/nullptr)))
        signalPassFailure();
      return;
    }

    FailureOr<gpu::GPUModuleOp> kernelModule = getOrCreateKernelModule(module);
    if (failed(kernelModule))
      return signalPassFailure();
    gpu::GPUModuleOp kernels = *kernelModule;
    KernelCache cache(kernels, target);
    cache.setColumnCastLanes(int64_t(columnCastLanes));
    cache.setStageRowScales(stageRowScales);
    cache.setFusePadding(fusePadding);
    cache.setFuseSiblingCasts(fuseSiblingCasts);
    // sm_90a: quantize kernels that also write the bf16 operands of the
    // pre-dequantized GEMMs they feed, instead of the GEMMs' pre-passes.
    if (fuseDequant && *chipKind == GPUChip::SM90a && !simpleGemm)
      cache.setDequantFusion(DequantFusion::plan(module, target, deferFp8));
    // sm_90a: Float8 casts that write the K-major copies the Float8 GEMMs
    // read, instead of the GEMMs' transpose pre-passes.
    if (fuseTransposes && *chipKind == GPUChip::SM90a && !simpleGemm)
      cache.setFloat8TransposeFusion(
          Float8TransposeFusion::plan(module, target));
    // sm_90a: GEMM epilogues that write the bf16 sum their result feeds.
    if (fuseGemmSums && *chipKind == GPUChip::SM90a && !simpleGemm)
      cache.setGemmSumFusion(GemmSumFusion::plan(module));
    // sm_90a: Float8 GEMM epilogues that take the tensorwise amaxes of the
    // casts of an elementwise producer of their result (after the plans the
    // casts' grouping reads).
    if (fuseGemmAmax && fuseProducers && *chipKind == GPUChip::SM90a &&
        !simpleGemm)
      cache.setGemmAmaxFusion(GemmAmaxFusion::plan(module, cache));
    RewritePatternSet patterns(ctx);
    populateKernelPatterns(patterns, cache, fuseProducers, elementwiseKernels);
    if (simpleGemm) {
      // The simple kernels again, above the specialised ones. They have no
      // Float8 form (f32 scales): those GEMMs keep their native kernels.
      populateSimpleGemmKernelPatterns(patterns, cache, /*benefit=*/2);
      module.walk([](Operation *op) {
        if (auto mm = dyn_cast<ScaledMmOp>(op); mm && mm.isFloat8())
          mm.emitWarning("simple-gemm: no simple kernel takes Float8 (f32) "
                         "scales; this GEMM keeps its fp8 kernel");
        if (auto mm = dyn_cast<ScaledGroupedMmOp>(op); mm && mm.isFloat8())
          mm.emitWarning("simple-gemm: no simple kernel takes Float8 (f32) "
                         "scales; this GEMM keeps its fp8 kernel");
      });
    }
    // Only the existing ops are rewritten; the kernels the patterns create
    // are not revisited.
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingOps);
    (void)applyPatternsGreedily(module, std::move(patterns), config);

    bool failedOps = false;
    module.walk([&](Operation *op) {
      if (!isa_and_present<MXFP8TrainDialect>(op->getDialect()))
        return;
      InFlightDiagnostic diag = op->emitError() << "'" << op->getName()
                                                << "' has no GPU lowering";
      const GemmAmaxFusion *amaxes = cache.getGemmAmaxFusion();
      Operation *host = nullptr;
      if (auto q = dyn_cast<QuantizeOp>(op); q && amaxes)
        host = amaxes->getHostGemm(q);
      if (!hasStaticShapes(op))
        diag << ": it has a dynamic shape";
      else if (host)
        diag << ": its amax was to be taken by the epilogue of the GEMM at "
             << host->getLoc()
             << ", which was not lowered (fuse-gemm-amax=false avoids it)";
      else if (isFloat8Gemm(op))
        diag << ": " << gpu_lowering::whyNoFloat8GemmLowering(op, target.chip);
      else if (isa<ScaledMmOp, ScaledGroupedMmOp>(op))
        diag << " for this form (scaled_grouped_mm needs row_major scales; "
                "scaled_mm blocked scales need rank 2 on sm_90a, and rank 2 "
                "with 16-byte aligned operand rows on sm_100a)";
      else
        diag << " (only quantize, quantize_dual, dequantize, "
                "pad/unpad_token_groups, to_blocked, grouped_mm, and "
                "scaled_mm / scaled_grouped_mm with row_major scales are "
                "lowered)";
      failedOps = true;
    });
    if (failedOps || failed(lowerRemainingOps(module, target, &cache)))
      signalPassFailure();
  }

  /// What the kernel patterns left: long reductions with few outputs split
  /// (splitSerialReductions, with split-reductions), the reductions a
  /// reduction kernel takes lowered to it (with reduction-kernels; the
  /// kernel module made if `cache` is null), the rest prepared for the loop
  /// path (prepareRemainingOps).
  LogicalResult lowerRemainingOps(ModuleOp module, const GPUTargetInfo &target,
                                  KernelCache *cache) {
    if (splitReductions)
      splitSerialReductions(module);
    if (reductionKernels) {
      SmallVector<linalg::LinalgOp> reductions =
          collectHostLinalgOps(module, isReductionKernelCandidate);
      std::optional<KernelCache> local;
      if (!reductions.empty() && !cache) {
        FailureOr<gpu::GPUModuleOp> kernels = getOrCreateKernelModule(module);
        if (failed(kernels))
          return failure();
        cache = &local.emplace(*kernels, target);
      }
      IRRewriter rewriter(module.getContext());
      for (linalg::LinalgOp op : reductions)
        if (failed(lowerReductionKernel(rewriter, op, *cache)))
          return failure();
    }
    return prepareRemainingOps(module);
  }
};
} // namespace
