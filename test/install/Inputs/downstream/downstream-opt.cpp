//===- downstream-opt.cpp - an *-opt of another project -------------------===//
//
// Registers the mxfp8train dialect, passes and pipelines next to upstream
// MLIR's, from the installed package (MXFP8TrainInitAll).
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::mxfp8train::registerAllPasses();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
  mlir::mxfp8train::registerAllDialects(registry);
  mlir::mxfp8train::registerAllExtensions(registry);
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "downstream optimizer with mxfp8train\n", registry));
}
