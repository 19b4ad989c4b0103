//===- mxfp8-launch.cpp - run AOT-compiled functions ------------*- C++ -*-===//
//
// Runs one function of a shared library linked from mxfp8-compile objects,
// on the CPU or on a CUDA GPU, without MLIR or LLVM: the manifest gives the
// tensor-level signature, inputs are generated exactly as mxfp8-run
// generates them (or read from .npy), each tensor is passed as a memref
// descriptor (host or device pointers) to `_mlir_ciface_<name>`, inputs
// first, then the caller-allocated results. Results are written as .npy,
// timed, and optionally compared with a second function run on the same
// inputs (bit-exact, SQNR, max abs error). With --profile, one more call
// runs with the runtime's profiler on and its per-kernel report is printed
// grouped by kernel family (ProfileReport.h).
//
// See docs/aot.md for the user documentation.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Support/InputGenerator.h"
#include "mxfp8train/Support/Manifest.h"
#include "mxfp8train/Support/MemRefDescriptor.h"
#include "mxfp8train/Support/Npy.h"
#include "mxfp8train/Support/Report.h"
#include "mxfp8train/Support/Sqnr.h"
#include "mxfp8train/runtime/Runtime.h"

#include "ProfileReport.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

using namespace mlir::mxfp8train;

namespace {

//===----------------------------------------------------------------------===//
// Exit codes and messages
//===----------------------------------------------------------------------===//

/// Exit statuses (docs/aot.md).
enum ExitCode {
  kExitOk = 0,
  /// --expect-exact and the compared results differ.
  kExitDifferent = 1,
  /// Bad command line, manifest, library, function or input file.
  kExitUsage = 2,
  /// The call failed: a CUDA error, an mgpu* failure inside the function.
  kExitRunFailed = 3,
  /// --device=cuda on a machine without a usable CUDA driver or GPU.
  kExitNoDevice = 77,
};

/// An error with the exit status it leads to.
struct Failure {
  int code = kExitOk;
  std::string message;
  explicit operator bool() const { return code != kExitOk; }
};

Failure makeFailure(int code, std::string message) {
  return Failure{code, std::move(message)};
}

//===----------------------------------------------------------------------===//
// Command line
//===----------------------------------------------------------------------===//

struct Options {
  std::string library, manifest, entry, device, outputDir;
  std::string compareWith, compareManifest;
  std::vector<std::string> inputs;
  uint64_t seed = 0;
  double inputStd = 1.0;
  bool saveInputs = false, bf16AsFloat32 = false, expectExact = false;
  bool list = false;
  int repeat = 1, warmup = 0, gpu = 0;
  /// Timed calls of the --compare-with function (no warmup).
  int referenceRepeat = 1;
  /// Byte the result buffers are filled with before the first call.
  int fillResults = 0;
  /// One profiled call after the timed ones (--profile, --profile-json or
  /// MXFP8RT_PROFILE), its JSON report, and how many kernels the table
  /// shows (0: all).
  bool profile = false, profileFromEnvironment = false;
  std::string profileJson;
  int profileTop = 0;
};

const char *const kUsage =
    "usage: mxfp8-launch LIB.so MANIFEST [--entry=NAME] [--device=cpu|cuda]\n"
    "         [--gpu=N] [--seed=N] [--input-std=S] [--input=x.npy ...]\n"
    "         [--output-dir=DIR] [--save-inputs] [--bf16-as=uint16|float32]\n"
    "         [--repeat=N] [--warmup=N] [--fill-results=BYTE]\n"
    "         [--compare-with=[LIB2.so]:NAME2] [--compare-manifest=M2]\n"
    "         [--reference-repeat=N]\n"
    "         [--profile] [--profile-json=FILE] [--profile-top=N]\n"
    "         [--expect-exact] [--list]\n"
    "Runs _mlir_ciface_NAME of LIB.so (linked from mxfp8-compile objects)\n"
    "on inputs generated as mxfp8-run generates them; see docs/aot.md.\n"
    "--profile (or MXFP8RT_PROFILE=1) adds one call timed kernel by kernel\n"
    "(docs/runtime.md \"Profiling\"); --profile-json writes it as JSON.\n"
    "Exit status: 0 ok, 1 results differ (--expect-exact), 2 usage or\n"
    "input error, 3 the call failed, 77 no usable CUDA GPU.\n";

bool parseUnsigned(const std::string &text, uint64_t &value) {
  if (text.empty() || text[0] == '-')
    return false;
  char *end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (errno || *end)
    return false;
  value = v;
  return true;
}

Failure parseOptions(int argc, char **argv, Options &options) {
  std::vector<std::string> positional;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      std::fputs(kUsage, stdout);
      std::exit(kExitOk);
    }
    if (arg.rfind("--", 0) != 0) {
      positional.push_back(arg);
      continue;
    }
    size_t eq = arg.find('=');
    std::string key = arg.substr(0, eq);
    bool hasValue = eq != std::string::npos;
    std::string value = hasValue ? arg.substr(eq + 1) : "";
    auto needValue = [&]() -> Failure {
      if (!hasValue)
        return makeFailure(kExitUsage,
                           key + " needs a value (" + key + "=...)");
      return {};
    };
    auto asCount = [&](int &out, int minimum) -> Failure {
      if (Failure f = needValue())
        return f;
      uint64_t v;
      if (!parseUnsigned(value, v) || v < uint64_t(minimum) || v > 1000000)
        return makeFailure(kExitUsage, "bad " + key + " '" + value + "'");
      out = int(v);
      return {};
    };
    Failure f;
    if (key == "--entry") {
      f = needValue();
      options.entry = value;
    } else if (key == "--device") {
      f = needValue();
      if (!f && value != "cpu" && value != "cuda")
        f = makeFailure(kExitUsage,
                        "--device must be cpu or cuda, not '" + value + "'");
      options.device = value;
    } else if (key == "--gpu") {
      f = asCount(options.gpu, 0);
    } else if (key == "--seed") {
      f = needValue();
      if (!f && !parseUnsigned(value, options.seed))
        f = makeFailure(kExitUsage, "bad --seed '" + value + "'");
    } else if (key == "--input-std") {
      f = needValue();
      char *end = nullptr;
      if (!f)
        options.inputStd = std::strtod(value.c_str(), &end);
      if (!f && (value.empty() || *end))
        f = makeFailure(kExitUsage, "bad --input-std '" + value + "'");
    } else if (key == "--input") {
      f = needValue();
      options.inputs.push_back(value);
    } else if (key == "--output-dir") {
      f = needValue();
      options.outputDir = value;
    } else if (key == "--save-inputs" && !hasValue) {
      options.saveInputs = true;
    } else if (key == "--bf16-as") {
      f = needValue();
      if (!f && value != "uint16" && value != "float32")
        f = makeFailure(kExitUsage,
                        "--bf16-as must be uint16 or float32, not '" + value +
                            "'");
      options.bf16AsFloat32 = value == "float32";
    } else if (key == "--repeat") {
      f = asCount(options.repeat, 1);
    } else if (key == "--warmup") {
      f = asCount(options.warmup, 0);
    } else if (key == "--reference-repeat") {
      f = asCount(options.referenceRepeat, 1);
    } else if (key == "--fill-results") {
      f = asCount(options.fillResults, 0);
      if (!f && options.fillResults > 255)
        f = makeFailure(kExitUsage, "bad --fill-results '" + value +
                                        "' (a byte, 0 to 255)");
    } else if (key == "--compare-with") {
      f = needValue();
      options.compareWith = value;
    } else if (key == "--compare-manifest") {
      f = needValue();
      options.compareManifest = value;
    } else if (key == "--expect-exact" && !hasValue) {
      options.expectExact = true;
    } else if (key == "--list" && !hasValue) {
      options.list = true;
    } else if (key == "--profile" && !hasValue) {
      options.profile = true;
    } else if (key == "--profile-json") {
      f = needValue();
      options.profileJson = value;
      options.profile = true;
    } else if (key == "--profile-top") {
      f = asCount(options.profileTop, 0);
    } else {
      f = makeFailure(kExitUsage, "unknown option '" + arg + "'\n" + kUsage);
    }
    if (f)
      return f;
  }
  if (positional.size() != 2)
    return makeFailure(kExitUsage, "expected LIB.so and MANIFEST, got " +
                                       std::to_string(positional.size()) +
                                       " positional arguments\n" + kUsage);
  options.library = positional[0];
  options.manifest = positional[1];
  if (options.expectExact && options.compareWith.empty())
    return makeFailure(kExitUsage, "--expect-exact needs --compare-with");
  if (!options.compareManifest.empty() && options.compareWith.empty())
    return makeFailure(kExitUsage, "--compare-manifest needs --compare-with");
  return {};
}

