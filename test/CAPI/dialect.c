//===- dialect.c - C API: dialect, attributes, passes -----------*- C -*-===//
//
// The dialect handle, the recipe / scale_mode / kernel_preference /
// scale_layout attributes read back field by field, their errors as
// diagnostics, and the generated pass entry points and pipelines.
//
//===----------------------------------------------------------------------===//

// RUN: mxfp8train-capi-dialect-test 2>&1 | FileCheck %s

#include "mxfp8train-c/Attributes.h"
#include "mxfp8train-c/Dialects.h"
#include "mxfp8train-c/Passes.h"
#include "mxfp8train-c/Registration.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static void printToStderr(MlirStringRef text, void *userData) {
  (void)userData;
  fwrite(text.data, 1, text.length, stderr);
}

static void printAttr(const char *label, MlirAttribute attr) {
  fprintf(stderr, "%s: ", label);
  if (mlirAttributeIsNull(attr))
    fprintf(stderr, "<null>");
  else
    mlirAttributePrint(attr, printToStderr, NULL);
  fprintf(stderr, "\n");
}

static void printType(const char *label, MlirType type) {
  fprintf(stderr, "%s: ", label);
  mlirTypePrint(type, printToStderr, NULL);
  fprintf(stderr, "\n");
}

static void printString(const char *label, MlirStringRef text) {
  fprintf(stderr, "%s: '%.*s'\n", label, (int)text.length, text.data);
}

/// Prints every diagnostic as "diagnostic: <message>".
static MlirLogicalResult onDiagnostic(MlirDiagnostic diag, void *userData) {
  (void)userData;
  fprintf(stderr, "diagnostic: ");
  mlirDiagnosticPrint(diag, printToStderr, NULL);
  fprintf(stderr, "\n");
  return mlirLogicalResultSuccess();
}

static void testDialectHandle(MlirContext ctx) {
  // CHECK-LABEL: @dialect_handle
  fprintf(stderr, "@dialect_handle\n");
  MlirDialectHandle handle = mlirGetDialectHandle__mxfp8train__();
  printString("namespace", mlirDialectHandleGetNamespace(handle));
  // CHECK: namespace: 'mxfp8train'
  MlirDialect dialect = mlirDialectHandleLoadDialect(handle, ctx);
  printString("loaded", mlirDialectGetNamespace(dialect));
  // CHECK: loaded: 'mxfp8train'
  MlirDialect again = mlirContextGetOrLoadDialect(
      ctx, mlirStringRefCreateFromCString("mxfp8train"));
  fprintf(stderr, "same dialect: %d\n", mlirDialectEqual(dialect, again));
  // CHECK: same dialect: 1
}

