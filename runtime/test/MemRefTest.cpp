//===- MemRefTest.cpp - memref descriptors of the mgpu* ABI --- -*- C++ -*-===//
//
// Dense extents for host registration and cuTensorMapEncodeTiled arguments
// computed from ranked memref descriptors.
//
//===----------------------------------------------------------------------===//

#include "MemRef.h"

#include "gtest/gtest.h"

#include <cstdint>
#include <initializer_list>

using namespace mxfp8rt;

namespace {
/// A ranked memref descriptor as MLIR lays it out.
template <int Rank> struct Descriptor {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t sizes[Rank];
  int64_t strides[Rank];
};

/// Expects `actual[i] == expected[i]` for every listed entry (the entries
/// past them are not looked at).
template <typename T, size_t N>
void expectEntries(const T (&actual)[N],
                   std::initializer_list<uint64_t> expected, const char *what) {
  ASSERT_LE(expected.size(), N) << what;
  size_t i = 0;
  for (uint64_t want : expected) {
    EXPECT_EQ(actual[i], want) << what << "[" << i << "]";
    ++i;
  }
}
} // namespace

TEST(MemRef, DenseExtent) {
  float data[64];
  Descriptor<3> memref = {data, data, 4, {2, 3, 5}, {15, 5, 1}};
  void *start = nullptr;
  size_t bytes = 0;
  std::string message;
  ASSERT_EQ(getDenseMemRefExtent(3, &memref, 4, start, bytes, message),
            MXFP8RT_SUCCESS)
      << message;
  EXPECT_EQ(start, static_cast<void *>(data + 4));
  EXPECT_EQ(bytes, 2u * 3 * 5 * 4);

  // Size-1 dimensions may carry any stride.
  Descriptor<2> column = {data, data, 0, {1, 8}, {99, 1}};
  ASSERT_EQ(getDenseMemRefExtent(2, &column, 2, start, bytes, message),
            MXFP8RT_SUCCESS);
  EXPECT_EQ(bytes, 16u);

  Descriptor<2> strided = {data, data, 0, {4, 4}, {8, 1}};
  EXPECT_EQ(getDenseMemRefExtent(2, &strided, 4, start, bytes, message),
            MXFP8RT_INVALID_ARGUMENT);
  EXPECT_EQ(message,
            "memref is not dense: stride 8 of dimension 0, expected 4");
  EXPECT_EQ(getDenseMemRefExtent(2, &strided, 0, start, bytes, message),
            MXFP8RT_INVALID_ARGUMENT);
}

TEST(MemRef, TiledTensorMapArgumentsAreInnermostFirst) {
  alignas(16) static uint16_t storage[8 + 128 * 64];
  Descriptor<2> memref = {storage, storage, 8, {128, 64}, {64, 1}};
  int64_t box[2] = {64, 32};
  TiledTensorMapArgs args;
  std::string message;
  ASSERT_EQ(
      computeTiledTensorMapArgs(2, &memref, /*FLOAT16=*/6, box, args, message),
      MXFP8RT_SUCCESS)
      << message;
  EXPECT_EQ(args.rank, 2u);
  EXPECT_EQ(args.globalAddress, static_cast<void *>(storage + 8));
  expectEntries(args.globalDim, {64, 128}, "globalDim");
  expectEntries(args.globalStrides, {128}, "globalStrides");
  expectEntries(args.boxDim, {32, 64}, "boxDim");
  expectEntries(args.elementStrides, {1, 1}, "elementStrides");
  EXPECT_EQ(args.globalDim[2], 1u) << "unused dimensions are 1";
}

TEST(MemRef, TiledTensorMapRank3WithPaddedRows) {
  alignas(16) static float storage[4 * 16 * 40];
  // memref<4x16x32xf32, strided<[640, 40, 1]>>: rows padded to 40 floats.
  Descriptor<3> memref = {storage, storage, 0, {4, 16, 32}, {640, 40, 1}};
  int64_t box[3] = {1, 8, 32};
  TiledTensorMapArgs args;
  std::string message;
  ASSERT_EQ(
      computeTiledTensorMapArgs(3, &memref, /*FLOAT32=*/7, box, args, message),
      MXFP8RT_SUCCESS)
      << message;
  expectEntries(args.globalDim, {32, 16, 4}, "globalDim");
  expectEntries(args.globalStrides, {160, 2560}, "globalStrides");
  expectEntries(args.boxDim, {32, 8, 1}, "boxDim");
}

TEST(MemRef, TiledTensorMapRejections) {
  float storage[64];
  Descriptor<2> memref = {storage, storage, 0, {8, 8}, {8, 1}};
  int64_t box[2] = {8, 8};
  TiledTensorMapArgs args;
  std::string message;
  EXPECT_EQ(computeTiledTensorMapArgs(6, &memref, 7, box, args, message),
            MXFP8RT_INVALID_ARGUMENT);
  EXPECT_EQ(message, "TMA descriptors need rank 1 to 5, got 6");
  EXPECT_EQ(computeTiledTensorMapArgs(2, &memref, 13, box, args, message),
            MXFP8RT_INVALID_ARGUMENT);
  EXPECT_EQ(message, "unsupported CUtensorMapDataType 13");
  int64_t bigBox[2] = {8, 300};
  EXPECT_EQ(computeTiledTensorMapArgs(2, &memref, 7, bigBox, args, message),
            MXFP8RT_INVALID_ARGUMENT);
  EXPECT_EQ(message, "TMA box size 300 of dimension 1 is outside [1, 256]");
  Descriptor<2> transposed = {storage, storage, 0, {8, 8}, {1, 8}};
  EXPECT_EQ(computeTiledTensorMapArgs(2, &transposed, 7, box, args, message),
            MXFP8RT_INVALID_ARGUMENT);
  EXPECT_EQ(message, "the innermost memref stride must be 1 for TMA, got 8");
  EXPECT_EQ(getTensorMapElementSize(0), 1);  // UINT8
  EXPECT_EQ(getTensorMapElementSize(9), 2);  // BFLOAT16
  EXPECT_EQ(getTensorMapElementSize(12), 4); // TFLOAT32_FTZ
  EXPECT_EQ(getTensorMapElementSize(-1), 0);
}
