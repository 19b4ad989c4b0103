//===- Passes.cpp - C API of the mxfp8train passes and pipelines ----------===//
//
// The generated pass entry points of the three pass groups and the pipeline
// registration.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train-c/Passes.h"

#include "mxfp8train/Conversion/Passes.h"
#include "mxfp8train/Dialect/MXFP8Train/Transforms/Passes.h"
#include "mxfp8train/Pipelines/Passes.h"
#include "mxfp8train/Pipelines/Pipelines.h"

#include "mlir/CAPI/Pass.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace mlir::mxfp8train;

#ifdef __cplusplus
extern "C" {
#endif

#include "mxfp8train/Conversion/Passes.capi.cpp.inc"
#include "mxfp8train/Dialect/MXFP8Train/Transforms/Passes.capi.cpp.inc"
#include "mxfp8train/Pipelines/Passes.capi.cpp.inc"

#ifdef __cplusplus
}
#endif

// The pass registry rejects a pipeline registered twice; the C entry points
// may be called any number of times, so they register once.
void mxfp8trainRegisterPipelines(void) {
  static const bool registered = [] {
    registerMXFP8TrainPipelines();
    return true;
  }();
  (void)registered;
}

void mxfp8trainRegisterAllPasses(void) {
  registerMXFP8TrainPasses();
  registerMXFP8TrainConversionPasses();
  registerMXFP8TrainPipelinesPasses();
  mxfp8trainRegisterPipelines();
}
