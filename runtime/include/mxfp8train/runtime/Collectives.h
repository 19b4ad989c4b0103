//===- Collectives.h - collectives over NCCL or threads, C ABI -- -*- C -*-===//
//
// Collective communication between the ranks of a communicator, for the
// partitioned programs of the `shard` dialect (docs/sharding.md): all-gather,
// reduce-scatter, all-reduce (sum, max), all-to-all and all-to-allv.
//
// Two backends stand behind one mxfp8rtComm handle:
//  - NCCL: libnccl.so.2 is opened with dlopen on first use (like libcuda:
//    the runtime builds and loads without it). One rank per process or per
//    thread, one GPU per rank, device buffers, work ordered on a stream.
//  - in-process: the ranks are threads of one process sharing an
//    mxfp8rtInProcessGroup; buffers are host memory, the exchange is plain
//    copies and each call returns when the result is in place (the stream
//    is ignored). It runs partitioned programs on the CPU (tests, CI).
//
// Element types: mxfp8rtDataType. fp8 data (f8E4M3FN, f8E5M2) and e8m0
// scales (f8E8M0FNU) travel as bytes (MXFP8RT_DATA_BYTE), which no collective
// reduces. Counts are elements, never bytes. Every call of a collective is
// collective: each rank of the communicator makes the same calls in the same
// order with matching counts, types and reductions.
//
// Reductions of the in-process backend combine the ranks in rank order
// (((r0 + r1) + r2) ...), in f32 for bf16 with one rounding to nearest even
// at the end, wrapping for integers; max propagates NaN. NCCL chooses its own
// order (its algorithms).
//
// The second part of this header is the ABI that the
// convert-shard-to-runtime-collectives lowering emits calls to: the calling
// thread's *bound* communicator (mxfp8rtCommBind) carries the grid, so the
// generated code takes no handle.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_RUNTIME_COLLECTIVES_H
#define MXFP8TRAIN_RUNTIME_COLLECTIVES_H

#include "mxfp8train/runtime/Runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/// A communicator: one rank's view of a group of ranks.
typedef struct mxfp8rtComm_st *mxfp8rtComm;
/// The shared state of the ranks (threads) of one in-process group.
typedef struct mxfp8rtInProcessGroup_st *mxfp8rtInProcessGroup;

// mxfp8rtDataType and mxfp8rtReduceOp are int32_t typedefs with named
// constants, not C enum types: the calls check the value they are given
// (an out-of-range one is MXFP8RT_INVALID_ARGUMENT), and a C enum would
// make such a value undefined on the C++ side (UBSan's `enum` check).

/// Element type of a collective's buffers: an MXFP8RT_DATA_*.
typedef int32_t mxfp8rtDataType;
enum {
  /// One byte: f8E4M3FN, f8E5M2, f8E8M0FNU, i8. Moved, never reduced.
  MXFP8RT_DATA_BYTE = 0,
  /// bfloat16 (2 bytes).
  MXFP8RT_DATA_BF16 = 1,
  /// IEEE binary32.
  MXFP8RT_DATA_F32 = 2,
  /// Two's complement 32-bit (token offsets, counts).
  MXFP8RT_DATA_I32 = 3,
  /// Two's complement 64-bit.
  MXFP8RT_DATA_I64 = 4,
};

/// Element-wise reduction of all-reduce and reduce-scatter: an
/// MXFP8RT_REDUCE_*.
typedef int32_t mxfp8rtReduceOp;
enum {
  MXFP8RT_REDUCE_SUM = 0,
  MXFP8RT_REDUCE_MAX = 1,
};

/// Which backend a communicator uses.
typedef enum mxfp8rtCommBackend {
  MXFP8RT_COMM_IN_PROCESS = 0,
  MXFP8RT_COMM_NCCL = 1,
} mxfp8rtCommBackend;

/// Size of an NCCL unique id (NCCL_UNIQUE_ID_BYTES).
#define MXFP8RT_NCCL_UNIQUE_ID_BYTES 128

