//===- compare.c - C API: the compare report ---------------------*- C -*-===//
//
// mxfp8trainCompareFunction on examples/mlp_train_step_small.mlir (CPU,
// mxfp8_rceil, seed 0): the SQNR of each result in the range mxfp8-run
// reports for it (test/tools/mxfp8-run/compare-mlp-small.mlir), the bars
// (checked: none for these results, which sit behind several quantized
// GEMMs; each matmul alone: its role's bar), and the errors of bad calls.
//
//===----------------------------------------------------------------------===//

// RUN: mxfp8train-capi-compare-test %mxfp8train_src_root/examples/mlp_train_step_small.mlir 2>&1 | FileCheck %s

#include "mxfp8train-c/Compare.h"
#include "mxfp8train-c/Registration.h"

#include "mlir-c/IR.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>

static void printError(MlirStringRef text, void *userData) {
  fprintf(stderr, "%s: %.*s\n", (const char *)userData, (int)text.length,
          text.data);
}

/// Prints the SQNR of a row as "in [lo, hi)" or "out of [lo, hi): value",
/// so that FileCheck asserts a range.
static void printSqnr(double sqnr, double lo, double hi) {
  if (sqnr >= lo && sqnr < hi)
    fprintf(stderr, "sqnr in [%g, %g)", lo, hi);
  else
    fprintf(stderr, "sqnr out of [%g, %g): %g", lo, hi, sqnr);
}

