//===- Dialects.cpp - C API of the mxfp8train dialect ---------------------===//
//
// The dialect handle (mlirGetDialectHandle__mxfp8train__).
//
//===----------------------------------------------------------------------===//

#include "mxfp8train-c/Dialects.h"

#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainDialect.h"

#include "mlir/CAPI/Registration.h"

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(MXFP8Train, mxfp8train,
                                      mlir::mxfp8train::MXFP8TrainDialect)
