//===- convert.c - C API: convert a graph, read the report --------*- C -*-===//
//
// mxfp8trainConvertModule on a small training step (forward, dgrad, wgrad,
// an excluded matmul, a K that is not a multiple of 32, grouped experts):
// every report entry is printed with its name, decision, role, sizes and
// reason, and the converted IR is checked. Then a bad recipe and an invalid
// role: a failed status and the error as a diagnostic.
//
//===----------------------------------------------------------------------===//

// RUN: mxfp8train-capi-convert-test 2>&1 | FileCheck %s

#include "mxfp8train-c/Attributes.h"
#include "mxfp8train-c/Registration.h"
#include "mxfp8train-c/Rewrite.h"

#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"

#include <stdio.h>

static void printToStderr(MlirStringRef text, void *userData) {
  (void)userData;
  fwrite(text.data, 1, text.length, stderr);
}

static MlirLogicalResult onDiagnostic(MlirDiagnostic diag, void *userData) {
  (void)userData;
  fprintf(stderr, "diagnostic: ");
  mlirDiagnosticPrint(diag, printToStderr, NULL);
  fprintf(stderr, "\n");
  return mlirLogicalResultSuccess();
}

static const char *decisionName(MXFP8TrainMatmulDecision decision) {
  switch (decision) {
  case MXFP8TrainMatmulConverted:
    return "converted";
  case MXFP8TrainMatmulKeptHighPrecision:
    return "kept";
  case MXFP8TrainMatmulSkipped:
    return "skipped";
  case MXFP8TrainMatmulInvalid:
    return "invalid";
  }
  return "?";
}

static void printReport(MXFP8TrainConversionReport report) {
  intptr_t n = mxfp8trainConversionReportGetNumEntries(report);
  fprintf(
      stderr, "status %s, %ld entries, %ld converted, %ld kept, %ld skipped\n",
      mlirLogicalResultIsSuccess(mxfp8trainConversionReportGetStatus(report))
          ? "success"
          : "failure",
      (long)n,
      (long)mxfp8trainConversionReportCount(report, MXFP8TrainMatmulConverted),
      (long)mxfp8trainConversionReportCount(report,
                                            MXFP8TrainMatmulKeptHighPrecision),
      (long)mxfp8trainConversionReportCount(report, MXFP8TrainMatmulSkipped));
  for (intptr_t i = 0; i < n; ++i) {
    MXFP8TrainMatmulReport e = mxfp8trainConversionReportGetEntry(report, i);
    MlirStringRef role = mxfp8trainMatmulRoleGetName(e.role);
    fprintf(
        stderr,
        "[%ld] '%.*s' %.*s %s role=%.*s batch=%ld m=%ld n=%ld k=%ld | %.*s | ",
        (long)i, (int)e.name.length, e.name.data, (int)e.opName.length,
        e.opName.data, decisionName(e.decision), (int)role.length, role.data,
        (long)e.batch, (long)e.m, (long)e.n, (long)e.k, (int)e.reason.length,
        e.reason.data);
    mlirLocationPrint(e.location, printToStderr, NULL);
    fprintf(stderr, "\n");
  }
}

