//===- ModuleFuzzer.cpp - libFuzzer target over the whole compiler --------===//
//
// Feeds arbitrary bytes through everything a user's module goes through:
// parse (MLIR source, unregistered dialects allowed) -> verify ->
// mxfp8train-rewrite-matmuls -> mxfp8train-lower-to-cpu, and the rewritten
// module once more through mxfp8train-lower-to-gpu for sm_90a and sm_100a,
// down to LLVM bitcode of the kernels (format=llvm: no ptxas in the loop).
//
// Every diagnostic is captured and dropped: a rejected input is a correct
// answer. A finding is a crash, an assertion, a sanitizer report, or a pass
// that succeeds and leaves IR that does not verify (the pass manager's own
// verification is replaced by a check after every successful pass that
// aborts naming the pass).
//
// Environment: MXFP8TRAIN_FUZZ_VERBOSE=1 prints the diagnostics (to replay
// one input); CUDA_HOME (default /usr/local/cuda) gives libdevice to the
// kernels that call it, an empty directory is used when it is absent.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

using namespace mlir;

namespace {

/// Everything that outlives one input: the dialect registry and the pass
/// pipelines as text.
struct FuzzerState {
  DialectRegistry registry;
  std::string toolkit;
  bool verbose = false;
};

FuzzerState *state = nullptr;

/// Verifies the IR after every pass that succeeded and aborts when it is
/// invalid: a pass that reports success must leave valid IR.
class VerifyAfterEachPass : public PassInstrumentation {
public:
  void runAfterPass(Pass *pass, Operation *op) override {
    if (succeeded(verify(op)))
      return;
    llvm::errs() << "mxfp8train-module-fuzzer: pass '" << pass->getArgument()
                 << "' (" << pass->getName()
                 << ") succeeded and left IR that does not verify\n";
    std::abort();
  }
};

/// Runs the textual pipeline `pipeline` (the passes of a builtin.module pass
/// manager, without the `builtin.module(...)` around them) on `module`. A
/// pipeline that does not parse is a bug of the harness, not of the input.
LogicalResult runPipeline(ModuleOp module, StringRef pipeline) {
  PassManager pm(module->getContext());
  pm.enableVerifier(false);
  pm.addInstrumentation(std::make_unique<VerifyAfterEachPass>());
  std::string error;
  llvm::raw_string_ostream errorStream(error);
  if (failed(parsePassPipeline(pipeline, pm, errorStream))) {
    llvm::errs() << "mxfp8train-module-fuzzer: bad pipeline '" << pipeline
                 << "': " << error << "\n";
    std::abort();
  }
  return pm.run(module);
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  registerAllPasses();
  mxfp8train::registerAllPasses();
  state = new FuzzerState();
  registerAllDialects(state->registry);
  registerAllExtensions(state->registry);
  registerAllToLLVMIRTranslations(state->registry);
  registerAllGPUToLLVMIRTranslations(state->registry);
  mxfp8train::registerAllDialects(state->registry);
  mxfp8train::registerAllExtensions(state->registry);

  const char *verbose = std::getenv("MXFP8TRAIN_FUZZ_VERBOSE");
  state->verbose = verbose && *verbose && std::string(verbose) != "0";
  const char *cudaHome = std::getenv("CUDA_HOME");
  state->toolkit = cudaHome && *cudaHome ? cudaHome : "/usr/local/cuda";
  if (!llvm::sys::fs::is_directory(state->toolkit)) {
    // gpu-module-to-binary needs an existing toolkit directory; kernels
    // without libdevice calls translate without anything in it.
    SmallString<128> empty;
    if (llvm::sys::fs::createUniqueDirectory("mxfp8train-fuzz-toolkit", empty))
      return 0;
    state->toolkit = empty.str().str();
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MLIRContext context(state->registry, MLIRContext::Threading::DISABLED);
  context.allowUnregisteredDialects();
  bool verbose = state->verbose;
  ScopedDiagnosticHandler handler(&context, [verbose](Diagnostic &diag) {
    if (verbose)
      llvm::errs() << diag.getLocation() << ": " << diag << "\n";
    return success();
  });

  // In verbose mode, each stage says how it ended.
  auto report = [verbose](StringRef stage, LogicalResult result) {
    if (verbose)
      llvm::errs() << "mxfp8train-module-fuzzer: " << stage << ": "
                   << (succeeded(result) ? "ok" : "failed") << "\n";
    return result;
  };

  StringRef source(reinterpret_cast<const char *>(data), size);
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(source, &context, "fuzz-input");
  if (failed(report("parse and verify",
                    success(module && succeeded(verify(*module))))))
    return 0;
  if (failed(report("mxfp8train-rewrite-matmuls",
                    runPipeline(*module, "mxfp8train-rewrite-matmuls"))))
    return 0;

  OwningOpRef<ModuleOp> cpu = module->clone();
  (void)report("mxfp8train-lower-to-cpu",
               runPipeline(*cpu, "mxfp8train-lower-to-cpu"));
  for (const char *chip : {"sm_90a", "sm_100a"}) {
    OwningOpRef<ModuleOp> gpu = module->clone();
    std::string pipeline = "mxfp8train-lower-to-gpu{chip=";
    pipeline += chip;
    pipeline += " format=llvm toolkit=" + state->toolkit + "}";
    (void)report(pipeline, runPipeline(*gpu, pipeline));
  }
  return 0;
}
