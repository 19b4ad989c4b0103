//===- SelectFunction.h - pick an AOT function from a manifest --*- C++ -*-===//
//
// Which function of an AOT manifest (Manifest.h) a launch calls: the one
// named, or the only callable one; and whether two functions can be
// compared result by result (the same tensor types). Standard C++ only.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_LAUNCH_SELECTFUNCTION_H
#define MXFP8TRAIN_LAUNCH_SELECTFUNCTION_H

#include "mxfp8train/Launch/LaunchError.h"
#include "mxfp8train/Support/Manifest.h"

#include <string>

namespace mlir::mxfp8train::launch {

/// Sets `out` to the function `entry` of `manifest` (read from `path`, for
/// the messages), or to its only callable function when `entry` is empty.
/// Fails when there is no such function, it cannot be called, or it takes
/// more than kMaxDescriptors (AOTFunction.h) tensors.
LaunchError selectFunction(const Manifest &manifest, const std::string &path,
                           const std::string &entry, const FunctionSpec *&out);

/// The tensor types of `func`: "(tensor<...>, ...) -> (tensor<...>, ...)".
std::string describeSignature(const FunctionSpec &func);

/// Fails unless `a` and `b` have the same tensor types.
LaunchError checkSameSignature(const FunctionSpec &a, const FunctionSpec &b);

} // namespace mlir::mxfp8train::launch

#endif // MXFP8TRAIN_LAUNCH_SELECTFUNCTION_H
