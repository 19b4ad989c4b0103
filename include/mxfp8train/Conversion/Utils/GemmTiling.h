//===- GemmTiling.h - target-independent GEMM tiling arithmetic -*- C++ -*-===//
//
// The parts of the MX GEMM kernels that do not depend on the tensor-core
// generation: the CTA tile shape, the persistent tile order (grouped-M
// raster), the operand and scale addressing of the stored layouts, the
// 128-byte shared-memory swizzle and the 64-bit shared-memory matrix
// descriptor of wgmma (sm_90a) whose fields tcgen05 (sm_100a) reuses. Every
// function exists as plain integer arithmetic (unit-tested with golden
// values) and, where a kernel needs it at run time, as an IR emitter built
// from the same formula.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_CONVERSION_UTILS_GEMMTILING_H
#define MXFP8TRAIN_CONVERSION_UTILS_GEMMTILING_H

#include "mlir/IR/ImplicitLocOpBuilder.h"

#include <cstdint>
#include <utility>

namespace mlir {
namespace mxfp8train {
namespace gemm {

//===----------------------------------------------------------------------===//
// Tiles and the persistent order
//===----------------------------------------------------------------------===//

/// The CTA tile of a GEMM kernel.
struct TileShape {
  /// Rows of the output tile (M).
  int64_t m = 128;
  /// Columns of the output tile (N).
  int64_t n = 128;
  /// Contraction elements per pipeline stage (a multiple of 32).
  int64_t k = 64;
  /// Output tiles of consecutive M rows that share one column sweep in the
  /// grouped-M raster.
  int64_t groupM = 8;
};

/// (mTile, nTile) of the `t`-th tile of a `tilesM x tilesN` grid in the
/// grouped-M raster: bands of `groupM` tile rows, each swept column by
/// column, `groupM` consecutive tiles sharing one B column tile (the last
/// band may be narrower).
std::pair<int64_t, int64_t> getGroupedTile(int64_t t, int64_t tilesM,
                                           int64_t tilesN, int64_t groupM);

/// The same as IR (`index` values; `tilesM`, `tilesN` and `groupM` are
/// static).
std::pair<Value, Value> emitGroupedTile(ImplicitLocOpBuilder &b, Value t,
                                        int64_t tilesM, int64_t tilesN,
                                        int64_t groupM);

//===----------------------------------------------------------------------===//
// Operand addressing
//===----------------------------------------------------------------------===//

/// How an MX operand of a GEMM is stored: logically `rows x K` (rows = M for
/// the left operand, N for the right one), quantized along K in 32-element
/// blocks.
struct OperandLayout {
  /// Logical rows (M or N).
  int64_t rows = 0;
  /// Contraction size K (a multiple of 32).
  int64_t k = 0;
  /// K is the contiguous dimension of the stored data (`(rows, K)`);
  /// otherwise it is stored `(K, rows)` (MN-major).
  bool kMajor = true;
  /// Scales in the blocked layout of SPEC §4.1 for the `(rows, K/32)` scale
  /// matrix; otherwise row-major in the data's orientation (`(rows, K/32)`
  /// for K-major data, `(K/32, rows)` for MN-major data).
  bool blockedScales = false;

  /// Element offset of logical (row, k) in one batch of the data.
  int64_t getDataOffset(int64_t row, int64_t kk) const;
  /// Byte offset of the scale of logical (row, k / 32) in one batch.
  int64_t getScaleOffset(int64_t row, int64_t kBlock) const;
  /// Elements of one batch of data and of its scales.
  int64_t getDataSize() const { return rows * k; }
  int64_t getScaleSize() const;
};

/// SPEC §4.1 blocked offset of (row, col) in a `(rows, numCols)` scale
/// matrix: 128x4 tiles of 512 bytes, row-major over tiles, each stored as
/// `(r % 32) * 16 + (r % 128 / 32) * 4 + c % 4`.
int64_t getBlockedOffset(int64_t row, int64_t col, int64_t numCols);

//===----------------------------------------------------------------------===//
// Shared memory: swizzle and matrix descriptors
//===----------------------------------------------------------------------===//

/// Shared-memory swizzle modes of the tensor-core descriptors.
enum class Swizzle : uint64_t { None = 0, B128 = 1, B64 = 2, B32 = 3 };

/// Byte offset of byte `byte` (0..127) of row `row` in a K-major tile whose
/// rows are 128 bytes, with the 128-byte swizzle: 16-byte chunk `c` of row
/// `r` is stored at chunk `c ^ (r % 8)`. The tile must be 1024-byte aligned.
int64_t getSwizzle128Offset(int64_t row, int64_t byte);

/// The 64-bit shared-memory matrix descriptor of `wgmma.mma_async` (PTX ISA
/// "Matrix Descriptor Format"): bits 0-13 start address >> 4, 16-29 leading
/// dimension byte offset >> 4, 32-45 stride dimension byte offset >> 4,
/// 49-51 base offset (0: 1024-byte aligned pattern), 62-63 swizzle mode.
uint64_t getWgmmaDescriptor(uint64_t address, uint64_t leadingByteOffset,
                            uint64_t strideByteOffset, Swizzle swizzle);

/// The descriptor without its address field, for a run-time address to be
/// or-ed in: `getWgmmaDescriptor(0, ...)`.
inline uint64_t getWgmmaDescriptorBits(uint64_t leadingByteOffset,
                                       uint64_t strideByteOffset,
                                       Swizzle swizzle) {
  return getWgmmaDescriptor(0, leadingByteOffset, strideByteOffset, swizzle);
}

/// IR: the low word (i32) of the descriptor `bits` (getWgmmaDescriptorBits)
/// with the address field of the shared-window byte address `address`
/// (index, below 256 KiB) or-ed in: ((address >> 4) & 0x3FFF) | bits.
Value emitWgmmaDescriptorLow(ImplicitLocOpBuilder &b, Value address,
                             uint64_t bits);

/// IR: the i64 descriptor of `low` (emitWgmmaDescriptorLow) with `step`
/// added to its address field, which it must not leave (a K step: 32 bytes
/// along a K-major row is 2), and the upper word of `bits`. The address
/// arithmetic stays in 32 bits.
Value emitWgmmaDescriptor(ImplicitLocOpBuilder &b, Value low, int64_t step,
                          uint64_t bits);

} // namespace gemm
} // namespace mxfp8train
} // namespace mlir

#endif // MXFP8TRAIN_CONVERSION_UTILS_GEMMTILING_H
