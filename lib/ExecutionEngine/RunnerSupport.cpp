//===- RunnerSupport.cpp - what the CPU and CUDA runners share --*- C++ -*-===//
//
// Implements RunnerSupport.h.
//
//===----------------------------------------------------------------------===//

#include "RunnerSupport.h"

#include "mxfp8train/ExecutionEngine/BFloatBuiltins.h"
#include "mxfp8train/InitAll.h"
#include "mxfp8train/Support/TrapGuard.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/TargetSelect.h"

#include <cstdlib>

using namespace mlir;
using namespace mlir::mxfp8train;

runner::DiagnosticCollector::DiagnosticCollector(MLIRContext *ctx)
    : handler(ctx, [this](Diagnostic &diag) {
        llvm::raw_string_ostream os(text);
        os << diag.getLocation() << ": " << diag << "\n";
        for (Diagnostic &note : diag.getNotes())
          os << "  note: " << note << "\n";
        return success();
      }) {}

std::unique_ptr<MLIRContext> runner::createRunnerContext(bool gpu) {
  DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mxfp8train::registerAllDialects(registry);
  mxfp8train::registerAllExtensions(registry);
  if (gpu) {
    mlir::registerAllToLLVMIRTranslations(registry);
    mlir::registerAllGPUToLLVMIRTranslations(registry);
  } else {
    registerBuiltinDialectTranslation(registry);
    registerLLVMDialectTranslation(registry);
  }
  return std::make_unique<MLIRContext>(registry);
}

llvm::Error
runner::collectSignatures(ModuleOp module, StringRef runner,
                          llvm::StringMap<FunctionType> &signatures) {
  for (auto func : module.getOps<func::FuncOp>()) {
    if (!func.isPublic() || func.isExternal())
      continue;
    for (Type t : llvm::concat<const Type>(func.getArgumentTypes(),
                                           func.getResultTypes())) {
      auto tensor = dyn_cast<RankedTensorType>(t);
      if (!tensor || !tensor.hasStaticShape())
        return llvm::createStringError(
            "function '" + func.getName().str() + "': the " + runner.str() +
            " runner needs statically shaped ranked tensor arguments and "
            "results");
      if (auto err = getHostElementType(tensor.getElementType()).takeError())
        return err;
    }
    signatures[func.getName()] = func.getFunctionType();
  }
  return llvm::Error::success();
}

llvm::Expected<OwningOpRef<ModuleOp>>
runner::cloneIntoContext(ModuleOp module, MLIRContext *ctx,
                         const DiagnosticCollector &diags) {
  std::string text;
  {
    llvm::raw_string_ostream os(text);
    // With the locations, so that the lowering's diagnostics name the
    // user's source lines, not lines of this text.
    module->print(os, OpPrintingFlags().printGenericOpForm().enableDebugInfo());
  }
  OwningOpRef<ModuleOp> copy = parseSourceString<ModuleOp>(text, ctx);
  if (!copy)
    return llvm::createStringError("could not re-parse the module:\n" +
                                   diags.text);
  copy->walk([](func::FuncOp func) {
    func.removeArgAttrsAttr();
    func.removeResAttrsAttr();
  });
  return copy;
}

llvm::Error runner::checkInputs(
    StringRef name, FunctionType type,
    ArrayRef<std::pair<HostElementType, ArrayRef<int64_t>>> inputs) {
  if (inputs.size() != type.getNumInputs())
    return llvm::createStringError("function '" + name.str() + "' takes " +
                                   std::to_string(type.getNumInputs()) +
                                   " arguments, " +
                                   std::to_string(inputs.size()) + " given");
  for (auto [i, t] : llvm::enumerate(type.getInputs())) {
    auto tensor = cast<RankedTensorType>(t);
    HostElementType want = *getHostElementType(tensor.getElementType());
    auto [given, shape] = inputs[i];
    if (given != want || shape != tensor.getShape())
      return llvm::createStringError(
          "argument " + std::to_string(i) + " of '" + name.str() +
          "' must be " +
          formatTensorType(tensor.getShape().data(), tensor.getRank(), want) +
          ", given " + formatTensorType(shape.data(), shape.size(), given));
  }
  return llvm::Error::success();
}

