/*===- Registration.h - register mxfp8train and its dependencies -*- C -*-===*\
|*                                                                            *|
|* What mxfp8-opt registers, for C embedders: the mxfp8train dialect, every   *|
|* upstream dialect and extension, and the LLVM IR translations that the GPU  *|
|* pipeline's gpu-module-to-binary needs.                                     *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef MXFP8TRAIN_C_REGISTRATION_H
#define MXFP8TRAIN_C_REGISTRATION_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Adds to `registry` the mxfp8train dialect and its extensions, every
/// upstream dialect and extension, and the LLVM IR translations (host and
/// GPU). A context with this registry parses and lowers every module the
/// mxfp8train tools accept.
MLIR_CAPI_EXPORTED void
mxfp8trainRegisterAllDialects(MlirDialectRegistry registry);

/// Appends the registry of mxfp8trainRegisterAllDialects to `context`.
MLIR_CAPI_EXPORTED void mxfp8trainContextRegisterAll(MlirContext context);

/// Registers every upstream MLIR pass (`canonicalize`, `cse`, ...) with the
/// global pass registry, as mxfp8-opt does, so that pass pipeline text
/// (mlirParsePassPipeline) may name them. Our own passes are registered by
/// mxfp8trainRegisterAllPasses (Passes.h). May be called more than once.
MLIR_CAPI_EXPORTED void mxfp8trainRegisterUpstreamPasses(void);

#ifdef __cplusplus
}
#endif

#endif // MXFP8TRAIN_C_REGISTRATION_H
