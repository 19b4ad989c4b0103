//===- CUDARunner.cpp - run mxfp8train modules on a CUDA GPU ----*- C++ -*-===//
//
// Lowers a clone of a tensor-level module with the GPU pipeline, JITs its
// host code with mlir::ExecutionEngine linked against
// libmxfp8train_runtime.so, and calls `_mlir_ciface_<name>` with one memref
// descriptor of a device buffer per input and per output (docs/gpu.md, the
// host ABI). The runtime is the one this library links; its path is given
// to the ExecutionEngine as a shared library so that the JITed code and
// this file use the same copy (one driver, one context, one module cache).
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/ExecutionEngine/CUDARunner.h"
#include "RunnerSupport.h"
#include "mxfp8train/Conversion/MXFP8TrainToGPU/MXFP8TrainToGPU.h"
#include "mxfp8train/Pipelines/Pipelines.h"
#include "mxfp8train/Support/MemRefDescriptor.h"
#include "mxfp8train/runtime/Runtime.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include <dlfcn.h>

using namespace mlir;
using namespace mlir::mxfp8train;

CUDADeviceInfo mlir::mxfp8train::queryCUDADevice(int gpu) {
  CUDADeviceInfo info;
  auto lastError = [] {
    const char *e = mxfp8rtGetLastError();
    return std::string(e && *e ? e : "unknown error");
  };
  if (mxfp8rtInitialize() != MXFP8RT_SUCCESS) {
    info.reason = lastError();
    return info;
  }
  int count = 0;
  if (mxfp8rtGetDeviceCount(&count) != MXFP8RT_SUCCESS) {
    info.reason = lastError();
    return info;
  }
  if (gpu < 0 || gpu >= count) {
    info.reason = "no GPU " + std::to_string(gpu) + " (the machine has " +
                  std::to_string(count) + ")";
    return info;
  }
  char name[256] = "";
  if (mxfp8rtGetDeviceName(gpu, name, sizeof(name)) != MXFP8RT_SUCCESS ||
      mxfp8rtGetDeviceComputeCapability(gpu, &info.major, &info.minor) !=
          MXFP8RT_SUCCESS) {
    info.reason = lastError();
    return info;
  }
  info.available = true;
  info.name = name;
  if (std::optional<GPUChip> chip =
          getGPUChipForComputeCapability(info.major, info.minor))
    info.chip = stringifyGPUChip(*chip).str();
  return info;
}

struct CUDAExecutable::Impl : runner::JitModule {};

CUDAExecutable::CUDAExecutable()
    : Executable(ExecutionDevice::CUDA), impl(std::make_unique<Impl>()) {}
llvm::Expected<FunctionType>
CUDAExecutable::getFunctionType(StringRef name) const {
  return impl->getFunctionType(name);
}

CUDAExecutable::~CUDAExecutable() {
  // The runtime caches the device copies of the module's TMA descriptors
  // (docs/runtime.md): free them with the module, after its last kernel.
  if (impl && impl->engine) {
    (void)mxfp8rtDeviceSynchronize();
    (void)mxfp8rtReleaseTensorMaps();
  }
}

/// The runtime library this code is linked with (for the JIT's symbol
/// resolution).
static std::string getRuntimeLibraryPath() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void *>(&mxfp8rtInitialize), &info) &&
      info.dli_fname)
    return info.dli_fname;
  return "";
}

/// The runtime's last error, or `fallback`.
static std::string getRuntimeError(StringRef fallback) {
  const char *e = mxfp8rtGetLastError();
  return e && *e ? std::string(e) : fallback.str();
}

llvm::Expected<std::unique_ptr<CUDAExecutable>>
CUDAExecutable::compile(ModuleOp module, const CUDACompileOptions &options) {
  std::unique_ptr<CUDAExecutable> exe(new CUDAExecutable());
  auto build = [&](OpPassManager &pm) -> llvm::Error {
    if (options.lowering.empty()) {
      GPUPipelineOptions pipelineOptions;
      pipelineOptions.chip = options.chip;
      pipelineOptions.simpleGemm = options.simpleGemm;
      buildMXFP8TrainGPUPipeline(pm, pipelineOptions);
      return llvm::Error::success();
    }
    static bool registered = [] {
      mlir::registerAllPasses();
      return true;
    }();
    (void)registered;
    std::string error;
    llvm::raw_string_ostream errorStream(error);
    if (failed(parsePassPipeline(options.lowering, pm, errorStream)))
      return llvm::createStringError("invalid lowering pipeline: " + error);
    return llvm::Error::success();
  };
  std::string runtimePath = getRuntimeLibraryPath();
  SmallVector<StringRef> libs;
  if (!runtimePath.empty())
    libs.push_back(runtimePath);
  if (llvm::Error err = runner::lowerAndCompile(module, /*gpu=*/true, "CUDA",
                                                build, libs, *exe->impl))
    return std::move(err);

  // The kernels are loaded by the module's constructors on the current
  // device: select it first.
  if (mxfp8rtSetDevice(options.gpu) != MXFP8RT_SUCCESS)
    return llvm::createStringError("selecting GPU " +
                                   std::to_string(options.gpu) + ": " +
                                   getRuntimeError("unknown error"));
  mxfp8rtClearLastError();
  exe->impl->engine->initialize();
  if (const char *e = mxfp8rtGetLastError(); e && *e)
    return llvm::createStringError(
        std::string("loading the GPU kernels failed: ") + e);
  return exe;
}