llvm::Error runner::checkInputs(StringRef name, FunctionType type,
                                ArrayRef<HostTensor> inputs) {
  SmallVector<std::pair<HostElementType, ArrayRef<int64_t>>> types;
  for (const HostTensor &input : inputs)
    types.emplace_back(input.type, input.shape);
  return checkInputs(name, type, types);
}

llvm::Expected<std::vector<HostTensor>> runner::makeResults(StringRef name,
                                                            FunctionType type) {
  std::vector<HostTensor> results;
  for (auto [i, t] : llvm::enumerate(type.getResults())) {
    auto tensor = cast<RankedTensorType>(t);
    llvm::Expected<HostTensor> result = HostTensor::create(
        *getHostElementType(tensor.getElementType()), tensor.getShape(),
        "result #" + llvm::Twine(i) + " of '" + name + "'");
    if (!result)
      return result.takeError();
    results.push_back(std::move(*result));
  }
  return results;
}

llvm::Expected<FunctionType>
runner::JitModule::getFunctionType(StringRef name) const {
  auto it = signatures.find(name);
  if (it == signatures.end())
    return llvm::createStringError("no public function named '" + name.str() +
                                   "' with a body in the module");
  return it->second;
}

runner::PackedArguments
runner::packDescriptors(std::vector<std::vector<int64_t>> &descriptors) {
  PackedArguments args;
  for (std::vector<int64_t> &d : descriptors)
    args.pointers.push_back(d.data());
  // `pointers` is complete: its elements no longer move.
  for (void *&p : args.pointers)
    args.packed.push_back(&p);
  return args;
}

/// Reports each external function of the lowered `module` that neither the
/// process nor `sharedLibs` export, at its declaration. ORC names the
/// missing symbols on stderr only. (Symbols a library registers through
/// `__mlir_execution_engine_init` alone are not searched: this runs only
/// once the JIT has failed.)
static void diagnoseUndefinedSymbols(ModuleOp module,
                                     ArrayRef<StringRef> sharedLibs) {
  llvm::sys::DynamicLibrary::LoadLibraryPermanently(nullptr);
  for (StringRef lib : sharedLibs)
    llvm::sys::DynamicLibrary::LoadLibraryPermanently(lib.str().c_str());
  for (auto fn : module.getOps<LLVM::LLVMFuncOp>()) {
    // Declarations nothing calls never need a definition.
    if (!fn.isExternal() || fn.getName().starts_with("llvm.") ||
        SymbolTable::symbolKnownUseEmpty(fn, module))
      continue;
    if (llvm::sys::DynamicLibrary::SearchForAddressOfSymbol(fn.getName().str()))
      continue;
    emitError(fn.getLoc())
        << "'" << fn.getName()
        << "' is declared but not defined: neither the module "
           "nor the runtime libraries nor the process provide it";
  }
}

