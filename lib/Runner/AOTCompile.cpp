//===- AOTCompile.cpp - compile a module ahead of time --------------------===//
//
// Implements AOTCompile.h.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Runner/AOTCompile.h"

#include "mxfp8train/Conversion/MXFP8TrainToGPU/MXFP8TrainToGPU.h"
#include "mxfp8train/Dialect/MXFP8Train/Transforms/ConvertedRecipe.h"
#include "mxfp8train/Dialect/MXFP8Train/Transforms/Transforms.h"
#include "mxfp8train/ExecutionEngine/BFloatBuiltins.h"
#include "mxfp8train/Pipelines/Pipelines.h"
#include "mxfp8train/Runner/FunctionSpec.h"
#include "mxfp8train/Support/Manifest.h"
#include "mxfp8train/Tools/MatmulProbes.h"
#include "mxfp8train/Tools/ModuleSource.h"

#include "mlir/AsmParser/AsmParserState.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <set>

using namespace mlir;
using namespace mlir::mxfp8train;

namespace {

/// One compileAOT() call: the options, the context and the steps.
class AOTCompiler {
public:
  AOTCompiler(MLIRContext &context, const AOTCompileOptions &options)
      : context(context), options(options) {}

  LogicalResult compile(llvm::SourceMgr &sourceMgr);

private:
  /// Reports `message` as an error and returns failure.
  LogicalResult fail(const llvm::Twine &message) {
    std::string text = message.str();
    if (options.onError) {
      options.onError(text);
    } else {
      llvm::outs().flush();
      llvm::errs() << "error: " << text << "\n";
    }
    return failure();
  }

  /// Reports `message` as a warning.
  void warn(const llvm::Twine &message) {
    std::string text = message.str();
    if (options.onWarning)
      options.onWarning(text);
    else
      llvm::errs() << "warning: " << text << "\n";
  }

  OwningOpRef<ModuleOp> parseModule(llvm::SourceMgr &sourceMgr,
                                    AsmParserState &asmState);
  LogicalResult keepEntries(ModuleOp module);
  LogicalResult buildProbes(OwningOpRef<ModuleOp> &module,
                            const AsmParserState &asmState);
  LogicalResult addPipeline(PassManager &pm, StringRef text, StringRef what);
  FailureOr<std::string> buildLowering(PassManager &pm);
  LogicalResult checkBinaryChips(ModuleOp lowered, StringRef chip);
  void checkCInterfaces(ModuleOp lowered, Manifest &manifest);
  std::unique_ptr<llvm::TargetMachine> createTargetMachine();
  LogicalResult writeManifest(const Manifest &manifest);

  MLIRContext &context;
  const AOTCompileOptions &options;
  /// --per-matmul: the recipe and each function's probes (for their bars).
  RecipeAttrInterface probeRecipe;
  llvm::StringMap<SmallVector<MatmulProbe>> probesByFunction;
};

} // namespace

//===----------------------------------------------------------------------===//
// Parsing and signatures
//===----------------------------------------------------------------------===//

/// `recipe` as MLIR prints it (the manifest's `recipe`).
static std::string printRecipe(RecipeAttrInterface recipe) {
  std::string text;
  llvm::raw_string_ostream(text) << recipe;
  return text;
}

/// Parses the input file keeping the parser state (for SSA names).
OwningOpRef<ModuleOp> AOTCompiler::parseModule(llvm::SourceMgr &sourceMgr,
                                               AsmParserState &asmState) {
  std::string errorMessage;
  OwningOpRef<ModuleOp> module = parseModuleFile(
      options.inputFilename, sourceMgr, &context, asmState, errorMessage);
  if (!module && !errorMessage.empty())
    (void)fail(errorMessage);
  return module;
}

/// Erases the functions that no `--entry` function reaches through symbol
/// references.
LogicalResult AOTCompiler::keepEntries(ModuleOp module) {
  std::string missing = keepReachableFunctions(module, options.entries);
  if (!missing.empty())
    return fail("--entry=" + missing + ": no function @" + missing +
                " with a body in '" + options.inputFilename + "'");
  return success();
}

