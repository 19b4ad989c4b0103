//===- CollectivesTest.cpp - collectives on the in-process backend -*- C++ -*-//
//
// Every collective of Collectives.h with 2 and 4 ranks as threads, checked
// byte for byte against values computed here: fp8 and e8m0 payloads
// (NaN and -0 bytes included), bf16 sums with their one rounding, uneven
// all-to-allv counts with empty parts, in-place calls; the errors of
// mismatched calls and bad arguments; the ABI of lowered shard collectives;
// and the message when libnccl cannot be found.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/runtime/Collectives.h"

#include "InProcessRanks.h"

#include "NcclLibrary.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

uint32_t bitsOf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

float floatOf(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

class Collectives : public ::testing::TestWithParam<int> {};

// fp8 data bytes of each rank (0x7F / 0xFF are the E4M3FN NaNs, 0x80 is -0)
// then its e8m0 scale bytes (0xFF is the e8m0 NaN): gathered in rank order.
TEST_P(Collectives, AllGatherFp8AndE8m0Bytes) {
  int size = GetParam();
  mxfp8rt::test::runInProcessRanks(size, [&](int rank, mxfp8rtComm comm) {
    std::vector<uint8_t> data = {uint8_t(0x10 * rank + 1), 0x7F, 0x80, 0xFF,
                                 uint8_t(0x38 + rank)};
    std::vector<uint8_t> gathered(data.size() * size, 0xAA);
    EXPECT_EQ(mxfp8rtAllGather(comm, data.data(), gathered.data(), data.size(),
                               MXFP8RT_DATA_BYTE, nullptr),
              MXFP8RT_SUCCESS)
        << mxfp8rtGetLastError();
    for (int r = 0; r < size; ++r) {
      std::vector<uint8_t> expected = {uint8_t(0x10 * r + 1), 0x7F, 0x80, 0xFF,
                                       uint8_t(0x38 + r)};
      EXPECT_EQ(std::vector<uint8_t>(gathered.begin() + r * 5,
                                     gathered.begin() + r * 5 + 5),
                expected)
          << "part " << r << " on rank " << rank;
    }
    std::vector<uint8_t> scales = {uint8_t(127 + rank), 0xFF, 0};
    std::vector<uint8_t> allScales(3 * size);
    EXPECT_EQ(mxfp8rtAllGather(comm, scales.data(), allScales.data(), 3,
                               MXFP8RT_DATA_BYTE, nullptr),
              MXFP8RT_SUCCESS);
    for (int r = 0; r < size; ++r) {
      EXPECT_EQ(allScales[3 * r], 127 + r);
      EXPECT_EQ(allScales[3 * r + 1], 0xFF);
      EXPECT_EQ(allScales[3 * r + 2], 0);
    }
    // Zero elements: nothing written, null buffers allowed.
    EXPECT_EQ(
        mxfp8rtAllGather(comm, nullptr, nullptr, 0, MXFP8RT_DATA_BYTE, nullptr),
        MXFP8RT_SUCCESS);
  });
}

// f32 all-gather in place: each rank's part already sits in the result.
TEST_P(Collectives, AllGatherF32InPlace) {
  int size = GetParam();
  mxfp8rt::test::runInProcessRanks(size, [&](int rank, mxfp8rtComm comm) {
    std::vector<float> all(2 * size, -1.0f);
    all[2 * rank] = 0.5f * rank;
    all[2 * rank + 1] = -3.0f - rank;
    EXPECT_EQ(mxfp8rtAllGather(comm, all.data() + 2 * rank, all.data(), 2,
                               MXFP8RT_DATA_F32, nullptr),
              MXFP8RT_SUCCESS);
    for (int r = 0; r < size; ++r) {
      EXPECT_EQ(bitsOf(all[2 * r]), bitsOf(0.5f * r));
      EXPECT_EQ(bitsOf(all[2 * r + 1]), bitsOf(-3.0f - r));
    }
  });
}

// f32 sums in rank order (-0 + -0 stays -0, the 1e8 + 1 - 1e8 order shows),
// max with a NaN, in place.
TEST_P(Collectives, AllReduceF32) {
  int size = GetParam();
  mxfp8rt::test::runInProcessRanks(size, [&](int rank, mxfp8rtComm comm) {
    std::vector<float> x = {-0.0f, rank == 0 ? 1e8f : 1.0f, 0.25f * rank,
                            rank == 1 ? NAN : float(rank)};
    std::vector<float> sum(4), max(4);
    EXPECT_EQ(mxfp8rtAllReduce(comm, x.data(), sum.data(), 4, MXFP8RT_DATA_F32,
                               MXFP8RT_REDUCE_SUM, nullptr),
              MXFP8RT_SUCCESS);
    EXPECT_EQ(mxfp8rtAllReduce(comm, x.data(), max.data(), 4, MXFP8RT_DATA_F32,
                               MXFP8RT_REDUCE_MAX, nullptr),
              MXFP8RT_SUCCESS);
    float big = 1e8f, quarter = 0.0f;
    for (int r = 1; r < size; ++r)
      big += 1.0f;
    for (int r = 0; r < size; ++r)
      quarter += 0.25f * r;
    EXPECT_EQ(bitsOf(sum[0]), 0x80000000u);
    EXPECT_EQ(bitsOf(sum[1]), bitsOf(big));
    EXPECT_EQ(bitsOf(sum[2]), bitsOf(quarter));
    EXPECT_TRUE(std::isnan(sum[3]));
    EXPECT_EQ(bitsOf(max[1]), bitsOf(1e8f));
    EXPECT_EQ(bitsOf(max[2]), bitsOf(0.25f * (size - 1)));
    EXPECT_TRUE(std::isnan(max[3]));
    // In place.
    EXPECT_EQ(mxfp8rtAllReduce(comm, x.data(), x.data(), 4, MXFP8RT_DATA_F32,
                               MXFP8RT_REDUCE_SUM, nullptr),
              MXFP8RT_SUCCESS);
    EXPECT_EQ(bitsOf(x[2]), bitsOf(quarter));
  });
}

// bf16: 1.0 on rank 0 and 2^-8 on the others, summed in f32 and rounded
// once: 1 + 2^-8 is a tie (even: 1.0 = 0x3F80); 1 + 3 * 2^-8 rounds to
// 1 + 2^-6 (0x3F82), where rounding after every add would stay at 1.0.
TEST_P(Collectives, AllReduceBf16RoundsOnce) {
  int size = GetParam();
  mxfp8rt::test::runInProcessRanks(size, [&](int rank, mxfp8rtComm comm) {
    std::vector<uint16_t> x = {uint16_t(rank == 0 ? 0x3F80 : 0x3B80),
                               uint16_t(0xC000 - rank)};
    std::vector<uint16_t> sum(2), max(2);
    EXPECT_EQ(mxfp8rtAllReduce(comm, x.data(), sum.data(), 2, MXFP8RT_DATA_BF16,
                               MXFP8RT_REDUCE_SUM, nullptr),
              MXFP8RT_SUCCESS);
    EXPECT_EQ(mxfp8rtAllReduce(comm, x.data(), max.data(), 2, MXFP8RT_DATA_BF16,
                               MXFP8RT_REDUCE_MAX, nullptr),
              MXFP8RT_SUCCESS);
    EXPECT_EQ(sum[0], size == 2 ? 0x3F80 : 0x3F82);
    EXPECT_EQ(max[0], 0x3F80);
    // -2.0 and the next smaller magnitudes: the max is the last rank's ...
    EXPECT_EQ(max[1], 0xC000 - (size - 1));
    // ... and the sum of -2, -1.9921875, ... rounded once.
    float expected = 0;
    for (int r = 0; r < size; ++r)
      expected += floatOf(uint32_t(0xC000 - r) << 16);
    uint32_t bits = bitsOf(expected);
    bits += 0x7FFF + ((bits >> 16) & 1);
    EXPECT_EQ(sum[1], bits >> 16);
  });
}

// Integer offsets: i32 sums wrap, i64 max.
TEST_P(Collectives, AllReduceIntegers) {
  int size = GetParam();
  mxfp8rt::test::runInProcessRanks(size, [&](int rank, mxfp8rtComm comm) {
    std::vector<int32_t> x = {INT32_MAX, rank, -7 * rank};
    std::vector<int32_t> sum(3);
    EXPECT_EQ(mxfp8rtAllReduce(comm, x.data(), sum.data(), 3, MXFP8RT_DATA_I32,
                               MXFP8RT_REDUCE_SUM, nullptr),
              MXFP8RT_SUCCESS);
    EXPECT_EQ(uint32_t(sum[0]), uint32_t(INT32_MAX) * uint32_t(size));
    EXPECT_EQ(sum[1], size * (size - 1) / 2);
    EXPECT_EQ(sum[2], -7 * size * (size - 1) / 2);
    std::vector<int64_t> y = {int64_t(rank) << 40, -int64_t(rank)};
    std::vector<int64_t> max(2);
    EXPECT_EQ(mxfp8rtAllReduce(comm, y.data(), max.data(), 2, MXFP8RT_DATA_I64,
                               MXFP8RT_REDUCE_MAX, nullptr),
              MXFP8RT_SUCCESS);
    EXPECT_EQ(max[0], int64_t(size - 1) << 40);
    EXPECT_EQ(max[1], 0);
  });
}

// Rank r keeps part r of the sum: recv[i] = sum_p send_p[r * 3 + i].
TEST_P(Collectives, ReduceScatterF32AndBf16) {
  int size = GetParam();
  mxfp8rt::test::runInProcessRanks(size, [&](int rank, mxfp8rtComm comm) {
    std::vector<float> x(3 * size);
    for (int i = 0; i < 3 * size; ++i)
      x[i] = float(i) + 0.125f * rank;
    std::vector<float> part(3);
    EXPECT_EQ(mxfp8rtReduceScatter(comm, x.data(), part.data(), 3,
                                   MXFP8RT_DATA_F32, MXFP8RT_REDUCE_SUM,
                                   nullptr),
              MXFP8RT_SUCCESS);
    for (int i = 0; i < 3; ++i) {
      float expected = 0;
      for (int p = 0; p < size; ++p)
        expected += float(rank * 3 + i) + 0.125f * p;
      EXPECT_EQ(bitsOf(part[i]), bitsOf(expected)) << i;
    }
    std::vector<uint16_t> h(size, uint16_t(0x3F80 + rank)); // 1 + rank ulp
    uint16_t mine = 0;
    EXPECT_EQ(mxfp8rtReduceScatter(comm, h.data(), &mine, 1, MXFP8RT_DATA_BF16,
                                   MXFP8RT_REDUCE_MAX, nullptr),
              MXFP8RT_SUCCESS);
    EXPECT_EQ(mine, 0x3F80 + size - 1);
    EXPECT_EQ(mxfp8rtReduceScatter(comm, nullptr, nullptr, 0, MXFP8RT_DATA_F32,
                                   MXFP8RT_REDUCE_SUM, nullptr),
              MXFP8RT_SUCCESS);
  });
}

// recv[p * 2 + i] on rank r = send_p[r * 2 + i]: byte (q, p, i) codes.
TEST_P(Collectives, AllToAllBytes) {
  int size = GetParam();
  mxfp8rt::test::runInProcessRanks(size, [&](int rank, mxfp8rtComm comm) {
    std::vector<uint8_t> send(2 * size), recv(2 * size, 0xAA);
    for (int p = 0; p < size; ++p)
      for (int i = 0; i < 2; ++i)
        send[p * 2 + i] = uint8_t(rank << 5 | p << 1 | i);
    EXPECT_EQ(mxfp8rtAllToAll(comm, send.data(), recv.data(), 2,
                              MXFP8RT_DATA_BYTE, nullptr),
              MXFP8RT_SUCCESS);
    for (int q = 0; q < size; ++q)
      for (int i = 0; i < 2; ++i)
        EXPECT_EQ(recv[q * 2 + i], uint8_t(q << 5 | rank << 1 | i));
  });
}

/// Elements rank q sends rank p in the uneven test: 0 for some pairs.
int64_t unevenCount(int q, int p) { return (q + 2 * p) % 3; }

// Token dispatch: rank q sends unevenCount(q, p) i32 elements to rank p
// (empty parts included), received at prefix offsets with one untouched
// element between parts; and an e8m0 scale byte per token.
TEST_P(Collectives, AllToAllvUnevenWithEmptyParts) {
  int size = GetParam();
  mxfp8rt::test::runInProcessRanks(size, [&](int rank, mxfp8rtComm comm) {
    std::vector<intptr_t> sendCounts(size), sendOffsets(size), recvCounts(size),
        recvOffsets(size);
    intptr_t sendTotal = 0, recvEnd = 0;
    for (int p = 0; p < size; ++p) {
      sendCounts[p] = unevenCount(rank, p);
      sendOffsets[p] = sendTotal;
      sendTotal += sendCounts[p];
      recvCounts[p] = unevenCount(p, rank);
      recvOffsets[p] = recvEnd;
      recvEnd += recvCounts[p] + 1;
    }
    std::vector<int32_t> send(sendTotal);
    std::vector<uint8_t> sendScales(sendTotal);
    for (int p = 0; p < size; ++p)
      for (intptr_t i = 0; i < sendCounts[p]; ++i) {
        send[sendOffsets[p] + i] = 1000 * rank + 10 * p + int32_t(i);
        sendScales[sendOffsets[p] + i] = uint8_t(120 + 4 * rank + p);
      }
    std::vector<int32_t> recv(recvEnd, -1);
    std::vector<uint8_t> recvScales(recvEnd, 0xFF);
    EXPECT_EQ(mxfp8rtAllToAllv(comm, send.data(), sendCounts.data(),
                               sendOffsets.data(), recv.data(),
                               recvCounts.data(), recvOffsets.data(),
                               MXFP8RT_DATA_I32, nullptr),
              MXFP8RT_SUCCESS)
        << mxfp8rtGetLastError();
    EXPECT_EQ(mxfp8rtAllToAllv(comm, sendScales.data(), sendCounts.data(),
                               sendOffsets.data(), recvScales.data(),
                               recvCounts.data(), recvOffsets.data(),
                               MXFP8RT_DATA_BYTE, nullptr),
              MXFP8RT_SUCCESS);
    for (int q = 0; q < size; ++q) {
      for (intptr_t i = 0; i < recvCounts[q]; ++i) {
        EXPECT_EQ(recv[recvOffsets[q] + i], 1000 * q + 10 * rank + i);
        EXPECT_EQ(recvScales[recvOffsets[q] + i], 120 + 4 * q + rank);
      }
      EXPECT_EQ(recv[recvOffsets[q] + recvCounts[q]], -1) << "gap after " << q;
      EXPECT_EQ(recvScales[recvOffsets[q] + recvCounts[q]], 0xFF);
    }
  });
}

INSTANTIATE_TEST_SUITE_P(Ranks, Collectives, ::testing::Values(2, 4),
                         [](const auto &info) {
                           return std::to_string(info.param) + "Ranks";
                         });

// Calls that do not match across ranks fail on every rank, with the same
// message, and the group stays usable.
TEST(CollectivesErrors, MismatchedCallsFailOnEveryRank) {
  mxfp8rt::test::runInProcessRanks(2, [&](int rank, mxfp8rtComm comm) {
    std::vector<float> x(4, 1.0f), y(8);
    EXPECT_EQ(mxfp8rtAllGather(comm, x.data(), y.data(), rank == 0 ? 4 : 3,
                               MXFP8RT_DATA_F32, nullptr),
              MXFP8RT_INVALID_ARGUMENT);
    EXPECT_STREQ(mxfp8rtGetLastError(), "in-process all-gather: rank 0 and "
                                        "rank 1 passed different counts (4, "
                                        "3)");
    mxfp8rtStatus status =
        rank == 0
            ? mxfp8rtAllGather(comm, x.data(), y.data(), 4, MXFP8RT_DATA_F32,
                               nullptr)
            : mxfp8rtAllReduce(comm, x.data(), y.data(), 4, MXFP8RT_DATA_F32,
                               MXFP8RT_REDUCE_SUM, nullptr);
    EXPECT_EQ(status, MXFP8RT_INVALID_ARGUMENT);
    EXPECT_EQ(std::string(mxfp8rtGetLastError()),
              std::string("in-process ") +
                  (rank == 0 ? "all-gather" : "all-reduce") +
                  ": rank 0 and rank 1 called different collectives "
                  "(all-gather, all-reduce)");
    intptr_t counts[2] = {1, 1}, offsets[2] = {0, 1};
    intptr_t wrongCounts[2] = {1, 2}, wrongOffsets[2] = {0, 1};
    int32_t send[2] = {1, 2}, recv[3] = {};
    EXPECT_EQ(mxfp8rtAllToAllv(comm, send, counts, offsets, recv,
                               rank == 1 ? wrongCounts : counts,
                               rank == 1 ? wrongOffsets : offsets,
                               MXFP8RT_DATA_I32, nullptr),
              MXFP8RT_INVALID_ARGUMENT);
    EXPECT_STREQ(mxfp8rtGetLastError(),
                 "in-process all-to-allv: rank 1 sends 1 elements to rank 1, "
                 "which expects 2");
    // Still usable.
    EXPECT_EQ(mxfp8rtAllReduce(comm, x.data(), y.data(), 4, MXFP8RT_DATA_F32,
                               MXFP8RT_REDUCE_SUM, nullptr),
              MXFP8RT_SUCCESS);
    EXPECT_EQ(y[0], 2.0f);
  });
}

TEST(CollectivesErrors, BadArguments) {
  mxfp8rtInProcessGroup group = nullptr;
  EXPECT_EQ(mxfp8rtInProcessGroupCreate(0, &group), MXFP8RT_INVALID_ARGUMENT);
  EXPECT_STREQ(mxfp8rtGetLastError(),
               "mxfp8rtInProcessGroupCreate: size 0 is not positive");
  ASSERT_EQ(mxfp8rtInProcessGroupCreate(1, &group), MXFP8RT_SUCCESS);
  mxfp8rtComm comm = nullptr, second = nullptr;
  EXPECT_EQ(mxfp8rtCommInitInProcess(group, 1, &comm),
            MXFP8RT_INVALID_ARGUMENT);
  EXPECT_STREQ(mxfp8rtGetLastError(),
               "mxfp8rtCommInitInProcess: rank 1 is not in [0, 1)");
  ASSERT_EQ(mxfp8rtCommInitInProcess(group, 0, &comm), MXFP8RT_SUCCESS);
  EXPECT_EQ(mxfp8rtCommInitInProcess(group, 0, &second),
            MXFP8RT_INVALID_ARGUMENT);
  EXPECT_STREQ(mxfp8rtGetLastError(), "mxfp8rtCommInitInProcess: rank 0 "
                                      "already has a communicator in this "
                                      "group");
  uint8_t bytes[4] = {1, 2, 3, 4};
  EXPECT_EQ(mxfp8rtAllReduce(comm, bytes, bytes, 4, MXFP8RT_DATA_BYTE,
                             MXFP8RT_REDUCE_SUM, nullptr),
            MXFP8RT_INVALID_ARGUMENT);
  EXPECT_STREQ(mxfp8rtGetLastError(),
               "mxfp8rtAllReduce: bytes (fp8 data, e8m0 scales) are moved, "
               "not reduced: reduce them in a wider type");
  EXPECT_EQ(
      mxfp8rtAllGather(comm, bytes, bytes, -1, MXFP8RT_DATA_BYTE, nullptr),
      MXFP8RT_INVALID_ARGUMENT);
  EXPECT_STREQ(mxfp8rtGetLastError(), "mxfp8rtAllGather: count -1 is negative");
  EXPECT_EQ(
      mxfp8rtAllGather(comm, nullptr, bytes, 1, MXFP8RT_DATA_BYTE, nullptr),
      MXFP8RT_INVALID_ARGUMENT);
  EXPECT_STREQ(mxfp8rtGetLastError(), "mxfp8rtAllGather: send is null");
  EXPECT_EQ(mxfp8rtAllGather(comm, bytes, bytes, 1,
                             static_cast<mxfp8rtDataType>(9), nullptr),
            MXFP8RT_INVALID_ARGUMENT);
  EXPECT_STREQ(mxfp8rtGetLastError(),
               "mxfp8rtAllGather: unknown element type 9");
  // A single rank: every collective is a copy.
  uint8_t out[4] = {};
  EXPECT_EQ(mxfp8rtAllToAll(comm, bytes, out, 4, MXFP8RT_DATA_BYTE, nullptr),
            MXFP8RT_SUCCESS);
  EXPECT_EQ(std::memcmp(out, bytes, 4), 0);
  EXPECT_EQ(mxfp8rtCommDestroy(comm), MXFP8RT_SUCCESS);
  EXPECT_EQ(mxfp8rtCommDestroy(comm), MXFP8RT_INVALID_ARGUMENT);
  EXPECT_EQ(mxfp8rtAllGather(comm, bytes, out, 1, MXFP8RT_DATA_BYTE, nullptr),
            MXFP8RT_INVALID_ARGUMENT);
  EXPECT_STREQ(mxfp8rtGetLastError(), "mxfp8rtAllGather: unknown communicator");
  EXPECT_EQ(mxfp8rtInProcessGroupDestroy(group), MXFP8RT_SUCCESS);
}

// The ABI of lowered code: the bound communicator is the grid.
TEST(CollectivesShardAbi, BoundCommunicator) {
  EXPECT_EQ(mxfp8rtShardProcessIndex(2), -1);
  EXPECT_STREQ(mxfp8rtGetLastError(),
               "mxfp8rtShardProcessIndex: no communicator is bound to this "
               "thread (mxfp8rtCommBind)");
  mxfp8rt::test::runInProcessRanks(2, [&](int rank, mxfp8rtComm comm) {
    EXPECT_EQ(mxfp8rtCommBind(comm, nullptr), MXFP8RT_SUCCESS);
    EXPECT_EQ(mxfp8rtShardProcessIndex(2), rank);
    EXPECT_EQ(mxfp8rtShardProcessIndex(4), -1);
    EXPECT_STREQ(mxfp8rtGetLastError(),
                 "mxfp8rtShardProcessIndex: the program was partitioned for 4 "
                 "processes, the bound communicator has 2 ranks");
    float x[2] = {1.0f + rank, 2.0f}, y[2] = {};
    EXPECT_EQ(mxfp8rtShardAllReduce(reinterpret_cast<intptr_t>(x),
                                    reinterpret_cast<intptr_t>(y), 2,
                                    MXFP8RT_DATA_F32, MXFP8RT_REDUCE_SUM, 2),
              MXFP8RT_SUCCESS);
    EXPECT_EQ(y[0], 3.0f);
    EXPECT_EQ(y[1], 4.0f);
    float all[4] = {};
    EXPECT_EQ(mxfp8rtShardAllGather(reinterpret_cast<intptr_t>(x),
                                    reinterpret_cast<intptr_t>(all), 2,
                                    MXFP8RT_DATA_F32, 2),
              MXFP8RT_SUCCESS);
    EXPECT_EQ(all[2], 2.0f);
    float part = 0;
    EXPECT_EQ(mxfp8rtShardReduceScatter(reinterpret_cast<intptr_t>(x),
                                        reinterpret_cast<intptr_t>(&part), 1,
                                        MXFP8RT_DATA_F32, MXFP8RT_REDUCE_MAX,
                                        2),
              MXFP8RT_SUCCESS);
    EXPECT_EQ(part, 2.0f); // max(x_0[rank], x_1[rank])
    float swapped[2] = {};
    EXPECT_EQ(mxfp8rtShardAllToAll(reinterpret_cast<intptr_t>(x),
                                   reinterpret_cast<intptr_t>(swapped), 1,
                                   MXFP8RT_DATA_F32, 2),
              MXFP8RT_SUCCESS);
    EXPECT_EQ(swapped[0], rank == 0 ? 1.0f : 2.0f); // x_0[rank]
    EXPECT_EQ(swapped[1], 2.0f);                    // x_1[rank]
    EXPECT_EQ(mxfp8rtCommBind(nullptr, nullptr), MXFP8RT_SUCCESS);
  });
}

// MXFP8RT_NCCL_LIBRARY names the only candidate; a path that does not
// exist gives MXFP8RT_UNAVAILABLE and a message naming it and the fix.
TEST(CollectivesNccl, MissingLibraryIsExplained) {
  const char *saved = std::getenv("MXFP8RT_NCCL_LIBRARY");
  std::string savedValue = saved ? saved : "";
  setenv("MXFP8RT_NCCL_LIBRARY", "/nonexistent/libnccl.so.2", 1);
  EXPECT_EQ(mxfp8rt::nccl::getSearchPath(),
            std::vector<std::string>{"/nonexistent/libnccl.so.2"});
  int version = 0;
  mxfp8rtStatus status = mxfp8rtNcclGetVersion(&version);
  std::string message = mxfp8rtGetLastError();
  mxfp8rtNcclUniqueId id;
  mxfp8rtStatus idStatus = mxfp8rtNcclGetUniqueId(&id);
  if (saved)
    setenv("MXFP8RT_NCCL_LIBRARY", savedValue.c_str(), 1);
  else
    unsetenv("MXFP8RT_NCCL_LIBRARY");
  if (status == MXFP8RT_SUCCESS)
    GTEST_SKIP() << "libnccl was loaded earlier in this process";
  EXPECT_EQ(status, MXFP8RT_UNAVAILABLE);
  EXPECT_EQ(message.rfind("no usable NCCL library (set MXFP8RT_NCCL_LIBRARY "
                          "to libnccl.so.2, or install the nvidia-nccl "
                          "wheel); tried:\n  /nonexistent/libnccl.so.2: ",
                          0),
            0u)
      << message;
  EXPECT_EQ(idStatus, MXFP8RT_UNAVAILABLE);
}

// Without the override the loader's name comes first; every candidate that
// fails is listed, including a library that lacks the NCCL entry points.
TEST(CollectivesNccl, SearchPathAndLoaderMessages) {
  const char *saved = std::getenv("MXFP8RT_NCCL_LIBRARY");
  std::string savedValue = saved ? saved : "";
  unsetenv("MXFP8RT_NCCL_LIBRARY");
  std::vector<std::string> path = mxfp8rt::nccl::getSearchPath();
  if (saved)
    setenv("MXFP8RT_NCCL_LIBRARY", savedValue.c_str(), 1);
  ASSERT_FALSE(path.empty());
  EXPECT_EQ(path[0], "libnccl.so.2");
  for (size_t i = 1; i < path.size(); ++i)
    EXPECT_NE(path[i].find("nvidia/nccl/lib/libnccl.so.2"), std::string::npos)
        << path[i];
  mxfp8rt::nccl::Library library;
  std::string message;
  // Where the loader finds libnccl (the CUDA toolkit here, torch's wheel on
  // the device), the table resolves and the version is NCCL 2.
  if (mxfp8rt::nccl::loadLibrary(path, library, message) == MXFP8RT_SUCCESS) {
    int version = 0;
    EXPECT_EQ(library.ncclGetVersion(&version), 0);
    EXPECT_GE(version, 20000) << library.path;
    EXPECT_LT(version, 30000) << library.path;
  }
  EXPECT_EQ(mxfp8rt::nccl::loadLibrary({"/nonexistent/a.so", "libm.so.6"},
                                       library, message),
            MXFP8RT_UNAVAILABLE);
  EXPECT_NE(message.find("\n  /nonexistent/a.so: "), std::string::npos)
      << message;
  EXPECT_NE(message.find("\n  libm.so.6: lacks ncclGetVersion, "
                         "ncclGetErrorString, ncclGetUniqueId"),
            std::string::npos)
      << message;
}

} // namespace