static void testMlp(MlirContext ctx, const char *path) {
  // CHECK-LABEL: @mlp
  fprintf(stderr, "@mlp\n");
  MlirModule module =
      mlirModuleCreateParseFromFile(ctx, mlirStringRefCreateFromCString(path));
  if (mlirModuleIsNull(module)) {
    fprintf(stderr, "cannot parse %s\n", path);
    return;
  }
  MXFP8TrainCompileOptions options = mxfp8trainCompileOptionsGetDefault();
  MXFP8TrainCompareReport report = mxfp8trainCompareFunction(
      module, mlirStringRefCreateFromCString("mlp_train_step"),
      mlirStringRefCreateFromCString("mxfp8_rceil"), options, /*seed=*/0,
      printError, (char[]){"error"});
  if (mxfp8trainCompareReportIsNull(report)) {
    mlirModuleDestroy(module);
    return;
  }
  // Five results, each behind 3 to 5 quantized GEMMs: their role bars are
  // only shown (NaN here), and mxfp8-run's SQNRs are 20-29 dB. Without the
  // parser's SSA names (a module given to the C API), results are named
  // `result<i>` unless they carry `mxfp8run.name`.
  intptr_t n = mxfp8trainCompareReportGetNumResults(report);
  fprintf(stderr, "results: %ld\n", (long)n);
  // CHECK: results: 5
  for (intptr_t i = 0; i < n; ++i) {
    MlirStringRef name = mxfp8trainCompareReportGetResultName(report, i);
    fprintf(stderr, "result %.*s: ", (int)name.length, name.data);
    printSqnr(mxfp8trainCompareReportGetResultSqnr(report, i), 20.0, 30.0);
    double bar = mxfp8trainCompareReportGetResultBar(report, i);
    fprintf(stderr, ", bar %s, %s\n", isnan(bar) ? "none" : "checked",
            mxfp8trainCompareReportGetResultPassed(report, i) ? "passed"
                                                              : "failed");
  }
  // CHECK-NEXT: result result0: sqnr in [20, 30), bar none, passed
  // CHECK-NEXT: result result1: sqnr in [20, 30), bar none, passed
  // CHECK-NEXT: result result2: sqnr in [20, 30), bar none, passed
  // CHECK-NEXT: result result3: sqnr in [20, 30), bar none, passed
  // CHECK-NEXT: result result4: sqnr in [20, 30), bar none, passed

  // Nine matmuls, each converted alone: above torchao's bar of its role
  // (forward 27, dgrad 25, wgrad 24 dB) and below 45 dB (fp8 noise).
  intptr_t m = mxfp8trainCompareReportGetNumMatmuls(report);
  fprintf(stderr, "matmuls: %ld\n", (long)m);
  // CHECK-NEXT: matmuls: 9
  for (intptr_t i = 0; i < m; ++i) {
    MlirStringRef name = mxfp8trainCompareReportGetMatmulName(report, i);
    double bar = mxfp8trainCompareReportGetMatmulBar(report, i);
    fprintf(stderr, "matmul %.*s: bar %g, ", (int)name.length, name.data, bar);
    printSqnr(mxfp8trainCompareReportGetMatmulSqnr(report, i), bar, 45.0);
    fprintf(stderr, ", %s\n",
            mxfp8trainCompareReportGetMatmulPassed(report, i) ? "passed"
                                                              : "failed");
  }
  // CHECK-NEXT: matmul mlp.w1.fwd: bar 27, sqnr in [27, 45), passed
  // CHECK-NEXT: matmul mlp.w3.fwd: bar 27, sqnr in [27, 45), passed
  // CHECK-NEXT: matmul mlp.w2.fwd: bar 27, sqnr in [27, 45), passed
  // CHECK-NEXT: matmul mlp.w2.dgrad: bar 25, sqnr in [25, 45), passed
  // CHECK-NEXT: matmul mlp.w2.wgrad: bar 24, sqnr in [24, 45), passed
  // CHECK-NEXT: matmul mlp.w1.dgrad: bar 25, sqnr in [25, 45), passed
  // CHECK-NEXT: matmul mlp.w3.dgrad: bar 25, sqnr in [25, 45), passed
  // CHECK-NEXT: matmul mlp.w1.wgrad: bar 24, sqnr in [24, 45), passed
  // CHECK-NEXT: matmul mlp.w3.wgrad: bar 24, sqnr in [24, 45), passed
  fprintf(stderr, "overall: %s, %ld passed, %ld failed\n",
          mxfp8trainCompareReportPassed(report) ? "passed" : "failed",
          (long)mxfp8trainCompareReportGetNumPassed(report),
          (long)mxfp8trainCompareReportGetNumFailed(report));
  // CHECK-NEXT: overall: passed, 9 passed, 0 failed
  // Rows out of range are defined: "", NaN, false.
  for (intptr_t pos = -1; pos <= 99; pos += 100) {
    MlirStringRef rn = mxfp8trainCompareReportGetResultName(report, pos);
    MlirStringRef mn = mxfp8trainCompareReportGetMatmulName(report, pos);
    fprintf(stderr, "row %ld: '%.*s' %d %d %d '%.*s' %d %d %d\n", (long)pos,
            (int)rn.length, rn.data,
            isnan(mxfp8trainCompareReportGetResultSqnr(report, pos)),
            isnan(mxfp8trainCompareReportGetResultBar(report, pos)),
            mxfp8trainCompareReportGetResultPassed(report, pos), (int)mn.length,
            mn.data, isnan(mxfp8trainCompareReportGetMatmulSqnr(report, pos)),
            isnan(mxfp8trainCompareReportGetMatmulBar(report, pos)),
            mxfp8trainCompareReportGetMatmulPassed(report, pos));
  }
  // CHECK-NEXT: row -1: '' 1 1 0 '' 1 1 0
  // CHECK-NEXT: row 99: '' 1 1 0 '' 1 1 0
  mxfp8trainCompareReportDestroy(report);

  // CHECK-NEXT: bad recipe: invalid --recipe 'mxfp8_nope'
  report = mxfp8trainCompareFunction(
      module, mlirStringRefCreateFromCString("mlp_train_step"),
      mlirStringRefCreateFromCString("mxfp8_nope"), options, 0, printError,
      (char[]){"bad recipe"});
  // CHECK-NEXT: null: 1
  fprintf(stderr, "null: %d\n", mxfp8trainCompareReportIsNull(report));
  // CHECK-NEXT: bad function: no function @nope with a body
  report = mxfp8trainCompareFunction(
      module, mlirStringRefCreateFromCString("nope"),
      mlirStringRefCreateFromCString("mxfp8_rceil"), options, 0, printError,
      (char[]){"bad function"});
  // CHECK-NEXT: null: 1
  fprintf(stderr, "null: %d\n", mxfp8trainCompareReportIsNull(report));
  mlirModuleDestroy(module);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s examples/mlp_train_step_small.mlir\n", argv[0]);
    return 1;
  }
  MlirContext ctx = mlirContextCreate();
  mxfp8trainContextRegisterAll(ctx);
  testMlp(ctx, argv[1]);
  mlirContextDestroy(ctx);

  // A null module is an error; the getters of a null report answer 0,
  // "", NaN and false.
  MlirModule none = {NULL};
  MXFP8TrainCompareReport report =
      mxfp8trainCompareFunction(none, mlirStringRefCreateFromCString("f"),
                                mlirStringRefCreateFromCString("mxfp8_rceil"),
                                mxfp8trainCompileOptionsGetDefault(), 0,
                                printError, (char[]){"null module"});
  // CHECK: null module: null module
  MlirStringRef name = mxfp8trainCompareReportGetResultName(report, 0);
  fprintf(stderr, "null report: %d %ld %ld %ld '%.*s' %g\n",
          mxfp8trainCompareReportPassed(report),
          (long)mxfp8trainCompareReportGetNumResults(report),
          (long)mxfp8trainCompareReportGetNumMatmuls(report),
          (long)mxfp8trainCompareReportGetNumFailed(report), (int)name.length,
          name.data, mxfp8trainCompareReportGetMatmulSqnr(report, 0));
  // CHECK-NEXT: null report: 0 0 0 0 '' nan
  mxfp8trainCompareReportDestroy(report);
  return 0;
}
