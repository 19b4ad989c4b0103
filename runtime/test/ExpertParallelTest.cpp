//===- ExpertParallelTest.cpp - MXFP8 dispatch and combine ---- -*- C++ -*-===//
//
// mxfp8rtMoeDispatchMx and mxfp8rtMoeCombine on the in-process backend with
// 2 and 4 ranks as threads, checked byte for byte against layouts computed
// here by a direct loop: top-2 routing with uneven counts, empty experts, a
// rank that sends nothing and one that receives nothing; the packed
// exchange's bytes; every error failing every rank (capacity overflow, an
// expert id out of range on one rank, mismatched expert counts).
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/runtime/ExpertParallel.h"

#include "InProcessRanks.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace {

constexpr int64_t kK = 64;
constexpr int64_t kTopK = 2;
constexpr int64_t kExpertsPerRank = 3;

/// Rank r's tokens: r + 3 of them (rank 0 of 4 sends nothing: see
/// getExpert), data byte j of token t is a function of (r, t, j) that
/// covers every byte value, scale bytes likewise.
int64_t getNumTokens(int rank, int size) {
  return size == 4 && rank == 0 ? 0 : rank + 3;
}
uint8_t getDataByte(int rank, int64_t token, int64_t j) {
  return static_cast<uint8_t>(rank * 97 + token * 31 + j * 7);
}
uint8_t getScaleByte(int rank, int64_t token, int64_t j) {
  return static_cast<uint8_t>(0x70 + rank * 5 + token * 3 + j);
}

/// The expert of token t's slot j on rank r: uneven, no token goes to
/// expert 1 or to expert 4, so local expert 1 of rank 0 and of rank 1 are
/// empty; with 4 ranks nothing goes to rank 3 either (experts 9..11).
int32_t getExpert(int rank, int64_t token, int64_t slot, int size) {
  static const int32_t twoRanks[] = {0, 3, 5, 2, 0, 5, 3, 3, 2, 0, 5, 5};
  static const int32_t fourRanks[] = {6, 0, 7, 3, 8, 2, 0, 6, 5, 5, 3, 7};
  const int32_t *table = size == 2 ? twoRanks : fourRanks;
  return table[(rank * 5 + token * kTopK + slot) % 12];
}

/// One dispatched row, as the receiver expects it: who sent it.
struct Row {
  int source;
  int64_t token;
  int64_t slot;
};

/// The rows rank `me` receives, at their positions in the documented
/// order (local expert, then source rank, then the source's (token, slot)
/// order, each group starting at a multiple of `alignment`), by a loop
/// over every slot of every rank; nullopt at padding rows.
std::vector<std::optional<Row>> getExpectedRows(int me, int size,
                                                int64_t alignment,
                                                std::vector<int32_t> &offs) {
  std::vector<std::optional<Row>> rows;
  offs.clear();
  for (int64_t e = 0; e < kExpertsPerRank; ++e) {
    for (int s = 0; s < size; ++s)
      for (int64_t t = 0; t < getNumTokens(s, size); ++t)
        for (int64_t j = 0; j < kTopK; ++j)
          if (getExpert(s, t, j, size) == me * kExpertsPerRank + e)
            rows.push_back(Row{s, t, j});
    while (rows.size() % alignment != 0)
      rows.push_back(std::nullopt);
    offs.push_back(static_cast<int32_t>(rows.size()));
  }
  return rows;
}

/// The f32 "expert output" of a row: a value that names the row.
float getOutput(const Row &row, int64_t column) {
  return static_cast<float>(row.source * 10000 + row.token * 100 +
                            row.slot * 10) +
         static_cast<float>(column) / 8.0f;
}

/// (ranks, group alignment).
class MoeDispatch : public ::testing::TestWithParam<std::tuple<int, int64_t>> {
};

