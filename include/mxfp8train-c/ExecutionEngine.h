/*===- ExecutionEngine.h - compile and run mxfp8train modules ----*- C -*-===*\
|*                                                                            *|
|* Lowers a tensor-level module (mxfp8train, linalg, tensor, arith, math and  *|
|* func ops, static shapes) for the CPU (mxfp8train-lower-to-cpu) or a CUDA   *|
|* GPU (mxfp8train-lower-to-gpu), JIT-compiles it and calls its public        *|
|* functions on host buffers, as mxfp8-run does.                              *|
|*                                                                            *|
|* Errors: calls that can fail return a null handle and pass the message to   *|
|* `onError(message, userData)` when `onError` is not null.                   *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef MXFP8TRAIN_C_EXECUTIONENGINE_H
#define MXFP8TRAIN_C_EXECUTIONENGINE_H

#include "mlir-c/IR.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Element types of host buffers: an MXFP8TrainElement*. bf16 and f16 are
/// stored as their uint16 bit patterns, f8E4M3FN, f8E5M2 and f8E8M0FNU as
/// uint8 bit patterns, i1 as one byte per element (0 or 1), the others as
/// their C types (float, double, int8_t, int16_t, int32_t, int64_t).
/// An int32_t, not a C enum (here and for MXFP8TrainDevice): the functions
/// check the value (out of range: an error or an empty answer), which a C
/// enum would make undefined on the C++ side.
typedef int32_t MXFP8TrainElementKind;
enum {
  MXFP8TrainElementBF16 = 0,
  MXFP8TrainElementF32 = 1,
  MXFP8TrainElementF64 = 2,
  MXFP8TrainElementF8E4M3FN = 3,
  MXFP8TrainElementF8E5M2 = 4,
  MXFP8TrainElementF8E8M0FNU = 5,
  MXFP8TrainElementI32 = 6,
  MXFP8TrainElementI64 = 7,
  MXFP8TrainElementI1 = 8,
  MXFP8TrainElementI8 = 9,
  MXFP8TrainElementI16 = 10,
  MXFP8TrainElementF16 = 11,
};

/// Bytes of one element of `kind`; 0 when out of range.
MLIR_CAPI_EXPORTED int64_t
mxfp8trainElementKindGetSize(MXFP8TrainElementKind kind);

/// The MLIR spelling of `kind` ("bf16", "f8E4M3FN", ...); "" out of range.
MLIR_CAPI_EXPORTED MlirStringRef
mxfp8trainElementKindGetName(MXFP8TrainElementKind kind);

/// A dense row-major tensor in host memory: `rank` sizes in `shape`, and
/// product(shape) * mxfp8trainElementKindGetSize(kind) bytes at `data`.
typedef struct MXFP8TrainHostBuffer {
  MXFP8TrainElementKind kind;
  intptr_t rank;
  const int64_t *shape;
  const void *data;
} MXFP8TrainHostBuffer;

/// Where the code runs: an MXFP8TrainDevice*.
typedef int32_t MXFP8TrainDevice;
enum {
  MXFP8TrainDeviceCPU = 0,
  MXFP8TrainDeviceCUDA = 1,
};

typedef struct MXFP8TrainCompileOptions {
  MXFP8TrainDevice device;
  /// CPU: tile and vectorize (mxfp8train-lower-to-cpu `vectorize`).
  bool vectorize;
  /// CUDA: the GPU ordinal.
  int gpu;
  /// CUDA: the NVVM chip (`sm_90a`, `sm_100a`); empty: the chip of the GPU.
  MlirStringRef chip;
  /// CUDA: mxfp8train-lower-to-gpu `simple-gemm`.
  bool simpleGemm;
} MXFP8TrainCompileOptions;

/// CPU, vectorized; for CUDA: GPU 0, its own chip, the default kernels.
MLIR_CAPI_EXPORTED MXFP8TrainCompileOptions
mxfp8trainCompileOptionsGetDefault(void);

/// True when the CUDA driver opens and GPU `gpu` exists; otherwise false and
/// the runtime's reason goes to `onReason` (when not null).
MLIR_CAPI_EXPORTED bool
mxfp8trainCUDAIsAvailable(int gpu, MlirStringCallback onReason, void *userData);

#define DEFINE_C_API_STRUCT(name, storage)                                     \
  struct name {                                                                \
    storage *ptr;                                                              \
  };                                                                           \
  typedef struct name name

/// A module lowered and JIT-compiled for one device.
DEFINE_C_API_STRUCT(MXFP8TrainExecutable, void);
/// The results of one call: host buffers owned by the handle.
DEFINE_C_API_STRUCT(MXFP8TrainResults, void);

#undef DEFINE_C_API_STRUCT

static inline bool mxfp8trainExecutableIsNull(MXFP8TrainExecutable e) {
  return !e.ptr;
}
static inline bool mxfp8trainResultsIsNull(MXFP8TrainResults r) {
  return !r.ptr;
}

/// Lowers a clone of `module` (not modified) for `options->device` (null
/// `options`: the defaults) and JIT-compiles it. Null on failure: a lowering
/// error (with its diagnostics), no GPU or no chip for it (CUDA), or a
/// chip the lowering does not know.
MLIR_CAPI_EXPORTED MXFP8TrainExecutable mxfp8trainExecutableCreate(
    MlirModule module, const MXFP8TrainCompileOptions *options,
    MlirStringCallback onError, void *userData);

MLIR_CAPI_EXPORTED void mxfp8trainExecutableDestroy(MXFP8TrainExecutable exe);

/// Calls public function `function` with `numInputs` inputs (one per
/// argument, in order; kinds and shapes must match its signature). Null on
/// failure: an unknown function, a mismatching input, or a runtime error.
MLIR_CAPI_EXPORTED MXFP8TrainResults
mxfp8trainExecutableRun(MXFP8TrainExecutable exe, MlirStringRef function,
                        const MXFP8TrainHostBuffer *inputs, intptr_t numInputs,
                        MlirStringCallback onError, void *userData);

/// mxfp8trainExecutableCreate + mxfp8trainExecutableRun, for one call.
MLIR_CAPI_EXPORTED MXFP8TrainResults mxfp8trainRunFunction(
    MlirModule module, const MXFP8TrainCompileOptions *options,
    MlirStringRef function, const MXFP8TrainHostBuffer *inputs,
    intptr_t numInputs, MlirStringCallback onError, void *userData);

MLIR_CAPI_EXPORTED intptr_t mxfp8trainResultsGetNumResults(MXFP8TrainResults r);

/// Result `pos`; its shape and data live as long as `r`. For `pos` outside
/// [0, mxfp8trainResultsGetNumResults): kind -1, rank 0, null shape and
/// data.
MLIR_CAPI_EXPORTED MXFP8TrainHostBuffer
mxfp8trainResultsGetResult(MXFP8TrainResults r, intptr_t pos);

/// Element `index` (row-major) of result `pos` as a double (bf16, fp8 and
/// e8m0 decoded; integers converted); NaN when `pos` or `index` is out of
/// range.
MLIR_CAPI_EXPORTED double
mxfp8trainResultsGetElement(MXFP8TrainResults r, intptr_t pos, int64_t index);

MLIR_CAPI_EXPORTED void mxfp8trainResultsDestroy(MXFP8TrainResults r);

#ifdef __cplusplus
}
#endif

#endif // MXFP8TRAIN_C_EXECUTIONENGINE_H
