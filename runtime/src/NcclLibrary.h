//===- NcclLibrary.h - NCCL entry points, opened at run time -- -*- C++ -*-===//
//
// The runtime does not include nccl.h or link libnccl: it declares the few
// NCCL types it passes (same values as the documented C API: ncclResult_t,
// ncclDataType_t, ncclRedOp_t, the 128-byte ncclUniqueId) and resolves the
// entry points with dlsym through one X-macro table, as CudaDriver.h does
// for libcuda.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_RUNTIME_SRC_NCCLLIBRARY_H
#define MXFP8TRAIN_RUNTIME_SRC_NCCLLIBRARY_H

#include "mxfp8train/runtime/Collectives.h"

#include <cstddef>
#include <string>
#include <vector>

namespace mxfp8rt {
namespace nccl {

/// ncclResult_t: 0 is ncclSuccess.
using ncclResult_t = int;
/// ncclComm_t: an opaque pointer.
using ncclComm_t = struct ncclComm *;
/// cudaStream_t: the driver's CUstream.
using cudaStream_t = void *;
/// ncclUniqueId: NCCL_UNIQUE_ID_BYTES opaque bytes, passed by value.
struct ncclUniqueId {
  char internal[MXFP8RT_NCCL_UNIQUE_ID_BYTES];
};

/// ncclDataType_t values the runtime uses.
enum ncclDataType_t : int {
  ncclUint8 = 1,
  ncclInt32 = 2,
  ncclInt64 = 4,
  ncclFloat32 = 7,
  ncclBfloat16 = 9,
};

/// ncclRedOp_t values the runtime uses.
enum ncclRedOp_t : int { ncclSum = 0, ncclMax = 2 };

/// X(symbol, returnType, (parameterTypes)); every entry is required.
#define MXFP8RT_NCCL_FUNCTIONS(X)                                              \
  X(ncclGetVersion, ncclResult_t, (int *))                                     \
  X(ncclGetErrorString, const char *, (ncclResult_t))                          \
  X(ncclGetUniqueId, ncclResult_t, (ncclUniqueId *))                           \
  X(ncclCommInitRank, ncclResult_t, (ncclComm_t *, int, ncclUniqueId, int))    \
  X(ncclCommDestroy, ncclResult_t, (ncclComm_t))                               \
  X(ncclAllGather, ncclResult_t,                                               \
    (const void *, void *, size_t, ncclDataType_t, ncclComm_t, cudaStream_t))  \
  X(ncclAllReduce, ncclResult_t,                                               \
    (const void *, void *, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t,    \
     cudaStream_t))                                                            \
  X(ncclReduceScatter, ncclResult_t,                                           \
    (const void *, void *, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t,    \
     cudaStream_t))                                                            \
  X(ncclSend, ncclResult_t,                                                    \
    (const void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t))     \
  X(ncclRecv, ncclResult_t,                                                    \
    (void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t))           \
  X(ncclGroupStart, ncclResult_t, (void))                                      \
  X(ncclGroupEnd, ncclResult_t, (void))

/// The resolved library.
struct Library {
  /// The file that was opened.
  std::string path;
#define MXFP8RT_NCCL_SLOT(symbol, ret, params) ret(*symbol) params = nullptr;
  MXFP8RT_NCCL_FUNCTIONS(MXFP8RT_NCCL_SLOT)
#undef MXFP8RT_NCCL_SLOT
};

/// Where libnccl is looked for, in order (Collectives.h,
/// mxfp8rtNcclGetVersion): the MXFP8RT_NCCL_LIBRARY file alone when set,
/// else "libnccl.so.2" and the wheel paths that exist.
std::vector<std::string> getSearchPath();

/// Opens the first of `candidates` that loads and has every entry point.
/// On failure returns MXFP8RT_UNAVAILABLE and a message that lists each
/// candidate with the loader's error.
mxfp8rtStatus loadLibrary(const std::vector<std::string> &candidates,
                          Library &library, std::string &message);

/// The process's library: loaded from getSearchPath() on the first call
/// that succeeds (failures are retried); null and an error recorded
/// (mxfp8rtGetLastError) when none loads.
const Library *getLibrary();

/// The loaded library's path, or "" when none is loaded yet.
const char *getLoadedPath();

/// Records a failed NCCL call ("<call> failed: <ncclGetErrorString>
/// (ncclResult_t <n>)") and returns MXFP8RT_CUDA_ERROR.
mxfp8rtStatus recordNcclError(const Library &library, ncclResult_t result,
                              const char *call);

} // namespace nccl
} // namespace mxfp8rt

#endif // MXFP8TRAIN_RUNTIME_SRC_NCCLLIBRARY_H
