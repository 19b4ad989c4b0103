//===- Transforms.h - reusable mxfp8train rewrites --------------*- C++ -*-===//
//
// The logic of `mxfp8train-rewrite-matmuls`, exposed so that other compiler
// stacks (and the Python module) can reuse it without the pass: recipe
// parsing, matmul analysis (operands, contraction axes, training role,
// filters, token-group padding of grouped GEMMs), the rewrite of one matmul,
// a whole-IR driver with remarks, and a pattern set for the greedy driver.
// "Matmul" covers the dense `linalg.matmul` / `linalg.batch_matmul` and the
// MoE `mxfp8train.grouped_mm`: one recipe converts both, as torchao's
// `MXFP8TrainingOpConfig` does for `linear` and `grouped_mm`.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_DIALECT_MXFP8TRAIN_TRANSFORMS_TRANSFORMS_H
#define MXFP8TRAIN_DIALECT_MXFP8TRAIN_TRANSFORMS_TRANSFORMS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainAttrs.h"

#include <optional>
#include <string>

namespace mlir::mxfp8train {

//===----------------------------------------------------------------------===//
// Training roles
//===----------------------------------------------------------------------===//

// MatmulRole is declared with the recipe interface (MXFP8TrainAttrs.h).

/// Name of the discardable string attribute that gives (on a linalg matmul)
/// or records (on the `mxfp8train.scaled_mm` created for it) a matmul's role.
inline constexpr llvm::StringLiteral kMatmulRoleAttrName = "mxfp8train.role";

/// Name of the discardable string attribute (`"lhs"` or `"rhs"`) that says
/// which operand of a dgrad or wgrad `linalg.matmul` is torchao's
/// `grad_output`. Without it, a wgrad's grad_output is inferred from the
/// other matmuls of the graph (inferWgradGradOutput), else it is the lhs
/// (torchao's operand order: `grad_output @ weight`, `grad_outputᵀ @ input`).
/// It selects the operands' casts where the recipe casts grad_output apart
/// (float8_tensorwise: e5m2).
inline constexpr llvm::StringLiteral kGradOutputAttrName =
    "mxfp8train.grad_output";

/// Name of the discardable bool attribute that the rewrite sets on the
/// Float8 `scaled_mm` / `scaled_grouped_mm` it creates: torchao's
/// `use_fast_accum` for that GEMM (RecipeAttrInterface::usesFastAccum). A
/// performance attribute, never a semantic one (SPEC-float8 decisions):
/// without it the sm_90a Float8 kernel promotes its fp8 wgmma partial sums
/// into f32 registers every GPUTargetInfo::float8PromoteInterval elements.
inline constexpr llvm::StringLiteral kUseFastAccumAttrName =
    "mxfp8train.use_fast_accum";

/// `"forward"`, `"dgrad"` or `"wgrad"`.
llvm::StringRef stringifyMatmulRole(MatmulRole role);

/// The role spelled `name` (`forward`, `dgrad`, `wgrad`), or std::nullopt.
std::optional<MatmulRole> symbolizeMatmulRole(llvm::StringRef name);

/// The role of a matmul from how its operands are stored (after looking
/// through the views producing them: transposes, batch broadcasts, reshapes
/// and casts; `lhsTransposed` / `rhsTransposed` say whether the contraction
/// dimension is not / is the last dimension of the stored tensor):
///  - wgrad: the lhs is contracted over its stored dim 0 (read transposed) and
///    the rhs over its stored dim 0 (not transposed). Both operands are then
///    token-major `(M, ·)` tensors contracted over the token dimension, the
///    `dOᵀ @ x` of a weight gradient;
///  - forward: otherwise, when the rhs is contracted over its last stored dim
///    (stored `(N, K)`, the `x @ Wᵀ` of a weight stored `(out, in)`);
///  - dgrad: otherwise (`dO @ W`).
/// Dimensions count after the batch dimension of a batched matmul.
MatmulRole inferMatmulRole(bool lhsTransposed, bool rhsTransposed);

/// The role of a `mxfp8train.grouped_mm` from its form (after looking through
/// producing `linalg.transpose`s): 2d-2d contracts over the tokens of each
/// group, the MoE weight gradient (`wgrad`); 2d-3d with the weights stored
/// `(E, N, K)` (`transpose_rhs`) is `forward` (`A @ W[g]ᵀ`), and with the
/// weights stored `(E, K, N)` it is `dgrad` (`dO @ W[g]`).
MatmulRole inferGroupedMmRole(bool twoDTwoD, bool rhsTransposed);

/// Name of the discardable integer attribute with which a frontend states,
/// on a `mxfp8train.grouped_mm`, that every entry of its offs is a multiple
/// of the given value (e.g. `{mxfp8train.offs_alignment = 32 : i64}`).
inline constexpr llvm::StringLiteral kOffsAlignmentAttrName =
    "mxfp8train.offs_alignment";

/// If every entry of `offs` (the token-group ends of a grouped GEMM) is
/// known at compile time to be a multiple of `alignment`, returns why: the
/// offs are a constant, come from a `mxfp8train.pad_token_groups` with a
/// multiple of `alignment`, or `op` carries `mxfp8train.offs_alignment` with
/// a multiple of `alignment`. Otherwise std::nullopt.
std::optional<std::string> getKnownOffsAlignment(Operation *op, Value offs,
                                                 int64_t alignment);

//===----------------------------------------------------------------------===//
// Options
//===----------------------------------------------------------------------===//

/// Parses the `recipe` option text: a torchao recipe name
/// (`mxfp8_rceil`, `mxfp8_rceil_wgrad_with_hp`, `mxfp8_emulated_rceil`;
/// `float8_tensorwise`, `float8_rowwise`, `float8_rowwise_with_gw_hp`,
/// `fp8_rowwise`), the body of a `#mxfp8train.recipe<...>` or
/// `#mxfp8train.float8_recipe<...>` attribute (a body whose first entry is a
/// Float8 recipe name is a Float8 one), or the whole attribute. Returns null
/// and sets `error` to the parser's message on bad text.
RecipeAttrInterface parseTrainingRecipeOption(MLIRContext *context,
                                              llvm::StringRef text,
                                              std::string &error);

/// parseTrainingRecipeOption for an MX recipe only (`#mxfp8train.recipe`):
/// a Float8 recipe is an error.
RecipeAttr parseRecipeOption(MLIRContext *context, llvm::StringRef text,
                             std::string &error);

/// If `loc`, or any location nested in it (FusedLoc, CallSiteLoc, NameLoc
/// children), is a NameLoc whose name contains one of `patterns`, returns
/// that name and sets `matched` to the pattern; otherwise std::nullopt.
std::optional<std::string>
findExcludedName(Location loc, llvm::ArrayRef<std::string> patterns,
                 std::string &matched);

/// What `mxfp8train-rewrite-matmuls` converts and how.
struct RewriteMatmulsOptions {
  /// The recipe, MX or Float8 (per-GEMM casts, high-precision GEMMs, token
  /// padding, kernel preference); null means `mxfp8_rceil`.
  RecipeAttrInterface recipe;
  /// Matmuls with M, N or K below this are skipped.
  int64_t minSize = 0;
  /// Matmuls whose location holds a NameLoc containing one of these strings
  /// are skipped (torchao's module-FQN filter).
  llvm::SmallVector<std::string> exclude;
};

//===----------------------------------------------------------------------===//
// Analysis
//===----------------------------------------------------------------------===//

/// One operand of a matmul as it will be quantized.
struct MatmulOperandPlan {
  /// The tensor that is quantized: the matmul operand itself, or the input of
  /// the transpose that produced it.
  Value stored;
  /// The transpose looked through (`linalg.transpose`, or a `linalg.generic`
  /// that only permutes), or null.
  Operation *transpose = nullptr;
  /// Indexing map of `stored` in the matmul's iteration space (dense
  /// matmuls only; null for grouped_mm).
  AffineMap map;
  /// Dimension of `stored` that is contracted: the quantization axis.
  int64_t axis = 0;
  /// True when `stored` is `(K, M)` (lhs) or `(N, K)` (rhs), after any batch
  /// dimension: the `transpose_lhs` / `transpose_rhs` of `scaled_mm`. For
  /// grouped_mm, the `transpose_lhs` / `transpose_rhs` of the grouped op:
  /// 2d-3d rhs stored `(E, N, K)`; 2d-2d lhs stored `(M, N)`, rhs stored
  /// `(K, M)` (M = tokens).
  bool transposed = false;
};

/// Why the token-major operands of a grouped GEMM are padded with
/// `mxfp8train.pad_token_groups` (SPEC §7.3).
enum class TokenPadding {
  /// Not padded: 2d-3d without `pad_token_groups` (quantization along K is
  /// per token, so any group sizes work), or offs known to be aligned.
  None,
  /// The recipe has `pad_token_groups = true`.
  Recipe,
  /// 2d-2d (wgrad): its 32-token blocks along M must not straddle two groups,
  /// and the offs are not known to be multiples of 32.
  Wgrad,
};

/// What a grouped GEMM (`mxfp8train.grouped_mm`) needs beyond MatmulPlan.
struct GroupedMmPlan {
  /// True for a grouped_mm plan; the other fields are then valid.
  bool isGrouped = false;
  /// 2d-2d (wgrad) rather than 2d-3d.
  bool twoDTwoD = false;
  /// Float8 2d-2d: both operands are cast token-major with per-group scales
  /// (`quantize offs(...)`, SPEC-float8 §3.3).
  bool perGroupScales = false;
  /// The token-group ends (i32, one per expert).
  Value offs;
  /// Whether and why token groups are padded, to `alignment` tokens.
  TokenPadding padding = TokenPadding::None;
  int64_t alignment = 32;
  /// When padding would be needed but is not done: why the offs are known
  /// aligned (see getKnownOffsAlignment); else empty.
  std::string alignedBecause;
  /// Element type the grouped GEMM produces (the recipe's `out_dtype` rule):
  /// bf16 when the grouped_mm result is bf16, else `out_dtype`. When it
  /// differs from the result's element type the product is extended after.
  Type productElemType;
};

/// How the high-precision `outs` operand of the matmul is carried over.
enum class MatmulInitKind {
  /// A zero fill or zero constant: dropped.
  Zero,
  /// A `linalg.broadcast` of a 1-D tensor of size N along every other
  /// dimension: becomes the `bias` of `scaled_mm`.
  Bias,
  /// Anything else: added in high precision after `scaled_mm`.
  Add,
};

/// A matmul found convertible, with everything the rewrite needs.
struct MatmulPlan {
  /// `linalg.matmul`, `linalg.batch_matmul` or `mxfp8train.grouped_mm`.
  Operation *op = nullptr;
  MatmulOperandPlan lhs, rhs;
  /// Static sizes of the (per-group) GEMM `(m, k) x (k, n)`, k contracted;
  /// `batch` is 0 for an unbatched matmul and the number of experts E for a
  /// grouped one. 2d-3d: m = tokens; 2d-2d: m, n = the result's N and K and
  /// k = tokens.
  int64_t batch = 0, m = 0, n = 0, k = 0;
  MatmulRole role = MatmulRole::Forward;
  /// True when the role came from a `mxfp8train.role` attribute.
  bool roleFromAttribute = false;
  /// A `linalg.batch_matmul` whose rhs is a 2-D weight broadcast over the
  /// batch (a linear layer on a 3-D input as torch-mlir lowers it): run as
  /// one 2-D GEMM over the batch rows, `(B * M, K) x W`, with the weight
  /// quantized once. `lhs` is then the 3-D activation (collapsed at the
  /// rewrite), `rhs` the 2-D weight, `batch` 0, `m` = B * M and
  /// `foldedBatch` = B.
  bool foldBatchIntoM = false;
  int64_t foldedBatch = 0;
  /// True when the rhs is torchao's grad_output (dgrad or wgrad written with
  /// the operands the other way round, e.g. `dW = xᵀ @ dO`): the lhs then
  /// takes the recipe's cast of operand 1 and the rhs that of operand 0.
  bool gradOutputIsRhs = false;
  /// Where gradOutputIsRhs came from, for remarks: empty (torchao's operand
  /// order), the attribute name, or the matmuls it was inferred from.
  std::string gradOutputSource;
  /// The recipe's operand index (RecipeAttrInterface::getOperandCast) of
  /// this GEMM's operand `operand` (0 = lhs, 1 = rhs).
  unsigned getRecipeOperand(unsigned operand) const {
    return gradOutputIsRhs ? 1 - operand : operand;
  }
  MatmulInitKind initKind = MatmulInitKind::Add;
  /// The 1-D bias for MatmulInitKind::Bias, else null.
  Value bias;
  /// Grouped GEMMs only (a grouped_mm has no init: initKind is Zero).
  GroupedMmPlan grouped;
};

/// What to do with a matmul.
enum class MatmulDecision {
  /// Rewrite it (scaled_mm, or the emulated form).
  Convert,
  /// Leave it in high precision on purpose (a wgrad with wgrad_with_hp).
  KeepHighPrecision,
  /// Leave it: not eligible (`reason` says why).
  Skip,
  /// The input is wrong (an invalid `mxfp8train.role`): an error.
  Invalid,
};

/// The result of analyzeMatmul.
struct MatmulAnalysis {
  MatmulDecision decision = MatmulDecision::Skip;
  /// Why a matmul is skipped, kept or invalid (empty for Convert).
  std::string reason;
  /// Valid for Convert and KeepHighPrecision.
  MatmulPlan plan;
};

/// True for the ops the rewrite considers: `linalg.matmul` and
/// `linalg.batch_matmul` (in any indexing-map form) and
/// `mxfp8train.grouped_mm`, which it converts, and every other linalg
/// contraction (`linalg.generic`, `linalg.contract`, `linalg.matvec`, ...),
/// which it reports as skipped.
bool isCandidateMatmul(Operation *op);

/// Decides whether and how `op` (a candidate matmul) is converted under
/// `options`: filters, element types, indexing maps (transposes through
/// maps or a producing `linalg.transpose`), shapes, role and recipe; for a
/// grouped_mm also the token-group padding and the product type.
MatmulAnalysis analyzeMatmul(Operation *op,
                             const RewriteMatmulsOptions &options);

//===----------------------------------------------------------------------===//
// Rewrites
//===----------------------------------------------------------------------===//

/// Returns the data and scales of `input` quantized along `axis` (row-major
/// scales, `elemType` elements, `mode`) for use at the insertion point, where
/// `input` must be available. Reuses an identical `mxfp8train.quantize` of
/// `input` that dominates the insertion point, or one later in the same block
/// (moved up to the insertion point), so a tensor is quantized at most once
/// per axis; otherwise creates one at the insertion point.
std::pair<Value, Value> getOrCreateQuantize(RewriterBase &rewriter,
                                            Location loc, Value input,
                                            int64_t axis, Type elemType,
                                            ScaleMode mode);

/// getOrCreateQuantize for a cast that may be Float8: with
/// `spec.granularity`, a Float8 quantize (f32 scales: rank 0 for
/// tensorwise, where `axis` is ignored; the input shape with `axis` set to 1
/// for axiswise; `pow2` as `spec.pow2`), else the MX quantize of `spec`.
/// With `offs` (Float8 axiswise, 2-D token-major `input`, `axis` 0): the
/// per-group form, scales `(E, X)` (SPEC-float8 §3.3).
std::pair<Value, Value> getOrCreateQuantize(RewriterBase &rewriter,
                                            Location loc, Value input,
                                            int64_t axis,
                                            const RecipeOperandCast &spec,
                                            Value offs = {});

/// Returns `input` (tokens x features) with its token groups padded to
/// `alignment` rows and the padded offs (`mxfp8train.pad_token_groups`, SPEC
/// §7.3), reusing an identical pad of `input` that dominates the insertion
/// point or is later in the same block (moved up), as getOrCreateQuantize
/// does: a tensor feeding several grouped GEMMs is padded once.
std::pair<Value, Value> getOrCreatePadTokenGroups(RewriterBase &rewriter,
                                                  Location loc, Value input,
                                                  Value offs,
                                                  int64_t alignment);

/// Rewrites the matmul of `plan` under `recipe` (null: `mxfp8_rceil`), which
/// should be the recipe it was analysed with: `quantize` of each stored
/// operand along its contraction axis and `mxfp8train.scaled_mm` (carrying
/// `mxfp8train.role`), the init dropped, used as bias or added after; or,
/// for `kernel_preference = emulated`, quantize + dequantize of each operand
/// and the matmul kept in high precision on the dequantized operands.
/// Transposes, fills and empties left dead are erased. Returns the op that
/// now computes the result (the scaled_mm or the emulated matmul).
///
/// A grouped_mm becomes: token-group padding of its token-major operands
/// (plan.grouped.padding), `quantize` of each operand along its contraction
/// axis, `mxfp8train.scaled_grouped_mm` (EMULATED: dequantize + grouped_mm)
/// on the padded offs, `unpad_token_groups` of a padded 2d-3d result, and
/// an extension to the result type when `out_dtype` is narrower.
Operation *rewriteMatmul(RewriterBase &rewriter, const MatmulPlan &plan,
                         RecipeAttrInterface recipe);

/// Text of the remark for a converted matmul, e.g. `mxfp8train: converted
/// (role wgrad, lhs quantized along axis 0, rhs along axis 0, recipe
/// mxfp8_rceil)`.
std::string describeConversion(const MatmulPlan &plan,
                               RecipeAttrInterface recipe);

/// Counts of a rewriteMatmuls run.
struct RewriteMatmulsStats {
  unsigned converted = 0;
  /// Every matmul not converted, including those kept in high precision.
  unsigned skipped = 0;
  /// wgrad matmuls kept in high precision by `wgrad_with_hp`.
  unsigned keptHighPrecision = 0;
};

/// Called by rewriteMatmuls with each candidate matmul and its analysis,
/// before the matmul is rewritten (the plan's values are still valid); the
/// C API builds its conversion report with it.
using MatmulObserver =
    llvm::function_ref<void(Operation *matmul, const MatmulAnalysis &)>;

/// Rewrites every candidate matmul nested in `root` (program order) and, if
/// `emitRemarks`, emits one remark per matmul on its location saying what
/// was done and why. Emits an error and fails on an invalid
/// `mxfp8train.role`; the other matmuls are still processed. `observe`, if
/// given, sees every matmul first.
LogicalResult rewriteMatmuls(Operation *root,
                             const RewriteMatmulsOptions &options,
                             bool emitRemarks, RewriteMatmulsStats &stats,
                             MatmulObserver observe = nullptr);

/// Adds patterns that rewrite candidate matmuls as rewriteMatmuls does (no
/// remarks; a skipped matmul is a match failure with the reason), for use
/// with the greedy driver inside other pipelines. The greedy driver may visit
/// matmuls out of program order; quantizes it cannot share across regions
/// are left to a later `cse`.
void populateMXFP8TrainRewriteMatmulsPatterns(
    RewritePatternSet &patterns, const RewriteMatmulsOptions &options,
    PatternBenefit benefit = 1);

/// Adds the patterns that fold the f32 -> bf16 truncation of a
/// `scaled_mm`'s f32 result (its only use: an elementwise `linalg.generic`
/// of a lone `arith.truncf`, or `arith.truncf` of the tensor) into the
/// `scaled_mm`, which then returns bf16: the same bits (one rounding of the
/// f32 accumulation, SPEC §3.1) without the f32 tensor
/// (FoldOutputTruncation.cpp).
void populateFoldOutputTruncationPatterns(RewritePatternSet &patterns);

/// Applies populateFoldOutputTruncationPatterns to `root` in one walk
/// (nothing else is folded or erased). mxfp8train-rewrite-matmuls runs it
/// after converting.
void foldOutputTruncations(Operation *root);

/// What mxfp8train-rewrite-matmuls does to `module` (and the C API's
/// mxfp8trainConvertModule): rewriteMatmuls, foldOutputTruncations, and,
/// when a matmul was converted, the recipe recorded as the module's
/// `mxfp8train.recipe` (ConvertedRecipe.h) for the tools' SQNR bars.
LogicalResult runRewriteMatmuls(ModuleOp module,
                                const RewriteMatmulsOptions &options,
                                bool emitRemarks, RewriteMatmulsStats &stats,
                                MatmulObserver observe = nullptr);

/// Adds the pattern that replaces two `quantize` ops of the same input along
/// `rank-1` and `rank-2`, with the same scale mode, by one `quantize_dual`
/// (FuseQuantizeDual.cpp; `convert-mxfp8train-to-gpu` runs it first).
void populateFuseQuantizeDualPatterns(RewritePatternSet &patterns);

/// Why the `quantize` or `quantize_dual` `op`, whose input is the result of
/// a `shard.all_gather`, cannot be moved before that gather without
/// changing its bytes (or without leaving the high-precision gather in
/// place): a sentence for a remark. std::nullopt when it can be moved, or
/// when `op` is not such a quantize (QuantizeBeforeAllGather.cpp).
std::optional<std::string> getQuantizeBeforeAllGatherBlocker(Operation *op);

/// Whether `op` is a `quantize` or `quantize_dual` of a
/// `shard.all_gather`'s result.
bool isQuantizeOfAllGather(Operation *op);

/// Adds the pattern that moves a `quantize` / `quantize_dual` of a
/// gathered tensor before the `shard.all_gather` (quantize each shard, then
/// gather the fp8 data and the scales of every cast) when
/// getQuantizeBeforeAllGatherBlocker finds nothing against it
/// (`mxfp8train-quantize-before-all-gather`, FSDP fp8 all-gather).
void populateQuantizeBeforeAllGatherPatterns(RewritePatternSet &patterns);

/// Why the `quantize` or `quantize_dual` `op`, whose input is the result of
/// a `shard.all_to_all`, cannot be moved before that exchange without
/// changing its bytes (or without leaving the high-precision exchange in
/// place): a sentence for a remark. std::nullopt when it can be moved, or
/// when `op` is not such a quantize (QuantizeBeforeAllToAll.cpp).
std::optional<std::string> getQuantizeBeforeAllToAllBlocker(Operation *op);

/// Whether `op` is a `quantize` or `quantize_dual` of a
/// `shard.all_to_all`'s result.
bool isQuantizeOfAllToAll(Operation *op);

/// Adds the pattern that moves a `quantize` / `quantize_dual` of an
/// exchanged tensor before the `shard.all_to_all` (quantize each process's
/// tensor, then exchange the fp8 data and the scales of every cast) when
/// getQuantizeBeforeAllToAllBlocker finds nothing against it
/// (`mxfp8train-quantize-before-all-to-all`, MXFP8 expert-parallel
/// dispatch).
void populateQuantizeBeforeAllToAllPatterns(RewritePatternSet &patterns);

} // namespace mlir::mxfp8train

#endif // MXFP8TRAIN_DIALECT_MXFP8TRAIN_TRANSFORMS_TRANSFORMS_H
