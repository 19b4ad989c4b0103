//===- GroupedMmRewrite.cpp - grouped_mm -> scaled_grouped_mm ---*- C++ -*-===//
//
// The grouped (MoE) half of `mxfp8train-rewrite-matmuls`: the analysis of a
// `mxfp8train.grouped_mm` (operands as stored, contraction axes, role,
// filters, token-group padding, out_dtype) and its rewrite into
// `pad_token_groups` + `quantize` + `scaled_grouped_mm` + `unpad_token_groups`
// (or the EMULATED form), following torchao's `_MXFP8GroupedMM` (SPEC §7).
//
//===----------------------------------------------------------------------===//

#include "GroupedMmRewrite.h"
#include "RewriteUtils.h"

#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainOps.h"
#include "mxfp8train/Dialect/MXFP8Train/Transforms/Transforms.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::detail;

//===----------------------------------------------------------------------===//
// Roles and offs
//===----------------------------------------------------------------------===//

MatmulRole mxfp8train::inferGroupedMmRole(bool twoDTwoD, bool rhsTransposed) {
  if (twoDTwoD)
    return MatmulRole::Wgrad;
  return rhsTransposed ? MatmulRole::Forward : MatmulRole::Dgrad;
}

std::optional<std::string>
mxfp8train::getKnownOffsAlignment(Operation *op, Value offs,
                                  int64_t alignment) {
  if (op) {
    if (auto attr = op->getAttrOfType<IntegerAttr>(kOffsAlignmentAttrName)) {
      int64_t value = attr.getValue().getSExtValue();
      if (value > 0 && value % alignment == 0)
        return (kOffsAlignmentAttrName + " = " + Twine(value)).str();
    }
  }
  DenseIntElementsAttr values;
  if (matchPattern(offs, m_Constant(&values))) {
    if (llvm::all_of(values.getValues<APInt>(), [&](const APInt &v) {
          return v.getSExtValue() % alignment == 0;
        }))
      return std::string("constant offs");
    return std::nullopt;
  }
  if (auto pad = offs.getDefiningOp<PadTokenGroupsOp>())
    if (offs == pad.getPaddedOffs() &&
        static_cast<int64_t>(pad.getAlignment()) % alignment == 0)
      return ("offs of pad_token_groups alignment = " +
              Twine(pad.getAlignment()))
          .str();
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Analysis
//===----------------------------------------------------------------------===//

/// Looks through a tensor `linalg.transpose` with permutation `swap` (which
/// swaps the two matrix dimensions) producing `operand.stored`.
static void lookThroughTranspose(MatmulOperandPlan &operand,
                                 ArrayRef<int64_t> swap) {
  std::optional<TransposeView> transpose = matchTranspose(operand.stored);
  if (!transpose || ArrayRef<int64_t>(transpose->perm) != swap)
    return;
  operand.stored = transpose->input;
  operand.transpose = transpose->op;
  operand.transposed = !operand.transposed;
}

MatmulAnalysis
mxfp8train::detail::analyzeGroupedMm(GroupedMmOp op,
                                     const RewriteMatmulsOptions &options) {
  MatmulAnalysis result;
  MatmulPlan &plan = result.plan;
  GroupedMmPlan &g = plan.grouped;
  plan.op = op;
  plan.initKind = MatmulInitKind::Zero;
  g.isGrouped = true;
  g.twoDTwoD = op.isTwoDTwoD();
  g.offs = op.getOffs();
  auto skip = [&](const Twine &why) {
    result.decision = MatmulDecision::Skip;
    result.reason = why.str();
    return result;
  };
  auto invalid = [&](const Twine &why) {
    result.decision = MatmulDecision::Invalid;
    result.reason = why.str();
    return result;
  };

  std::optional<MatmulRole> roleOverride;
  if (failed(getRoleOverride(op, roleOverride, result.reason)))
    return invalid(result.reason);
  // Every recipe casts both operands of a grouped GEMM alike (SPEC-float8
  // §4.4), so the operand order never matters here.
  if (op->getDiscardableAttr(kGradOutputAttrName))
    return invalid(kGradOutputAttrName +
                   " on a grouped_mm; it applies to linalg.matmul and "
                   "linalg.batch_matmul (grouped GEMMs cast both operands "
                   "alike)");
  if (Attribute attr = op->getDiscardableAttr(kOffsAlignmentAttrName)) {
    auto value = dyn_cast<IntegerAttr>(attr);
    if (!value || !value.getType().isSignlessInteger() ||
        value.getValue().getSExtValue() <= 0)
      return invalid("invalid " + kOffsAlignmentAttrName + " " +
                     printToString(attr) + "; expected a positive integer");
  }

  std::string matched;
  if (std::optional<std::string> name =
          findExcludedName(op->getLoc(), options.exclude, matched))
    return skip("location name '" + *name + "' matches exclude '" + matched +
                "'");
  if (op.getLhs().getDefiningOp<DequantizeOp>() ||
      op.getRhs().getDefiningOp<DequantizeOp>())
    return skip("an operand is already dequantized MX data");

  plan.lhs.stored = op.getLhs();
  plan.lhs.transposed = op.getTransposeLhs();
  plan.rhs.stored = op.getRhs();
  plan.rhs.transposed = op.getTransposeRhs();
  if (g.twoDTwoD) {
    // lhs logically (N, M), rhs logically (M, K); M (tokens) is contracted.
    lookThroughTranspose(plan.lhs, {1, 0});
    lookThroughTranspose(plan.rhs, {1, 0});
    plan.lhs.axis = plan.lhs.transposed ? 0 : 1;
    plan.rhs.axis = plan.rhs.transposed ? 1 : 0;
  } else {
    // lhs (M, K); rhs logically (E, K, N). The lhs has no transposed form.
    lookThroughTranspose(plan.rhs, {0, 2, 1});
    plan.lhs.axis = 1;
    plan.rhs.axis = plan.rhs.transposed ? 2 : 1;
  }

  plan.role = roleOverride.value_or(
      inferGroupedMmRole(g.twoDTwoD, plan.rhs.transposed));
  plan.roleFromAttribute = roleOverride.has_value();
  RecipeAttrInterface recipe =
      getRecipeOrDefault(op->getContext(), options.recipe);
  if (recipe.isHighPrecisionGemm(plan.role, /*grouped=*/true)) {
    result.decision = MatmulDecision::KeepHighPrecision;
    result.reason =
        describeHighPrecisionGemm(plan.role, recipe, plan.roleFromAttribute);
    return result;
  }
  // torchao's Float8 wgrad scales are per group and column over the group's
  // tokens (SPEC-float8 §3.3): per-group quantizes of token-major operands.
  g.perGroupScales = recipe.isFloat8() && g.twoDTwoD;

  auto lhsType = cast<RankedTensorType>(plan.lhs.stored.getType());
  auto rhsType = cast<RankedTensorType>(plan.rhs.stored.getType());
  RankedTensorType resultType = op.getResult().getType();
  RankedTensorType offsType = op.getOffs().getType();
  if (std::optional<std::string> why =
          checkStaticSizes(recipe, {lhsType, rhsType, resultType, offsType}))
    return skip(*why);
  // torchao's config takes any float8_dtype, but torch._scaled_grouped_mm
  // on CUDA only e4m3 (SPEC-float8 F10), as scaled_grouped_mm's verifier.
  if (recipe.isFloat8())
    for (unsigned operand : {0u, 1u})
      if (Type type =
              recipe.getOperandCast(plan.role, /*grouped=*/true, operand)
                  .elemType;
          !isa<Float8E4M3FNType>(type))
        return skip("float8_dtype = " + printToString(type) +
                    ": torch._scaled_grouped_mm takes f8E4M3FN operands only");
  plan.batch = offsType.getDimSize(0);
  int64_t tokens;
  SmallVector<std::pair<StringRef, int64_t>> sizes;
  if (g.twoDTwoD) {
    plan.m = resultType.getDimSize(1);
    plan.n = resultType.getDimSize(2);
    plan.k = tokens = lhsType.getDimSize(plan.lhs.axis);
    // Float8: N and K multiples of 16 (SPEC-float8 §6.2); MX blocks run
    // along the tokens, which are padded below when needed.
    if (recipe.isFloat8())
      if (std::optional<std::string> why = checkGemmAlignment(
              recipe, plan.m, plan.n, "N", "K", /*grouped=*/true))
        return skip(*why);
    sizes = {{"N", plan.m}, {"K", plan.n}, {"tokens", plan.k}};
  } else {
    plan.m = tokens = lhsType.getDimSize(0);
    plan.k = lhsType.getDimSize(1);
    plan.n = resultType.getDimSize(1);
    // The contraction is quantized per token, so only K needs whole MX
    // blocks; Float8 needs K and N multiples of 16.
    if (std::optional<std::string> why = checkGemmAlignment(
            recipe, plan.k, plan.n, "K", "N", /*grouped=*/true))
      return skip(*why);
    sizes = {{"M", plan.m}, {"N", plan.n}, {"K", plan.k}};
  }
  for (auto [what, size] : sizes)
    if (size < options.minSize)
      return skip(what + " = " + Twine(size) + " is below min-size " +
                  Twine(options.minSize));

  // Token-group padding (SPEC §7.3). The wgrad's 32-token blocks along M are
  // blocks of the whole token dimension: they must not straddle two groups,
  // so a 2d-2d GEMM is padded unless its offs are known to be multiples of
  // 32 (and its token count too, since M must hold whole blocks).
  // Float8 (SPEC-float8 §6.3) pads only when the recipe asks, to 16; its
  // per-group wgrad scales need no whole blocks, only M % 16 (checked below).
  int64_t recipePadding = recipe.getTokenGroupPadding();
  bool mxWgrad = g.twoDTwoD && !recipe.isFloat8();
  int64_t tokenMultiple = recipe.isFloat8() ? 16 : kBlockSize;
  if (recipePadding > 0)
    g.alignment = recipePadding;
  else if (auto mx = dyn_cast<RecipeAttr>(recipe))
    g.alignment = mx.getTokenGroupAlignment();
  if (recipePadding > 0 || mxWgrad) {
    int64_t needed = recipePadding > 0 ? g.alignment : kBlockSize;
    std::optional<std::string> why = getKnownOffsAlignment(op, g.offs, needed);
    if (why && (!g.twoDTwoD || tokens % tokenMultiple == 0))
      g.alignedBecause = *why;
    else
      g.padding =
          recipePadding > 0 ? TokenPadding::Recipe : TokenPadding::Wgrad;
  }
  if (g.perGroupScales && g.padding == TokenPadding::None &&
      tokens % tokenMultiple != 0)
    return skip("the token count M = " + Twine(tokens) +
                " is not a multiple of 16 (torch._scaled_grouped_mm); "
                "pad_token_groups = true pads it");

  if (g.padding != TokenPadding::None &&
      !getPaddedTokenCount(tokens, plan.batch, g.alignment))
    return skip("the padded token count of " + Twine(tokens) + " tokens in " +
                Twine(plan.batch) + " groups overflows int64");

  // out_dtype: a narrower out_dtype than the result is rounded to, then
  // extended (torchao's grouped GEMMs return out_dtype); a wider one changes
  // nothing, since rounding the f32 accumulator to f32 and then to bf16 is
  // rounding it once to bf16.
  Type resultElem = resultType.getElementType();
  g.productElemType =
      resultElem.isBF16() ? resultElem : recipe.getGroupedOutDtype();

  result.decision = MatmulDecision::Convert;
  return result;
}

//===----------------------------------------------------------------------===//
// Rewrite
//===----------------------------------------------------------------------===//

std::pair<Value, Value>
mxfp8train::getOrCreatePadTokenGroups(RewriterBase &rewriter, Location loc,
                                      Value input, Value offs,
                                      int64_t alignment) {
  Block *block = rewriter.getInsertionBlock();
  Block::iterator ip = rewriter.getInsertionPoint();
  for (Operation *user : input.getUsers()) {
    auto pad = dyn_cast<PadTokenGroupsOp>(user);
    if (pad && pad.getInput() == input && pad.getOffs() == offs &&
        static_cast<int64_t>(pad.getAlignment()) == alignment &&
        reuseAtInsertionPoint(rewriter, pad, block, ip))
      return {pad.getResult(), pad.getPaddedOffs()};
  }
  auto inputType = cast<RankedTensorType>(input.getType());
  auto offsType = cast<RankedTensorType>(offs.getType());
  int64_t rows = *getPaddedTokenCount(inputType.getDimSize(0),
                                      offsType.getDimSize(0), alignment);
  auto paddedType = RankedTensorType::get({rows, inputType.getDimSize(1)},
                                          inputType.getElementType());
  auto pad = PadTokenGroupsOp::create(rewriter, loc, paddedType, offsType,
                                      input, offs, alignment);
  return {pad.getResult(), pad.getPaddedOffs()};
}

/// The 2-D `value` transposed (a new `linalg.transpose`).
static Value buildTranspose2D(RewriterBase &rewriter, Location loc,
                              Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  Value init = tensor::EmptyOp::create(rewriter, loc,
                                       {type.getDimSize(1), type.getDimSize(0)},
                                       type.getElementType());
  return linalg::TransposeOp::create(rewriter, loc, value, init,
                                     ArrayRef<int64_t>{1, 0})
      .getResult()[0];
}

/// `value` converted element-wise to the element type of `type` (extension
/// or rounding to nearest even).
static Value buildConvert(RewriterBase &rewriter, Location loc, Value value,
                          RankedTensorType type) {
  int64_t rank = type.getRank();
  AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
  Value init = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                       type.getElementType());
  return linalg::GenericOp::create(
             rewriter, loc, TypeRange{type}, ValueRange{value},
             ValueRange{init}, ArrayRef<AffineMap>{identity, identity},
             SmallVector<utils::IteratorType>(rank,
                                              utils::IteratorType::parallel),
             [](OpBuilder &b, Location bodyLoc, ValueRange args) {
               Type from = args[0].getType(), to = args[1].getType();
               Value v = args[0];
               if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
                 v = arith::ExtFOp::create(b, bodyLoc, to, v);
               else if (from != to)
                 v = arith::TruncFOp::create(b, bodyLoc, to, v);
               linalg::YieldOp::create(b, bodyLoc, v);
             })
      .getResult(0);
}

