//===- ExpertParallel.cpp - MXFP8 token dispatch and combine -- -*- C++ -*-===//
//
// mxfp8rtMoeDispatchMx and mxfp8rtMoeCombine (ExpertParallel.h), built on
// the public collectives: an all-gather of the per-destination counts (and
// of an error flag, so that every rank agrees on failing before any payload
// moves: the in-process rendezvous and NCCL both wait forever for a rank
// that skips a call), then one all-to-allv of packed rows. The pack, group
// and ungroup steps are host copies, so the calls run on the in-process
// backend; on NCCL they need device kernels and answer UNAVAILABLE.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/runtime/ExpertParallel.h"

#include "Collectives.h"
#include "RuntimeInternal.h"

#include <algorithm>

#include <cstring>
#include <string>
#include <vector>

using namespace mxfp8rt;

namespace {

/// The routing of one rank's slots: each slot's position in the send order
/// (slots sorted by global expert id, stable), the rows per destination
/// rank and where each destination's rows start.
struct SendOrder {
  std::vector<intptr_t> positionOfSlot;
  std::vector<intptr_t> rowsTo;
  std::vector<intptr_t> firstRowTo;
  /// rows for (destination rank, local expert), size * localExperts.
  std::vector<int32_t> counts;
};

/// Sorts the slots by expert (a counting sort). `error` names the first
/// slot with an expert id out of [0, numExperts).
SendOrder getSendOrder(const int32_t *tokenExperts, intptr_t slots,
                       intptr_t topK, intptr_t numExperts, int size,
                       std::string &error) {
  SendOrder order;
  intptr_t localExperts = numExperts / size;
  order.counts.assign(size * localExperts, 0);
  order.rowsTo.assign(size, 0);
  order.firstRowTo.assign(size, 0);
  order.positionOfSlot.assign(slots, 0);
  std::vector<intptr_t> perExpert(numExperts, 0);
  for (intptr_t i = 0; i < slots; ++i) {
    int32_t e = tokenExperts[i];
    if (e < 0 || e >= numExperts) {
      if (error.empty())
        error = "slot " + std::to_string(i % topK) + " of token " +
                std::to_string(i / topK) + " is routed to expert " +
                std::to_string(e) + ", not in [0, " +
                std::to_string(numExperts) + ")";
      continue;
    }
    ++perExpert[e];
  }
  if (!error.empty())
    return order;
  std::vector<intptr_t> next(numExperts, 0);
  intptr_t running = 0;
  for (intptr_t e = 0; e < numExperts; ++e) {
    next[e] = running;
    running += perExpert[e];
    order.counts[e] = static_cast<int32_t>(perExpert[e]);
    order.rowsTo[e / localExperts] += perExpert[e];
  }
  for (int p = 1; p < size; ++p)
    order.firstRowTo[p] = order.firstRowTo[p - 1] + order.rowsTo[p - 1];
  for (intptr_t i = 0; i < slots; ++i)
    order.positionOfSlot[i] = next[tokenExperts[i]]++;
  return order;
}

/// The rows a rank `me` receives, from the gathered counts: where each
/// source's chunk starts in arrival order, and where row i of source s for
/// local expert e lands in the grouped layout (sourceStart[e * size + s] +
/// i). Each group starts at a multiple of `alignment` rows.
struct ReceiveLayout {
  std::vector<intptr_t> rowsFrom;
  std::vector<intptr_t> firstRowFrom;
  std::vector<intptr_t> groupEnd;
  std::vector<intptr_t> sourceStart;
  /// Rows received, and the end of the last group (padding included).
  intptr_t received = 0;
  intptr_t total = 0;
};

ReceiveLayout getReceiveLayout(const int32_t *counts, int me, int size,
                               intptr_t localExperts, intptr_t alignment) {
  auto at = [&](int s, int r, intptr_t e) {
    return static_cast<intptr_t>(counts[(s * size + r) * localExperts + e]);
  };
  ReceiveLayout layout;
  layout.rowsFrom.assign(size, 0);
  layout.firstRowFrom.assign(size, 0);
  layout.groupEnd.assign(localExperts, 0);
  layout.sourceStart.assign(localExperts * size, 0);
  intptr_t running = 0;
  for (intptr_t e = 0; e < localExperts; ++e) {
    for (int s = 0; s < size; ++s) {
      layout.sourceStart[e * size + s] = running;
      running += at(s, me, e);
      layout.rowsFrom[s] += at(s, me, e);
      layout.received += at(s, me, e);
    }
    // torchao's permute pads each group to a multiple of the alignment.
    running = (running + alignment - 1) / alignment * alignment;
    layout.groupEnd[e] = running;
  }
  layout.total = running;
  for (int s = 1; s < size; ++s)
    layout.firstRowFrom[s] =
        layout.firstRowFrom[s - 1] + layout.rowsFrom[s - 1];
  return layout;
}

/// For each row in arrival order (source-major, then local expert, then the
/// source's order), its row in the grouped layout.
std::vector<intptr_t> getGroupedRows(const ReceiveLayout &layout,
                                     const int32_t *counts, int me, int size,
                                     intptr_t localExperts) {
  std::vector<intptr_t> grouped(layout.received);
  intptr_t arrival = 0;
  for (int s = 0; s < size; ++s)
    for (intptr_t e = 0; e < localExperts; ++e) {
      intptr_t n = counts[(s * size + me) * localExperts + e];
      for (intptr_t i = 0; i < n; ++i)
        grouped[arrival++] = layout.sourceStart[e * size + s] + i;
    }
  return grouped;
}

mxfp8rtStatus fail(const char *fn, mxfp8rtStatus status,
                   const std::string &what) {
  return recordError(status, std::string(fn) + ": " + what);
}

/// The checks made before any collective: the communicator (a local
/// failure, nothing can be exchanged without it) and its backend.
mxfp8rtStatus getCommunicator(const char *fn, mxfp8rtComm comm, int &rank,
                              int &size) {
  mxfp8rtCommBackend backend;
  if (mxfp8rtCommGetBackend(comm, &backend) != MXFP8RT_SUCCESS ||
      mxfp8rtCommGetRank(comm, &rank) != MXFP8RT_SUCCESS ||
      mxfp8rtCommGetSize(comm, &size) != MXFP8RT_SUCCESS)
    return fail(fn, MXFP8RT_INVALID_ARGUMENT, "unknown communicator");
  if (backend != MXFP8RT_COMM_IN_PROCESS)
    return fail(fn, MXFP8RT_UNAVAILABLE,
                "only the in-process backend runs the MXFP8 dispatch and "
                "combine: on NCCL its pack and group steps need device "
                "kernels, which are not written yet");
  return MXFP8RT_SUCCESS;
}

/// All-gathers `flagAndCounts` (this rank's counts, then its error flag at
/// index `flagIndex`) into `gathered`. Fails every rank, with the same
/// status, when a rank's flag is set; the rank that set it keeps its own
/// message.
mxfp8rtStatus agree(const char *fn, mxfp8rtComm comm, int rank, int size,
                    std::vector<int32_t> &flagAndCounts, size_t flagIndex,
                    const std::string &localError,
                    std::vector<int32_t> &gathered, mxfp8rtStream stream) {
  flagAndCounts[flagIndex] = localError.empty() ? 0 : 1;
  gathered.assign(flagAndCounts.size() * size, 0);
  if (mxfp8rtStatus status =
          mxfp8rtAllGather(comm, flagAndCounts.data(), gathered.data(),
                           flagAndCounts.size(), MXFP8RT_DATA_I32, stream))
    return status;
  if (!localError.empty())
    return fail(fn, MXFP8RT_INVALID_ARGUMENT,
                "rank " + std::to_string(rank) + ": " + localError);
  for (int s = 0; s < size; ++s)
    if (gathered[s * flagAndCounts.size() + flagIndex])
      return fail(fn, MXFP8RT_INVALID_ARGUMENT,
                  "rank " + std::to_string(s) +
                      " reported invalid arguments or routing (its own "
                      "error says which)");
  return MXFP8RT_SUCCESS;
}

} // namespace

