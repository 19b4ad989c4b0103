//===- mxfp8-run.cpp - run and compare mxfp8train modules -------*- C++ -*-===//
//
// Runs one function of a tensor-level MLIR module on the CPU (through
// CPUExecutable) or on a CUDA GPU (CUDAExecutable: the GPU pipeline, JITed
// host code, libmxfp8train_runtime.so) with generated or .npy inputs and
// writes its results as .npy.
// In compare mode it runs the module as written and the module after the
// MXFP8 rewrite on the same inputs and reports, per result, the SQNR against
// the high-precision run and the torchao bar that applies (SPEC §8).
//
// See docs/mxfp8-run.md for the user documentation.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Conversion/MXFP8TrainToGPU/MXFP8TrainToGPU.h"
#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainOps.h"
#include "mxfp8train/Dialect/MXFP8Train/Transforms/ConvertedRecipe.h"
#include "mxfp8train/ExecutionEngine/CUDARunner.h"
#include "mxfp8train/InitAll.h"
#include "mxfp8train/Runner/Compare.h"
#include "mxfp8train/Runner/Device.h"
#include "mxfp8train/Runner/Outputs.h"
#include "mxfp8train/Runner/Report.h"
#include "mxfp8train/Runner/Run.h"
#include "mxfp8train/Support/Report.h"
#include "mxfp8train/Tools/ModuleSource.h"
#include "mxfp8train/Tools/NameLocDiagnostics.h"

#include "mlir/AsmParser/AsmParserState.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>
#include <limits>
#include <map>

using namespace mlir;
using namespace mlir::mxfp8train;
namespace cl = llvm::cl;

//===----------------------------------------------------------------------===//
// Command line
//===----------------------------------------------------------------------===//

namespace {
enum class BF16Format { UInt16, Float32 };
} // namespace

static cl::OptionCategory runCategory("mxfp8-run options");

static cl::opt<std::string> inputFilename(cl::Positional,
                                          cl::desc("<input .mlir file>"),
                                          cl::init("-"), cl::cat(runCategory));

static cl::opt<std::string>
    entryName("entry",
              cl::desc("Function to run (default: the only public function)"),
              cl::value_desc("name"), cl::cat(runCategory));

static cl::opt<uint64_t> seed("seed", cl::desc("Seed of the generated inputs"),
                              cl::init(0), cl::cat(runCategory));

static cl::opt<double> inputStd(
    "input-std",
    cl::desc("Standard deviation of generated float inputs (an argument "
             "attribute {mxfp8run.std = S : f64} overrides it)"),
    cl::init(1.0), cl::cat(runCategory));

static cl::list<std::string>
    inputFiles("input",
               cl::desc("Read the next argument from a .npy file (repeat once "
                        "per argument, in order)"),
               cl::value_desc("path.npy"), cl::cat(runCategory));

static cl::opt<std::string>
    outputDir("output-dir",
              cl::desc("Write every result as <name>.npy into this directory"),
              cl::value_desc("dir"), cl::cat(runCategory));

static cl::opt<bool>
    saveInputs("save-inputs",
               cl::desc("Also write the inputs as <i>_<name>.npy into "
                        "--output-dir/inputs"),
               cl::init(false), cl::cat(runCategory));

static cl::opt<BF16Format>
    bf16As("bf16-as", cl::desc("How bf16 tensors are written to .npy"),
           cl::values(clEnumValN(BF16Format::UInt16, "uint16",
                                 "uint16 bit patterns (exact, the default)"),
                      clEnumValN(BF16Format::Float32, "float32",
                                 "float32 values (exact widening)")),
           cl::init(BF16Format::UInt16), cl::cat(runCategory));

static cl::opt<std::string> pipeline(
    "pipeline",
    cl::desc("Pass pipeline applied to the module before running it; in "
             "compare mode it replaces the default conversion pipeline"),
    cl::value_desc("text"), cl::cat(runCategory));

static cl::opt<bool> compareMode(
    "compare",
    cl::desc("Run the module as written and after the MXFP8 rewrite on the "
             "same inputs and report the SQNR of every result"),
    cl::init(false), cl::cat(runCategory));