/// The id one rank creates (mxfp8rtNcclGetUniqueId) and every rank of the
/// communicator passes to mxfp8rtCommInitNccl (sent between processes by the
/// caller, e.g. through a file or torch.distributed's store).
typedef struct mxfp8rtNcclUniqueId {
  char bytes[MXFP8RT_NCCL_UNIQUE_ID_BYTES];
} mxfp8rtNcclUniqueId;

//===----------------------------------------------------------------------===//
// Communicators
//===----------------------------------------------------------------------===//

/// Creates the shared state of `size` (positive) in-process ranks.
MXFP8RT_EXPORT mxfp8rtStatus
mxfp8rtInProcessGroupCreate(int size, mxfp8rtInProcessGroup *group);

/// Drops the caller's reference to `group`; communicators made from it keep
/// it alive until they are destroyed. Null is a no-op.
MXFP8RT_EXPORT mxfp8rtStatus
mxfp8rtInProcessGroupDestroy(mxfp8rtInProcessGroup group);

/// Rank `rank` (0 <= rank < size) of `group`; each rank once.
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtCommInitInProcess(
    mxfp8rtInProcessGroup group, int rank, mxfp8rtComm *comm);

/// Loads libnccl and returns its version code, e.g. 22703 for 2.27.3.
/// MXFP8RT_UNAVAILABLE when no library is found: the message lists every
/// place looked at, in order: the file named by MXFP8RT_NCCL_LIBRARY when
/// set (and nothing else then), else libnccl.so.2 through the loader's
/// search path, else the PyPI wheel (`nvidia-nccl-cu*`, which torch's pip
/// install brings) as site-packages/nvidia/nccl/lib/libnccl.so.2 or
/// site-packages/nvidia/cu1*/lib/libnccl.so.2 in the Python environments of
/// $VIRTUAL_ENV, $CONDA_PREFIX, each `<prefix>/bin` on $PATH, ~/.local,
/// /usr/local, $PYTHONPATH and /usr/lib/python3/dist-packages. The first
/// library that loads stays loaded; a failure is retried on the next call.
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtNcclGetVersion(int *version);

/// The file libnccl was loaded from, or "" before a successful load.
MXFP8RT_EXPORT const char *mxfp8rtNcclGetLibraryPath(void);

/// A new NCCL unique id (ncclGetUniqueId); called by one rank.
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtNcclGetUniqueId(mxfp8rtNcclUniqueId *id);

/// Rank `rank` of an NCCL communicator of `size` ranks on the calling
/// thread's device (mxfp8rtSetDevice); ncclCommInitRank, so it blocks until
/// every rank has called it. NCCL errors are MXFP8RT_CUDA_ERROR with the
/// call and ncclGetErrorString in the message.
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtCommInitNccl(int size,
                                                 const mxfp8rtNcclUniqueId *id,
                                                 int rank, mxfp8rtComm *comm);

/// Destroys `comm` (unbinding it from the calling thread); null is a no-op.
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtCommDestroy(mxfp8rtComm comm);

/// The rank, size and backend of `comm`.
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtCommGetRank(mxfp8rtComm comm, int *rank);
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtCommGetSize(mxfp8rtComm comm, int *size);
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtCommGetBackend(mxfp8rtComm comm,
                                                   mxfp8rtCommBackend *backend);

/// The payload bytes this rank has handed to successful collectives of
/// `comm`: its send buffer of each call (sendCount elements of an
/// all-gather, count of an all-reduce, size * recvCount of a reduce-scatter,
/// the sum of the send counts of an all-to-all(v), its own part included).
/// What an exchange costs, e.g. fp8 + scales against bf16.
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtCommGetBytesSent(mxfp8rtComm comm,
                                                     int64_t *bytes);

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//
//
// Every count is non-negative; zero-size parts are allowed. Buffers of a
// non-zero size must be non-null. In place (send == recv) is allowed where
// NCCL allows it: all-reduce, and all-gather / reduce-scatter with the send
// buffer at this rank's part of the recv buffer.

/// recv[r * sendCount + i] = send_r[i] for every rank r: `recv` holds
/// size * sendCount elements.
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtAllGather(mxfp8rtComm comm,
                                              const void *send, void *recv,
                                              intptr_t sendCount,
                                              mxfp8rtDataType type,
                                              mxfp8rtStream stream);

