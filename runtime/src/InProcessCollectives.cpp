//===- InProcessCollectives.cpp - ranks as threads ------------ -*- C++ -*-===//
//
// The in-process backend: the ranks of a group are threads of one process.
// A collective is a rendezvous: every rank posts its call (kind, type,
// counts, send buffer), waits for the others, checks that the calls match,
// computes its result from the peers' send buffers into a private buffer,
// waits until every rank has read, then writes its receive buffer. The
// second wait makes in-place calls safe. Reductions combine the ranks in
// rank order (Collectives.h).
//
//===----------------------------------------------------------------------===//

#include "Collectives.h"

#include "RuntimeInternal.h"

#include <cmath>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <vector>

namespace mxfp8rt {

namespace {
enum class Kind { AllGather, AllReduce, ReduceScatter, AllToAllv };

const char *getKindName(Kind kind) {
  switch (kind) {
  case Kind::AllGather:
    return "all-gather";
  case Kind::AllReduce:
    return "all-reduce";
  case Kind::ReduceScatter:
    return "reduce-scatter";
  case Kind::AllToAllv:
    return "all-to-allv";
  }
  return "?";
}

/// One rank's call, as the other ranks see it.
struct Posting {
  Posting() = default;
  Posting(Kind kind, mxfp8rtDataType type, mxfp8rtReduceOp op, size_t count,
          const void *send)
      : kind(kind), type(type), op(op), count(count),
        send(static_cast<const char *>(send)) {}

  Kind kind = Kind::AllGather;
  mxfp8rtDataType type = MXFP8RT_DATA_BYTE;
  mxfp8rtReduceOp op = MXFP8RT_REDUCE_SUM;
  size_t count = 0;
  const char *send = nullptr;
  std::vector<intptr_t> sendCounts, sendOffsets, recvCounts;
};
} // namespace

class InProcessGroup {
public:
  explicit InProcessGroup(int size)
      : size(size), postings(size), taken(size, false) {}

  /// Blocks until every rank has arrived.
  void barrier() {
    std::unique_lock<std::mutex> lock(mutex);
    uint64_t arrivedIn = generation;
    if (++arrived == size) {
      arrived = 0;
      ++generation;
      released.notify_all();
      return;
    }
    released.wait(lock, [&] { return generation != arrivedIn; });
  }

  const int size;
  /// Written by its rank before the first barrier of a call, read by all
  /// between the two barriers.
  std::vector<Posting> postings;
  std::mutex mutex;
  std::vector<bool> taken;

private:
  std::condition_variable released;
  int arrived = 0;
  uint64_t generation = 0;
};

std::shared_ptr<InProcessGroup> createInProcessGroup(int size) {
  return std::make_shared<InProcessGroup>(size);
}

int getInProcessGroupSize(const InProcessGroup &group) { return group.size; }

namespace {

float bf16ToFloat(uint16_t bits) {
  uint32_t wide = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &wide, sizeof(value));
  return value;
}

/// Round to nearest even; NaN stays a (quiet) NaN.
uint16_t floatToBf16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  if (std::isnan(value))
    return static_cast<uint16_t>((bits >> 16) | 0x40);
  bits += 0x7fff + ((bits >> 16) & 1);
  return static_cast<uint16_t>(bits >> 16);
}

float combine(float a, float b, mxfp8rtReduceOp op) {
  if (op == MXFP8RT_REDUCE_SUM)
    return a + b;
  if (std::isnan(a))
    return a;
  if (std::isnan(b))
    return b;
  return a < b ? b : a;
}

template <typename Int> Int combineInt(Int a, Int b, mxfp8rtReduceOp op) {
  if (op == MXFP8RT_REDUCE_SUM) {
    using Unsigned = std::make_unsigned_t<Int>;
    return static_cast<Int>(static_cast<Unsigned>(a) +
                            static_cast<Unsigned>(b));
  }
  return a < b ? b : a;
}

template <typename Int>
void reduceInts(const std::vector<const char *> &inputs, size_t count,
                mxfp8rtReduceOp op, char *out) {
  for (size_t i = 0; i < count; ++i) {
    Int acc;
    std::memcpy(&acc, inputs[0] + i * sizeof(Int), sizeof(Int));
    for (size_t r = 1; r < inputs.size(); ++r) {
      Int value;
      std::memcpy(&value, inputs[r] + i * sizeof(Int), sizeof(Int));
      acc = combineInt(acc, value, op);
    }
    std::memcpy(out + i * sizeof(Int), &acc, sizeof(Int));
  }
}

