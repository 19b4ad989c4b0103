//===- Outputs.h - naming and writing the tensors of a run ------*- C++ -*-===//
//
// Results are written as `<dir>/<stem><suffix>.npy`, with one unique stem
// per result made from its name, and inputs as
// `<dir>/inputs/<index>_<name>.npy` (docs/mxfp8-run.md, "Outputs").
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_RUNNER_OUTPUTS_H
#define MXFP8TRAIN_RUNNER_OUTPUTS_H

#include "mxfp8train/Runner/Signature.h"

#include <string>

namespace mlir::mxfp8train {

/// One unique file stem per result of `sig` (getUniqueFileStems of the
/// result names, Support/Report.h).
std::vector<std::string> getResultStems(const Signature &sig);

/// `<dir>/<stem><suffix>.npy`.
std::string getOutputPath(llvm::StringRef dir, llvm::StringRef stem,
                          llvm::StringRef suffix);

/// Writes `tensor` as .npy: bf16 as `<u2` bit patterns, or widened to `<f4`
/// when `bf16AsFloat32`.
llvm::Error writeHostTensor(llvm::StringRef path, const HostTensor &tensor,
                            bool bf16AsFloat32);

/// Creates `dir` (and parents) if needed; with `inputs`, also writes them to
/// `<dir>/inputs/<index>_<name>.npy`.
llvm::Error prepareOutputDir(llvm::StringRef dir, const Signature &sig,
                             const std::vector<HostTensor> *inputs,
                             bool bf16AsFloat32);

} // namespace mlir::mxfp8train

#endif // MXFP8TRAIN_RUNNER_OUTPUTS_H
