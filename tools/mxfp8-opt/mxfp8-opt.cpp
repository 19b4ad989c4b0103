//===- mxfp8-opt.cpp - mlir-opt with the mxfp8train dialect -----*- C++ -*-===//
//
// mlir-opt plus the mxfp8train dialect, passes and pipelines. Every upstream
// dialect and pass is registered, so users can run the full lowering
// pipelines from one tool. Diagnostics at locations without a file position
// (the NameLocs of framework-built graphs) print at their names
// (Tools/NameLocDiagnostics.h); the rest is upstream's MlirOptMain.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/InitAll.h"
#include "mxfp8train/Tools/NameLocDiagnostics.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/ToolOutputFile.h"

#include <cstdio>

using namespace mlir;

int main(int argc, char **argv) {
  registerAllPasses();
  mxfp8train::registerAllPasses();

  DialectRegistry registry;
  mxfp8train::registerAllWithUpstream(registry);
  auto [inputFilename, outputFilename] = registerAndParseCLIOptions(
      argc, argv, "mxfp8train optimizer driver\n", registry);
  MlirOptMainConfig config = MlirOptMainConfig::createFromCLOptions();
  // Listings, and -verify-diagnostics (whose handler must see every
  // diagnostic), as upstream runs them.
  if (config.shouldShowDialects() || config.shouldListPasses() ||
      config.shouldVerifyDiagnostics())
    return asMainReturnCode(
        MlirOptMain(argc, argv, inputFilename, outputFilename, registry));

  llvm::InitLLVM initLLVM(argc, argv);
  // The pipeline is set up in each input's context after MlirOptMain has
  // registered its SourceMgrDiagnosticHandler there: the handler registered
  // here comes first and passes on what has a file position.
  MlirOptMainConfig upstream = config;
  config.setPassPipelineSetupFn([upstream](PassManager &pm) {
    mxfp8train::registerNameLocDiagnosticHandler(pm.getContext());
    return upstream.setupPassPipeline(pm);
  });

  if (inputFilename == "-" &&
      llvm::sys::Process::FileDescriptorIsDisplayed(fileno(stdin)))
    llvm::errs() << "(processing input from stdin now, hit ctrl-c/ctrl-d to "
                    "interrupt)\n";
  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> file =
      openInputFile(inputFilename, &errorMessage);
  if (!file) {
    llvm::errs() << errorMessage << "\n";
    return 1;
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    llvm::errs() << errorMessage << "\n";
    return 1;
  }
  if (failed(MlirOptMain(output->os(), std::move(file), registry, config)))
    return 1;
  output->keep();
  return 0;
}
