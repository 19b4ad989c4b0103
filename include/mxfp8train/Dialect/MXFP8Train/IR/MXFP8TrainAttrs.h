//===- MXFP8TrainAttrs.h - mxfp8train enums and attributes ------*- C++ -*-===//
//
// Scale modes, kernel preference, scale layouts and the recipe attribute.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_DIALECT_MXFP8TRAIN_IR_MXFP8TRAINATTRS_H
#define MXFP8TRAIN_DIALECT_MXFP8TRAIN_IR_MXFP8TRAINATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectImplementation.h"

#include <optional>

#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainEnums.h.inc"

namespace mlir::mxfp8train {
/// Parses the keyword `true` or `false` (a boolean attribute parameter).
FailureOr<bool> parseBoolParameter(AsmParser &parser);

/// The role of a matmul in training: dense linear layers (SPEC §6,
/// SPEC-float8 §3.1) and MoE experts (SPEC §7.2, SPEC-float8 §3.3). The
/// operands of every role are `(lhs, rhs)`: forward `(input, weight)`, dgrad
/// `(grad_output, weight)`, wgrad `(grad_output, input)`.
enum class MatmulRole {
  /// `out = x @ Wᵀ`; grouped: `out[m] = A[m] @ W[g(m)]ᵀ`. torchao `output`.
  Forward,
  /// `dX = dO @ W`; grouped: `dA[m] = dO[m] @ W[g(m)]`. torchao
  /// `grad_input`.
  Dgrad,
  /// `dW = dOᵀ @ x`; grouped: `dW[g] = dO[group g]ᵀ @ A[group g]`. torchao
  /// `grad_weight`.
  Wgrad,
};

/// How a recipe casts one operand of one training GEMM
/// (RecipeAttrInterface::getOperandCast).
struct RecipeOperandCast {
  /// f8E4M3FN or f8E5M2.
  Type elemType;
  /// The Float8 scaling granularity; std::nullopt for MX (e8m0 scales per
  /// 32 elements along the contraction).
  std::optional<Float8Granularity> granularity;
  /// MX only: how the e8m0 scales are computed.
  ScaleMode mode = ScaleMode::Rceil;
  /// Float8 only: scales rounded to powers of two
  /// (`round_scales_to_power_of_2`, SPEC-float8 §2.4).
  bool pow2 = false;
};
} // namespace mlir::mxfp8train

#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainRecipeInterface.h.inc"

#define GET_ATTRDEF_CLASSES
#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainAttrs.h.inc"

namespace mlir::mxfp8train {

/// Number of elements that share one e8m0 scale (OCP MX block size).
inline constexpr int64_t kBlockSize = 32;

// Size helpers. Shapes come from users, so every size is computed with
// checked int64 arithmetic (llvm::checkedMul / checkedAdd): std::nullopt means
// the size overflows int64, which the verifiers reject (llvm/Support/
// CheckedArithmetic.h). Code that runs on
// verified ops may dereference the result.

/// Number of bytes of the blocked (`to_blocked`, SPEC §4.1) layout of an
/// `(rows, cols)` scale matrix: `ceil(rows/128)*128 * ceil(cols/4)*4`.
std::optional<int64_t> getBlockedScaleSize(int64_t rows, int64_t cols);

/// Number of bytes of the `blocked_m_groups` layout (SPEC §4.2 a) of an
/// `(rows, cols)` scale matrix with `groups` token groups along the rows:
/// `(rows + 128*groups) * ceil(cols/4)*4`.
std::optional<int64_t> getBlockedMGroupsScaleSize(int64_t rows, int64_t cols,
                                                  int64_t groups);

/// Number of bytes of the `blocked_k_groups` layout (SPEC §4.2 b) of an
/// `(rows, cols)` scale matrix with `groups` groups along the columns:
/// `ceil(rows/128)*128 * (cols + 4*groups)`.
std::optional<int64_t> getBlockedKGroupsScaleSize(int64_t rows, int64_t cols,
                                                  int64_t groups);

/// Rows of the result of `pad_token_groups` for `tokens` rows in `groups`
/// groups: `ceil((tokens + alignment*groups) / alignment) * alignment`.
std::optional<int64_t> getPaddedTokenCount(int64_t tokens, int64_t groups,
                                           int64_t alignment);

/// Bytes of a tensor of `type` (its static dimensions; sub-byte elements
/// rounded up to whole bytes).
std::optional<int64_t> getTensorByteSize(ShapedType type);

} // namespace mlir::mxfp8train

#endif // MXFP8TRAIN_DIALECT_MXFP8TRAIN_IR_MXFP8TRAINATTRS_H
