//===- ConvertedRecipe.h - the recipe of a converted module -----*- C++ -*-===//
//
// mxfp8train-rewrite-matmuls records on the module it converts the training
// recipe it used, as the discardable attribute `mxfp8train.recipe`; the
// tools read it back to know which SQNR bars the converted results are held
// to (Runner/Bars.h: MX SPEC §8, Float8 SPEC-float8 §7).
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_DIALECT_MXFP8TRAIN_TRANSFORMS_CONVERTEDRECIPE_H
#define MXFP8TRAIN_DIALECT_MXFP8TRAIN_TRANSFORMS_CONVERTEDRECIPE_H

#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainAttrs.h"

#include "mlir/IR/BuiltinOps.h"

namespace mlir::mxfp8train {

/// Name of the module attribute holding the recipe (a RecipeAttrInterface
/// attribute) that mxfp8train-rewrite-matmuls converted the module with.
inline constexpr llvm::StringLiteral kConvertedRecipeAttrName =
    "mxfp8train.recipe";

/// The recipe `module` was converted with, or null when no
/// mxfp8train-rewrite-matmuls ran on it.
inline RecipeAttrInterface getConvertedRecipe(ModuleOp module) {
  return dyn_cast_or_null<RecipeAttrInterface>(
      module->getAttr(kConvertedRecipeAttrName));
}

} // namespace mlir::mxfp8train

#endif // MXFP8TRAIN_DIALECT_MXFP8TRAIN_TRANSFORMS_CONVERTEDRECIPE_H
