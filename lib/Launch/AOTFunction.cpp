//===- AOTFunction.cpp - call one AOT-compiled function -------------------===//
//
// Implements AOTFunction.h.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Launch/AOTFunction.h"
#include "mxfp8train/Support/TrapGuard.h"

#include "mxfp8train/Launch/CudaDevice.h"
#include "mxfp8train/Launch/ProfileReport.h"
#include "mxfp8train/Support/MemRefDescriptor.h"
#include "mxfp8train/Support/Report.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <dlfcn.h>
#include <utility>

using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::launch;

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

template <size_t... I>
void callWithIndices(void *function, void *const *pointers,
                     std::index_sequence<I...>) {
  using Fn = void (*)(decltype((void)I, static_cast<void *>(nullptr))...);
  reinterpret_cast<Fn>(function)(pointers[I]...);
}

template <size_t N> void callN(void *function, void *const *pointers) {
  callWithIndices(function, pointers, std::make_index_sequence<N>());
}

template <size_t... N> constexpr auto makeCallTable(std::index_sequence<N...>) {
  using Caller = void (*)(void *, void *const *);
  return std::array<Caller, sizeof...(N)>{&callN<N>...};
}

/// The median of `values`, sorted.
double getSortedMedian(const std::vector<double> &values) {
  size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

} // namespace

void mlir::mxfp8train::launch::callWithPointers(
    void *function, const std::vector<void *> &pointers) {
  // One caller per count, generated at compile time.
  static constexpr auto table =
      makeCallTable(std::make_index_sequence<kMaxDescriptors + 1>());
  table[pointers.size()](function, pointers.data());
}

//===----------------------------------------------------------------------===//
// HostBuffer
//===----------------------------------------------------------------------===//

HostBuffer::HostBuffer(size_t size) : numBytes(size) {
  size_t rounded = std::max<size_t>(64, (size + 63) / 64 * 64);
  memory.reset(std::aligned_alloc(64, rounded));
  if (memory)
    std::memset(memory.get(), 0, rounded);
}

//===----------------------------------------------------------------------===//
// AOTFunction
//===----------------------------------------------------------------------===//

AOTFunction::AOTFunction(std::string library, const FunctionSpec &spec,
                         bool cuda, int fillByte)
    : library(std::move(library)), spec(spec), cuda(cuda), fillByte(fillByte) {}

AOTFunction::~AOTFunction() {
  if (cuda) {
    // The cached device copies of the TMA descriptors (docs/runtime.md) go
    // with the last call that could read them.
    (void)mxfp8rtDeviceSynchronize();
    (void)mxfp8rtReleaseTensorMaps();
  }
  for (void *p : deviceBuffers)
    (void)mxfp8rtMemFree(p);
  for (mxfp8rtEvent e : events)
    (void)mxfp8rtEventDestroy(e);
}

LaunchError AOTFunction::load(void *sharedHandle) {
  if (sharedHandle) {
    handle = sharedHandle;
  } else {
    std::string path = library;
    if (path.find('/') == std::string::npos)
      path = "./" + path; // dlopen would search the library path
    mxfp8rtClearLastError();
    Clock::time_point start = Clock::now();
    handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    loadSeconds = secondsSince(start);
    if (!handle)
      return makeLaunchError(LaunchErrorKind::BadInput,
                             "cannot load '" + library + "': " + dlerror());
    if (cuda)
      if (LaunchError e = checkRuntimeErrors("while loading '" + library + "'"))
        return e;
  }
  std::string symbol = "_mlir_ciface_" + spec.name;
  function = dlsym(handle, symbol.c_str());
  if (!function)
    return makeLaunchError(LaunchErrorKind::BadInput,
                           "'" + library + "' has no symbol " + symbol +
                               " (was it linked from the objects of this "
                               "manifest?)");
  // The manifest must describe this library's function: its shapes size
  // every buffer the call reads and writes.
  std::string expected = getFunctionSignature(spec);
  auto *stored = static_cast<const char *>(
      dlsym(handle, getSignatureSymbol(spec.name).c_str()));
  if (!stored)
    return makeLaunchError(
        LaunchErrorKind::BadInput,
        "'" + library + "' has no " + getSignatureSymbol(spec.name) +
            " to check the manifest against (compile it again with this "
            "mxfp8-compile)");
  if (expected != stored)
    return makeLaunchError(LaunchErrorKind::BadInput,
                           "the manifest does not describe '" + library +
                               "': it says " + expected +
                               ", the library was compiled for " + stored);
  return {};
}

