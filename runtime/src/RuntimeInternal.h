//===- RuntimeInternal.h - shared by the runtime's sources ---- -*- C++ -*-===//
//
// What the mgpu* wrappers need from the mxfp8rt* implementation beyond the
// public header.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_RUNTIME_SRC_RUNTIMEINTERNAL_H
#define MXFP8TRAIN_RUNTIME_SRC_RUNTIMEINTERNAL_H

#include "mxfp8train/runtime/Runtime.h"

#include <string>

namespace mxfp8rt {

/// Sets the calling thread's mxfp8rtGetLastError() text and returns
/// `status`.
mxfp8rtStatus recordError(mxfp8rtStatus status, std::string message);

} // namespace mxfp8rt

#endif // MXFP8TRAIN_RUNTIME_SRC_RUNTIMEINTERNAL_H
