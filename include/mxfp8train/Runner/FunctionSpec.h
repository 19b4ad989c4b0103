//===- FunctionSpec.h - manifest entries of MLIR functions ------*- C++ -*-===//
//
// The MLIR side of the AOT manifest (Support/Manifest.h): the tensor-level
// signature of a function as mxfp8-compile records it for mxfp8-launch,
// with mxfp8-run's names, the input-generation and role attributes, and
// the SQNR bars of a converted module.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_RUNNER_FUNCTIONSPEC_H
#define MXFP8TRAIN_RUNNER_FUNCTIONSPEC_H

#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainAttrs.h"
#include "mxfp8train/Support/Manifest.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir {
class AsmParserState;
namespace mxfp8train {
struct MatmulProbe;

/// Describes argument `i` of `func` into `arg` (all but its name): element
/// kind, shape, `mxfp8run.std`, `mxfp8run.values`. Returns why the argument
/// cannot be passed from the host ("has a dynamic shape (...)", ...), or "".
std::string describeArgument(func::FuncOp func, unsigned i, TensorSpec &arg);

/// The manifest entry of `func`: mxfp8-run's names (SSA names from
/// `asmState`, `mxfp8run.name`, `arg<i>` / `result<i>`), types, and the
/// `mxfp8run.std`, `mxfp8run.values`, `mxfp8train.role` and
/// `mxfp8run.min_sqnr` attributes. A function that cannot be called through
/// the manifest gets the reason in `unsupported`.
FunctionSpec describeFunction(func::FuncOp func,
                              const AsmParserState &asmState);

/// Records in `spec` the bar of each result of `func`, a function converted
/// under `recipe`, that has a training role (`output`, `input_grad`,
/// `weight_grad`): the bar mxfp8-run --compare gives it (Bars.h,
/// getRoleBar), shown only when the result depends on several quantized
/// GEMMs.
void describeResultBars(func::FuncOp func, RecipeAttrInterface recipe,
                        FunctionSpec &spec);

/// Records in `spec`, the entry of a probe function built under `recipe`
/// with `probes` (Tools/MatmulProbes.h), the bar of each converted matmul
/// result (Bars.h, getMatmulBar), as mxfp8-run --compare checks it.
void describeProbeBars(ArrayRef<MatmulProbe> probes, RecipeAttrInterface recipe,
                       FunctionSpec &spec);

} // namespace mxfp8train
} // namespace mlir

#endif // MXFP8TRAIN_RUNNER_FUNCTIONSPEC_H