/// recv[i] = op over r of send_r[i], i < count, on every rank.
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtAllReduce(
    mxfp8rtComm comm, const void *send, void *recv, intptr_t count,
    mxfp8rtDataType type, mxfp8rtReduceOp op, mxfp8rtStream stream);

/// recv[i] = op over r of send_r[rank * recvCount + i], i < recvCount:
/// `send` holds size * recvCount elements.
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtReduceScatter(
    mxfp8rtComm comm, const void *send, void *recv, intptr_t recvCount,
    mxfp8rtDataType type, mxfp8rtReduceOp op, mxfp8rtStream stream);

/// recv[r * count + i] = send_r[rank * count + i]: part `p` of every send
/// buffer goes to rank p, and `recv` holds the parts in rank order. Both
/// buffers hold size * count elements.
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtAllToAll(mxfp8rtComm comm, const void *send,
                                             void *recv, intptr_t count,
                                             mxfp8rtDataType type,
                                             mxfp8rtStream stream);

/// All-to-all with a count per peer: rank q sends sendCounts[p] elements
/// from send + sendOffsets[p] to rank p, which stores them at
/// recv + recvOffsets[q] (recvCounts[q] elements, which must equal q's
/// sendCounts[p]; the in-process backend checks it). The four arrays
/// (host memory) hold `size` elements each; offsets are in elements.
/// Token dispatch of expert parallelism: uneven counts, empty parts.
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtAllToAllv(
    mxfp8rtComm comm, const void *send, const intptr_t *sendCounts,
    const intptr_t *sendOffsets, void *recv, const intptr_t *recvCounts,
    const intptr_t *recvOffsets, mxfp8rtDataType type, mxfp8rtStream stream);

//===----------------------------------------------------------------------===//
// ABI of lowered shard collectives (convert-shard-to-runtime-collectives)
//===----------------------------------------------------------------------===//
//
// The shard dialect's grid is the bound communicator of the calling thread:
// linear process index = rank. Buffers are addresses as MLIR `index`
// (intptr_t); `groupSize` is the number of processes the program was
// partitioned for, checked against the communicator's size. Each returns an
// mxfp8rtStatus, which the generated code asserts to be MXFP8RT_SUCCESS.
// On a device communicator (NCCL) each call returns once its work on the
// bound stream is done: GPU-lowered code waits for its own stream before
// the call and runs its later kernels on other streams.

/// Makes `comm` the calling thread's communicator for lowered code, with its
/// collectives ordered on `stream` (NCCL). Null unbinds.
MXFP8RT_EXPORT mxfp8rtStatus mxfp8rtCommBind(mxfp8rtComm comm,
                                             mxfp8rtStream stream);

/// The bound communicator's rank, or -1 (error recorded) when none is bound
/// or its size is not `groupSize`.
MXFP8RT_EXPORT intptr_t mxfp8rtShardProcessIndex(intptr_t groupSize);

/// mxfp8rtAllReduce, mxfp8rtAllGather, mxfp8rtReduceScatter and
/// mxfp8rtAllToAll on the bound communicator. `type` is an mxfp8rtDataType,
/// `op` an mxfp8rtReduceOp.
MXFP8RT_EXPORT int32_t mxfp8rtShardAllReduce(intptr_t send, intptr_t recv,
                                             intptr_t count, int32_t type,
                                             int32_t op, intptr_t groupSize);
MXFP8RT_EXPORT int32_t mxfp8rtShardAllGather(intptr_t send, intptr_t recv,
                                             intptr_t sendCount, int32_t type,
                                             intptr_t groupSize);
MXFP8RT_EXPORT int32_t mxfp8rtShardReduceScatter(intptr_t send, intptr_t recv,
                                                 intptr_t recvCount,
                                                 int32_t type, int32_t op,
                                                 intptr_t groupSize);
MXFP8RT_EXPORT int32_t mxfp8rtShardAllToAll(intptr_t send, intptr_t recv,
                                            intptr_t count, int32_t type,
                                            intptr_t groupSize);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // MXFP8TRAIN_RUNTIME_COLLECTIVES_H
