//===- RewriteMatmuls.cpp - matmul -> quantize + scaled_mm pass -*- C++ -*-===//
//
// The mxfp8train-rewrite-matmuls pass: a thin driver that parses the recipe
// option and runs rewriteMatmuls (MatmulRewrite.cpp) over the module, then
// folds bf16 truncations of the scaled_mm results into them
// (FoldOutputTruncation.cpp).
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Dialect/MXFP8Train/Transforms/ConvertedRecipe.h"
#include "mxfp8train/Dialect/MXFP8Train/Transforms/Passes.h"
#include "mxfp8train/Dialect/MXFP8Train/Transforms/Transforms.h"

#define DEBUG_TYPE "mxfp8train-rewrite-matmuls"

namespace mlir::mxfp8train {
#define GEN_PASS_DEF_MXFP8TRAINREWRITEMATMULSPASS
#include "mxfp8train/Dialect/MXFP8Train/Transforms/Passes.h.inc"

namespace {
struct RewriteMatmulsPass final
    : impl::MXFP8TrainRewriteMatmulsPassBase<RewriteMatmulsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::string error;
    RecipeAttrInterface parsed =
        parseTrainingRecipeOption(&getContext(), recipe, error);
    if (!parsed) {
      // Not op->emitError: the option, not the module, is wrong.
      emitError(module.getLoc())
          << "mxfp8train-rewrite-matmuls: invalid recipe '" << recipe
          << "': " << error;
      return signalPassFailure();
    }
    if (minSize < 0) {
      emitError(module.getLoc())
          << "mxfp8train-rewrite-matmuls: min-size must be >= 0, got "
          << minSize.getValue();
      return signalPassFailure();
    }
    RewriteMatmulsOptions options;
    options.recipe = parsed;
    options.minSize = minSize;
    options.exclude.assign(exclude.begin(), exclude.end());
    RewriteMatmulsStats stats;
    if (failed(runRewriteMatmuls(module, options, emitRemarks, stats)))
      signalPassFailure();
    numConverted += stats.converted;
    numSkipped += stats.skipped;
    numKeptHighPrecision += stats.keptHighPrecision;
  }
};
} // namespace
} // namespace mlir::mxfp8train

mlir::LogicalResult mlir::mxfp8train::runRewriteMatmuls(
    ModuleOp module, const RewriteMatmulsOptions &options, bool emitRemarks,
    RewriteMatmulsStats &stats, MatmulObserver observe) {
  RecipeAttrInterface recorded = getConvertedRecipe(module);
  LogicalResult result =
      rewriteMatmuls(module, options, emitRemarks, stats, observe);
  // bf16 results straight from the scaled_mm (FoldOutputTruncation.cpp).
  foldOutputTruncations(module);
  if (stats.converted == 0)
    return result;
  // The recipe the module was converted with, for its SQNR bars: one for
  // every GEMM it converted.
  if (recorded && recorded != options.recipe) {
    emitError(module.getLoc())
        << "mxfp8train-rewrite-matmuls: the module records recipe " << recorded
        << " (its " << kConvertedRecipeAttrName
        << ", whose bars mxfp8-run --compare and mxfp8-compile use) and this "
           "run converted "
        << stats.converted << " matmul(s) with " << options.recipe
        << "; convert a module with one recipe";
    return failure();
  }
  module->setAttr(kConvertedRecipeAttrName, options.recipe);
  return result;
}
