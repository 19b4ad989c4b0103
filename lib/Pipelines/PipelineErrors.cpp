//===- PipelineErrors.cpp - errors of the pipeline builders ----*- C++ -*-===//
//
// PipelineErrors.h.
//
//===----------------------------------------------------------------------===//

#include "PipelineErrors.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace mlir::mxfp8train;

namespace {
struct PipelineErrorPass : PassWrapper<PipelineErrorPass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(PipelineErrorPass)
  PipelineErrorPass(StringRef pipeline, std::string message)
      : pipeline(pipeline.str()), message(std::move(message)) {}
  StringRef getArgument() const override { return "mxfp8train-pipeline-error"; }
  void runOnOperation() override {
    mlir::emitError(getOperation()->getLoc()) << pipeline << ": " << message;
    signalPassFailure();
  }
  std::string pipeline, message;
};
} // namespace

std::unique_ptr<Pass>
mlir::mxfp8train::createPipelineErrorPass(StringRef pipeline,
                                          std::string message) {
  return std::make_unique<PipelineErrorPass>(pipeline, std::move(message));
}

bool mlir::mxfp8train::checkModuleAnchor(OpPassManager &pm,
                                         StringRef pipeline) {
  // An op-agnostic manager (a PassManager's default) runs on the module
  // it is given.
  StringRef anchor = pm.getOpAnchorName();
  if (anchor == ModuleOp::getOperationName() ||
      anchor == OpPassManager::getAnyOpAnchorName())
    return true;
  pm.addPass(createPipelineErrorPass(
      pipeline,
      ("runs on builtin.module (it bufferizes and lowers whole "
       "modules), not nested in '" +
       anchor + "': use --pass-pipeline='builtin.module(" + pipeline + ")'")
          .str()));
  return false;
}