/// out[i] = op over the inputs (in order) of input[i].
void reduce(const std::vector<const char *> &inputs, size_t count,
            mxfp8rtDataType type, mxfp8rtReduceOp op, char *out) {
  switch (type) {
  case MXFP8RT_DATA_F32:
    for (size_t i = 0; i < count; ++i) {
      float acc;
      std::memcpy(&acc, inputs[0] + i * 4, 4);
      for (size_t r = 1; r < inputs.size(); ++r) {
        float value;
        std::memcpy(&value, inputs[r] + i * 4, 4);
        acc = combine(acc, value, op);
      }
      std::memcpy(out + i * 4, &acc, 4);
    }
    return;
  case MXFP8RT_DATA_BF16:
    for (size_t i = 0; i < count; ++i) {
      uint16_t bits;
      std::memcpy(&bits, inputs[0] + i * 2, 2);
      float acc = bf16ToFloat(bits);
      for (size_t r = 1; r < inputs.size(); ++r) {
        std::memcpy(&bits, inputs[r] + i * 2, 2);
        acc = combine(acc, bf16ToFloat(bits), op);
      }
      bits = floatToBf16(acc);
      std::memcpy(out + i * 2, &bits, 2);
    }
    return;
  case MXFP8RT_DATA_I32:
    reduceInts<int32_t>(inputs, count, op, out);
    return;
  case MXFP8RT_DATA_I64:
    reduceInts<int64_t>(inputs, count, op, out);
    return;
  case MXFP8RT_DATA_BYTE:
    return; // Rejected before a backend is called.
  }
}

class InProcessCommunicator final : public Communicator {
public:
  InProcessCommunicator(std::shared_ptr<InProcessGroup> group, int rank)
      : Communicator(MXFP8RT_COMM_IN_PROCESS, rank, group->size),
        group(std::move(group)) {}
  ~InProcessCommunicator() override {
    std::lock_guard<std::mutex> lock(group->mutex);
    group->taken[rank] = false;
  }

  mxfp8rtStatus allGather(const void *send, void *recv, size_t sendCount,
                          mxfp8rtDataType type, mxfp8rtStream) override {
    Posting post(Kind::AllGather, type, MXFP8RT_REDUCE_SUM, sendCount, send);
    size_t bytes = sendCount * getDataTypeSize(type);
    return exchange(std::move(post), recv, [&](std::vector<char> &result) {
      result.resize(bytes * size);
      for (int r = 0; r < size; ++r)
        if (bytes)
          std::memcpy(result.data() + r * bytes, group->postings[r].send,
                      bytes);
    });
  }

  mxfp8rtStatus allReduce(const void *send, void *recv, size_t count,
                          mxfp8rtDataType type, mxfp8rtReduceOp op,
                          mxfp8rtStream) override {
    Posting post(Kind::AllReduce, type, op, count, send);
    return exchange(std::move(post), recv, [&](std::vector<char> &result) {
      result.resize(count * getDataTypeSize(type));
      reduce(getSends(0), count, type, op, result.data());
    });
  }

  mxfp8rtStatus reduceScatter(const void *send, void *recv, size_t recvCount,
                              mxfp8rtDataType type, mxfp8rtReduceOp op,
                              mxfp8rtStream) override {
    Posting post(Kind::ReduceScatter, type, op, recvCount, send);
    size_t bytes = recvCount * getDataTypeSize(type);
    return exchange(std::move(post), recv, [&](std::vector<char> &result) {
      result.resize(bytes);
      reduce(getSends(rank * bytes), recvCount, type, op, result.data());
    });
  }