//===----------------------------------------------------------------------===//
// Small helpers
//===----------------------------------------------------------------------===//

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// mxfp8-run's unique file stems of the results.
std::vector<std::string> getResultStems(const FunctionSpec &func) {
  std::vector<std::string> names;
  for (const TensorSpec &result : func.results)
    names.push_back(result.name);
  return getUniqueFileStems(names);
}

/// Prints rows as aligned columns, indented by two spaces.
void printTable(const std::vector<std::vector<std::string>> &rows) {
  std::fputs(formatTable(rows).c_str(), stdout);
}

/// 64-byte aligned host storage.
struct HostBuffer {
  struct Free {
    void operator()(void *p) const { std::free(p); }
  };
  std::unique_ptr<void, Free> memory;
  size_t size = 0;

  explicit HostBuffer(size_t size) : size(size) {
    size_t rounded = std::max<size_t>(64, (size + 63) / 64 * 64);
    memory.reset(std::aligned_alloc(64, rounded));
    if (memory)
      std::memset(memory.get(), 0, rounded);
  }
  uint8_t *data() const { return static_cast<uint8_t *>(memory.get()); }
};

//===----------------------------------------------------------------------===//
// Calling _mlir_ciface_<name>
//===----------------------------------------------------------------------===//

/// Descriptors the generic caller supports.
constexpr size_t kMaxDescriptors = 64;

template <size_t... I>
void callWithPointers(void *function, void *const *pointers,
                      std::index_sequence<I...>) {
  using Fn = void (*)(decltype((void)I, static_cast<void *>(nullptr))...);
  reinterpret_cast<Fn>(function)(pointers[I]...);
}

template <size_t N> void callN(void *function, void *const *pointers) {
  callWithPointers(function, pointers, std::make_index_sequence<N>());
}

template <size_t... N> constexpr auto makeCallTable(std::index_sequence<N...>) {
  using Caller = void (*)(void *, void *const *);
  return std::array<Caller, sizeof...(N)>{&callN<N>...};
}

/// Calls `function` with `pointers.size()` pointer arguments (a switch over
/// the count, generated at compile time).
void callFunction(void *function, const std::vector<void *> &pointers) {
  static constexpr auto table =
      makeCallTable(std::make_index_sequence<kMaxDescriptors + 1>());
  table[pointers.size()](function, pointers.data());
}

//===----------------------------------------------------------------------===//
// CUDA
//===----------------------------------------------------------------------===//

/// A failure of the runtime call `what`, with the runtime's message.
Failure cudaFailure(mxfp8rtStatus status, const std::string &what) {
  return makeFailure(status == MXFP8RT_UNAVAILABLE ? kExitNoDevice
                                                   : kExitRunFailed,
                     what + ": " + mxfp8rtGetLastError() + " (" +
                         mxfp8rtGetStatusName(status) + ")");
}

