//===- Collectives.h - the backends behind mxfp8rtComm -------- -*- C++ -*-===//
//
// One interface for the collectives of Collectives.h (public), implemented
// by the in-process backend (InProcessCollectives.cpp) and the NCCL backend
// (NcclCollectives.cpp). Collectives.cpp checks the arguments and calls it.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_RUNTIME_SRC_COLLECTIVES_H
#define MXFP8TRAIN_RUNTIME_SRC_COLLECTIVES_H

#include "mxfp8train/runtime/Collectives.h"

#include <cstddef>
#include <cstdint>
#include <memory>

namespace mxfp8rt {

/// Bytes per element of `type`.
size_t getDataTypeSize(mxfp8rtDataType type);

/// The counts and offsets of an all-to-allv, `size` of each, in elements;
/// checked non-negative.
struct AllToAllvLayout {
  const intptr_t *sendCounts;
  const intptr_t *sendOffsets;
  const intptr_t *recvCounts;
  const intptr_t *recvOffsets;
};

/// One rank of a communicator. Arguments reach it checked (valid type and
/// op, no reduction of bytes, non-null buffers for non-zero sizes); errors
/// are recorded (recordError) and returned.
class Communicator {
public:
  Communicator(mxfp8rtCommBackend backend, int rank, int size)
      : backend(backend), rank(rank), size(size) {}
  virtual ~Communicator() = default;

  virtual mxfp8rtStatus allGather(const void *send, void *recv,
                                  size_t sendCount, mxfp8rtDataType type,
                                  mxfp8rtStream stream) = 0;
  virtual mxfp8rtStatus allReduce(const void *send, void *recv, size_t count,
                                  mxfp8rtDataType type, mxfp8rtReduceOp op,
                                  mxfp8rtStream stream) = 0;
  virtual mxfp8rtStatus reduceScatter(const void *send, void *recv,
                                      size_t recvCount, mxfp8rtDataType type,
                                      mxfp8rtReduceOp op,
                                      mxfp8rtStream stream) = 0;
  virtual mxfp8rtStatus allToAllv(const void *send, void *recv,
                                  const AllToAllvLayout &layout,
                                  mxfp8rtDataType type,
                                  mxfp8rtStream stream) = 0;

  /// The GPU whose memory the collectives take (-1: host memory).
  virtual int getDevice() const { return -1; }

  const mxfp8rtCommBackend backend;
  const int rank;
  const int size;
};

/// The state shared by the ranks of an in-process group.
class InProcessGroup;

/// A group of `size` threads.
std::shared_ptr<InProcessGroup> createInProcessGroup(int size);

/// The number of ranks of `group`.
int getInProcessGroupSize(const InProcessGroup &group);

/// Rank `rank` of `group`; INVALID_ARGUMENT when it is out of range or
/// taken.
mxfp8rtStatus
createInProcessCommunicator(const std::shared_ptr<InProcessGroup> &group,
                            int rank, std::unique_ptr<Communicator> &comm);

/// Rank `rank` of an NCCL communicator of `size` ranks on `device`.
mxfp8rtStatus createNcclCommunicator(int size, const mxfp8rtNcclUniqueId &id,
                                     int rank, int device,
                                     std::unique_ptr<Communicator> &comm);

/// The GPU of `comm`'s buffers (-1: host memory, the in-process backend;
/// also for an unknown handle).
int getCommunicatorDevice(mxfp8rtComm comm);

/// The end of an mxfp8rtShard* call on `comm`: a successful call on a
/// device communicator (NCCL) waits for `stream`, so that the lowered code,
/// whose kernels run on streams of its own, reads finished results.
mxfp8rtStatus finishShardCall(mxfp8rtComm comm, mxfp8rtStream stream,
                              mxfp8rtStatus status);

/// The calling thread's bound communicator and its stream when it is live
/// and has `groupSize` ranks; otherwise null, with the error recorded for
/// `fn` (the mxfp8rtShard* calls of lowered code).
mxfp8rtComm getBoundCommunicator(const char *fn, intptr_t groupSize,
                                 mxfp8rtStream &stream);

} // namespace mxfp8rt

#endif // MXFP8TRAIN_RUNTIME_SRC_COLLECTIVES_H
