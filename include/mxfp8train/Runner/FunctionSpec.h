//===- FunctionSpec.h - manifest entries of MLIR functions ------*- C++ -*-===//
//
// The MLIR side of the AOT manifest (Support/Manifest.h): the tensor-level
// signature of a function as mxfp8-compile records it for mxfp8-launch,
// with mxfp8-run's names and the input-generation and role attributes.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_RUNNER_FUNCTIONSPEC_H
#define MXFP8TRAIN_RUNNER_FUNCTIONSPEC_H

#include "mxfp8train/Support/Manifest.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir {
class AsmParserState;
namespace mxfp8train {

/// The manifest entry of `func`: mxfp8-run's names (SSA names from
/// `asmState`, `mxfp8run.name`, `arg<i>` / `result<i>`), types, and the
/// `mxfp8run.std`, `mxfp8run.values`, `mxfp8train.role` and
/// `mxfp8run.min_sqnr` attributes. A function that cannot be called through
/// the manifest gets the reason in `unsupported`.
FunctionSpec describeFunction(func::FuncOp func,
                              const AsmParserState &asmState);

} // namespace mxfp8train
} // namespace mlir

#endif // MXFP8TRAIN_RUNNER_FUNCTIONSPEC_H
