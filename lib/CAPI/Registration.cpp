//===- Registration.cpp - register mxfp8train and its dependencies --------===//
//
// Implements mxfp8trainRegisterAllDialects / mxfp8trainContextRegisterAll:
// the registry of mxfp8-opt; mxfp8trainRegisterUpstreamPasses: its upstream
// passes.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train-c/Registration.h"

#include "mxfp8train/InitAll.h"

#include "mlir/CAPI/IR.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllPasses.h"

void mxfp8trainRegisterAllDialects(MlirDialectRegistry registry) {
  mlir::mxfp8train::registerAllWithUpstream(*unwrap(registry));
}

void mxfp8trainContextRegisterAll(MlirContext context) {
  mlir::DialectRegistry registry;
  mxfp8trainRegisterAllDialects(wrap(&registry));
  unwrap(context)->appendDialectRegistry(registry);
}

void mxfp8trainRegisterUpstreamPasses(void) {
  // The registry asserts on a pass registered twice with another allocator;
  // register once per process.
  static const bool registered = [] {
    mlir::registerAllPasses();
    return true;
  }();
  (void)registered;
}
