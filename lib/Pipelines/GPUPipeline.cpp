//===- GPUPipeline.cpp - mxfp8train-lower-to-gpu ----------------*- C++ -*-===//
//
// The GPU lowering pipeline: mxfp8train ops and matmuls -> kernel launches
// (convert-mxfp8train-to-gpu) -> buffers, results as caller-owned
// out-parameters -> the other linalg ops as outlined kernels (upstream
// parallel-loop mapping) -> every buffer in device memory -> one stream per
// call ->
// NVVM, embedded cubins (or PTX) -> LLVM dialect host code calling the
// upstream mgpu* runtime ABI. `mlir-translate --mlir-to-llvmir` and `llc`
// turn the result into a host object (scripts/aot-compile.sh). Built from
// typed pass constructors and option structs.
//
//===----------------------------------------------------------------------===//

#include "PipelineErrors.h"
#include "mxfp8train/Conversion/MXFP8TrainToGPU/MXFP8TrainToGPU.h"
#include "mxfp8train/Conversion/Passes.h"
#include "mxfp8train/Pipelines/Passes.h"
#include "mxfp8train/Pipelines/Pipelines.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::mxfp8train;

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

/// canonicalize, then cse.
static void addCleanup(OpPassManager &pm) {
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

/// Why the pipeline cannot be built from `options` (for `chip`, when it is
/// known), or "": what would otherwise fail deep in upstream's passes.
static std::string checkOptions(std::optional<GPUChip> chip,
                                const GPUPipelineOptions &options) {
  // A PTX version the kernels cannot be compiled with would abort LLVM's
  // instruction selection at gpu-module-to-binary.
  if (chip && !options.features.empty())
    if (std::string why = checkPTXFeatures(*chip, options.features);
        !why.empty())
      return why;
  if (options.optLevel < 0 || options.optLevel > 3)
    return llvm::formatv(
        "opt-level {0}: expected 0 to 3 (the NVPTX optimization level)",
        options.optLevel.getValue());
  // gpu-module-to-binary links libdevice from the toolkit for every format
  // (and runs its ptxas for bin and fatbin); a toolkit given that is not
  // there was reported by it, and format=isa still succeeded. (Where the
  // default is absent, format=isa of kernels without libdevice calls works,
  // as upstream's lowering does: not checked.)
  if (options.toolkit.hasValue() &&
      !llvm::sys::fs::is_directory(options.toolkit))
    return llvm::formatv(
        "toolkit '{0}' is not a directory (the CUDA toolkit: the NVVM target "
        "links {0}/nvvm/libdevice, and format=bin|fatbin run {0}/bin/ptxas)",
        options.toolkit.getValue());
  return "";
}

void mlir::mxfp8train::buildMXFP8TrainGPUPipeline(
    OpPassManager &pm, const GPUPipelineOptions &options) {
  if (!checkModuleAnchor(pm, "mxfp8train-lower-to-gpu"))
    return;
  // An unknown chip is reported by convert-mxfp8train-to-gpu itself.
  std::optional<GPUChip> chip = parseGPUChip(options.chip);
  std::string features = options.features.empty()
                             ? (chip ? getGPUTargetInfo(*chip).ptxFeatures : "")
                             : options.features.getValue();
  std::string optionError = checkOptions(chip, options);
  if (!optionError.empty()) {
    pm.addPass(createPipelineErrorPass("mxfp8train-lower-to-gpu",
                                       std::move(optionError)));
    return;
  }

  ConvertMXFP8TrainToGPUPassOptions convertOptions;
  convertOptions.chip = options.chip;
  convertOptions.fuseDual = options.fuseDual;
  convertOptions.fuseProducers = options.fuseProducers;
  convertOptions.elementwiseKernels = options.elementwiseKernels;
  convertOptions.simpleGemm = options.simpleGemm;
  convertOptions.float8PromoteInterval = options.float8PromoteInterval;
  convertOptions.float8PromoteUnroll = options.float8PromoteUnroll;
  convertOptions.float8PromoteTileN = options.float8PromoteTileN;
  convertOptions.gemmClusterM = options.gemmClusterM;
  convertOptions.fuseDequant = options.fuseDequant;
  convertOptions.deferFp8 = options.deferFp8;
  convertOptions.columnCastLanes = options.columnCastLanes;
  convertOptions.stageRowScales = options.stageRowScales;
  convertOptions.fusePadding = options.fusePadding;
  convertOptions.splitReductions = options.splitReductions;
  convertOptions.reductionKernels = options.reductionKernels;
  convertOptions.fuseSiblingCasts = options.fuseSiblingCasts;
  convertOptions.fuseTransposes = options.fuseTransposes;
  convertOptions.fuseGemmSums = options.fuseGemmSums;
  convertOptions.fuseGemmAmax = options.fuseGemmAmax;
  convertOptions.gemmAmaxWarps = options.gemmAmaxWarps;
  // canonicalize and cse run before the conversion, never between it and
  // bufferization: the kernels read tensors through
  // `bufferization.to_buffer`, which cse would merge across the ops in
  // between (two launches reading %a share the first to_buffer). One-shot
  // bufferization then sees %a's last read too early and may write a later
  // result into %a's buffer in place, before the second launch reads it.
  pm.addPass(createMXFP8TrainVerifyLoweringInputPass());
  // First, before any folding: fp8/e8m0 arith in user IR (see the pass).
  pm.addPass(createMXFP8TrainLowerNarrowFloatArithPass());
  // Collectives and the MoE exchange ops become calls of the runtime's
  // shard ABI on the thread's bound communicator (NCCL: device buffers),
  // as in the CPU pipeline. Their operands are copied into fresh buffers
  // (gpu.memcpy after mxfp8train-gpu-device-buffers) and gpu-async-region
  // waits for the stream before each call (a host op with side effects);
  // on a device communicator the calls return once their work is done
  // (runtime/include/mxfp8train/runtime/Collectives.h).
  pm.addPass(createConvertShardToRuntimeCollectivesPass());
  // Elementwise arith on whole tensors (e.g. the truncf of an f32 partial
  // sum that shard-partition emits after an all_reduce) becomes a
  // linalg.generic like the user's own; bufferization takes no tensor arith.
  pm.addPass(createConvertElementwiseToLinalgPass());
  // linalg.softmax, linalg.pack / unpack: upstream's decompositions.
  pm.addPass(createMXFP8TrainDecomposeLinalgPass());
  // complex arithmetic as arith / math on the real and imaginary parts.
  pm.addPass(createConvertComplexToStandardPass());
  addCleanup(pm);
  // Shapes still dynamic after the cleanup (a cast to ? and back folds)
  // have no kernels: an error at the op.
  MXFP8TrainVerifyLoweringInputPassOptions staticShapes;
  staticShapes.staticShapes = true;
  pm.addPass(createMXFP8TrainVerifyLoweringInputPass(staticShapes));
  pm.addPass(createConvertMXFP8TrainToGPUPass(convertOptions));

  // Buffers: results become out-parameters (the caller passes device
  // pointers for every argument and result); the remaining buffers are
  // device allocations freed at the end of the call; every GPU op of a
  // call runs on one stream that is synchronized before returning. A
  // result returned twice, or an argument returned, gets its own copy
  // first (buffer-results-to-out-params needs distinct results).
  pm.addPass(createMXFP8TrainDistinctResultsPass());
  // allow-return-allocs-from-loops: a loop yielding a new tensor reaches
  // mxfp8train-gpu-device-buffers, which says what it does not support.
  addOneShotBufferizePass(pm);
  pm.addPass(bufferization::createDropEquivalentBufferResultsPass());
  bufferization::BufferResultsToOutParamsPassOptions outParams;
  outParams.hoistStaticAllocs = true;
  outParams.modifyPublicFunctions = true;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
  pm.addPass(createCanonicalizerPass());
  // The remaining linalg ops (elementwise, broadcasts, transposes, fills,
  // reductions) through upstream passes: parallel loops, tiled into CTAs of
  // 256 threads (innermost dimension on threadIdx.x), mapped to the grid
  // and outlined into kernels.
  OpPassManager &funcPm = pm.nest<func::FuncOp>();
  MXFP8TrainStridedCopiesPassOptions memcpyCopies;
  memcpyCopies.gpuMemcpy = true;
  funcPm.addPass(createMXFP8TrainStridedCopiesPass(memcpyCopies));
  funcPm.addPass(createConvertLinalgToParallelLoopsPass());
  funcPm.addPass(createMXFP8TrainGPUTileParallelLoopsPass());
  GpuMapParallelLoopsPassOptions mapping;
  mapping.mappingPolicyStr = "innermost-first";
  funcPm.addPass(createGpuMapParallelLoopsPass(mapping));
  funcPm.addPass(createConvertParallelLoopToGpuPass());
  funcPm.addPass(createMXFP8TrainGPULaunchViewArgsPass());
  pm.addPass(createGpuKernelOutliningPass());
  addCleanup(pm);
  pm.addPass(createMXFP8TrainGPUDeviceBuffersPass());
  pm.addNestedPass<func::FuncOp>(createGpuAsyncRegionPass());
  if (options.joinStreams)
    pm.addNestedPass<func::FuncOp>(createMXFP8TrainGPUJoinStreamsPass());
  pm.addPass(createMXFP8TrainEmitCInterfacePass());

  // Device code.
  pm.addPass(createMXFP8TrainCheckKernelTypesPass());
  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.features = features;
  target.optLevel = options.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(target));
  // Math ops without a libdevice or NVVM lowering, in kernels and host
  // code: expanded (math.sincos into libdevice's sin and cos); in host
  // code the functions LLVM lacks as C library calls.
  MXFP8TrainLegalizeMathPassOptions legalizeMath;
  legalizeMath.libmCalls = true;
  pm.addPass(createMXFP8TrainLegalizeMathPass(legalizeMath));
  OpPassManager &gpuPm = pm.nest<gpu::GPUModuleOp>();
  gpuPm.addPass(createLowerAffinePass());
  gpuPm.addPass(createSCFToControlFlowPass());
  ConvertGpuOpsToNVVMOpsOptions toNVVM;
  toNVVM.useBarePtrCallConv = true;
  // complex values a kernel still carries (create / re / im): LLVM structs.
  gpuPm.addPass(createConvertComplexToLLVMPass());
  gpuPm.addPass(createConvertGpuOpsToNVVMOps(toNVVM));
  // What libdevice does not cover (math.ctlz, cttz, ctpop, trunc): LLVM
  // intrinsics, which NVPTX selects.
  gpuPm.addPass(createConvertMathToLLVMPass());
  gpuPm.addPass(createConvertNVVMToLLVMPass());
  addCleanup(gpuPm);
  gpuPm.addPass(createReconcileUnrealizedCastsPass());
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget =
      stringifyGPUBinaryFormat(options.format.getValue()).str();
  binary.toolkitPath = options.toolkit;
  pm.addPass(createGpuModuleToBinaryPass(binary));

  // Host code.
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  GpuToLLVMConversionPassOptions toLLVM;
  toLLVM.kernelBarePtrCallConv = true;
  pm.addPass(createGpuToLLVMConversionPass(toLLVM));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertComplexToLLVMPass());
  addHostToLLVMPasses(pm);
}

void mlir::mxfp8train::registerMXFP8TrainGPUPipeline() {
  PassPipelineRegistration<GPUPipelineOptions>(
      "mxfp8train-lower-to-gpu",
      "Lower mxfp8train quantization and layout ops on tensors to CUDA "
      "kernels and LLVM-dialect host code calling the mgpu* runtime ABI",
      buildMXFP8TrainGPUPipeline);
}