// Dispatch: every received row's 64 data bytes and 2 scale bytes are its
// sender's, in the documented grouping, with the offs and counts; padding
// rows (inside aligned groups and past the last) are zero. Combine: every
// slot gets back the output computed for it.
// Bytes sent: rows * (64 + 2) for the dispatch, rows * n * 4 for the
// combine, plus the small count and flag gathers.
TEST_P(MoeDispatch, GroupsRowsAndCombinesBack) {
  auto [size, alignment] = GetParam();
  const int64_t numExperts = kExpertsPerRank * size;
  const int64_t capacity = 32, n = 8;
  mxfp8rt::test::runInProcessRanks(size, [&](int rank, mxfp8rtComm comm) {
    int64_t tokens = getNumTokens(rank, size);
    std::vector<uint8_t> data(tokens * kK), scales(tokens * kK / 32);
    std::vector<int32_t> experts(tokens * kTopK);
    for (int64_t t = 0; t < tokens; ++t) {
      for (int64_t j = 0; j < kK; ++j)
        data[t * kK + j] = getDataByte(rank, t, j);
      for (int64_t j = 0; j < kK / 32; ++j)
        scales[t * kK / 32 + j] = getScaleByte(rank, t, j);
      for (int64_t j = 0; j < kTopK; ++j)
        experts[t * kTopK + j] = getExpert(rank, t, j, size);
    }
    std::vector<uint8_t> recvData(capacity * kK, 0xAA),
        recvScales(capacity * kK / 32, 0xAA);
    std::vector<int32_t> offs(kExpertsPerRank, -1),
        counts(size * size * kExpertsPerRank, -1);
    ASSERT_EQ(mxfp8rtMoeDispatchMx(comm, data.data(), scales.data(), tokens, kK,
                                   kTopK, experts.data(), numExperts, capacity,
                                   alignment, recvData.data(),
                                   recvScales.data(), offs.data(),
                                   counts.data(), nullptr),
              MXFP8RT_SUCCESS)
        << mxfp8rtGetLastError();

    std::vector<int32_t> expectedOffs;
    std::vector<std::optional<Row>> rows =
        getExpectedRows(rank, size, alignment, expectedOffs);
    EXPECT_EQ(offs, expectedOffs) << "rank " << rank;
    ASSERT_LE(static_cast<int64_t>(rows.size()), capacity);
    rows.resize(capacity);
    int64_t received = 0;
    for (int64_t i = 0; i < capacity; ++i) {
      received += rows[i].has_value();
      for (int64_t j = 0; j < kK; ++j)
        ASSERT_EQ(recvData[i * kK + j],
                  rows[i] ? getDataByte(rows[i]->source, rows[i]->token, j) : 0)
            << "rank " << rank << " row " << i << " byte " << j;
      for (int64_t j = 0; j < kK / 32; ++j)
        ASSERT_EQ(recvScales[i * kK / 32 + j],
                  rows[i] ? getScaleByte(rows[i]->source, rows[i]->token, j)
                          : 0)
            << "rank " << rank << " row " << i << " scale " << j;
    }
    // counts[(s * size + r) * E_local + e], by a loop over the routing.
    for (int s = 0; s < size; ++s)
      for (int r = 0; r < size; ++r)
        for (int64_t e = 0; e < kExpertsPerRank; ++e) {
          int32_t expected = 0;
          for (int64_t t = 0; t < getNumTokens(s, size); ++t)
            for (int64_t j = 0; j < kTopK; ++j)
              expected += getExpert(s, t, j, size) == r * kExpertsPerRank + e;
          EXPECT_EQ(counts[(s * size + r) * kExpertsPerRank + e], expected)
              << "counts of " << s << " -> " << r << ", expert " << e;
        }
    int64_t afterDispatch = 0;
    ASSERT_EQ(mxfp8rtCommGetBytesSent(comm, &afterDispatch), MXFP8RT_SUCCESS);
    // The agreement's header (a flag and four 64-bit fields: numExperts,
    // k, capacity, alignment), the counts, the rows.
    int64_t headerBytes = (1 + 2 * 4) * 4;
    int64_t countBytes = size * kExpertsPerRank * 4;
    EXPECT_EQ(afterDispatch,
              headerBytes + countBytes + tokens * kTopK * (kK + kK / 32));

    // The experts' f32 outputs; the padding rows hold NaN, never read.
    std::vector<float> expertOut(capacity * n, std::nanf(""));
    for (int64_t i = 0; i < capacity; ++i)
      for (int64_t c = 0; c < n && rows[i]; ++c)
        expertOut[i * n + c] = getOutput(*rows[i], c);
    std::vector<float> out(tokens * kTopK * n, -1.0f);
    ASSERT_EQ(mxfp8rtMoeCombine(comm, expertOut.data(), n, MXFP8RT_DATA_F32,
                                tokens, kTopK, experts.data(), numExperts,
                                counts.data(), capacity, alignment, out.data(),
                                nullptr),
              MXFP8RT_SUCCESS)
        << mxfp8rtGetLastError();
    for (int64_t t = 0; t < tokens; ++t)
      for (int64_t j = 0; j < kTopK; ++j)
        for (int64_t c = 0; c < n; ++c)
          ASSERT_EQ(out[(t * kTopK + j) * n + c], getOutput(Row{rank, t, j}, c))
              << "rank " << rank << " token " << t << " slot " << j;
    int64_t afterCombine = 0;
    ASSERT_EQ(mxfp8rtCommGetBytesSent(comm, &afterCombine), MXFP8RT_SUCCESS);
    // The header (a flag and five fields: numExperts, n, type, capacity,
    // alignment), the rows.
    EXPECT_EQ(afterCombine - afterDispatch, (1 + 2 * 5) * 4 + received * n * 4);
  });
}

