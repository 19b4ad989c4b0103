//===- run.c - C API: compile and run on host buffers -------------*- C -*-===//
//
// A quantize run on the CPU with its bytes checked (e8m0 scale and e4m3 data
// bit patterns), a converted bf16 linear layer run on the CPU with exact
// golden sums, the errors of bad calls, and the CUDA path without a driver
// (the runtime is pointed at a library that does not exist).
//
//===----------------------------------------------------------------------===//

// RUN: env MXFP8RT_CUDA_LIBRARY=%t.nonexistent/libcuda.so.1 mxfp8train-capi-run-test 2>&1 | FileCheck %s

#include "mxfp8train-c/ExecutionEngine.h"
#include "mxfp8train-c/Registration.h"
#include "mxfp8train-c/Rewrite.h"

#include "mlir-c/IR.h"

#include <stdint.h>
#include <stdio.h>

static void printError(MlirStringRef text, void *userData) {
  fprintf(stderr, "%s: %.*s\n", (const char *)userData, (int)text.length,
          text.data);
}

static void printBuffer(const char *label, MXFP8TrainHostBuffer b) {
  MlirStringRef kind = mxfp8trainElementKindGetName(b.kind);
  fprintf(stderr, "%s: %.*s [", label, (int)kind.length, kind.data);
  for (intptr_t i = 0; i < b.rank; ++i)
    fprintf(stderr, "%s%ld", i ? "x" : "", (long)b.shape[i]);
  fprintf(stderr, "]\n");
}

static void testQuantize(MlirContext ctx) {
  // CHECK-LABEL: @quantize
  fprintf(stderr, "@quantize\n");
  MlirModule module = mlirModuleCreateParse(
      ctx,
      mlirStringRefCreateFromCString(
          "func.func @quantize(%x: tensor<2x32xf32>)\n"
          "    -> (tensor<2x32xf8E4M3FN>, tensor<2x1xf8E8M0FNU>) {\n"
          "  %d, %s = mxfp8train.quantize %x axis = 1 mode = rceil\n"
          "      : tensor<2x32xf32> -> tensor<2x32xf8E4M3FN>, "
          "tensor<2x1xf8E8M0FNU>\n"
          "  return %d, %s : tensor<2x32xf8E4M3FN>, tensor<2x1xf8E8M0FNU>\n"
          "}\n"));
  // Row 0: 0, 0.5, ..., 15.5 (amax 15.5); row 1: 0, -4, ..., -124.
  float x[64];
  for (int i = 0; i < 32; ++i) {
    x[i] = 0.5f * i;
    x[32 + i] = -4.0f * i;
  }
  int64_t shape[] = {2, 32};
  MXFP8TrainHostBuffer input = {MXFP8TrainElementF32, 2, shape, x};
  MXFP8TrainCompileOptions options = mxfp8trainCompileOptionsGetDefault();
  MXFP8TrainResults results = mxfp8trainRunFunction(
      module, &options, mlirStringRefCreateFromCString("quantize"), &input, 1,
      printError, (char[]){"error"});
  if (mxfp8trainResultsIsNull(results))
    return;
  fprintf(stderr, "results: %ld\n",
          (long)mxfp8trainResultsGetNumResults(results));
  // CHECK: results: 2
  MXFP8TrainHostBuffer data = mxfp8trainResultsGetResult(results, 0);
  MXFP8TrainHostBuffer scales = mxfp8trainResultsGetResult(results, 1);
  printBuffer("data", data);
  printBuffer("scales", scales);
  // CHECK: data: f8E4M3FN [2x32]
  // CHECK: scales: f8E8M0FNU [2x1]
  const uint8_t *s = (const uint8_t *)scales.data;
  const uint8_t *d = (const uint8_t *)data.data;
  // rceil: 2^ceil(log2(amax / 448)): 15.5/448 -> 2^-4 (byte 123),
  // 124/448 -> 2^-1 (byte 126).
  fprintf(stderr, "scale bytes: %u %u = %g %g\n", s[0], s[1],
          mxfp8trainResultsGetElement(results, 1, 0),
          mxfp8trainResultsGetElement(results, 1, 1));
  // CHECK: scale bytes: 123 126 = 0.0625 0.5
  // 15.5 / 2^-4 = 248 rounds (tie, to even) to 256 = 0x78; 1.5 / 2^-4 = 24 =
  // 0x5c; -124 / 2^-1 = -248 -> -256 = 0xf8; -4 / 2^-1 = -8 = 0xd0.
  fprintf(stderr, "data bytes: 0x%02x 0x%02x 0x%02x 0x%02x\n", d[31], d[3],
          d[63], d[33]);
  // CHECK: data bytes: 0x78 0x5c 0xf8 0xd0
  fprintf(stderr, "data values: %g %g %g\n",
          mxfp8trainResultsGetElement(results, 0, 31),
          mxfp8trainResultsGetElement(results, 0, 3),
          mxfp8trainResultsGetElement(results, 0, 63));
  // CHECK: data values: 256 24 -256
  // Out of range: an empty buffer of kind -1, and NaN elements.
  MXFP8TrainHostBuffer none = mxfp8trainResultsGetResult(results, 2);
  fprintf(stderr, "result 2: kind %d rank %ld %d %d\n", (int)none.kind,
          (long)none.rank, none.shape == NULL, none.data == NULL);
  // CHECK: result 2: kind -1 rank 0 1 1
  fprintf(stderr, "elements: %g %g %g\n",
          mxfp8trainResultsGetElement(results, -1, 0),
          mxfp8trainResultsGetElement(results, 0, 64),
          mxfp8trainResultsGetElement(results, 1, -1));
  // CHECK: elements: nan nan nan
  mxfp8trainResultsDestroy(results);
  mlirModuleDestroy(module);
}