// A linear layer's step (forward, dgrad, wgrad), a projection with K = 48,
// a router excluded by name and a grouped forward of 4 experts.
static const char *kStep =
    "func.func @step(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>,\n"
    "                %go: tensor<64x256xbf16>, %h: tensor<64x48xbf16>,\n"
    "                %p: tensor<32x48xbf16>, %a: tensor<100x256xbf16>,\n"
    "                %e: tensor<4x64x256xbf16>, %offs: tensor<4xi32>)\n"
    "    -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xf32>,\n"
    "        tensor<64x32xf32>, tensor<64x256xf32>, tensor<100x64xbf16>) {\n"
    "  %zo = arith.constant dense<0.0> : tensor<64x256xbf16>\n"
    "  %zx = arith.constant dense<0.0> : tensor<64x128xbf16>\n"
    "  %zw = arith.constant dense<0.0> : tensor<256x128xf32>\n"
    "  %zp = arith.constant dense<0.0> : tensor<64x32xf32>\n"
    "  %zr = arith.constant dense<0.0> : tensor<64x256xf32>\n"
    "  %out = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,\n"
    "      affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]\n"
    "      ins(%x, %w : tensor<64x128xbf16>, tensor<256x128xbf16>)\n"
    "      outs(%zo : tensor<64x256xbf16>) -> tensor<64x256xbf16> "
    "loc(\"mlp.w1.fwd\")\n"
    "  %dx = linalg.matmul ins(%go, %w : tensor<64x256xbf16>, "
    "tensor<256x128xbf16>)\n"
    "      outs(%zx : tensor<64x128xbf16>) -> tensor<64x128xbf16> "
    "loc(\"mlp.w1.dgrad\")\n"
    "  %dw = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>,\n"
    "      affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]\n"
    "      ins(%go, %x : tensor<64x256xbf16>, tensor<64x128xbf16>)\n"
    "      outs(%zw : tensor<256x128xf32>) -> tensor<256x128xf32> "
    "loc(\"mlp.w1.wgrad\")\n"
    "  %pr = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,\n"
    "      affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]\n"
    "      ins(%h, %p : tensor<64x48xbf16>, tensor<32x48xbf16>)\n"
    "      outs(%zp : tensor<64x32xf32>) -> tensor<64x32xf32> "
    "loc(\"head.proj\")\n"
    "  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,\n"
    "      affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]\n"
    "      ins(%x, %w : tensor<64x128xbf16>, tensor<256x128xbf16>)\n"
    "      outs(%zr : tensor<64x256xf32>) -> tensor<64x256xf32>\n"
    "      loc(fused[\"model.py\":7:3, \"router.gate\"])\n"
    "  %g = mxfp8train.grouped_mm %a, %e offs(%offs) transpose_rhs\n"
    "      : tensor<100x256xbf16>, tensor<4x64x256xbf16>, tensor<4xi32>\n"
    "      -> tensor<100x64xbf16> loc(\"moe.experts.fwd\")\n"
    "  return %out, %dx, %dw, %pr, %r, %g : tensor<64x256xbf16>, "
    "tensor<64x128xbf16>,\n"
    "      tensor<256x128xf32>, tensor<64x32xf32>, tensor<64x256xf32>, "
    "tensor<100x64xbf16>\n"
    "}\n";

static void testConvertWithOptions(MlirContext ctx) {
  // CHECK-LABEL: @convert_with_options
  fprintf(stderr, "@convert_with_options\n");
  MlirModule module =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(kStep));
  MXFP8TrainConvertOptions options = mxfp8trainConvertOptionsGetDefault();
  options.recipe = mxfp8trainRecipeAttrGetNamed(
      ctx, mlirStringRefCreateFromCString("mxfp8_rceil_wgrad_with_hp"));
  MlirStringRef exclude[] = {mlirStringRefCreateFromCString("router")};
  options.exclude = exclude;
  options.numExclude = 1;
  MXFP8TrainConversionReport report = mxfp8trainConvertModule(module, &options);
  printReport(report);
  // CHECK: status success, 6 entries, 3 converted, 1 kept, 2 skipped
  // CHECK-NEXT: [0] 'mlp.w1.fwd' linalg.matmul converted role=forward batch=0 m=64 n=256 k=128 | mxfp8train: converted (role forward, lhs quantized along axis 1, rhs along axis 1, recipe mxfp8_rceil_wgrad_with_hp) | loc("mlp.w1.fwd")
  // CHECK-NEXT: [1] 'mlp.w1.dgrad' linalg.matmul converted role=dgrad batch=0 m=64 n=128 k=256 | mxfp8train: converted (role dgrad, lhs quantized along axis 1, rhs along axis 0, recipe mxfp8_rceil_wgrad_with_hp) | loc("mlp.w1.dgrad")
  // CHECK-NEXT: [2] 'mlp.w1.wgrad' linalg.matmul kept role=wgrad batch=0 m=0 n=0 k=0 | role wgrad, recipe wgrad_with_hp = true | loc("mlp.w1.wgrad")
  // CHECK-NEXT: [3] 'head.proj' linalg.matmul skipped role= batch=0 m=0 n=0 k=0 | K = 48 is not a multiple of 32 | loc("head.proj")
  // CHECK-NEXT: [4] 'router.gate' linalg.matmul skipped role= batch=0 m=0 n=0 k=0 | location name 'router.gate' matches exclude 'router' | loc(fused["model.py":7:3, "router.gate"])
  // CHECK-NEXT: [5] 'moe.experts.fwd' mxfp8train.grouped_mm converted role=forward batch=4 m=100 n=64 k=256 | mxfp8train: converted (grouped 2d-3d, role forward, lhs quantized along axis 1, rhs along axis 2, recipe mxfp8_rceil_wgrad_with_hp) | loc("moe.experts.fwd")
  // Out-of-range decisions and roles (int32_t values) match nothing.
  MlirStringRef badRole = mxfp8trainMatmulRoleGetName(-1);
  fprintf(stderr, "decision -1: %ld, decision 4: %ld, role -1: '%.*s'\n",
          (long)mxfp8trainConversionReportCount(report, -1),
          (long)mxfp8trainConversionReportCount(report, 4), (int)badRole.length,
          badRole.data);
  // CHECK-NEXT: decision -1: 0, decision 4: 0, role -1: ''
  mxfp8trainConversionReportDestroy(report);

  // The module itself is converted: 3 matmuls left (wgrad, K = 48, router).
  mlirOperationPrint(mlirModuleGetOperation(module), printToStderr, NULL);
  fprintf(stderr, "\n");
  // CHECK: func.func @step(
  // CHECK: mxfp8train.scaled_mm {{.*}} transpose_rhs {mxfp8train.role = "forward"} {{.*}} -> tensor<64x256xbf16>
  // CHECK: mxfp8train.scaled_mm {{.*}} {mxfp8train.role = "dgrad"} {{.*}} -> tensor<64x128xbf16>
  // CHECK: linalg.matmul {{.*}} outs({{.*}} : tensor<256x128xf32>)
  // CHECK: linalg.matmul {{.*}} outs({{.*}} : tensor<64x32xf32>)
  // CHECK: linalg.matmul {{.*}} outs({{.*}} : tensor<64x256xf32>)
  // CHECK: mxfp8train.scaled_grouped_mm {{.*}} transpose_rhs {mxfp8train.role = "forward"}
  // CHECK-NOT: linalg.matmul
  mlirModuleDestroy(module);
}

