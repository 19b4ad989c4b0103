//===- Collectives.cpp - the collectives' C entry points ------ -*- C++ -*-===//
//
// The mxfp8rt* functions of Collectives.h: handle bookkeeping, argument
// checks shared by both backends, the NCCL version and unique id, and the
// ABI of lowered shard collectives (the calling thread's bound
// communicator).
//
//===----------------------------------------------------------------------===//

#include "Collectives.h"
#include "NcclLibrary.h"
#include "RuntimeInternal.h"

#include <cstring>
#include <mutex>
#include <set>

using namespace mxfp8rt;

struct mxfp8rtComm_st {
  std::unique_ptr<Communicator> impl;
  /// mxfp8rtCommGetBytesSent (only the rank's thread calls collectives).
  int64_t bytesSent = 0;
};

struct mxfp8rtInProcessGroup_st {
  std::shared_ptr<InProcessGroup> group;
};

size_t mxfp8rt::getDataTypeSize(mxfp8rtDataType type) {
  switch (type) {
  case MXFP8RT_DATA_BYTE:
    return 1;
  case MXFP8RT_DATA_BF16:
    return 2;
  case MXFP8RT_DATA_F32:
  case MXFP8RT_DATA_I32:
    return 4;
  case MXFP8RT_DATA_I64:
    return 8;
  }
  return 0;
}

/// The live communicators: calls with any other handle are rejected.
static std::mutex liveMutex;
static std::set<mxfp8rtComm> liveComms;

/// The calling thread's communicator and stream for lowered code.
static thread_local mxfp8rtComm boundComm = nullptr;
static thread_local mxfp8rtStream boundStream = nullptr;

static bool isLive(mxfp8rtComm comm) {
  std::lock_guard<std::mutex> lock(liveMutex);
  return liveComms.count(comm) != 0;
}

static mxfp8rtStatus registerComm(std::unique_ptr<Communicator> impl,
                                  mxfp8rtComm *comm) {
  auto *handle = new mxfp8rtComm_st{std::move(impl)};
  std::lock_guard<std::mutex> lock(liveMutex);
  liveComms.insert(handle);
  *comm = handle;
  return MXFP8RT_SUCCESS;
}

static mxfp8rtStatus invalid(const char *fn, const std::string &what) {
  return recordError(MXFP8RT_INVALID_ARGUMENT, std::string(fn) + ": " + what);
}

/// The checks every collective shares; "" when the arguments are valid.
static mxfp8rtStatus checkCall(const char *fn, mxfp8rtComm comm,
                               mxfp8rtDataType type, const mxfp8rtReduceOp *op,
                               std::initializer_list<intptr_t> counts) {
  if (!comm || !isLive(comm))
    return invalid(fn, "unknown communicator");
  if (getDataTypeSize(type) == 0)
    return invalid(fn, "unknown element type " + std::to_string(type));
  if (op && *op != MXFP8RT_REDUCE_SUM && *op != MXFP8RT_REDUCE_MAX)
    return invalid(fn, "unknown reduction " + std::to_string(*op));
  if (op && type == MXFP8RT_DATA_BYTE)
    return invalid(fn, "bytes (fp8 data, e8m0 scales) are moved, not "
                       "reduced: reduce them in a wider type");
  for (intptr_t count : counts)
    if (count < 0)
      return invalid(fn, "count " + std::to_string(count) + " is negative");
  return MXFP8RT_SUCCESS;
}

static mxfp8rtStatus checkBuffer(const char *fn, const void *buffer,
                                 intptr_t count, const char *name) {
  if (count > 0 && !buffer)
    return invalid(fn, std::string(name) + " is null");
  return MXFP8RT_SUCCESS;
}

/// Adds `count` elements of `type` to comm's bytes sent when `status` is a
/// success, and returns `status`.
static mxfp8rtStatus countBytes(mxfp8rtComm comm, intptr_t count,
                                mxfp8rtDataType type, mxfp8rtStatus status) {
  if (status == MXFP8RT_SUCCESS)
    comm->bytesSent += static_cast<int64_t>(count) * getDataTypeSize(type);
  return status;
}

#define RETURN_IF_FAILED(expr)                                                 \
  if (mxfp8rtStatus status_ = (expr); status_ != MXFP8RT_SUCCESS)              \
  return status_

