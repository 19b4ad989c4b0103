//===- Pipelines.h - mxfp8train named pass pipelines ---------------*- C++
//-*-===//
//
// The named pipelines: the training rewrite and the CPU lowering to LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_PIPELINES_PIPELINES_H
#define MXFP8TRAIN_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;
namespace mxfp8train {

/// Options of the `mxfp8train-lower-to-cpu` pipeline.
struct CPUPipelineOptions : public PassPipelineOptions<CPUPipelineOptions> {
  PassOptions::Option<bool> vectorize{
      *this, "vectorize",
      llvm::cl::desc("Tile and vectorize matmuls and elementwise ops with "
                     "upstream linalg transforms (off: scalar loops)"),
      llvm::cl::init(true)};
};

/// Builds the CPU lowering pipeline: mxfp8train -> linalg on tensors ->
/// tiled and vectorized linalg -> bufferization (memref results become out
/// parameters) -> LLVM dialect. Every public function gets
/// `llvm.emit_c_interface`. The result can be JIT-compiled with
/// mlir::ExecutionEngine.
void buildMXFP8TrainCPUPipeline(OpPassManager &pm,
                                const CPUPipelineOptions &options);

/// Registers `mxfp8train-lower-to-cpu` with the global pass registry.
void registerMXFP8TrainPipelines();

} // namespace mxfp8train
} // namespace mlir

#endif // MXFP8TRAIN_PIPELINES_PIPELINES_H
