//===- CompareResults.h - compare and save AOT results ----------*- C++ -*-===//
//
// What a launch computes from the results of AOT functions (docs/aot.md):
// the L2 norm and max |x| of a result, the comparison of a result with a
// reference (differing bytes, SQNR, max abs error), the per-matmul probes
// of mxfp8-compile --per-matmul against the bars their manifest records
// (torchao's per-linear bars of the recipe, Runner/Bars.h), and the .npy
// files of tensors. Standard C++ only.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_LAUNCH_COMPARERESULTS_H
#define MXFP8TRAIN_LAUNCH_COMPARERESULTS_H

#include "mxfp8train/Launch/AOTFunction.h"
#include "mxfp8train/Launch/LaunchError.h"
#include "mxfp8train/Support/Manifest.h"
#include "mxfp8train/Support/Sqnr.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::mxfp8train::launch {

/// Writes the tensor `spec` at `data` as .npy: bf16 as its bits (`<u2`), or
/// widened to `<f4` when `bf16AsFloat32`.
LaunchError writeTensorNpy(const std::string &path, const TensorSpec &spec,
                           const uint8_t *data, bool bf16AsFloat32);

/// The L2 norm and max |x| of a tensor (max |x| is NaN when one element is).
struct ValueSummary {
  double l2Norm = 0.0;
  double maxAbs = 0.0;
};

/// The ValueSummary of the tensor `spec` at `data`.
ValueSummary summarizeValues(const TensorSpec &spec, const uint8_t *data);

/// One result against its reference.
struct TensorComparison {
  /// Bytes and elements that differ; an element that is NaN in both counts
  /// as equal, whatever the payloads.
  int64_t differingBytes = 0;
  int64_t differingElements = 0;
  /// SQNR and max abs error of the output against the reference, over the
  /// pairs that are not both NaN.
  ErrorStats stats;

  bool isBitExact() const { return differingBytes == 0; }
};

/// Compares the tensor `spec` at `out` with the same tensor at `ref`.
TensorComparison compareTensorData(const TensorSpec &spec, const uint8_t *ref,
                                   const uint8_t *out);

/// Every result of a function against a reference function's.
struct ResultsComparison {
  /// One per result.
  std::vector<TensorComparison> results;
  /// Results that are not bit-exact.
  size_t numDifferent = 0;
  /// The smallest SQNR and the largest max abs error; NaN (a one-sided
  /// NaN) wins over any number.
  double minSqnrDb = 0.0;
  double maxAbsError = 0.0;
};

/// Compares each result of `spec` in `out` with the one in `ref`.
ResultsComparison compareResults(const FunctionSpec &spec,
                                 const std::vector<HostBuffer> &ref,
                                 const std::vector<HostBuffer> &out);

/// One matmul of a probe function (mxfp8-compile --per-matmul): a result
/// of role `matmul_hp` (the matmul of the step in high precision) followed
/// by one of role `matmul_<role>` (the same matmul converted alone on the
/// same inputs).
struct MatmulProbe {
  /// The index of the high-precision result.
  size_t index = 0;
  /// `forward`, `dgrad` or `wgrad`.
  std::string role;
  /// The converted result against the high-precision one.
  TensorComparison comparison;
  /// The bar the manifest gives the converted result (torchao's per-linear
  /// bar of the role under the probe's recipe), and whether the SQNR
  /// reaches it (true without a bar).
  bool hasBar = false;
  double barDb = 0.0;
  bool passes = false;
};

/// The matmul probes among the results of `spec`, in order.
std::vector<MatmulProbe>
getMatmulProbes(const FunctionSpec &spec,
                const std::vector<HostBuffer> &results);

} // namespace mlir::mxfp8train::launch

#endif // MXFP8TRAIN_LAUNCH_COMPARERESULTS_H
