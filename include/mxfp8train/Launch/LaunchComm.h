//===- LaunchComm.h - communicators for launched calls ----------*- C++ -*-===//
//
// Programs with shard collectives or the MoE exchange (moe_dispatch,
// moe_combine) call the runtime's shard ABI on the calling thread's bound
// communicator (runtime/include/mxfp8train/runtime/Collectives.h).
// mxfp8-launch binds one:
//   --comm=single   one process: NCCL on the current GPU for CUDA code
//                   (device buffers), the in-process backend for CPU code;
//   --comm=ranks:N  N processes of an SPMD program, one thread each
//                   (runOnRanks): rank r runs the function on its own inputs
//                   (seed + r), on GPU `gpu + r` over NCCL for CUDA code, or
//                   over an in-process group for CPU code.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_LAUNCH_LAUNCHCOMM_H
#define MXFP8TRAIN_LAUNCH_LAUNCHCOMM_H

#include "mxfp8train/Launch/AOTFunction.h"
#include "mxfp8train/Launch/LaunchError.h"
#include "mxfp8train/Launch/LaunchOptions.h"
#include "mxfp8train/Support/Manifest.h"

#include <functional>

#include "mxfp8train/runtime/Collectives.h"

#include <string>
#include <vector>

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

/// What one rank of runOnRanks produced.
struct RankOutcome {
  /// The rank's failure (None: it ran).
  LaunchError error;
  /// Its results, one host buffer per result of the function.
  std::vector<HostBuffer> results;
  /// Its inputs (as generated or read), for --save-inputs.
  std::vector<std::vector<uint8_t>> inputs;
  /// The median of its timed calls, and their description.
  double medianMs = 0.0;
  std::string times;
};

/// Runs `spec` of `library` as an SPMD program on `ranks` ranks, one thread
/// each, with the options of mxfp8-launch: rank r generates its inputs with
/// seed `options.seed + r` (or reads `options.inputs`, the same files for
/// every rank), runs on GPU `options.gpu + r` when `cuda`, with its rank of
/// an NCCL communicator (CUDA) or of an in-process group (CPU) bound to its
/// thread, `options.warmup` + `options.repeat` calls. Fails (BadInput) when
/// `cuda` and fewer than `options.gpu + ranks` GPUs exist. Every rank makes
/// the same collective calls, so a rank that fails inside the function
/// (its cf.assert aborts the process; a SIGFPE ends its call) or before its
/// first collective leaves the others waiting for it. `onRankFailure`, if
/// given, is called on the failing rank's thread with its error as soon as
/// it fails, and must not return (mxfp8-launch prints the error and exits);
/// without it, run under a timeout.
LaunchError
runOnRanks(const std::string &library, const FunctionSpec &spec, bool cuda,
           const LaunchOptions &options, int ranks,
           std::vector<RankOutcome> &outcomes,
           const std::function<void(const LaunchError &)> &onRankFailure = {});

} // namespace mlir::mxfp8train::launch

#endif // MXFP8TRAIN_LAUNCH_LAUNCHCOMM_H