extern "C" {

mxfp8rtStatus mxfp8rtMoeDispatchMx(
    mxfp8rtComm comm, const void *data, const void *scales, intptr_t numTokens,
    intptr_t k, intptr_t topK, const int32_t *tokenExperts, intptr_t numExperts,
    intptr_t capacity, intptr_t alignment, void *recvData, void *recvScales,
    int32_t *recvOffs, int32_t *counts, mxfp8rtStream stream) {
  const char *fn = "mxfp8rtMoeDispatchMx";
  int rank = 0, size = 0;
  if (mxfp8rtStatus status = getCommunicator(fn, comm, rank, size))
    return status;

  // Local checks; their failure is agreed on with the other ranks.
  std::string error;
  intptr_t slots = numTokens * topK;
  if (numTokens < 0 || topK < 1 || k <= 0 || k % 32 != 0 || capacity < 0 ||
      alignment < 1)
    error = "numTokens " + std::to_string(numTokens) + ", topK " +
            std::to_string(topK) + ", k " + std::to_string(k) + ", capacity " +
            std::to_string(capacity) + ", alignment " +
            std::to_string(alignment) +
            ": expected numTokens >= 0, topK >= 1, k a positive multiple of "
            "32, capacity >= 0, alignment >= 1";
  else if (numExperts <= 0 || numExperts % size != 0)
    error = std::to_string(numExperts) + " experts do not split evenly over " +
            std::to_string(size) + " ranks";
  else if (slots > 0 && (!data || !scales || !tokenExperts))
    error = "data, scales or tokenExperts is null";
  else if (capacity > 0 && (!recvData || !recvScales))
    error = "recvData or recvScales is null";
  else if (!recvOffs || !counts)
    error = "recvOffs or counts is null";
  // The same count size on every rank that agrees on numExperts, also when
  // this rank fails its checks.
  intptr_t localExperts = numExperts > 0 ? numExperts / size : 0;
  SendOrder order;
  if (error.empty())
    order = getSendOrder(tokenExperts, slots, topK, numExperts, size, error);
  // Every rank sends size * localExperts counts and a flag: with
  // mismatched expert counts the gather's sizes differ, which the backend
  // reports on every rank.
  std::vector<int32_t> mine(size * localExperts + 1, 0);
  if (error.empty())
    std::copy(order.counts.begin(), order.counts.end(), mine.begin());
  std::vector<int32_t> gathered;
  if (mxfp8rtStatus status = agree(fn, comm, rank, size, mine, mine.size() - 1,
                                   error, gathered, stream))
    return status;
  size_t stride = mine.size();
  for (int s = 0; s < size; ++s)
    std::memcpy(counts + s * size * localExperts, gathered.data() + s * stride,
                size * localExperts * sizeof(int32_t));

  // Capacity, checked on the gathered counts: every rank sees the same
  // overflow and fails before the exchange.
  for (int r = 0; r < size; ++r) {
    ReceiveLayout layout =
        getReceiveLayout(counts, r, size, localExperts, alignment);
    if (layout.total <= capacity)
      continue;
    std::string padded = alignment > 1
                             ? " (its groups padded to multiples of " +
                                   std::to_string(alignment) + ")"
                             : "";
    return fail(fn, MXFP8RT_INVALID_ARGUMENT,
                "rank " + std::to_string(r) + " would receive " +
                    std::to_string(layout.total) + " rows" + padded +
                    ", capacity " + std::to_string(capacity) +
                    " (tokens are never dropped: raise the capacity)");
  }

  // Pack: each row is its k data bytes, then its k/32 scale bytes.
  intptr_t scaleBytes = k / 32, rowBytes = k + scaleBytes;
  std::vector<uint8_t> send(slots * rowBytes);
  for (intptr_t i = 0; i < slots; ++i) {
    intptr_t token = i / topK;
    uint8_t *row = send.data() + order.positionOfSlot[i] * rowBytes;
    std::memcpy(row, static_cast<const uint8_t *>(data) + token * k, k);
    std::memcpy(row + k,
                static_cast<const uint8_t *>(scales) + token * scaleBytes,
                scaleBytes);
  }
  ReceiveLayout layout =
      getReceiveLayout(counts, rank, size, localExperts, alignment);
  std::vector<intptr_t> sendCounts(size), sendOffsets(size), recvCounts(size),
      recvOffsets(size);
  for (int p = 0; p < size; ++p) {
    sendCounts[p] = order.rowsTo[p] * rowBytes;
    sendOffsets[p] = order.firstRowTo[p] * rowBytes;
    recvCounts[p] = layout.rowsFrom[p] * rowBytes;
    recvOffsets[p] = layout.firstRowFrom[p] * rowBytes;
  }
  std::vector<uint8_t> received(layout.received * rowBytes);
  if (mxfp8rtStatus status = mxfp8rtAllToAllv(
          comm, send.data(), sendCounts.data(), sendOffsets.data(),
          received.data(), recvCounts.data(), recvOffsets.data(),
          MXFP8RT_DATA_BYTE, stream))
    return status;

  // Group by local expert (then source): unpack data and scales. Padding
  // rows (inside the aligned groups and past the last) are zero bytes.
  if (capacity > 0) {
    std::memset(recvData, 0, capacity * k);
    std::memset(recvScales, 0, capacity * scaleBytes);
  }
  std::vector<intptr_t> grouped =
      getGroupedRows(layout, counts, rank, size, localExperts);
  for (intptr_t a = 0; a < layout.received; ++a) {
    const uint8_t *row = received.data() + a * rowBytes;
    std::memcpy(static_cast<uint8_t *>(recvData) + grouped[a] * k, row, k);
    std::memcpy(static_cast<uint8_t *>(recvScales) + grouped[a] * scaleBytes,
                row + k, scaleBytes);
  }
  for (intptr_t e = 0; e < localExperts; ++e)
    recvOffs[e] = static_cast<int32_t>(layout.groupEnd[e]);
  return MXFP8RT_SUCCESS;
}

mxfp8rtStatus mxfp8rtMoeCombine(mxfp8rtComm comm, const void *expertOut,
                                intptr_t n, mxfp8rtDataType type,
                                intptr_t numTokens, intptr_t topK,
                                const int32_t *tokenExperts,
                                intptr_t numExperts, const int32_t *counts,
                                intptr_t capacity, intptr_t alignment,
                                void *out, mxfp8rtStream stream) {
  const char *fn = "mxfp8rtMoeCombine";
  int rank = 0, size = 0;
  if (mxfp8rtStatus status = getCommunicator(fn, comm, rank, size))
    return status;

  std::string error;
  intptr_t slots = numTokens * topK;
  if (type != MXFP8RT_DATA_BF16 && type != MXFP8RT_DATA_F32)
    error = "expert outputs of element type " + std::to_string(type) +
            ": expected bf16 or f32";
  else if (numTokens < 0 || topK < 1 || n <= 0 || capacity < 0 || alignment < 1)
    error = "numTokens " + std::to_string(numTokens) + ", topK " +
            std::to_string(topK) + ", n " + std::to_string(n) + ", capacity " +
            std::to_string(capacity) + ", alignment " +
            std::to_string(alignment) +
            ": expected numTokens >= 0, topK >= 1, n >= 1, capacity >= 0, "
            "alignment >= 1";
  else if (numExperts <= 0 || numExperts % size != 0)
    error = std::to_string(numExperts) + " experts do not split evenly over " +
            std::to_string(size) + " ranks";
  else if (!counts || (slots > 0 && (!tokenExperts || !out)) ||
           (capacity > 0 && !expertOut))
    error = "expertOut, counts, tokenExperts or out is null";
  intptr_t localExperts = error.empty() ? numExperts / size : 0;
  SendOrder order;
  if (error.empty())
    order = getSendOrder(tokenExperts, slots, topK, numExperts, size, error);
  ReceiveLayout layout;
  if (error.empty()) {
    // The routing must be the dispatch's: this rank's row of the counts.
    if (!std::equal(order.counts.begin(), order.counts.end(),
                    counts + rank * size * localExperts))
      error = "tokenExperts do not match this rank's counts of the dispatch";
    layout = getReceiveLayout(counts, rank, size, localExperts, alignment);
    if (error.empty() && layout.total > capacity)
      error = "the counts give " + std::to_string(layout.total) +
              " rows for this rank, capacity " + std::to_string(capacity);
  }
  std::vector<int32_t> flag(1, 0), gathered;
  if (mxfp8rtStatus status =
          agree(fn, comm, rank, size, flag, 0, error, gathered, stream))
    return status;

  // Rows back to their sources in arrival order (the sources' send order).
  size_t rowBytes = n * getDataTypeSize(type);
  std::vector<intptr_t> grouped =
      getGroupedRows(layout, counts, rank, size, localExperts);
  std::vector<uint8_t> send(layout.received * rowBytes);
  for (intptr_t a = 0; a < layout.received; ++a)
    std::memcpy(send.data() + a * rowBytes,
                static_cast<const uint8_t *>(expertOut) + grouped[a] * rowBytes,
                rowBytes);
  std::vector<intptr_t> sendCounts(size), sendOffsets(size), recvCounts(size),
      recvOffsets(size);
  for (int p = 0; p < size; ++p) {
    sendCounts[p] = layout.rowsFrom[p] * n;
    sendOffsets[p] = layout.firstRowFrom[p] * n;
    recvCounts[p] = order.rowsTo[p] * n;
    recvOffsets[p] = order.firstRowTo[p] * n;
  }
  std::vector<uint8_t> received(slots * rowBytes);
  if (mxfp8rtStatus status = mxfp8rtAllToAllv(
          comm, send.data(), sendCounts.data(), sendOffsets.data(),
          received.data(), recvCounts.data(), recvOffsets.data(), type, stream))
    return status;
  for (intptr_t i = 0; i < slots; ++i)
    std::memcpy(static_cast<uint8_t *>(out) + i * rowBytes,
                received.data() + order.positionOfSlot[i] * rowBytes, rowBytes);
  return MXFP8RT_SUCCESS;
}

} // extern "C"

