//===- mxfp8-compile.cpp - AOT-compile mxfp8train modules -------*- C++ -*-===//
//
// Compiles a tensor-level MLIR module to an x86-64 object file (position
// independent, for `g++ -shared` on another machine): parse, an optional
// pre-pipeline (e.g. the MXFP8 rewrite), the CPU or GPU lowering pipeline,
// translation to LLVM IR, LLVM optimization and code generation. Next to the
// object it writes a manifest (Support/Manifest.h) with the tensor-level
// signature of every public function, which mxfp8-launch reads on the target
// machine, where no MLIR exists.
//
// See docs/aot.md for the user documentation.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Conversion/MXFP8TrainToGPU/MXFP8TrainToGPU.h"
#include "mxfp8train/Dialect/MXFP8Train/Transforms/Transforms.h"
#include "mxfp8train/InitAll.h"
#include "mxfp8train/Pipelines/Pipelines.h"
#include "mxfp8train/Runner/FunctionSpec.h"
#include "mxfp8train/Support/Manifest.h"
#include "mxfp8train/Tools/MatmulProbes.h"
#include "mxfp8train/Tools/ModuleSource.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/AsmParser/AsmParserState.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/OptUtils.h"
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
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <set>

using namespace mlir;
using namespace mlir::mxfp8train;
namespace cl = llvm::cl;

//===----------------------------------------------------------------------===//
// Command line
//===----------------------------------------------------------------------===//

namespace {
enum class Device { CPU, CUDA };
enum class EmitKind { Object, LLVMIR, MLIR };
} // namespace

static cl::OptionCategory compileCategory("mxfp8-compile options");

static cl::opt<std::string> inputFilename(cl::Positional,
                                          cl::desc("<input .mlir file>"),
                                          cl::init("-"),
                                          cl::cat(compileCategory));

static cl::opt<std::string> outputFilename("o", cl::desc("Output file"),
                                           cl::value_desc("path"),
                                           cl::init("-"),
                                           cl::cat(compileCategory));

static cl::opt<Device> device(
    "device", cl::desc("What the code runs on"),
    cl::values(clEnumValN(Device::CPU, "cpu",
                          "the host CPU (mxfp8train-lower-to-cpu)"),
               clEnumValN(Device::CUDA, "cuda",
                          "an NVIDIA GPU (mxfp8train-lower-to-gpu); host "
                          "code calls the mgpu* ABI of the runtime")),
    cl::init(Device::CPU), cl::cat(compileCategory));

static cl::opt<std::string> chip("chip",
                                 cl::desc("GPU architecture for --device=cuda"),
                                 cl::value_desc("sm_90a|sm_100a"),
                                 cl::init("sm_90a"), cl::cat(compileCategory));

static cl::opt<std::string>
    prePipeline("pipeline",
                cl::desc("Pass pipeline applied before the lowering, e.g. "
                         "'mxfp8train-rewrite-matmuls{recipe=mxfp8_rceil}' "
                         "(builtin.module(...) anchor optional)"),
                cl::value_desc("text"), cl::cat(compileCategory));

static cl::opt<std::string> loweringOverride(
    "lowering",
    cl::desc("Replace the device's lowering pipeline by this one (must end "
             "in the LLVM dialect with llvm.emit_c_interface functions)"),
    cl::value_desc("text"), cl::cat(compileCategory));

static cl::opt<std::string> perMatmulRecipe(
    "per-matmul",
    cl::desc("Compile the per-matmul probe of every function instead: it "
             "also returns, for each matmul this recipe converts, the "
             "matmul's result and that of a converted copy on the same "
             "inputs (results named after the matmul, roles matmul_hp and "
             "matmul_<role>; mxfp8-launch prints their SQNR table)"),
    cl::value_desc("recipe"), cl::cat(compileCategory));

