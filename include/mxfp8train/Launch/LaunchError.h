//===- LaunchError.h - errors of the AOT launch library ---------*- C++ -*-===//
//
// What the launch library (mxfp8train/Launch) returns when something fails:
// the kind of failure, which a tool maps to its exit status (mxfp8-launch:
// docs/aot.md), and a message without the tool's prefix. Standard C++ only.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_LAUNCH_LAUNCHERROR_H
#define MXFP8TRAIN_LAUNCH_LAUNCHERROR_H

#include <string>
#include <utility>

namespace mlir::mxfp8train::launch {

/// What went wrong.
enum class LaunchErrorKind {
  /// Nothing: the value is a success.
  None,
  /// A bad manifest, library, function, input file or argument.
  BadInput,
  /// The call failed: a CUDA error, an mgpu* failure inside the function,
  /// no memory.
  RunFailed,
  /// CUDA was asked for on a machine without a usable driver or GPU.
  NoDevice,
};

/// A success (kind None, converts to false) or a failure with its message.
struct LaunchError {
  LaunchErrorKind kind = LaunchErrorKind::None;
  std::string message;

  explicit operator bool() const { return kind != LaunchErrorKind::None; }
};

/// A failure of `kind` saying `message`.
inline LaunchError makeLaunchError(LaunchErrorKind kind, std::string message) {
  return LaunchError{kind, std::move(message)};
}

} // namespace mlir::mxfp8train::launch

#endif // MXFP8TRAIN_LAUNCH_LAUNCHERROR_H
