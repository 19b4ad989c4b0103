//===- RunnerSupport.h - what the CPU and CUDA runners share ----*- C++ -*-===//
//
// Internal to lib/ExecutionEngine: moving a tensor-level module into a
// runner's private context, the signatures it can call, diagnostics as
// text, and memref descriptors of row-major buffers.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_LIB_EXECUTIONENGINE_RUNNERSUPPORT_H
#define MXFP8TRAIN_LIB_EXECUTIONENGINE_RUNNERSUPPORT_H

#include "mxfp8train/ExecutionEngine/CPURunner.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringMap.h"

#include <string>
#include <vector>

namespace mlir {
class OpPassManager;
namespace mxfp8train {
namespace runner {

/// A module lowered in a private context and JIT-compiled.
struct JitModule {
  /// A private context: the lowering must not depend on which dialects the
  /// caller's context happens to have loaded.
  std::unique_ptr<MLIRContext> context;
  /// Tensor-level signatures of the public functions, by name.
  llvm::StringMap<FunctionType> signatures;
  std::unique_ptr<ExecutionEngine> engine;

  /// The signature of public function `name`, or an error naming it.
  llvm::Expected<FunctionType> getFunctionType(llvm::StringRef name) const;
};

/// Fills a pass manager with a lowering, or fails saying why.
using PipelineBuilder = llvm::function_ref<llvm::Error(OpPassManager &)>;

/// Moves a clone of `module` into a private context (the GPU translations
/// registered when `gpu`), records its signatures, lowers it with `build`
/// (ending in the LLVM dialect with llvm.emit_c_interface functions) and
/// JIT-compiles it with the ExecutionEngine, resolving symbols in
/// `sharedLibs` too. `runner` (CPU, CUDA) names the runner in errors.
llvm::Error lowerAndCompile(ModuleOp module, bool gpu, llvm::StringRef runner,
                            PipelineBuilder build,
                            llvm::ArrayRef<llvm::StringRef> sharedLibs,
                            JitModule &out);

/// Collects the diagnostics of a context while alive, as one string.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(MLIRContext *ctx);
  std::string text;

private:
  ScopedDiagnosticHandler handler;
};

/// A context with every dialect, extension and LLVM IR translation the
/// runners need (the GPU ones too when `gpu`).
std::unique_ptr<MLIRContext> createRunnerContext(bool gpu);

/// Records the tensor-level type of every public function of `module` in
/// `signatures`; fails, naming `runner`, when one is not callable (a
/// dynamically shaped or unranked argument or result, an element type the
/// host cannot hold).
llvm::Error collectSignatures(ModuleOp module, llvm::StringRef runner,
                              llvm::StringMap<FunctionType> &signatures);

/// A copy of `module` in `ctx` (through its generic textual form) without
/// argument and result attributes (roles and input generators of the tools,
/// which the LLVM translation would reject as parameter attributes).
llvm::Expected<OwningOpRef<ModuleOp>>
cloneIntoContext(ModuleOp module, MLIRContext *ctx,
                 const DiagnosticCollector &diags);

/// Checks inputs, given as (element type, shape), against the inputs of
/// `type` (function `name`).
llvm::Error checkInputs(
    llvm::StringRef name, FunctionType type,
    llvm::ArrayRef<std::pair<HostElementType, llvm::ArrayRef<int64_t>>> inputs);
/// checkInputs of host tensors.
llvm::Error checkInputs(llvm::StringRef name, FunctionType type,
                        llvm::ArrayRef<HostTensor> inputs);

/// Zero-filled host tensors of the results of `type` (function `name`), or
/// an error when one cannot be allocated.
llvm::Expected<std::vector<HostTensor>> makeResults(llvm::StringRef name,
                                                    FunctionType type);

/// The `invokePacked` arguments of a `_mlir_ciface_*` function that takes
/// one memref descriptor per argument: `packed[i]` points at `pointers[i]`,
/// which points at `descriptors[i]` (which must outlive the call).
struct PackedArguments {
  std::vector<void *> pointers, packed;
};
PackedArguments packDescriptors(std::vector<std::vector<int64_t>> &descriptors);

/// Calls the packed interface (`_mlir_ciface_<name>`) of public function
/// `name` in `engine` with `call`. A SIGFPE in the compiled code (an integer
/// division by zero on x86) ends the call with an error naming `name` and
/// `runner` instead of the process (Support/TrapGuard.h).
llvm::Error invokeGuarded(ExecutionEngine &engine, llvm::StringRef name,
                          llvm::StringRef runner, PackedArguments &call);

} // namespace runner
} // namespace mxfp8train
} // namespace mlir

#endif // MXFP8TRAIN_LIB_EXECUTIONENGINE_RUNNERSUPPORT_H