llvm::Error runner::lowerAndCompile(ModuleOp module, bool gpu, StringRef runner,
                                    PipelineBuilder build,
                                    ArrayRef<StringRef> sharedLibs,
                                    JitModule &out) {
  static bool nativeInitialized = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)nativeInitialized;
  if (gpu) {
    // gpu-module-to-binary compiles the device code with LLVM's NVPTX
    // backend.
    static bool allInitialized = [] {
      llvm::InitializeAllTargets();
      llvm::InitializeAllTargetMCs();
      llvm::InitializeAllAsmPrinters();
      return true;
    }();
    (void)allInitialized;
  }
  out.context = createRunnerContext(gpu);
  MLIRContext *ctx = out.context.get();
  DiagnosticCollector diags(ctx);
  llvm::Expected<OwningOpRef<ModuleOp>> lowered =
      cloneIntoContext(module, ctx, diags);
  if (!lowered)
    return lowered.takeError();
  // The signatures of the clone, in the private context: types of the
  // caller's context would dangle once the caller destroys it (the
  // executable may outlive it, as the C API allows).
  if (llvm::Error err = collectSignatures(**lowered, runner, out.signatures))
    return err;
  PassManager pm(ctx);
  if (llvm::Error err = build(pm))
    return err;
  if (failed(pm.run(**lowered)))
    return llvm::createStringError("lowering for the " +
                                   StringRef(gpu ? "GPU" : "CPU") +
                                   " failed:\n" + diags.text);
  // MXFP8TRAIN_DUMP_LOWERED=1 prints the LLVM-dialect module that is JITed.
  if (const char *dump = std::getenv("MXFP8TRAIN_DUMP_LOWERED");
      dump && StringRef(dump) == "1")
    (*lowered)->print(llvm::errs());

  ExecutionEngineOptions engineOptions;
  // ExecutionEngineOptions::transformer is a function_ref: the callable it
  // refers to must outlive ExecutionEngine::create, so it is a named local.
  auto optimize = makeOptimizingTransformer(/*optLevel=*/3,
                                            /*sizeLevel=*/0, nullptr);
  auto transform = [&optimize](llvm::Module *module) -> llvm::Error {
    if (llvm::Error err = optimize(module))
      return err;
    // The bf16 libcall the x86 backend may need (BFloatBuiltins.h).
    addBFloatBuiltins(*module);
    return llvm::Error::success();
  };
  engineOptions.transformer = transform;
  engineOptions.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Aggressive;
  engineOptions.sharedLibPaths = sharedLibs;
  auto engine = ExecutionEngine::create(**lowered, engineOptions);
  if (!engine)
    return llvm::joinErrors(
        llvm::createStringError("JIT compilation failed: " + diags.text),
        engine.takeError());
  // The module's heap calls go through the trap guard's allocator, which
  // frees what a call that traps leaves allocated (TrapGuard.h); bound
  // before the first lookup materializes the module.
  (*engine)->registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    auto bind = [&](StringRef name, auto *function) {
      symbols[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(function),
                                 llvm::JITSymbolFlags::Exported};
    };
    bind("malloc", &guardedMalloc);
    bind("aligned_alloc", &guardedAlignedAlloc);
    bind("free", &guardedFree);
    // A failed cf.assert prints its message and calls abort: the call
    // ends with an error instead of the process.
    bind("abort", &guardedAbort);
    return symbols;
  });
  // The JIT materializes the module at its first lookup: look an entry up
  // now, so that a symbol nothing defines is a compile error naming the
  // declaration (ORC's own error names only the entry points).
  if (!out.signatures.empty()) {
    std::string entry =
        "_mlir_ciface_" + out.signatures.begin()->getKey().str();
    if (auto fn = (*engine)->lookupPacked(entry); !fn) {
      diagnoseUndefinedSymbols(**lowered, sharedLibs);
      return llvm::joinErrors(
          llvm::createStringError("JIT compilation failed: " + diags.text),
          fn.takeError());
    }
  }
  out.engine = std::move(*engine);
  return llvm::Error::success();
}

llvm::Error runner::invokeGuarded(ExecutionEngine &engine, StringRef name,
                                  StringRef runner, PackedArguments &call) {
  auto function = engine.lookupPacked("_mlir_ciface_" + name.str());
  if (!function)
    return function.takeError();
  auto callPacked = [](void *packed) {
    auto *call = static_cast<std::pair<void (*)(void **), void **> *>(packed);
    call->first(call->second);
  };
  std::pair<void (*)(void **), void **> packed(*function, call.packed.data());
  if (int code = callCatchingSigfpe(callPacked, &packed)) {
    if (code == kAbortedCall)
      return llvm::createStringError(
          "'" + name.str() + "' failed an assertion on the " + runner.str() +
          " (a cf.assert, whose message it printed, or another call of "
          "abort); no result was written");
    return llvm::createStringError(
        "'" + name.str() + "' trapped on the " + runner.str() +
        " (SIGFPE): " + describeSigfpe(code) + "; no result was written");
  }
  return llvm::Error::success();
}
