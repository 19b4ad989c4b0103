//===- MXFP8TrainDialect.h - mxfp8train dialect -----------------*- C++ -*-===//
//
// Declares the mxfp8train dialect class and its enums and attributes.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_DIALECT_MXFP8TRAIN_IR_MXFP8TRAINDIALECT_H
#define MXFP8TRAIN_DIALECT_MXFP8TRAIN_IR_MXFP8TRAINDIALECT_H

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dialect.h"

#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainAttrs.h"

#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainOpsDialect.h.inc"

#endif // MXFP8TRAIN_DIALECT_MXFP8TRAIN_IR_MXFP8TRAINDIALECT_H
