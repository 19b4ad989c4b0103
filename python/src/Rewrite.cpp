//===- Rewrite.cpp - MXFP8 conversion of a module for Python --------------===//
//
// Binds mxfp8trainConvertModule: the recipe is given as text (a torchao name
// or a recipe body) with optional field overrides applied through the
// recipe attribute's C constructor, plus the filters (minimum size, excluded
// location names). The report comes back as a list of tuples; the Python
// layer (mxfp8train/rewrite.py) turns it into objects.
//
//===----------------------------------------------------------------------===//

#include "PyCommon.h"

#include "mxfp8train-c/Attributes.h"
#include "mxfp8train-c/Rewrite.h"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <optional>

namespace nb = nanobind;
using namespace mxfp8train::python;

/// Field overrides of a recipe; unset fields keep the base recipe's value.
namespace {
struct RecipeOverrides {
  std::optional<int> scaleMode;
  std::optional<bool> wgradWithHp;
  std::optional<std::string> outDtype;
  std::optional<bool> padTokenGroups;
  std::optional<int64_t> tokenGroupAlignment;
  std::optional<int> kernelPreference;
  std::optional<std::string> elemType;
};
} // namespace

/// A type from its text (`bf16`, `f8E4M3FN`); null (error emitted) if bad.
static MlirType parseType(MlirContext ctx, const std::string &text) {
  return mlirTypeParseGet(ctx, toStringRef(text));
}

/// The recipe `base` with `overrides` applied; null with an error emitted on
/// the context when the text or a field is invalid.
static MlirAttribute buildRecipe(MlirContext ctx, const std::string &base,
                                 const RecipeOverrides &o) {
  MlirAttribute recipe = mxfp8trainRecipeAttrParse(ctx, toStringRef(base));
  if (mlirAttributeIsNull(recipe))
    return recipe;
  // A Float8 recipe carries its own fields in its text; the overrides are
  // the fields of the MX recipe.
  if (!mxfp8trainAttributeIsARecipeAttr(recipe)) {
    if (o.elemType || o.outDtype || o.scaleMode || o.wgradWithHp ||
        o.padTokenGroups || o.tokenGroupAlignment || o.kernelPreference)
      throw nb::value_error("the recipe fields given as arguments apply to "
                            "MX recipes; give a Float8 recipe's fields in "
                            "its text (e.g. 'fp8_rowwise, pad_token_groups "
                            "= true')");
    return recipe;
  }
  MlirType elemType = mxfp8trainRecipeAttrGetElemType(recipe);
  MlirType outDtype = mxfp8trainRecipeAttrGetOutDtype(recipe);
  if (o.elemType) {
    elemType = parseType(ctx, *o.elemType);
    if (mlirTypeIsNull(elemType))
      return MlirAttribute{nullptr};
  }
  if (o.outDtype) {
    outDtype = parseType(ctx, *o.outDtype);
    if (mlirTypeIsNull(outDtype))
      return MlirAttribute{nullptr};
  }
  return mxfp8trainRecipeAttrGet(
      ctx, elemType,
      o.scaleMode ? static_cast<MXFP8TrainScaleMode>(*o.scaleMode)
                  : mxfp8trainRecipeAttrGetScaleMode(recipe),
      o.wgradWithHp.value_or(mxfp8trainRecipeAttrGetWgradWithHp(recipe)),
      outDtype,
      o.padTokenGroups.value_or(mxfp8trainRecipeAttrGetPadTokenGroups(recipe)),
      o.tokenGroupAlignment.value_or(
          mxfp8trainRecipeAttrGetTokenGroupAlignment(recipe)),
      o.kernelPreference
          ? static_cast<MXFP8TrainKernelPreference>(*o.kernelPreference)
          : mxfp8trainRecipeAttrGetKernelPreference(recipe));
}

static const char *decisionName(MXFP8TrainMatmulDecision decision) {
  switch (decision) {
  case MXFP8TrainMatmulConverted:
    return "converted";
  case MXFP8TrainMatmulKeptHighPrecision:
    return "kept_high_precision";
  case MXFP8TrainMatmulSkipped:
    return "skipped";
  case MXFP8TrainMatmulInvalid:
    return "invalid";
  }
  return "invalid";
}

/// Converts `module` in place. Returns (ok, recipe text, entries) where an
/// entry is (name, location, op name, decision, role, reason, (batch, m, n,
/// k)); (False, "", []) when the recipe is invalid (errors on the context).
static nb::tuple
convertModule(ModuleHandle &module, const std::string &recipeText,
              std::optional<int> scaleMode, std::optional<bool> wgradWithHp,
              std::optional<std::string> outDtype,
              std::optional<bool> padTokenGroups,
              std::optional<int64_t> tokenGroupAlignment,
              std::optional<int> kernelPreference,
              std::optional<std::string> elemType, int64_t minSize,
              const std::vector<std::string> &exclude, bool emitRemarks) {
  MlirContext ctx = mlirModuleGetContext(module.get());
  RecipeOverrides overrides{
      scaleMode,           wgradWithHp,      outDtype, padTokenGroups,
      tokenGroupAlignment, kernelPreference, elemType};
  MlirAttribute recipe = buildRecipe(ctx, recipeText, overrides);
  if (mlirAttributeIsNull(recipe))
    return nb::make_tuple(false, std::string(), nb::list());

  std::vector<MlirStringRef> excludeRefs;
  for (const std::string &e : exclude)
    excludeRefs.push_back(toStringRef(e));
  MXFP8TrainConvertOptions options = mxfp8trainConvertOptionsGetDefault();
  options.recipe = recipe;
  options.minSize = minSize;
  options.exclude = excludeRefs.data();
  options.numExclude = static_cast<intptr_t>(excludeRefs.size());
  options.emitRemarks = emitRemarks;

  std::string recipeString;
  mlirAttributePrint(recipe, appendToString, &recipeString);

  MXFP8TrainConversionReport report =
      mxfp8trainConvertModule(module.get(), &options);
  nb::list entries;
  for (intptr_t i = 0, e = mxfp8trainConversionReportGetNumEntries(report);
       i < e; ++i) {
    MXFP8TrainMatmulReport entry =
        mxfp8trainConversionReportGetEntry(report, i);
    entries.append(
        nb::make_tuple(toString(entry.name), printLocation(entry.location),
                       toString(entry.opName), decisionName(entry.decision),
                       toString(mxfp8trainMatmulRoleGetName(entry.role)),
                       toString(entry.reason),
                       nb::make_tuple(entry.batch, entry.m, entry.n, entry.k)));
  }
  bool ok =
      mlirLogicalResultIsSuccess(mxfp8trainConversionReportGetStatus(report));
  mxfp8trainConversionReportDestroy(report);
  return nb::make_tuple(ok, recipeString, entries);
}

void mxfp8train::python::initRewrite(nb::module_ &m) {
  m.def("convert_module", &convertModule, nb::arg("module"), nb::arg("recipe"),
        nb::arg("scale_mode").none(), nb::arg("wgrad_with_hp").none(),
        nb::arg("out_dtype").none(), nb::arg("pad_token_groups").none(),
        nb::arg("token_group_alignment").none(),
        nb::arg("kernel_preference").none(), nb::arg("elem_type").none(),
        nb::arg("min_size"), nb::arg("exclude"), nb::arg("emit_remarks"),
        "Runs the matmul rewrite in place; returns (ok, recipe, entries).");
}
