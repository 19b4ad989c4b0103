/*===- Compare.h - the converted function against the original ---*- C -*-===*\
|*                                                                            *|
|* mxfp8-run --compare from C: runs a function as written and after its MXFP8 *|
|* conversion with a recipe on the same generated inputs, and reports per     *|
|* result the SQNR of the converted run against the original and the bar that *|
|* applies (SPEC §8), and per matmul the same for that matmul converted       *|
|* alone (torchao's per-linear tests).                                        *|
|*                                                                            *|
|* Errors: mxfp8trainCompareFunction returns a null report and passes the     *|
|* message to `onError(message, userData)` when `onError` is not null. A      *|
|* missed bar is not an error: it is in the report.                           *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef MXFP8TRAIN_C_COMPARE_H
#define MXFP8TRAIN_C_COMPARE_H

#include "mxfp8train-c/ExecutionEngine.h"

#ifdef __cplusplus
extern "C" {
#endif

/// The outcome of one comparison; owns its strings.
typedef struct MXFP8TrainCompareReport {
  void *ptr;
} MXFP8TrainCompareReport;

static inline bool
mxfp8trainCompareReportIsNull(MXFP8TrainCompareReport report) {
  return !report.ptr;
}

/// Compares public function `function` of `module` (not modified; empty
/// name: the only public function) with its conversion by `recipe` (a
/// torchao recipe name such as "mxfp8_rceil", or the body of a
/// `#mxfp8train.recipe<...>` attribute), on `options.device`, with inputs
/// generated from `seed` as mxfp8-run generates them. Each matmul is also
/// compared alone. Null on failure.
MLIR_CAPI_EXPORTED MXFP8TrainCompareReport mxfp8trainCompareFunction(
    MlirModule module, MlirStringRef function, MlirStringRef recipe,
    MXFP8TrainCompileOptions options, uint64_t seed, MlirStringCallback onError,
    void *userData);

MLIR_CAPI_EXPORTED void
mxfp8trainCompareReportDestroy(MXFP8TrainCompareReport report);

/// True when no checked result or matmul is below its bar.
MLIR_CAPI_EXPORTED bool
mxfp8trainCompareReportPassed(MXFP8TrainCompareReport report);

/// Checked rows (results and matmuls) at or above their bar, and below it.
MLIR_CAPI_EXPORTED intptr_t
mxfp8trainCompareReportGetNumPassed(MXFP8TrainCompareReport report);
MLIR_CAPI_EXPORTED intptr_t
mxfp8trainCompareReportGetNumFailed(MXFP8TrainCompareReport report);

/// The results of the function, in order. The row getters below answer a
/// `pos` outside [0, count) with "", NaN or false.
MLIR_CAPI_EXPORTED intptr_t
mxfp8trainCompareReportGetNumResults(MXFP8TrainCompareReport report);

/// The name of result `pos` (SSA name, `mxfp8run.name` or `result<i>`);
/// lives as long as the report.
MLIR_CAPI_EXPORTED MlirStringRef mxfp8trainCompareReportGetResultName(
    MXFP8TrainCompareReport report, intptr_t pos);

/// SQNR in dB of result `pos` (+inf when equal, NaN with a NaN).
MLIR_CAPI_EXPORTED double
mxfp8trainCompareReportGetResultSqnr(MXFP8TrainCompareReport report,
                                     intptr_t pos);

/// The checked bar in dB of result `pos`; NaN when none is checked (no
/// role and no `mxfp8run.min_sqnr`, or a result behind several quantized
/// GEMMs, whose role bar is only shown).
MLIR_CAPI_EXPORTED double
mxfp8trainCompareReportGetResultBar(MXFP8TrainCompareReport report,
                                    intptr_t pos);

/// False only when result `pos` misses its checked bar.
MLIR_CAPI_EXPORTED bool
mxfp8trainCompareReportGetResultPassed(MXFP8TrainCompareReport report,
                                       intptr_t pos);

/// The matmuls of the function (converted or not), in order.
MLIR_CAPI_EXPORTED intptr_t
mxfp8trainCompareReportGetNumMatmuls(MXFP8TrainCompareReport report);

/// The location name of matmul `pos`; lives as long as the report.
MLIR_CAPI_EXPORTED MlirStringRef mxfp8trainCompareReportGetMatmulName(
    MXFP8TrainCompareReport report, intptr_t pos);

/// SQNR in dB of matmul `pos` converted alone; NaN when it was not
/// converted.
MLIR_CAPI_EXPORTED double
mxfp8trainCompareReportGetMatmulSqnr(MXFP8TrainCompareReport report,
                                     intptr_t pos);

/// The bar in dB of matmul `pos` (its role's); NaN when not converted.
MLIR_CAPI_EXPORTED double
mxfp8trainCompareReportGetMatmulBar(MXFP8TrainCompareReport report,
                                    intptr_t pos);

/// False only when matmul `pos` misses its bar.
MLIR_CAPI_EXPORTED bool
mxfp8trainCompareReportGetMatmulPassed(MXFP8TrainCompareReport report,
                                       intptr_t pos);

#ifdef __cplusplus
}
#endif

#endif // MXFP8TRAIN_C_COMPARE_H