static void testRecipe(MlirContext ctx) {
  // CHECK-LABEL: @recipe
  fprintf(stderr, "@recipe\n");
  MlirAttribute def = mxfp8trainRecipeAttrGetDefault(ctx);
  printAttr("default", def);
  // CHECK: default: #mxfp8train.recipe<mxfp8_rceil>
  printString("default name", mxfp8trainRecipeAttrGetName(def));
  // CHECK: default name: 'mxfp8_rceil'

  MlirAttribute custom = mxfp8trainRecipeAttrGet(
      ctx, mlirFloat8E5M2TypeGet(ctx), MXFP8TrainScaleModeFloor,
      /*wgradWithHp=*/true, mlirF32TypeGet(ctx), /*padTokenGroups=*/true,
      /*tokenGroupAlignment=*/128, MXFP8TrainKernelPreferenceEmulated);
  printAttr("custom", custom);
  // CHECK: custom: #mxfp8train.recipe<elem_type = f8E5M2, scale_calculation_mode = floor, wgrad_with_hp = true, out_dtype = f32, pad_token_groups = true, token_group_alignment = 128, kernel_preference = emulated>
  fprintf(stderr, "is recipe: %d %d\n",
          mxfp8trainAttributeIsARecipeAttr(custom),
          mxfp8trainAttributeIsARecipeAttr(mlirUnitAttrGet(ctx)));
  // CHECK: is recipe: 1 0
  printType("elem_type", mxfp8trainRecipeAttrGetElemType(custom));
  // CHECK: elem_type: f8E5M2
  printString("scale mode", mxfp8trainScaleModeGetName(
                                mxfp8trainRecipeAttrGetScaleMode(custom)));
  // CHECK: scale mode: 'floor'
  fprintf(stderr, "wgrad_with_hp: %d\n",
          mxfp8trainRecipeAttrGetWgradWithHp(custom));
  // CHECK: wgrad_with_hp: 1
  printType("out_dtype", mxfp8trainRecipeAttrGetOutDtype(custom));
  // CHECK: out_dtype: f32
  fprintf(stderr, "pad_token_groups: %d alignment: %ld\n",
          mxfp8trainRecipeAttrGetPadTokenGroups(custom),
          (long)mxfp8trainRecipeAttrGetTokenGroupAlignment(custom));
  // CHECK: pad_token_groups: 1 alignment: 128
  fprintf(stderr, "kernel_preference: %d\n",
          (int)mxfp8trainRecipeAttrGetKernelPreference(custom));
  // CHECK: kernel_preference: 1
  printString("custom name", mxfp8trainRecipeAttrGetName(custom));
  // CHECK: custom name: ''

  // Null types are the defaults; these fields spell a named recipe.
  MlirAttribute wgradHp = mxfp8trainRecipeAttrGet(
      ctx, (MlirType){NULL}, MXFP8TrainScaleModeRceil, true, (MlirType){NULL},
      false, 32, MXFP8TrainKernelPreferenceAuto);
  printAttr("wgrad hp", wgradHp);
  // CHECK: wgrad hp: #mxfp8train.recipe<mxfp8_rceil_wgrad_with_hp>
  MlirAttribute named = mxfp8trainRecipeAttrGetNamed(
      ctx, mlirStringRefCreateFromCString("mxfp8_rceil_wgrad_with_hp"));
  fprintf(stderr, "named equal: %d\n", mlirAttributeEqual(named, wgradHp));
  // CHECK: named equal: 1
  printAttr("unknown name", mxfp8trainRecipeAttrGetNamed(
                                ctx, mlirStringRefCreateFromCString("mxfp4")));
  // CHECK: unknown name: <null>

  MlirAttribute parsed = mxfp8trainRecipeAttrParse(
      ctx, mlirStringRefCreateFromCString(
               "scale_calculation_mode = even, wgrad_with_hp = true"));
  printAttr("parsed", parsed);
  // CHECK: parsed: #mxfp8train.recipe<scale_calculation_mode = even, wgrad_with_hp = true>
  fprintf(stderr, "parsed mode: %d\n",
          (int)mxfp8trainRecipeAttrGetScaleMode(parsed));
  // CHECK: parsed mode: 3
  printAttr("parsed name",
            mxfp8trainRecipeAttrParse(
                ctx, mlirStringRefCreateFromCString(" mxfp8_emulated_rceil ")));
  // CHECK: parsed name: #mxfp8train.recipe<mxfp8_emulated_rceil>
}

static void testRecipeErrors(MlirContext ctx) {
  // CHECK-LABEL: @recipe_errors
  fprintf(stderr, "@recipe_errors\n");
  printAttr("bf16 elements",
            mxfp8trainRecipeAttrGet(
                ctx, mlirBF16TypeGet(ctx), MXFP8TrainScaleModeRceil, false,
                (MlirType){NULL}, false, 32, MXFP8TrainKernelPreferenceAuto));
  // CHECK: diagnostic: recipe elem_type must be f8E4M3FN or f8E5M2, found 'bf16'
  // CHECK-NEXT: bf16 elements: <null>
  printAttr("alignment 64",
            mxfp8trainRecipeAttrGet(
                ctx, (MlirType){NULL}, MXFP8TrainScaleModeRceil, false,
                (MlirType){NULL}, false, 64, MXFP8TrainKernelPreferenceAuto));
  // CHECK: diagnostic: recipe token_group_alignment must be 32 or 128, found 64
  // CHECK-NEXT: alignment 64: <null>
  printAttr("mode 7", mxfp8trainRecipeAttrGet(ctx, (MlirType){NULL},
                                              (MXFP8TrainScaleMode)7, false,
                                              (MlirType){NULL}, false, 32,
                                              MXFP8TrainKernelPreferenceAuto));
  // CHECK: diagnostic: invalid recipe scale_calculation_mode 7
  // CHECK-NEXT: mode 7: <null>
  printAttr("bad text", mxfp8trainRecipeAttrParse(
                            ctx, mlirStringRefCreateFromCString(
                                     "scale_calculation_mode = round")));
  // CHECK: diagnostic: invalid recipe 'scale_calculation_mode = round': {{.*}}round
  // CHECK-NEXT: bad text: <null>
}

