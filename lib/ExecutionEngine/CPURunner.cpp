//===- CPURunner.cpp - run mxfp8train modules on the CPU -----------*- C++
//-*-===//
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

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/TargetSelect.h"

#include <cmath>
#include <cstdlib>
#include <cstring>

using namespace mlir;
using namespace mlir::mxfp8train;

int64_t mlir::mxfp8train::getHostElementSize(HostElementType type) {
  switch (type) {
  case HostElementType::BF16:
    return 2;
  case HostElementType::F32:
  case HostElementType::I32:
    return 4;
  case HostElementType::F64:
  case HostElementType::I64:
    return 8;
  case HostElementType::F8E4M3FN:
  case HostElementType::F8E5M2:
  case HostElementType::F8E8M0FNU:
    return 1;
  }
  llvm_unreachable("unknown host element type");
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

/// Decodes an fp8 byte with `mbits` mantissa bits and exponent `bias`;
/// `e4m3fn` has no infinities and NaN only at S.1111.111.
static double decodeFp8(uint8_t b, int mbits, int bias, bool e4m3fn) {
  int ebits = 7 - mbits;
  double sign = (b & 0x80) ? -1.0 : 1.0;
  int e = (b >> mbits) & ((1 << ebits) - 1);
  int m = b & ((1 << mbits) - 1);
  if (e4m3fn && e == 15 && m == 7)
    return NAN;
  if (!e4m3fn && e == (1 << ebits) - 1)
    return m ? NAN : sign * INFINITY;
  if (e == 0)
    return sign * std::ldexp(m, 1 - bias - mbits);
  return sign * std::ldexp((1 << mbits) + m, e - bias - mbits);
}

double HostTensor::getAsDouble(int64_t i) const {
  switch (type) {
  case HostElementType::BF16: {
    uint32_t bits = uint32_t(data<uint16_t>()[i]) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  case HostElementType::F32:
    return data<float>()[i];
  case HostElementType::F64:
    return data<double>()[i];
  case HostElementType::F8E4M3FN:
    return decodeFp8(data<uint8_t>()[i], 3, 7, true);
  case HostElementType::F8E5M2:
    return decodeFp8(data<uint8_t>()[i], 2, 15, false);
  case HostElementType::F8E8M0FNU: {
    uint8_t b = data<uint8_t>()[i];
    return b == 255 ? NAN : std::ldexp(1.0, int(b) - 127);
  }
  case HostElementType::I32:
    return data<int32_t>()[i];
  case HostElementType::I64:
    return double(data<int64_t>()[i]);
  }
  llvm_unreachable("unknown host element type");
}

struct CPUExecutable::Impl : runner::JitModule {};

CPUExecutable::CPUExecutable() : impl(std::make_unique<Impl>()) {}
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
CPUExecutable::run(StringRef name, ArrayRef<HostTensor> inputs) const {
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
    descriptors.push_back(runner::makeDescriptor(t.bytes.data(), t.shape));
  for (HostTensor &t : results)
    descriptors.push_back(runner::makeDescriptor(t.bytes.data(), t.shape));
  std::vector<void *> pointers;
  for (std::vector<int64_t> &d : descriptors)
    pointers.push_back(d.data());
  std::vector<void *> packed;
  for (void *&p : pointers)
    packed.push_back(&p);
  if (llvm::Error err =
          impl->engine->invokePacked("_mlir_ciface_" + name.str(), packed))
    return std::move(err);
  return results;
}
