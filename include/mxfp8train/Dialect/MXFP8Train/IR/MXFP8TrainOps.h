//===- MXFP8TrainOps.h - mxfp8train operations ------------------*- C++ -*-===//
//
// Declares quantize, dequantize, scaled_mm, scaled_grouped_mm and the other
// mxfp8train ops (MXFP8TrainOps.td, MoeExchangeOps.td).
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_DIALECT_MXFP8TRAIN_IR_MXFP8TRAINOPS_H
#define MXFP8TRAIN_DIALECT_MXFP8TRAIN_IR_MXFP8TRAINOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainDialect.h"

namespace mlir::mxfp8train {

/// Checks that every ranked tensor operand and result of `op` has a byte size
/// (of its static dimensions) that fits in int64; shapes come from users.
LogicalResult verifyTensorByteSizes(Operation *op);

/// The trait of every mxfp8train op: verifyTensorByteSizes before the op's
/// own verifier, which computes blocked and padded sizes from the shapes.
template <typename ConcreteType>
class TensorByteSizesFitInt64
    : public OpTrait::TraitBase<ConcreteType, TensorByteSizesFitInt64> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return verifyTensorByteSizes(op);
  }
};

} // namespace mlir::mxfp8train

#define GET_OP_CLASSES
#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainOps.h.inc"

#endif // MXFP8TRAIN_DIALECT_MXFP8TRAIN_IR_MXFP8TRAINOPS_H
