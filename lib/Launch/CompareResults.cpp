//===- CompareResults.cpp - compare and save AOT results ------------------===//
//
// Implements CompareResults.h.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Launch/CompareResults.h"

#include "mxfp8train/Support/Npy.h"

#include <cmath>
#include <limits>

using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::launch;

LaunchError mlir::mxfp8train::launch::writeTensorNpy(const std::string &path,
                                                     const TensorSpec &spec,
                                                     const uint8_t *data,
                                                     bool bf16AsFloat32) {
  std::string error;
  bool ok;
  if (spec.kind == ElementKind::BF16 && bf16AsFloat32) {
    int64_t n = spec.getNumElements();
    std::vector<float> widened(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i)
      widened[size_t(i)] = float(decodeElement(spec.kind, data, i));
    ok = writeNpy(path, "<f4", spec.shape, widened.data(), widened.size() * 4,
                  error);
  } else {
    ok = writeNpy(path, getNpyDescrForKind(spec.kind, false), spec.shape, data,
                  size_t(spec.getNumBytes()), error);
  }
  if (!ok)
    return makeLaunchError(LaunchErrorKind::BadInput, error);
  return {};
}

ValueSummary mlir::mxfp8train::launch::summarizeValues(const TensorSpec &spec,
                                                       const uint8_t *data) {
  double sq = 0.0, maxAbs = 0.0;
  for (int64_t k = 0, n = spec.getNumElements(); k < n; ++k) {
    double v = decodeElement(spec.kind, data, k);
    sq += v * v;
    maxAbs = std::isnan(v) || std::isnan(maxAbs)
                 ? std::numeric_limits<double>::quiet_NaN()
                 : std::fmax(maxAbs, std::fabs(v));
  }
  return {std::sqrt(sq), maxAbs};
}

TensorComparison mlir::mxfp8train::launch::compareTensorData(
    const TensorSpec &spec, const uint8_t *ref, const uint8_t *out) {
  TensorComparison c;
  ErrorAccumulator accumulator;
  int64_t size = getElementKindSize(spec.kind);
  bool isFloat = isFloatKind(spec.kind);
  for (int64_t i = 0, n = spec.getNumElements(); i < n; ++i) {
    double r = decodeElement(spec.kind, ref, i);
    double o = decodeElement(spec.kind, out, i);
    if (isFloat && std::isnan(r) && std::isnan(o))
      continue;
    int64_t differing = 0;
    for (int64_t b = 0; b < size; ++b)
      differing += ref[i * size + b] != out[i * size + b];
    c.differingBytes += differing;
    c.differingElements += differing != 0;
    accumulator.add(r, o);
  }
  c.stats = accumulator.get();
  return c;
}

ResultsComparison
mlir::mxfp8train::launch::compareResults(const FunctionSpec &spec,
                                         const std::vector<HostBuffer> &ref,
                                         const std::vector<HostBuffer> &out) {
  ResultsComparison all;
  all.minSqnrDb = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < spec.results.size(); ++i) {
    TensorComparison c =
        compareTensorData(spec.results[i], ref[i].data(), out[i].data());
    all.numDifferent += !c.isBitExact();
    if (!std::isnan(all.minSqnrDb) &&
        (std::isnan(c.stats.sqnrDb) || c.stats.sqnrDb < all.minSqnrDb))
      all.minSqnrDb = c.stats.sqnrDb;
    if (!std::isnan(all.maxAbsError) && (std::isnan(c.stats.maxAbsError) ||
                                         c.stats.maxAbsError > all.maxAbsError))
      all.maxAbsError = c.stats.maxAbsError;
    all.results.push_back(c);
  }
  return all;
}

std::vector<MatmulProbe> mlir::mxfp8train::launch::getMatmulProbes(
    const FunctionSpec &spec, const std::vector<HostBuffer> &results) {
  std::vector<MatmulProbe> probes;
  const std::string prefix = "matmul_";
  for (size_t i = 0; i + 1 < spec.results.size(); ++i) {
    const TensorSpec &hp = spec.results[i];
    const TensorSpec &mx = spec.results[i + 1];
    if (hp.role != "matmul_hp" || mx.role.rfind(prefix, 0) != 0 ||
        mx.role == "matmul_hp")
      continue;
    MatmulProbe probe;
    probe.index = i;
    probe.role = mx.role.substr(prefix.size());
    probe.comparison =
        compareTensorData(hp, results[i].data(), results[i + 1].data());
    probe.hasBar = mx.hasBar;
    probe.barDb = mx.bar;
    probe.passes = !mx.hasBar || probe.comparison.stats.sqnrDb >= mx.bar;
    probes.push_back(std::move(probe));
    ++i;
  }
  return probes;
}