LaunchError
AOTFunction::prepare(const std::vector<std::vector<uint8_t>> &inputs) {
  std::vector<std::vector<int64_t>> shapes;
  std::vector<void *> data;
  for (size_t i = 0; i < spec.args.size(); ++i) {
    void *p = nullptr;
    if (LaunchError e =
            allocate(spec.args[i].getNumBytes(), inputs[i].data(), p))
      return e;
    data.push_back(p);
    shapes.push_back(spec.args[i].shape);
  }
  for (const TensorSpec &result : spec.results) {
    void *p = nullptr;
    if (LaunchError e = allocate(result.getNumBytes(), nullptr, p))
      return e;
    resultData.push_back(p);
    data.push_back(p);
    shapes.push_back(result.shape);
  }
  for (size_t i = 0; i < data.size(); ++i)
    descriptors.push_back(
        makeMemRefDescriptor(data[i], shapes[i].data(), shapes[i].size()));
  for (std::vector<int64_t> &d : descriptors)
    pointers.push_back(d.data());
  if (cuda) {
    if (mxfp8rtStatus s = mxfp8rtDeviceSynchronize())
      return getRuntimeError(s, "copying the inputs to the GPU");
    events.resize(2);
    for (mxfp8rtEvent &e : events)
      if (mxfp8rtStatus s = mxfp8rtEventCreate(&e, /*enableTiming=*/1))
        return getRuntimeError(s, "creating a CUDA event");
  }
  return {};
}

LaunchError AOTFunction::runProfiled(ProfileReport &report) {
  mxfp8rtProfileReset();
  mxfp8rtProfileEnable(1);
  LaunchError e = callOnce(report.hostMs, report.stepMs, /*profiling=*/true);
  mxfp8rtProfileEnable(0);
  if (e)
    return e;
  std::string error;
  if (!readProfile(report, error))
    return makeLaunchError(LaunchErrorKind::RunFailed, error);
  return {};
}

LaunchError AOTFunction::run(int warmup, int repeat) {
  for (int i = 0; i < warmup; ++i) {
    double host, device;
    if (LaunchError e = callOnce(host, device))
      return e;
  }
  for (int i = 0; i < repeat; ++i) {
    double host = 0.0, device = 0.0;
    if (LaunchError e = callOnce(host, device))
      return e;
    hostMs.push_back(host);
    if (cuda)
      deviceMs.push_back(device);
  }
  return {};
}

LaunchError AOTFunction::fetchResults(std::vector<HostBuffer> &results) {
  results.clear();
  for (size_t i = 0; i < spec.results.size(); ++i) {
    size_t size = size_t(spec.results[i].getNumBytes());
    results.emplace_back(size);
    if (!results.back().data())
      return makeLaunchError(LaunchErrorKind::RunFailed, "out of host memory");
    if (!cuda) {
      if (size)
        std::memcpy(results.back().data(), resultData[i], size);
      continue;
    }
    if (mxfp8rtStatus s = mxfp8rtMemcpyDtoH(
            results.back().data(), resultData[i], intptr_t(size), nullptr))
      return getRuntimeError(s, "copying result " + spec.results[i].name +
                                    " to the host");
  }
  if (cuda)
    if (mxfp8rtStatus s = mxfp8rtDeviceSynchronize())
      return getRuntimeError(s, "copying the results to the host");
  return {};
}