  mxfp8rtStatus allToAllv(const void *send, void *recv,
                          const AllToAllvLayout &layout, mxfp8rtDataType type,
                          mxfp8rtStream) override {
    Posting post(Kind::AllToAllv, type, MXFP8RT_REDUCE_SUM, 0, send);
    post.sendCounts.assign(layout.sendCounts, layout.sendCounts + size);
    post.sendOffsets.assign(layout.sendOffsets, layout.sendOffsets + size);
    post.recvCounts.assign(layout.recvCounts, layout.recvCounts + size);
    size_t elem = getDataTypeSize(type);
    // The parts from each peer, written at recvOffsets after the second
    // barrier: bytes between the parts stay as they were.
    std::vector<size_t> partStart(size + 1, 0);
    mxfp8rtStatus status =
        exchange(std::move(post), nullptr, [&](std::vector<char> &result) {
          for (int p = 0; p < size; ++p)
            partStart[p + 1] = partStart[p] + layout.recvCounts[p] * elem;
          result.resize(partStart[size]);
          for (int p = 0; p < size; ++p) {
            const Posting &peer = group->postings[p];
            size_t bytes = partStart[p + 1] - partStart[p];
            if (bytes)
              std::memcpy(result.data() + partStart[p],
                          peer.send + peer.sendOffsets[rank] * elem, bytes);
          }
        });
    if (status != MXFP8RT_SUCCESS)
      return status;
    for (int p = 0; p < size; ++p)
      if (size_t bytes = partStart[p + 1] - partStart[p])
        std::memcpy(static_cast<char *>(recv) + layout.recvOffsets[p] * elem,
                    scratch.data() + partStart[p], bytes);
    return MXFP8RT_SUCCESS;
  }

private:
  /// The peers' send buffers, each advanced by `offsetBytes`.
  std::vector<const char *> getSends(size_t offsetBytes) const {
    std::vector<const char *> sends;
    for (const Posting &post : group->postings)
      sends.push_back(post.send + offsetBytes);
    return sends;
  }

  /// Why the ranks' calls do not match, or "" (the same text on every
  /// rank: it reads only the postings).
  std::string findMismatch() const {
    const Posting &lead = group->postings[0];
    for (int r = 1; r < size; ++r) {
      const Posting &post = group->postings[r];
      std::string at = "rank 0 and rank " + std::to_string(r) + " ";
      if (post.kind != lead.kind)
        return at + "called different collectives (" + getKindName(lead.kind) +
               ", " + getKindName(post.kind) + ")";
      if (post.type != lead.type)
        return at + "passed different element types (" +
               std::to_string(lead.type) + ", " + std::to_string(post.type) +
               ")";
      if (post.op != lead.op)
        return at + "passed different reductions";
      if (post.count != lead.count)
        return at + "passed different counts (" + std::to_string(lead.count) +
               ", " + std::to_string(post.count) + ")";
    }
    if (lead.kind == Kind::AllToAllv)
      for (int q = 0; q < size; ++q)
        for (int p = 0; p < size; ++p)
          if (group->postings[q].sendCounts[p] !=
              group->postings[p].recvCounts[q])
            return "rank " + std::to_string(q) + " sends " +
                   std::to_string(group->postings[q].sendCounts[p]) +
                   " elements to rank " + std::to_string(p) +
                   ", which expects " +
                   std::to_string(group->postings[p].recvCounts[q]);
    return "";
  }

  /// The rendezvous: post, wait, check, `compute` into the scratch buffer,
  /// wait, copy the scratch buffer to `recv` (unless null).
  template <typename Compute>
  mxfp8rtStatus exchange(Posting post, void *recv, Compute compute) {
    const char *name = getKindName(post.kind);
    group->postings[rank] = std::move(post);
    group->barrier();
    std::string mismatch = findMismatch();
    if (mismatch.empty())
      compute(scratch);
    group->barrier();
    if (!mismatch.empty())
      return recordError(MXFP8RT_INVALID_ARGUMENT,
                         std::string("in-process ") + name + ": " + mismatch);
    if (recv && !scratch.empty())
      std::memcpy(recv, scratch.data(), scratch.size());
    return MXFP8RT_SUCCESS;
  }

  std::shared_ptr<InProcessGroup> group;
  std::vector<char> scratch;
};

} // namespace

mxfp8rtStatus
createInProcessCommunicator(const std::shared_ptr<InProcessGroup> &group,
                            int rank, std::unique_ptr<Communicator> &comm) {
  {
    std::lock_guard<std::mutex> lock(group->mutex);
    if (rank < 0 || rank >= group->size)
      return recordError(MXFP8RT_INVALID_ARGUMENT,
                         "mxfp8rtCommInitInProcess: rank " +
                             std::to_string(rank) + " is not in [0, " +
                             std::to_string(group->size) + ")");
    if (group->taken[rank])
      return recordError(MXFP8RT_INVALID_ARGUMENT,
                         "mxfp8rtCommInitInProcess: rank " +
                             std::to_string(rank) +
                             " already has a "
                             "communicator in this group");
    group->taken[rank] = true;
  }
  comm = std::make_unique<InProcessCommunicator>(group, rank);
  return MXFP8RT_SUCCESS;
}

} // namespace mxfp8rt