/// Replaces every public function by its per-matmul probe (--per-matmul).
LogicalResult AOTCompiler::buildProbes(OwningOpRef<ModuleOp> &module,
                                       const AsmParserState &asmState) {
  std::string error;
  RecipeAttrInterface recipe =
      parseTrainingRecipeOption(&context, options.perMatmulRecipe, error);
  if (!recipe)
    return fail("invalid --per-matmul recipe '" + options.perMatmulRecipe +
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
    probesByFunction[name] = std::move(probes);
  }
  probeRecipe = recipe;
  return success();
}

//===----------------------------------------------------------------------===//
// Lowering
//===----------------------------------------------------------------------===//

/// Parses `text` into `pm`, naming `what` in the error.
LogicalResult AOTCompiler::addPipeline(PassManager &pm, StringRef text,
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
FailureOr<std::string> AOTCompiler::buildLowering(PassManager &pm) {
  if (!options.lowering.empty()) {
    if (failed(addPipeline(pm, options.lowering, "--lowering")))
      return failure();
    return std::string(stripModuleAnchor(options.lowering));
  }
  if (options.device == AOTDevice::CPU) {
    CPUPipelineOptions cpuOptions;
    cpuOptions.vectorize = options.vectorize;
    buildMXFP8TrainCPUPipeline(pm, cpuOptions);
    return std::string("mxfp8train-lower-to-cpu{vectorize=") +
           (options.vectorize ? "true" : "false") + "}";
  }
  // The GPU pipeline is found through the registry, so that this tool builds
  // before and after it exists; `chip` is its documented option.
  if (!PassPipelineInfo::lookup(kGPUPipelineName))
    return fail("--device=cuda needs the GPU lowering pipeline '" +
                kGPUPipelineName +
                "', which this build does not have yet; use "
                "--lowering=<pipeline> to lower with your own pipeline");
  if (!parseGPUChip(options.chip))
    return fail("--chip=" + llvm::Twine(options.chip) +
                " is not a GPU target (expected " + kSupportedGPUChips + ")");
  std::string text = (kGPUPipelineName + "{chip=" + options.chip + "}").str();
  if (failed(addPipeline(pm, text, "GPU pipeline")))
    return failure();
  return text;
}

/// Checks that every GPU binary of the lowered module targets `chip`, which
/// the manifest records and mxfp8-launch checks against the GPU: a
/// --lowering naming another chip would otherwise build an object the
/// manifest misdescribes.
LogicalResult AOTCompiler::checkBinaryChips(ModuleOp lowered, StringRef chip) {
  if (chip.empty())
    return success();
  WalkResult walk = lowered.walk([&](gpu::BinaryOp binary) {
    for (Attribute object : binary.getObjectsAttr()) {
      auto target = dyn_cast<NVVM::NVVMTargetAttr>(
          cast<gpu::ObjectAttr>(object).getTarget());
      if (target && target.getChip() != chip) {
        (void)fail("the lowering compiled '" + binary.getName() + "' for " +
                   target.getChip() + ", but --chip is " + chip +
                   " (the manifest records --chip): give the same chip to "
                   "both, e.g. --lowering='mxfp8train-lower-to-gpu{chip=" +
                   chip + "}'");
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

/// Checks the C interface of every callable function in the lowered module
/// and records its pointer count; a mismatch makes the function unsupported
/// (calling it with the manifest's descriptors would be wrong).
void AOTCompiler::checkCInterfaces(ModuleOp lowered, Manifest &manifest) {
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
std::unique_ptr<llvm::TargetMachine> AOTCompiler::createTargetMachine() {
  const std::string &targetTriple = options.triple;
  llvm::Triple triple(targetTriple);
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target) {
    (void)fail("--mtriple=" + targetTriple + ": " + error);
    return nullptr;
  }
  std::string cpu = options.cpu;
  std::string features = options.features;
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
    (void)fail("--mcpu=" + options.cpu + " is not a CPU of " + targetTriple);
    return nullptr;
  }
  unsigned optLevel = options.optLevel;
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

/// The `shard.grid`s (static shapes) named by the ops of `entry` and of the
/// functions it calls, in first-use order.
static std::vector<GridSpec> collectGrids(func::FuncOp entry) {
  std::vector<GridSpec> grids;
  auto module = entry->getParentOfType<ModuleOp>();
  SymbolTable symbols(module);
  llvm::SmallPtrSet<Operation *, 8> visited;
  SmallVector<func::FuncOp> worklist = {entry};
  while (!worklist.empty()) {
    func::FuncOp func = worklist.pop_back_val();
    if (!visited.insert(func).second)
      continue;
    func.walk([&](Operation *op) {
      for (NamedAttribute attr : op->getAttrs()) {
        auto ref = dyn_cast<FlatSymbolRefAttr>(attr.getValue());
        if (!ref)
          continue;
        Operation *target = symbols.lookup(ref.getValue());
        if (auto callee = dyn_cast_or_null<func::FuncOp>(target)) {
          worklist.push_back(callee);
          continue;
        }
        auto grid = dyn_cast_or_null<shard::GridOp>(target);
        if (!grid || llvm::any_of(grids, [&](const GridSpec &g) {
              return g.name == grid.getSymName();
            }))
          continue;
        int64_t size = shard::collectiveProcessGroupSize(
            llvm::seq<shard::GridAxis>(0, grid.getRank()), grid);
        if (!ShapedType::isDynamic(size))
          grids.push_back({grid.getSymName().str(), size});
      }
    });
  }
  return grids;
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

/// Stores each callable function's signature (getFunctionSignature) as an
/// exported string constant, which mxfp8-launch checks against the
/// manifest it is given.
static void addSignatures(llvm::Module &module, const Manifest &manifest) {
  for (const FunctionSpec &spec : manifest.functions) {
    if (spec.abiArgs < 0 || !spec.unsupported.empty())
      continue;
    llvm::Constant *text = llvm::ConstantDataArray::getString(
        module.getContext(), getFunctionSignature(spec));
    auto *global =
        new llvm::GlobalVariable(module, text->getType(), /*isConstant=*/true,
                                 llvm::GlobalValue::ExternalLinkage, text,
                                 getSignatureSymbol(spec.name));
    global->setDSOLocal(true);
  }
}

/// Writes the manifest file.
LogicalResult AOTCompiler::writeManifest(const Manifest &manifest) {
  if (options.manifestFilename.empty())
    return success();
  std::string errorMessage;
  auto file = openOutputFile(options.manifestFilename, &errorMessage);
  if (!file)
    return fail(errorMessage);
  file->os() << printManifest(manifest);
  file->keep();
  return success();
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

LogicalResult AOTCompiler::compile(llvm::SourceMgr &sourceMgr) {
  const std::string &inputFilename = options.inputFilename;
  const std::string &outputFilename = options.outputFilename;
  if (options.emit == AOTEmitKind::Object && outputFilename == "-")
    return fail("an object file needs -o FILE");
  AsmParserState asmState;
  OwningOpRef<ModuleOp> module = parseModule(sourceMgr, asmState);
  if (!module)
    return failure();
  if (failed(verify(*module)))
    return failure();
  if (!options.entries.empty() && failed(keepEntries(*module)))
    return failure();
  if (!options.perMatmulRecipe.empty() && failed(buildProbes(module, asmState)))
    return failure();

  // The target is checked before the (longer) lowering.
  std::unique_ptr<llvm::TargetMachine> machine;
  if (options.emit != AOTEmitKind::MLIR) {
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
  manifest.device = options.device == AOTDevice::CPU ? "cpu" : "cuda";
  manifest.chip = options.device == AOTDevice::CUDA ? options.chip : "";
  manifest.triple = options.triple;
  manifest.pipeline = std::string(stripModuleAnchor(options.prePipeline));
  for (auto func : module->getOps<func::FuncOp>())
    if (func.isPublic() && !func.isExternal()) {
      manifest.functions.push_back(describeFunction(func, asmState));
      manifest.functions.back().grids = collectGrids(func);
    }
  if (manifest.functions.empty())
    return fail("'" + inputFilename + "' has no public function with a body");
  // Still compiled (C callers may want it), but mxfp8-launch cannot call it.
  for (const FunctionSpec &spec : manifest.functions)
    if (!spec.unsupported.empty())
      warn("@" + spec.name +
           " cannot be called through the manifest: " + spec.unsupported);
  if (probeRecipe) {
    manifest.recipe = printRecipe(probeRecipe);
    for (FunctionSpec &spec : manifest.functions)
      describeProbeBars(probesByFunction.lookup(spec.name), probeRecipe, spec);
  }

  // The pre-pipeline must keep the signatures the manifest describes.
  if (!options.prePipeline.empty()) {
    SmallVector<FunctionType> before;
    for (const FunctionSpec &spec : manifest.functions)
      before.push_back(
          module->lookupSymbol<func::FuncOp>(spec.name).getFunctionType());
    PassManager pm(&context);
    if (failed(addPipeline(pm, options.prePipeline, "--pipeline")))
      return failure();
    if (failed(pm.run(*module)))
      return fail("--pipeline failed on '" + inputFilename + "'");
    for (auto [spec, type] : llvm::zip(manifest.functions, before)) {
      auto func = module->lookupSymbol<func::FuncOp>(spec.name);
      if (!func || func.getFunctionType() != type)
        return fail("--pipeline changed the signature of @" + spec.name);
    }
  }

  // A module the pre-pipeline converted records its recipe: the bars of the
  // results' roles, as mxfp8-run --compare gives them (Bars.h).
  RecipeAttrInterface recipe = getConvertedRecipe(*module);
  if (recipe && !probeRecipe) {
    manifest.recipe = printRecipe(recipe);
    for (FunctionSpec &spec : manifest.functions)
      if (spec.unsupported.empty())
        describeResultBars(module->lookupSymbol<func::FuncOp>(spec.name),
                           recipe, spec);
  }
  (*module)->removeAttr(kConvertedRecipeAttrName);

  // Tool attributes (mxfp8run.*, mxfp8train.role) must not reach the LLVM
  // signatures, as in mxfp8-run.
  module->walk([](func::FuncOp func) {
    func.removeArgAttrsAttr();
    func.removeResAttrsAttr();
  });

  PassManager pm(&context);
  if (options.configureLowering && failed(options.configureLowering(pm)))
    return fail("bad pass manager options");
  FailureOr<std::string> lowering = buildLowering(pm);
  if (failed(lowering))
    return failure();
  manifest.lowering = *lowering;
  if (failed(pm.run(*module)))
    return fail("lowering '" + inputFilename + "' for " + manifest.device +
                (manifest.chip.empty() ? "" : " (" + manifest.chip + ")") +
                " failed (the errors above say why)");
  if (failed(checkBinaryChips(*module, manifest.chip)))
    return failure();
  checkCInterfaces(*module, manifest);

  std::string errorMessage;
  auto output = openOutputFile(outputFilename, &errorMessage);
  if (!output)
    return fail(errorMessage);

  if (options.emit == AOTEmitKind::MLIR) {
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
  addSignatures(*llvmModule, manifest);
  if (options.optLevel > 0) {
    auto optimize = makeOptimizingTransformer(options.optLevel, /*sizeLevel=*/0,
                                              machine.get());
    if (llvm::Error err = optimize(llvmModule.get()))
      return fail("LLVM optimization failed: " +
                  llvm::toString(std::move(err)));
  }

  addBFloatBuiltins(*llvmModule);

  if (options.emit == AOTEmitKind::LLVMIR) {
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

LogicalResult mlir::mxfp8train::compileAOT(MLIRContext &context,
                                           llvm::SourceMgr &sourceMgr,
                                           const AOTCompileOptions &options) {
  return AOTCompiler(context, options).compile(sourceMgr);
}