double AOTFunction::getMedianMs() const {
  std::vector<double> values = cuda ? deviceMs : hostMs;
  if (values.empty())
    return 0.0;
  std::sort(values.begin(), values.end());
  return getSortedMedian(values);
}

std::string AOTFunction::describeTimes() const {
  auto describe = [](std::vector<double> values) {
    std::sort(values.begin(), values.end());
    double median = getSortedMedian(values);
    if (values.size() == 1)
      return formatDouble("%.4g ms", median);
    return formatDouble("median %.4g ms", median) +
           formatDouble(" (min %.4g", values.front()) +
           formatDouble(", max %.4g)", values.back());
  };
  if (cuda)
    return "cuda events " + describe(deviceMs) + ", host " + describe(hostMs);
  return "host " + describe(hostMs);
}

LaunchError AOTFunction::allocate(int64_t size, const void *init, void *&p) {
  if (!cuda) {
    hostBuffers.emplace_back(size_t(size));
    p = hostBuffers.back().data();
    if (!p)
      return makeLaunchError(LaunchErrorKind::RunFailed, "out of host memory");
    if (init && size)
      std::memcpy(p, init, size_t(size));
    else if (size)
      std::memset(p, fillByte, size_t(size));
    return {};
  }
  if (mxfp8rtStatus s = mxfp8rtMemAlloc(intptr_t(size), &p))
    return getRuntimeError(s, "allocating " + std::to_string(size) +
                                  " bytes on the GPU");
  deviceBuffers.push_back(p);
  if (size == 0)
    return {};
  mxfp8rtStatus s =
      init ? mxfp8rtMemcpyHtoD(p, init, intptr_t(size), nullptr)
           : mxfp8rtMemsetD8(p, uint8_t(fillByte), intptr_t(size), nullptr);
  if (s)
    return getRuntimeError(s, "initializing GPU memory");
  return {};
}

LaunchError AOTFunction::callOnce(double &hostMsOut, double &deviceMsOut,
                                  bool profiling) {
  mxfp8rtClearLastError();
  if (cuda)
    if (mxfp8rtStatus s = mxfp8rtEventRecord(events[0], nullptr))
      return getRuntimeError(s, "recording a CUDA event");
  Clock::time_point start = Clock::now();
  // An integer division by zero in the compiled code (SIGFPE on x86) is an
  // error of this call, not the end of the process.
  struct Call {
    void *function;
    const std::vector<void *> *pointers;
  } call{function, &pointers};
  if (int code = callCatchingSigfpe(
          [](void *p) {
            auto *c = static_cast<Call *>(p);
            callWithPointers(c->function, *c->pointers);
          },
          &call))
    return {LaunchErrorKind::RunFailed,
            "@" + spec.name +
                " trapped on the host (SIGFPE): " + describeSigfpe(code)};
  // The profile covers the function, not the waits below.
  if (profiling)
    mxfp8rtProfileEnable(0);
  // The function may leave work queued on its own streams.
  if (cuda)
    if (mxfp8rtStatus s = mxfp8rtDeviceSynchronize())
      return getRuntimeError(s, "running @" + spec.name);
  hostMsOut = secondsSince(start) * 1e3;
  if (!cuda)
    return {};
  if (LaunchError e = checkRuntimeErrors("while running @" + spec.name))
    return e;
  float ms = 0.0f;
  if (mxfp8rtStatus s = mxfp8rtEventRecord(events[1], nullptr))
    return getRuntimeError(s, "recording a CUDA event");
  if (mxfp8rtStatus s = mxfp8rtEventSynchronize(events[1]))
    return getRuntimeError(s, "waiting for a CUDA event");
  if (mxfp8rtStatus s = mxfp8rtEventElapsedTime(&ms, events[0], events[1]))
    return getRuntimeError(s, "timing with CUDA events");
  deviceMsOut = ms;
  return {};
}
