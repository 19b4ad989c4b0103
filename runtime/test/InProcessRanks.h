//===- InProcessRanks.h - ranks as threads for the collectives' tests
//------===//
//
// The tests of the collectives and of what is built on them (the runtime's
// CollectivesTest and ExpertParallelTest, the execution tests that run
// partitioned or expert-parallel graphs) run each rank on a thread of one
// process, with the in-process backend of Collectives.h.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_RUNTIME_TEST_INPROCESSRANKS_H
#define MXFP8TRAIN_RUNTIME_TEST_INPROCESSRANKS_H

#include "mxfp8train/runtime/Collectives.h"

#include <gtest/gtest.h>

#include <functional>
#include <thread>
#include <vector>

namespace mxfp8rt::test {

/// The communicators of ranks 0 .. size - 1 of a new in-process group (the
/// communicators keep the group alive); empty, with a test failure, when
/// the runtime refuses.
inline std::vector<mxfp8rtComm> createInProcessComms(int size) {
  mxfp8rtInProcessGroup group = nullptr;
  if (mxfp8rtInProcessGroupCreate(size, &group) != MXFP8RT_SUCCESS) {
    ADD_FAILURE() << mxfp8rtGetLastError();
    return {};
  }
  std::vector<mxfp8rtComm> comms(size);
  for (int r = 0; r < size; ++r)
    EXPECT_EQ(mxfp8rtCommInitInProcess(group, r, &comms[r]), MXFP8RT_SUCCESS)
        << mxfp8rtGetLastError();
  EXPECT_EQ(mxfp8rtInProcessGroupDestroy(group), MXFP8RT_SUCCESS);
  return comms;
}

/// Runs `body(rank, comms[rank])` on one thread per rank and joins them.
inline void runOnRanks(const std::vector<mxfp8rtComm> &comms,
                       const std::function<void(int, mxfp8rtComm)> &body) {
  std::vector<std::thread> threads;
  for (int r = 0; r < static_cast<int>(comms.size()); ++r)
    threads.emplace_back([&, r] { body(r, comms[r]); });
  for (std::thread &t : threads)
    t.join();
}

/// Destroys `comms`, expecting success.
inline void destroyComms(const std::vector<mxfp8rtComm> &comms) {
  for (mxfp8rtComm comm : comms)
    EXPECT_EQ(mxfp8rtCommDestroy(comm), MXFP8RT_SUCCESS);
}

/// Runs `body(rank, comm)` on `size` threads, one in-process rank each.
inline void
runInProcessRanks(int size, const std::function<void(int, mxfp8rtComm)> &body) {
  std::vector<mxfp8rtComm> comms = createInProcessComms(size);
  if (comms.empty())
    return;
  runOnRanks(comms, body);
  destroyComms(comms);
}

} // namespace mxfp8rt::test

#endif // MXFP8TRAIN_RUNTIME_TEST_INPROCESSRANKS_H
