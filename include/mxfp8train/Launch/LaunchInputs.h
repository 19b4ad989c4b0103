//===- LaunchInputs.h - the inputs of an AOT call ---------------*- C++ -*-===//
//
// The arguments of one call of mxfp8-launch: generated exactly as mxfp8-run
// generates them, or read from .npy files (LaunchOptions::inputs), reported
// one line each; and the output directory, with the inputs saved as .npy
// when asked. Standard C++ only.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_LAUNCH_LAUNCHINPUTS_H
#define MXFP8TRAIN_LAUNCH_LAUNCHINPUTS_H

#include "mxfp8train/Launch/LaunchError.h"
#include "mxfp8train/Launch/LaunchOptions.h"
#include "mxfp8train/Support/Manifest.h"

#include <cstdint>
#include <ostream>
#include <vector>

namespace mlir::mxfp8train::launch {

/// Generates the arguments of `spec` (seed and standard deviation of
/// `options`) or reads them from `options.inputs` (one file per argument)
/// into `inputs`, printing `inputs:`, one line per argument and where they
/// came from to `os`. A wrong number of files or a bad file is a BadInput
/// failure.
LaunchError prepareLaunchInputs(const FunctionSpec &spec,
                                const LaunchOptions &options,
                                std::vector<std::vector<uint8_t>> &inputs,
                                std::ostream &os);

/// Creates `options.outputDir` (if set) and, with `options.saveInputs`,
/// writes `inputs` into its `inputs/` as `<i>_<name>.npy`. --save-inputs
/// without an output directory, or a directory or file that cannot be
/// written, is a BadInput failure.
LaunchError
prepareLaunchOutputDir(const FunctionSpec &spec, const LaunchOptions &options,
                       const std::vector<std::vector<uint8_t>> &inputs);

} // namespace mlir::mxfp8train::launch

#endif // MXFP8TRAIN_LAUNCH_LAUNCHINPUTS_H
