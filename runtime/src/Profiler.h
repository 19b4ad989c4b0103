//===- Profiler.h - per-kernel timing and call counters ------- -*- C++ -*-===//
//
// The runtime's profiler (Runtime.h "Profiling"): the hooks that Runtime.cpp
// and Memory.cpp call on every launch, fill, copy, allocation, free and host
// wait. Each hook returns at once while profiling is off (one relaxed atomic
// load).
// Launch times come from event pairs recorded on the launch's stream; the
// events stay pending until a report resolves them, then go back to a
// per-device pool.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_RUNTIME_SRC_PROFILER_H
#define MXFP8TRAIN_RUNTIME_SRC_PROFILER_H

#include "CudaDriver.h"

#include <atomic>
#include <cstdint>
#include <string>

namespace mxfp8rt {
namespace profile {

/// Whether profiling is on; the first call reads MXFP8RT_PROFILE.
bool isEnabled();

/// What a profiled operation is: its row's kind and the total it adds to.
enum class OpKind { Kernel, Memset, Memcpy };

/// A launch (or fill or copy) being profiled: its start event is recorded,
/// its end event not yet. `valid` is false when profiling is off or the start
/// could not be recorded (the launch is then counted as untimed).
struct LaunchToken {
  bool valid = false;
  bool counted = false;
  int device = 0;
  OpKind kind = OpKind::Kernel;
  cuda::CUevent start = nullptr;
  cuda::CUevent end = nullptr;
  cuda::CUstream stream = nullptr;
};

/// Counts a launch of `kernel` (or a fill or copy, named after its driver
/// call) on `device` and records its start event on `stream`. Call with the
/// device's context current, right before the driver call.
LaunchToken beginLaunch(int device, const std::string &kernel,
                        cuda::CUstream stream, OpKind kind = OpKind::Kernel);

/// Records the end event after a successful launch (`launched`), or gives
/// the events back and uncounts the launch after a failed one.
void endLaunch(LaunchToken &token, const std::string &kernel, bool launched);

/// A fill of `bytes` bytes.
void countMemset(int64_t bytes);
/// A copy of `bytes` bytes.
void countMemcpy(int64_t bytes);

/// How a pool allocation was served.
enum class PoolOutcome { NotPooled, Unknown, Hit, Miss };

/// A device allocation of `bytes` bytes.
void countAllocation(int64_t bytes, PoolOutcome outcome);
/// A free; `deviceFree` for cuMemFree (which synchronizes the device).
void countFree(bool deviceFree);
/// A host wait (stream, event or context synchronization).
void countHostSynchronization();

} // namespace profile
} // namespace mxfp8rt

#endif // MXFP8TRAIN_RUNTIME_SRC_PROFILER_H
