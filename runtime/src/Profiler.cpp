//===- Profiler.cpp - per-kernel timing and call counters ----- -*- C++ -*-===//
//
// Implements Profiler.h and the mxfp8rtProfile* functions of Runtime.h.
//
// A profiled launch takes two timing events from the pool of its device
// (creating them only when the pool is empty), records one before and one
// after the launch on the launch's stream, and leaves the pair pending. A
// report waits for the pending pairs, adds their elapsed times to their
// kernel's row and returns the events to the pool; so the profiled work
// itself never waits on the host, and a warm profiler creates no events.
//
//===----------------------------------------------------------------------===//

#include "Profiler.h"

#include "RuntimeInternal.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

using namespace mxfp8rt;
using namespace mxfp8rt::cuda;

namespace {

/// The rows of one kernel name.
struct KernelRow {
  std::string name;
  profile::OpKind kind = profile::OpKind::Kernel;
  int64_t launches = 0;
  int64_t timed = 0;
  double totalMs = 0.0;
  double minMs = 0.0;
  double maxMs = 0.0;
};

/// A launch whose events have not been read yet.
struct PendingLaunch {
  int device;
  size_t row;
  CUevent start;
  CUevent end;
};

/// Process-wide profiler state. Never destroyed (the exit report and the
/// module destructors of generated code may run late).
struct Profiler {
  std::atomic<bool> enabled{false};
  /// MXFP8RT_PROFILE=1: the report goes to stderr at exit, registered at
  /// the first profiled launch (after cuInit, so the driver's own exit
  /// handler runs after ours).
  bool fromEnvironment = false;
  bool exitReportRegistered = false;

  std::mutex mutex;
  mxfp8rtProfileSummary summary = {};
  std::vector<std::unique_ptr<KernelRow>> rows;
  std::unordered_map<std::string, size_t> rowIndex;
  std::vector<PendingLaunch> pending;
  /// Idle timing events per device.
  std::map<int, std::vector<CUevent>> pool;
};

} // namespace

static void printAtExit() {
  std::fprintf(stderr, "mxfp8train runtime profile (MXFP8RT_PROFILE=1):\n");
  mxfp8rtProfilePrint(stderr);
}

static Profiler &getProfiler() {
  static Profiler *profiler = [] {
    auto *p = new Profiler();
    const char *env = std::getenv("MXFP8RT_PROFILE");
    if (env && *env && std::strcmp(env, "0") != 0) {
      p->fromEnvironment = true;
      p->enabled.store(true);
    }
    return p;
  }();
  return *profiler;
}

bool profile::isEnabled() {
  return getProfiler().enabled.load(std::memory_order_relaxed);
}

/// Takes an idle event of `device` or creates one; null on failure. Call
/// with the profiler's lock held and the device's context current.
static CUevent takeEvent(Profiler &profiler, int device) {
  std::vector<CUevent> &idle = profiler.pool[device];
  if (!idle.empty()) {
    CUevent event = idle.back();
    idle.pop_back();
    return event;
  }
  CUevent event = nullptr;
  if (getDriver().cuEventCreate(&event, CU_EVENT_DEFAULT) != CUDA_SUCCESS)
    return nullptr;
  ++profiler.summary.eventsCreated;
  return event;
}

static void giveBack(Profiler &profiler, int device, CUevent event) {
  if (event)
    profiler.pool[device].push_back(event);
}

/// Pending events go back to the pool untimed (they may still be queued
/// on their streams; recording them again later is fine).
static void returnPending(Profiler &profiler) {
  for (const PendingLaunch &launch : profiler.pending) {
    giveBack(profiler, launch.device, launch.start);
    giveBack(profiler, launch.device, launch.end);
  }
  profiler.pending.clear();
}

static size_t getRow(Profiler &profiler, const std::string &kernel) {
  auto it = profiler.rowIndex.find(kernel);
  if (it != profiler.rowIndex.end())
    return it->second;
  profiler.rows.push_back(std::make_unique<KernelRow>());
  profiler.rows.back()->name = kernel;
  size_t index = profiler.rows.size() - 1;
  profiler.rowIndex.emplace(kernel, index);
  return index;
}

