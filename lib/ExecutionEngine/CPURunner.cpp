//===- CPURunner.cpp - run mxfp8train modules on the CPU --------*- C++ -*-===//
//
// Lowers a clone of a tensor-level module with the CPU pipeline, JITs it with
// mlir::ExecutionEngine and calls `_mlir_ciface_<name>` with one memref
// descriptor per input and per output (outputs are caller-allocated
// out-parameters, see buildMXFP8TrainCPUPipeline).
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/ExecutionEngine/CPURunner.h"
#include "RunnerSupport.h"
#include "mxfp8train/Pipelines/Pipelines.h"
#include "mxfp8train/Support/MemRefDescriptor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/TargetSelect.h"

#include <cstdlib>
#include <limits>
#include <sys/resource.h>
#include <unistd.h>

using namespace mlir;
using namespace mlir::mxfp8train;

int64_t mlir::mxfp8train::getHostElementSize(HostElementType type) {
  return getElementKindSize(type);
}

llvm::Expected<HostElementType> mlir::mxfp8train::getHostElementType(Type t) {
  if (t.isBF16())
    return HostElementType::BF16;
  if (t.isF32())
    return HostElementType::F32;
  if (t.isF64())
    return HostElementType::F64;
  if (t.isF16())
    return HostElementType::F16;
  if (isa<Float8E4M3FNType>(t))
    return HostElementType::F8E4M3FN;
  if (isa<Float8E5M2Type>(t))
    return HostElementType::F8E5M2;
  if (isa<Float8E8M0FNUType>(t))
    return HostElementType::F8E8M0FNU;
  if (t.isSignlessInteger(1))
    return HostElementType::I1;
  if (t.isSignlessInteger(8))
    return HostElementType::I8;
  if (t.isSignlessInteger(16))
    return HostElementType::I16;
  if (t.isSignlessInteger(32))
    return HostElementType::I32;
  if (t.isSignlessInteger(64) || t.isIndex())
    return HostElementType::I64;
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "element type " << t << " is not supported on the host side";
  return llvm::createStringError(s);
}

bool mlir::mxfp8train::canAllocateHostBytes(int64_t bytes) {
  if (bytes == 0)
    return true;
  if (bytes < 0 || uint64_t(bytes) > std::numeric_limits<size_t>::max())
    return false;
  // Through a volatile: a malloc whose result is only compared with null
  // and freed may be removed by the optimizer (clang does at -O1), and the
  // probe would always succeed.
  void *volatile probe = std::malloc(size_t(bytes));
  if (!probe)
    return false;
  std::free(probe);
  return true;
}

llvm::Expected<int64_t> mlir::mxfp8train::getAllocatableHostBytes(
    HostElementType type, ArrayRef<int64_t> shape, const llvm::Twine &what) {
  std::optional<int64_t> bytes = getHostElementSize(type);
  for (int64_t size : shape) {
    if (size < 0)
      return llvm::createStringError("negative dimension " +
                                     std::to_string(size) + " in " + what);
    if (size == 0)
      return 0;
  }
  for (int64_t size : shape)
    if (bytes)
      bytes = llvm::checkedMul(*bytes, size);
  if (!bytes || !canAllocateHostBytes(*bytes))
    return llvm::createStringError(
        "cannot allocate " +
        (bytes ? std::to_string(*bytes) : std::string("2^63 or more")) +
        " bytes for " + what + " (" +
        formatTensorType(shape.data(), shape.size(), type) + ")");
  return *bytes;
}

HostTensor::HostTensor(HostElementType type, ArrayRef<int64_t> shape)
    : type(type), shape(shape) {
  bytes.assign(getNumElements() * getHostElementSize(type), 0);
}

llvm::Expected<HostTensor> HostTensor::create(HostElementType type,
                                              ArrayRef<int64_t> shape,
                                              const llvm::Twine &what) {
  if (llvm::Error err = getAllocatableHostBytes(type, shape, what).takeError())
    return std::move(err);
  return HostTensor(type, shape);
}

int64_t HostTensor::getNumElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

