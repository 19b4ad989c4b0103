//===- ExpertParallel.cpp - MXFP8 token dispatch and combine -- -*- C++ -*-===//
//
// mxfp8rtMoeDispatchMx and mxfp8rtMoeCombine (ExpertParallel.h), built on
// the public collectives: an all-gather of the per-destination counts (and
// of an error flag, so that every rank agrees on failing before any payload
// moves: the in-process rendezvous and NCCL both wait forever for a rank
// that skips a call), then one all-to-allv of packed rows. The routing and
// every row move are planned on the host (the routing is read back from the
// GPU for NCCL: its all-to-allv needs the byte counts on the host, as
// torch's all_to_all_single does) and run through an ExchangeMemory: host
// copies for the in-process backend, a row-gather kernel on the
// communicator's GPU for NCCL (ExchangeMemory.h).
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/runtime/ExpertParallel.h"

#include "Collectives.h"
#include "ExchangeMemory.h"
#include "RuntimeInternal.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
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

/// The communicator's rank and size (a local failure: nothing can be
/// exchanged without them).
mxfp8rtStatus getCommunicator(const char *fn, mxfp8rtComm comm, int &rank,
                              int &size) {
  if (mxfp8rtCommGetRank(comm, &rank) != MXFP8RT_SUCCESS ||
      mxfp8rtCommGetSize(comm, &size) != MXFP8RT_SUCCESS)
    return fail(fn, MXFP8RT_INVALID_ARGUMENT, "unknown communicator");
  return MXFP8RT_SUCCESS;
}

/// Runs `body` with the memory of `comm`'s buffers: host memory for the
/// in-process backend; for NCCL the communicator's GPU, in its context,
/// with every copy and kernel on `stream`.
mxfp8rtStatus
withExchangeMemory(mxfp8rtComm comm, mxfp8rtStream stream,
                   const std::function<mxfp8rtStatus(ExchangeMemory &)> &body) {
  int device = getCommunicatorDevice(comm);
  if (device < 0)
    return body(*createHostExchangeMemory());
  return runOnDevice(device, [&]() -> mxfp8rtStatus {
    std::unique_ptr<ExchangeMemory> memory;
    if (mxfp8rtStatus status =
            createDeviceExchangeMemory(device, stream, memory))
      return status;
    return body(*memory);
  });
}

/// Reads `count` ints of the caller's buffer into `out`; a failure becomes
/// this rank's `error` (agreed on with the others, so none waits forever).
void readCallerInts(ExchangeMemory &memory, const int32_t *src, intptr_t count,
                    const char *what, std::vector<int32_t> &out,
                    std::string &error) {
  if (!error.empty())
    return;
  if (memory.readInts(src, count, out) != MXFP8RT_SUCCESS)
    error = std::string("cannot read ") + what + ": " + mxfp8rtGetLastError();
}

/// A step of the local work before the agreement: its failure becomes
/// this rank's `error` (the first one wins). True while there is none.
bool keepLocalFailure(mxfp8rtStatus status, const char *what,
                      std::string &error) {
  if (status != MXFP8RT_SUCCESS && error.empty())
    error = std::string(what) + ": " + mxfp8rtGetLastError();
  return error.empty();
}

/// All-gathers `mine` (the same count on every rank) into `gathered`.
mxfp8rtStatus gatherInts(mxfp8rtComm comm, ExchangeMemory &memory, int size,
                         const std::vector<int32_t> &mine,
                         std::vector<int32_t> &gathered, mxfp8rtStream stream) {
  intptr_t count = mine.size();
  void *send = nullptr, *recv = nullptr;
  if (mxfp8rtStatus status = memory.allocate(count * sizeof(int32_t), &send))
    return status;
  if (mxfp8rtStatus status =
          memory.allocate(count * size * sizeof(int32_t), &recv))
    return status;
  if (mxfp8rtStatus status =
          memory.writeInts(static_cast<int32_t *>(send), mine))
    return status;
  if (mxfp8rtStatus status =
          mxfp8rtAllGather(comm, send, recv, count, MXFP8RT_DATA_I32, stream))
    return status;
  return memory.readInts(static_cast<int32_t *>(recv), count * size, gathered);
}