/// bf16 bits of a float that bf16 holds exactly.
static uint16_t toBF16(float value) {
  union {
    float f;
    uint32_t u;
  } bits = {value};
  return (uint16_t)(bits.u >> 16);
}

static void testConvertedLinear(MlirContext ctx) {
  // CHECK-LABEL: @converted_linear
  fprintf(stderr, "@converted_linear\n");
  MlirModule module = mlirModuleCreateParse(
      ctx,
      mlirStringRefCreateFromCString(
          "func.func @linear(%x: tensor<4x64xbf16>, %w: tensor<8x64xbf16>)\n"
          "    -> tensor<4x8xf32> {\n"
          "  %z = arith.constant dense<0.0> : tensor<4x8xf32>\n"
          "  %0 = linalg.matmul indexing_maps = [\n"
          "      affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, "
          "k)>,\n"
          "      affine_map<(m, n, k) -> (m, n)>]\n"
          "      ins(%x, %w : tensor<4x64xbf16>, tensor<8x64xbf16>)\n"
          "      outs(%z : tensor<4x8xf32>) -> tensor<4x8xf32>\n"
          "  return %0 : tensor<4x8xf32>\n"
          "}\n"));
  MXFP8TrainConversionReport report = mxfp8trainConvertModuleWithRecipe(
      module, mlirStringRefCreateFromCString("mxfp8_rceil"));
  fprintf(
      stderr, "converted: %ld\n",
      (long)mxfp8trainConversionReportCount(report, MXFP8TrainMatmulConverted));
  // CHECK: converted: 1
  mxfp8trainConversionReportDestroy(report);

  // x = 1.5 everywhere, row n of w = (n + 1) / 4: every block quantizes
  // exactly, so y[m][n] = 64 * 1.5 * (n + 1) / 4 = 24 * (n + 1).
  uint16_t x[4 * 64], w[8 * 64];
  for (int i = 0; i < 4 * 64; ++i)
    x[i] = toBF16(1.5f);
  for (int n = 0; n < 8; ++n)
    for (int k = 0; k < 64; ++k)
      w[n * 64 + k] = toBF16(0.25f * (n + 1));
  int64_t xShape[] = {4, 64}, wShape[] = {8, 64};
  MXFP8TrainHostBuffer inputs[] = {{MXFP8TrainElementBF16, 2, xShape, x},
                                   {MXFP8TrainElementBF16, 2, wShape, w}};
  MXFP8TrainExecutable exe =
      mxfp8trainExecutableCreate(module, NULL, printError, (char[]){"error"});
  fprintf(stderr, "compiled: %d\n", !mxfp8trainExecutableIsNull(exe));
  // CHECK: compiled: 1
  MXFP8TrainResults results =
      mxfp8trainExecutableRun(exe, mlirStringRefCreateFromCString("linear"),
                              inputs, 2, printError, (char[]){"error"});
  if (!mxfp8trainResultsIsNull(results)) {
    MXFP8TrainHostBuffer y = mxfp8trainResultsGetResult(results, 0);
    printBuffer("y", y);
    // CHECK: y: f32 [4x8]
    const float *v = (const float *)y.data;
    for (int m = 0; m < 4; m += 3) {
      fprintf(stderr, "row %d:", m);
      for (int n = 0; n < 8; ++n)
        fprintf(stderr, " %g", v[m * 8 + n]);
      fprintf(stderr, "\n");
    }
    // CHECK: row 0: 24 48 72 96 120 144 168 192
    // CHECK: row 3: 24 48 72 96 120 144 168 192
    mxfp8trainResultsDestroy(results);
  }

  // Bad calls on the same executable.
  results =
      mxfp8trainExecutableRun(exe, mlirStringRefCreateFromCString("linear"),
                              inputs, 1, printError, (char[]){"one input"});
  // CHECK: one input: {{.*}}2{{.*}}1
  fprintf(stderr, "null: %d\n", mxfp8trainResultsIsNull(results));
  // CHECK-NEXT: null: 1
  results = mxfp8trainExecutableRun(exe, mlirStringRefCreateFromCString("nope"),
                                    inputs, 2, printError,
                                    (char[]){"unknown function"});
  // CHECK: unknown function: no public function named 'nope'
  MXFP8TrainHostBuffer swapped[] = {inputs[1], inputs[0]};
  results =
      mxfp8trainExecutableRun(exe, mlirStringRefCreateFromCString("linear"),
                              swapped, 2, printError, (char[]){"swapped"});
  // CHECK: swapped: {{.*}}8x64{{.*}}
  MXFP8TrainHostBuffer badKind = {(MXFP8TrainElementKind)42, 2, xShape, x};
  results =
      mxfp8trainExecutableRun(exe, mlirStringRefCreateFromCString("linear"),
                              &badKind, 1, printError, (char[]){"bad kind"});
  // CHECK: bad kind: input 0: unknown element kind 42
  badKind.kind = -1;
  results =
      mxfp8trainExecutableRun(exe, mlirStringRefCreateFromCString("linear"),
                              &badKind, 1, printError, (char[]){"kind -1"});
  // CHECK: kind -1: input 0: unknown element kind -1
  MlirStringRef badName = mxfp8trainElementKindGetName(-1);
  fprintf(stderr, "kind -1: size %ld, name '%.*s'\n",
          (long)mxfp8trainElementKindGetSize(-1), (int)badName.length,
          badName.data);
  // CHECK-NEXT: kind -1: size 0, name ''
  MlirStringRef halfName = mxfp8trainElementKindGetName(MXFP8TrainElementF16);
  fprintf(stderr, "f16: size %ld, name '%.*s'; i1: size %ld; 12: size %ld\n",
          (long)mxfp8trainElementKindGetSize(MXFP8TrainElementF16),
          (int)halfName.length, halfName.data,
          (long)mxfp8trainElementKindGetSize(MXFP8TrainElementI1),
          (long)mxfp8trainElementKindGetSize(12));
  // CHECK-NEXT: f16: size 2, name 'f16'; i1: size 1; 12: size 0
  mxfp8trainExecutableDestroy(exe);
  mlirModuleDestroy(module);
}

