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
#include "llvm/Support/TargetSelect.h"

#include <cstdlib>

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
  if (isa<Float8E4M3FNType>(t))
    return HostElementType::F8E4M3FN;
  if (isa<Float8E5M2Type>(t))
    return HostElementType::F8E5M2;
  if (isa<Float8E8M0FNUType>(t))
    return HostElementType::F8E8M0FNU;
  if (t.isSignlessInteger(32))
    return HostElementType::I32;
  if (t.isSignlessInteger(64) || t.isIndex())
    return HostElementType::I64;
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "element type " << t << " is not supported on the host side";
  return llvm::createStringError(s);
}

HostTensor::HostTensor(HostElementType type, ArrayRef<int64_t> shape)
    : type(type), shape(shape) {
  bytes.assign(getNumElements() * getHostElementSize(type), 0);
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

Executable::~Executable() = default;

CPUExecutable::CPUExecutable()
    : Executable(ExecutionDevice::CPU), impl(std::make_unique<Impl>()) {}
CPUExecutable::~CPUExecutable() = default;

llvm::Expected<std::unique_ptr<CPUExecutable>>
CPUExecutable::compile(ModuleOp module, bool vectorize) {
  std::unique_ptr<CPUExecutable> exe(new CPUExecutable());
  auto build = [&](OpPassManager &pm) {
    CPUPipelineOptions options;
    options.vectorize = vectorize;
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
  auto it = impl->signatures.find(name);
  if (it == impl->signatures.end())
    return llvm::createStringError("no public function named '" + name.str() +
                                   "' with a body in the module");
  return it->second;
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
  // Inputs are passed by descriptor; the callee must not write them, but
  // copy anyway so that a const input can never be modified.
  std::vector<HostTensor> args(inputs.begin(), inputs.end());
  std::vector<HostTensor> results = runner::makeResults(*type);
  std::vector<std::vector<int64_t>> descriptors;
  for (HostTensor &t : args)
    descriptors.push_back(
        makeMemRefDescriptor(t.bytes.data(), t.shape.data(), t.shape.size()));
  for (HostTensor &t : results)
    descriptors.push_back(
        makeMemRefDescriptor(t.bytes.data(), t.shape.data(), t.shape.size()));
  runner::PackedArguments call = runner::packDescriptors(descriptors);
  if (llvm::Error err =
          impl->engine->invokePacked("_mlir_ciface_" + name.str(), call.packed))
    return std::move(err);
  return results;
}