/// Fails if an mgpu* call inside the library recorded an error.
Failure checkMgpuErrors(const std::string &when) {
  const char *error = mxfp8rtGetLastError();
  if (error && *error)
    return makeFailure(kExitRunFailed, "the GPU runtime reported an error " +
                                           when + ": " + error +
                                           " (the first error printed above is "
                                           "the cause)");
  return {};
}

/// Initializes CUDA on device `gpu` and prints it.
Failure initializeCuda(int gpu, int &major, int &minor) {
  if (mxfp8rtStatus s = mxfp8rtInitialize())
    return cudaFailure(s, "--device=cuda");
  int count = 0;
  if (mxfp8rtStatus s = mxfp8rtGetDeviceCount(&count))
    return cudaFailure(s, "counting CUDA devices");
  if (gpu >= count)
    return makeFailure(kExitUsage, "--gpu=" + std::to_string(gpu) +
                                       ": the machine has " +
                                       std::to_string(count) + " GPU(s)");
  if (mxfp8rtStatus s = mxfp8rtSetDevice(gpu))
    return cudaFailure(s, "selecting GPU " + std::to_string(gpu));
  char name[256] = "";
  if (mxfp8rtStatus s = mxfp8rtGetDeviceName(gpu, name, sizeof(name)))
    return cudaFailure(s, "querying GPU " + std::to_string(gpu));
  if (mxfp8rtStatus s = mxfp8rtGetDeviceComputeCapability(gpu, &major, &minor))
    return cudaFailure(s, "querying GPU " + std::to_string(gpu));
  std::printf("gpu: %d %s (sm_%d%d)\n", gpu, name, major, minor);
  return {};
}

/// Checks that a cubin for `chip` can run on compute capability
/// major.minor: arch-specific targets (sm_90a, sm_100a) only run on exactly
/// their architecture.
Failure checkChip(const std::string &chip, int major, int minor,
                  const std::string &library) {
  if (chip.size() < 4 || chip.rfind("sm_", 0) != 0)
    return {};
  std::string digits = chip.substr(3);
  bool archSpecific = !digits.empty() && digits.back() == 'a';
  if (archSpecific)
    digits.pop_back();
  uint64_t number;
  if (!parseUnsigned(digits, number))
    return {};
  int want = int(number), have = major * 10 + minor;
  if ((archSpecific && want != have) || want > have)
    return makeFailure(kExitUsage, library + " was compiled for " + chip +
                                       ", which cannot run on this GPU (sm_" +
                                       std::to_string(have) + ")");
  return {};
}

//===----------------------------------------------------------------------===//
// Running one function
//===----------------------------------------------------------------------===//

/// A loaded library and one of its functions, with its buffers.
class Runner {
public:
  Runner(std::string library, const FunctionSpec &spec, bool cuda, int fillByte)
      : library(std::move(library)), spec(spec), cuda(cuda),
        fillByte(fillByte) {}
  ~Runner() {
    if (cuda) {
      // The cached device copies of the TMA descriptors (docs/runtime.md)
      // go with the last call that could read them.
      (void)mxfp8rtDeviceSynchronize();
      (void)mxfp8rtReleaseTensorMaps();
    }
    for (void *p : deviceBuffers)
      (void)mxfp8rtMemFree(p);
    for (mxfp8rtEvent e : events)
      (void)mxfp8rtEventDestroy(e);
    // The library stays loaded: its GPU modules are unloaded by its global
    // destructors at exit, after the runtime's own teardown rules.
  }

  /// dlopens the library and finds `_mlir_ciface_<name>`.
  Failure load(void *sharedHandle) {
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
        return makeFailure(kExitUsage,
                           "cannot load '" + library + "': " + dlerror());
      if (cuda)
        if (Failure f = checkMgpuErrors("while loading '" + library + "'"))
          return f;
    }
    std::string symbol = "_mlir_ciface_" + spec.name;
    function = dlsym(handle, symbol.c_str());
    if (!function)
      return makeFailure(kExitUsage,
                         "'" + library + "' has no symbol " + symbol +
                             " (was it linked from the objects of this "
                             "manifest?)");
    return {};
  }

  void *getHandle() const { return handle; }
  double getLoadSeconds() const { return loadSeconds; }

  /// Copies the inputs in and allocates zeroed results.
  Failure prepare(const std::vector<std::vector<uint8_t>> &inputs) {
    std::vector<std::vector<int64_t>> shapes;
    std::vector<void *> data;
    for (size_t i = 0; i < spec.args.size(); ++i) {
      void *p = nullptr;
      if (Failure f = allocate(spec.args[i].getNumBytes(), inputs[i].data(), p))
        return f;
      data.push_back(p);
      shapes.push_back(spec.args[i].shape);
    }
    for (const TensorSpec &result : spec.results) {
      void *p = nullptr;
      if (Failure f = allocate(result.getNumBytes(), nullptr, p))
        return f;
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
        return cudaFailure(s, "copying the inputs to the GPU");
      events.resize(2);
      for (mxfp8rtEvent &e : events)
        if (mxfp8rtStatus s = mxfp8rtEventCreate(&e, /*enableTiming=*/1))
          return cudaFailure(s, "creating a CUDA event");
    }
    return {};
  }

  /// One more call with the runtime's profiler on (only for this call, so
  /// the tool's own waits are not counted); fills `report`.
  Failure runProfiled(mxfp8launch::ProfileReport &report) {
    mxfp8rtProfileReset();
    mxfp8rtProfileEnable(1);
    Failure f = callOnce(report.hostMs, report.stepMs, /*profiling=*/true);
    mxfp8rtProfileEnable(0);
    if (f)
      return f;
    std::string error;
    if (!mxfp8launch::readProfile(report, error))
      return makeFailure(kExitRunFailed, error);
    return {};
  }

  /// Runs `warmup` untimed and `repeat` timed calls.
  Failure run(int warmup, int repeat) {
    for (int i = 0; i < warmup; ++i) {
      double host, device;
      if (Failure f = callOnce(host, device))
        return f;
    }
    for (int i = 0; i < repeat; ++i) {
      double host = 0.0, device = 0.0;
      if (Failure f = callOnce(host, device))
        return f;
      hostMs.push_back(host);
      if (cuda)
        deviceMs.push_back(device);
    }
    return {};
  }

  /// Copies the results to the host.
  Failure fetchResults(std::vector<HostBuffer> &results) {
    results.clear();
    for (size_t i = 0; i < spec.results.size(); ++i) {
      size_t size = size_t(spec.results[i].getNumBytes());
      results.emplace_back(size);
      if (!results.back().data())
        return makeFailure(kExitRunFailed, "out of host memory");
      if (!cuda) {
        if (size)
          std::memcpy(results.back().data(), resultData[i], size);
        continue;
      }
      if (mxfp8rtStatus s = mxfp8rtMemcpyDtoH(
              results.back().data(), resultData[i], intptr_t(size), nullptr))
        return cudaFailure(s, "copying result " + spec.results[i].name +
                                  " to the host");
    }
    if (cuda)
      if (mxfp8rtStatus s = mxfp8rtDeviceSynchronize())
        return cudaFailure(s, "copying the results to the host");
    return {};
  }

  /// The median of the timed calls in milliseconds: CUDA events on the GPU,
  /// the host clock on the CPU.
  double getMedianMs() const {
    std::vector<double> values = cuda ? deviceMs : hostMs;
    if (values.empty())
      return 0.0;
    std::sort(values.begin(), values.end());
    size_t n = values.size();
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
  }

  /// "median 1.234 ms (min 1.2, max 1.3) over N runs" for the host clock
  /// and, on the GPU, the CUDA events.
  std::string describeTimes() const {
    auto describe = [](std::vector<double> values) {
      std::sort(values.begin(), values.end());
      size_t n = values.size();
      double median =
          n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
      if (n == 1)
        return formatDouble("%.4g ms", median);
      return formatDouble("median %.4g ms", median) +
             formatDouble(" (min %.4g", values.front()) +
             formatDouble(", max %.4g)", values.back());
    };
    std::string text;
    if (cuda)
      text = "cuda events " + describe(deviceMs) + ", host " + describe(hostMs);
    else
      text = "host " + describe(hostMs);
    return text;
  }

  const FunctionSpec &getSpec() const { return spec; }
  const std::string &getLibrary() const { return library; }
  bool isCuda() const { return cuda; }