namespace {
/// Device buffers and events of one call, released on every path.
struct DeviceState {
  std::vector<void *> buffers;
  mxfp8rtEvent events[2] = {nullptr, nullptr};
  ~DeviceState() {
    for (void *p : buffers)
      (void)mxfp8rtMemFree(p);
    for (mxfp8rtEvent e : events)
      if (e)
        (void)mxfp8rtEventDestroy(e);
  }
};
} // namespace

llvm::Expected<std::vector<HostTensor>>
CUDAExecutable::run(StringRef name, ArrayRef<HostTensor> inputs,
                    double *callSeconds) const {
  llvm::Expected<FunctionType> found = impl->getFunctionType(name);
  if (!found)
    return found.takeError();
  FunctionType type = *found;
  if (llvm::Error err = runner::checkInputs(name, type, inputs))
    return std::move(err);
  auto cudaError = [&](StringRef what) {
    return llvm::createStringError(what.str() + ": " +
                                   getRuntimeError("unknown error"));
  };
  DeviceState state;
  std::vector<HostTensor> results;
  std::vector<std::vector<int64_t>> descriptors;
  auto addBuffer = [&](const HostTensor &t, bool copyIn) -> llvm::Error {
    // One byte at least: a zero-size allocation is an error in CUDA.
    intptr_t size = std::max<intptr_t>(1, intptr_t(t.bytes.size()));
    void *p = nullptr;
    if (mxfp8rtMemAlloc(size, &p) != MXFP8RT_SUCCESS)
      return cudaError("allocating " + std::to_string(size) +
                       " bytes on the GPU");
    state.buffers.push_back(p);
    mxfp8rtStatus s = copyIn && !t.bytes.empty()
                          ? mxfp8rtMemcpyHtoD(p, t.bytes.data(),
                                              intptr_t(t.bytes.size()), nullptr)
                          : mxfp8rtMemsetD8(p, 0, size, nullptr);
    if (s != MXFP8RT_SUCCESS)
      return cudaError("copying an input to the GPU");
    descriptors.push_back(
        makeMemRefDescriptor(p, t.shape.data(), t.shape.size()));
    return llvm::Error::success();
  };
  for (const HostTensor &input : inputs) {
    // i1 bytes as the kernels read them (0 or 1): a normalized copy.
    HostTensor booleans;
    if (input.type == HostElementType::I1) {
      booleans = input;
      normalizeBooleans(booleans.type, booleans.bytes.data(),
                        booleans.bytes.size());
    }
    if (llvm::Error err =
            addBuffer(input.type == HostElementType::I1 ? booleans : input,
                      /*copyIn=*/true))
      return std::move(err);
  }
  llvm::Expected<std::vector<HostTensor>> made =
      runner::makeResults(name, type);
  if (!made)
    return made.takeError();
  results = std::move(*made);
  for (const HostTensor &result : results)
    if (llvm::Error err = addBuffer(result, /*copyIn=*/false))
      return std::move(err);
  runner::PackedArguments call = runner::packDescriptors(descriptors);

  for (mxfp8rtEvent &e : state.events)
    if (mxfp8rtEventCreate(&e, /*enableTiming=*/1) != MXFP8RT_SUCCESS)
      return cudaError("creating a CUDA event");
  if (mxfp8rtDeviceSynchronize() != MXFP8RT_SUCCESS)
    return cudaError("synchronizing before the call");
  mxfp8rtClearLastError();
  if (mxfp8rtEventRecord(state.events[0], nullptr) != MXFP8RT_SUCCESS)
    return cudaError("recording a CUDA event");
  if (llvm::Error err = runner::invokeGuarded(*impl->engine, name,
                                              "host CPU (CUDA runner)", call))
    return std::move(err);
  if (mxfp8rtDeviceSynchronize() != MXFP8RT_SUCCESS)
    return cudaError("running '" + name.str() + "' on the GPU");
  if (const char *e = mxfp8rtGetLastError(); e && *e)
    return llvm::createStringError("the GPU runtime reported an error in '" +
                                   name.str() + "': " + e);
  if (mxfp8rtEventRecord(state.events[1], nullptr) != MXFP8RT_SUCCESS ||
      mxfp8rtEventSynchronize(state.events[1]) != MXFP8RT_SUCCESS)
    return cudaError("recording a CUDA event");
  float ms = 0.0f;
  if (mxfp8rtEventElapsedTime(&ms, state.events[0], state.events[1]) !=
      MXFP8RT_SUCCESS)
    return cudaError("timing the call");
  if (callSeconds)
    *callSeconds = ms / 1000.0;

  size_t numInputs = inputs.size();
  for (auto [i, result] : llvm::enumerate(results)) {
    if (result.bytes.empty())
      continue;
    if (mxfp8rtMemcpyDtoH(result.bytes.data(), state.buffers[numInputs + i],
                          intptr_t(result.bytes.size()),
                          nullptr) != MXFP8RT_SUCCESS)
      return cudaError("copying a result back from the GPU");
  }
  if (mxfp8rtDeviceSynchronize() != MXFP8RT_SUCCESS)
    return cudaError("copying the results back from the GPU");
  return results;
}