static cl::opt<std::string> recipeText(
    "recipe",
    cl::desc("Recipe of the compare mode: a torchao recipe name "
             "(mxfp8_rceil, mxfp8_rceil_wgrad_with_hp, mxfp8_emulated_rceil; "
             "float8_tensorwise, float8_rowwise, float8_rowwise_with_gw_hp, "
             "fp8_rowwise) or the body of a #mxfp8train.recipe<...> or "
             "#mxfp8train.float8_recipe<...> attribute"),
    cl::init("mxfp8_rceil"), cl::cat(runCategory));

static cl::opt<bool>
    checkBars("check-bars",
              cl::desc("Exit with status 2 if a result misses its SQNR bar "
                       "(compare mode)"),
              cl::init(true), cl::cat(runCategory));

static cl::opt<bool> perMatmul(
    "per-matmul",
    cl::desc("In compare mode, also convert each matmul alone on the "
             "high-precision inputs it sees in the original run and check "
             "it against its role's bar (torchao's per-linear tests)"),
    cl::init(true), cl::cat(runCategory));

static cl::opt<bool> showRemarks(
    "remarks",
    cl::desc("Print the rewrite's remarks (one per matmul) in compare mode"),
    cl::init(true), cl::cat(runCategory));

static cl::opt<bool> runConcurrently(
    "parallel",
    cl::desc("In compare mode, run the two modules on two threads at once"),
    cl::init(true), cl::cat(runCategory));

static cl::opt<bool>
    vectorize("vectorize",
              cl::desc("Tile and vectorize in the CPU lowering (off: scalar "
                       "loops, for debugging)"),
              cl::init(true), cl::cat(runCategory));

static cl::opt<std::string>
    dumpIr("dump-ir",
           cl::desc("Write the module that is run (after --pipeline, or the "
                    "converted module in compare mode) to this file"),
           cl::value_desc("path"), cl::cat(runCategory));

static cl::opt<DeviceRequest> device(
    "device",
    cl::desc("Where to run (default: cuda when the runtime finds a CUDA "
             "driver and a GPU, else cpu)"),
    cl::values(clEnumValN(DeviceRequest::Auto, "auto",
                          "cuda if a GPU is usable, else cpu (the default)"),
               clEnumValN(DeviceRequest::CPU, "cpu", "the host CPU (JIT)"),
               clEnumValN(DeviceRequest::CUDA, "cuda",
                          "GPU --gpu (mxfp8train-lower-to-gpu, JIT host "
                          "code, libmxfp8train_runtime.so)")),
    cl::init(DeviceRequest::Auto), cl::cat(runCategory));

static cl::opt<int> gpuIndex("gpu", cl::desc("CUDA device (--device=cuda)"),
                             cl::init(0), cl::cat(runCategory));

static cl::opt<std::string>
    chip("chip",
         cl::desc("NVVM chip of the GPU lowering (default: the GPU's: sm_90a "
                  "for compute capability 9.0, sm_100a for 10.0)"),
         cl::value_desc("sm_90a|sm_100a"), cl::cat(runCategory));

static cl::opt<std::string> gpuLowering(
    "lowering",
    cl::desc("--device=cuda: replace mxfp8train-lower-to-gpu by this pipeline "
             "(it must end in the LLVM dialect with llvm.emit_c_interface "
             "functions on device descriptors)"),
    cl::value_desc("text"), cl::cat(runCategory));

static cl::opt<bool> simpleGemm(
    "simple-gemm",
    cl::desc("--device=cuda: the simple tiled GEMM kernels for every GEMM "
             "(MX scaled_mm / scaled_grouped_mm, linalg contractions, "
             "grouped_mm) even where a wgmma kernel exists; Float8 GEMMs "
             "keep their fp8 kernels"),
    cl::init(false), cl::cat(runCategory));

static cl::opt<bool> printDevice(
    "print-device",
    cl::desc("Print the device line (where --device would run, and why) and "
             "exit; no input file is read"),
    cl::init(false), cl::cat(runCategory));

/// The device chosen in main().
static ExecutionDevice selectedDevice = ExecutionDevice::CPU;
/// The chip used for --device=cuda.
static std::string selectedChip;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// Prints `mxfp8-run: error: <message>` and returns failure.
static LogicalResult fail(const llvm::Twine &message) {
  llvm::outs().flush();
  llvm::errs() << "mxfp8-run: error: " << message << "\n";
  return failure();
}