static void testEnumAttributes(MlirContext ctx) {
  // CHECK-LABEL: @enum_attributes
  fprintf(stderr, "@enum_attributes\n");
  MlirAttribute mode = mxfp8trainScaleModeAttrGet(ctx, MXFP8TrainScaleModeCeil);
  printAttr("scale mode", mode);
  // CHECK: scale mode: #mxfp8train<scale_mode ceil>
  fprintf(stderr, "scale mode value: %d isa: %d %d\n",
          (int)mxfp8trainScaleModeAttrGetValue(mode),
          mxfp8trainAttributeIsAScaleModeAttr(mode),
          mxfp8trainAttributeIsAScaleLayoutAttr(mode));
  // CHECK: scale mode value: 2 isa: 1 0
  for (int layout = 0; layout <= 4; ++layout) {
    MlirAttribute attr =
        mxfp8trainScaleLayoutAttrGet(ctx, (MXFP8TrainScaleLayout)layout);
    MlirStringRef name =
        mxfp8trainScaleLayoutGetName(mxfp8trainScaleLayoutAttrGetValue(attr));
    fprintf(stderr, "layout %d %.*s: ", layout, (int)name.length, name.data);
    mlirAttributePrint(attr, printToStderr, NULL);
    fprintf(stderr, "\n");
  }
  // CHECK: layout 0 row_major: #mxfp8train<scale_layout row_major>
  // CHECK: layout 1 blocked: #mxfp8train<scale_layout blocked>
  // CHECK: layout 2 blocked_m_groups: #mxfp8train<scale_layout blocked_m_groups>
  // CHECK: layout 3 blocked_k_groups: #mxfp8train<scale_layout blocked_k_groups>
  // CHECK: layout 4 blocked_per_expert: #mxfp8train<scale_layout blocked_per_expert>
  printAttr("layout 5",
            mxfp8trainScaleLayoutAttrGet(ctx, (MXFP8TrainScaleLayout)5));
  // CHECK: diagnostic: invalid scale layout 5
  // CHECK-NEXT: layout 5: <null>
  MlirAttribute pref = mxfp8trainKernelPreferenceAttrGet(
      ctx, MXFP8TrainKernelPreferenceEmulated);
  printAttr("preference", pref);
  // CHECK: preference: #mxfp8train<kernel_preference emulated>
  fprintf(stderr, "preference value: %d\n",
          (int)mxfp8trainKernelPreferenceAttrGetValue(pref));
  // CHECK: preference value: 1
  printString("mode 9 name",
              mxfp8trainScaleModeGetName((MXFP8TrainScaleMode)9));
  // CHECK: mode 9 name: ''
  // The enums are int32_t: negative values are checked as well.
  printString("mode -1 name", mxfp8trainScaleModeGetName(-1));
  // CHECK: mode -1 name: ''
  printString("preference -2 name", mxfp8trainKernelPreferenceGetName(-2));
  // CHECK: preference -2 name: ''
  printAttr("layout -1", mxfp8trainScaleLayoutAttrGet(ctx, -1));
  // CHECK: diagnostic: invalid scale layout -1
  // CHECK-NEXT: layout -1: <null>
  printAttr("mode INT32_MIN", mxfp8trainScaleModeAttrGet(ctx, INT32_MIN));
  // CHECK: diagnostic: invalid scale mode -2147483648
  // CHECK-NEXT: mode INT32_MIN: <null>

  // An attribute parsed from text is the same attribute.
  MlirAttribute parsed = mlirAttributeParseGet(
      ctx, mlirStringRefCreateFromCString("#mxfp8train<scale_mode rceil>"));
  fprintf(stderr, "parsed rceil: %d\n",
          mlirAttributeEqual(parsed, mxfp8trainScaleModeAttrGet(
                                         ctx, MXFP8TrainScaleModeRceil)));
  // CHECK: parsed rceil: 1
}