static void testConvertWithRecipeText(MlirContext ctx) {
  // CHECK-LABEL: @convert_with_recipe_text
  fprintf(stderr, "@convert_with_recipe_text\n");
  MlirModule module =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(kStep));
  // Default filters: the router is converted; min-size is 0. Floor scales.
  MXFP8TrainConversionReport report = mxfp8trainConvertModuleWithRecipe(
      module, mlirStringRefCreateFromCString("scale_calculation_mode = floor"));
  printReport(report);
  // CHECK: status success, 6 entries, 5 converted, 0 kept, 1 skipped
  // CHECK: [2] 'mlp.w1.wgrad' linalg.matmul converted role=wgrad batch=0 m=256 n=128 k=64 | mxfp8train: converted (role wgrad, lhs quantized along axis 0, rhs along axis 0, {{.*}}recipe #mxfp8train.recipe<scale_calculation_mode = floor>)
  // CHECK: [4] 'router.gate' linalg.matmul converted role=forward
  mxfp8trainConversionReportDestroy(report);
  mlirOperationPrint(mlirModuleGetOperation(module), printToStderr, NULL);
  fprintf(stderr, "\n");
  // CHECK: mxfp8train.quantize {{.*}} mode = {{ *}}floor
  // CHECK-NOT: mode = {{ *}}rceil
  mlirModuleDestroy(module);

  // Bad recipe text: an error, nothing converted.
  module = mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(kStep));
  report = mxfp8trainConvertModuleWithRecipe(
      module, mlirStringRefCreateFromCString("mxfp4"));
  // CHECK: diagnostic: mxfp8train: invalid recipe 'mxfp4': {{.*}}
  printReport(report);
  // CHECK-NEXT: status failure, 0 entries, 0 converted, 0 kept, 0 skipped
  mxfp8trainConversionReportDestroy(report);

  // Not a recipe attribute.
  MXFP8TrainConvertOptions options = mxfp8trainConvertOptionsGetDefault();
  options.recipe = mxfp8trainScaleModeAttrGet(ctx, MXFP8TrainScaleModeFloor);
  report = mxfp8trainConvertModule(module, &options);
  // CHECK: diagnostic: mxfp8train: expected a #mxfp8train.recipe or #mxfp8train.float8_recipe attribute, found #mxfp8train<scale_mode floor>
  printReport(report);
  // CHECK-NEXT: status failure, 0 entries
  mxfp8trainConversionReportDestroy(report);
  mlirModuleDestroy(module);
}

