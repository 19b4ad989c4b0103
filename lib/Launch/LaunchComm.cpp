//===- LaunchComm.cpp - a one-rank communicator -----------------*- C++ -*-===//
//
// LaunchComm.h.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Launch/LaunchComm.h"

#include <string>

using namespace mlir::mxfp8train::launch;

static LaunchError runtimeFailure(const char *what) {
  return makeLaunchError(LaunchErrorKind::RunFailed,
                         std::string("--comm=single: ") + what + ": " +
                             mxfp8rtGetLastError());
}

LaunchError SingleRankComm::bind(bool cuda) {
  release();
  if (cuda) {
    mxfp8rtNcclUniqueId id;
    if (mxfp8rtNcclGetUniqueId(&id) != MXFP8RT_SUCCESS)
      return runtimeFailure("no NCCL communicator");
    if (mxfp8rtCommInitNccl(1, &id, 0, &comm) != MXFP8RT_SUCCESS)
      return runtimeFailure("mxfp8rtCommInitNccl");
  } else {
    if (mxfp8rtInProcessGroupCreate(1, &group) != MXFP8RT_SUCCESS)
      return runtimeFailure("mxfp8rtInProcessGroupCreate");
    if (mxfp8rtCommInitInProcess(group, 0, &comm) != MXFP8RT_SUCCESS)
      return runtimeFailure("mxfp8rtCommInitInProcess");
  }
  // The shard ABI's calls run on the default stream and, on NCCL, return
  // once it is done (Collectives.h).
  if (mxfp8rtCommBind(comm, nullptr) != MXFP8RT_SUCCESS)
    return runtimeFailure("mxfp8rtCommBind");
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
