//===- Inputs.cpp - the inputs of a run, generated or read ----------------===//
//
// Generated inputs: the normal stream mixSeed(seed, index) (Random.h),
// scaled by the standard deviation and rounded to the element type (bf16
// through f32; fp8 to nearest even, saturating). The AOT launcher generates
// the same bytes from a manifest (Support/InputGenerator.h).
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Runner/Inputs.h"
#include "mxfp8train/Support/Float.h"
#include "mxfp8train/Support/Npy.h"
#include "mxfp8train/Support/Random.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>
#include <cstring>

using namespace mlir;
using namespace mlir::mxfp8train;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(message);
}

/// The semantics of an fp8 host type, for APFloat conversions.
static const llvm::fltSemantics &getFloat8Semantics(HostElementType type) {
  switch (type) {
  case HostElementType::F8E5M2:
    return llvm::APFloat::Float8E5M2();
  case HostElementType::F8E8M0FNU:
    return llvm::APFloat::Float8E8M0FNU();
  default:
    return llvm::APFloat::Float8E4M3FN();
  }
}

llvm::Expected<HostTensor>
mlir::mxfp8train::generateInput(const Signature &sig, unsigned index,
                                uint64_t seed, double defaultStd,
                                std::string &description) {
  RankedTensorType type = sig.argTypes[index];
  HostElementType hostType = sig.argHostTypes[index];
  HostTensor tensor(hostType, type.getShape());
  int64_t n = tensor.getNumElements();
  llvm::raw_string_ostream desc(description);
  std::string what =
      "argument #" + std::to_string(index) + " (" + sig.argNames[index] + ")";

  if (Attribute attr = sig.func.getArgAttr(index, "mxfp8run.values")) {
    auto dense = dyn_cast<DenseElementsAttr>(attr);
    if (!dense || dense.getType() != type)
      return makeError(what +
                       ": mxfp8run.values must be a dense elements attribute "
                       "of type " +
                       formatTensorType(type));
    ArrayRef<char> raw = dense.getRawData();
    size_t itemSize = size_t(getHostElementSize(hostType));
    if (dense.isSplat()) {
      for (int64_t i = 0; i < n; ++i)
        std::memcpy(tensor.bytes.data() + i * itemSize, raw.data(), itemSize);
    } else if (raw.size() == tensor.bytes.size()) {
      std::memcpy(tensor.bytes.data(), raw.data(), raw.size());
    } else {
      return makeError(what + ": cannot read mxfp8run.values");
    }
    desc << "mxfp8run.values";
    return tensor;
  }

  switch (hostType) {
  case HostElementType::I32:
  case HostElementType::I64:
    desc << "zeros";
    return tensor;
  case HostElementType::F8E8M0FNU:
    std::memset(tensor.bytes.data(), 127, tensor.bytes.size());
    desc << "scale byte 127 (1.0)";
    return tensor;
  default:
    break;
  }

  double stddev = defaultStd;
  if (Attribute attr = sig.func.getArgAttr(index, "mxfp8run.std")) {
    if (auto f = dyn_cast<FloatAttr>(attr))
      stddev = f.getValueAsDouble();
    else if (auto i = dyn_cast<IntegerAttr>(attr))
      stddev = double(i.getInt());
    else
      return makeError(what + ": mxfp8run.std must be a number");
  }
  if (!(stddev >= 0.0) || std::isinf(stddev))
    return makeError(what + ": the standard deviation must be finite and >= 0");
  uint64_t streamSeed = mixSeed(seed, index);
  switch (hostType) {
  case HostElementType::BF16: {
    uint16_t *data = tensor.data<uint16_t>();
    fillNormal(streamSeed, n, [&](int64_t i, double x) {
      data[i] = convertFloatToBF16Bits(float(x * stddev));
    });
    break;
  }
  case HostElementType::F32: {
    float *data = tensor.data<float>();
    fillNormal(streamSeed, n,
               [&](int64_t i, double x) { data[i] = float(x * stddev); });
    break;
  }
  case HostElementType::F64: {
    double *data = tensor.data<double>();
    fillNormal(streamSeed, n,
               [&](int64_t i, double x) { data[i] = x * stddev; });
    break;
  }
  default: {
    // fp8 elements: round to nearest even, saturating to the largest finite
    // value (the formats have no infinity to overflow to).
    const llvm::fltSemantics &sem = getFloat8Semantics(hostType);
    llvm::APFloat maxValue = llvm::APFloat::getLargest(sem);
    double limit = maxValue.convertToDouble();
    uint8_t *data = tensor.data<uint8_t>();
    fillNormal(streamSeed, n, [&](int64_t i, double x) {
      double v = std::fmax(-limit, std::fmin(limit, x * stddev));
      llvm::APFloat f(v);
      bool lost;
      f.convert(sem, llvm::APFloat::rmNearestTiesToEven, &lost);
      data[i] = uint8_t(f.bitcastToAPInt().getZExtValue());
    });
    break;
  }
  }
  desc << "normal(0, " << llvm::format("%g", stddev) << ")";
  return tensor;
}