static cl::opt<bool>
    vectorize("vectorize",
              cl::desc("CPU lowering: tile and vectorize (off: scalar loops)"),
              cl::init(true), cl::cat(compileCategory));

static cl::list<std::string>
    entries("entry",
            cl::desc("Compile only this public function and what it calls "
                     "(repeatable; default: every public function)"),
            cl::value_desc("name"), cl::cat(compileCategory));

static cl::opt<std::string>
    manifestFilename("manifest",
                     cl::desc("Write the manifest (signatures) to this file"),
                     cl::value_desc("path"), cl::cat(compileCategory));

static cl::opt<EmitKind> emitKind(
    "emit", cl::desc("What to write to -o"),
    cl::values(clEnumValN(EmitKind::Object, "obj", "an ELF object file"),
               clEnumValN(EmitKind::LLVMIR, "llvm", "optimized LLVM IR (text)"),
               clEnumValN(EmitKind::MLIR, "mlir",
                          "the lowered module (LLVM dialect)")),
    cl::init(EmitKind::Object), cl::cat(compileCategory));

static cl::opt<std::string>
    targetTriple("mtriple", cl::desc("Host target triple of the object"),
                 cl::init("x86_64-unknown-linux-gnu"),
                 cl::cat(compileCategory));

static cl::opt<std::string> targetCpu(
    "mcpu",
    cl::desc("Host CPU the object may use instructions of: x86-64-v3 "
             "(AVX2, FMA; every x86 server CPU since 2015), x86-64, "
             "x86-64-v4, a CPU name such as sapphirerapids, or native (this "
             "machine)"),
    cl::init("x86-64-v3"), cl::cat(compileCategory));

static cl::opt<std::string>
    targetFeatures("mattr", cl::desc("Extra target features (+avx512f,...)"),
                   cl::init(""), cl::cat(compileCategory));

static cl::opt<unsigned> optLevel("O",
                                  cl::desc("LLVM optimization level (0-3)"),
                                  cl::init(3), cl::Prefix,
                                  cl::cat(compileCategory));

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// Prints `mxfp8-compile: error: <message>` and returns failure.
static LogicalResult fail(const llvm::Twine &message) {
  llvm::outs().flush();
  llvm::errs() << "mxfp8-compile: error: " << message << "\n";
  return failure();
}

/// Prints `mxfp8-compile: warning: <message>`.
static void warn(const llvm::Twine &message) {
  llvm::errs() << "mxfp8-compile: warning: " << message << "\n";
}

//===----------------------------------------------------------------------===//
// Parsing and signatures
//===----------------------------------------------------------------------===//

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

/// Erases the functions that no `--entry` function reaches through symbol
/// references.
static LogicalResult keepEntries(ModuleOp module) {
  std::vector<std::string> roots(entries.begin(), entries.end());
  std::string missing = keepReachableFunctions(module, roots);
  if (!missing.empty())
    return fail("--entry=" + missing + ": no function @" + missing +
                " with a body in '" + inputFilename + "'");
  return success();
}