private:
  Failure allocate(int64_t size, const void *init, void *&p) {
    if (!cuda) {
      hostBuffers.emplace_back(size_t(size));
      p = hostBuffers.back().data();
      if (!p)
        return makeFailure(kExitRunFailed, "out of host memory");
      if (init && size)
        std::memcpy(p, init, size_t(size));
      else if (size)
        std::memset(p, fillByte, size_t(size));
      return {};
    }
    if (mxfp8rtStatus s = mxfp8rtMemAlloc(intptr_t(size), &p))
      return cudaFailure(s, "allocating " + std::to_string(size) +
                                " bytes on the GPU");
    deviceBuffers.push_back(p);
    if (size == 0)
      return {};
    mxfp8rtStatus s =
        init ? mxfp8rtMemcpyHtoD(p, init, intptr_t(size), nullptr)
             : mxfp8rtMemsetD8(p, uint8_t(fillByte), intptr_t(size), nullptr);
    if (s)
      return cudaFailure(s, "initializing GPU memory");
    return {};
  }

  Failure callOnce(double &hostMsOut, double &deviceMsOut,
                   bool profiling = false) {
    mxfp8rtClearLastError();
    if (cuda)
      if (mxfp8rtStatus s = mxfp8rtEventRecord(events[0], nullptr))
        return cudaFailure(s, "recording a CUDA event");
    Clock::time_point start = Clock::now();
    callFunction(function, pointers);
    // The profile covers the function, not the waits below.
    if (profiling)
      mxfp8rtProfileEnable(0);
    if (cuda) {
      // The function may leave work queued on its own streams.
      if (mxfp8rtStatus s = mxfp8rtDeviceSynchronize())
        return cudaFailure(s, "running @" + spec.name);
    }
    hostMsOut = secondsSince(start) * 1e3;
    if (!cuda)
      return {};
    if (Failure f = checkMgpuErrors("while running @" + spec.name))
      return f;
    float ms = 0.0f;
    if (mxfp8rtStatus s = mxfp8rtEventRecord(events[1], nullptr))
      return cudaFailure(s, "recording a CUDA event");
    if (mxfp8rtStatus s = mxfp8rtEventSynchronize(events[1]))
      return cudaFailure(s, "waiting for a CUDA event");
    if (mxfp8rtStatus s = mxfp8rtEventElapsedTime(&ms, events[0], events[1]))
      return cudaFailure(s, "timing with CUDA events");
    deviceMsOut = ms;
    return {};
  }

  std::string library;
  const FunctionSpec &spec;
  bool cuda;
  int fillByte;
  void *handle = nullptr;
  void *function = nullptr;
  double loadSeconds = 0.0;
  std::vector<HostBuffer> hostBuffers;
  std::vector<void *> deviceBuffers;
  std::vector<void *> resultData;
  std::vector<std::vector<int64_t>> descriptors;
  std::vector<void *> pointers;
  std::vector<mxfp8rtEvent> events;
  std::vector<double> hostMs, deviceMs;
};

//===----------------------------------------------------------------------===//
// Reporting
//===----------------------------------------------------------------------===//

/// Writes one tensor as .npy (bf16 as bits, or widened with --bf16-as).
Failure writeTensor(const std::string &path, const TensorSpec &spec,
                    const uint8_t *data, bool bf16AsFloat32) {
  std::string error;
  bool ok;
  if (spec.kind == ElementKind::BF16 && bf16AsFloat32) {
    int64_t n = spec.getNumElements();
    std::vector<float> widened(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i)
      widened[size_t(i)] = float(decodeElement(spec.kind, data, i));
    ok = writeNpy(path, "<f4", spec.shape, widened.data(), widened.size() * 4,
                  error);
  } else {
    ok = writeNpy(path, getNpyDescrForKind(spec.kind, false), spec.shape, data,
                  size_t(spec.getNumBytes()), error);
  }
  if (!ok)
    return makeFailure(kExitUsage, error);
  return {};
}

