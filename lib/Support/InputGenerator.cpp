//===- InputGenerator.cpp - mxfp8-run's inputs, no LLVM ---------*- C++ -*-===//
//
// The inputs of mxfp8-run, the compare report, the C API (through
// lib/Runner/Inputs.cpp, which describes an MLIR function's arguments as
// TensorSpecs) and mxfp8-launch (from a manifest): seeded normal samples
// rounded to the element type (bf16 through f32, the others once from the
// f64 sample: f16 to nearest even, fp8 to nearest even saturating), zeros
// for integers and i1, byte 127 (1.0) for e8m0, mxfp8run.values, or .npy
// files.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Support/InputGenerator.h"
#include "mxfp8train/Support/Float.h"
#include "mxfp8train/Support/Npy.h"
#include "mxfp8train/Support/Random.h"

#include <cmath>
#include <cstdio>
#include <cstring>

using namespace mlir::mxfp8train;

bool mlir::mxfp8train::generateInput(const TensorSpec &spec, unsigned index,
                                     uint64_t seed, double defaultStd,
                                     std::vector<uint8_t> &bytes,
                                     std::string &description,
                                     std::string &error) {
  int64_t n = spec.getNumElements();
  size_t itemSize = size_t(getElementKindSize(spec.kind));
  bytes.assign(size_t(n) * itemSize, 0);

  if (spec.hasValues) {
    if (spec.valuesSplat) {
      for (int64_t i = 0; i < n; ++i)
        std::memcpy(bytes.data() + i * itemSize, spec.values.data(), itemSize);
    } else if (spec.values.size() == bytes.size()) {
      std::memcpy(bytes.data(), spec.values.data(), bytes.size());
    } else {
      error = "argument #" + std::to_string(index) + " (" + spec.name +
              "): cannot read mxfp8run.values";
      return false;
    }
    normalizeBooleans(spec.kind, bytes.data(), bytes.size());
    description = "mxfp8run.values";
    return true;
  }

  if (!isFloatKind(spec.kind)) {
    description = "zeros";
    return true;
  }
  if (spec.kind == ElementKind::F8E8M0FNU) {
    std::memset(bytes.data(), 127, bytes.size());
    description = "scale byte 127 (1.0)";
    return true;
  }

  double stddev = spec.hasStd ? spec.std : defaultStd;
  if (!(stddev >= 0.0) || std::isinf(stddev)) {
    error = "argument #" + std::to_string(index) + " (" + spec.name +
            "): the standard deviation must be finite and >= 0";
    return false;
  }
  uint64_t streamSeed = mixSeed(seed, index);
  uint8_t *raw = bytes.data();
  switch (spec.kind) {
  case ElementKind::BF16:
    fillNormal(streamSeed, n, [&](int64_t i, double x) {
      uint16_t bits = convertFloatToBF16Bits(float(x * stddev));
      std::memcpy(raw + 2 * i, &bits, 2);
    });
    break;
  case ElementKind::F16:
    fillNormal(streamSeed, n, [&](int64_t i, double x) {
      uint16_t bits = convertDoubleToF16Bits(x * stddev);
      std::memcpy(raw + 2 * i, &bits, 2);
    });
    break;
  case ElementKind::F32:
    fillNormal(streamSeed, n, [&](int64_t i, double x) {
      float value = float(x * stddev);
      std::memcpy(raw + 4 * i, &value, 4);
    });
    break;
  case ElementKind::F64:
    fillNormal(streamSeed, n, [&](int64_t i, double x) {
      double value = x * stddev;
      std::memcpy(raw + 8 * i, &value, 8);
    });
    break;
  case ElementKind::F8E4M3FN:
    fillNormal(streamSeed, n, [&](int64_t i, double x) {
      raw[i] = convertDoubleToF8E4M3FNBits(x * stddev);
    });
    break;
  case ElementKind::F8E5M2:
    fillNormal(streamSeed, n, [&](int64_t i, double x) {
      raw[i] = convertDoubleToF8E5M2Bits(x * stddev);
    });
    break;
  default:
    break;
  }
  char text[64];
  std::snprintf(text, sizeof(text), "normal(0, %g)", stddev);
  description = text;
  return true;
}

bool mlir::mxfp8train::readInput(const TensorSpec &spec, unsigned index,
                                 const std::string &path,
                                 std::vector<uint8_t> &bytes,
                                 std::string &error) {
  std::string what = "--input #" + std::to_string(index) + " ('" + path +
                     "') for argument " + spec.name;
  NpyArray array;
  if (!readNpy(path, array, error))
    return false;
  if (array.shape != spec.shape) {
    std::string shape;
    for (int64_t d : array.shape)
      shape += (shape.empty() ? "" : "x") + std::to_string(d);
    error =
        what + ": shape (" + shape + ") does not match " + spec.formatType();
    return false;
  }
  std::string expected = getNpyDescrForKind(spec.kind, false);
  if (spec.kind == ElementKind::BF16) {
    if (array.descr == "<u2") {
      bytes = std::move(array.data);
      return true;
    }
    if (array.descr == "<f4") {
      int64_t n = spec.getNumElements();
      bytes.assign(size_t(n) * 2, 0);
      for (int64_t i = 0; i < n; ++i) {
        float value;
        std::memcpy(&value, array.data.data() + 4 * i, 4);
        uint16_t bits = convertFloatToBF16Bits(value);
        std::memcpy(bytes.data() + 2 * i, &bits, 2);
      }
      return true;
    }
    error = what + ": dtype '" + array.descr + "' does not match " +
            spec.formatType() +
            " (expected '<u2' bf16 bit patterns or '<f4' float32)";
    return false;
  }
  if (array.descr != expected) {
    error = what + ": dtype '" + array.descr + "' does not match " +
            spec.formatType() + " (expected '" + expected + "')";
    return false;
  }
  bytes = std::move(array.data);
  normalizeBooleans(spec.kind, bytes.data(), bytes.size());
  return true;
}