/// The agreement before any payload moves: every rank all-gathers a header
/// of the same size (its error flag, then each of `fields` as two 32-bit
/// halves) and every rank fails with the same status when a rank's flag is
/// set (that rank keeps its own message) or when the ranks passed different
/// values of a field (a mismatched numExperts would otherwise give the
/// counts' gather different sizes, which NCCL cannot detect).
mxfp8rtStatus agree(const char *fn, mxfp8rtComm comm, ExchangeMemory &memory,
                    int rank, int size,
                    const std::vector<std::pair<const char *, int64_t>> &fields,
                    const std::string &localError, mxfp8rtStream stream) {
  std::vector<int32_t> header(1 + 2 * fields.size());
  header[0] = localError.empty() ? 0 : 1;
  for (size_t f = 0; f < fields.size(); ++f) {
    uint64_t bits = static_cast<uint64_t>(fields[f].second);
    header[1 + 2 * f] = static_cast<int32_t>(bits & 0xFFFFFFFFu);
    header[2 + 2 * f] = static_cast<int32_t>(bits >> 32);
  }
  std::vector<int32_t> gathered;
  if (mxfp8rtStatus status =
          gatherInts(comm, memory, size, header, gathered, stream))
    return status;
  if (!localError.empty())
    return fail(fn, MXFP8RT_INVALID_ARGUMENT,
                "rank " + std::to_string(rank) + ": " + localError);
  size_t stride = header.size();
  for (int s = 0; s < size; ++s)
    if (gathered[s * stride])
      return fail(fn, MXFP8RT_INVALID_ARGUMENT,
                  "rank " + std::to_string(s) +
                      " reported invalid arguments or routing (its own "
                      "error says which)");
  auto valueOf = [&](int s, size_t f) {
    uint64_t lo = static_cast<uint32_t>(gathered[s * stride + 1 + 2 * f]);
    uint64_t hi = static_cast<uint32_t>(gathered[s * stride + 2 + 2 * f]);
    return static_cast<int64_t>(lo | (hi << 32));
  };
  for (int s = 1; s < size; ++s)
    for (size_t f = 0; f < fields.size(); ++f)
      if (valueOf(s, f) != valueOf(0, f))
        return fail(fn, MXFP8RT_INVALID_ARGUMENT,
                    "rank " + std::to_string(s) + " passed " + fields[f].first +
                        " " + std::to_string(valueOf(s, f)) + ", rank 0 " +
                        std::to_string(valueOf(0, f)) +
                        " (every rank makes the call with the same values)");
  return MXFP8RT_SUCCESS;
}

/// MXFP8RT_EXCHANGE_TRACE=1: each call synchronizes its stream at the end
/// of every phase and prints the phases' host wall times to stderr (a
/// diagnostic of where an exchange's time goes; off by default).
class PhaseTrace {
public:
  PhaseTrace(const char *fn, int rank, ExchangeMemory &memory)
      : fn(fn), rank(rank), memory(memory),
        enabled(std::getenv("MXFP8RT_EXCHANGE_TRACE") != nullptr),
        last(std::chrono::steady_clock::now()) {}
  ~PhaseTrace() {
    if (enabled && !line.empty())
      std::fprintf(stderr, "%s rank %d:%s\n", fn, rank, line.c_str());
  }
  void mark(const char *phase) {
    if (!enabled)
      return;
    (void)memory.synchronize();
    auto now = std::chrono::steady_clock::now();
    char buffer[96];
    std::snprintf(
        buffer, sizeof(buffer), " %s %.3f ms", phase,
        std::chrono::duration<double, std::milli>(now - last).count());
    line += buffer;
    last = now;
  }

private:
  const char *fn;
  int rank;
  ExchangeMemory &memory;
  bool enabled;
  std::chrono::steady_clock::time_point last;
  std::string line;
};

RowIndex toIndex(const std::vector<intptr_t> &rows) {
  return RowIndex{std::vector<int64_t>(rows.begin(), rows.end())};
}

