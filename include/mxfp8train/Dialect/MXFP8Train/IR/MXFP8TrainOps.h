//===- MXFP8TrainOps.h - mxfp8train operations --------------------*- C++
//-*-===//
//
// Declares quantize, dequantize, scaled_mm and scaled_grouped_mm.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_DIALECT_MXFP8TRAIN_IR_MXFP8TRAINOPS_H
#define MXFP8TRAIN_DIALECT_MXFP8TRAIN_IR_MXFP8TRAINOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainDialect.h"

#define GET_OP_CLASSES
#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainOps.h.inc"

#endif // MXFP8TRAIN_DIALECT_MXFP8TRAIN_IR_MXFP8TRAINOPS_H
