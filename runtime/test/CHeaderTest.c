//===- CHeaderTest.c - Runtime.h compiles and links as C -------- -*- C -*-===//
//
// Runtime.h is a C ABI: this file is compiled as C99 and called from
// RuntimeTest.cpp.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/runtime/Runtime.h"
/* The collectives and the MXFP8 expert-parallel calls are C as well. */
#include "mxfp8train/runtime/ExpertParallel.h"

#include <string.h>

/// Calls the runtime from C: a validation error and the last-error text.
/// Returns 1 when both are as documented.
int mxfp8rtTestCallFromC(void) {
  void *pointer = &pointer;
  mxfp8rtStatus status = mxfp8rtMemAlloc(-1, &pointer);
  return status == MXFP8RT_INVALID_ARGUMENT && pointer == NULL &&
         strcmp(mxfp8rtGetLastError(),
                "mxfp8rtMemAlloc: size -1 is negative") == 0;
}