static void testCUDAWithoutDriver(MlirContext ctx) {
  // CHECK-LABEL: @cuda_without_driver
  fprintf(stderr, "@cuda_without_driver\n");
  fprintf(stderr, "available: %d\n",
          mxfp8trainCUDAIsAvailable(0, printError, (char[]){"reason"}));
  // CHECK: reason: {{.*}}libcuda.so.1
  // CHECK-NEXT: available: 0
  MlirModule module = mlirModuleCreateParse(
      ctx, mlirStringRefCreateFromCString(
               "func.func @id(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
               "  return %x : tensor<4xf32>\n"
               "}\n"));
  MXFP8TrainCompileOptions options = mxfp8trainCompileOptionsGetDefault();
  options.device = MXFP8TrainDeviceCUDA;
  MXFP8TrainExecutable exe = mxfp8trainExecutableCreate(
      module, &options, printError, (char[]){"cuda"});
  // CHECK: cuda: no CUDA GPU: {{.*}}libcuda.so.1
  fprintf(stderr, "null: %d\n", mxfp8trainExecutableIsNull(exe));
  // CHECK-NEXT: null: 1
  options.device = (MXFP8TrainDevice)5;
  exe = mxfp8trainExecutableCreate(module, &options, printError,
                                   (char[]){"device 5"});
  // CHECK: device 5: unknown device 5
  mlirModuleDestroy(module);
}

