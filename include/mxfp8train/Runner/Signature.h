//===- Signature.h - the runnable signature of a function -------*- C++ -*-===//
//
// What mxfp8-run, the compare report and the C API read from a function
// before running it: argument and result types (ranked, static, with a host
// element type and an allocatable size), names (SSA names from the parser,
// `mxfp8run.name`, `arg<i>`, `result<i>`), result roles
// (`mxfp8train.role`) and SQNR bars (`mxfp8run.min_sqnr`).
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_RUNNER_SIGNATURE_H
#define MXFP8TRAIN_RUNNER_SIGNATURE_H

#include "mxfp8train/ExecutionEngine/Executable.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>

namespace mlir {
class AsmParserState;
namespace mxfp8train {

/// The names and properties of a function's arguments and results, read
/// once from the module as written.
struct Signature {
  /// The function (mutable: op handles have non-const accessors).
  mutable func::FuncOp func;
  SmallVector<RankedTensorType> argTypes, resultTypes;
  SmallVector<HostElementType> argHostTypes, resultHostTypes;
  SmallVector<std::string> argNames, resultNames;
  /// Role (`mxfp8train.role`) of each result, or "".
  SmallVector<std::string> resultRoles;
  /// `mxfp8run.min_sqnr` of each result, if any.
  SmallVector<std::optional<double>> resultMinSqnr;
};

/// `64x4096xbf16` for a ranked tensor type; other types as printed.
std::string formatTensorType(Type type);

/// Finds function `entry` of `module` (empty: the only public function with
/// a body) and checks that it can run on host tensors. `asmState`, if
/// given, supplies the SSA names; `sourceName` names the module in errors.
llvm::Expected<Signature> getSignature(ModuleOp module, llvm::StringRef entry,
                                       const AsmParserState *asmState,
                                       llvm::StringRef sourceName);

} // namespace mxfp8train
} // namespace mlir

#endif // MXFP8TRAIN_RUNNER_SIGNATURE_H
