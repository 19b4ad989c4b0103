//===- GemmTilingTest.cpp - golden values of GemmTiling.h -------*- C++ -*-===//
//
// The pure tiling arithmetic of the GEMM kernels against values worked out
// by hand from the PTX ISA (wgmma matrix descriptor, 128-byte swizzle),
// SPEC §4.1 (blocked scale offsets) and the grouped-M raster definition.
//
//===----------------------------------------------------------------------===//

#include "mxfp8train/Conversion/Utils/GemmTiling.h"

#include "gtest/gtest.h"

#include <set>

using namespace mlir::mxfp8train::gemm;

TEST(GemmTiling, WgmmaDescriptorFields) {
  // 1024-byte aligned K-major tile, LBO 16 B (unused with swizzling), SBO
  // 1024 B (8 rows of 128 B), 128-byte swizzle (mode 1 in bits 62-63).
  EXPECT_EQ(getWgmmaDescriptor(0x400, 16, 1024, Swizzle::B128),
            0x4000004000010040ull);
  // Address bits above 18 and below 4 are dropped (14-bit field of addr>>4).
  EXPECT_EQ(getWgmmaDescriptor(0x3FFFF, 0, 0, Swizzle::None), 0x3FFFull);
  EXPECT_EQ(getWgmmaDescriptor(0, 0, 0, Swizzle::B32), 3ull << 62);
  EXPECT_EQ(getWgmmaDescriptor(0, 0, 0, Swizzle::B64), 2ull << 62);
  // A k16 step of bf16 (32 bytes) adds 2 to the address field.
  EXPECT_EQ(getWgmmaDescriptor(0x420, 16, 1024, Swizzle::B128) -
                getWgmmaDescriptor(0x400, 16, 1024, Swizzle::B128),
            2ull);
  EXPECT_EQ(getWgmmaDescriptorBits(16, 1024, Swizzle::B128),
            0x4000004000010000ull);
}

TEST(GemmTiling, Swizzle128) {
  EXPECT_EQ(getSwizzle128Offset(0, 0), 0);
  EXPECT_EQ(getSwizzle128Offset(0, 17), 17);
  // Row 1: chunk 0 -> 1, chunk 1 -> 0.
  EXPECT_EQ(getSwizzle128Offset(1, 0), 144);
  EXPECT_EQ(getSwizzle128Offset(1, 16), 128);
  EXPECT_EQ(getSwizzle128Offset(7, 127), 7 * 128 + 15);
  EXPECT_EQ(getSwizzle128Offset(5, 32), 5 * 128 + (2 ^ 5) * 16);
  // The pattern repeats every 8 rows (1024 bytes).
  EXPECT_EQ(getSwizzle128Offset(9, 0), 1024 + 144);
  // A bijection of each 8-row atom onto its 1024 bytes.
  std::set<int64_t> seen;
  for (int64_t r = 0; r < 8; ++r)
    for (int64_t b = 0; b < 128; ++b)
      seen.insert(getSwizzle128Offset(r, b));
  EXPECT_EQ(seen.size(), 1024u);
  EXPECT_EQ(*seen.rbegin(), 1023);
}

TEST(GemmTiling, GroupedTileOrder) {
  using P = std::pair<int64_t, int64_t>;
  // 10 x 3 tiles, bands of 4 rows: the band is swept column by column.
  EXPECT_EQ(getGroupedTile(0, 10, 3, 4), P(0, 0));
  EXPECT_EQ(getGroupedTile(1, 10, 3, 4), P(1, 0));
  EXPECT_EQ(getGroupedTile(4, 10, 3, 4), P(0, 1));
  EXPECT_EQ(getGroupedTile(11, 10, 3, 4), P(3, 2));
  EXPECT_EQ(getGroupedTile(12, 10, 3, 4), P(4, 0));
  // The last band has 2 rows.
  EXPECT_EQ(getGroupedTile(24, 10, 3, 4), P(8, 0));
  EXPECT_EQ(getGroupedTile(25, 10, 3, 4), P(9, 0));
  EXPECT_EQ(getGroupedTile(26, 10, 3, 4), P(8, 1));
  EXPECT_EQ(getGroupedTile(29, 10, 3, 4), P(9, 2));
  // Every tile exactly once.
  std::set<P> seen;
  for (int64_t t = 0; t < 30; ++t)
    seen.insert(getGroupedTile(t, 10, 3, 4));
  EXPECT_EQ(seen.size(), 30u);
}

TEST(GemmTiling, BlockedOffsets) {
  // SPEC §4.1: 128x4 tiles of 512 bytes; in a tile (r%32)*16 + (r%128/32)*4
  // + c%4.
  EXPECT_EQ(getBlockedOffset(0, 0, 4), 0);
  EXPECT_EQ(getBlockedOffset(1, 0, 4), 16);
  EXPECT_EQ(getBlockedOffset(32, 0, 4), 4);
  EXPECT_EQ(getBlockedOffset(0, 1, 4), 1);
  EXPECT_EQ(getBlockedOffset(127, 3, 4), 511);
  EXPECT_EQ(getBlockedOffset(0, 4, 8), 512);
  EXPECT_EQ(getBlockedOffset(128, 0, 8), 1024);
  // 3 scale columns pad to one 4-wide tile column.
  EXPECT_EQ(getBlockedOffset(130, 2, 3), 512 + 2 * 16 + 2);
}

TEST(GemmTiling, OperandAddressing) {
  OperandLayout kMajor{/*rows=*/96, /*k=*/256, /*kMajor=*/true,
                       /*blockedScales=*/false};
  EXPECT_EQ(kMajor.getDataOffset(3, 40), 3 * 256 + 40);
  EXPECT_EQ(kMajor.getScaleOffset(3, 1), 3 * 8 + 1);
  EXPECT_EQ(kMajor.getScaleSize(), 96 * 8);
  OperandLayout mnMajor{96, 256, false, false};
  EXPECT_EQ(mnMajor.getDataOffset(3, 40), 40 * 96 + 3);
  EXPECT_EQ(mnMajor.getScaleOffset(3, 1), 96 + 3);
  OperandLayout blocked{200, 96, true, true};
  EXPECT_EQ(blocked.getScaleOffset(130, 2), 512 + 2 * 16 + 2);
  EXPECT_EQ(blocked.getScaleSize(), 256 * 4);
}
