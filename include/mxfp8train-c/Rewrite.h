/*===- Rewrite.h - convert a training graph to MXFP8 from C ------*- C -*-===*\
|*                                                                            *|
|* mxfp8trainConvertModule runs the matmul rewrite of                         *|
|* mxfp8train-rewrite-matmuls on a module and returns a report with one entry *|
|* per matmul (linalg.matmul, linalg.batch_matmul, mxfp8train.grouped_mm):    *|
|* its name and location, whether it was converted, its training role and    *|
|* the reason.                                                                *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef MXFP8TRAIN_C_REWRITE_H
#define MXFP8TRAIN_C_REWRITE_H

#include "mlir-c/IR.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// What the rewrite did with one matmul: an MXFP8TrainMatmul* decision. An
/// int32_t, not a C enum (here and for MXFP8TrainMatmulRole): the functions
/// that take one check it, which a C enum would make undefined in C++.
typedef int32_t MXFP8TrainMatmulDecision;
enum {
  /// Rewritten to quantize + scaled_mm / scaled_grouped_mm (or the emulated
  /// form for `kernel_preference = emulated`).
  MXFP8TrainMatmulConverted = 0,
  /// Left in high precision on purpose: a wgrad under `wgrad_with_hp`.
  MXFP8TrainMatmulKeptHighPrecision = 1,
  /// Left as it was: not eligible (element type, shapes, filters, ...).
  MXFP8TrainMatmulSkipped = 2,
  /// Invalid input (a bad `mxfp8train.role`): an error was emitted.
  MXFP8TrainMatmulInvalid = 3,
};

/// The training role of a matmul (SPEC §6, §7.2): an MXFP8TrainMatmulRole*.
typedef int32_t MXFP8TrainMatmulRole;
enum {
  MXFP8TrainMatmulRoleForward = 0,
  MXFP8TrainMatmulRoleDgrad = 1,
  MXFP8TrainMatmulRoleWgrad = 2,
  /// Not analysed far enough to have one (skipped or invalid matmuls).
  MXFP8TrainMatmulRoleNone = 3,
};

/// One matmul of a conversion report. The strings are owned by the report.
typedef struct MXFP8TrainMatmulReport {
  /// The name of the first NameLoc in the matmul's location (e.g.
  /// "mlp.w1.fwd"), or "" when it has none.
  MlirStringRef name;
  /// The matmul's location (uniqued in the context; outlives the report).
  MlirLocation location;
  /// The op that was analysed: "linalg.matmul", "linalg.batch_matmul" or
  /// "mxfp8train.grouped_mm".
  MlirStringRef opName;
  MXFP8TrainMatmulDecision decision;
  MXFP8TrainMatmulRole role;
  /// Converted: what was done (the text of the pass's remark, e.g.
  /// "mxfp8train: converted (role forward, ...)"); otherwise why not.
  MlirStringRef reason;
  /// GEMM sizes `(m, k) x (k, n)` and batch (0 unbatched, the number of
  /// experts of a grouped GEMM) of converted matmuls; 0 for the others.
  int64_t batch, m, n, k;
} MXFP8TrainMatmulReport;

/// Options of mxfp8trainConvertModule (mxfp8train-rewrite-matmuls').
typedef struct MXFP8TrainConvertOptions {
  /// A #mxfp8train.recipe or #mxfp8train.float8_recipe attribute; null means
  /// `mxfp8_rceil`.
  MlirAttribute recipe;
  /// Matmuls with M, N or K below this are skipped.
  int64_t minSize;
  /// Matmuls whose location holds a NameLoc containing one of these strings
  /// are skipped (`numExclude` strings; may be null when 0).
  const MlirStringRef *exclude;
  intptr_t numExclude;
  /// Also emit the pass's remark for every matmul on the context (its
  /// diagnostic handlers receive them).
  bool emitRemarks;
} MXFP8TrainConvertOptions;

/// The options of the pass's defaults: mxfp8_rceil, no filters, no remarks.
MLIR_CAPI_EXPORTED MXFP8TrainConvertOptions
mxfp8trainConvertOptionsGetDefault(void);

#define DEFINE_C_API_STRUCT(name, storage)                                     \
  struct name {                                                                \
    storage *ptr;                                                              \
  };                                                                           \
  typedef struct name name

/// The report of a conversion; destroy it with
/// mxfp8trainConversionReportDestroy.
DEFINE_C_API_STRUCT(MXFP8TrainConversionReport, void);

#undef DEFINE_C_API_STRUCT

/// Converts every matmul of `module` that `options` allows, as
/// mxfp8train-rewrite-matmuls does (including the fold of bf16 truncations
/// into the scaled_mm), in place. `options` may be null (the defaults).
/// Always returns a report (never null): its status is failure when a
/// matmul is invalid or `options->recipe` is not a recipe (an error is
/// emitted on the context); the other matmuls are still converted.
MLIR_CAPI_EXPORTED MXFP8TrainConversionReport mxfp8trainConvertModule(
    MlirModule module, const MXFP8TrainConvertOptions *options);

/// mxfp8trainConvertModule with the recipe given as text (a torchao name or
/// a recipe body, see mxfp8trainRecipeAttrParse) and no filters. Bad text:
/// an error is emitted, nothing is converted and the status is failure.
MLIR_CAPI_EXPORTED MXFP8TrainConversionReport
mxfp8trainConvertModuleWithRecipe(MlirModule module, MlirStringRef recipe);

/// Success when every matmul was valid (and the recipe was).
MLIR_CAPI_EXPORTED MlirLogicalResult
mxfp8trainConversionReportGetStatus(MXFP8TrainConversionReport report);

/// Number of matmuls in the report (program order).
MLIR_CAPI_EXPORTED intptr_t
mxfp8trainConversionReportGetNumEntries(MXFP8TrainConversionReport report);

/// Entry `pos` (0 <= pos < GetNumEntries).
MLIR_CAPI_EXPORTED MXFP8TrainMatmulReport mxfp8trainConversionReportGetEntry(
    MXFP8TrainConversionReport report, intptr_t pos);

/// Number of entries with `decision`.
MLIR_CAPI_EXPORTED intptr_t mxfp8trainConversionReportCount(
    MXFP8TrainConversionReport report, MXFP8TrainMatmulDecision decision);

MLIR_CAPI_EXPORTED void
mxfp8trainConversionReportDestroy(MXFP8TrainConversionReport report);

/// The IR spelling of a role ("forward", "dgrad", "wgrad"; "" for none).
MLIR_CAPI_EXPORTED MlirStringRef
mxfp8trainMatmulRoleGetName(MXFP8TrainMatmulRole role);

#ifdef __cplusplus
}
#endif

#endif // MXFP8TRAIN_C_REWRITE_H
