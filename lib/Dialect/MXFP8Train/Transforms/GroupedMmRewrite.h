//===- GroupedMmRewrite.h - the grouped half of the rewrite -----*- C++ -*-===//
//
// Private to lib/Dialect/MXFP8Train/Transforms: the entry points of
// GroupedMmRewrite.cpp that the dense driver (MatmulRewrite.cpp) dispatches
// `mxfp8train.grouped_mm` to.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_LIB_DIALECT_MXFP8TRAIN_TRANSFORMS_GROUPEDMMREWRITE_H
#define MXFP8TRAIN_LIB_DIALECT_MXFP8TRAIN_TRANSFORMS_GROUPEDMMREWRITE_H

#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainOps.h"
#include "mxfp8train/Dialect/MXFP8Train/Transforms/Transforms.h"

#include <string>

namespace mlir::mxfp8train::detail {

/// analyzeMatmul for a `mxfp8train.grouped_mm`.
MatmulAnalysis analyzeGroupedMm(GroupedMmOp op,
                                const RewriteMatmulsOptions &options);

/// rewriteMatmul for a grouped plan (`plan.grouped.isGrouped`).
Operation *rewriteGroupedMm(RewriterBase &rewriter, const MatmulPlan &plan,
                            RecipeAttrInterface recipe);

/// describeConversion for a grouped plan.
std::string describeGroupedConversion(const MatmulPlan &plan,
                                      RecipeAttrInterface recipe);

} // namespace mlir::mxfp8train::detail

#endif // MXFP8TRAIN_LIB_DIALECT_MXFP8TRAIN_TRANSFORMS_GROUPEDMMREWRITE_H
