/*===- Dialects.h - C API of the mxfp8train dialect --------------*- C -*-===*\
|*                                                                            *|
|* The dialect handle of mxfp8train, for mlirDialectHandleRegisterDialect /   *|
|* mlirDialectHandleLoadDialect, and the registration of everything a module  *|
|* of a training graph needs.                                                 *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef MXFP8TRAIN_C_DIALECTS_H
#define MXFP8TRAIN_C_DIALECTS_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

/// `mlirGetDialectHandle__mxfp8train__()`: the handle of the mxfp8train
/// dialect (namespace "mxfp8train").
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(MXFP8Train, mxfp8train);

#ifdef __cplusplus
}
#endif

#endif // MXFP8TRAIN_C_DIALECTS_H
