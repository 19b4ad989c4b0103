//===- RewriteUtils.h - shared by the matmul rewrites -----------*- C++ -*-===//
//
// Private to lib/Dialect/MXFP8Train/Transforms: the pieces that the dense
// (MatmulRewrite.cpp) and grouped (GroupedMmRewrite.cpp) halves of
// `mxfp8train-rewrite-matmuls` share, defined in RewriteUtils.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_LIB_DIALECT_MXFP8TRAIN_TRANSFORMS_REWRITEUTILS_H
#define MXFP8TRAIN_LIB_DIALECT_MXFP8TRAIN_TRANSFORMS_REWRITEUTILS_H

#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainOps.h"
#include "mxfp8train/Dialect/MXFP8Train/Transforms/Transforms.h"

#include "llvm/Support/raw_ostream.h"

#include <string>

namespace mlir::mxfp8train::detail {

/// `recipe`, or the default recipe (`mxfp8_rceil`) when it is null.
RecipeAttrInterface getRecipeOrDefault(MLIRContext *context,
                                       RecipeAttrInterface recipe);

/// The recipe as the remarks show it: its torchao name, or the attribute.
std::string describeRecipe(RecipeAttrInterface recipe);

/// The reason for keeping the GEMM of `role` in high precision under
/// `recipe` (RecipeAttrInterface::isHighPrecisionGemm).
std::string describeHighPrecisionGemm(MatmulRole role,
                                      RecipeAttrInterface recipe,
                                      bool roleFromAttribute);

/// How operand `operand` of the GEMM of `role` is cast, as the remarks
/// show it: "" for MX (the recipe says it), else ` (f8E4M3FN, axiswise,
/// pow2)` and the like.
std::string describeCast(RecipeAttrInterface recipe, MatmulRole role,
                         bool grouped, unsigned operand);

/// Why a GEMM contracting `k` elements into `n` columns cannot be cast under
/// `recipe` (`kName` / `nName` name the sizes in the message), or
/// std::nullopt: MX needs whole blocks of 32 along K; Float8 needs K and N
/// multiples of 16 (`torch._scaled_mm`, or `torch._scaled_grouped_mm` when
/// `grouped`, SPEC-float8 §6).
std::optional<std::string> checkGemmAlignment(RecipeAttrInterface recipe,
                                              int64_t k, int64_t n,
                                              StringRef kName, StringRef nName,
                                              bool grouped);

/// Why the tensors `types` of a matmul cannot become quantizes and a scaled
/// GEMM under `recipe`, or std::nullopt: a dynamic size (the casts' scale
/// shapes and blocks need static sizes), or a byte size past int64 (which
/// the mxfp8train ops' verifiers reject; linalg does not check it).
std::optional<std::string> checkStaticSizes(RecipeAttrInterface recipe,
                                            ArrayRef<RankedTensorType> types);

/// A tensor transpose producing a matmul operand: `linalg.transpose`, or a
/// `linalg.generic` that only moves elements (one input, all-parallel
/// permutation maps, a body that yields the input element), as frontends
/// such as torch-mlir emit for `aten.t` / `permute`.
struct TransposeView {
  Operation *op;
  Value input;
  /// Result dimension i is input dimension perm[i] (not the identity).
  SmallVector<int64_t> perm;
};

/// The transpose producing `value`, or std::nullopt.
std::optional<TransposeView> matchTranspose(Value value);

/// " via linalg.transpose" / " via linalg.generic transpose" for an operand
/// read through a transpose, "" otherwise (for the remarks).
std::string describeTransposeSource(const MatmulOperandPlan &operand);

/// Prints an attribute or type for a diagnostic.
template <typename T> std::string printToString(T value) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << value;
  return s;
}

/// Reads the `mxfp8train.role` override of `op`. Returns failure (and sets
/// `reason`) when the attribute is there but not a valid role.
LogicalResult getRoleOverride(Operation *op, std::optional<MatmulRole> &role,
                              std::string &reason);

/// Reads the `mxfp8train.grad_output` override of `op` (kGradOutputAttrName):
/// `isRhs` is set when the attribute is there. Returns failure (and sets
/// `reason`) when it is not `"lhs"` or `"rhs"`.
LogicalResult getGradOutputOverride(Operation *op, std::optional<bool> &isRhs,
                                    std::string &reason);

/// Records on the GEMM `gemm` created for a matmul of `role` its role
/// (kMatmulRoleAttrName) and, under a Float8 recipe, torchao's
/// `use_fast_accum` for it (kUseFastAccumAttrName).
void setGemmAttributes(Operation *gemm, RecipeAttrInterface recipe,
                       MatmulRole role, bool grouped);

/// True when the pure op `existing`, whose operands dominate the insertion
/// point (`block`, `ip`), can stand for a new identical op there: it
/// dominates the point, or it is later in the same block and is moved up.
bool reuseAtInsertionPoint(RewriterBase &rewriter, Operation *existing,
                           Block *block, Block::iterator ip);

/// Returns `data [scales]` dequantized along `axis` to `type`, reusing an
/// identical dominating `mxfp8train.dequantize`.
Value getOrCreateDequantize(RewriterBase &rewriter, Location loc, Value data,
                            Value scales, int64_t axis, Type type);

/// Erases the ops of `candidates` (null entries and duplicates allowed) left
/// without uses and side effects, then, transitively, the producers of
/// their operands that became dead (transposes, broadcasts, empties,
/// constants).
void eraseDeadOps(RewriterBase &rewriter, ArrayRef<Operation *> candidates);

} // namespace mlir::mxfp8train::detail

#endif // MXFP8TRAIN_LIB_DIALECT_MXFP8TRAIN_TRANSFORMS_REWRITEUTILS_H
