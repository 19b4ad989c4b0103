//===- mxfp8-opt.cpp - mlir-opt with the mxfp8train dialect -----*- C++ -*-===//
//
// mlir-opt plus the mxfp8train dialect, passes and pipelines. Every upstream
// dialect and pass is registered, so users can run the full lowering
// pipelines from one tool.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::mxfp8train::registerAllPasses();

  mlir::DialectRegistry registry;
  mlir::mxfp8train::registerAllWithUpstream(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "mxfp8train optimizer driver\n", registry));
}
