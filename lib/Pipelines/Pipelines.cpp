//===- Pipelines.cpp - mxfp8train named pass pipelines ----------*- C++ -*-===//
//
// The CPU lowering pipeline: collectives and MoE exchange ops -> runtime
// calls; mxfp8train -> linalg on tensors -> tiled and
// vectorized linalg -> buffers with out-parameters -> LLVM dialect. Built
// from typed pass constructors and option structs, so a wrong option is a
// compile error rather than a pipeline-string parse failure at run time.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Pipelines/Pipelines.h"
#include "PipelineErrors.h"
#include "mxfp8train/Conversion/Passes.h"
#include "mxfp8train/Pipelines/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::mxfp8train;

/// canonicalize, then cse.
static void addCleanup(OpPassManager &pm) {
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void mlir::mxfp8train::buildMXFP8TrainCPUPipeline(
    OpPassManager &pm, const CPUPipelineOptions &options) {
  if (!checkModuleAnchor(pm, "mxfp8train-lower-to-cpu"))
    return;
  pm.addPass(createMXFP8TrainVerifyLoweringInputPass());
  // First, before any folding: fp8/e8m0 arith in user IR (see the pass).
  pm.addPass(createMXFP8TrainLowerNarrowFloatArithPass());
  // Collectives and the MoE exchange ops (moe_dispatch, moe_combine) become
  // runtime calls on the thread's bound communicator, on tensors, before
  // anything else lowers them; a module without them is left as it is.
  pm.addPass(createConvertShardToRuntimeCollectivesPass());
  // Elementwise arith on whole tensors (e.g. the truncf of an f32 partial
  // sum that shard-partition emits after an all_reduce) becomes a
  // linalg.generic like the user's own; bufferization takes no tensor arith.
  pm.addPass(createConvertElementwiseToLinalgPass());
  // linalg.softmax, linalg.pack / unpack: upstream's decompositions.
  pm.addPass(createMXFP8TrainDecomposeLinalgPass());
  // complex arithmetic as arith / math on the real and imaginary parts.
  pm.addPass(createConvertComplexToStandardPass());
  pm.addPass(createConvertMXFP8TrainToLinalgPass());
  addCleanup(pm);
  // Divisions by constant zeros, while their constants are tensors (the end
  // of the pipeline checks again: folding can make more).
  pm.addPass(createMXFP8TrainCheckConstantDivisorsPass());
  pm.addPass(createMXFP8TrainCPUPrepareMatmulsPass());
  addCleanup(pm);
  // Long reductions with few outputs as partial sums, as the GPU pipeline
  // splits them (the same order of additions on both).
  if (options.splitReductions) {
    pm.addPass(createMXFP8TrainCPUSplitReductionsPass());
    addCleanup(pm);
  }
  if (options.vectorize)
    pm.addPass(createMXFP8TrainCPUTileAndVectorizePass());
  addCleanup(pm);
  // Buffers: function results become caller-allocated out-parameters so that
  // the host side owns every buffer it sees.
  pm.addPass(createMXFP8TrainDistinctResultsPass());
  // A loop may yield a tensor computed in its body (a new buffer per
  // iteration) rather than one equivalent to its iter_arg.
  addOneShotBufferizePass(pm);
  bufferization::BufferResultsToOutParamsPassOptions outParams;
  outParams.hoistStaticAllocs = true;
  outParams.modifyPublicFunctions = true;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
  pm.addPass(createCanonicalizerPass());
  MXFP8TrainCheckBufferSizesPassOptions bufferSizes;
  bufferSizes.maxBytes = options.maxBufferBytes;
  pm.addPass(createMXFP8TrainCheckBufferSizesPass(bufferSizes));
  bufferization::buildBufferDeallocationPipeline(pm);
  pm.addPass(createMXFP8TrainEmitCInterfacePass());
  pm.addPass(createMXFP8TrainCPULowerVectorsPass());

  // Copies of strided views as loops (memref.copy of them would call the
  // memrefCopy runtime function, which nothing links).
  pm.addNestedPass<func::FuncOp>(createMXFP8TrainStridedCopiesPass());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addNestedPass<func::FuncOp>(createConvertVectorToSCFPass(
      VectorTransferToSCFOptions().enableFullUnroll()));
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  // Math ops LLVM has no lowering of: expanded, or C library calls (on
  // vectors unrolled into vector ops, hence before vector-to-llvm).
  MXFP8TrainLegalizeMathPassOptions legalizeMath;
  legalizeMath.libmCalls = true;
  pm.addPass(createMXFP8TrainLegalizeMathPass(legalizeMath));
  ConvertVectorToLLVMPassOptions vectorToLLVM;
  vectorToLLVM.vectorContractLowering =
      vector::VectorContractLowering::OuterProduct;
  vectorToLLVM.vectorTransposeLowering =
      vector::VectorTransposeLowering::Shuffle1D;
  pm.addPass(createConvertVectorToLLVMPass(vectorToLLVM));
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createMXFP8TrainExpandArithPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertComplexToLLVMPass());
  addHostToLLVMPasses(pm);
  // Divisions LLVM would fold into a silent value.
  pm.addPass(createMXFP8TrainCheckConstantDivisorsPass());
}

void mlir::mxfp8train::addOneShotBufferizePass(OpPassManager &pm) {
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  bufferize.allowReturnAllocsFromLoops = true;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
}

void mlir::mxfp8train::addHostToLLVMPasses(OpPassManager &pm) {
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  // The output reads in upstream tools, which lack our dialect.
  pm.addPass(createMXFP8TrainStripAttributesPass());
}

void mlir::mxfp8train::registerMXFP8TrainPipelines() {
  PassPipelineRegistration<CPUPipelineOptions>(
      "mxfp8train-lower-to-cpu",
      "Lower a tensor-level mxfp8train/linalg module to the LLVM dialect for "
      "the CPU (JIT with mlir::ExecutionEngine)",
      buildMXFP8TrainCPUPipeline);
  registerMXFP8TrainGPUPipeline();
}