profile::LaunchToken profile::beginLaunch(int device, const std::string &kernel,
                                          CUstream stream, OpKind kind) {
  LaunchToken token;
  if (!isEnabled())
    return token;
  Profiler &profiler = getProfiler();
  std::lock_guard<std::mutex> lock(profiler.mutex);
  if (profiler.fromEnvironment && !profiler.exitReportRegistered) {
    profiler.exitReportRegistered = true;
    std::atexit(printAtExit);
  }
  KernelRow &row = *profiler.rows[getRow(profiler, kernel)];
  row.kind = kind;
  ++row.launches;
  if (kind == OpKind::Kernel)
    ++profiler.summary.launches;
  token.kind = kind;
  token.counted = true;
  token.device = device;
  token.stream = stream;
  token.start = takeEvent(profiler, device);
  token.end = takeEvent(profiler, device);
  if (token.start && token.end &&
      getDriver().cuEventRecord(token.start, stream) == CUDA_SUCCESS) {
    token.valid = true;
    return token;
  }
  giveBack(profiler, device, token.start);
  giveBack(profiler, device, token.end);
  token.start = token.end = nullptr;
  return token;
}

void profile::endLaunch(LaunchToken &token, const std::string &kernel,
                        bool launched) {
  if (!token.counted)
    return;
  Profiler &profiler = getProfiler();
  std::lock_guard<std::mutex> lock(profiler.mutex);
  size_t row = getRow(profiler, kernel);
  if (!launched) {
    --profiler.rows[row]->launches;
    if (token.kind == OpKind::Kernel)
      --profiler.summary.launches;
  } else if (token.valid && getDriver().cuEventRecord(
                                token.end, token.stream) == CUDA_SUCCESS) {
    profiler.pending.push_back({token.device, row, token.start, token.end});
    return;
  } else {
    ++profiler.summary.untimedLaunches;
  }
  giveBack(profiler, token.device, token.start);
  giveBack(profiler, token.device, token.end);
}

/// Runs `update` on the summary under the lock while profiling is on.
template <typename UpdateFn> static void count(UpdateFn update) {
  if (!profile::isEnabled())
    return;
  Profiler &profiler = getProfiler();
  std::lock_guard<std::mutex> lock(profiler.mutex);
  update(profiler.summary);
}

void profile::countMemset(int64_t bytes) {
  count([&](mxfp8rtProfileSummary &s) {
    ++s.memsets;
    s.memsetBytes += bytes;
  });
}

void profile::countMemcpy(int64_t bytes) {
  count([&](mxfp8rtProfileSummary &s) {
    ++s.memcpys;
    s.memcpyBytes += bytes;
  });
}

void profile::countAllocation(int64_t bytes, PoolOutcome outcome) {
  count([&](mxfp8rtProfileSummary &s) {
    ++s.allocations;
    s.allocatedBytes += bytes;
    if (outcome == PoolOutcome::NotPooled)
      return;
    ++s.poolAllocations;
    s.poolHits += outcome == PoolOutcome::Hit;
    s.poolMisses += outcome == PoolOutcome::Miss;
  });
}

void profile::countFree(bool deviceFree) {
  count([&](mxfp8rtProfileSummary &s) {
    ++s.frees;
    s.deviceFrees += deviceFree;
  });
}

void profile::countHostSynchronization() {
  count([](mxfp8rtProfileSummary &s) { ++s.hostSynchronizations; });
}

