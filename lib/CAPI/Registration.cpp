//===- Registration.cpp - register mxfp8train and its dependencies --------===//
//
// Implements mxfp8trainRegisterAllDialects / mxfp8trainContextRegisterAll:
// the registry of mxfp8-opt.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train-c/Registration.h"

#include "mxfp8train/InitAll.h"

#include "mlir/CAPI/IR.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

void mxfp8trainRegisterAllDialects(MlirDialectRegistry registry) {
  mlir::mxfp8train::registerAllWithUpstream(*unwrap(registry));
}

void mxfp8trainContextRegisterAll(MlirContext context) {
  mlir::DialectRegistry registry;
  mxfp8trainRegisterAllDialects(wrap(&registry));
  unwrap(context)->appendDialectRegistry(registry);
}