/// L2 norm and max |x| as mxfp8-run prints them.
std::pair<std::string, std::string> describeValues(const TensorSpec &spec,
                                                   const uint8_t *data) {
  double sq = 0.0, maxAbs = 0.0;
  for (int64_t k = 0, n = spec.getNumElements(); k < n; ++k) {
    double v = decodeElement(spec.kind, data, k);
    sq += v * v;
    maxAbs = std::isnan(v) || std::isnan(maxAbs)
                 ? std::numeric_limits<double>::quiet_NaN()
                 : std::fmax(maxAbs, std::fabs(v));
  }
  return {formatDouble("%.6g", std::sqrt(sq)), formatDouble("%.6g", maxAbs)};
}

/// The outcome of comparing one result with its reference.
struct Comparison {
  int64_t differingBytes = 0;
  int64_t differingElements = 0;
  ErrorStats stats;
};

/// Compares `out` with `ref` element by element: bytes that differ (an
/// element that is NaN in both counts as equal, whatever the payloads), and
/// the SQNR of `out` against `ref` over the pairs that are not both NaN.
Comparison compareTensors(const TensorSpec &spec, const uint8_t *ref,
                          const uint8_t *out) {
  Comparison c;
  ErrorAccumulator accumulator;
  int64_t size = getElementKindSize(spec.kind);
  bool isFloat = isFloatKind(spec.kind);
  for (int64_t i = 0, n = spec.getNumElements(); i < n; ++i) {
    double r = decodeElement(spec.kind, ref, i);
    double o = decodeElement(spec.kind, out, i);
    if (isFloat && std::isnan(r) && std::isnan(o))
      continue;
    int64_t differing = 0;
    for (int64_t b = 0; b < size; ++b)
      differing += ref[i * size + b] != out[i * size + b];
    c.differingBytes += differing;
    c.differingElements += differing != 0;
    accumulator.add(r, o);
  }
  c.stats = accumulator.get();
  return c;
}