double HostTensor::getAsDouble(int64_t i) const {
  return decodeElement(type, bytes.data(), i);
}

struct CPUExecutable::Impl : runner::JitModule {};

/// The most bytes one host buffer can have in this process, or 0 (no limit)
/// when unknown: the machine's physical memory, or less when the process's
/// address-space or data-segment limit (`ulimit -v`, `ulimit -d`) is lower.
static int64_t getHostBufferLimitBytes() {
  int64_t limit = 0;
  auto lower = [&](int64_t bytes) {
    if (bytes > 0 && (limit == 0 || bytes < limit))
      limit = bytes;
  };
  long pages = sysconf(_SC_PHYS_PAGES);
  long pageSize = sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && pageSize > 0)
    lower(llvm::checkedMul<int64_t>(pages, pageSize).value_or(0));
  for (int resource : {RLIMIT_AS, RLIMIT_DATA}) {
    struct rlimit rl;
    if (getrlimit(resource, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        rl.rlim_cur <= uint64_t(std::numeric_limits<int64_t>::max()))
      lower(int64_t(rl.rlim_cur));
  }
  return limit;
}

Executable::~Executable() = default;

llvm::Error Executable::checkInputTypes(
    StringRef name,
    ArrayRef<std::pair<HostElementType, ArrayRef<int64_t>>> inputs) const {
  llvm::Expected<FunctionType> type = getFunctionType(name);
  if (!type)
    return type.takeError();
  return runner::checkInputs(name, *type, inputs);
}

CPUExecutable::CPUExecutable()
    : Executable(ExecutionDevice::CPU), impl(std::make_unique<Impl>()) {}
CPUExecutable::~CPUExecutable() = default;

llvm::Expected<std::unique_ptr<CPUExecutable>>
CPUExecutable::compile(ModuleOp module, bool vectorize) {
  std::unique_ptr<CPUExecutable> exe(new CPUExecutable());
  auto build = [&](OpPassManager &pm) {
    CPUPipelineOptions options;
    options.vectorize = vectorize;
    // A buffer larger than the machine's memory (or the process's memory
    // limit) cannot be allocated: the JIT code would write through the null
    // pointer of a failed malloc.
    options.maxBufferBytes = getHostBufferLimitBytes();
    buildMXFP8TrainCPUPipeline(pm, options);
    return llvm::Error::success();
  };
  if (llvm::Error err = runner::lowerAndCompile(module, /*gpu=*/false, "CPU",
                                                build, {}, *exe->impl))
    return std::move(err);
  return exe;
}

llvm::Expected<FunctionType>
CPUExecutable::getFunctionType(StringRef name) const {
  return impl->getFunctionType(name);
}

llvm::Expected<std::vector<HostTensor>>
CPUExecutable::run(StringRef name, ArrayRef<HostTensor> inputs,
                   double *callSeconds) const {
  if (callSeconds)
    *callSeconds = 0.0;
  llvm::Expected<FunctionType> type = getFunctionType(name);
  if (!type)
    return type.takeError();
  if (llvm::Error err = runner::checkInputs(name, *type, inputs))
    return std::move(err);
  llvm::Expected<std::vector<HostTensor>> results =
      runner::makeResults(name, *type);
  if (!results)
    return results.takeError();
  // Inputs are passed by descriptor; the callee must not write them, but
  // copy anyway so that a const input can never be modified.
  std::vector<HostTensor> args(inputs.begin(), inputs.end());
  for (HostTensor &t : args)
    normalizeBooleans(t.type, t.bytes.data(), t.bytes.size());
  std::vector<std::vector<int64_t>> descriptors;
  for (HostTensor &t : args)
    descriptors.push_back(
        makeMemRefDescriptor(t.bytes.data(), t.shape.data(), t.shape.size()));
  for (HostTensor &t : *results)
    descriptors.push_back(
        makeMemRefDescriptor(t.bytes.data(), t.shape.data(), t.shape.size()));
  runner::PackedArguments call = runner::packDescriptors(descriptors);
  if (llvm::Error err = runner::invokeGuarded(*impl->engine, name, "CPU", call))
    return std::move(err);
  return results;
}