llvm::Expected<HostTensor> mlir::mxfp8train::readInput(const Signature &sig,
                                                       unsigned index,
                                                       StringRef path) {
  RankedTensorType type = sig.argTypes[index];
  HostElementType hostType = sig.argHostTypes[index];
  std::string what = "--input #" + std::to_string(index) + " ('" + path.str() +
                     "') for argument " + sig.argNames[index];
  NpyArray array;
  std::string error;
  if (!readNpy(path.str(), array, error))
    return makeError(error);
  if (ArrayRef<int64_t>(array.shape) != type.getShape()) {
    std::string shape;
    for (int64_t d : array.shape)
      shape += (shape.empty() ? "" : "x") + std::to_string(d);
    return makeError(what + ": shape (" + shape + ") does not match " +
                     formatTensorType(type));
  }
  HostTensor tensor(hostType, type.getShape());
  std::string expected = getNpyDescrForKind(hostType, false);
  if (hostType == HostElementType::BF16) {
    if (array.descr == "<u2") {
      std::memcpy(tensor.bytes.data(), array.data.data(), array.data.size());
      return tensor;
    }
    if (array.descr == "<f4") {
      const auto *src = reinterpret_cast<const float *>(array.data.data());
      uint16_t *dst = tensor.data<uint16_t>();
      for (int64_t i = 0, n = tensor.getNumElements(); i < n; ++i)
        dst[i] = convertFloatToBF16Bits(src[i]);
      return tensor;
    }
    return makeError(what + ": dtype '" + array.descr + "' does not match " +
                     formatTensorType(type) +
                     " (expected '<u2' bf16 bit patterns or '<f4' float32)");
  }
  if (array.descr != expected)
    return makeError(what + ": dtype '" + array.descr + "' does not match " +
                     formatTensorType(type) + " (expected '" + expected + "')");
  std::memcpy(tensor.bytes.data(), array.data.data(), array.data.size());
  return tensor;
}

llvm::Expected<PreparedInputs>
mlir::mxfp8train::prepareInputs(const Signature &sig,
                                const InputOptions &options) {
  size_t numArgs = sig.argTypes.size();
  if (!options.files.empty() && options.files.size() != numArgs)
    return makeError("got " + llvm::Twine(options.files.size()) +
                     " --input files but @" + sig.func.getSymName() + " has " +
                     llvm::Twine(numArgs) + " arguments");
  using Clock = std::chrono::steady_clock;
  Clock::time_point start = Clock::now();
  PreparedInputs inputs;
  for (unsigned i = 0; i < numArgs; ++i) {
    std::string description;
    llvm::Expected<HostTensor> tensor = HostTensor();
    if (!options.files.empty()) {
      tensor = readInput(sig, i, options.files[i]);
      description = options.files[i];
    } else {
      tensor =
          generateInput(sig, i, options.seed, options.defaultStd, description);
    }
    if (!tensor)
      return tensor.takeError();
    inputs.tensors.push_back(std::move(*tensor));
    inputs.descriptions.push_back(std::move(description));
  }
  inputs.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return inputs;
}
