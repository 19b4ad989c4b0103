/*===- Passes.h - C API of the mxfp8train passes and pipelines ---*- C -*-===*\
|*                                                                            *|
|* Generated entry points of every pass (mlirCreate<Group><Pass>,             *|
|* mlirRegister<Group><Pass>, mlirRegister<Group>Passes) for the three pass   *|
|* groups MXFP8Train (the training rewrite), MXFP8TrainConversion (lowerings  *|
|* of the dialect) and MXFP8TrainPipelines (CPU/GPU code generation), and the *|
|* registration of the named pipelines.                                       *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef MXFP8TRAIN_C_PASSES_H
#define MXFP8TRAIN_C_PASSES_H

#include "mlir-c/Pass.h"

#include "mxfp8train/Conversion/Passes.capi.h.inc"
#include "mxfp8train/Dialect/MXFP8Train/Transforms/Passes.capi.h.inc"
#include "mxfp8train/Pipelines/Passes.capi.h.inc"

#ifdef __cplusplus
extern "C" {
#endif

/// Registers the pipelines `mxfp8train-lower-to-cpu` and
/// `mxfp8train-lower-to-gpu` with the global pass registry, so that
/// mlirParsePassPipeline / mlirOpPassManagerAddPipeline accept them.
MLIR_CAPI_EXPORTED void mxfp8trainRegisterPipelines(void);

/// Registers every mxfp8train pass (the three groups) and the pipelines.
MLIR_CAPI_EXPORTED void mxfp8trainRegisterAllPasses(void);

#ifdef __cplusplus
}
#endif

#endif // MXFP8TRAIN_C_PASSES_H
