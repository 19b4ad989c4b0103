//===- LaunchComm.cpp - communicators for launched calls --------*- C++ -*-===//
//
// LaunchComm.h.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Launch/LaunchComm.h"

#include "mxfp8train/Launch/CudaDevice.h"
#include "mxfp8train/Launch/LaunchInputs.h"

#include <sstream>
#include <string>
#include <thread>

using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::launch;

static LaunchError runtimeFailure(const std::string &what) {
  return makeLaunchError(LaunchErrorKind::RunFailed,
                         what + ": " + mxfp8rtGetLastError());
}

LaunchError SingleRankComm::bind(bool cuda) {
  release();
  if (cuda) {
    mxfp8rtNcclUniqueId id;
    if (mxfp8rtNcclGetUniqueId(&id) != MXFP8RT_SUCCESS)
      return runtimeFailure("--comm=single: no NCCL communicator");
    if (mxfp8rtCommInitNccl(1, &id, 0, &comm) != MXFP8RT_SUCCESS)
      return runtimeFailure("--comm=single: mxfp8rtCommInitNccl");
  } else {
    if (mxfp8rtInProcessGroupCreate(1, &group) != MXFP8RT_SUCCESS)
      return runtimeFailure("--comm=single: mxfp8rtInProcessGroupCreate");
    if (mxfp8rtCommInitInProcess(group, 0, &comm) != MXFP8RT_SUCCESS)
      return runtimeFailure("--comm=single: mxfp8rtCommInitInProcess");
  }
  // The shard ABI's calls run on the default stream and, on NCCL, return
  // once it is done (Collectives.h).
  if (mxfp8rtCommBind(comm, nullptr) != MXFP8RT_SUCCESS)
    return runtimeFailure("--comm=single: mxfp8rtCommBind");
  return {};
}

void SingleRankComm::release() {
  if (comm) {
    (void)mxfp8rtCommBind(nullptr, nullptr);
    (void)mxfp8rtCommDestroy(comm);
    comm = nullptr;
  }
  if (group) {
    (void)mxfp8rtInProcessGroupDestroy(group);
    group = nullptr;
  }
}

/// Rank `rank`'s whole run on its thread (runOnRanks).
static void
runRank(const std::string &library, const FunctionSpec &spec, bool cuda,
        const LaunchOptions &options, int ranks, int rank,
        mxfp8rtInProcessGroup group, const mxfp8rtNcclUniqueId &id,
        RankOutcome &outcome,
        const std::function<void(const LaunchError &)> &onRankFailure) {
  auto failed = [&](LaunchError error) {
    error.message = "rank " + std::to_string(rank) + ": " + error.message;
    if (onRankFailure)
      onRankFailure(error);
    outcome.error = std::move(error);
  };
  std::string where = "--comm=ranks:" + std::to_string(ranks) + ", rank " +
                      std::to_string(rank);
  if (cuda) {
    CudaDeviceInfo gpu;
    if (LaunchError e = initializeCudaDevice(options.gpu + rank, gpu))
      return failed(std::move(e));
  }
  mxfp8rtComm comm = nullptr;
  mxfp8rtStatus status = cuda ? mxfp8rtCommInitNccl(ranks, &id, rank, &comm)
                              : mxfp8rtCommInitInProcess(group, rank, &comm);
  if (status != MXFP8RT_SUCCESS)
    return failed(runtimeFailure(where + ": the communicator"));
  if (mxfp8rtCommBind(comm, nullptr) != MXFP8RT_SUCCESS) {
    (void)mxfp8rtCommDestroy(comm);
    return failed(runtimeFailure(where + ": mxfp8rtCommBind"));
  }
  LaunchOptions own = options;
  own.seed = options.seed + static_cast<uint64_t>(rank);
  std::ostringstream quiet;
  LaunchError error = prepareLaunchInputs(spec, own, outcome.inputs, quiet);
  if (!error) {
    AOTFunction runner(library, spec, cuda, options.fillResults);
    if (!(error = runner.load()) && !(error = runner.prepare(outcome.inputs)) &&
        !(error = runner.run(options.warmup, options.repeat)) &&
        !(error = runner.fetchResults(outcome.results))) {
      outcome.medianMs = runner.getMedianMs();
      outcome.times = runner.describeTimes();
    }
  }
  (void)mxfp8rtCommBind(nullptr, nullptr);
  (void)mxfp8rtCommDestroy(comm);
  if (error)
    failed(std::move(error));
}

LaunchError mlir::mxfp8train::launch::runOnRanks(
    const std::string &library, const FunctionSpec &spec, bool cuda,
    const LaunchOptions &options, int ranks, std::vector<RankOutcome> &outcomes,
    const std::function<void(const LaunchError &)> &onRankFailure) {
  if (ranks < 1)
    return makeUsageError("--comm=ranks:N needs N >= 1");
  mxfp8rtNcclUniqueId id{};
  mxfp8rtInProcessGroup group = nullptr;
  if (cuda) {
    int count = 0;
    if (mxfp8rtInitialize() != MXFP8RT_SUCCESS ||
        mxfp8rtGetDeviceCount(&count) != MXFP8RT_SUCCESS)
      return makeLaunchError(LaunchErrorKind::NoDevice,
                             std::string("--comm=ranks: no CUDA device: ") +
                                 mxfp8rtGetLastError());
    if (options.gpu + ranks > count)
      return makeUsageError("--comm=ranks:" + std::to_string(ranks) +
                            " from --gpu=" + std::to_string(options.gpu) +
                            " needs " + std::to_string(options.gpu + ranks) +
                            " GPUs, the machine has " + std::to_string(count) +
                            " (NCCL runs one rank per GPU)");
    if (mxfp8rtNcclGetUniqueId(&id) != MXFP8RT_SUCCESS)
      return runtimeFailure("--comm=ranks: no NCCL communicator");
  } else if (mxfp8rtInProcessGroupCreate(ranks, &group) != MXFP8RT_SUCCESS) {
    return runtimeFailure("--comm=ranks: mxfp8rtInProcessGroupCreate");
  }
  outcomes.clear();
  outcomes.resize(ranks);
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r)
    threads.emplace_back(runRank, std::cref(library), std::cref(spec), cuda,
                         std::cref(options), ranks, r, group, std::cref(id),
                         std::ref(outcomes[r]), std::cref(onRankFailure));
  for (std::thread &t : threads)
    t.join();
  if (group)
    (void)mxfp8rtInProcessGroupDestroy(group);
  for (RankOutcome &outcome : outcomes)
    if (outcome.error)
      return outcome.error;
  return {};
}