/// Like fail(), for an llvm::Error.
static LogicalResult fail(llvm::Error err) {
  return fail(llvm::toString(std::move(err)));
}

/// Parses the input file keeping the parser state (for SSA names).
static OwningOpRef<ModuleOp> parseModule(llvm::SourceMgr &sourceMgr,
                                         MLIRContext *context,
                                         AsmParserState &asmState) {
  std::string errorMessage;
  OwningOpRef<ModuleOp> module = parseModuleFile(
      inputFilename, sourceMgr, context, asmState, errorMessage);
  if (!module && !errorMessage.empty())
    (void)fail(errorMessage);
  return module;
}

/// How the selected device compiles.
static ExecutableOptions getExecutableOptions() {
  ExecutableOptions options;
  options.device = selectedDevice;
  options.vectorize = vectorize;
  options.gpu = gpuIndex;
  options.chip = selectedChip;
  options.simpleGemm = simpleGemm;
  options.lowering = std::string(stripModuleAnchor(gpuLowering));
  return options;
}

/// Writes a host tensor as .npy (bf16 as --bf16-as says).
static LogicalResult writeTensor(StringRef path, const HostTensor &tensor) {
  if (llvm::Error err =
          writeHostTensor(path, tensor, bf16As == BF16Format::Float32))
    return fail(std::move(err));
  return success();
}

/// Builds all inputs, generated or read, and prints one line per input.
static FailureOr<std::vector<HostTensor>> prepareInputs(const Signature &sig,
                                                        llvm::raw_ostream &os) {
  InputOptions options;
  options.seed = seed;
  options.defaultStd = inputStd;
  options.files.assign(inputFiles.begin(), inputFiles.end());
  os << "inputs:\n";
  llvm::Expected<PreparedInputs> inputs = prepareInputs(sig, options);
  if (!inputs)
    return fail(inputs.takeError());
  printInputs(os, sig, *inputs, options);
  return std::move(inputs->tensors);
}

/// Creates the output directory (if any) and saves the inputs when asked.
static LogicalResult prepareOutputs(const Signature &sig,
                                    const std::vector<HostTensor> &inputs) {
  if (outputDir.empty()) {
    if (saveInputs)
      return fail("--save-inputs needs --output-dir");
    return success();
  }
  if (llvm::Error err =
          prepareOutputDir(outputDir, sig, saveInputs ? &inputs : nullptr,
                           bf16As == BF16Format::Float32))
    return fail(std::move(err));
  return success();
}

/// Writes `module` to --dump-ir.
static LogicalResult dumpModule(ModuleOp module) {
  if (dumpIr.empty())
    return success();
  std::string errorMessage;
  auto file = openOutputFile(dumpIr, &errorMessage);
  if (!file)
    return fail(errorMessage);
  module->print(file->os());
  file->keep();
  return success();
}

/// Applies --pipeline (non-compare mode).
static LogicalResult applyUserPipeline(ModuleOp module) {
  if (pipeline.empty())
    return dumpModule(module);
  PassManager pm(module.getContext());
  std::string errorMessage;
  llvm::raw_string_ostream errorStream(errorMessage);
  if (failed(parsePassPipeline(stripModuleAnchor(pipeline), pm, errorStream)))
    return fail("invalid --pipeline: " + errorMessage);
  SmallVector<std::string> remarks;
  if (failed(runPassesCollectingRemarks(pm, module, remarks)))
    return fail("--pipeline failed on '" + inputFilename + "'");
  for (const std::string &remark : remarks)
    llvm::outs() << "remark: " << remark << "\n";
  return dumpModule(module);
}

//===----------------------------------------------------------------------===//
// Plain mode
//===----------------------------------------------------------------------===//

