//===- GPUPipeline.cpp - mxfp8train-lower-to-gpu ----------------*- C++ -*-===//
//
// The GPU lowering pipeline: mxfp8train ops and matmuls -> kernel launches
// (convert-mxfp8train-to-gpu) -> buffers, results as caller-owned
// out-parameters -> the other linalg ops as outlined kernels (upstream
// parallel-loop mapping) -> every buffer in device memory -> one stream per
// call ->
// NVVM, embedded cubins (or PTX) -> LLVM dialect host code calling the
// upstream mgpu* runtime ABI. `mlir-translate --mlir-to-llvmir` and `llc`
// turn the result into a host object (scripts/aot-compile.sh).
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Conversion/MXFP8TrainToGPU/MXFP8TrainToGPU.h"
#include "mxfp8train/Conversion/Passes.h"
#include "mxfp8train/Pipelines/Passes.h"
#include "mxfp8train/Pipelines/Pipelines.h"

#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::mxfp8train;

/// Appends a textual pipeline (registering the upstream passes on first
/// use); the texts are built here from validated options, so a parse
/// failure is a programming error.
llvm::StringRef
mlir::mxfp8train::stringifyGPUBinaryFormat(GPUBinaryFormat format) {
  switch (format) {
  case GPUBinaryFormat::Bin:
    return "bin";
  case GPUBinaryFormat::Isa:
    return "isa";
  case GPUBinaryFormat::Fatbin:
    return "fatbin";
  case GPUBinaryFormat::Llvm:
    return "llvm";
  }
  llvm_unreachable("unknown GPUBinaryFormat");
}

static void addGPUPipeline(OpPassManager &pm, const std::string &text) {
  static bool registered = [] {
    mlir::registerAllPasses();
    return true;
  }();
  (void)registered;
  if (failed(parsePassPipeline(text, pm, llvm::errs())))
    llvm::report_fatal_error("mxfp8train: malformed GPU pipeline");
}

void mlir::mxfp8train::buildMXFP8TrainGPUPipeline(
    OpPassManager &pm, const GPUPipelineOptions &options) {
  // An unknown chip is reported by convert-mxfp8train-to-gpu itself.
  std::optional<GPUChip> chip = parseGPUChip(options.chip);
  std::string features = options.features.empty()
                             ? (chip ? getGPUTargetInfo(*chip).ptxFeatures : "")
                             : options.features.getValue();

  ConvertMXFP8TrainToGPUPassOptions convertOptions;
  convertOptions.chip = options.chip;
  convertOptions.fuseDual = options.fuseDual;
  convertOptions.fuseProducers = options.fuseProducers;
  convertOptions.elementwiseKernels = options.elementwiseKernels;
  convertOptions.simpleGemm = options.simpleGemm;
  // canonicalize and cse run before the conversion, never between it and
  // bufferization: the kernels read tensors through
  // `bufferization.to_buffer`, which cse would merge across the ops in
  // between (two launches reading %a share the first to_buffer). One-shot
  // bufferization then sees %a's last read too early and may write a later
  // result into %a's buffer in place, before the second launch reads it.
  pm.addPass(createMXFP8TrainVerifyLoweringInputPass());
  // First, before any folding: fp8/e8m0 arith in user IR (see the pass).
  pm.addPass(createMXFP8TrainLowerNarrowFloatArithPass());
  addGPUPipeline(pm, "canonicalize,cse");
  pm.addPass(createConvertMXFP8TrainToGPUPass(convertOptions));

  // Buffers: results become out-parameters (the caller passes device
  // pointers for every argument and result); the remaining buffers are
  // device allocations freed at the end of the call; every GPU op of a
  // call runs on one stream that is synchronized before returning. A
  // result returned twice, or an argument returned, gets its own copy
  // first (buffer-results-to-out-params needs distinct results).
  pm.addPass(createMXFP8TrainCPUDistinctResultsPass());
  // allow-return-allocs-from-loops: a loop yielding a new tensor reaches
  // mxfp8train-gpu-device-buffers, which says what it does not support.
  addGPUPipeline(pm, "one-shot-bufferize{bufferize-function-boundaries "
                     "function-boundary-type-conversion=identity-layout-map "
                     "allow-return-allocs-from-loops=true},"
                     "drop-equivalent-buffer-results,"
                     "buffer-results-to-out-params{hoist-static-allocs=true "
                     "modify-public-functions=true},"
                     "canonicalize");
  // The remaining linalg ops (elementwise, broadcasts, transposes, fills,
  // reductions) through upstream passes: parallel loops, tiled into CTAs of
  // 256 threads (innermost dimension on threadIdx.x), mapped to the grid
  // and outlined into kernels.
  addGPUPipeline(pm, "func.func(mxfp8train-gpu-strided-copies,"
                     "convert-linalg-to-parallel-loops,"
                     "mxfp8train-gpu-tile-parallel-loops,"
                     "gpu-map-parallel-loops{mapping-policy=innermost-first},"
                     "convert-parallel-loops-to-gpu),"
                     "gpu-kernel-outlining,canonicalize,cse");
  pm.addPass(createMXFP8TrainGPUDeviceBuffersPass());
  addGPUPipeline(pm, "func.func(gpu-async-region)");
  pm.addPass(createMXFP8TrainCPUEmitCInterfacePass());

  // Device code.
  addGPUPipeline(
      pm, llvm::formatv("nvvm-attach-target{{chip={0} features={1} O={2}},"
                        "gpu.module(lower-affine,convert-scf-to-cf,"
                        "convert-gpu-to-nvvm{{use-bare-ptr-memref-call-conv=1},"
                        "convert-nvvm-to-llvm,"
                        "canonicalize,cse,reconcile-unrealized-casts),"
                        "gpu-module-to-binary{{format={3} toolkit={4}}",
                        options.chip.getValue(), features,
                        options.optLevel.getValue(),
                        stringifyGPUBinaryFormat(options.format.getValue()),
                        options.toolkit.getValue())
              .str());

  // Host code.
  addGPUPipeline(pm, "expand-strided-metadata,lower-affine,convert-scf-to-cf,"
                     "gpu-to-llvm{use-bare-pointers-for-kernels=1},"
                     "finalize-memref-to-llvm,"
                     "convert-arith-to-llvm,convert-index-to-llvm,"
                     "convert-cf-to-llvm,convert-func-to-llvm,"
                     "convert-ub-to-llvm,reconcile-unrealized-casts");
}

void mlir::mxfp8train::registerMXFP8TrainGPUPipeline() {
  PassPipelineRegistration<GPUPipelineOptions>(
      "mxfp8train-lower-to-gpu",
      "Lower mxfp8train quantization and layout ops on tensors to CUDA "
      "kernels and LLVM-dialect host code calling the mgpu* runtime ABI",
      buildMXFP8TrainGPUPipeline);
}
