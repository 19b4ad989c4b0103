//===- RewriteUtils.cpp - helpers shared by the matmul rewrites -*- C++ -*-===//
//
// What the dense (MatmulRewrite.cpp) and grouped (GroupedMmRewrite.cpp)
// halves of `mxfp8train-rewrite-matmuls` share, so that neither depends on
// the other for it: training roles, the recipe and filter options, the role
// override, reuse of an identical quantize or dequantize, and the erasure of
// ops a rewrite left dead.
//
//===----------------------------------------------------------------------===//

#include "RewriteUtils.h"
#include "OperandViews.h"

#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainDialect.h"
#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainOps.h"
#include "mxfp8train/Dialect/MXFP8Train/Transforms/Transforms.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace mlir::mxfp8train;
using namespace mlir::mxfp8train::detail;

//===----------------------------------------------------------------------===//
// Roles
//===----------------------------------------------------------------------===//

StringRef mxfp8train::stringifyMatmulRole(MatmulRole role) {
  switch (role) {
  case MatmulRole::Forward:
    return "forward";
  case MatmulRole::Dgrad:
    return "dgrad";
  case MatmulRole::Wgrad:
    return "wgrad";
  }
  llvm_unreachable("unknown matmul role");
}

std::optional<MatmulRole> mxfp8train::symbolizeMatmulRole(StringRef name) {
  return llvm::StringSwitch<std::optional<MatmulRole>>(name)
      .Case("forward", MatmulRole::Forward)
      .Case("dgrad", MatmulRole::Dgrad)
      .Case("wgrad", MatmulRole::Wgrad)
      .Default(std::nullopt);
}

MatmulRole mxfp8train::inferMatmulRole(bool lhsTransposed, bool rhsTransposed) {
  // Contracting the stored dim 0 of both operands contracts over the token
  // dimension that every activation and gradient tensor leads with.
  if (lhsTransposed && !rhsTransposed)
    return MatmulRole::Wgrad;
  if (rhsTransposed)
    return MatmulRole::Forward;
  return MatmulRole::Dgrad;
}

//===----------------------------------------------------------------------===//
// Options
//===----------------------------------------------------------------------===//

/// True when the recipe body `text` names a Float8 recipe first (its first
/// entry, before any comma, starts with `float8_` or `fp8_`).
static bool isFloat8RecipeBody(StringRef text) {
  StringRef first = text.split(',').first.trim();
  return first.starts_with("float8_") || first.starts_with("fp8_");
}

RecipeAttrInterface mxfp8train::parseTrainingRecipeOption(MLIRContext *context,
                                                          StringRef text,
                                                          std::string &error) {
  context->getOrLoadDialect<MXFP8TrainDialect>();
  StringRef trimmed = text.trim();
  if (RecipeAttr named = RecipeAttr::getNamed(context, trimmed))
    return named;
  if (trimmed.size() >= 2 &&
      (trimmed.front() == '"' || trimmed.front() == '\'') &&
      trimmed.back() == trimmed.front()) {
    error = "the recipe is quoted (" + trimmed.str() +
            "); write a recipe name or body without quotes";
    return {};
  }
  // An empty text would parse as the MX recipe with every field defaulted:
  // refused, so that an unset variable does not pick a recipe silently. A
  // bare word that names no recipe: say which names exist, MX and Float8
  // alike (the attribute parsers below would each name only theirs).
  bool bareWord = llvm::all_of(
      trimmed, [](char c) { return llvm::isAlnum(c) || c == '_'; });
  if (bareWord && !isFloat8RecipeBody(trimmed)) {
    error = (trimmed.empty() ? std::string("empty recipe")
                             : "unknown recipe '" + trimmed.str() + "'") +
            ": expected one of the named recipes mxfp8_rceil, "
            "mxfp8_rceil_wgrad_with_hp, mxfp8_emulated_rceil (MX), "
            "float8_tensorwise, float8_rowwise, float8_rowwise_with_gw_hp, "
            "fp8_rowwise (Float8), or recipe fields (docs/rewrite.md)";
    return {};
  }
  std::string source;
  if (trimmed.starts_with("#"))
    source = trimmed.str();
  else if (isFloat8RecipeBody(trimmed))
    source = ("#mxfp8train.float8_recipe<" + trimmed + ">").str();
  else
    source = ("#mxfp8train.recipe<" + trimmed + ">").str();
  // Collect the parser's messages instead of letting them escape with a
  // location inside the option string.
  std::string messages;
  Attribute attr;
  {
    ScopedDiagnosticHandler handler(context, [&](Diagnostic &diag) {
      if (!messages.empty())
        messages += "; ";
      messages += diag.str();
      return success();
    });
    attr = parseAttribute(source, context);
  }
  auto recipe = dyn_cast_or_null<RecipeAttrInterface>(attr);
  if (!recipe)
    error = messages.empty() ? "expected a #mxfp8train.recipe or "
                               "#mxfp8train.float8_recipe attribute"
                             : messages;
  return recipe;
}