INSTANTIATE_TEST_SUITE_P(Ranks, MoeDispatch,
                         ::testing::Combine(::testing::Values(2, 4),
                                            ::testing::Values(1, 4)),
                         [](const auto &info) {
                           return std::to_string(std::get<0>(info.param)) +
                                  "RanksAlign" +
                                  std::to_string(std::get<1>(info.param));
                         });

/// Dispatches rank r's `tokens` tokens of top-1 routing to `expertOf(r, t)`
/// with `capacity`; returns each rank's status and message.
void dispatchAll(int size, int64_t numExperts, int64_t capacity,
                 const std::function<int32_t(int, int64_t)> &expertOf,
                 std::vector<mxfp8rtStatus> &statuses,
                 std::vector<std::string> &messages,
                 const std::function<int64_t(int)> &expertsOf = nullptr,
                 const std::function<int64_t(int)> &capacityOf = nullptr) {
  statuses.assign(size, MXFP8RT_SUCCESS);
  messages.assign(size, "");
  mxfp8rt::test::runInProcessRanks(size, [&](int rank, mxfp8rtComm comm) {
    int64_t tokens = 8;
    std::vector<uint8_t> data(tokens * 32, 1), scales(tokens, 127);
    std::vector<int32_t> experts(tokens);
    for (int64_t t = 0; t < tokens; ++t)
      experts[t] = expertOf(rank, t);
    int64_t myExperts = expertsOf ? expertsOf(rank) : numExperts;
    int64_t myCapacity = capacityOf ? capacityOf(rank) : capacity;
    std::vector<uint8_t> recvData(myCapacity * 32), recvScales(myCapacity);
    std::vector<int32_t> offs(myExperts), counts(size * myExperts * size);
    statuses[rank] = mxfp8rtMoeDispatchMx(
        comm, data.data(), scales.data(), tokens, 32, 1, experts.data(),
        myExperts, myCapacity, 1, recvData.data(), recvScales.data(),
        offs.data(), counts.data(), nullptr);
    messages[rank] = mxfp8rtGetLastError();
  });
}

// 8 tokens of each of 2 ranks all go to expert 0 (rank 0): 16 rows for a
// capacity of 12. Both ranks fail with the same message before any payload
// moves; nothing is dropped silently.
TEST(MoeDispatchErrors, CapacityOverflowFailsEveryRank) {
  std::vector<mxfp8rtStatus> statuses;
  std::vector<std::string> messages;
  auto allToExpertZero = [](int, int64_t) { return 0; };
  dispatchAll(2, 2, 12, allToExpertZero, statuses, messages);
  for (int r = 0; r < 2; ++r) {
    EXPECT_EQ(statuses[r], MXFP8RT_INVALID_ARGUMENT);
    EXPECT_EQ(messages[r], "mxfp8rtMoeDispatchMx: rank 0 would receive 16 "
                           "rows, capacity 12 (tokens are never dropped: "
                           "raise the capacity)");
  }
}

