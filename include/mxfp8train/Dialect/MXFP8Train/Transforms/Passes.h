//===- Passes.h - mxfp8train rewrite passes ---------------------*- C++ -*-===//
//
// Declares the passes that rewrite training graphs into mxfp8train ops.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_DIALECT_MXFP8TRAIN_TRANSFORMS_PASSES_H
#define MXFP8TRAIN_DIALECT_MXFP8TRAIN_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainDialect.h"

namespace mlir::mxfp8train {

#define GEN_PASS_DECL
#include "mxfp8train/Dialect/MXFP8Train/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "mxfp8train/Dialect/MXFP8Train/Transforms/Passes.h.inc"

} // namespace mlir::mxfp8train

#endif // MXFP8TRAIN_DIALECT_MXFP8TRAIN_TRANSFORMS_PASSES_H