extern "C" {

mxfp8rtStatus mxfp8rtInProcessGroupCreate(int size,
                                          mxfp8rtInProcessGroup *group) {
  if (!group)
    return invalid("mxfp8rtInProcessGroupCreate", "group is null");
  *group = nullptr;
  if (size <= 0)
    return invalid("mxfp8rtInProcessGroupCreate",
                   "size " + std::to_string(size) + " is not positive");
  *group = new mxfp8rtInProcessGroup_st{createInProcessGroup(size)};
  return MXFP8RT_SUCCESS;
}

mxfp8rtStatus mxfp8rtInProcessGroupDestroy(mxfp8rtInProcessGroup group) {
  delete group;
  return MXFP8RT_SUCCESS;
}

mxfp8rtStatus mxfp8rtCommInitInProcess(mxfp8rtInProcessGroup group, int rank,
                                       mxfp8rtComm *comm) {
  if (!comm)
    return invalid("mxfp8rtCommInitInProcess", "comm is null");
  *comm = nullptr;
  if (!group)
    return invalid("mxfp8rtCommInitInProcess", "group is null");
  std::unique_ptr<Communicator> impl;
  RETURN_IF_FAILED(createInProcessCommunicator(group->group, rank, impl));
  return registerComm(std::move(impl), comm);
}

mxfp8rtStatus mxfp8rtNcclGetVersion(int *version) {
  if (!version)
    return invalid("mxfp8rtNcclGetVersion", "version is null");
  const nccl::Library *library = nccl::getLibrary();
  if (!library)
    return MXFP8RT_UNAVAILABLE;
  if (nccl::ncclResult_t result = library->ncclGetVersion(version))
    return nccl::recordNcclError(*library, result, "ncclGetVersion");
  return MXFP8RT_SUCCESS;
}

const char *mxfp8rtNcclGetLibraryPath(void) { return nccl::getLoadedPath(); }

mxfp8rtStatus mxfp8rtNcclGetUniqueId(mxfp8rtNcclUniqueId *id) {
  if (!id)
    return invalid("mxfp8rtNcclGetUniqueId", "id is null");
  const nccl::Library *library = nccl::getLibrary();
  if (!library)
    return MXFP8RT_UNAVAILABLE;
  nccl::ncclUniqueId ncclId;
  if (nccl::ncclResult_t result = library->ncclGetUniqueId(&ncclId))
    return nccl::recordNcclError(*library, result, "ncclGetUniqueId");
  std::memcpy(id->bytes, ncclId.internal, sizeof(id->bytes));
  return MXFP8RT_SUCCESS;
}

mxfp8rtStatus mxfp8rtCommInitNccl(int size, const mxfp8rtNcclUniqueId *id,
                                  int rank, mxfp8rtComm *comm) {
  const char *fn = "mxfp8rtCommInitNccl";
  if (!comm)
    return invalid(fn, "comm is null");
  *comm = nullptr;
  if (!id)
    return invalid(fn, "id is null");
  if (size <= 0 || rank < 0 || rank >= size)
    return invalid(fn, "rank " + std::to_string(rank) + " of " +
                           std::to_string(size) + " ranks");
  int device = 0;
  RETURN_IF_FAILED(mxfp8rtGetDevice(&device));
  std::unique_ptr<Communicator> impl;
  RETURN_IF_FAILED(createNcclCommunicator(size, *id, rank, device, impl));
  return registerComm(std::move(impl), comm);
}

mxfp8rtStatus mxfp8rtCommDestroy(mxfp8rtComm comm) {
  if (!comm)
    return MXFP8RT_SUCCESS;
  {
    std::lock_guard<std::mutex> lock(liveMutex);
    if (!liveComms.erase(comm))
      return invalid("mxfp8rtCommDestroy", "unknown communicator");
  }
  if (boundComm == comm)
    boundComm = nullptr;
  delete comm;
  return MXFP8RT_SUCCESS;
}

mxfp8rtStatus mxfp8rtCommGetRank(mxfp8rtComm comm, int *rank) {
  if (!comm || !isLive(comm) || !rank)
    return invalid("mxfp8rtCommGetRank", "unknown communicator or null rank");
  *rank = comm->impl->rank;
  return MXFP8RT_SUCCESS;
}

mxfp8rtStatus mxfp8rtCommGetSize(mxfp8rtComm comm, int *size) {
  if (!comm || !isLive(comm) || !size)
    return invalid("mxfp8rtCommGetSize", "unknown communicator or null size");
  *size = comm->impl->size;
  return MXFP8RT_SUCCESS;
}

mxfp8rtStatus mxfp8rtCommGetBackend(mxfp8rtComm comm,
                                    mxfp8rtCommBackend *backend) {
  if (!comm || !isLive(comm) || !backend)
    return invalid("mxfp8rtCommGetBackend",
                   "unknown communicator or null backend");
  *backend = comm->impl->backend;
  return MXFP8RT_SUCCESS;
}

mxfp8rtStatus mxfp8rtCommGetBytesSent(mxfp8rtComm comm, int64_t *bytes) {
  if (!comm || !isLive(comm) || !bytes)
    return invalid("mxfp8rtCommGetBytesSent",
                   "unknown communicator or null bytes");
  *bytes = comm->bytesSent;
  return MXFP8RT_SUCCESS;
}

mxfp8rtStatus mxfp8rtAllGather(mxfp8rtComm comm, const void *send, void *recv,
                               intptr_t sendCount, mxfp8rtDataType type,
                               mxfp8rtStream stream) {
  const char *fn = "mxfp8rtAllGather";
  RETURN_IF_FAILED(checkCall(fn, comm, type, nullptr, {sendCount}));
  RETURN_IF_FAILED(checkBuffer(fn, send, sendCount, "send"));
  RETURN_IF_FAILED(checkBuffer(fn, recv, sendCount, "recv"));
  return countBytes(comm, sendCount, type,
                    comm->impl->allGather(send, recv, sendCount, type, stream));
}

mxfp8rtStatus mxfp8rtAllReduce(mxfp8rtComm comm, const void *send, void *recv,
                               intptr_t count, mxfp8rtDataType type,
                               mxfp8rtReduceOp op, mxfp8rtStream stream) {
  const char *fn = "mxfp8rtAllReduce";
  RETURN_IF_FAILED(checkCall(fn, comm, type, &op, {count}));
  RETURN_IF_FAILED(checkBuffer(fn, send, count, "send"));
  RETURN_IF_FAILED(checkBuffer(fn, recv, count, "recv"));
  return countBytes(comm, count, type,
                    comm->impl->allReduce(send, recv, count, type, op, stream));
}

mxfp8rtStatus mxfp8rtReduceScatter(mxfp8rtComm comm, const void *send,
                                   void *recv, intptr_t recvCount,
                                   mxfp8rtDataType type, mxfp8rtReduceOp op,
                                   mxfp8rtStream stream) {
  const char *fn = "mxfp8rtReduceScatter";
  RETURN_IF_FAILED(checkCall(fn, comm, type, &op, {recvCount}));
  RETURN_IF_FAILED(checkBuffer(fn, send, recvCount, "send"));
  RETURN_IF_FAILED(checkBuffer(fn, recv, recvCount, "recv"));
  mxfp8rtStatus status =
      comm->impl->reduceScatter(send, recv, recvCount, type, op, stream);
  return countBytes(comm, comm->impl->size * recvCount, type, status);
}

mxfp8rtStatus mxfp8rtAllToAll(mxfp8rtComm comm, const void *send, void *recv,
                              intptr_t count, mxfp8rtDataType type,
                              mxfp8rtStream stream) {
  const char *fn = "mxfp8rtAllToAll";
  RETURN_IF_FAILED(checkCall(fn, comm, type, nullptr, {count}));
  RETURN_IF_FAILED(checkBuffer(fn, send, count, "send"));
  RETURN_IF_FAILED(checkBuffer(fn, recv, count, "recv"));
  int size = comm->impl->size;
  std::vector<intptr_t> counts(size, count), offsets(size);
  for (int p = 0; p < size; ++p)
    offsets[p] = p * count;
  AllToAllvLayout layout{counts.data(), offsets.data(), counts.data(),
                         offsets.data()};
  return countBytes(comm, size * count, type,
                    comm->impl->allToAllv(send, recv, layout, type, stream));
}

mxfp8rtStatus mxfp8rtAllToAllv(mxfp8rtComm comm, const void *send,
                               const intptr_t *sendCounts,
                               const intptr_t *sendOffsets, void *recv,
                               const intptr_t *recvCounts,
                               const intptr_t *recvOffsets,
                               mxfp8rtDataType type, mxfp8rtStream stream) {
  const char *fn = "mxfp8rtAllToAllv";
  RETURN_IF_FAILED(checkCall(fn, comm, type, nullptr, {}));
  if (!sendCounts || !sendOffsets || !recvCounts || !recvOffsets)
    return invalid(fn, "a count or offset array is null");
  int size = comm->impl->size;
  intptr_t sendTotal = 0, recvTotal = 0;
  for (int p = 0; p < size; ++p) {
    if (sendCounts[p] < 0 || sendOffsets[p] < 0 || recvCounts[p] < 0 ||
        recvOffsets[p] < 0)
      return invalid(fn, "the count or offset of rank " + std::to_string(p) +
                             " is negative");
    sendTotal += sendCounts[p];
    recvTotal += recvCounts[p];
  }
  RETURN_IF_FAILED(checkBuffer(fn, send, sendTotal, "send"));
  RETURN_IF_FAILED(checkBuffer(fn, recv, recvTotal, "recv"));
  AllToAllvLayout layout{sendCounts, sendOffsets, recvCounts, recvOffsets};
  return countBytes(comm, sendTotal, type,
                    comm->impl->allToAllv(send, recv, layout, type, stream));
}

mxfp8rtStatus mxfp8rtCommBind(mxfp8rtComm comm, mxfp8rtStream stream) {
  if (comm && !isLive(comm))
    return invalid("mxfp8rtCommBind", "unknown communicator");
  boundComm = comm;
  boundStream = comm ? stream : nullptr;
  return MXFP8RT_SUCCESS;
}

} // extern "C"