// Rank 1 routes token 5 to expert 4 of 4: rank 1 says which slot, rank 0
// fails too (it would otherwise wait in the exchange).
TEST(MoeDispatchErrors, ExpertOutOfRangeFailsEveryRank) {
  std::vector<mxfp8rtStatus> statuses;
  std::vector<std::string> messages;
  auto badOnRankOne = [](int rank, int64_t t) {
    return rank == 1 && t == 5 ? 4 : 1;
  };
  dispatchAll(2, 4, 32, badOnRankOne, statuses, messages);
  EXPECT_EQ(statuses[0], MXFP8RT_INVALID_ARGUMENT);
  EXPECT_EQ(messages[0], "mxfp8rtMoeDispatchMx: rank 1 reported invalid "
                         "arguments or routing (its own error says which)");
  EXPECT_EQ(statuses[1], MXFP8RT_INVALID_ARGUMENT);
  EXPECT_EQ(messages[1], "mxfp8rtMoeDispatchMx: rank 1: slot 0 of token 5 "
                         "is routed to expert 4, not in [0, 4)");
}

// The ranks disagree on the number of experts: the count gathers differ
// in size, which the in-process backend reports on both ranks.
TEST(MoeDispatchErrors, MismatchedExpertCountsFailEveryRank) {
  std::vector<mxfp8rtStatus> statuses;
  std::vector<std::string> messages;
  auto allToExpertZero = [](int, int64_t) { return 0; };
  auto expertsOf = [](int rank) -> int64_t { return rank == 0 ? 2 : 4; };
  dispatchAll(2, 0, 32, allToExpertZero, statuses, messages, expertsOf);
  for (int r = 0; r < 2; ++r) {
    EXPECT_EQ(statuses[r], MXFP8RT_INVALID_ARGUMENT) << messages[r];
    EXPECT_EQ(messages[r],
              "mxfp8rtMoeDispatchMx: rank 1 passed numExperts 4, rank 0 2 "
              "(every rank makes the call with the same values)");
  }
}

// The ranks agree on the call's values before anything else: a rank that
// passes another capacity fails every rank with the same message (NCCL
// could not tell; the counts would still have the same size).
TEST(MoeDispatchErrors, MismatchedCapacityFailsEveryRank) {
  std::vector<mxfp8rtStatus> statuses;
  std::vector<std::string> messages;
  auto toExpertOfToken = [](int, int64_t t) { return int32_t(t % 4); };
  auto capacityOf = [](int rank) -> int64_t { return rank == 1 ? 40 : 32; };
  dispatchAll(2, 4, 32, toExpertOfToken, statuses, messages, nullptr,
              capacityOf);
  for (int r = 0; r < 2; ++r) {
    EXPECT_EQ(statuses[r], MXFP8RT_INVALID_ARGUMENT) << messages[r];
    EXPECT_EQ(messages[r],
              "mxfp8rtMoeDispatchMx: rank 1 passed capacity 40, rank 0 32 "
              "(every rank makes the call with the same values)");
  }
}

// The ABI of compiled code needs a bound communicator of the program's
// size; mxfp8rtCommGetBytesSent needs a live one.
TEST(MoeDispatchErrors, ShardAbiNeedsBoundCommunicator) {
  EXPECT_EQ(
      mxfp8rtShardMoeDispatchMx(0, 0, 0, 32, 1, 0, 2, 0, 1, 0, 0, 0, 0, 2),
      MXFP8RT_INVALID_ARGUMENT);
  EXPECT_STREQ(mxfp8rtGetLastError(),
               "mxfp8rtShardMoeDispatchMx: no communicator is bound to this "
               "thread (mxfp8rtCommBind)");
  mxfp8rt::test::runInProcessRanks(2, [&](int rank, mxfp8rtComm comm) {
    ASSERT_EQ(mxfp8rtCommBind(comm, nullptr), MXFP8RT_SUCCESS);
    EXPECT_EQ(mxfp8rtShardMoeCombine(0, 8, MXFP8RT_DATA_F32, 0, 1, 0, 2, 0, 0,
                                     1, 0, 4),
              MXFP8RT_INVALID_ARGUMENT);
    EXPECT_STREQ(mxfp8rtGetLastError(),
                 "mxfp8rtShardMoeCombine: the program was partitioned for 4 "
                 "processes, the bound communicator has 2 ranks");
    mxfp8rtCommBind(nullptr, nullptr);
  });
  int64_t bytes = 0;
  EXPECT_EQ(mxfp8rtCommGetBytesSent(nullptr, &bytes), MXFP8RT_INVALID_ARGUMENT);
}

} // namespace