/// An executable outlives the context and module it was made from; a
/// buffer whose claimed shape disagrees with the signature is refused before
/// anything is copied; results and intermediates too large for the machine
/// are errors; getters of null handles answer 0 / NaN.
static void testLifetimesAndSizes(void) {
  // CHECK-LABEL: @lifetimes_and_sizes
  fprintf(stderr, "@lifetimes_and_sizes\n");
  MlirContext ctx = mlirContextCreate();
  mxfp8trainContextRegisterAll(ctx);
  MlirModule module = mlirModuleCreateParse(
      ctx, mlirStringRefCreateFromCString(
               "func.func @twice(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {\n"
               "  %y = arith.addf %x, %x : tensor<2x4xf32>\n"
               "  return %y : tensor<2x4xf32>\n"
               "}\n"
               "func.func @huge(%x: tensor<4xf32>) -> "
               "tensor<1000000x1000000xf32> {\n"
               "  %e = tensor.empty() : tensor<1000000x1000000xf32>\n"
               "  return %e : tensor<1000000x1000000xf32>\n"
               "}\n"));
  MXFP8TrainCompileOptions options = mxfp8trainCompileOptionsGetDefault();
  MXFP8TrainExecutable exe = mxfp8trainExecutableCreate(
      module, &options, printError, (char[]){"compile"});
  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  if (mxfp8trainExecutableIsNull(exe))
    return;
  float x[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  int64_t shape[] = {2, 4};
  MXFP8TrainHostBuffer input = {MXFP8TrainElementF32, 2, shape, x};
  for (int call = 0; call < 2; ++call) {
    MXFP8TrainResults results =
        mxfp8trainExecutableRun(exe, mlirStringRefCreateFromCString("twice"),
                                &input, 1, printError, (char[]){"twice"});
    if (mxfp8trainResultsIsNull(results))
      continue;
    fprintf(stderr, "call %d: %g %g\n", call,
            mxfp8trainResultsGetElement(results, 0, 0),
            mxfp8trainResultsGetElement(results, 0, 7));
    mxfp8trainResultsDestroy(results);
  }
  // CHECK: call 0: 2 16
  // CHECK-NEXT: call 1: 2 16
  // A shape claiming 2^40 rows of the 2x4 buffer: refused by the signature
  // check, neither copied nor allocated.
  int64_t claimed[] = {(int64_t)1 << 40, 4};
  MXFP8TrainHostBuffer liar = {MXFP8TrainElementF32, 2, claimed, x};
  MXFP8TrainResults results =
      mxfp8trainExecutableRun(exe, mlirStringRefCreateFromCString("twice"),
                              &liar, 1, printError, (char[]){"claimed shape"});
  // CHECK: claimed shape: argument 0 of 'twice' must be 2x4xf32, given 1099511627776x4xf32
  float four[4] = {0};
  int64_t fourShape[] = {4};
  MXFP8TrainHostBuffer small = {MXFP8TrainElementF32, 1, fourShape, four};
  results =
      mxfp8trainExecutableRun(exe, mlirStringRefCreateFromCString("huge"),
                              &small, 1, printError, (char[]){"huge result"});
  // CHECK: huge result: cannot allocate 4000000000000 bytes for result #0 of 'huge' (1000000x1000000xf32)
  fprintf(stderr, "null results: %ld %g\n",
          (long)mxfp8trainResultsGetNumResults(results),
          mxfp8trainResultsGetElement(results, 0, 0));
  // CHECK-NEXT: null results: 0 nan
  mxfp8trainExecutableDestroy(exe);

  // An intermediate larger than the machine's memory: a diagnostic at the
  // op (mxfp8train-check-buffer-sizes), not a crash of the JIT code.
  ctx = mlirContextCreate();
  mxfp8trainContextRegisterAll(ctx);
  module = mlirModuleCreateParse(
      ctx, mlirStringRefCreateFromCString(
               "func.func @big(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
               "  %c = arith.constant 1.0 : f32\n"
               "  %e = tensor.empty() : tensor<100000x1000000xf32>\n"
               "  %f = linalg.fill ins(%c : f32) outs(%e : "
               "tensor<100000x1000000xf32>) -> tensor<100000x1000000xf32>\n"
               "  %s = tensor.extract_slice %f[5, 7] [1, 4] [1, 1] : "
               "tensor<100000x1000000xf32> to tensor<4xf32>\n"
               "  %r = arith.addf %s, %x : tensor<4xf32>\n"
               "  return %r : tensor<4xf32>\n"
               "}\n"));
  exe = mxfp8trainExecutableCreate(module, &options, printError,
                                   (char[]){"intermediate"});
  // CHECK: intermediate: lowering for the CPU failed:
  // CHECK-NEXT: a buffer of 400000000000 bytes ('memref<100000x1000000xf32>') exceeds the limit of {{[0-9]+}} bytes (max-bytes)
  fprintf(stderr, "null: %d\n", mxfp8trainExecutableIsNull(exe));
  // CHECK: null: 1
  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
}

int main(void) {
  MlirContext ctx = mlirContextCreate();
  mxfp8trainContextRegisterAll(ctx);
  testQuantize(ctx);
  testConvertedLinear(ctx);
  testCUDAWithoutDriver(ctx);
  mlirContextDestroy(ctx);
  testLifetimesAndSizes();
  // CHECK: done
  fprintf(stderr, "done\n");
  return 0;
}
