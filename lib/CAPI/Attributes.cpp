//===- Attributes.cpp - C API of the mxfp8train attributes ----------------===//
//
// Constructors and accessors of the recipe, scale-mode, kernel-preference
// and scale-layout attributes.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train-c/Attributes.h"

#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainAttrs.h"
#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainDialect.h"
#include "mxfp8train/Dialect/MXFP8Train/Transforms/Transforms.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace mlir::mxfp8train;

static_assert(MXFP8TrainScaleModeFloor == (int)ScaleMode::Floor &&
                  MXFP8TrainScaleModeRceil == (int)ScaleMode::Rceil &&
                  MXFP8TrainScaleModeCeil == (int)ScaleMode::Ceil &&
                  MXFP8TrainScaleModeEven == (int)ScaleMode::Even,
              "C scale modes must match the ODS enum");
static_assert(MXFP8TrainKernelPreferenceAuto == (int)KernelPreference::Auto &&
                  MXFP8TrainKernelPreferenceEmulated ==
                      (int)KernelPreference::Emulated,
              "C kernel preferences must match the ODS enum");
static_assert(MXFP8TrainScaleLayoutRowMajor == (int)ScaleLayout::RowMajor &&
                  MXFP8TrainScaleLayoutBlocked == (int)ScaleLayout::Blocked &&
                  MXFP8TrainScaleLayoutBlockedMGroups ==
                      (int)ScaleLayout::BlockedMGroups &&
                  MXFP8TrainScaleLayoutBlockedKGroups ==
                      (int)ScaleLayout::BlockedKGroups &&
                  MXFP8TrainScaleLayoutBlockedPerExpert ==
                      (int)ScaleLayout::BlockedPerExpert,
              "C scale layouts must match the ODS enum");

/// Loads the dialect (attributes need it) and returns the context.
static MLIRContext *loadDialect(MlirContext ctx) {
  MLIRContext *context = unwrap(ctx);
  context->getOrLoadDialect<MXFP8TrainDialect>();
  return context;
}

/// Emits `message` at an unknown location of `context`.
static InFlightDiagnostic emitContextError(MLIRContext *context) {
  return emitError(UnknownLoc::get(context));
}

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

MlirStringRef mxfp8trainScaleModeGetName(MXFP8TrainScaleMode mode) {
  std::optional<ScaleMode> value = symbolizeScaleMode((uint32_t)mode);
  return wrap(value ? stringifyScaleMode(*value) : StringRef());
}

MlirStringRef
mxfp8trainKernelPreferenceGetName(MXFP8TrainKernelPreference preference) {
  std::optional<KernelPreference> value =
      symbolizeKernelPreference((uint32_t)preference);
  return wrap(value ? stringifyKernelPreference(*value) : StringRef());
}

MlirStringRef mxfp8trainScaleLayoutGetName(MXFP8TrainScaleLayout layout) {
  std::optional<ScaleLayout> value = symbolizeScaleLayout((uint32_t)layout);
  return wrap(value ? stringifyScaleLayout(*value) : StringRef());
}

//===----------------------------------------------------------------------===//
// Enum attributes
//===----------------------------------------------------------------------===//

bool mxfp8trainAttributeIsAScaleModeAttr(MlirAttribute attr) {
  return isa<ScaleModeAttr>(unwrap(attr));
}

MlirAttribute mxfp8trainScaleModeAttrGet(MlirContext ctx,
                                         MXFP8TrainScaleMode mode) {
  MLIRContext *context = loadDialect(ctx);
  std::optional<ScaleMode> value = symbolizeScaleMode((uint32_t)mode);
  if (!value) {
    emitContextError(context) << "invalid scale mode " << (int)mode;
    return {nullptr};
  }
  return wrap(ScaleModeAttr::get(context, *value));
}

MXFP8TrainScaleMode mxfp8trainScaleModeAttrGetValue(MlirAttribute attr) {
  return (MXFP8TrainScaleMode)cast<ScaleModeAttr>(unwrap(attr)).getValue();
}

bool mxfp8trainAttributeIsAKernelPreferenceAttr(MlirAttribute attr) {
  return isa<KernelPreferenceAttr>(unwrap(attr));
}

MlirAttribute
mxfp8trainKernelPreferenceAttrGet(MlirContext ctx,
                                  MXFP8TrainKernelPreference preference) {
  MLIRContext *context = loadDialect(ctx);
  std::optional<KernelPreference> value =
      symbolizeKernelPreference((uint32_t)preference);
  if (!value) {
    emitContextError(context)
        << "invalid kernel preference " << (int)preference;
    return {nullptr};
  }
  return wrap(KernelPreferenceAttr::get(context, *value));
}

MXFP8TrainKernelPreference
mxfp8trainKernelPreferenceAttrGetValue(MlirAttribute attr) {
  return (MXFP8TrainKernelPreference)cast<KernelPreferenceAttr>(unwrap(attr))
      .getValue();
}