/// `base + offset` for a buffer that may be null when it holds no rows.
const void *offsetBytes(const void *base, intptr_t offset) {
  return base ? static_cast<const uint8_t *>(base) + offset : nullptr;
}

mxfp8rtStatus dispatch(ExchangeMemory &memory, mxfp8rtComm comm, int rank,
                       int size, const void *data, const void *scales,
                       intptr_t numTokens, intptr_t k, intptr_t topK,
                       const int32_t *tokenExperts, intptr_t numExperts,
                       intptr_t capacity, intptr_t alignment, void *recvData,
                       void *recvScales, int32_t *recvOffs, int32_t *counts,
                       mxfp8rtStream stream) {
  const char *fn = "mxfp8rtMoeDispatchMx";
  PhaseTrace trace(fn, rank, memory);
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
  std::vector<int32_t> routing;
  readCallerInts(memory, tokenExperts, slots, "tokenExperts", routing, error);
  trace.mark("routing");
  SendOrder order;
  if (error.empty())
    order = getSendOrder(routing.data(), slots, topK, numExperts, size, error);
  trace.mark("order");
  // Everything this rank can do alone happens before the agreement, so that
  // a failure here (out of memory, a bad pointer) is agreed on too: the
  // send buffer packed (each row its k data bytes, then its k/32 scale
  // bytes, in the send order), the receive buffer (at most `capacity` rows
  // once the capacity check below passes) and the grouping index reserved.
  intptr_t scaleBytes = k / 32, rowBytes = k + scaleBytes;
  void *send = nullptr, *received = nullptr;
  RowIndex arrivalOfRow;
  auto local = [&](mxfp8rtStatus status, const char *what) {
    return keepLocalFailure(status, what, error);
  };
  if (error.empty()) {
    RowIndex tokenOfRow{std::vector<int64_t>(slots)};
    for (intptr_t i = 0; i < slots; ++i)
      tokenOfRow.rows[order.positionOfSlot[i]] = i / topK;
    (void)local(memory.allocate(slots * rowBytes, &send),
                "allocating the send buffer");
    void *sendScales = send ? static_cast<uint8_t *>(send) + k : nullptr;
    (void)(error.empty() &&
           local(memory.gatherRows(send, rowBytes, data, k, tokenOfRow, k),
                 "packing the data") &&
           local(memory.gatherRows(sendScales, rowBytes, scales, scaleBytes,
                                   tokenOfRow, scaleBytes),
                 "packing the scales") &&
           local(memory.allocate(capacity * rowBytes, &received),
                 "allocating the receive buffer") &&
           local(memory.reserveIndex(arrivalOfRow, capacity),
                 "allocating the grouping index"));
  }
  trace.mark("pack");
  // The agreement (arguments, routing, local failures, the same call on
  // every rank), then the counts: size * localExperts from every rank.
  if (mxfp8rtStatus status = agree(fn, comm, memory, rank, size,
                                   {{"numExperts", numExperts},
                                    {"k", k},
                                    {"capacity", capacity},
                                    {"alignment", alignment}},
                                   error, stream))
    return status;
  std::vector<int32_t> allCounts;
  if (mxfp8rtStatus status =
          gatherInts(comm, memory, size, order.counts, allCounts, stream))
    return status;
  if (mxfp8rtStatus status = memory.writeInts(counts, allCounts))
    return status;
  trace.mark("agree");

  // Capacity, checked on the gathered counts: every rank sees the same
  // overflow and fails before the exchange.
  for (int r = 0; r < size; ++r) {
    ReceiveLayout layout =
        getReceiveLayout(allCounts.data(), r, size, localExperts, alignment);
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

  ReceiveLayout layout =
      getReceiveLayout(allCounts.data(), rank, size, localExperts, alignment);
  std::vector<intptr_t> sendCounts(size), sendOffsets(size), recvCounts(size),
      recvOffsets(size);
  for (int p = 0; p < size; ++p) {
    sendCounts[p] = order.rowsTo[p] * rowBytes;
    sendOffsets[p] = order.firstRowTo[p] * rowBytes;
    recvCounts[p] = layout.rowsFrom[p] * rowBytes;
    recvOffsets[p] = layout.firstRowFrom[p] * rowBytes;
  }
  if (mxfp8rtStatus status = mxfp8rtAllToAllv(
          comm, send, sendCounts.data(), sendOffsets.data(), received,
          recvCounts.data(), recvOffsets.data(), MXFP8RT_DATA_BYTE, stream))
    return status;
  trace.mark("all-to-allv");

  // Group by local expert (then source): unpack data and scales. Padding
  // rows (inside the aligned groups and past the last) are zero bytes.
  std::vector<intptr_t> grouped =
      getGroupedRows(layout, allCounts.data(), rank, size, localExperts);
  arrivalOfRow.rows.assign(capacity, -1);
  for (intptr_t a = 0; a < layout.received; ++a)
    arrivalOfRow.rows[grouped[a]] = a;
  if (mxfp8rtStatus status =
          memory.gatherRows(recvData, k, received, rowBytes, arrivalOfRow, k))
    return status;
  if (mxfp8rtStatus status =
          memory.gatherRows(recvScales, scaleBytes, offsetBytes(received, k),
                            rowBytes, arrivalOfRow, scaleBytes))
    return status;
  std::vector<int32_t> offs(localExperts);
  for (intptr_t e = 0; e < localExperts; ++e)
    offs[e] = static_cast<int32_t>(layout.groupEnd[e]);
  mxfp8rtStatus status = memory.writeInts(recvOffs, offs);
  trace.mark("group");
  return status;
}

mxfp8rtStatus combine(ExchangeMemory &memory, mxfp8rtComm comm, int rank,
                      int size, const void *expertOut, intptr_t n,
                      mxfp8rtDataType type, intptr_t numTokens, intptr_t topK,
                      const int32_t *tokenExperts, intptr_t numExperts,
                      const int32_t *counts, intptr_t capacity,
                      intptr_t alignment, void *out, mxfp8rtStream stream) {
  const char *fn = "mxfp8rtMoeCombine";
  PhaseTrace trace(fn, rank, memory);
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
  std::vector<int32_t> routing, allCounts;
  readCallerInts(memory, tokenExperts, slots, "tokenExperts", routing, error);
  readCallerInts(memory, counts, size * size * localExperts, "counts",
                 allCounts, error);
  SendOrder order;
  if (error.empty())
    order = getSendOrder(routing.data(), slots, topK, numExperts, size, error);
  ReceiveLayout layout;
  if (error.empty()) {
    // The routing must be the dispatch's: this rank's row of the counts.
    if (!std::equal(order.counts.begin(), order.counts.end(),
                    allCounts.begin() + rank * size * localExperts))
      error = "tokenExperts do not match this rank's counts of the dispatch";
    layout =
        getReceiveLayout(allCounts.data(), rank, size, localExperts, alignment);
    if (error.empty() && layout.total > capacity)
      error = "the counts give " + std::to_string(layout.total) +
              " rows for this rank, capacity " + std::to_string(capacity);
  }
  trace.mark("routing+order");
  // The local work before the agreement (ExpertParallel.h: failures are
  // agreed on): the expert outputs packed in arrival order (the sources'
  // send order), the receive buffer and the unpack index reserved.
  intptr_t rowBytes = error.empty() ? n * getDataTypeSize(type) : 0;
  void *send = nullptr, *received = nullptr;
  RowIndex slotRows;
  auto local = [&](mxfp8rtStatus status, const char *what) {
    return keepLocalFailure(status, what, error);
  };
  if (error.empty()) {
    RowIndex groupedRows = toIndex(
        getGroupedRows(layout, allCounts.data(), rank, size, localExperts));
    slotRows = toIndex(order.positionOfSlot);
    (void)(local(memory.allocate(layout.received * rowBytes, &send),
                 "allocating the send buffer") &&
           local(memory.gatherRows(send, rowBytes, expertOut, rowBytes,
                                   groupedRows, rowBytes),
                 "packing the expert outputs") &&
           local(memory.allocate(slots * rowBytes, &received),
                 "allocating the receive buffer") &&
           local(memory.reserveIndex(slotRows, slots),
                 "allocating the unpack index"));
  }
  trace.mark("pack");
  if (mxfp8rtStatus status = agree(fn, comm, memory, rank, size,
                                   {{"numExperts", numExperts},
                                    {"n", n},
                                    {"type", type},
                                    {"capacity", capacity},
                                    {"alignment", alignment}},
                                   error, stream))
    return status;
  trace.mark("agree");

  std::vector<intptr_t> sendCounts(size), sendOffsets(size), recvCounts(size),
      recvOffsets(size);
  for (int p = 0; p < size; ++p) {
    sendCounts[p] = layout.rowsFrom[p] * n;
    sendOffsets[p] = layout.firstRowFrom[p] * n;
    recvCounts[p] = order.rowsTo[p] * n;
    recvOffsets[p] = order.firstRowTo[p] * n;
  }
  if (mxfp8rtStatus status = mxfp8rtAllToAllv(
          comm, send, sendCounts.data(), sendOffsets.data(), received,
          recvCounts.data(), recvOffsets.data(), type, stream))
    return status;
  trace.mark("all-to-allv");
  mxfp8rtStatus status =
      memory.gatherRows(out, rowBytes, received, rowBytes, slotRows, rowBytes);
  trace.mark("unpack");
  return status;
}

} // namespace