/// Replaces every public function by its per-matmul probe (--per-matmul).
static LogicalResult buildProbes(OwningOpRef<ModuleOp> &module,
                                 const AsmParserState &asmState) {
  std::string error;
  RecipeAttr recipe =
      parseRecipeOption(module->getContext(), perMatmulRecipe, error);
  if (!recipe)
    return fail("invalid --per-matmul recipe '" + perMatmulRecipe +
                "': " + error);
  SmallVector<std::string> names;
  for (auto func : module->getOps<func::FuncOp>()) {
    if (!func.isPublic() || func.isExternal())
      continue;
    names.push_back(func.getSymName().str());
    // The SSA names live in the parser state of this module only: keep them
    // as attributes through the probe's clone.
    SmallVector<std::string> argNames, resultNames;
    getSignatureNames(func, asmState, argNames, resultNames);
    Builder b(func.getContext());
    for (auto [i, name] : llvm::enumerate(argNames))
      func.setArgAttr(i, "mxfp8run.name", b.getStringAttr(name));
    for (auto [i, name] : llvm::enumerate(resultNames))
      func.setResultAttr(i, "mxfp8run.name", b.getStringAttr(name));
  }
  for (const std::string &name : names) {
    SmallVector<MatmulProbe> probes;
    FailureOr<OwningOpRef<ModuleOp>> probe =
        buildProbeModule(*module, name, recipe, probes, error);
    if (failed(probe))
      return fail("--per-matmul: @" + name + ": " + error);
    module = std::move(*probe);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Lowering
//===----------------------------------------------------------------------===//

/// Parses `text` into `pm`, naming `what` in the error.
static LogicalResult addPipeline(PassManager &pm, StringRef text,
                                 StringRef what) {
  std::string errorMessage;
  llvm::raw_string_ostream errorStream(errorMessage);
  if (failed(parsePassPipeline(stripModuleAnchor(text), pm, errorStream)))
    return fail("invalid " + what + ": " + errorMessage);
  return success();
}

/// Name of the GPU lowering pipeline (lib/Pipelines/GPUPipeline.cpp).
static constexpr StringLiteral kGPUPipelineName = "mxfp8train-lower-to-gpu";

/// Fills `pm` with the lowering of `device` and returns its textual form.
static FailureOr<std::string> buildLowering(PassManager &pm) {
  if (!loweringOverride.empty()) {
    if (failed(addPipeline(pm, loweringOverride, "--lowering")))
      return failure();
    return std::string(stripModuleAnchor(loweringOverride));
  }
  if (device == Device::CPU) {
    CPUPipelineOptions options;
    options.vectorize = vectorize;
    buildMXFP8TrainCPUPipeline(pm, options);
    return std::string("mxfp8train-lower-to-cpu{vectorize=") +
           (vectorize ? "true" : "false") + "}";
  }
  // The GPU pipeline is found through the registry, so that this tool builds
  // before and after it exists; `chip` is its documented option.
  if (!PassPipelineInfo::lookup(kGPUPipelineName))
    return fail("--device=cuda needs the GPU lowering pipeline '" +
                kGPUPipelineName +
                "', which this build does not have yet; use "
                "--lowering=<pipeline> to lower with your own pipeline");
  if (!parseGPUChip(chip))
    return fail("--chip=" + llvm::Twine(chip) +
                " is not a GPU target (expected " + kSupportedGPUChips + ")");
  std::string text = (kGPUPipelineName + "{chip=" + chip + "}").str();
  if (failed(addPipeline(pm, text, "GPU pipeline")))
    return failure();
  return text;
}

/// Checks the C interface of every callable function in the lowered module
/// and records its pointer count; a mismatch makes the function unsupported
/// (calling it with the manifest's descriptors would be wrong).
static void checkCInterfaces(ModuleOp lowered, Manifest &manifest) {
  for (FunctionSpec &spec : manifest.functions) {
    if (!spec.unsupported.empty())
      continue;
    auto wrapper =
        lowered.lookupSymbol<LLVM::LLVMFuncOp>("_mlir_ciface_" + spec.name);
    if (!wrapper || wrapper.isExternal()) {
      spec.unsupported = "has no _mlir_ciface_" + spec.name +
                         " after lowering (llvm.emit_c_interface missing)";
      warn("@" + spec.name + " " + spec.unsupported);
      continue;
    }
    LLVM::LLVMFunctionType type = wrapper.getFunctionType();
    spec.abiArgs = type.getNumParams();
    // A function that still returns values passes them through a first
    // pointer of its C interface; the count alone would not show it.
    auto impl = lowered.lookupSymbol<LLVM::LLVMFuncOp>(spec.name);
    if (impl &&
        !isa<LLVM::LLVMVoidType>(impl.getFunctionType().getReturnType())) {
      spec.unsupported = "returns its results instead of writing "
                         "caller-allocated out-parameters (the lowering "
                         "lacks buffer-results-to-out-params)";
      warn("@" + spec.name + " " + spec.unsupported);
      continue;
    }
    bool allPointers =
        llvm::all_of(type.getParams(),
                     [](Type t) { return isa<LLVM::LLVMPointerType>(t); }) &&
        isa<LLVM::LLVMVoidType>(type.getReturnType());
    size_t expected = spec.args.size() + spec.results.size();
    if (!allPointers || size_t(spec.abiArgs) != expected) {
      spec.unsupported =
          "has a C interface with " + std::to_string(spec.abiArgs) +
          " parameters" + (allPointers ? "" : " (not all pointers)") +
          " where one descriptor per argument and result (" +
          std::to_string(expected) +
          ") was expected; a result equivalent to an argument is dropped "
          "by the bufferization";
      warn("@" + spec.name + " " + spec.unsupported);
    }
  }
}

//===----------------------------------------------------------------------===//
// Code generation
//===----------------------------------------------------------------------===//

/// Creates the host TargetMachine (PIC, the requested CPU and features).
static std::unique_ptr<llvm::TargetMachine> createTargetMachine() {
  llvm::Triple triple(targetTriple);
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target) {
    (void)fail("--mtriple=" + targetTriple + ": " + error);
    return nullptr;
  }
  std::string cpu = targetCpu;
  std::string features = targetFeatures;
  if (cpu == "native") {
    cpu = llvm::sys::getHostCPUName().str();
    SmallVector<std::string> hostFeatures;
    for (const auto &feature : llvm::sys::getHostCPUFeatures())
      hostFeatures.push_back((feature.second ? "+" : "-") +
                             feature.first().str());
    llvm::sort(hostFeatures);
    if (!features.empty())
      hostFeatures.push_back(features);
    features = llvm::join(hostFeatures, ",");
  }
  std::unique_ptr<const llvm::MCSubtargetInfo> info(
      target->createMCSubtargetInfo(triple, cpu, ""));
  if (info && !info->isCPUStringValid(cpu)) {
    (void)fail("--mcpu=" + targetCpu + " is not a CPU of " + targetTriple);
    return nullptr;
  }
  if (optLevel > 3) {
    (void)fail("-O" + llvm::Twine(optLevel) + ": the level must be 0 to 3");
    return nullptr;
  }
  llvm::CodeGenOptLevel level = optLevel == 0   ? llvm::CodeGenOptLevel::None
                                : optLevel == 1 ? llvm::CodeGenOptLevel::Less
                                : optLevel == 2
                                    ? llvm::CodeGenOptLevel::Default
                                    : llvm::CodeGenOptLevel::Aggressive;
  llvm::TargetOptions options;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, cpu, features, options, llvm::Reloc::PIC_, std::nullopt, level));
  if (!machine)
    (void)fail("cannot create a target machine for " + targetTriple);
  return machine;
}