/// The per-matmul table of a probe function (mxfp8-compile --per-matmul):
/// each result with role `matmul_hp` followed by one with role
/// `matmul_<role>` is a matmul of the step in high precision and converted
/// alone on the same inputs; prints the SQNR of each pair against torchao's
/// per-linear bar of its role (SPEC §8) and returns how many miss it.
int printMatmulProbes(const FunctionSpec &spec,
                      const std::vector<HostBuffer> &results) {
  std::vector<std::vector<std::string>> rows;
  rows.push_back(
      {"matmul", "role", "type", "SQNR dB", "max abs err", "bar dB", "result"});
  int failed = 0;
  for (size_t i = 0; i + 1 < spec.results.size(); ++i) {
    const TensorSpec &hp = spec.results[i];
    const TensorSpec &mx = spec.results[i + 1];
    const std::string prefix = "matmul_";
    if (hp.role != "matmul_hp" || mx.role.rfind(prefix, 0) != 0 ||
        mx.role == "matmul_hp")
      continue;
    std::string role = mx.role.substr(prefix.size());
    double bar = role == "forward" ? 27.0 : role == "dgrad" ? 25.0 : 24.0;
    Comparison c = compareTensors(hp, results[i].data(), results[i + 1].data());
    bool pass = c.stats.sqnrDb >= bar;
    failed += !pass;
    rows.push_back({hp.name, role, hp.formatType(), formatDb(c.stats.sqnrDb),
                    formatDouble("%.3e", c.stats.maxAbsError),
                    ">= " + formatDouble("%.2f", bar), pass ? "PASS" : "FAIL"});
    ++i;
  }
  if (rows.size() > 1) {
    std::printf("matmuls (each converted alone on the step's high-precision "
                "inputs, torchao's per-linear bars):\n");
    printTable(rows);
    std::printf("matmul bars: %zu passed, %d failed\n",
                rows.size() - 1 - failed, failed);
  }
  return failed;
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

/// Finds the function to run: --entry, or the only callable one.
Failure selectFunction(const Manifest &manifest, const std::string &path,
                       const std::string &entry, const FunctionSpec *&out) {
  std::string names;
  int callable = 0;
  const FunctionSpec *only = nullptr;
  for (const FunctionSpec &func : manifest.functions) {
    names += (names.empty() ? "@" : ", @") + func.name;
    if (func.unsupported.empty()) {
      ++callable;
      only = &func;
    }
  }
  if (names.empty())
    names = "none";
  if (entry.empty()) {
    if (callable != 1)
      return makeFailure(kExitUsage, "--entry=NAME is needed: '" + path +
                                         "' lists " + std::to_string(callable) +
                                         " callable functions (" + names + ")");
    out = only;
    return {};
  }
  out = manifest.lookup(entry);
  if (!out)
    return makeFailure(kExitUsage, "no function @" + entry + " in '" + path +
                                       "' (functions: " + names + ")");
  if (!out->unsupported.empty())
    return makeFailure(kExitUsage,
                       "@" + entry + " cannot be called: " + out->unsupported);
  if (out->args.size() + out->results.size() > kMaxDescriptors)
    return makeFailure(
        kExitUsage, "@" + entry + " takes " +
                        std::to_string(out->args.size() + out->results.size()) +
                        " descriptors; mxfp8-launch calls at most " +
                        std::to_string(kMaxDescriptors));
  return {};
}

/// Checks that two functions have the same tensor types.
Failure checkSameSignature(const FunctionSpec &a, const FunctionSpec &b) {
  auto describe = [](const FunctionSpec &f) {
    std::string text = "(";
    for (size_t i = 0; i < f.args.size(); ++i)
      text += (i ? ", " : "") + f.args[i].formatType();
    text += ") -> (";
    for (size_t i = 0; i < f.results.size(); ++i)
      text += (i ? ", " : "") + f.results[i].formatType();
    return text + ")";
  };
  if (describe(a) != describe(b))
    return makeFailure(kExitUsage, "cannot compare @" + a.name + " " +
                                       describe(a) + " with @" + b.name + " " +
                                       describe(b));
  return {};
}

int fail(const Failure &failure) {
  std::fflush(stdout);
  std::fprintf(stderr, "mxfp8-launch: error: %s\n", failure.message.c_str());
  return failure.code;
}

/// Prints the profiled call's family and kernel tables and writes
/// --profile-json.
Failure printProfile(const mxfp8launch::ProfileReport &report,
                     const Options &options, const std::string &entry,
                     double medianMs) {
  std::printf("profile: one more call with CUDA events around every launch, "
              "fill and copy (docs/runtime.md \"Profiling\"): %.4g ms "
              "(events around the call; host %.4g ms), %.4g ms of it timed\n",
              report.stepMs, report.hostMs, report.getTimedMs());
  std::printf("profile by family:\n");
  printTable(mxfp8launch::getFamilyTable(report));
  std::printf(
      "profile by kernel%s:\n",
      options.profileTop
          ? (" (the " + std::to_string(options.profileTop) + " largest)")
                .c_str()
          : "");
  printTable(mxfp8launch::getKernelTable(report, size_t(options.profileTop)));
  std::printf("profile counters: %s\n",
              mxfp8launch::describeCounters(report).c_str());
  if (options.profileJson.empty())
    return {};
  std::FILE *file = std::fopen(options.profileJson.c_str(), "w");
  if (!file)
    return makeFailure(kExitUsage, "cannot write '" + options.profileJson +
                                       "': " + std::strerror(errno));
  std::string json =
      mxfp8launch::toJson(report, entry, options.library, medianMs);
  bool ok = std::fprintf(file, "%s\n", json.c_str()) >= 0;
  ok &= std::fclose(file) == 0;
  if (!ok)
    return makeFailure(kExitUsage,
                       "cannot write '" + options.profileJson + "'");
  std::printf("profile: written to %s\n", options.profileJson.c_str());
  return {};
}

int runMain(const Options &options) {
  Manifest manifest;
  std::string error;
  if (!readManifestFile(options.manifest, manifest, error))
    return fail(makeFailure(kExitUsage, error));
  if (options.list) {
    for (const FunctionSpec &func : manifest.functions) {
      std::printf("@%s", func.name.c_str());
      if (!func.unsupported.empty()) {
        std::printf("  (cannot be called: %s)\n", func.unsupported.c_str());
        continue;
      }
      std::printf("(");
      for (size_t i = 0; i < func.args.size(); ++i)
        std::printf("%s%s: %s", i ? ", " : "", func.args[i].name.c_str(),
                    func.args[i].formatType().c_str());
      std::printf(") -> (");
      for (size_t i = 0; i < func.results.size(); ++i)
        std::printf("%s%s: %s", i ? ", " : "", func.results[i].name.c_str(),
                    func.results[i].formatType().c_str());
      std::printf(")\n");
    }
    return kExitOk;
  }

  const FunctionSpec *spec = nullptr;
  if (Failure f =
          selectFunction(manifest, options.manifest, options.entry, spec))
    return fail(f);
  std::string device =
      options.device.empty() ? manifest.device : options.device;
  if (device != manifest.device)
    return fail(makeFailure(
        kExitUsage, "'" + options.manifest + "' describes code compiled for " +
                        (manifest.device.empty() ? "?" : manifest.device) +
                        ", not for --device=" + device));
  if (options.profile && device != "cuda" && !options.profileFromEnvironment)
    return fail(makeFailure(kExitUsage, "--profile times GPU kernels: '" +
                                            options.manifest + "' is " +
                                            device + " code"));

  // The function to compare with, and its manifest.
  Manifest compareManifest;
  const FunctionSpec *compareSpec = nullptr;
  std::string compareLibrary;
  if (!options.compareWith.empty()) {
    size_t colon = options.compareWith.rfind(':');
    if (colon == std::string::npos || colon + 1 == options.compareWith.size())
      return fail(makeFailure(kExitUsage,
                              "--compare-with needs [LIB2.so]:NAME2, got '" +
                                  options.compareWith + "'"));
    compareLibrary = options.compareWith.substr(0, colon);
    if (compareLibrary.empty())
      compareLibrary = options.library;
    std::string name = options.compareWith.substr(colon + 1);
    if (options.compareManifest.empty()) {
      compareManifest = manifest;
    } else if (!readManifestFile(options.compareManifest, compareManifest,
                                 error)) {
      return fail(makeFailure(kExitUsage, error));
    }
    const std::string &path = options.compareManifest.empty()
                                  ? options.manifest
                                  : options.compareManifest;
    if (Failure f = selectFunction(compareManifest, path, name, compareSpec))
      return fail(f);
    if (Failure f = checkSameSignature(*spec, *compareSpec))
      return fail(f);
  }

  std::printf("mxfp8-launch: @%s from %s\n", spec->name.c_str(),
              options.library.c_str());
  std::printf("device: %s\n", device.c_str());
  bool anyCuda =
      device == "cuda" || (compareSpec && compareManifest.device == "cuda");
  if (anyCuda) {
    int major = 0, minor = 0;
    if (Failure f = initializeCuda(options.gpu, major, minor))
      return fail(f);
    if (device == "cuda")
      if (Failure f = checkChip(manifest.chip, major, minor, options.library))
        return fail(f);
    if (compareSpec && compareManifest.device == "cuda")
      if (Failure f =
              checkChip(compareManifest.chip, major, minor, compareLibrary))
        return fail(f);
  }

  // Inputs.
  if (!options.inputs.empty() && options.inputs.size() != spec->args.size())
    return fail(makeFailure(
        kExitUsage, "got " + std::to_string(options.inputs.size()) +
                        " --input files but @" + spec->name + " has " +
                        std::to_string(spec->args.size()) + " arguments"));
  std::vector<std::vector<uint8_t>> inputs(spec->args.size());
  Clock::time_point start = Clock::now();
  std::printf("inputs:\n");
  for (size_t i = 0; i < spec->args.size(); ++i) {
    const TensorSpec &arg = spec->args[i];
    std::string description;
    bool ok;
    if (!options.inputs.empty()) {
      ok = readInput(arg, unsigned(i), options.inputs[i], inputs[i], error);
      description = options.inputs[i];
    } else {
      ok = generateInput(arg, unsigned(i), options.seed, options.inputStd,
                         inputs[i], description, error);
    }
    if (!ok)
      return fail(makeFailure(kExitUsage, error));
    std::printf("  #%zu %s : %s  %s\n", i, arg.name.c_str(),
                arg.formatType().c_str(), description.c_str());
  }
  if (options.inputs.empty())
    std::printf("  (generated with seed %llu in %.2f s)\n",
                static_cast<unsigned long long>(options.seed),
                secondsSince(start));
  else
    std::printf("  (read in %.2f s)\n", secondsSince(start));

  // Output directory.
  namespace fs = std::filesystem;
  if (!options.outputDir.empty()) {
    std::error_code ec;
    fs::create_directories(options.outputDir, ec);
    if (ec || !fs::is_directory(options.outputDir))
      return fail(makeFailure(
          kExitUsage, "cannot create '" + options.outputDir +
                          "': " + (ec ? ec.message() : "not a directory")));
    if (options.saveInputs) {
      fs::path dir = fs::path(options.outputDir) / "inputs";
      fs::create_directories(dir, ec);
      if (ec)
        return fail(makeFailure(kExitUsage, "cannot create '" + dir.string() +
                                                "': " + ec.message()));
      for (size_t i = 0; i < spec->args.size(); ++i) {
        fs::path path = dir / (std::to_string(i) + "_" +
                               sanitizeFileName(spec->args[i].name) + ".npy");
        if (Failure f = writeTensor(path.string(), spec->args[i],
                                    inputs[i].data(), options.bf16AsFloat32))
          return fail(f);
      }
    }
  } else if (options.saveInputs) {
    return fail(makeFailure(kExitUsage, "--save-inputs needs --output-dir"));
  }

  // Load, run, fetch.
  Runner runner(options.library, *spec, device == "cuda", options.fillResults);
  if (Failure f = runner.load(nullptr))
    return fail(f);
  if (Failure f = runner.prepare(inputs))
    return fail(f);
  if (Failure f = runner.run(options.warmup, options.repeat))
    return fail(f);
  mxfp8launch::ProfileReport profile;
  bool profiling = options.profile && device == "cuda";
  if (profiling)
    if (Failure f = runner.runProfiled(profile))
      return fail(f);
  std::vector<HostBuffer> results;
  if (Failure f = runner.fetchResults(results))
    return fail(f);

  std::vector<std::string> stems = getResultStems(*spec);
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"#", "name", "role", "type", "L2 norm", "max abs", "file"});
  for (size_t i = 0; i < spec->results.size(); ++i) {
    const TensorSpec &result = spec->results[i];
    std::string file = "-";
    if (!options.outputDir.empty()) {
      file = (fs::path(options.outputDir) / (stems[i] + ".npy")).string();
      if (Failure f = writeTensor(file, result, results[i].data(),
                                  options.bf16AsFloat32))
        return fail(f);
    }
    auto [norm, maxAbs] = describeValues(result, results[i].data());
    rows.push_back({std::to_string(i), result.name,
                    result.role.empty() ? "-" : result.role,
                    result.formatType(), norm, maxAbs, file});
  }
  std::printf("outputs:\n");
  printTable(rows);
  std::printf("time: load %.3f s; run %s over %d run(s) after %d warmup\n",
              runner.getLoadSeconds(), runner.describeTimes().c_str(),
              options.repeat, options.warmup);
  if (profiling)
    if (Failure f =
            printProfile(profile, options, spec->name, runner.getMedianMs()))
      return fail(f);
  int matmulsFailed = printMatmulProbes(*spec, results);

  if (!compareSpec && matmulsFailed) {
    std::fflush(stdout);
    std::fprintf(stderr, "mxfp8-launch: %d matmul(s) below their SQNR bar\n",
                 matmulsFailed);
    return kExitDifferent;
  }
  if (!compareSpec) {
    std::printf("summary: entry=%s device=%s results=%zu time_ms=%.6g\n",
                spec->name.c_str(), device.c_str(), spec->results.size(),
                runner.getMedianMs());
    return kExitOk;
  }

  // The reference: the same inputs through the other function.
  bool compareCuda = compareManifest.device == "cuda";
  Runner reference(compareLibrary, *compareSpec, compareCuda,
                   options.fillResults);
  bool sameLibrary = compareLibrary == options.library;
  if (Failure f = reference.load(sameLibrary ? runner.getHandle() : nullptr))
    return fail(f);
  if (Failure f = reference.prepare(inputs))
    return fail(f);
  if (Failure f = reference.run(/*warmup=*/0, options.referenceRepeat))
    return fail(f);
  std::vector<HostBuffer> referenceResults;
  if (Failure f = reference.fetchResults(referenceResults))
    return fail(f);

  std::printf("compare with @%s from %s (%s) as the reference:\n",
              compareSpec->name.c_str(), compareLibrary.c_str(),
              compareCuda ? "cuda" : "cpu");
  rows.clear();
  rows.push_back({"#", "name", "type", "bit-exact", "differing bytes",
                  "differing elements", "SQNR dB", "max abs err"});
  int numDifferent = 0;
  std::vector<double> sqnrs;
  double minSqnr = std::numeric_limits<double>::infinity();
  double maxError = 0.0;
  for (size_t i = 0; i < spec->results.size(); ++i) {
    const TensorSpec &result = spec->results[i];
    if (!options.outputDir.empty()) {
      std::string file =
          (fs::path(options.outputDir) / (stems[i] + ".compare.npy")).string();
      if (Failure f = writeTensor(file, result, referenceResults[i].data(),
                                  options.bf16AsFloat32))
        return fail(f);
    }
    Comparison c =
        compareTensors(result, referenceResults[i].data(), results[i].data());
    bool exact = c.differingBytes == 0;
    numDifferent += !exact;
    sqnrs.push_back(c.stats.sqnrDb);
    // NaN (a one-sided NaN) wins over any number.
    if (!std::isnan(minSqnr) &&
        (std::isnan(c.stats.sqnrDb) || c.stats.sqnrDb < minSqnr))
      minSqnr = c.stats.sqnrDb;
    if (!std::isnan(maxError) &&
        (std::isnan(c.stats.maxAbsError) || c.stats.maxAbsError > maxError))
      maxError = c.stats.maxAbsError;
    rows.push_back({std::to_string(i), result.name, result.formatType(),
                    exact ? "yes" : "no", std::to_string(c.differingBytes),
                    std::to_string(c.differingElements),
                    formatDb(c.stats.sqnrDb),
                    formatDouble("%.3e", c.stats.maxAbsError)});
  }
  printTable(rows);
  std::printf("time (reference): load %.3f s; run %s\n",
              reference.getLoadSeconds(), reference.describeTimes().c_str());
  std::printf("bit-exact: %zu of %zu results\n",
              spec->results.size() - size_t(numDifferent),
              spec->results.size());
  // One line for scripts (bench/device/run-aot-checks.sh).
  std::printf("summary: entry=%s device=%s results=%zu exact=%zu "
              "min_sqnr_db=%s max_abs_err=%.3e time_ms=%.6g "
              "reference_device=%s reference_time_ms=%.6g\n",
              spec->name.c_str(), device.c_str(), spec->results.size(),
              spec->results.size() - size_t(numDifferent),
              formatDb(minSqnr).c_str(), maxError, runner.getMedianMs(),
              compareCuda ? "cuda" : "cpu", reference.getMedianMs());
  // A converted training step against its high-precision step: the SQNR
  // of each result next to its bar (mxfp8run.min_sqnr, checked), or the
  // torchao per-linear bar of its role (SPEC §8), which holds for one
  // quantized GEMM and is only shown for results behind several (as
  // mxfp8-run --compare does; its per-matmul table is not available here).
  auto isStepRole = [](const std::string &role) {
    return role == "output" || role == "input_grad" || role == "weight_grad";
  };
  bool anyBar = false;
  for (const TensorSpec &result : spec->results)
    anyBar |= result.hasMinSqnr || isStepRole(result.role);
  int barsFailed = 0;
  if (anyBar) {
    rows.clear();
    rows.push_back({"#", "name", "role", "SQNR dB", "bar dB", "result"});
    for (size_t i = 0; i < spec->results.size(); ++i) {
      const TensorSpec &result = spec->results[i];
      std::string bar = "-", verdict = "-";
      if (result.hasMinSqnr) {
        bool pass = sqnrs[i] >= result.minSqnr;
        barsFailed += !pass;
        bar = ">= " + formatDouble("%.2f", result.minSqnr);
        verdict = pass ? "PASS" : "FAIL";
      } else if (isStepRole(result.role)) {
        double roleBar = result.role == "output"       ? 27.0
                         : result.role == "input_grad" ? 25.0
                                                       : 24.0;
        bar = "(" + formatDouble("%.2f", roleBar) + ")";
        verdict = sqnrs[i] >= roleBar ? "(above)" : "(below)";
      }
      rows.push_back({std::to_string(i), result.name,
                      result.role.empty() ? "-" : result.role,
                      formatDb(sqnrs[i]), bar, verdict});
    }
    std::printf("bars (SPEC §8; in parentheses: torchao's per-linear bar of "
                "the role, not checked for a whole step):\n");
    printTable(rows);
  }
  double referenceMs = reference.getMedianMs();
  std::printf("timing: @%s (%s) %.6g ms, reference @%s (%s) %.6g ms, "
              "ratio %.3f (medians of %d and %d calls)\n",
              spec->name.c_str(), device.c_str(), runner.getMedianMs(),
              compareSpec->name.c_str(), compareCuda ? "cuda" : "cpu",
              referenceMs,
              referenceMs > 0 ? runner.getMedianMs() / referenceMs : 0.0,
              options.repeat, options.referenceRepeat);
  std::fflush(stdout);
  if (barsFailed) {
    std::fprintf(stderr, "mxfp8-launch: %d result(s) below their SQNR bar\n",
                 barsFailed);
    return kExitDifferent;
  }
  if (numDifferent && options.expectExact) {
    std::fprintf(stderr,
                 "mxfp8-launch: %d result(s) differ from the reference\n",
                 numDifferent);
    return kExitDifferent;
  }
  return kExitOk;
}

} // namespace

int main(int argc, char **argv) {
  // Keep stdout and the runtime's stderr messages in order in logs.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  Options options;
  if (Failure f = parseOptions(argc, argv, options))
    return fail(f);
  // MXFP8RT_PROFILE asks for the profiled call; taken out of the
  // environment before the runtime reads it, so that the timed calls are
  // not profiled and the runtime prints no second report at exit.
  const char *profileEnv = std::getenv("MXFP8RT_PROFILE");
  if (profileEnv && *profileEnv && std::string(profileEnv) != "0") {
    options.profileFromEnvironment = !options.profile;
    options.profile = true;
    unsetenv("MXFP8RT_PROFILE");
  }
  int code = runMain(options);
  std::fflush(stdout);
  return code;
}
