//===- NcclCollectives.cpp - the NCCL backend ----------------- -*- C++ -*-===//
//
// Communicators and collectives over libnccl (NcclLibrary.h). Every NCCL
// call runs with the communicator's device's primary context current, which
// NCCL's CUDA runtime then uses. All-to-all(v) is a group of ncclSend /
// ncclRecv pairs (NCCL has no all-to-all call).
//
//===----------------------------------------------------------------------===//

#include "Collectives.h"
#include "NcclLibrary.h"
#include "RuntimeInternal.h"

#include <cstring>

namespace mxfp8rt {

namespace {

nccl::ncclDataType_t getNcclType(mxfp8rtDataType type) {
  switch (type) {
  case MXFP8RT_DATA_BYTE:
    return nccl::ncclUint8;
  case MXFP8RT_DATA_BF16:
    return nccl::ncclBfloat16;
  case MXFP8RT_DATA_F32:
    return nccl::ncclFloat32;
  case MXFP8RT_DATA_I32:
    return nccl::ncclInt32;
  case MXFP8RT_DATA_I64:
    return nccl::ncclInt64;
  }
  return nccl::ncclUint8;
}

nccl::ncclRedOp_t getNcclOp(mxfp8rtReduceOp op) {
  return op == MXFP8RT_REDUCE_MAX ? nccl::ncclMax : nccl::ncclSum;
}

nccl::cudaStream_t getNcclStream(mxfp8rtStream stream) {
  return reinterpret_cast<nccl::cudaStream_t>(stream);
}

class NcclCommunicator final : public Communicator {
public:
  NcclCommunicator(const nccl::Library &library, nccl::ncclComm_t comm,
                   int rank, int size, int device)
      : Communicator(MXFP8RT_COMM_NCCL, rank, size), library(library),
        comm(comm), device(device) {}
  int getDevice() const override { return device; }

  ~NcclCommunicator() override {
    (void)call("ncclCommDestroy",
               [&] { return library.ncclCommDestroy(comm); });
  }

  mxfp8rtStatus allGather(const void *send, void *recv, size_t sendCount,
                          mxfp8rtDataType type, mxfp8rtStream stream) override {
    return call("ncclAllGather", [&] {
      return library.ncclAllGather(send, recv, sendCount, getNcclType(type),
                                   comm, getNcclStream(stream));
    });
  }

  mxfp8rtStatus allReduce(const void *send, void *recv, size_t count,
                          mxfp8rtDataType type, mxfp8rtReduceOp op,
                          mxfp8rtStream stream) override {
    return call("ncclAllReduce", [&] {
      return library.ncclAllReduce(send, recv, count, getNcclType(type),
                                   getNcclOp(op), comm, getNcclStream(stream));
    });
  }

  mxfp8rtStatus reduceScatter(const void *send, void *recv, size_t recvCount,
                              mxfp8rtDataType type, mxfp8rtReduceOp op,
                              mxfp8rtStream stream) override {
    return call("ncclReduceScatter", [&] {
      return library.ncclReduceScatter(send, recv, recvCount, getNcclType(type),
                                       getNcclOp(op), comm,
                                       getNcclStream(stream));
    });
  }

  mxfp8rtStatus allToAllv(const void *send, void *recv,
                          const AllToAllvLayout &layout, mxfp8rtDataType type,
                          mxfp8rtStream stream) override {
    size_t elem = getDataTypeSize(type);
    nccl::ncclDataType_t ncclType = getNcclType(type);
    nccl::cudaStream_t ncclStream = getNcclStream(stream);
    return runInContext(device, [&]() -> mxfp8rtStatus {
      nccl::ncclResult_t result = library.ncclGroupStart();
      if (result != 0)
        return nccl::recordNcclError(library, result, "ncclGroupStart");
      // Every send and receive is posted before the group ends (even after
      // a failure, so that the group is closed).
      const char *failed = nullptr;
      nccl::ncclResult_t failure = 0;
      for (int p = 0; p < size && !failed; ++p) {
        if (layout.sendCounts[p] > 0) {
          result = library.ncclSend(
              static_cast<const char *>(send) + layout.sendOffsets[p] * elem,
              layout.sendCounts[p], ncclType, p, comm, ncclStream);
          if (result != 0)
            failed = "ncclSend", failure = result;
        }
        if (!failed && layout.recvCounts[p] > 0) {
          result = library.ncclRecv(
              static_cast<char *>(recv) + layout.recvOffsets[p] * elem,
              layout.recvCounts[p], ncclType, p, comm, ncclStream);
          if (result != 0)
            failed = "ncclRecv", failure = result;
        }
      }
      result = library.ncclGroupEnd();
      if (failed)
        return nccl::recordNcclError(library, failure, failed);
      if (result != 0)
        return nccl::recordNcclError(library, result, "ncclGroupEnd");
      return MXFP8RT_SUCCESS;
    });
  }

private:
  /// Runs one NCCL call in the device's context and records its failure.
  template <typename Fn> mxfp8rtStatus call(const char *name, Fn fn) {
    return runInContext(device, [&]() -> mxfp8rtStatus {
      nccl::ncclResult_t result = fn();
      if (result != 0)
        return nccl::recordNcclError(library, result, name);
      return MXFP8RT_SUCCESS;
    });
  }

  const nccl::Library &library;
  nccl::ncclComm_t comm;
  int device;
};

} // namespace

mxfp8rtStatus createNcclCommunicator(int size, const mxfp8rtNcclUniqueId &id,
                                     int rank, int device,
                                     std::unique_ptr<Communicator> &comm) {
  const nccl::Library *library = nccl::getLibrary();
  if (!library)
    return MXFP8RT_UNAVAILABLE;
  if (mxfp8rtStatus status = mxfp8rtInitialize(); status != MXFP8RT_SUCCESS)
    return status;
  nccl::ncclUniqueId ncclId;
  std::memcpy(ncclId.internal, id.bytes, sizeof(ncclId.internal));
  nccl::ncclComm_t ncclComm = nullptr;
  mxfp8rtStatus status = runInContext(device, [&]() -> mxfp8rtStatus {
    nccl::ncclResult_t result =
        library->ncclCommInitRank(&ncclComm, size, ncclId, rank);
    if (result != 0)
      return nccl::recordNcclError(*library, result, "ncclCommInitRank");
    return MXFP8RT_SUCCESS;
  });
  if (status != MXFP8RT_SUCCESS)
    return status;
  comm = std::make_unique<NcclCommunicator>(*library, ncclComm, rank, size,
                                            device);
  return MXFP8RT_SUCCESS;
}

} // namespace mxfp8rt