/// An address of lowered code as a pointer.
template <typename T> static T *toPointer(intptr_t address) {
  return reinterpret_cast<T *>(address);
}

extern "C" {

int32_t mxfp8rtShardMoeDispatchMx(intptr_t data, intptr_t scales,
                                  intptr_t numTokens, intptr_t k, intptr_t topK,
                                  intptr_t tokenExperts, intptr_t numExperts,
                                  intptr_t capacity, intptr_t alignment,
                                  intptr_t recvData, intptr_t recvScales,
                                  intptr_t recvOffs, intptr_t counts,
                                  intptr_t groupSize) {
  mxfp8rtStream stream = nullptr;
  mxfp8rtComm comm =
      getBoundCommunicator("mxfp8rtShardMoeDispatchMx", groupSize, stream);
  if (!comm)
    return MXFP8RT_INVALID_ARGUMENT;
  return mxfp8rtMoeDispatchMx(
      comm, toPointer<const void>(data), toPointer<const void>(scales),
      numTokens, k, topK, toPointer<const int32_t>(tokenExperts), numExperts,
      capacity, alignment, toPointer<void>(recvData),
      toPointer<void>(recvScales), toPointer<int32_t>(recvOffs),
      toPointer<int32_t>(counts), stream);
}

int32_t mxfp8rtShardMoeCombine(intptr_t expertOut, intptr_t n, int32_t type,
                               intptr_t numTokens, intptr_t topK,
                               intptr_t tokenExperts, intptr_t numExperts,
                               intptr_t counts, intptr_t capacity,
                               intptr_t alignment, intptr_t out,
                               intptr_t groupSize) {
  mxfp8rtStream stream = nullptr;
  mxfp8rtComm comm =
      getBoundCommunicator("mxfp8rtShardMoeCombine", groupSize, stream);
  if (!comm)
    return MXFP8RT_INVALID_ARGUMENT;
  return mxfp8rtMoeCombine(comm, toPointer<const void>(expertOut), n,
                           static_cast<mxfp8rtDataType>(type), numTokens, topK,
                           toPointer<const int32_t>(tokenExperts), numExperts,
                           toPointer<const int32_t>(counts), capacity,
                           alignment, toPointer<void>(out), stream);
}

} // extern "C"