static void testConvertFloat8Recipe(MlirContext ctx) {
  // CHECK-LABEL: @convert_float8_recipe
  fprintf(stderr, "@convert_float8_recipe\n");
  MlirModule module =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(kStep));
  // A Float8 recipe by name, through the shared recipe parser: the same
  // report, SPEC-float8 §4.2 casts, K = 48 now accepted (a multiple of 16).
  MlirAttribute recipe = mxfp8trainRecipeAttrParse(
      ctx, mlirStringRefCreateFromCString("float8_rowwise_with_gw_hp"));
  fprintf(stderr, "is MX recipe: %d\n",
          (int)mxfp8trainAttributeIsARecipeAttr(recipe));
  // CHECK-NEXT: is MX recipe: 0
  MXFP8TrainConvertOptions options = mxfp8trainConvertOptionsGetDefault();
  options.recipe = recipe;
  MXFP8TrainConversionReport report = mxfp8trainConvertModule(module, &options);
  printReport(report);
  // CHECK-NEXT: status success, 6 entries, 5 converted, 1 kept, 0 skipped
  // CHECK-NEXT: [0] 'mlp.w1.fwd' linalg.matmul converted role=forward batch=0 m=64 n=256 k=128 | mxfp8train: converted (role forward, lhs quantized along axis 1 (f8E4M3FN, axiswise, pow2), rhs along axis 1 (f8E4M3FN, axiswise, pow2), recipe float8_rowwise_with_gw_hp) | loc("mlp.w1.fwd")
  // CHECK-NEXT: [1] 'mlp.w1.dgrad' linalg.matmul converted role=dgrad batch=0 m=64 n=128 k=256 | mxfp8train: converted (role dgrad, lhs quantized along axis 1 (f8E4M3FN, axiswise, pow2), rhs along axis 0 (f8E4M3FN, tensorwise, pow2), recipe float8_rowwise_with_gw_hp) | loc("mlp.w1.dgrad")
  // CHECK-NEXT: [2] 'mlp.w1.wgrad' linalg.matmul kept role=wgrad batch=0 m=0 n=0 k=0 | role wgrad, recipe float8_rowwise_with_gw_hp keeps grad_weight in high precision | loc("mlp.w1.wgrad")
  // CHECK-NEXT: [3] 'head.proj' linalg.matmul converted role=forward batch=0 m=64 n=32 k=48 |
  // CHECK-NEXT: [4] 'router.gate' linalg.matmul converted role=forward
  // CHECK-NEXT: [5] 'moe.experts.fwd' mxfp8train.grouped_mm converted role=forward batch=4 m=100 n=64 k=256 | mxfp8train: converted (grouped 2d-3d, role forward, lhs quantized along axis 1 (f8E4M3FN, axiswise, pow2), rhs along axis 2 (f8E4M3FN, axiswise, pow2), recipe float8_rowwise_with_gw_hp) | loc("moe.experts.fwd")
  mxfp8trainConversionReportDestroy(report);
  mlirModuleDestroy(module);

  // The body of a #mxfp8train.float8_recipe as recipe text.
  module = mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(kStep));
  report = mxfp8trainConvertModuleWithRecipe(
      module, mlirStringRefCreateFromCString(
                  "float8_tensorwise, round_scales_to_power_of_2 = true"));
  printReport(report);
  // CHECK-NEXT: status success, 6 entries, 6 converted, 0 kept, 0 skipped
  // CHECK-NEXT: [0] 'mlp.w1.fwd' {{.*}} (f8E4M3FN, tensorwise, pow2), {{.*}}recipe #mxfp8train.float8_recipe<float8_tensorwise, round_scales_to_power_of_2 = true>)
  mxfp8trainConversionReportDestroy(report);
  mlirModuleDestroy(module);
}

