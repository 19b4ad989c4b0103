//===- Pipelines.cpp - mxfp8train named pass pipelines -------------*- C++
//-*-===//
//
// The CPU lowering pipeline: mxfp8train -> linalg on tensors -> tiled and
// vectorized linalg -> buffers with out-parameters -> LLVM dialect.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Pipelines/Pipelines.h"
#include "mxfp8train/Conversion/Passes.h"
#include "mxfp8train/Pipelines/Passes.h"

#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/ErrorHandling.h"

using namespace mlir;
using namespace mlir::mxfp8train;

/// Appends a textual pipeline; the texts below are fixed, so a parse failure
/// is a programming error of this file. The upstream passes they name are
/// registered on first use, so embedders need not register anything.
static void addPipeline(OpPassManager &pm, StringRef text) {
  static bool registered = [] {
    mlir::registerAllPasses();
    return true;
  }();
  (void)registered;
  if (failed(parsePassPipeline(text, pm, llvm::errs())))
    llvm::report_fatal_error("mxfp8train: malformed built-in pipeline");
}

void mlir::mxfp8train::buildMXFP8TrainCPUPipeline(
    OpPassManager &pm, const CPUPipelineOptions &options) {
  pm.addPass(createMXFP8TrainVerifyLoweringInputPass());
  // First, before any folding: fp8/e8m0 arith in user IR (see the pass).
  pm.addPass(createMXFP8TrainLowerNarrowFloatArithPass());
  pm.addPass(createConvertMXFP8TrainToLinalgPass());
  addPipeline(pm, "canonicalize,cse");
  pm.addPass(createMXFP8TrainCPUPrepareMatmulsPass());
  addPipeline(pm, "canonicalize,cse");
  if (options.vectorize)
    pm.addPass(createMXFP8TrainCPUTileAndVectorizePass());
  addPipeline(pm, "canonicalize,cse");
  // Buffers: function results become caller-allocated out-parameters so that
  // the host side owns every buffer it sees.
  pm.addPass(createMXFP8TrainCPUDistinctResultsPass());
  // A loop may yield a tensor computed in its body (a new buffer per
  // iteration) rather than one equivalent to its iter_arg.
  addPipeline(pm, "one-shot-bufferize{bufferize-function-boundaries "
                  "function-boundary-type-conversion=identity-layout-map "
                  "allow-return-allocs-from-loops=true},"
                  "buffer-results-to-out-params{hoist-static-allocs=true "
                  "modify-public-functions=true},"
                  "canonicalize,buffer-deallocation-pipeline");
  pm.addPass(createMXFP8TrainCPUEmitCInterfacePass());
  pm.addPass(createMXFP8TrainCPULowerVectorsPass());
  addPipeline(
      pm, "func.func(convert-linalg-to-loops),"
          "func.func(convert-vector-to-scf{full-unroll=true}),"
          "expand-strided-metadata,lower-affine,"
          "convert-vector-to-llvm{vector-contract-lowering=outerproduct "
          "vector-transpose-lowering=shuffle1d},lower-affine,"
          "convert-scf-to-cf,arith-expand{include-bf16=true},"
          "convert-math-to-llvm,finalize-memref-to-llvm,convert-arith-to-llvm,"
          "convert-index-to-llvm,convert-cf-to-llvm,convert-func-to-llvm,"
          "convert-ub-to-llvm,"
          "reconcile-unrealized-casts");
}

void mlir::mxfp8train::registerMXFP8TrainPipelines() {
  PassPipelineRegistration<CPUPipelineOptions>(
      "mxfp8train-lower-to-cpu",
      "Lower a tensor-level mxfp8train/linalg module to the LLVM dialect for "
      "the CPU (JIT with mlir::ExecutionEngine)",
      buildMXFP8TrainCPUPipeline);
  registerMXFP8TrainGPUPipeline();
}