/// Plain mode: (pipeline,) compile, run, write outputs.
static LogicalResult runPlain(ModuleOp module, const Signature &given) {
  llvm::raw_ostream &os = llvm::outs();
  // The pipeline may erase or lower the function: keep its name and type,
  // and look it up again after.
  std::string name = given.func.getSymName().str();
  FunctionType type = given.func.getFunctionType();
  if (failed(applyUserPipeline(module)))
    return failure();
  Signature sig = given;
  sig.func = module.lookupSymbol<func::FuncOp>(name);
  if (!sig.func || sig.func.isExternal() || sig.func.getFunctionType() != type)
    return fail("--pipeline removed @" + name +
                ", lowered it out of the func dialect or changed its "
                "signature; plain mode runs @" +
                name + " after the pipeline at the tensor level");
  FailureOr<std::vector<HostTensor>> inputs = prepareInputs(sig, os);
  if (failed(inputs) || failed(prepareOutputs(sig, *inputs)))
    return failure();
  double compileSeconds;
  ExecutableOptions options = getExecutableOptions();
  llvm::Expected<std::unique_ptr<Executable>> exe =
      compileEntry(module, sig.func.getSymName(), options, compileSeconds);
  if (!exe)
    return fail("cannot compile the input module" +
                llvm::Twine(options.device == ExecutionDevice::CUDA
                                ? " for the GPU"
                                : "") +
                ": " + llvm::toString(exe.takeError()));
  RunResult result;
  runTimed(**exe, sig.func.getSymName(), *inputs, result);
  if (llvm::Error err = checkOutputs(sig, result, "input"))
    return fail(std::move(err));

  std::vector<std::string> stems = getResultStems(sig);
  std::vector<std::string> files(stems.size(), "-");
  for (auto [i, out] : llvm::enumerate(*result.outputs)) {
    if (outputDir.empty())
      continue;
    files[i] = getOutputPath(outputDir, stems[i], "");
    if (failed(writeTensor(files[i], out)))
      return failure();
  }
  printOutputs(os, sig, *result.outputs, files);
  os << llvm::format("time: compile %.2f s, run %.2f s", compileSeconds,
                     result.seconds);
  if (selectedDevice == ExecutionDevice::CUDA)
    os << llvm::format(" (GPU call %.3f ms)", result.deviceSeconds * 1e3);
  os << "\n";
  return success();
}

//===----------------------------------------------------------------------===//
// Compare mode
//===----------------------------------------------------------------------===//

/// The first op of `module` that calls the runtime's collectives when run
/// (shard collectives and process queries, moe_dispatch / moe_combine), or
/// null. Grids, shardings and annotations need none.
static Operation *findCollective(ModuleOp module) {
  Operation *found = nullptr;
  module.walk([&](Operation *op) {
    bool collective =
        isa<MoeDispatchOp, MoeCombineOp>(op) ||
        (isa<shard::ShardDialect>(op->getDialect()) &&
         !isa<shard::GridOp, shard::ShardingOp, shard::ShardOp>(op));
    if (!collective)
      return WalkResult::advance();
    found = op;
    return WalkResult::interrupt();
  });
  return found;
}

/// Compare mode. Returns 0, 1 (error) or 2 (a bar failed).
static int runCompare(ModuleOp module, const Signature &sig) {
  llvm::raw_ostream &os = llvm::outs();
  auto start = std::chrono::steady_clock::now();
  llvm::Expected<RecipeAttrInterface> recipe =
      parseRecipe(module.getContext(), recipeText);
  if (!recipe)
    return (void)fail(recipe.takeError()), 1;

  ConversionSummary summary;
  llvm::Expected<OwningOpRef<ModuleOp>> converted =
      convertModule(module, recipeText, pipeline, inputFilename, summary);
  if (!converted)
    return (void)fail(converted.takeError()), 1;
  // A --pipeline converts with the recipe of its own rewrite pass, which
  // the bars and the per-matmul probes must use too.
  RecipeAttrInterface barRecipe = *recipe;
  if (RecipeAttrInterface used = getConvertedRecipe(**converted);
      used && used != barRecipe) {
    if (recipeText.getNumOccurrences()) {
      std::string message;
      llvm::raw_string_ostream(message)
          << "--pipeline converts with recipe " << used << ", but --recipe is "
          << barRecipe
          << " (the bars and the per-matmul probes): give one recipe";
      return (void)fail(message), 1;
    }
    barRecipe = used;
  }
  os << "recipe: " << barRecipe << "\n";
  if (failed(dumpModule(**converted)))
    return 1;
  printConversionSummary(os, summary, showRemarks);

  FailureOr<std::vector<HostTensor>> inputs = prepareInputs(sig, os);
  if (failed(inputs) || failed(prepareOutputs(sig, *inputs)))
    return 1;

  CompareOptions options;
  options.executable = getExecutableOptions();
  options.perMatmul = perMatmul;
  options.parallel = runConcurrently;
  llvm::Expected<CompareReport> report =
      compareModules(module, **converted, sig, barRecipe, *inputs, options);
  if (!report)
    return (void)fail(report.takeError()), 1;
  if (!outputDir.empty()) {
    std::vector<std::string> stems = getResultStems(sig);
    for (size_t i = 0; i < stems.size(); ++i)
      if (failed(writeTensor(getOutputPath(outputDir, stems[i], ".original"),
                             report->originalResults[i])) ||
          failed(writeTensor(getOutputPath(outputDir, stems[i], ".converted"),
                             report->convertedResults[i])))
        return 1;
  }
  printCompareReport(os, *report);
  os << llvm::format(
      "; total %.2f s\n",
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count());
  if (selectedDevice == ExecutionDevice::CUDA)
    os << llvm::format("gpu time (CUDA events, one call each): original%s "
                       "%.3f ms, converted %.3f ms\n",
                       perMatmul ? " + per-matmul" : "",
                       report->gpuOriginalSeconds * 1e3,
                       report->gpuConvertedSeconds * 1e3);
  os << "bars: " << report->numPassed << " passed, " << report->numFailed
     << " failed\n";
  os.flush();
  if (report->numFailed && checkBars) {
    llvm::errs() << "mxfp8-run: " << report->numFailed
                 << " row(s) below their SQNR bar\n";
    return 2;
  }
  return 0;
}

