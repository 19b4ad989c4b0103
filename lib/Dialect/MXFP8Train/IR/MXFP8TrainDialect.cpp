//===- MXFP8TrainDialect.cpp - mxfp8train dialect registration --*- C++ -*-===//
//
// Registers the ops and attributes of the mxfp8train dialect and verifies
// its discardable attributes (`mxfp8train.*` on any op).
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainDialect.h"
#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainOps.h"

#include "mlir/IR/BuiltinOps.h"

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

LogicalResult MXFP8TrainDialect::verifyOperationAttribute(Operation *op,
                                                          NamedAttribute attr) {
  StringRef name = attr.getName().strref();
  if (name == GemmConfigAttr::getAttrName()) {
    if (!isa<GemmConfigAttr>(attr.getValue()))
      return op->emitOpError()
             << "'" << name << "' must be a #mxfp8train.gemm_config, found "
             << attr.getValue();
    if (!isa<ScaledMmOp, ScaledGroupedMmOp>(op))
      return op->emitOpError() << "'" << name
                               << "' applies to mxfp8train.scaled_mm and "
                                  "mxfp8train.scaled_grouped_mm only";
    return success();
  }
  // Set by mxfp8train-rewrite-matmuls on the module it converted
  // (Transforms/ConvertedRecipe.h), read by the tools for its SQNR bars.
  if (name == "mxfp8train.recipe") {
    if (!isa<RecipeAttrInterface>(attr.getValue()))
      return op->emitOpError()
             << "'" << name << "' must be a training recipe, found "
             << attr.getValue();
    if (!isa<ModuleOp>(op))
      return op->emitOpError()
             << "'" << name << "' applies to builtin.module only";
    return success();
  }
  // torchao's use_fast_accum of a Float8 GEMM (Transforms.h:
  // kUseFastAccumAttrName), set by mxfp8train-rewrite-matmuls and read by
  // the sm_90a Float8 kernel.
  if (name == "mxfp8train.use_fast_accum") {
    if (!isa<BoolAttr>(attr.getValue()))
      return op->emitOpError()
             << "'" << name << "' must be a bool, found " << attr.getValue();
    bool float8 = false;
    if (auto mm = dyn_cast<ScaledMmOp>(op))
      float8 = mm.isFloat8();
    else if (auto gmm = dyn_cast<ScaledGroupedMmOp>(op))
      float8 = gmm.isFloat8();
    if (!float8)
      return op->emitOpError()
             << "'" << name
             << "' applies to Float8 mxfp8train.scaled_mm and "
                "mxfp8train.scaled_grouped_mm only (MX GEMMs accumulate "
                "in f32)";
    return success();
  }
  // Read (and their values checked) by mxfp8train-rewrite-matmuls
  // (Transforms.h: kMatmulRoleAttrName, kGradOutputAttrName,
  // kOffsAlignmentAttrName).
  if (name == "mxfp8train.role" || name == "mxfp8train.grad_output" ||
      name == "mxfp8train.offs_alignment")
    return success();
  return op->emitOpError()
         << "has unknown discardable attribute '" << name
         << "' (expected mxfp8train.gemm_config, mxfp8train.role, "
            "mxfp8train.grad_output, mxfp8train.offs_alignment, "
            "mxfp8train.recipe or mxfp8train.use_fast_accum)";
}
