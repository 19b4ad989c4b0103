//===- RuntimeInternal.h - shared by the runtime's sources ---- -*- C++ -*-===//
//
// What the mgpu* wrappers need from the mxfp8rt* implementation beyond the
// public header.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_RUNTIME_SRC_RUNTIMEINTERNAL_H
#define MXFP8TRAIN_RUNTIME_SRC_RUNTIMEINTERNAL_H

#include "mxfp8train/runtime/Runtime.h"

#include "CudaDriver.h"

#include <functional>
#include <string>

namespace mxfp8rt {

/// Sets the calling thread's mxfp8rtGetLastError() text and returns
/// `status`.
mxfp8rtStatus recordError(mxfp8rtStatus status, std::string message);

/// Records a failed driver call as failCuda does ("<call> failed <context>:
/// <CUDA error>") and returns MXFP8RT_CUDA_ERROR (or OUT_OF_MEMORY).
mxfp8rtStatus recordCudaError(cuda::CUresult result, const char *call,
                              const std::string &context);

/// The resolved driver table; valid after a successful mxfp8rtInitialize.
const cuda::Driver &getDriver();

/// Runs `fn` with the primary context of `device` current (pushed and popped
/// around it when needed) and returns its status, or the failure to make
/// the context current. Call after a successful mxfp8rtInitialize.
mxfp8rtStatus runInContext(int device,
                           const std::function<mxfp8rtStatus()> &fn);

} // namespace mxfp8rt

#endif // MXFP8TRAIN_RUNTIME_SRC_RUNTIMEINTERNAL_H
