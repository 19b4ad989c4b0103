//===- AOTFunction.h - call one AOT-compiled function -----------*- C++ -*-===//
//
// One function of a shared library linked from mxfp8-compile objects
// (docs/aot.md), described by its manifest entry (Manifest.h): the library
// is dlopened, `_mlir_ciface_<name>` is found, its tensors are allocated on
// the host or on the GPU (through the runtime, Runtime.h) and passed as
// memref descriptors, inputs first, then the caller-allocated results; each
// call is timed by the host clock and, on the GPU, by CUDA events. Standard
// C++ over the runtime's C ABI: mxfp8-launch and any embedder of AOT
// artifacts build it without MLIR or LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_LAUNCH_AOTFUNCTION_H
#define MXFP8TRAIN_LAUNCH_AOTFUNCTION_H

#include "mxfp8train/Launch/LaunchError.h"
#include "mxfp8train/Support/Manifest.h"
#include "mxfp8train/runtime/Runtime.h"

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace mlir::mxfp8train::launch {

struct ProfileReport;

/// The most memref descriptors (arguments plus results) a function called
/// through callWithPointers() may take.
constexpr size_t kMaxDescriptors = 64;

/// Calls `function`, a `void(void *, ...)` taking `pointers.size()` (at
/// most kMaxDescriptors) pointer arguments, with `pointers`.
void callWithPointers(void *function, const std::vector<void *> &pointers);

/// Zeroed, 64-byte aligned host storage; data() is null when the
/// allocation failed.
class HostBuffer {
public:
  explicit HostBuffer(size_t size);

  uint8_t *data() const { return static_cast<uint8_t *>(memory.get()); }
  size_t size() const { return numBytes; }

private:
  struct Free {
    void operator()(void *p) const { std::free(p); }
  };
  std::unique_ptr<void, Free> memory;
  size_t numBytes = 0;
};

/// A loaded library and one of its functions, with its buffers.
class AOTFunction {
public:
  /// `spec` (kept by reference) describes the function of `library`; its
  /// tensors live on the GPU when `cuda` (a device chosen with
  /// initializeCudaDevice()), and results start filled with `fillByte`.
  AOTFunction(std::string library, const FunctionSpec &spec, bool cuda,
              int fillByte);
  AOTFunction(const AOTFunction &) = delete;
  AOTFunction &operator=(const AOTFunction &) = delete;
  /// Frees the buffers; the library stays loaded (its GPU modules are
  /// unloaded by its own global destructors at exit).
  ~AOTFunction();

  /// dlopens the library (a path without '/' is taken relative to the
  /// working directory), or reuses `sharedHandle` when given, and finds
  /// `_mlir_ciface_<name>`.
  LaunchError load(void *sharedHandle = nullptr);

  /// Copies `inputs` (one byte vector per argument, of its size) in and
  /// allocates the results.
  LaunchError prepare(const std::vector<std::vector<uint8_t>> &inputs);

  /// Runs `warmup` untimed and `repeat` timed calls.
  LaunchError run(int warmup, int repeat);

  /// One more call with the runtime's profiler on for that call only (so
  /// waits outside the function are not counted); fills `report`.
  LaunchError runProfiled(ProfileReport &report);

  /// Copies the results to host buffers, one per result.
  LaunchError fetchResults(std::vector<HostBuffer> &results);

  /// The median of the timed calls in milliseconds: CUDA events on the GPU,
  /// the host clock on the CPU; 0 before any.
  double getMedianMs() const;

  /// "host median 1.234 ms (min 1.2, max 1.3)" for the timed calls, with
  /// the CUDA events first on the GPU.
  std::string describeTimes() const;

  void *getHandle() const { return handle; }
  double getLoadSeconds() const { return loadSeconds; }
  const FunctionSpec &getSpec() const { return spec; }
  const std::string &getLibrary() const { return library; }
  bool isCuda() const { return cuda; }

private:
  LaunchError allocate(int64_t size, const void *init, void *&p);
  LaunchError callOnce(double &hostMsOut, double &deviceMsOut,
                       bool profiling = false);

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

} // namespace mlir::mxfp8train::launch

#endif // MXFP8TRAIN_LAUNCH_AOTFUNCTION_H
