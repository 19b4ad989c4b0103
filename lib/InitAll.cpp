//===- InitAll.cpp - register everything of mxfp8train ----------*- C++ -*-===//
//
// Implements registerAllDialects / registerAllExtensions /
// registerAllWithUpstream / registerAllPasses.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/InitAll.h"

#include "mxfp8train/Conversion/Passes.h"
#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainDialect.h"
#include "mxfp8train/Dialect/MXFP8Train/Transforms/Passes.h"
#include "mxfp8train/Dialect/MXFP8Train/Transforms/ShardingInterfaceImpl.h"
#include "mxfp8train/Pipelines/Passes.h"
#include "mxfp8train/Pipelines/Pipelines.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

void mlir::mxfp8train::registerAllDialects(DialectRegistry &registry) {
  registry.insert<MXFP8TrainDialect>();
}

void mlir::mxfp8train::registerAllExtensions(DialectRegistry &registry) {
  registerShardingInterfaceExternalModels(registry);
}

void mlir::mxfp8train::registerAllWithUpstream(DialectRegistry &registry) {
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
  mlir::registerAllGPUToLLVMIRTranslations(registry);
  mxfp8train::registerAllDialects(registry);
  mxfp8train::registerAllExtensions(registry);
}

void mlir::mxfp8train::registerAllPasses() {
  registerMXFP8TrainPasses();
  registerMXFP8TrainConversionPasses();
  registerMXFP8TrainPipelinesPasses();
  registerMXFP8TrainPipelines();
}