static void testInvalidRoleAndRemarks(MlirContext ctx) {
  // CHECK-LABEL: @invalid_role_and_remarks
  fprintf(stderr, "@invalid_role_and_remarks\n");
  const char *source =
      "func.func @f(%a: tensor<64x64xbf16>, %b: tensor<64x64xbf16>,\n"
      "             %z: tensor<64x64xf32>) -> (tensor<64x64xf32>, "
      "tensor<64x64xf32>) {\n"
      "  %0 = linalg.matmul {mxfp8train.role = \"weight\"}\n"
      "      ins(%a, %b : tensor<64x64xbf16>, tensor<64x64xbf16>)\n"
      "      outs(%z : tensor<64x64xf32>) -> tensor<64x64xf32> loc(\"bad\")\n"
      "  %1 = linalg.matmul ins(%a, %b : tensor<64x64xbf16>, "
      "tensor<64x64xbf16>)\n"
      "      outs(%z : tensor<64x64xf32>) -> tensor<64x64xf32> loc(\"good\")\n"
      "  return %0, %1 : tensor<64x64xf32>, tensor<64x64xf32>\n"
      "}\n";
  MlirModule module =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(source));
  MXFP8TrainConvertOptions options = mxfp8trainConvertOptionsGetDefault();
  options.emitRemarks = true;
  MXFP8TrainConversionReport report = mxfp8trainConvertModule(module, &options);
  // CHECK: diagnostic: mxfp8train: invalid mxfp8train.role "weight"; expected "forward", "dgrad" or "wgrad"
  // CHECK-NEXT: diagnostic: mxfp8train: converted (role dgrad
  printReport(report);
  // CHECK-NEXT: status failure, 2 entries, 1 converted, 0 kept, 0 skipped
  // CHECK-NEXT: [0] 'bad' linalg.matmul invalid role= batch=0 m=0 n=0 k=0 | invalid mxfp8train.role "weight"; expected "forward", "dgrad" or "wgrad" | loc("bad")
  // CHECK-NEXT: [1] 'good' linalg.matmul converted role=dgrad
  mxfp8trainConversionReportDestroy(report);
  mlirModuleDestroy(module);
}

/// Null handles and a count without its list: failed reports, never a
/// crash; the getters of a null report answer failure / 0 / an empty entry.
static void testNullHandles(MlirContext ctx) {
  // CHECK-LABEL: @null_handles
  fprintf(stderr, "@null_handles\n");
  MlirModule none = {NULL};
  MXFP8TrainConversionReport report = mxfp8trainConvertModule(none, NULL);
  printReport(report);
  // CHECK-NEXT: status failure, 0 entries, 0 converted, 0 kept, 0 skipped
  mxfp8trainConversionReportDestroy(report);
  report = mxfp8trainConvertModuleWithRecipe(
      none, mlirStringRefCreateFromCString("mxfp8_rceil"));
  printReport(report);
  // CHECK-NEXT: status failure, 0 entries
  mxfp8trainConversionReportDestroy(report);
  MXFP8TrainConversionReport nullReport = {NULL};
  printReport(nullReport);
  // CHECK-NEXT: status failure, 0 entries
  MXFP8TrainMatmulReport entry =
      mxfp8trainConversionReportGetEntry(nullReport, 3);
  fprintf(stderr, "entry: %ld '%.*s'\n", (long)entry.m,
          (int)entry.reason.length, entry.reason.data);
  // CHECK-NEXT: entry: 0 ''
  MlirModule module = mlirModuleCreateParse(
      ctx, mlirStringRefCreateFromCString(
               "func.func @f(%a: tensor<64x64xbf16>) { return }\n"));
  MXFP8TrainConvertOptions options = mxfp8trainConvertOptionsGetDefault();
  options.numExclude = 2;
  report = mxfp8trainConvertModule(module, &options);
  // CHECK: diagnostic: mxfp8train: invalid exclude list (numExclude = 2, exclude = null)
  printReport(report);
  // CHECK-NEXT: status failure, 0 entries
  entry = mxfp8trainConversionReportGetEntry(report, 0);
  fprintf(stderr, "entry out of range: %ld\n", (long)entry.m);
  // CHECK-NEXT: entry out of range: 0
  mxfp8trainConversionReportDestroy(report);
  mlirModuleDestroy(module);
}

int main(void) {
  MlirContext ctx = mlirContextCreate();
  mxfp8trainContextRegisterAll(ctx);
  mlirContextAttachDiagnosticHandler(ctx, onDiagnostic, NULL, NULL);
  testConvertWithOptions(ctx);
  testConvertWithRecipeText(ctx);
  testConvertFloat8Recipe(ctx);
  testInvalidRoleAndRemarks(ctx);
  testNullHandles(ctx);
  mlirContextDestroy(ctx);
  // CHECK: done
  fprintf(stderr, "done\n");
  return 0;
}
