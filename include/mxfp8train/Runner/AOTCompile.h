//===- AOTCompile.h - compile a module ahead of time ------------*- C++ -*-===//
//
// The ahead-of-time compile of mxfp8-compile as a library call (docs/aot.md):
// parse a tensor-level module, keep the entry functions, optionally replace
// them by their per-matmul probes, run a pre-pipeline (e.g. the MXFP8
// rewrite) and the CPU or GPU lowering, check the C interface of every
// function, translate to LLVM IR, optimize and emit a position-independent
// x86-64 object (or the LLVM IR, or the lowered module), and write the
// manifest (Support/Manifest.h) that mxfp8-launch and the launch library
// (Launch/AOTFunction.h) read where no MLIR exists.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_RUNNER_AOTCOMPILE_H
#define MXFP8TRAIN_RUNNER_AOTCOMPILE_H

#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Support/SourceMgr.h"

#include <functional>
#include <string>
#include <vector>

namespace mlir::mxfp8train {

/// What the compiled code runs on.
enum class AOTDevice {
  /// The host CPU (mxfp8train-lower-to-cpu).
  CPU,
  /// An NVIDIA GPU (mxfp8train-lower-to-gpu); the host code calls the
  /// runtime's mgpu* ABI.
  CUDA,
};

/// What compileAOT() writes to its output file.
enum class AOTEmitKind {
  /// An ELF object file.
  Object,
  /// The optimized LLVM IR, as text.
  LLVMIR,
  /// The lowered module (LLVM dialect).
  MLIR,
};

/// The options of compileAOT(); mxfp8-compile's command line (docs/aot.md).
struct AOTCompileOptions {
  /// The .mlir file to read ("-": standard input); also the manifest's
  /// `source` and the name in messages.
  std::string inputFilename = "-";
  /// Where the output goes ("-": standard output, not for objects).
  std::string outputFilename = "-";
  /// Where the manifest goes; none when empty.
  std::string manifestFilename;
  AOTDevice device = AOTDevice::CPU;
  /// The GPU architecture for AOTDevice::CUDA (sm_90a, sm_100a).
  std::string chip = "sm_90a";
  /// A pass pipeline run before the lowering (the builtin.module(...)
  /// anchor optional); it must keep the functions' signatures.
  std::string prePipeline;
  /// A pipeline replacing the device's lowering (it must end in the LLVM
  /// dialect with llvm.emit_c_interface functions); none when empty.
  std::string lowering;
  /// A recipe: compile the per-matmul probe of every public function
  /// instead of the function (Tools/MatmulProbes.h); none when empty.
  std::string perMatmulRecipe;
  /// CPU lowering: tile and vectorize (false: scalar loops).
  bool vectorize = true;
  /// The public functions to keep with what they call; all when empty.
  std::vector<std::string> entries;
  AOTEmitKind emit = AOTEmitKind::Object;
  /// The host target: triple, CPU ("native": this machine's, with its
  /// features), extra features, LLVM optimization level (0 to 3).
  std::string triple = "x86_64-unknown-linux-gnu";
  std::string cpu = "x86-64-v3";
  std::string features;
  unsigned optLevel = 3;
  /// Called on the lowering's pass manager before it runs (a tool applies
  /// its pass-manager command-line options there); a failure fails the
  /// compile.
  std::function<LogicalResult(PassManager &)> configureLowering;
  /// Receive the errors and warnings that are not MLIR diagnostics (those go
  /// to the context's diagnostic handler), as sentences without a prefix;
  /// errors are then followed by the failure of compileAOT(). By default
  /// they are printed to stderr after "error: " and "warning: ".
  std::function<void(const std::string &)> onError;
  std::function<void(const std::string &)> onWarning;
};

/// Compiles `options.inputFilename`, read through `sourceMgr` (which a
/// SourceMgrDiagnosticHandler may print diagnostics from), and writes the
/// output and the manifest. `context` must hold the dialects and the LLVM IR
/// translations of registerAllWithUpstream() (InitAll.h); the LLVM targets
/// must be initialized and the passes of textual pipelines registered.
/// Functions whose C interface cannot be called with one descriptor per
/// tensor are kept, marked unsupported in the manifest, with a warning.
LogicalResult compileAOT(MLIRContext &context, llvm::SourceMgr &sourceMgr,
                         const AOTCompileOptions &options);

} // namespace mlir::mxfp8train

#endif // MXFP8TRAIN_RUNNER_AOTCOMPILE_H