/// The bound communicator when it is live and has `groupSize` ranks, else
/// null with the error recorded.
static mxfp8rtComm getBound(const char *fn, intptr_t groupSize) {
  if (!boundComm || !isLive(boundComm)) {
    invalid(fn, "no communicator is bound to this thread (mxfp8rtCommBind)");
    return nullptr;
  }
  if (boundComm->impl->size != groupSize) {
    invalid(fn, "the program was partitioned for " + std::to_string(groupSize) +
                    " processes, the bound communicator has " +
                    std::to_string(boundComm->impl->size) + " ranks");
    return nullptr;
  }
  return boundComm;
}

mxfp8rtComm mxfp8rt::getBoundCommunicator(const char *fn, intptr_t groupSize,
                                          mxfp8rtStream &stream) {
  mxfp8rtComm comm = getBound(fn, groupSize);
  stream = comm ? boundStream : nullptr;
  return comm;
}

int mxfp8rt::getCommunicatorDevice(mxfp8rtComm comm) {
  return isLive(comm) ? comm->impl->getDevice() : -1;
}

static void *toPointer(intptr_t address) {
  return reinterpret_cast<void *>(address);
}

mxfp8rtStatus mxfp8rt::finishShardCall(mxfp8rtComm comm, mxfp8rtStream stream,
                                       mxfp8rtStatus status) {
  int device = getCommunicatorDevice(comm);
  if (status != MXFP8RT_SUCCESS || device < 0)
    return status;
  return runOnDevice(device, [&] { return mxfp8rtStreamSynchronize(stream); });
}