namespace {
/// The operands of a grouped GEMM as the rewrite feeds them (after making
/// 2d-2d operands token-major for padding).
struct GroupedOperands {
  MatmulOperandPlan lhs, rhs;
  /// 2d-2d operands transposed to token-major before padding.
  bool lhsMadeTokenMajor = false, rhsMadeTokenMajor = false;
};
} // namespace

/// The final orientation of the operands of `plan`: with padding or
/// per-group scales, a 2d-2d operand stored feature-major is read token-major
/// (transposed first).
static GroupedOperands getGroupedOperands(const MatmulPlan &plan) {
  GroupedOperands ops{plan.lhs, plan.rhs};
  if (!plan.grouped.twoDTwoD || (plan.grouped.padding == TokenPadding::None &&
                                 !plan.grouped.perGroupScales))
    return ops;
  if (!ops.lhs.transposed) {
    ops.lhsMadeTokenMajor = true;
    ops.lhs.transposed = true;
    ops.lhs.axis = 0;
  }
  if (ops.rhs.transposed) {
    ops.rhsMadeTokenMajor = true;
    ops.rhs.transposed = false;
    ops.rhs.axis = 0;
  }
  return ops;
}

Operation *mxfp8train::detail::rewriteGroupedMm(RewriterBase &rewriter,
                                                const MatmulPlan &plan,
                                                RecipeAttrInterface recipe) {
  auto op = cast<GroupedMmOp>(plan.op);
  const GroupedMmPlan &g = plan.grouped;
  Location loc = op.getLoc();
  recipe = getRecipeOrDefault(op->getContext(), recipe);
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);

  GroupedOperands ops = getGroupedOperands(plan);
  Value lhs = plan.lhs.stored, rhs = plan.rhs.stored;
  Value gemmOffs = g.offs, rhsOffs = g.offs;
  bool padded = g.padding != TokenPadding::None;
  if (ops.lhsMadeTokenMajor)
    lhs = buildTranspose2D(rewriter, loc, lhs);
  if (ops.rhsMadeTokenMajor)
    rhs = buildTranspose2D(rewriter, loc, rhs);
  if (padded) {
    // Every token-major operand is padded with the original offs; the
    // padded offs of both pads are equal, the lhs's is used.
    std::tie(lhs, gemmOffs) =
        getOrCreatePadTokenGroups(rewriter, loc, lhs, g.offs, g.alignment);
    rhsOffs = gemmOffs;
    if (g.twoDTwoD)
      std::tie(rhs, rhsOffs) =
          getOrCreatePadTokenGroups(rewriter, loc, rhs, g.offs, g.alignment);
  }

  // Float8 2d-2d: scales per group and column over the group's tokens. Each
  // operand is cast with the (equal) padded offs of its own pad, so a tensor
  // feeding several weight gradients is cast once.
  auto [lhsData, lhsScales] =
      getOrCreateQuantize(rewriter, loc, lhs, ops.lhs.axis,
                          recipe.getOperandCast(plan.role, /*grouped=*/true, 0),
                          g.perGroupScales ? gemmOffs : Value());
  auto [rhsData, rhsScales] =
      getOrCreateQuantize(rewriter, loc, rhs, ops.rhs.axis,
                          recipe.getOperandCast(plan.role, /*grouped=*/true, 1),
                          g.perGroupScales ? rhsOffs : Value());

  RankedTensorType resultType = op.getResult().getType();
  SmallVector<int64_t> gemmShape(resultType.getShape());
  if (padded && !g.twoDTwoD)
    gemmShape[0] = cast<RankedTensorType>(lhs.getType()).getDimSize(0);
  auto gemmType = RankedTensorType::get(gemmShape, g.productElemType);
  Operation *gemm;
  if (recipe.isEmulated()) {
    // torchao EMULATED: a high-precision grouped GEMM on exactly dequantized
    // MX operands.
    Value lhsDq = getOrCreateDequantize(rewriter, loc, lhsData, lhsScales,
                                        ops.lhs.axis, lhs.getType());
    Value rhsDq = getOrCreateDequantize(rewriter, loc, rhsData, rhsScales,
                                        ops.rhs.axis, rhs.getType());
    gemm = GroupedMmOp::create(rewriter, loc, gemmType, lhsDq, rhsDq, gemmOffs,
                               ops.lhs.transposed, ops.rhs.transposed);
  } else {
    gemm = ScaledGroupedMmOp::create(rewriter, loc, gemmType, lhsData,
                                     lhsScales, rhsData, rhsScales, gemmOffs,
                                     ops.lhs.transposed, ops.rhs.transposed);
  }
  setGemmAttributes(gemm, recipe, plan.role, /*grouped=*/true);

  Value result = gemm->getResult(0);
  if (padded && !g.twoDTwoD)
    result = UnpadTokenGroupsOp::create(rewriter, loc,
                                        resultType.clone(g.productElemType),
                                        result, g.offs, g.alignment);
  if (g.productElemType != resultType.getElementType())
    result = buildConvert(rewriter, loc, result, resultType);
  rewriter.replaceOp(op, result);
  eraseDeadOps(rewriter, {plan.lhs.transpose, plan.rhs.transpose});
  return gemm;
}