/// Binds calls between the object's own functions locally (as clang's
/// -fno-semantic-interposition does) and lists the symbols it needs.
static void finishModule(llvm::Module &module, Manifest &manifest) {
  std::set<std::string> externs;
  for (llvm::GlobalValue &value : module.global_values()) {
    if (value.isDeclaration()) {
      auto *function = dyn_cast<llvm::Function>(&value);
      if ((function && function->isIntrinsic()) || value.use_empty())
        continue;
      externs.insert(value.getName().str());
      continue;
    }
    if (!value.hasLocalLinkage() && !value.hasAvailableExternallyLinkage() &&
        !value.isInterposable())
      value.setDSOLocal(true);
  }
  manifest.externs.assign(externs.begin(), externs.end());
}

/// True if any value of `module` has bf16 (scalar or vector) type.
static bool usesBFloat(llvm::Module &module) {
  auto isBF16 = [](llvm::Type *type) {
    return type->getScalarType()->isBFloatTy();
  };
  for (llvm::Function &function : module) {
    for (llvm::Argument &arg : function.args())
      if (isBF16(arg.getType()))
        return true;
    for (llvm::Instruction &inst : llvm::instructions(function)) {
      if (isBF16(inst.getType()))
        return true;
      for (llvm::Value *operand : inst.operands())
        if (isBF16(operand->getType()))
          return true;
    }
  }
  return false;
}

