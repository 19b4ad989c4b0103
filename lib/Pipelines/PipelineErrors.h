//===- PipelineErrors.h - errors of the pipeline builders ------*- C++ -*-===//
//
// A pipeline builder cannot fail (PassPipelineRegistration), so what it
// checks (its options, the pass manager it is built into) it reports
// through a pass that fails with the message when the pipeline runs: a
// located error and a non-zero exit, instead of LLVM's fatal error for a
// pass scheduled on the wrong op.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_LIB_PIPELINES_PIPELINEERRORS_H
#define MXFP8TRAIN_LIB_PIPELINES_PIPELINEERRORS_H

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

#include <memory>
#include <string>

namespace mlir::mxfp8train {

/// A pass for any op that fails with "`pipeline`: `message`" at the op's
/// location (without printing the op).
std::unique_ptr<Pass> createPipelineErrorPass(StringRef pipeline,
                                              std::string message);

/// True when `pm` runs on builtin.module (or is op-agnostic), which the
/// lowering pipelines need
/// (they bufferize and lower whole modules); otherwise adds the error pass
/// saying how to anchor `pipeline`, and returns false.
bool checkModuleAnchor(OpPassManager &pm, StringRef pipeline);

} // namespace mlir::mxfp8train

#endif // MXFP8TRAIN_LIB_PIPELINES_PIPELINEERRORS_H
