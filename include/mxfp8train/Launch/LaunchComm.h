//===- LaunchComm.h - a one-rank communicator -------------------*- C++ -*-===//
//-*-===//
//
// Programs with shard collectives or the MoE exchange (moe_dispatch,
// moe_combine) call the runtime's shard ABI on the calling thread's bound
// communicator (runtime/include/mxfp8train/runtime/Collectives.h). For a
// program written for a grid of one process, mxfp8-launch --comm=single
// binds one: NCCL on the current GPU for CUDA code (device buffers), the
// in-process backend for CPU code (host buffers).
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_LAUNCH_LAUNCHCOMM_H
#define MXFP8TRAIN_LAUNCH_LAUNCHCOMM_H

#include "mxfp8train/Launch/LaunchError.h"

#include "mxfp8train/runtime/Collectives.h"

namespace mlir::mxfp8train::launch {

/// A one-rank communicator bound to the calling thread from bind() until
/// release() or destruction.
class SingleRankComm {
public:
  SingleRankComm() = default;
  SingleRankComm(const SingleRankComm &) = delete;
  SingleRankComm &operator=(const SingleRankComm &) = delete;
  ~SingleRankComm() { release(); }

  /// Creates and binds the communicator: NCCL on the current device when
  /// `cuda` (RunFailed, with the runtime's message, when libnccl cannot be
  /// loaded or fails), else the in-process backend.
  LaunchError bind(bool cuda);

  /// Unbinds and destroys it (a no-op when none is bound).
  void release();

private:
  mxfp8rtComm comm = nullptr;
  mxfp8rtInProcessGroup group = nullptr;
};

} // namespace mlir::mxfp8train::launch

#endif // MXFP8TRAIN_LAUNCH_LAUNCHCOMM_H
