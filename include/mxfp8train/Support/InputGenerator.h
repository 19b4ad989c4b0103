//===- InputGenerator.h - mxfp8-run's inputs, no LLVM -----------*- C++ -*-===//
//
// The generated and .npy inputs of mxfp8-run (docs/mxfp8-run.md, "Inputs"),
// for programs without MLIR: argument `i` of a function gets the same bytes
// here as in mxfp8-run for the same seed and standard deviation. Standard C++
// only (Random.h, Float.h).
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_SUPPORT_INPUTGENERATOR_H
#define MXFP8TRAIN_SUPPORT_INPUTGENERATOR_H

#include "mxfp8train/Support/Manifest.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::mxfp8train {

/// Generates argument `index` described by `spec` into `bytes` (resized):
/// `mxfp8run.values` if present; integers zero; e8m0 scales byte 127; floats
/// normal(0, std) from the stream mixSeed(seed, index), with std from
/// `mxfp8run.std` or `defaultStd`, rounded as mxfp8-run rounds (f32, then
/// bf16 RNE; fp8 RNE saturating). `description` gets mxfp8-run's wording
/// (`normal(0, 0.02)`, `zeros`, ...). Returns false with `error` for an
/// invalid standard deviation.
bool generateInput(const TensorSpec &spec, unsigned index, uint64_t seed,
                   double defaultStd, std::vector<uint8_t> &bytes,
                   std::string &description, std::string &error);

/// Reads argument `index` from the .npy file `path` with mxfp8-run's rules:
/// the shape must match; bf16 accepts `<u2` bits or `<f4` (rounded to
/// nearest even), the other kinds their own descriptor only.
bool readInput(const TensorSpec &spec, unsigned index, const std::string &path,
               std::vector<uint8_t> &bytes, std::string &error);

} // namespace mlir::mxfp8train

#endif // MXFP8TRAIN_SUPPORT_INPUTGENERATOR_H