std::string
mxfp8train::detail::describeGroupedConversion(const MatmulPlan &plan,
                                              RecipeAttrInterface recipe) {
  recipe = getRecipeOrDefault(plan.op->getContext(), recipe);
  const GroupedMmPlan &g = plan.grouped;
  GroupedOperands ops = getGroupedOperands(plan);
  bool emulated = recipe.isEmulated();
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "mxfp8train: converted" << (emulated ? " to emulated MX" : "")
     << " (grouped " << (g.twoDTwoD ? "2d-2d" : "2d-3d") << ", role "
     << stringifyMatmulRole(plan.role);
  if (plan.roleFromAttribute)
    os << " from " << kMatmulRoleAttrName;
  auto describeOperand = [&](StringRef what, const MatmulOperandPlan &operand,
                             bool madeTokenMajor) {
    os << ", " << what << describeTransposeSource(operand);
    if (madeTokenMajor)
      os << " made token-major";
  };
  describeOperand("lhs", plan.lhs, ops.lhsMadeTokenMajor);
  StringRef perGroup = g.perGroupScales ? " per token group" : "";
  os << " quantized along axis " << ops.lhs.axis
     << describeCast(recipe, plan.role, /*grouped=*/true, 0) << perGroup;
  describeOperand("rhs", plan.rhs, ops.rhsMadeTokenMajor);
  os << " along axis " << ops.rhs.axis
     << describeCast(recipe, plan.role, /*grouped=*/true, 1) << perGroup;
  switch (g.padding) {
  case TokenPadding::Recipe:
    os << ", token groups padded to " << g.alignment << " (pad_token_groups)";
    break;
  case TokenPadding::Wgrad:
    os << ", token groups padded to " << g.alignment
       << " (32-token blocks must not straddle groups)";
    break;
  case TokenPadding::None:
    if (!g.alignedBecause.empty())
      os << ", token groups already aligned (" << g.alignedBecause << ")";
    break;
  }
  auto resultType = cast<RankedTensorType>(plan.op->getResult(0).getType());
  if (g.productElemType != resultType.getElementType())
    os << ", out_dtype " << g.productElemType << " extended to "
       << resultType.getElementType();
  os << ", recipe " << describeRecipe(recipe) << ")";
  return s;
}