RecipeAttr mxfp8train::parseRecipeOption(MLIRContext *context, StringRef text,
                                         std::string &error) {
  RecipeAttrInterface recipe = parseTrainingRecipeOption(context, text, error);
  auto mx = dyn_cast_or_null<RecipeAttr>(recipe);
  if (recipe && !mx)
    error = "expected an MX recipe (#mxfp8train.recipe), found " +
            printToString(Attribute(recipe));
  return mx;
}

std::optional<std::string>
mxfp8train::findExcludedName(Location loc, ArrayRef<std::string> patterns,
                             std::string &matched) {
  std::optional<std::string> found;
  if (patterns.empty())
    return found;
  loc->walk([&](Location nested) {
    auto nameLoc = dyn_cast<NameLoc>(nested);
    if (!nameLoc)
      return WalkResult::advance();
    StringRef name = nameLoc.getName().getValue();
    for (const std::string &pattern : patterns) {
      if (!pattern.empty() && name.contains(pattern)) {
        found = name.str();
        matched = pattern;
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  return found;
}

//===----------------------------------------------------------------------===//
// Recipes and role overrides
//===----------------------------------------------------------------------===//

RecipeAttrInterface
mxfp8train::detail::getRecipeOrDefault(MLIRContext *context,
                                       RecipeAttrInterface recipe) {
  if (recipe)
    return recipe;
  return cast<RecipeAttrInterface>(Attribute(RecipeAttr::getDefault(context)));
}

void mxfp8train::detail::setGemmAttributes(Operation *gemm,
                                           RecipeAttrInterface recipe,
                                           MatmulRole role, bool grouped) {
  Builder b(gemm->getContext());
  gemm->setAttr(kMatmulRoleAttrName,
                b.getStringAttr(stringifyMatmulRole(role)));
  if (recipe.isFloat8())
    gemm->setAttr(kUseFastAccumAttrName,
                  b.getBoolAttr(recipe.usesFastAccum(role, grouped)));
}

std::string mxfp8train::detail::describeRecipe(RecipeAttrInterface recipe) {
  StringRef name = recipe.getRecipeName();
  return name.empty() ? printToString(Attribute(recipe)) : name.str();
}

std::string mxfp8train::detail::describeHighPrecisionGemm(
    MatmulRole role, RecipeAttrInterface recipe, bool roleFromAttribute) {
  std::string roleText = "role " + stringifyMatmulRole(role).str();
  if (roleFromAttribute)
    roleText += (" from " + kMatmulRoleAttrName).str();
  if (!recipe.isFloat8())
    return roleText + ", recipe wgrad_with_hp = true";
  return roleText + ", recipe " + describeRecipe(recipe) +
         " keeps grad_weight in high precision";
}

std::string mxfp8train::detail::describeCast(RecipeAttrInterface recipe,
                                             MatmulRole role, bool grouped,
                                             unsigned operand) {
  RecipeOperandCast spec = recipe.getOperandCast(role, grouped, operand);
  if (!spec.granularity)
    return "";
  std::string s;
  llvm::raw_string_ostream os(s);
  os << " (" << spec.elemType << ", "
     << stringifyFloat8Granularity(*spec.granularity)
     << (spec.pow2 ? ", pow2" : "") << ")";
  return s;
}

std::optional<std::string>
mxfp8train::detail::checkGemmAlignment(RecipeAttrInterface recipe, int64_t k,
                                       int64_t n, StringRef kName,
                                       StringRef nName, bool grouped) {
  if (!recipe.isFloat8()) {
    if (k % kBlockSize == 0)
      return std::nullopt;
    return (kName + " = " + Twine(k) + " is not a multiple of " +
            Twine(kBlockSize))
        .str();
  }
  constexpr int64_t kFloat8Alignment = 16;
  for (auto [name, size] : {std::pair(kName, k), std::pair(nName, n)})
    if (size % kFloat8Alignment != 0)
      return (name + " = " + Twine(size) + " is not a multiple of " +
              Twine(kFloat8Alignment) +
              (grouped ? " (torch._scaled_grouped_mm)" : " (torch._scaled_mm)"))
          .str();
  return std::nullopt;
}

/// The value of `op`'s discardable string attribute `name` when it is one
/// of `choices` (std::nullopt when the attribute is absent); failure with
/// `reason` (naming the attribute and `expected`) for any other value.
static FailureOr<std::optional<StringRef>>
readChoiceAttr(Operation *op, StringRef name, ArrayRef<StringRef> choices,
               StringRef expected, std::string &reason) {
  Attribute attr = op->getDiscardableAttr(name);
  if (!attr)
    return std::optional<StringRef>();
  if (auto text = dyn_cast<StringAttr>(attr))
    if (llvm::is_contained(choices, text.getValue()))
      return std::optional<StringRef>(text.getValue());
  reason =
      ("invalid " + name + " " + printToString(attr) + "; expected " + expected)
          .str();
  return failure();
}

LogicalResult mxfp8train::detail::getRoleOverride(
    Operation *op, std::optional<MatmulRole> &role, std::string &reason) {
  role = std::nullopt;
  FailureOr<std::optional<StringRef>> name =
      readChoiceAttr(op, kMatmulRoleAttrName, {"forward", "dgrad", "wgrad"},
                     "\"forward\", \"dgrad\" or \"wgrad\"", reason);
  if (failed(name))
    return failure();
  if (*name)
    role = symbolizeMatmulRole(**name);
  return success();
}

LogicalResult mxfp8train::detail::getGradOutputOverride(
    Operation *op, std::optional<bool> &isRhs, std::string &reason) {
  isRhs = std::nullopt;
  FailureOr<std::optional<StringRef>> name = readChoiceAttr(
      op, kGradOutputAttrName, {"lhs", "rhs"}, "\"lhs\" or \"rhs\"", reason);
  if (failed(name))
    return failure();
  if (*name)
    isRhs = **name == "rhs";
  return success();
}

//===----------------------------------------------------------------------===//
// Reuse and clean-up
//===----------------------------------------------------------------------===//

/// True when `def` dominates the insertion point (`block`, `ip`) in
/// structured control flow: `def` is before it in the same block, or before
/// the ancestor of `block` in its own block. Conservative across the blocks of
/// a CFG region (answers false), which only costs a duplicate op.
static bool dominatesInsertionPoint(Operation *def, Block *block,
                                    Block::iterator ip) {
  if (def->getBlock() == block)
    return ip == block->end() || def->isBeforeInBlock(&*ip);
  Operation *parent = block->getParentOp();
  if (!parent)
    return false;
  Operation *ancestor = def->getBlock()->findAncestorOpInBlock(*parent);
  return ancestor && def->isBeforeInBlock(ancestor);
}

// Moving a later op up makes reuse independent of the order in which a greedy
// driver visits matmuls.
bool mxfp8train::detail::reuseAtInsertionPoint(RewriterBase &rewriter,
                                               Operation *existing,
                                               Block *block,
                                               Block::iterator ip) {
  if (dominatesInsertionPoint(existing, block, ip))
    return true;
  if (existing->getBlock() != block || ip == block->end())
    return false;
  rewriter.moveOpBefore(existing, block, ip);
  return true;
}

std::pair<Value, Value>
mxfp8train::getOrCreateQuantize(RewriterBase &rewriter, Location loc,
                                Value input, int64_t axis,
                                const RecipeOperandCast &spec, Value offs) {
  std::optional<Float8Granularity> granularity = spec.granularity;
  bool tensorwise = granularity == Float8Granularity::Tensorwise;
  if (tensorwise)
    axis = 0;
  Block *block = rewriter.getInsertionBlock();
  Block::iterator ip = rewriter.getInsertionPoint();
  for (Operation *user : input.getUsers()) {
    auto quantize = dyn_cast<QuantizeOp>(user);
    if (!quantize || quantize.getInput() != input ||
        quantize.getOffs() != offs ||
        quantize.getGranularity() != granularity ||
        quantize.getScaleLayout() != ScaleLayout::RowMajor ||
        quantize.getData().getType().getElementType() != spec.elemType)
      continue;
    if (granularity ? quantize.getPow2() != spec.pow2
                    : quantize.getScaleMode() != spec.mode)
      continue;
    if (!tensorwise && static_cast<int64_t>(quantize.getAxis()) != axis)
      continue;
    if (reuseAtInsertionPoint(rewriter, quantize, block, ip))
      return {quantize.getData(), quantize.getScales()};
  }
  MLIRContext *context = rewriter.getContext();
  auto inputType = cast<RankedTensorType>(input.getType());
  auto dataType = inputType.clone(spec.elemType);
  if (!granularity) {
    SmallVector<int64_t> scaleShape(inputType.getShape());
    scaleShape[axis] /= kBlockSize;
    auto scalesType =
        RankedTensorType::get(scaleShape, Float8E8M0FNUType::get(context));
    auto quantize = QuantizeOp::create(rewriter, loc, dataType, scalesType,
                                       input, axis, spec.mode);
    return {quantize.getData(), quantize.getScales()};
  }
  SmallVector<int64_t> scaleShape;
  if (offs) {
    // One scale per group and column (SPEC-float8 §3.3).
    scaleShape = {cast<RankedTensorType>(offs.getType()).getDimSize(0),
                  inputType.getDimSize(1)};
  } else if (!tensorwise) {
    scaleShape.assign(inputType.getShape().begin(), inputType.getShape().end());
    scaleShape[axis] = 1;
  }
  auto scalesType =
      RankedTensorType::get(scaleShape, Float32Type::get(context));
  auto quantize = QuantizeOp::create(
      rewriter, loc, dataType, scalesType, input, offs, axis, ScaleMode::Floor,
      ScaleLayout::RowMajor, Float8GranularityAttr::get(context, *granularity),
      spec.pow2);
  return {quantize.getData(), quantize.getScales()};
}

std::pair<Value, Value>
mxfp8train::getOrCreateQuantize(RewriterBase &rewriter, Location loc,
                                Value input, int64_t axis, Type elemType,
                                ScaleMode mode) {
  RecipeOperandCast spec;
  spec.elemType = elemType;
  spec.mode = mode;
  return getOrCreateQuantize(rewriter, loc, input, axis, spec);
}

Value mxfp8train::detail::getOrCreateDequantize(RewriterBase &rewriter,
                                                Location loc, Value data,
                                                Value scales, int64_t axis,
                                                Type type) {
  Block *block = rewriter.getInsertionBlock();
  Block::iterator ip = rewriter.getInsertionPoint();
  for (Operation *user : data.getUsers()) {
    auto dequantize = dyn_cast<DequantizeOp>(user);
    if (dequantize && dequantize.getData() == data &&
        dequantize.getScales() == scales &&
        static_cast<int64_t>(dequantize.getAxis()) == axis &&
        dequantize.getScaleLayout() == ScaleLayout::RowMajor &&
        dequantize.getType() == type &&
        reuseAtInsertionPoint(rewriter, dequantize, block, ip))
      return dequantize.getResult();
  }
  return DequantizeOp::create(rewriter, loc, type, data, scales, axis);
}
void mxfp8train::detail::eraseDeadOps(RewriterBase &rewriter,
                                      ArrayRef<Operation *> candidates) {
  // A worklist: erasing an op may leave its producers dead in turn (a
  // broadcast of a transpose of a tensor.empty).
  llvm::SetVector<Operation *> worklist;
  for (Operation *op : candidates)
    if (op)
      worklist.insert(op);
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (!isOpTriviallyDead(op))
      continue;
    for (Value operand : op->getOperands())
      if (Operation *producer = operand.getDefiningOp())
        worklist.insert(producer);
    // A candidate may produce another one's operand; never revisit it.
    worklist.remove(op);
    rewriter.eraseOp(op);
  }
}

std::optional<std::string>
mxfp8train::detail::checkStaticSizes(RecipeAttrInterface recipe,
                                     ArrayRef<RankedTensorType> types) {
  for (RankedTensorType type : types)
    if (!type.hasStaticShape())
      return std::string(recipe.isFloat8()
                             ? "dynamic shapes; Float8 scales need static sizes"
                             : "dynamic shapes; MX blocks need static sizes");
  for (RankedTensorType type : types)
    if (!getTensorByteSize(type))
      return "the byte size of '" + printToString(type) + "' overflows int64";
  return std::nullopt;
}

std::optional<TransposeView> mxfp8train::detail::matchTranspose(Value value) {
  if (auto transpose = value.getDefiningOp<linalg::TransposeOp>()) {
    if (!transpose.hasPureTensorSemantics())
      return std::nullopt;
    return TransposeView{transpose, transpose.getInput(),
                         llvm::to_vector(transpose.getPermutation())};
  }
  auto generic = value.getDefiningOp<linalg::GenericOp>();
  if (!generic || !isElementCopy(generic))
    return std::nullopt;
  AffineMap inMap = generic.getIndexingMapsArray()[0];
  AffineMap outMap = generic.getIndexingMapsArray()[1];
  if (!inMap.isPermutation() || !outMap.isPermutation())
    return std::nullopt;
  // Result dimension i is loop dimension outMap(i), which the input reads
  // at its position in inMap.
  SmallVector<int64_t> perm;
  for (AffineExpr e : outMap.getResults()) {
    unsigned loop = cast<AffineDimExpr>(e).getPosition();
    perm.push_back(
        *inMap.getResultPosition(getAffineDimExpr(loop, e.getContext())));
  }
  if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
    return std::nullopt;
  return TransposeView{generic, generic.getDpsInputs()[0], perm};
}

std::string
mxfp8train::detail::describeTransposeSource(const MatmulOperandPlan &operand) {
  if (!operand.transpose)
    return "";
  if (isa<linalg::TransposeOp>(operand.transpose))
    return " via linalg.transpose";
  return " via linalg.generic transpose";
}
