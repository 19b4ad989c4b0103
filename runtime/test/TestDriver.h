//===- TestDriver.h - which CUDA driver a test process uses --- -*- C++ -*-===//
//
// The runtime decides once per process which driver library it opens, so the
// test binary runs once per driver: `mxfp8train-runtime-tests --driver=MODE`
// with MODE one of
//   system          libcuda.so.1 as found by the loader (the default)
//   missing         a path that does not exist
//   fake            the fake driver of FakeCuda.cpp
//   fake-no-device  the fake driver with cuInit returning CUDA_ERROR_NO_DEVICE
//   fake-old        the fake driver without the CUDA 12 entry points
//   fake-broken     the fake driver without cuMemAlloc_v2
//   stub            the CUDA toolkit's stub libcuda.so (when installed)
// Tests that need another driver skip themselves.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_RUNTIME_TEST_TESTDRIVER_H
#define MXFP8TRAIN_RUNTIME_TEST_TESTDRIVER_H

#include "FakeCuda.h"

#include "gtest/gtest.h"

#include <string>

namespace mxfp8rt {
namespace test {

enum class DriverMode {
  System,
  Missing,
  Fake,
  FakeNoDevice,
  FakeOld,
  FakeBroken,
  Stub
};

/// The mode of this process.
DriverMode getDriverMode();

/// The library the runtime opens in this process.
const std::string &getDriverLibrary();

/// True when the runtime finds no driver library at all in this process:
/// mode `missing`, or mode `system` on a machine without libcuda.so.1.
bool expectsNoDriver();

/// The exact message the runtime gives when it finds no driver library.
const std::string &getNoDriverMessage();

/// The fake driver's recorded state (null unless a fake mode).
const FakeCudaState *getFakeState();

/// The fake driver's context stack depth on this thread (-1 unless fake).
int getFakeContextDepth();

/// Whether the process runs one of the fake modes with a working device.
inline bool isWorkingFake() {
  return getDriverMode() == DriverMode::Fake ||
         getDriverMode() == DriverMode::FakeOld;
}

} // namespace test
} // namespace mxfp8rt

/// Skips the current test unless `condition` holds.
#define REQUIRE_DRIVER(condition, what)                                        \
  if (!(condition))                                                            \
  GTEST_SKIP() << "needs " << what

#endif // MXFP8TRAIN_RUNTIME_TEST_TESTDRIVER_H
