//===- MXFP8TrainDialect.cpp - mxfp8train dialect registration ---*- C++
//-*-===//
//
// Registers the ops and attributes of the mxfp8train dialect.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainDialect.h"
#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainOps.h"

using namespace mlir;
using namespace mlir::mxfp8train;

#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainOpsDialect.cpp.inc"

void MXFP8TrainDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainOps.cpp.inc"
      >();
  registerAttributes();
}
