//===- Sqnr.h - signal-to-quantization-noise ratio --------------*- C++ -*-===//
//
// SQNR as torchao computes it (SPEC §8): 20 log10(||ref|| / ||ref - out||),
// accumulated in double, plus the largest absolute error. Used by mxfp8-run's
// compare mode and by numerics tests.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_SUPPORT_SQNR_H
#define MXFP8TRAIN_SUPPORT_SQNR_H

#include <cmath>
#include <cstdint>
#include <limits>

namespace mlir::mxfp8train {

/// Error statistics of `out` against a reference `ref`.
struct ErrorStats {
  /// 20 log10(||ref|| / ||ref - out||) in dB: +inf when the tensors are
  /// equal, NaN when either holds a NaN (or an infinity that does not match).
  double sqnrDb = std::numeric_limits<double>::infinity();
  /// max |ref - out| (NaN under the same conditions as `sqnrDb`).
  double maxAbsError = 0.0;
  /// ||ref||_2 and ||ref - out||_2.
  double refNorm = 0.0;
  double errorNorm = 0.0;
  /// Number of elements compared.
  int64_t count = 0;

  /// Elements were compared and both tensors are all zeros (the +inf dB
  /// compares nothing).
  bool bothAllZero() const {
    return count > 0 && refNorm == 0.0 && errorNorm == 0.0;
  }
};

/// Streams element pairs and computes ErrorStats in double precision.
class ErrorAccumulator {
public:
  /// Adds one pair of elements.
  void add(double ref, double out) {
    ++count;
    if (std::isnan(ref) || std::isnan(out)) {
      sawNaN = true;
      return;
    }
    // Equal values (infinities included) contribute no error.
    double diff = ref == out ? 0.0 : ref - out;
    if (std::isnan(diff) || std::isinf(diff) || std::isinf(ref)) {
      sawNaN = true;
      return;
    }
    refSq += ref * ref;
    errSq += diff * diff;
    maxAbs = std::fmax(maxAbs, std::fabs(diff));
  }

  /// Merges the sums of another accumulator (for parallel reductions).
  void merge(const ErrorAccumulator &other) {
    count += other.count;
    sawNaN |= other.sawNaN;
    refSq += other.refSq;
    errSq += other.errSq;
    maxAbs = std::fmax(maxAbs, other.maxAbs);
  }

  /// The statistics of everything added so far.
  ErrorStats get() const {
    ErrorStats stats;
    stats.count = count;
    if (sawNaN) {
      double nan = std::numeric_limits<double>::quiet_NaN();
      stats.sqnrDb = stats.maxAbsError = stats.refNorm = stats.errorNorm = nan;
      return stats;
    }
    stats.refNorm = std::sqrt(refSq);
    stats.errorNorm = std::sqrt(errSq);
    stats.maxAbsError = maxAbs;
    if (errSq == 0.0)
      stats.sqnrDb = std::numeric_limits<double>::infinity();
    else if (refSq == 0.0)
      stats.sqnrDb = -std::numeric_limits<double>::infinity();
    else
      stats.sqnrDb = 20.0 * std::log10(stats.refNorm / stats.errorNorm);
    return stats;
  }

private:
  int64_t count = 0;
  bool sawNaN = false;
  double refSq = 0.0;
  double errSq = 0.0;
  double maxAbs = 0.0;
};

} // namespace mlir::mxfp8train

#endif // MXFP8TRAIN_SUPPORT_SQNR_H