extern "C" {

mxfp8rtStatus mxfp8rtMoeDispatchMx(
    mxfp8rtComm comm, const void *data, const void *scales, intptr_t numTokens,
    intptr_t k, intptr_t topK, const int32_t *tokenExperts, intptr_t numExperts,
    intptr_t capacity, intptr_t alignment, void *recvData, void *recvScales,
    int32_t *recvOffs, int32_t *counts, mxfp8rtStream stream) {
  int rank = 0, size = 0;
  if (mxfp8rtStatus status =
          getCommunicator("mxfp8rtMoeDispatchMx", comm, rank, size))
    return status;
  return withExchangeMemory(comm, stream, [&](ExchangeMemory &memory) {
    return dispatch(memory, comm, rank, size, data, scales, numTokens, k, topK,
                    tokenExperts, numExperts, capacity, alignment, recvData,
                    recvScales, recvOffs, counts, stream);
  });
}

mxfp8rtStatus mxfp8rtMoeCombine(mxfp8rtComm comm, const void *expertOut,
                                intptr_t n, mxfp8rtDataType type,
                                intptr_t numTokens, intptr_t topK,
                                const int32_t *tokenExperts,
                                intptr_t numExperts, const int32_t *counts,
                                intptr_t capacity, intptr_t alignment,
                                void *out, mxfp8rtStream stream) {
  int rank = 0, size = 0;
  if (mxfp8rtStatus status =
          getCommunicator("mxfp8rtMoeCombine", comm, rank, size))
    return status;
  return withExchangeMemory(comm, stream, [&](ExchangeMemory &memory) {
    return combine(memory, comm, rank, size, expertOut, n, type, numTokens,
                   topK, tokenExperts, numExperts, counts, capacity, alignment,
                   out, stream);
  });
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
  return finishShardCall(
      comm, stream,
      mxfp8rtMoeDispatchMx(
          comm, toPointer<const void>(data), toPointer<const void>(scales),
          numTokens, k, topK, toPointer<const int32_t>(tokenExperts),
          numExperts, capacity, alignment, toPointer<void>(recvData),
          toPointer<void>(recvScales), toPointer<int32_t>(recvOffs),
          toPointer<int32_t>(counts), stream));
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
  return finishShardCall(
      comm, stream,
      mxfp8rtMoeCombine(comm, toPointer<const void>(expertOut), n,
                        static_cast<mxfp8rtDataType>(type), numTokens, topK,
                        toPointer<const int32_t>(tokenExperts), numExperts,
                        toPointer<const int32_t>(counts), capacity, alignment,
                        toPointer<void>(out), stream));
}

} // extern "C"
