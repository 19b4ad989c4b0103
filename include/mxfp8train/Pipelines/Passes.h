//===- Passes.h - passes of the lowering pipelines --------------*- C++ -*-===//
//
// Declares the passes used by the CPU and GPU lowering pipelines (Passes.td):
// CPU code generation, the host interface of public functions, input checks
// and narrow-float arithmetic.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_PIPELINES_PASSES_H
#define MXFP8TRAIN_PIPELINES_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::mxfp8train {

#define GEN_PASS_DECL
#include "mxfp8train/Pipelines/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "mxfp8train/Pipelines/Passes.h.inc"

} // namespace mlir::mxfp8train

#endif // MXFP8TRAIN_PIPELINES_PASSES_H