bool mxfp8trainAttributeIsAScaleLayoutAttr(MlirAttribute attr) {
  return isa<ScaleLayoutAttr>(unwrap(attr));
}

MlirAttribute mxfp8trainScaleLayoutAttrGet(MlirContext ctx,
                                           MXFP8TrainScaleLayout layout) {
  MLIRContext *context = loadDialect(ctx);
  std::optional<ScaleLayout> value = symbolizeScaleLayout((uint32_t)layout);
  if (!value) {
    emitContextError(context) << "invalid scale layout " << (int)layout;
    return {nullptr};
  }
  return wrap(ScaleLayoutAttr::get(context, *value));
}

MXFP8TrainScaleLayout mxfp8trainScaleLayoutAttrGetValue(MlirAttribute attr) {
  return (MXFP8TrainScaleLayout)cast<ScaleLayoutAttr>(unwrap(attr)).getValue();
}

//===----------------------------------------------------------------------===//
// Recipe
//===----------------------------------------------------------------------===//

bool mxfp8trainAttributeIsARecipeAttr(MlirAttribute attr) {
  return isa<RecipeAttr>(unwrap(attr));
}

MlirAttribute mxfp8trainRecipeAttrGet(
    MlirContext ctx, MlirType elemType, MXFP8TrainScaleMode scaleMode,
    bool wgradWithHp, MlirType outDtype, bool padTokenGroups,
    int64_t tokenGroupAlignment, MXFP8TrainKernelPreference kernelPreference) {
  MLIRContext *context = loadDialect(ctx);
  std::optional<ScaleMode> mode = symbolizeScaleMode((uint32_t)scaleMode);
  if (!mode) {
    emitContextError(context)
        << "invalid recipe scale_calculation_mode " << (int)scaleMode;
    return {nullptr};
  }
  std::optional<KernelPreference> preference =
      symbolizeKernelPreference((uint32_t)kernelPreference);
  if (!preference) {
    emitContextError(context)
        << "invalid recipe kernel_preference " << (int)kernelPreference;
    return {nullptr};
  }
  Type elem = mlirTypeIsNull(elemType) ? Float8E4M3FNType::get(context)
                                       : unwrap(elemType);
  Type out =
      mlirTypeIsNull(outDtype) ? BFloat16Type::get(context) : unwrap(outDtype);
  return wrap(RecipeAttr::getChecked(
      [&] { return emitContextError(context); }, context, elem, *mode,
      wgradWithHp, out, padTokenGroups, tokenGroupAlignment, *preference));
}

MlirAttribute mxfp8trainRecipeAttrGetDefault(MlirContext ctx) {
  return wrap(RecipeAttr::getDefault(loadDialect(ctx)));
}

MlirAttribute mxfp8trainRecipeAttrGetNamed(MlirContext ctx,
                                           MlirStringRef name) {
  return wrap(RecipeAttr::getNamed(loadDialect(ctx), unwrap(name)));
}

MlirAttribute mxfp8trainRecipeAttrParse(MlirContext ctx, MlirStringRef text) {
  MLIRContext *context = loadDialect(ctx);
  std::string error;
  RecipeAttrInterface recipe =
      parseTrainingRecipeOption(context, unwrap(text), error);
  if (!recipe)
    emitContextError(context)
        << "invalid recipe '" << unwrap(text) << "': " << error;
  return wrap(recipe);
}

MlirType mxfp8trainRecipeAttrGetElemType(MlirAttribute attr) {
  return wrap(cast<RecipeAttr>(unwrap(attr)).getElemType());
}

MXFP8TrainScaleMode mxfp8trainRecipeAttrGetScaleMode(MlirAttribute attr) {
  return (MXFP8TrainScaleMode)cast<RecipeAttr>(unwrap(attr)).getScaleMode();
}

bool mxfp8trainRecipeAttrGetWgradWithHp(MlirAttribute attr) {
  return cast<RecipeAttr>(unwrap(attr)).getWgradWithHp();
}

MlirType mxfp8trainRecipeAttrGetOutDtype(MlirAttribute attr) {
  return wrap(cast<RecipeAttr>(unwrap(attr)).getOutDtype());
}

bool mxfp8trainRecipeAttrGetPadTokenGroups(MlirAttribute attr) {
  return cast<RecipeAttr>(unwrap(attr)).getPadTokenGroups();
}

int64_t mxfp8trainRecipeAttrGetTokenGroupAlignment(MlirAttribute attr) {
  return cast<RecipeAttr>(unwrap(attr)).getTokenGroupAlignment();
}

MXFP8TrainKernelPreference
mxfp8trainRecipeAttrGetKernelPreference(MlirAttribute attr) {
  return (MXFP8TrainKernelPreference)cast<RecipeAttr>(unwrap(attr))
      .getKernelPreference();
}

MlirStringRef mxfp8trainRecipeAttrGetName(MlirAttribute attr) {
  return wrap(cast<RecipeAttr>(unwrap(attr)).getRecipeName());
}
