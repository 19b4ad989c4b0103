//===- mxfp8-compile.cpp - AOT-compile mxfp8train modules -------*- C++ -*-===//
//
// Compiles a tensor-level MLIR module to an x86-64 object file (position
// independent, for `g++ -shared` on another machine): parse, an optional
// pre-pipeline (e.g. the MXFP8 rewrite), the CPU or GPU lowering pipeline,
// translation to LLVM IR, LLVM optimization and code generation. Next to the
// object it writes a manifest (Support/Manifest.h) with the tensor-level
// signature of every public function, which mxfp8-launch reads on the target
// machine, where no MLIR exists. The compile is the library call compileAOT()
// (Runner/AOTCompile.h); this file holds the command line.
//
// See docs/aot.md for the user documentation.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/InitAll.h"
#include "mxfp8train/Runner/AOTCompile.h"
#include "mxfp8train/Tools/NameLocDiagnostics.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::mxfp8train;
namespace cl = llvm::cl;

//===----------------------------------------------------------------------===//
// Command line
//===----------------------------------------------------------------------===//

static cl::OptionCategory compileCategory("mxfp8-compile options");

/// What the options below fill (cl::location; their defaults are the
/// struct's), handed to compileAOT().
static AOTCompileOptions compileOptions;

static cl::opt<std::string, /*ExternalStorage=*/true>
    inputFilename(cl::Positional, cl::desc("<input .mlir file>"),
                  cl::location(compileOptions.inputFilename),
                  cl::cat(compileCategory));

static cl::opt<std::string, /*ExternalStorage=*/true>
    outputFilename("o", cl::desc("Output file"), cl::value_desc("path"),
                   cl::location(compileOptions.outputFilename),
                   cl::cat(compileCategory));

static cl::opt<AOTDevice, /*ExternalStorage=*/true> device(
    "device", cl::desc("What the code runs on"),
    cl::values(clEnumValN(AOTDevice::CPU, "cpu",
                          "the host CPU (mxfp8train-lower-to-cpu)"),
               clEnumValN(AOTDevice::CUDA, "cuda",
                          "an NVIDIA GPU (mxfp8train-lower-to-gpu); host "
                          "code calls the mgpu* ABI of the runtime")),
    cl::location(compileOptions.device), cl::cat(compileCategory));

static cl::opt<std::string, /*ExternalStorage=*/true>
    chip("chip", cl::desc("GPU architecture for --device=cuda"),
         cl::value_desc("sm_90a|sm_100a"), cl::location(compileOptions.chip),
         cl::cat(compileCategory));

static cl::opt<std::string, /*ExternalStorage=*/true>
    prePipeline("pipeline",
                cl::desc("Pass pipeline applied before the lowering, e.g. "
                         "'mxfp8train-rewrite-matmuls{recipe=mxfp8_rceil}' "
                         "(builtin.module(...) anchor optional)"),
                cl::value_desc("text"),
                cl::location(compileOptions.prePipeline),
                cl::cat(compileCategory));

static cl::opt<std::string, /*ExternalStorage=*/true> loweringOverride(
    "lowering",
    cl::desc("Replace the device's lowering pipeline by this one (must end "
             "in the LLVM dialect with llvm.emit_c_interface functions)"),
    cl::value_desc("text"), cl::location(compileOptions.lowering),
    cl::cat(compileCategory));

static cl::opt<std::string, /*ExternalStorage=*/true> perMatmulRecipe(
    "per-matmul",
    cl::desc("Compile the per-matmul probe of every function instead: it "
             "also returns, for each matmul this recipe converts, the "
             "matmul's result and that of a converted copy on the same "
             "inputs (results named after the matmul, roles matmul_hp and "
             "matmul_<role>; mxfp8-launch prints their SQNR table)"),
    cl::value_desc("recipe"), cl::location(compileOptions.perMatmulRecipe),
    cl::cat(compileCategory));

static cl::opt<bool, /*ExternalStorage=*/true>
    vectorize("vectorize",
              cl::desc("CPU lowering: tile and vectorize (off: scalar loops)"),
              cl::location(compileOptions.vectorize), cl::cat(compileCategory));

