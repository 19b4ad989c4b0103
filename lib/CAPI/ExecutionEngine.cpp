//===- ExecutionEngine.cpp - compile and run mxfp8train modules from C ----===//
//
// The C face of Executable (lib/ExecutionEngine):
// host buffers in, host buffers out, errors as text through a callback.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train-c/ExecutionEngine.h"

#include "mxfp8train/ExecutionEngine/CUDARunner.h"
#include "mxfp8train/ExecutionEngine/Executable.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

using namespace mlir;
using namespace mlir::mxfp8train;

static_assert(MXFP8TrainElementBF16 == (int)ElementKind::BF16 &&
                  MXFP8TrainElementF32 == (int)ElementKind::F32 &&
                  MXFP8TrainElementF64 == (int)ElementKind::F64 &&
                  MXFP8TrainElementF8E4M3FN == (int)ElementKind::F8E4M3FN &&
                  MXFP8TrainElementF8E5M2 == (int)ElementKind::F8E5M2 &&
                  MXFP8TrainElementF8E8M0FNU == (int)ElementKind::F8E8M0FNU &&
                  MXFP8TrainElementI32 == (int)ElementKind::I32 &&
                  MXFP8TrainElementI64 == (int)ElementKind::I64 &&
                  MXFP8TrainElementI1 == (int)ElementKind::I1 &&
                  MXFP8TrainElementI8 == (int)ElementKind::I8 &&
                  MXFP8TrainElementI16 == (int)ElementKind::I16 &&
                  MXFP8TrainElementF16 == (int)ElementKind::F16,
              "C element kinds must match ElementKind");

namespace {
/// The storage behind MXFP8TrainResults.
struct Results {
  std::vector<HostTensor> tensors;
};
} // namespace

/// Passes `message` to `onError` when there is one.
static void report(MlirStringCallback onError, void *userData,
                   llvm::StringRef message) {
  if (onError)
    onError(wrap(message), userData);
}

/// Reports `error` (consumed) and returns a null handle of type `T`.
template <typename T>
static T fail(MlirStringCallback onError, void *userData, llvm::Error error) {
  report(onError, userData, llvm::toString(std::move(error)));
  return T{nullptr};
}

static bool isValidKind(MXFP8TrainElementKind kind) {
  return kind >= MXFP8TrainElementBF16 && kind <= MXFP8TrainElementF16;
}

int64_t mxfp8trainElementKindGetSize(MXFP8TrainElementKind kind) {
  return isValidKind(kind) ? getElementKindSize((ElementKind)kind) : 0;
}

MlirStringRef mxfp8trainElementKindGetName(MXFP8TrainElementKind kind) {
  return wrap(llvm::StringRef(
      isValidKind(kind) ? getElementKindName((ElementKind)kind) : ""));
}

MXFP8TrainCompileOptions mxfp8trainCompileOptionsGetDefault(void) {
  MXFP8TrainCompileOptions options;
  options.device = MXFP8TrainDeviceCPU;
  options.vectorize = true;
  options.gpu = 0;
  options.chip = mlirStringRefCreate(nullptr, 0);
  options.simpleGemm = false;
  return options;
}

bool mxfp8trainCUDAIsAvailable(int gpu, MlirStringCallback onReason,
                               void *userData) {
  CUDADeviceInfo info = queryCUDADevice(gpu);
  if (!info.available)
    report(onReason, userData, info.reason);
  return info.available;
}

MXFP8TrainExecutable
mxfp8trainExecutableCreate(MlirModule module,
                           const MXFP8TrainCompileOptions *options,
                           MlirStringCallback onError, void *userData) {
  if (mlirModuleIsNull(module)) {
    report(onError, userData, "null module");
    return {nullptr};
  }
  MXFP8TrainCompileOptions given =
      options ? *options : mxfp8trainCompileOptionsGetDefault();
  ExecutableOptions exeOptions;
  exeOptions.vectorize = given.vectorize;
  switch (given.device) {
  case MXFP8TrainDeviceCPU:
    exeOptions.device = ExecutionDevice::CPU;
    break;
  case MXFP8TrainDeviceCUDA: {
    CUDADeviceInfo info = queryCUDADevice(given.gpu);
    if (!info.available) {
      report(onError, userData, "no CUDA GPU: " + info.reason);
      return {nullptr};
    }
    exeOptions.device = ExecutionDevice::CUDA;
    exeOptions.gpu = given.gpu;
    exeOptions.simpleGemm = given.simpleGemm;
    exeOptions.chip = given.chip.length ? unwrap(given.chip).str() : info.chip;
    if (exeOptions.chip.empty()) {
      report(onError, userData,
             "the GPU " + info.name + " (compute capability " +
                 std::to_string(info.major) + "." + std::to_string(info.minor) +
                 ") has no mxfp8train target; give a chip");
      return {nullptr};
    }
    break;
  }
  default:
    report(onError, userData,
           "unknown device " + std::to_string((int)given.device));
    return {nullptr};
  }
  llvm::Expected<std::unique_ptr<Executable>> compiled =
      compileExecutable(unwrap(module), exeOptions);
  if (!compiled)
    return fail<MXFP8TrainExecutable>(onError, userData, compiled.takeError());
  return {compiled->release()};
}

void mxfp8trainExecutableDestroy(MXFP8TrainExecutable exe) {
  delete static_cast<Executable *>(exe.ptr);
}

