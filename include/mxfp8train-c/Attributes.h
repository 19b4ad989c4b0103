/*===- Attributes.h - C API of the mxfp8train attributes ---------*- C -*-===*\
|*                                                                            *|
|* Constructors and accessors of #mxfp8train.recipe (torchao                  *|
|* MXFP8TrainingOpConfig), #mxfp8train.scale_mode, #mxfp8train.scale_layout   *|
|* and #mxfp8train.kernel_preference. Constructors return a null attribute    *|
|* (mlirAttributeIsNull) on invalid input, after emitting an error on the     *|
|* context (at an unknown location) that diagnostic handlers receive.         *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef MXFP8TRAIN_C_ATTRIBUTES_H
#define MXFP8TRAIN_C_ATTRIBUTES_H

#include "mlir-c/IR.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

//===----------------------------------------------------------------------===//
// Enums (values equal to the ODS enum cases)
//===----------------------------------------------------------------------===//
//
// Each enum is an int32_t typedef with named constants, not a C enum type:
// the functions check the value they are given (an out-of-range value gets
// an error or an empty answer), and a C enum would make that value
// undefined on the C++ side of the API.

/// How an e8m0 block scale is computed (SPEC §2): an MXFP8TrainScaleMode*.
typedef int32_t MXFP8TrainScaleMode;
enum {
  MXFP8TrainScaleModeFloor = 0,
  MXFP8TrainScaleModeRceil = 1,
  MXFP8TrainScaleModeCeil = 2,
  MXFP8TrainScaleModeEven = 3,
};

/// Which kernels a recipe asks for (torchao KernelPreference): an
/// MXFP8TrainKernelPreference*.
typedef int32_t MXFP8TrainKernelPreference;
enum {
  MXFP8TrainKernelPreferenceAuto = 0,
  MXFP8TrainKernelPreferenceEmulated = 1,
};

/// Memory layout of an e8m0 scale tensor (SPEC §4): an
/// MXFP8TrainScaleLayout*.
typedef int32_t MXFP8TrainScaleLayout;
enum {
  MXFP8TrainScaleLayoutRowMajor = 0,
  MXFP8TrainScaleLayoutBlocked = 1,
  MXFP8TrainScaleLayoutBlockedMGroups = 2,
  MXFP8TrainScaleLayoutBlockedKGroups = 3,
  MXFP8TrainScaleLayoutBlockedPerExpert = 4,
};

/// The IR spelling of a scale mode (`rceil`, ...); empty when out of range.
MLIR_CAPI_EXPORTED MlirStringRef
mxfp8trainScaleModeGetName(MXFP8TrainScaleMode mode);

/// The IR spelling of a kernel preference; empty when out of range.
MLIR_CAPI_EXPORTED MlirStringRef
mxfp8trainKernelPreferenceGetName(MXFP8TrainKernelPreference preference);

/// The IR spelling of a scale layout (`blocked_m_groups`, ...); empty when
/// out of range.
MLIR_CAPI_EXPORTED MlirStringRef
mxfp8trainScaleLayoutGetName(MXFP8TrainScaleLayout layout);

//===----------------------------------------------------------------------===//
// #mxfp8train.scale_mode, #mxfp8train.kernel_preference,
// #mxfp8train.scale_layout
//===----------------------------------------------------------------------===//

MLIR_CAPI_EXPORTED bool mxfp8trainAttributeIsAScaleModeAttr(MlirAttribute attr);
/// `#mxfp8train.scale_mode<...>`; null for a mode out of range.
MLIR_CAPI_EXPORTED MlirAttribute
mxfp8trainScaleModeAttrGet(MlirContext ctx, MXFP8TrainScaleMode mode);
/// The mode of a scale_mode attribute (which `attr` must be).
MLIR_CAPI_EXPORTED MXFP8TrainScaleMode
mxfp8trainScaleModeAttrGetValue(MlirAttribute attr);

MLIR_CAPI_EXPORTED bool
mxfp8trainAttributeIsAKernelPreferenceAttr(MlirAttribute attr);
/// `#mxfp8train.kernel_preference<...>`; null for a value out of range.
MLIR_CAPI_EXPORTED MlirAttribute mxfp8trainKernelPreferenceAttrGet(
    MlirContext ctx, MXFP8TrainKernelPreference preference);
MLIR_CAPI_EXPORTED MXFP8TrainKernelPreference
mxfp8trainKernelPreferenceAttrGetValue(MlirAttribute attr);

MLIR_CAPI_EXPORTED bool
mxfp8trainAttributeIsAScaleLayoutAttr(MlirAttribute attr);
/// `#mxfp8train.scale_layout<...>`; null for a layout out of range.
MLIR_CAPI_EXPORTED MlirAttribute
mxfp8trainScaleLayoutAttrGet(MlirContext ctx, MXFP8TrainScaleLayout layout);
MLIR_CAPI_EXPORTED MXFP8TrainScaleLayout
mxfp8trainScaleLayoutAttrGetValue(MlirAttribute attr);

//===----------------------------------------------------------------------===//
// #mxfp8train.recipe
//===----------------------------------------------------------------------===//

MLIR_CAPI_EXPORTED bool mxfp8trainAttributeIsARecipeAttr(MlirAttribute attr);

/// A recipe from its fields (see MXFP8TrainAttrs.td for their meaning). A
/// null `elemType` means f8E4M3FN and a null `outDtype` bf16. Null, with an
/// error emitted, when a field is invalid: `elemType` not f8E4M3FN/f8E5M2,
/// `outDtype` not bf16/f32, `tokenGroupAlignment` not 32/128, or an enum
/// out of range.
MLIR_CAPI_EXPORTED MlirAttribute mxfp8trainRecipeAttrGet(
    MlirContext ctx, MlirType elemType, MXFP8TrainScaleMode scaleMode,
    bool wgradWithHp, MlirType outDtype, bool padTokenGroups,
    int64_t tokenGroupAlignment, MXFP8TrainKernelPreference kernelPreference);

/// The recipe with torchao's defaults (`mxfp8_rceil`).
MLIR_CAPI_EXPORTED MlirAttribute
mxfp8trainRecipeAttrGetDefault(MlirContext ctx);

/// A named torchao recipe (`mxfp8_rceil`, `mxfp8_rceil_wgrad_with_hp`,
/// `mxfp8_emulated_rceil`); null (no diagnostic) for another name.
MLIR_CAPI_EXPORTED MlirAttribute
mxfp8trainRecipeAttrGetNamed(MlirContext ctx, MlirStringRef name);

/// A recipe from the text of mxfp8train-rewrite-matmuls' `recipe` option: a
/// torchao name, the body of `#mxfp8train.recipe<...>` (e.g.
/// `scale_calculation_mode = floor, wgrad_with_hp = true`) or the whole
/// attribute. Null, with the parser's error emitted, on bad text. A Float8
/// name or body (`float8_rowwise`, `fp8_rowwise, pad_token_groups = true`)
/// gives a `#mxfp8train.float8_recipe`, which the field accessors below do
/// not take (mxfp8trainAttributeIsARecipeAttr is false for it).
MLIR_CAPI_EXPORTED MlirAttribute mxfp8trainRecipeAttrParse(MlirContext ctx,
                                                           MlirStringRef text);

/// The field accessors; `attr` must be a recipe.
MLIR_CAPI_EXPORTED MlirType mxfp8trainRecipeAttrGetElemType(MlirAttribute attr);
MLIR_CAPI_EXPORTED MXFP8TrainScaleMode
mxfp8trainRecipeAttrGetScaleMode(MlirAttribute attr);
MLIR_CAPI_EXPORTED bool mxfp8trainRecipeAttrGetWgradWithHp(MlirAttribute attr);
MLIR_CAPI_EXPORTED MlirType mxfp8trainRecipeAttrGetOutDtype(MlirAttribute attr);
MLIR_CAPI_EXPORTED bool
mxfp8trainRecipeAttrGetPadTokenGroups(MlirAttribute attr);
MLIR_CAPI_EXPORTED int64_t
mxfp8trainRecipeAttrGetTokenGroupAlignment(MlirAttribute attr);
MLIR_CAPI_EXPORTED MXFP8TrainKernelPreference
mxfp8trainRecipeAttrGetKernelPreference(MlirAttribute attr);
/// The torchao name equal to the recipe (`mxfp8_rceil`, ...), or "".
MLIR_CAPI_EXPORTED MlirStringRef
mxfp8trainRecipeAttrGetName(MlirAttribute attr);

#ifdef __cplusplus
}
#endif

#endif // MXFP8TRAIN_C_ATTRIBUTES_H