/// Waits for every pending launch, adds its time to its row and returns
/// its events to the pool. Call with the profiler's lock held. Launches
/// whose events cannot be read count as untimed; the first such failure is
/// returned (recorded as the calling thread's error).
static mxfp8rtStatus resolvePending(Profiler &profiler) {
  if (profiler.pending.empty())
    return MXFP8RT_SUCCESS;
  if (mxfp8rtStatus status = mxfp8rtInitialize())
    return status;
  const Driver &driver = getDriver();
  auto elapsed = driver.cuEventElapsedTime_v2 ? driver.cuEventElapsedTime_v2
                                              : driver.cuEventElapsedTime;
  mxfp8rtStatus firstFailure = MXFP8RT_SUCCESS;
  // Device by device, so each device's context is made current once.
  std::map<int, std::vector<const PendingLaunch *>> byDevice;
  for (const PendingLaunch &launch : profiler.pending)
    byDevice[launch.device].push_back(&launch);
  for (auto &[device, launches] : byDevice) {
    mxfp8rtStatus status = runInContext(device, [&]() -> mxfp8rtStatus {
      mxfp8rtStatus result = MXFP8RT_SUCCESS;
      for (const PendingLaunch *launch : launches) {
        float ms = 0.0f;
        CUresult error = driver.cuEventSynchronize(launch->end);
        if (error == CUDA_SUCCESS)
          error = elapsed ? elapsed(&ms, launch->start, launch->end)
                          : CUDA_ERROR_NOT_FOUND;
        KernelRow &row = *profiler.rows[launch->row];
        if (error != CUDA_SUCCESS) {
          ++profiler.summary.untimedLaunches;
          if (result == MXFP8RT_SUCCESS)
            result = recordCudaError(error, "cuEventElapsedTime",
                                     "timing a launch of kernel '" + row.name +
                                         "' for the profile");
        } else {
          row.minMs = row.timed ? std::min(row.minMs, double(ms)) : ms;
          row.maxMs = row.timed ? std::max(row.maxMs, double(ms)) : ms;
          row.totalMs += ms;
          ++row.timed;
          (row.kind == profile::OpKind::Kernel   ? profiler.summary.kernelMs
           : row.kind == profile::OpKind::Memset ? profiler.summary.memsetMs
                                                 : profiler.summary.memcpyMs) +=
              ms;
        }
        giveBack(profiler, launch->device, launch->start);
        giveBack(profiler, launch->device, launch->end);
      }
      return result;
    });
    if (status != MXFP8RT_SUCCESS && firstFailure == MXFP8RT_SUCCESS)
      firstFailure = status;
  }
  profiler.pending.clear();
  return firstFailure;
}

mxfp8rtStatus mxfp8rtProfileEnable(int enable) {
  getProfiler().enabled.store(enable != 0);
  return MXFP8RT_SUCCESS;
}

int mxfp8rtProfileIsEnabled(void) { return profile::isEnabled() ? 1 : 0; }

mxfp8rtStatus mxfp8rtProfileReset(void) {
  Profiler &profiler = getProfiler();
  std::lock_guard<std::mutex> lock(profiler.mutex);
  returnPending(profiler);
  profiler.rows.clear();
  profiler.rowIndex.clear();
  profiler.summary = mxfp8rtProfileSummary();
  return MXFP8RT_SUCCESS;
}

mxfp8rtStatus mxfp8rtProfileReleaseEvents(void) {
  Profiler &profiler = getProfiler();
  std::lock_guard<std::mutex> lock(profiler.mutex);
  returnPending(profiler);
  mxfp8rtStatus status = MXFP8RT_SUCCESS;
  for (auto &[device, events] : profiler.pool)
    for (CUevent event : events)
      if (getDriver().cuEventDestroy_v2(event) != CUDA_SUCCESS)
        status = MXFP8RT_CUDA_ERROR;
  profiler.pool.clear();
  return status;
}

mxfp8rtStatus mxfp8rtProfileGetSummary(mxfp8rtProfileSummary *summary) {
  if (!summary)
    return recordError(MXFP8RT_INVALID_ARGUMENT,
                       "mxfp8rtProfileGetSummary: summary is null");
  Profiler &profiler = getProfiler();
  std::lock_guard<std::mutex> lock(profiler.mutex);
  mxfp8rtStatus status = resolvePending(profiler);
  *summary = profiler.summary;
  return status;
}

/// The rows, largest total first, ties by name. Call with the lock held.
static std::vector<const KernelRow *> sortedRows(const Profiler &profiler) {
  std::vector<const KernelRow *> sorted;
  for (const auto &row : profiler.rows)
    if (row->launches)
      sorted.push_back(row.get());
  std::sort(sorted.begin(), sorted.end(),
            [](const KernelRow *a, const KernelRow *b) {
              if (a->totalMs != b->totalMs)
                return a->totalMs > b->totalMs;
              return a->name < b->name;
            });
  return sorted;
}

