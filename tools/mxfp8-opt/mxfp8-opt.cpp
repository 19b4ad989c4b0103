//===- mxfp8-opt.cpp - mlir-opt with the mxfp8train dialect --------*- C++
//-*-===//
//
// mlir-opt plus the mxfp8train dialect, passes and pipelines. Every upstream
// dialect and pass is registered, so users can run the full lowering
// pipelines from one tool.
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
  // gpu-module-to-binary and the NVVM target need the LLVM IR translations.
  mlir::registerAllToLLVMIRTranslations(registry);
  mlir::registerAllGPUToLLVMIRTranslations(registry);
  mlir::mxfp8train::registerAllDialects(registry);
  mlir::mxfp8train::registerAllExtensions(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "mxfp8train optimizer driver\n", registry));
}
