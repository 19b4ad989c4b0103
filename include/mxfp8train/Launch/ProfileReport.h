//===- ProfileReport.h - the per-kernel profile of one call -----*- C++ -*-===//
//
// Reads the runtime's profile (Runtime.h "Profiling") after one profiled
// call and turns it into the tables mxfp8-launch prints (per kernel family,
// per kernel) and the JSON object of --profile-json that
// bench/device/step-bench.sh reads. Families come from
// mxfp8train/Support/KernelFamily.h.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_LAUNCH_PROFILEREPORT_H
#define MXFP8TRAIN_LAUNCH_PROFILEREPORT_H

#include "mxfp8train/runtime/Runtime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::mxfp8train::launch {

/// One kernel (or fill or copy) row of the profile.
struct ProfileRow {
  std::string name;
  std::string family;
  int64_t launches = 0;
  double totalMs = 0.0, minMs = 0.0, maxMs = 0.0;
};

/// One family's sum.
struct ProfileFamily {
  std::string name;
  std::string description;
  int64_t launches = 0;
  double totalMs = 0.0;
  int kernels = 0;
};

/// The profile of one call.
struct ProfileReport {
  /// CUDA-event and host-clock milliseconds of the whole profiled call.
  double stepMs = 0.0;
  double hostMs = 0.0;
  mxfp8rtProfileSummary summary = {};
  /// Largest total first.
  std::vector<ProfileRow> rows;
  /// Every family of getKernelFamilies(), in its order.
  std::vector<ProfileFamily> families;

  /// Milliseconds of every timed launch, fill and copy.
  double getTimedMs() const {
    return summary.kernelMs + summary.memsetMs + summary.memcpyMs;
  }
};

/// Reads the runtime's profile into `report` (waiting for its events).
/// False with the runtime's message on failure.
bool readProfile(ProfileReport &report, std::string &error);

/// The family table: family, launches, kernels, total ms, share of the
/// step, what it holds; a last row for the time of the call in no timed
/// operation. Header row first.
std::vector<std::vector<std::string>>
getFamilyTable(const ProfileReport &report);

/// The `top` largest kernels (all when 0): rank, kernel, family, launches,
/// total ms, mean ms, share of the step. Header row first.
std::vector<std::vector<std::string>>
getKernelTable(const ProfileReport &report, size_t top);

/// One line of counters: fills, copies, allocations (pool hits, misses),
/// frees, host synchronizations.
std::string describeCounters(const ProfileReport &report);

/// The report as one JSON object (one line): entry, library, the median of
/// the timed calls `medianMs`, step_ms, host_ms, timed_ms, families,
/// kernels, counters.
std::string toJson(const ProfileReport &report, const std::string &entry,
                   const std::string &library, double medianMs);

} // namespace mlir::mxfp8train::launch

#endif // MXFP8TRAIN_LAUNCH_PROFILEREPORT_H