/// Decides the device and prints the first line, `device: cuda (NAME,
/// sm_XY)` or `device: cpu (why)`. --device=cuda without a usable GPU fails.
static LogicalResult selectDevice() {
  llvm::Expected<DeviceSelection> selection =
      mxfp8train::selectDevice(device, gpuIndex, chip);
  if (!selection)
    return fail(selection.takeError());
  selectedDevice = selection->device;
  selectedChip = selection->chip;
  llvm::outs() << selection->line << "\n";
  return success();
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  mlir::registerAllPasses();
  mxfp8train::registerAllPasses();
  cl::HideUnrelatedOptions(runCategory);
  cl::ParseCommandLineOptions(
      argc, argv,
      "mxfp8-run: run a function of a tensor-level MLIR module on the CPU "
      "or a CUDA GPU, or compare it with its MXFP8 conversion (--compare)\n");

  if (printDevice)
    return failed(selectDevice()) ? 1 : 0;

  DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mxfp8train::registerAllDialects(registry);
  mxfp8train::registerAllExtensions(registry);
  MLIRContext context(registry);

  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);
  // Diagnostics at names (no file position) print at the name.
  mxfp8train::registerNameLocDiagnosticHandler(&context);
  AsmParserState asmState;
  OwningOpRef<ModuleOp> module = parseModule(sourceMgr, &context, asmState);
  if (!module)
    return 1;
  if (failed(verify(*module)))
    return 1;
  llvm::Expected<Signature> sig =
      getSignature(*module, entryName, &asmState, inputFilename);
  if (!sig)
    return (void)fail(sig.takeError()), 1;

  if (Operation *collective = findCollective(*module)) {
    std::string where;
    llvm::raw_string_ostream(where) << collective->getLoc();
    return (void)fail("'" + collective->getName().getStringRef() + "' at " +
                      where +
                      " calls the runtime's collectives on a communicator "
                      "bound to each rank's thread, which mxfp8-run does not "
                      "set up: compile the module with mxfp8-compile and run "
                      "it with mxfp8-launch --comm=single or --comm=ranks:N "
                      "(docs/aot.md), or bind one in an embedder "
                      "(mxfp8rtCommBind, docs/sharding.md)"),
           1;
  }

  if (!compareMode && recipeText.getNumOccurrences())
    return (void)fail("--recipe applies to --compare (the conversion it "
                      "checks); plain mode runs the module as given: add "
                      "--compare, or convert with "
                      "--pipeline='mxfp8train-rewrite-matmuls{recipe=...}'"),
           1;
  if (failed(selectDevice()))
    return 1;
  llvm::outs() << "mxfp8-run: @" << sig->func.getSymName() << " from "
               << inputFilename << "\n";
  if (compareMode)
    return runCompare(*module, *sig);
  return failed(runPlain(*module, *sig)) ? 1 : 0;
}
