//===- Float8RecipeAttr.cpp - the Float8 training recipe attribute --------===//
//
// Parser, printer and verifier of `#mxfp8train.float8_recipe` (torchao
// `Float8TrainingOpConfig` / `Float8LinearConfig`, SPEC-float8 §4).
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainAttrs.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlir::mxfp8train;

/// torchao's default of `round_scales_to_power_of_2` for a linear recipe:
/// on for the rowwise recipes, off for tensorwise (SPEC-float8 §4.2).
static bool getDefaultPow2(Float8LinearRecipe recipe) {
  return recipe != Float8LinearRecipe::Tensorwise;
}

Float8RecipeAttr Float8RecipeAttr::getDefault(MLIRContext *context,
                                              Float8LinearRecipe linearRecipe) {
  Builder b(context);
  return Float8RecipeAttr::get(
      context, linearRecipe, Float8E4M3FNType::get(context), b.getBF16Type(),
      /*padTokenGroups=*/false, getDefaultPow2(linearRecipe));
}

StringRef Float8RecipeAttr::getRecipeName() const {
  if (*this != getDefault(getContext(), getLinearRecipe()))
    return "";
  return stringifyFloat8LinearRecipe(getLinearRecipe());
}

RecipeOperandCast Float8RecipeAttr::getOperandCast(MatmulRole role,
                                                   bool grouped,
                                                   unsigned operand) const {
  MLIRContext *ctx = getContext();
  RecipeOperandCast cast;
  cast.elemType = Float8E4M3FNType::get(ctx);
  cast.granularity = Float8Granularity::Axiswise;
  cast.pow2 = getRoundScalesToPowerOf2();
  // The grouped recipe: float8_dtype, rowwise, power-of-2 scales in all three
  // GEMMs, whatever the linear recipe (SPEC-float8 §4.4).
  if (grouped) {
    cast.elemType = getFloat8Dtype();
    cast.pow2 = true;
    return cast;
  }
  // The lhs of both backward GEMMs is grad_output.
  bool gradOutput = role != MatmulRole::Forward && operand == 0;
  switch (getLinearRecipe()) {
  case Float8LinearRecipe::Tensorwise:
    cast.granularity = Float8Granularity::Tensorwise;
    if (gradOutput)
      cast.elemType = Float8E5M2Type::get(ctx);
    break;
  case Float8LinearRecipe::Rowwise:
    break;
  case Float8LinearRecipe::RowwiseWithGwHp:
    // The weight of grad_input is cast tensorwise (SPEC-float8 §3.2).
    if (role == MatmulRole::Dgrad && operand == 1)
      cast.granularity = Float8Granularity::Tensorwise;
    break;
  }
  return cast;
}

LogicalResult
Float8RecipeAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         Float8LinearRecipe linearRecipe, Type float8Dtype,
                         Type outDtype, bool padTokenGroups,
                         bool roundScalesToPowerOf2) {
  if (!isa<Float8E4M3FNType, Float8E5M2Type>(float8Dtype))
    return emitError() << "float8 recipe float8_dtype must be f8E4M3FN or "
                          "f8E5M2, found "
                       << float8Dtype;
  if (!isa<BFloat16Type, Float32Type>(outDtype))
    return emitError() << "float8 recipe out_dtype must be bf16 or f32, found "
                       << outDtype;
  return success();
}

Attribute Float8RecipeAttr::parse(AsmParser &parser, Type) {
  MLIRContext *ctx = parser.getContext();
  if (parser.parseLess())
    return {};
  SMLoc nameLoc = parser.getCurrentLocation();
  std::string name;
  if (parser.parseKeywordOrString(&name))
    return {};
  std::optional<Float8LinearRecipe> recipe =
      name == "fp8_rowwise" ? Float8LinearRecipe::Rowwise
                            : symbolizeFloat8LinearRecipe(name);
  if (!recipe) {
    parser.emitError(nameLoc, "expected a float8 recipe name "
                              "(float8_tensorwise, float8_rowwise, "
                              "float8_rowwise_with_gw_hp, fp8_rowwise) first, "
                              "found '")
        << name << "'";
    return {};
  }
  Float8RecipeAttr d = getDefault(ctx, *recipe);
  Type float8Dtype = d.getFloat8Dtype(), outDtype = d.getOutDtype();
  bool pad = d.getPadTokenGroups(), pow2 = d.getRoundScalesToPowerOf2();
  llvm::StringSet<> seen;
  while (succeeded(parser.parseOptionalComma())) {
    SMLoc loc = parser.getCurrentLocation();
    std::string key;
    if (parser.parseKeywordOrString(&key) || parser.parseEqual())
      return {};
    if (!seen.insert(key).second) {
      parser.emitError(loc, "float8 recipe field '")
          << key << "' is given twice";
      return {};
    }
    if (key == "float8_dtype") {
      if (parser.parseType(float8Dtype))
        return {};
    } else if (key == "out_dtype") {
      if (parser.parseType(outDtype))
        return {};
    } else if (key == "pad_token_groups" ||
               key == "round_scales_to_power_of_2") {
      FailureOr<bool> value = parseBoolParameter(parser);
      if (failed(value))
        return {};
      (key == "pad_token_groups" ? pad : pow2) = *value;
    } else {
      parser.emitError(loc, "unknown float8 recipe field '") << key << "'";
      return {};
    }
  }
  if (parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(parser.getNameLoc()); }, ctx,
                    *recipe, float8Dtype, outDtype, pad, pow2);
}

void Float8RecipeAttr::print(AsmPrinter &printer) const {
  Float8RecipeAttr d = getDefault(getContext(), getLinearRecipe());
  printer << "<" << stringifyFloat8LinearRecipe(getLinearRecipe());
  if (getFloat8Dtype() != d.getFloat8Dtype())
    printer << ", float8_dtype = " << getFloat8Dtype();
  if (getOutDtype() != d.getOutDtype())
    printer << ", out_dtype = " << getOutDtype();
  if (getPadTokenGroups() != d.getPadTokenGroups())
    printer << ", pad_token_groups = "
            << (getPadTokenGroups() ? "true" : "false");
  if (getRoundScalesToPowerOf2() != d.getRoundScalesToPowerOf2())
    printer << ", round_scales_to_power_of_2 = "
            << (getRoundScalesToPowerOf2() ? "true" : "false");
  printer << ">";
}
