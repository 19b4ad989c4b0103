//===- Conversion.h - the MXFP8 conversion of a module ----------*- C++ -*-===//
//
// What the compare mode converts and how it counts the result: the recipe
// (MX or Float8: a torchao name, a recipe body or attribute), the
// conversion pipeline (lower-narrow-float-arith, rewrite-matmuls,
// canonicalize, cse, or a user pipeline) run on a clone, and a summary of
// the matmuls before and after, with the rewrite's remarks.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_RUNNER_CONVERSION_H
#define MXFP8TRAIN_RUNNER_CONVERSION_H

#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainAttrs.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <map>
#include <string>

namespace mlir::mxfp8train {

/// Parses a recipe, MX or Float8, as the rewrite's `recipe` option does
/// (parseTrainingRecipeOption): a torchao recipe name (`mxfp8_rceil`,
/// `float8_rowwise`, ...), the body of a `#mxfp8train.recipe<...>` or
/// `#mxfp8train.float8_recipe<...>`, or the whole attribute. Loads the
/// dialect.
llvm::Expected<RecipeAttrInterface> parseRecipe(MLIRContext *context,
                                                llvm::StringRef text);

/// True for an op that performs a quantized GEMM in a converted module: a
/// scaled (grouped) matmul, or (EMULATED recipes) a matmul reading a
/// dequantized operand.
bool isQuantizedGemm(Operation *op);

/// Number of linalg contractions (matmuls in any form) and grouped_mm ops
/// under `root`.
int64_t countMatmuls(Operation *root);

/// What the conversion did, counted on the IR.
struct ConversionSummary {
  /// The pipeline that ran, as text.
  std::string pipeline;
  int64_t matmulsBefore = 0;
  /// Matmuls left in high precision (not reading dequantized operands),
  /// and how many of them the rewrite skipped (its remarks say why) rather
  /// than kept by the recipe.
  int64_t keptHighPrecision = 0;
  int64_t skipped = 0;
  /// scaled_mm / scaled_grouped_mm ops, in total and by mxfp8train.role.
  int64_t scaledMms = 0;
  std::map<std::string, int64_t> scaledByRole;
  /// EMULATED recipes: matmuls on dequantized operands, by role.
  int64_t emulated = 0;
  std::map<std::string, int64_t> emulatedByRole;
  /// The remarks of the passes, as "location: message".
  SmallVector<std::string> remarks;
};

/// Runs `pm` on `module`, collecting remarks into `remarks` (as
/// "location: message"); other diagnostics go to the context's handlers.
LogicalResult runPassesCollectingRemarks(PassManager &pm, ModuleOp module,
                                         SmallVectorImpl<std::string> &remarks);

/// Clones `module` and converts the clone: with `pipeline` (textual; a
/// `builtin.module(...)` anchor is optional) when not empty, else the
/// rewrite with `recipe` followed by canonicalize and cse. `sourceName`
/// names the module in errors.
llvm::Expected<OwningOpRef<ModuleOp>>
convertModule(ModuleOp module, llvm::StringRef recipe, llvm::StringRef pipeline,
              llvm::StringRef sourceName, ConversionSummary &summary);

} // namespace mlir::mxfp8train

#endif // MXFP8TRAIN_RUNNER_CONVERSION_H