/// `call(comm)` on the bound communicator (finished: finishShardCall), or
/// INVALID_ARGUMENT (recorded) when none of `groupSize` ranks is bound.
template <typename Call>
static int32_t onBound(const char *fn, intptr_t groupSize, Call call) {
  mxfp8rtComm comm = getBound(fn, groupSize);
  if (!comm)
    return MXFP8RT_INVALID_ARGUMENT;
  return finishShardCall(comm, boundStream, call(comm));
}

extern "C" {

intptr_t mxfp8rtShardProcessIndex(intptr_t groupSize) {
  mxfp8rtComm comm = getBound("mxfp8rtShardProcessIndex", groupSize);
  return comm ? comm->impl->rank : -1;
}

int32_t mxfp8rtShardAllReduce(intptr_t send, intptr_t recv, intptr_t count,
                              int32_t type, int32_t op, intptr_t groupSize) {
  return onBound("mxfp8rtShardAllReduce", groupSize, [&](mxfp8rtComm comm) {
    return mxfp8rtAllReduce(comm, toPointer(send), toPointer(recv), count,
                            static_cast<mxfp8rtDataType>(type),
                            static_cast<mxfp8rtReduceOp>(op), boundStream);
  });
}

int32_t mxfp8rtShardAllGather(intptr_t send, intptr_t recv, intptr_t sendCount,
                              int32_t type, intptr_t groupSize) {
  return onBound("mxfp8rtShardAllGather", groupSize, [&](mxfp8rtComm comm) {
    return mxfp8rtAllGather(comm, toPointer(send), toPointer(recv), sendCount,
                            static_cast<mxfp8rtDataType>(type), boundStream);
  });
}

int32_t mxfp8rtShardReduceScatter(intptr_t send, intptr_t recv,
                                  intptr_t recvCount, int32_t type, int32_t op,
                                  intptr_t groupSize) {
  return onBound("mxfp8rtShardReduceScatter", groupSize, [&](mxfp8rtComm comm) {
    return mxfp8rtReduceScatter(comm, toPointer(send), toPointer(recv),
                                recvCount, static_cast<mxfp8rtDataType>(type),
                                static_cast<mxfp8rtReduceOp>(op), boundStream);
  });
}

int32_t mxfp8rtShardAllToAll(intptr_t send, intptr_t recv, intptr_t count,
                             int32_t type, intptr_t groupSize) {
  return onBound("mxfp8rtShardAllToAll", groupSize, [&](mxfp8rtComm comm) {
    return mxfp8rtAllToAll(comm, toPointer(send), toPointer(recv), count,
                           static_cast<mxfp8rtDataType>(type), boundStream);
  });
}

} // extern "C"
