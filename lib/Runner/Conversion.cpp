//===- Conversion.cpp - the MXFP8 conversion of a module ------------------===//

#include "mxfp8train/Runner/Conversion.h"
#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainDialect.h"
#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainOps.h"
#include "mxfp8train/Dialect/MXFP8Train/Transforms/Passes.h"
#include "mxfp8train/Dialect/MXFP8Train/Transforms/Transforms.h"
#include "mxfp8train/Pipelines/Passes.h"
#include "mxfp8train/Tools/MatmulProbes.h"
#include "mxfp8train/Tools/ModuleSource.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::mxfp8train;

llvm::Expected<RecipeAttrInterface>
mlir::mxfp8train::parseRecipe(MLIRContext *context, StringRef text) {
  std::string message;
  RecipeAttrInterface recipe =
      parseTrainingRecipeOption(context, text, message);
  if (!recipe)
    return llvm::createStringError("invalid --recipe '" + text +
                                   "': " + message);
  return recipe;
}

bool mlir::mxfp8train::isQuantizedGemm(Operation *op) {
  if (isa<ScaledMmOp, ScaledGroupedMmOp>(op))
    return true;
  if (!isCandidateMatmul(op))
    return false;
  return llvm::any_of(op->getOperands(), [](Value v) {
    return isa_and_nonnull<DequantizeOp>(v.getDefiningOp());
  });
}

/// True for a linalg contraction or a grouped_mm.
static bool isMatmul(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  return isa<GroupedMmOp>(op) ||
         (linalgOp && linalg::isaContractionOpInterface(linalgOp));
}

int64_t mlir::mxfp8train::countMatmuls(Operation *root) {
  int64_t count = 0;
  root->walk([&](Operation *op) {
    if (isMatmul(op))
      ++count;
  });
  return count;
}

LogicalResult mlir::mxfp8train::runPassesCollectingRemarks(
    PassManager &pm, ModuleOp module, SmallVectorImpl<std::string> &remarks) {
  ScopedDiagnosticHandler handler(
      module.getContext(), [&](Diagnostic &diag) -> LogicalResult {
        if (diag.getSeverity() != DiagnosticSeverity::Remark)
          return failure();
        std::string where = describeLocation(diag.getLocation());
        remarks.push_back((where.empty() ? "" : where + ": ") + diag.str());
        return success();
      });
  return pm.run(module);
}

llvm::Expected<OwningOpRef<ModuleOp>>
mlir::mxfp8train::convertModule(ModuleOp module, StringRef recipe,
                                StringRef pipeline, StringRef sourceName,
                                ConversionSummary &summary) {
  OwningOpRef<ModuleOp> converted(module.clone());
  PassManager pm(module.getContext());
  if (!pipeline.empty()) {
    std::string errorMessage;
    llvm::raw_string_ostream errorStream(errorMessage);
    if (failed(parsePassPipeline(stripModuleAnchor(pipeline), pm, errorStream)))
      return llvm::createStringError("invalid --pipeline: " + errorMessage);
    summary.pipeline = pipeline.str();
  } else {
    MXFP8TrainRewriteMatmulsPassOptions options;
    options.recipe = recipe.str();
    options.emitRemarks = true; // collected into the summary
    // fp8/e8m0 arith of the user's IR is lowered before canonicalize can
    // fold an e8m0 NaN into +Inf.
    pm.addPass(createMXFP8TrainLowerNarrowFloatArithPass());
    pm.addPass(createMXFP8TrainRewriteMatmulsPass(options));
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
    summary.pipeline = "mxfp8train-lower-narrow-float-arith,"
                       "mxfp8train-rewrite-matmuls{recipe=" +
                       recipe.str() + "},canonicalize,cse";
  }
  if (failed(runPassesCollectingRemarks(pm, *converted, summary.remarks)))
    return llvm::createStringError("the conversion pipeline failed on '" +
                                   sourceName + "'");

  summary.matmulsBefore = countMatmuls(module);
  converted->walk([&](Operation *op) {
    auto role = op->getAttrOfType<StringAttr>(kMatmulRoleAttrName);
    std::string roleName = role ? role.str() : "unlabelled";
    if (isa<ScaledMmOp, ScaledGroupedMmOp>(op)) {
      ++summary.scaledMms;
      ++summary.scaledByRole[roleName];
    } else if (isQuantizedGemm(op)) {
      ++summary.emulated;
      ++summary.emulatedByRole[roleName];
    } else if (isMatmul(op)) {
      ++summary.keptHighPrecision;
    }
  });
  summary.skipped = llvm::count_if(summary.remarks, [](StringRef remark) {
    return remark.contains("mxfp8train: skipped (");
  });
  return converted;
}
