//===- Passes.h - mxfp8train lowering passes --------------------*- C++ -*-===//
//
// Declares the lowering passes and pipelines of the mxfp8train dialect.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_CONVERSION_PASSES_H
#define MXFP8TRAIN_CONVERSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include "mxfp8train/Conversion/MXFP8TrainToLinalg/MXFP8TrainToLinalg.h"
#include "mxfp8train/Conversion/ShardToRuntime/ShardToRuntime.h"

namespace mlir::mxfp8train {

#define GEN_PASS_DECL
#include "mxfp8train/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "mxfp8train/Conversion/Passes.h.inc"

} // namespace mlir::mxfp8train

#endif // MXFP8TRAIN_CONVERSION_PASSES_H