/// Checks the C buffer `buffer` (input `index`) on its own: kind, rank,
/// shape pointer, dimensions, data pointer.
static llvm::Error checkBuffer(const MXFP8TrainHostBuffer &buffer,
                               intptr_t index) {
  auto error = [&](const llvm::Twine &what) {
    return llvm::createStringError("input " + llvm::Twine(index) + ": " + what);
  };
  if (!isValidKind(buffer.kind))
    return error("unknown element kind " + llvm::Twine((int)buffer.kind));
  if (buffer.rank < 0 || (buffer.rank > 0 && !buffer.shape))
    return error("invalid rank or shape");
  std::optional<int64_t> bytes = mxfp8trainElementKindGetSize(buffer.kind);
  for (int64_t size : llvm::ArrayRef(buffer.shape, buffer.rank)) {
    if (size < 0)
      return error("negative dimension " + llvm::Twine(size));
    bytes = llvm::checkedMul(*bytes, size);
    if (!bytes)
      return error("size overflows int64");
  }
  if (*bytes > 0 && !buffer.data)
    return error("null data");
  return llvm::Error::success();
}

/// Copies the C buffer `buffer` (input `index`), already checked against
/// the function's signature, into a HostTensor.
static llvm::Expected<HostTensor>
toHostTensor(const MXFP8TrainHostBuffer &buffer, intptr_t index) {
  llvm::Expected<HostTensor> tensor = HostTensor::create(
      (ElementKind)buffer.kind, llvm::ArrayRef(buffer.shape, buffer.rank),
      "input " + llvm::Twine(index));
  if (!tensor)
    return tensor.takeError();
  if (!tensor->bytes.empty())
    std::memcpy(tensor->bytes.data(), buffer.data, tensor->bytes.size());
  return tensor;
}

MXFP8TrainResults
mxfp8trainExecutableRun(MXFP8TrainExecutable exe, MlirStringRef function,
                        const MXFP8TrainHostBuffer *inputs, intptr_t numInputs,
                        MlirStringCallback onError, void *userData) {
  auto *executable = static_cast<Executable *>(exe.ptr);
  if (!executable) {
    report(onError, userData, "null executable");
    return {nullptr};
  }
  if (numInputs < 0 || (numInputs > 0 && !inputs)) {
    report(onError, userData, "invalid inputs");
    return {nullptr};
  }
  llvm::StringRef name = unwrap(function);
  // Every buffer is checked against the signature before any is read: a
  // shape that claims more than the caller's buffer holds must not be
  // copied.
  llvm::SmallVector<std::pair<HostElementType, llvm::ArrayRef<int64_t>>> types;
  for (intptr_t i = 0; i < numInputs; ++i) {
    if (llvm::Error err = checkBuffer(inputs[i], i))
      return fail<MXFP8TrainResults>(onError, userData, std::move(err));
    types.emplace_back((ElementKind)inputs[i].kind,
                       llvm::ArrayRef(inputs[i].shape, inputs[i].rank));
  }
  if (llvm::Error err = executable->checkInputTypes(name, types))
    return fail<MXFP8TrainResults>(onError, userData, std::move(err));
  std::vector<HostTensor> tensors;
  for (intptr_t i = 0; i < numInputs; ++i) {
    auto tensor = toHostTensor(inputs[i], i);
    if (!tensor)
      return fail<MXFP8TrainResults>(onError, userData, tensor.takeError());
    tensors.push_back(std::move(*tensor));
  }
  auto results = executable->run(name, tensors);
  if (!results)
    return fail<MXFP8TrainResults>(onError, userData, results.takeError());
  return {new Results{std::move(*results)}};
}

MXFP8TrainResults mxfp8trainRunFunction(
    MlirModule module, const MXFP8TrainCompileOptions *options,
    MlirStringRef function, const MXFP8TrainHostBuffer *inputs,
    intptr_t numInputs, MlirStringCallback onError, void *userData) {
  MXFP8TrainExecutable exe =
      mxfp8trainExecutableCreate(module, options, onError, userData);
  if (mxfp8trainExecutableIsNull(exe))
    return {nullptr};
  MXFP8TrainResults results = mxfp8trainExecutableRun(
      exe, function, inputs, numInputs, onError, userData);
  mxfp8trainExecutableDestroy(exe);
  return results;
}

intptr_t mxfp8trainResultsGetNumResults(MXFP8TrainResults r) {
  return r.ptr ? static_cast<Results *>(r.ptr)->tensors.size() : 0;
}

MXFP8TrainHostBuffer mxfp8trainResultsGetResult(MXFP8TrainResults r,
                                                intptr_t pos) {
  if (!r.ptr)
    return {-1, 0, nullptr, nullptr};
  const std::vector<HostTensor> &tensors =
      static_cast<Results *>(r.ptr)->tensors;
  if (pos < 0 || static_cast<size_t>(pos) >= tensors.size())
    return {-1, 0, nullptr, nullptr};
  const HostTensor &tensor = tensors[pos];
  MXFP8TrainHostBuffer buffer;
  buffer.kind = (MXFP8TrainElementKind)tensor.type;
  buffer.rank = tensor.shape.size();
  buffer.shape = tensor.shape.data();
  buffer.data = tensor.bytes.data();
  return buffer;
}

double mxfp8trainResultsGetElement(MXFP8TrainResults r, intptr_t pos,
                                   int64_t index) {
  if (!r.ptr)
    return std::numeric_limits<double>::quiet_NaN();
  const std::vector<HostTensor> &tensors =
      static_cast<Results *>(r.ptr)->tensors;
  if (pos < 0 || static_cast<size_t>(pos) >= tensors.size() || index < 0 ||
      index >= tensors[pos].getNumElements())
    return std::numeric_limits<double>::quiet_NaN();
  return tensors[pos].getAsDouble(index);
}

void mxfp8trainResultsDestroy(MXFP8TrainResults r) {
  delete static_cast<Results *>(r.ptr);
}