/// Defines `__truncsfbf2` (f32 -> bf16, round to nearest even, NaN kept
/// quiet with its sign and high payload bits) weak and hidden in `module`
/// when it has bf16 values. Without native bf16 conversions (AVX512-BF16),
/// the x86 backend legalizes some bf16 vector code through this libcall,
/// which libgcc provides only from GCC 13 on; the definition keeps the
/// object self-contained, and a libgcc copy would compute the same bits.
static void addBFloatBuiltins(llvm::Module &module) {
  const char *name = "__truncsfbf2";
  if (!usesBFloat(module) || module.getFunction(name))
    return;
  llvm::LLVMContext &ctx = module.getContext();
  auto *type = llvm::FunctionType::get(llvm::Type::getBFloatTy(ctx),
                                       {llvm::Type::getFloatTy(ctx)}, false);
  auto *function = llvm::Function::Create(
      type, llvm::GlobalValue::WeakAnyLinkage, name, module);
  function->setVisibility(llvm::GlobalValue::HiddenVisibility);
  function->setDSOLocal(true);
  function->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", function));
  llvm::Value *bits = b.CreateBitCast(function->getArg(0), b.getInt32Ty());
  llvm::Value *isNaN =
      b.CreateICmpUGT(b.CreateAnd(bits, 0x7FFFFFFFu), b.getInt32(0x7F800000u));
  llvm::Value *high = b.CreateLShr(bits, 16);
  llvm::Value *quiet = b.CreateOr(high, 0x40u);
  llvm::Value *bias = b.CreateAdd(b.CreateAnd(high, 1u), b.getInt32(0x7FFFu));
  llvm::Value *rounded = b.CreateLShr(b.CreateAdd(bits, bias), 16);
  llvm::Value *result = b.CreateSelect(isNaN, quiet, rounded);
  b.CreateRet(b.CreateBitCast(b.CreateTrunc(result, b.getInt16Ty()),
                              llvm::Type::getBFloatTy(ctx)));
}

