//===- MXFP8TrainAttrs.h - mxfp8train enums and attributes ---------*- C++ -*-===//
//
// Scale modes, kernel preference, scale layouts and the recipe attribute.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_DIALECT_MXFP8TRAIN_IR_MXFP8TRAINATTRS_H
#define MXFP8TRAIN_DIALECT_MXFP8TRAIN_IR_MXFP8TRAINATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectImplementation.h"

#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainAttrs.h.inc"

namespace mlir::mxfp8train {

/// Number of elements that share one e8m0 scale (OCP MX block size).
inline constexpr int64_t kBlockSize = 32;

/// Number of bytes of the blocked (`to_blocked`, SPEC §4.1) layout of an
/// `(rows, cols)` scale matrix: `ceil(rows/128)*128 * ceil(cols/4)*4`.
int64_t getBlockedScaleSize(int64_t rows, int64_t cols);

} // namespace mlir::mxfp8train

#endif // MXFP8TRAIN_DIALECT_MXFP8TRAIN_IR_MXFP8TRAINATTRS_H