static cl::list<std::string, std::vector<std::string>>
    entries("entry",
            cl::desc("Compile only this public function and what it calls "
                     "(repeatable; default: every public function)"),
            cl::value_desc("name"), cl::location(compileOptions.entries),
            cl::cat(compileCategory));

static cl::opt<std::string, /*ExternalStorage=*/true> manifestFilename(
    "manifest", cl::desc("Write the manifest (signatures) to this file"),
    cl::value_desc("path"), cl::location(compileOptions.manifestFilename),
    cl::cat(compileCategory));

static cl::opt<AOTEmitKind, /*ExternalStorage=*/true> emitKind(
    "emit", cl::desc("What to write to -o"),
    cl::values(clEnumValN(AOTEmitKind::Object, "obj", "an ELF object file"),
               clEnumValN(AOTEmitKind::LLVMIR, "llvm",
                          "optimized LLVM IR (text)"),
               clEnumValN(AOTEmitKind::MLIR, "mlir",
                          "the lowered module (LLVM dialect)")),
    cl::location(compileOptions.emit), cl::cat(compileCategory));

static cl::opt<std::string, /*ExternalStorage=*/true>
    targetTriple("mtriple", cl::desc("Host target triple of the object"),
                 cl::location(compileOptions.triple), cl::cat(compileCategory));

static cl::opt<std::string, /*ExternalStorage=*/true> targetCpu(
    "mcpu",
    cl::desc("Host CPU the object may use instructions of: x86-64-v3 "
             "(AVX2, FMA; every x86 server CPU since 2015), x86-64, "
             "x86-64-v4, a CPU name such as sapphirerapids, or native (this "
             "machine)"),
    cl::location(compileOptions.cpu), cl::cat(compileCategory));

static cl::opt<std::string, /*ExternalStorage=*/true>
    targetFeatures("mattr", cl::desc("Extra target features (+avx512f,...)"),
                   cl::location(compileOptions.features),
                   cl::cat(compileCategory));

static cl::opt<unsigned, /*ExternalStorage=*/true>
    optLevel("O", cl::desc("LLVM optimization level (0-3)"), cl::Prefix,
             cl::location(compileOptions.optLevel), cl::cat(compileCategory));

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

/// compileOptions with the tool's pass-manager options and the prefixes of
/// its messages.
static void finishCompileOptions() {
  compileOptions.configureLowering = [](PassManager &pm) {
    return applyPassManagerCLOptions(pm);
  };
  compileOptions.onError = [](const std::string &message) {
    llvm::outs().flush();
    llvm::errs() << "mxfp8-compile: error: " << message << "\n";
  };
  compileOptions.onWarning = [](const std::string &message) {
    llvm::errs() << "mxfp8-compile: warning: " << message << "\n";
  };
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  llvm::InitializeAllTargetInfos();
  llvm::InitializeAllTargets();
  llvm::InitializeAllTargetMCs();
  llvm::InitializeAllAsmPrinters();
  mlir::registerAllPasses();
  mxfp8train::registerAllPasses();
  registerPassManagerCLOptions();
  registerMLIRContextCLOptions();
  registerAsmPrinterCLOptions();
  // --help lists our options only; LLVM's and MLIR's stay accepted.
  cl::HideUnrelatedOptions(compileCategory);
  cl::ParseCommandLineOptions(
      argc, argv,
      "mxfp8-compile: compile a tensor-level MLIR module to an object file "
      "and a manifest for mxfp8-launch\n\n"
      "MLIR's pass manager, context and printer options (--mlir-timing, "
      "--mlir-print-ir-after-all, ...) are accepted too.\n");

  finishCompileOptions();

  DialectRegistry registry;
  // With the LLVM IR translations, and for the GPU path
  // gpu-module-to-binary's NVVM target serialization.
  mxfp8train::registerAllWithUpstream(registry);
  MLIRContext context(registry);

  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);
  // Diagnostics at names (no file position) print at the name.
  mxfp8train::registerNameLocDiagnosticHandler(&context);
  return failed(compileAOT(context, sourceMgr, compileOptions)) ? 1 : 0;
}