static void testPasses(MlirContext ctx) {
  // CHECK-LABEL: @passes
  fprintf(stderr, "@passes\n");
  mxfp8trainRegisterAllPasses();
  mxfp8trainRegisterAllPasses(); // Registering twice is harmless.

  // A registered pass, by name, with options.
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  MlirOpPassManager opm = mlirPassManagerGetAsOpPassManager(pm);
  MlirLogicalResult status =
      mlirParsePassPipeline(opm,
                            mlirStringRefCreateFromCString(
                                "builtin.module(mxfp8train-rewrite-matmuls{"
                                "recipe=mxfp8_emulated_rceil "
                                "min-size=64},convert-mxfp8train-to-linalg)"),
                            printToStderr, NULL);
  fprintf(stderr, "parsed pipeline: %d\n", mlirLogicalResultIsSuccess(status));
  // CHECK: parsed pipeline: 1
  mlirPrintPassPipeline(opm, printToStderr, NULL);
  fprintf(stderr, "\n");
  // CHECK: builtin.module(mxfp8train-rewrite-matmuls{{[{]}}{{ *}}min-size=64 recipe=mxfp8_emulated_rceil remarks=false},convert-mxfp8train-to-linalg)
  mlirPassManagerDestroy(pm);

  // The named pipelines.
  pm = mlirPassManagerCreate(ctx);
  opm = mlirPassManagerGetAsOpPassManager(pm);
  status = mlirOpPassManagerAddPipeline(
      opm,
      mlirStringRefCreateFromCString(
          "mxfp8train-lower-to-cpu{vectorize=false}"),
      printToStderr, NULL);
  fprintf(stderr, "cpu pipeline: %d\n", mlirLogicalResultIsSuccess(status));
  // CHECK: cpu pipeline: 1
  mlirPassManagerDestroy(pm);

  // A generated constructor, run on a module.
  const char *source =
      "func.func @f(%x: tensor<64x128xbf16>, %w: tensor<128x256xbf16>) "
      "-> tensor<64x256xf32> {\n"
      "  %z = arith.constant dense<0.0> : tensor<64x256xf32>\n"
      "  %0 = linalg.matmul ins(%x, %w : tensor<64x128xbf16>, "
      "tensor<128x256xbf16>) outs(%z : tensor<64x256xf32>) "
      "-> tensor<64x256xf32>\n"
      "  return %0 : tensor<64x256xf32>\n"
      "}\n";
  MlirModule module =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(source));
  pm = mlirPassManagerCreate(ctx);
  mlirPassManagerAddOwnedPass(
      pm, mlirCreateMXFP8TrainMXFP8TrainRewriteMatmulsPass());
  status = mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module));
  fprintf(stderr, "ran rewrite: %d\n", mlirLogicalResultIsSuccess(status));
  // Remarks are off unless the pass is asked for them (option remarks).
  // CHECK-NOT: diagnostic:
  // CHECK: ran rewrite: 1
  mlirOperationPrint(mlirModuleGetOperation(module), printToStderr, NULL);
  fprintf(stderr, "\n");
  // CHECK: mxfp8train.quantize %{{.*}} axis = 1 mode = {{ *}}rceil : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>
  // CHECK: mxfp8train.quantize %{{.*}} axis = 0 mode = {{ *}}rceil : tensor<128x256xbf16> -> tensor<128x256xf8E4M3FN>, tensor<4x256xf8E8M0FNU>
  // CHECK: mxfp8train.scaled_mm {{.*}} {mxfp8train.role = "dgrad"}
  // CHECK-NOT: linalg.matmul
  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(module);
}

int main(void) {
  MlirContext ctx = mlirContextCreate();
  mxfp8trainContextRegisterAll(ctx);
  mlirContextAttachDiagnosticHandler(ctx, onDiagnostic, NULL, NULL);
  testDialectHandle(ctx);
  testRecipe(ctx);
  testRecipeErrors(ctx);
  testEnumAttributes(ctx);
  testPasses(ctx);
  mlirContextDestroy(ctx);
  // CHECK: done
  fprintf(stderr, "done\n");
  return 0;
}
