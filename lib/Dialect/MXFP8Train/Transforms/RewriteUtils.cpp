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

#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainDialect.h"
#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainOps.h"
#include "mxfp8train/Dialect/MXFP8Train/Transforms/Transforms.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/SetVector.h"
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

RecipeAttr mxfp8train::parseRecipeOption(MLIRContext *context, StringRef text,
                                         std::string &error) {
  context->getOrLoadDialect<MXFP8TrainDialect>();
  StringRef trimmed = text.trim();
  if (RecipeAttr named = RecipeAttr::getNamed(context, trimmed))
    return named;
  std::string source = trimmed.starts_with("#")
                           ? trimmed.str()
                           : ("#mxfp8train.recipe<" + trimmed + ">").str();
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
  auto recipe = dyn_cast_or_null<RecipeAttr>(attr);
  if (!recipe)
    error =
        messages.empty() ? "expected a #mxfp8train.recipe attribute" : messages;
  return recipe;
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

RecipeAttr mxfp8train::detail::getRecipeOrDefault(MLIRContext *context,
                                                  RecipeAttr recipe) {
  return recipe ? recipe : RecipeAttr::getDefault(context);
}

std::string mxfp8train::detail::describeRecipe(RecipeAttr recipe) {
  StringRef name = recipe.getRecipeName();
  return name.empty() ? printToString(Attribute(recipe)) : name.str();
}

LogicalResult mxfp8train::detail::getRoleOverride(
    Operation *op, std::optional<MatmulRole> &role, std::string &reason) {
  role = std::nullopt;
  Attribute attr = op->getDiscardableAttr(kMatmulRoleAttrName);
  if (!attr)
    return success();
  if (auto name = dyn_cast<StringAttr>(attr))
    role = symbolizeMatmulRole(name.getValue());
  if (role)
    return success();
  reason = "invalid " + kMatmulRoleAttrName.str() + " " + printToString(attr) +
           "; expected \"forward\", \"dgrad\" or \"wgrad\"";
  return failure();
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
                                Value input, int64_t axis, Type elemType,
                                ScaleMode mode) {
  Block *block = rewriter.getInsertionBlock();
  Block::iterator ip = rewriter.getInsertionPoint();
  for (Operation *user : input.getUsers()) {
    auto quantize = dyn_cast<QuantizeOp>(user);
    if (quantize && quantize.getInput() == input &&
        static_cast<int64_t>(quantize.getAxis()) == axis &&
        quantize.getScaleMode() == mode &&
        quantize.getScaleLayout() == ScaleLayout::RowMajor &&
        quantize.getData().getType().getElementType() == elemType &&
        reuseAtInsertionPoint(rewriter, quantize, block, ip))
      return {quantize.getData(), quantize.getScales()};
  }
  auto inputType = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> scaleShape(inputType.getShape());
  scaleShape[axis] /= kBlockSize;
  auto dataType = inputType.clone(elemType);
  auto scalesType = RankedTensorType::get(
      scaleShape, Float8E8M0FNUType::get(rewriter.getContext()));
  auto quantize = QuantizeOp::create(rewriter, loc, dataType, scalesType, input,
                                     axis, mode);
  return {quantize.getData(), quantize.getScales()};
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
  llvm::SetVector<Operation *> unique;
  for (Operation *op : candidates)
    if (op)
      unique.insert(op);
  llvm::SetVector<Operation *> producers;
  for (Operation *op : unique) {
    if (!isOpTriviallyDead(op))
      continue;
    for (Value operand : op->getOperands())
      if (Operation *producer = operand.getDefiningOp())
        producers.insert(producer);
    // A candidate may produce another one's operand; never revisit it.
    producers.remove(op);
    rewriter.eraseOp(op);
  }
  for (Operation *op : producers)
    if (isOpTriviallyDead(op))
      rewriter.eraseOp(op);
}