/// Writes the manifest file.
static LogicalResult writeManifest(const Manifest &manifest) {
  if (manifestFilename.empty())
    return success();
  std::string errorMessage;
  auto file = openOutputFile(manifestFilename, &errorMessage);
  if (!file)
    return fail(errorMessage);
  file->os() << printManifest(manifest);
  file->keep();
  return success();
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

static LogicalResult compile(MLIRContext &context, llvm::SourceMgr &sourceMgr) {
  if (emitKind == EmitKind::Object && outputFilename == "-")
    return fail("an object file needs -o FILE");
  AsmParserState asmState;
  OwningOpRef<ModuleOp> module = parseModule(sourceMgr, &context, asmState);
  if (!module)
    return failure();
  if (failed(verify(*module)))
    return failure();
  if (!entries.empty() && failed(keepEntries(*module)))
    return failure();
  if (!perMatmulRecipe.empty() && failed(buildProbes(module, asmState)))
    return failure();

  // The target is checked before the (longer) lowering.
  std::unique_ptr<llvm::TargetMachine> machine;
  if (emitKind != EmitKind::MLIR) {
    machine = createTargetMachine();
    if (!machine)
      return failure();
  }

  Manifest manifest;
  manifest.source = inputFilename;
  if (machine) {
    manifest.cpu = machine->getTargetCPU().str();
    manifest.features = machine->getTargetFeatureString().str();
  }
  manifest.device = device == Device::CPU ? "cpu" : "cuda";
  manifest.chip = device == Device::CUDA ? std::string(chip) : "";
  manifest.triple = targetTriple;
  manifest.pipeline = std::string(stripModuleAnchor(prePipeline));
  for (auto func : module->getOps<func::FuncOp>())
    if (func.isPublic() && !func.isExternal())
      manifest.functions.push_back(describeFunction(func, asmState));
  if (manifest.functions.empty())
    return fail("'" + inputFilename + "' has no public function with a body");

  // The pre-pipeline must keep the signatures the manifest describes.
  if (!prePipeline.empty()) {
    SmallVector<FunctionType> before;
    for (const FunctionSpec &spec : manifest.functions)
      before.push_back(
          module->lookupSymbol<func::FuncOp>(spec.name).getFunctionType());
    PassManager pm(&context);
    if (failed(addPipeline(pm, prePipeline, "--pipeline")))
      return failure();
    if (failed(pm.run(*module)))
      return fail("--pipeline failed on '" + inputFilename + "'");
    for (auto [spec, type] : llvm::zip(manifest.functions, before)) {
      auto func = module->lookupSymbol<func::FuncOp>(spec.name);
      if (!func || func.getFunctionType() != type)
        return fail("--pipeline changed the signature of @" + spec.name);
    }
  }

  // Tool attributes (mxfp8run.*, mxfp8train.role) must not reach the LLVM
  // signatures, as in mxfp8-run.
  module->walk([](func::FuncOp func) {
    func.removeArgAttrsAttr();
    func.removeResAttrsAttr();
  });

  PassManager pm(&context);
  if (failed(applyPassManagerCLOptions(pm)))
    return fail("bad pass manager options");
  FailureOr<std::string> lowering = buildLowering(pm);
  if (failed(lowering))
    return failure();
  manifest.lowering = *lowering;
  if (failed(pm.run(*module)))
    return fail("lowering '" + inputFilename + "' for the " + manifest.device +
                " failed");
  checkCInterfaces(*module, manifest);

  std::string errorMessage;
  auto output = openOutputFile(outputFilename, &errorMessage);
  if (!output)
    return fail(errorMessage);

  if (emitKind == EmitKind::MLIR) {
    module->print(output->os());
    output->keep();
    return writeManifest(manifest);
  }

  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(*module, llvmContext, inputFilename);
  if (!llvmModule)
    return fail("translating '" + inputFilename +
                "' to LLVM IR failed (does the lowering end in the LLVM "
                "dialect?)");
  llvmModule->setTargetTriple(machine->getTargetTriple());
  llvmModule->setDataLayout(machine->createDataLayout());
  finishModule(*llvmModule, manifest);
  if (optLevel > 0) {
    auto optimize =
        makeOptimizingTransformer(optLevel, /*sizeLevel=*/0, machine.get());
    if (llvm::Error err = optimize(llvmModule.get()))
      return fail("LLVM optimization failed: " +
                  llvm::toString(std::move(err)));
  }

  addBFloatBuiltins(*llvmModule);

  if (emitKind == EmitKind::LLVMIR) {
    llvmModule->print(output->os(), nullptr);
    output->keep();
    return writeManifest(manifest);
  }

  llvm::legacy::PassManager codegen;
  if (machine->addPassesToEmitFile(codegen, output->os(), nullptr,
                                   llvm::CodeGenFileType::ObjectFile))
    return fail("the target cannot emit object files");
  codegen.run(*llvmModule);
  output->os().flush();
  if (output->os().has_error())
    return fail("cannot write '" + outputFilename + "'");
  output->keep();
  return writeManifest(manifest);
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

  DialectRegistry registry;
  // With the LLVM IR translations, and for the GPU path
  // gpu-module-to-binary's NVVM target serialization.
  mxfp8train::registerAllWithUpstream(registry);
  MLIRContext context(registry);

  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);
  return failed(compile(context, sourceMgr)) ? 1 : 0;
}
