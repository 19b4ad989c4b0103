/*===- downstream-run.c - convert and run a module through the C API ------===*\
|*                                                                            *|
|* Parses the module in argv[1], converts its matmuls with mxfp8_rceil,       *|
|* prints the report, and calls @linear(x: 2x64 bf16, w: 4x64 bf16) on the    *|
|* CPU with x = 1, w[n] = n + 1: every result is 64 * (n + 1).                *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "mxfp8train-c/ExecutionEngine.h"
#include "mxfp8train-c/Registration.h"
#include "mxfp8train-c/Rewrite.h"

#include "mlir-c/IR.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static void printError(MlirStringRef text, void *userData) {
  (void)userData;
  fprintf(stderr, "error: %.*s\n", (int)text.length, text.data);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: downstream-run <module.mlir>\n");
    return 2;
  }
  FILE *file = fopen(argv[1], "rb");
  if (!file)
    return 2;
  static char source[1 << 16];
  size_t size = fread(source, 1, sizeof(source) - 1, file);
  fclose(file);
  source[size] = 0;

  MlirContext ctx = mlirContextCreate();
  mxfp8trainContextRegisterAll(ctx);
  MlirModule module =
      mlirModuleCreateParse(ctx, mlirStringRefCreate(source, size));
  if (mlirModuleIsNull(module))
    return 1;
  MXFP8TrainConversionReport report = mxfp8trainConvertModuleWithRecipe(
      module, mlirStringRefCreateFromCString("mxfp8_rceil"));
  for (intptr_t i = 0; i < mxfp8trainConversionReportGetNumEntries(report);
       ++i) {
    MXFP8TrainMatmulReport e = mxfp8trainConversionReportGetEntry(report, i);
    MlirStringRef role = mxfp8trainMatmulRoleGetName(e.role);
    printf("%.*s: %s %.*s\n", (int)e.name.length, e.name.data,
           e.decision == MXFP8TrainMatmulConverted ? "converted"
                                                   : "not converted",
           (int)role.length, role.data);
  }
  mxfp8trainConversionReportDestroy(report);

  uint16_t x[2 * 64], w[4 * 64];
  for (int i = 0; i < 2 * 64; ++i)
    x[i] = 0x3f80; /* 1.0 */
  /* bf16 bits of 1.0, 2.0, 3.0 and 4.0. */
  static const uint16_t rows[4] = {0x3f80, 0x4000, 0x4040, 0x4080};
  for (int n = 0; n < 4; ++n)
    for (int k = 0; k < 64; ++k)
      w[n * 64 + k] = rows[n];
  int64_t xShape[] = {2, 64}, wShape[] = {4, 64};
  MXFP8TrainHostBuffer inputs[] = {{MXFP8TrainElementBF16, 2, xShape, x},
                                   {MXFP8TrainElementBF16, 2, wShape, w}};
  MXFP8TrainResults results = mxfp8trainRunFunction(
      module, NULL, mlirStringRefCreateFromCString("linear"), inputs, 2,
      printError, NULL);
  if (mxfp8trainResultsIsNull(results))
    return 1;
  for (int m = 0; m < 2; ++m) {
    printf("y[%d] =", m);
    for (int n = 0; n < 4; ++n)
      printf(" %g", mxfp8trainResultsGetElement(results, 0, m * 4 + n));
    printf("\n");
  }
  mxfp8trainResultsDestroy(results);
  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  return 0;
}