mxfp8rtStatus mxfp8rtProfileGetKernels(mxfp8rtProfileKernel *kernels,
                                       intptr_t capacity, intptr_t *count) {
  static const char *api = "mxfp8rtProfileGetKernels";
  if (!count)
    return recordError(MXFP8RT_INVALID_ARGUMENT,
                       std::string(api) + ": count is null");
  *count = 0;
  if (capacity < 0)
    return recordError(MXFP8RT_INVALID_ARGUMENT,
                       std::string(api) + ": capacity " +
                           std::to_string(capacity) + " is negative");
  if (capacity > 0 && !kernels)
    return recordError(MXFP8RT_INVALID_ARGUMENT,
                       std::string(api) + ": kernels is null (capacity " +
                           std::to_string(capacity) + ")");
  Profiler &profiler = getProfiler();
  std::lock_guard<std::mutex> lock(profiler.mutex);
  mxfp8rtStatus status = resolvePending(profiler);
  std::vector<const KernelRow *> sorted = sortedRows(profiler);
  *count = static_cast<intptr_t>(sorted.size());
  for (size_t i = 0; i < sorted.size() && intptr_t(i) < capacity; ++i) {
    const KernelRow &row = *sorted[i];
    kernels[i] = {row.name.c_str(), row.launches, row.totalMs, row.minMs,
                  row.maxMs};
  }
  return status;
}

mxfp8rtStatus mxfp8rtProfilePrint(void *file) {
  if (!file)
    return recordError(MXFP8RT_INVALID_ARGUMENT,
                       "mxfp8rtProfilePrint: file is null");
  auto *out = static_cast<FILE *>(file);
  Profiler &profiler = getProfiler();
  std::lock_guard<std::mutex> lock(profiler.mutex);
  mxfp8rtStatus status = resolvePending(profiler);
  const mxfp8rtProfileSummary &s = profiler.summary;
  double allMs = s.kernelMs + s.memsetMs + s.memcpyMs;
  std::fprintf(out, "%-56s %8s %11s %10s %7s\n", "kernel", "launches",
               "total ms", "mean ms", "share");
  for (const KernelRow *row : sortedRows(profiler)) {
    double mean = row->timed ? row->totalMs / double(row->timed) : 0.0;
    double share = allMs > 0 ? 100.0 * row->totalMs / allMs : 0.0;
    std::fprintf(out, "%-56s %8lld %11.4f %10.4f %6.1f%%\n", row->name.c_str(),
                 static_cast<long long>(row->launches), row->totalMs, mean,
                 share);
  }
  std::fprintf(out, "%-56s %8lld %11.4f\n", "all kernels",
               static_cast<long long>(s.launches), s.kernelMs);
  std::fprintf(out, "%-56s %8lld %11.4f\n", "all memsets",
               static_cast<long long>(s.memsets), s.memsetMs);
  std::fprintf(out, "%-56s %8lld %11.4f\n", "all copies",
               static_cast<long long>(s.memcpys), s.memcpyMs);
  std::fprintf(
      out,
      "untimed operations %lld; memsets %lld (%lld bytes); copies %lld (%lld "
      "bytes); allocations %lld (%lld bytes; pool %lld: %lld hits, %lld "
      "misses); frees %lld (cuMemFree %lld); host synchronizations %lld; "
      "profiling events created %lld\n",
      static_cast<long long>(s.untimedLaunches),
      static_cast<long long>(s.memsets), static_cast<long long>(s.memsetBytes),
      static_cast<long long>(s.memcpys), static_cast<long long>(s.memcpyBytes),
      static_cast<long long>(s.allocations),
      static_cast<long long>(s.allocatedBytes),
      static_cast<long long>(s.poolAllocations),
      static_cast<long long>(s.poolHits), static_cast<long long>(s.poolMisses),
      static_cast<long long>(s.frees), static_cast<long long>(s.deviceFrees),
      static_cast<long long>(s.hostSynchronizations),
      static_cast<long long>(s.eventsCreated));
  std::fflush(out);
  return status;
}
