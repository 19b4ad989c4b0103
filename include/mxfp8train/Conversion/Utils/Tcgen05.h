//===- Tcgen05.h - sm_100a block-scaled MMA encodings -----------*- C++ -*-===//
//
// The bit-level encodings of Blackwell's fifth-generation tensor cores
// (`tcgen05`, sm_100a) that a block-scaled MX GEMM needs: the 32-bit
// instruction descriptor of `tcgen05.mma ... kind::mxf8f6f4.block_scale`
// (PTX ISA "Instruction descriptor", kind::mxf8f6f4), the 64-bit
// shared-memory matrix descriptor ("Shared memory descriptor": version 1 at
// bits 46-48, three swizzle bits at 61-63; not the wgmma one of
// GemmTiling.h), Tensor Memory addresses and the column budget of one CTA,
// and where the scale factors of the blocked layout (SPEC §4.1) land: in
// global and shared memory (512-byte chunks, through the same blocked
// offset function as the quantizer) and in Tensor Memory after
// `tcgen05.cp .32x128b.warpx4`. Every function is plain integer arithmetic
// (golden-tested in test/Conversion/Utils/Tcgen05Test.cpp) and, where a
// kernel has a run-time operand, also an IR emitter built from it.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_CONVERSION_UTILS_TCGEN05_H
#define MXFP8TRAIN_CONVERSION_UTILS_TCGEN05_H

#include "mxfp8train/Conversion/Utils/QuantizeArith.h"

#include "mlir/IR/ImplicitLocOpBuilder.h"

#include <cstdint>
#include <optional>

namespace mlir {
namespace mxfp8train {
namespace tcgen05 {

//===----------------------------------------------------------------------===//
// Instruction descriptor (kind::mxf8f6f4)
//===----------------------------------------------------------------------===//

/// Element formats of `kind::mxf8f6f4` operands: the atype/btype codes of
/// the instruction descriptor.
enum class ElementFormat : uint32_t {
  E4M3 = 0,
  E5M2 = 1,
  E2M3 = 3,
  E3M2 = 4,
  E2M1 = 5
};

/// The scale-factor element type (bit 23, one for both operands).
enum class ScaleFormat : uint32_t { UE4M3 = 0, UE8M0 = 1 };

/// Which dimension of an operand tile is contiguous in shared memory: K
/// (the descriptor's "no transpose") or M/N ("transpose").
enum class Major : uint32_t { K = 0, MN = 1 };

/// The operands and shape of one dense tcgen05 MMA with 8/6/4-bit
/// operands, which the instruction descriptors of kind::mxf8f6f4 and
/// kind::f8f6f4 encode alike (bits 7-22).
struct MmaOperands {
  ElementFormat a = ElementFormat::E4M3;
  ElementFormat b = ElementFormat::E4M3;
  Major aMajor = Major::K;
  Major bMajor = Major::K;
  bool negateA = false;
  bool negateB = false;
  /// Rows of A and D: 128 (cta_group::1) or 256 (cta_group::2).
  int64_t m = 128;
  /// Columns of B and D.
  int64_t n = 256;
};

/// One block-scaled MMA: `D (M x N, f32) += (A * SFA) (M x K) x (B * SFB)
/// (K x N)` with K = 32 for 8-bit operands.
struct BlockScaledMma : MmaOperands {
  ScaleFormat scale = ScaleFormat::UE8M0;
  /// Which byte of each 32-bit Tensor Memory word holds this MMA's scale
  /// factors of A and B (0-3; one UE8M0 scale per 32 K elements).
  uint32_t sfaId = 0;
  uint32_t sfbId = 0;
};

/// Whether `mma`'s M x N is a dense MMA shape of `ctaGroup` CTAs that this
/// project issues (PTX ISA "tcgen05.mma", the valid shapes): one CTA needs
/// M = 128 and N a multiple of 8 in [8, 256], a CTA pair M = 256 and N a
/// multiple of 16 in [16, 256]; an MN-major ("transposed") 8-bit B a
/// multiple of 16 in [16, 256] (one CTA) or of 32 in [32, 256] (a pair).
/// M = 64 is legal too but unused.
bool isValidMmaShape(const MmaOperands &mma, int64_t ctaGroup);

/// Whether `mma` is a dense `kind::mxf8f6f4` MMA this project issues: a
/// valid shape (isValidMmaShape), UE8M0 scale factors (MX), and MN-major
/// operands only for the 8-bit formats (E4M3, E5M2; the 6- and 4-bit ones
/// are K-major only).
bool isValidBlockScaledMma(const BlockScaledMma &mma, int64_t ctaGroup);

/// The 32-bit instruction descriptor of `kind::mxf8f6f4` (PTX ISA
/// "Instruction descriptor", the block-scaled kinds' table):
/// bit 2 sparsity (0), bits 4-5 SFB ID, 7-9 A format, 10-12 B format, 13/14
/// negate A/B, 15/16 A/B MN-major ("transpose"), 17-22 N >> 3, 23 scale
/// type, 27-28 M >> 7, 29-30 SFA ID. `mma` must have a valid shape.
uint32_t getBlockScaledInstrDesc(const BlockScaledMma &mma);

//===----------------------------------------------------------------------===//
// Instruction descriptor (kind::f8f6f4, no block scaling)
//===----------------------------------------------------------------------===//

/// One MMA of `kind::f8f6f4` without scale factors (the Float8 GEMM, whose
/// f32 scales the epilogue applies): `D (M x N, f32) += A (M x K) x B
/// (K x N)` with K = 32 for 8-bit operands.
struct F8F6F4Mma : MmaOperands {};

/// Whether `mma` is a dense `kind::f8f6f4` MMA this project issues: a
/// valid shape (isValidMmaShape), and MN-major operands only for the 8-bit
/// formats (E4M3, E5M2; the 6- and 4-bit ones are K-major only).
bool isValidF8F6F4Mma(const F8F6F4Mma &mma, int64_t ctaGroup);

/// The 32-bit instruction descriptor of `kind::f8f6f4` (the PTX ISA table
/// shared with kind::f16 / tf32 / i8): bits 0-1 sparsity selector, 2
/// sparsity (0), 3 saturate (0), 4-5 D format (1: F32), 7-9 A format,
/// 10-12 B format (ElementFormat codes), 13/14 negate A/B, 15/16 A/B
/// MN-major ("transpose"), 17-22 N >> 3, 24-28 M >> 4, 30-31 max shift
/// (`.ws` only, 0). Unlike getBlockScaledInstrDesc: no scale IDs, no scale
/// type, and M is counted in units of 16. `mma` must be valid.
uint32_t getF8F6F4InstrDesc(const F8F6F4Mma &mma);

/// The element format of the MLIR type `type` (f8E4M3FN, f8E5M2,
/// f6E2M3FN, f6E3M2FN, f4E2M1FN), or std::nullopt.
std::optional<ElementFormat> getElementFormat(Type type);

//===----------------------------------------------------------------------===//
// Shared-memory matrix descriptor
//===----------------------------------------------------------------------===//

/// Swizzle codes of the sm_100 shared-memory descriptor (bits 61-63).
enum class SmemSwizzle : uint64_t {
  None = 0,
  B128Atom32 = 1,
  B128 = 2,
  B64 = 4,
  B32 = 6
};

/// The fields of a shared-memory matrix descriptor, in bytes.
struct SmemDescriptor {
  /// Shared-memory address of the matrix (16-byte aligned).
  uint64_t address = 0;
  /// Leading-dimension byte offset (K-major: unused with swizzling), or
  /// with `leadingAbsolute` the absolute address of the second chunk.
  uint64_t leadingByteOffset = 0;
  /// Stride-dimension byte offset (K-major: from one 8-row group to the
  /// next).
  uint64_t strideByteOffset = 0;
  SmemSwizzle swizzle = SmemSwizzle::None;
  /// Bits 7-9 of the swizzle pattern's start when it is not aligned to the
  /// pattern (0 for 1024-byte aligned 128B-swizzled tiles).
  uint64_t baseOffset = 0;
  bool leadingAbsolute = false;
};

/// The 64-bit descriptor (PTX ISA "Shared memory descriptor"): bits 0-13
/// address, 16-29 LBO, 32-45 SBO (each `(x & 0x3FFFF) >> 4`), 46-48 the fixed
/// 0b001, 49-51 base offset, 52 LBO mode, 61-63 swizzle.
uint64_t getSmemDescriptor(const SmemDescriptor &d);

/// The descriptor of a K-major tile of 128-byte rows (128 fp8 elements of
/// K per row) in the 128-byte swizzle, as TMA writes it: SBO 1024 (8 rows),
/// LBO 16 (field 1: "not used, assumed 1" for swizzled K-major layouts).
/// The tile must be 1024-byte aligned; K step k (32 fp8) of an MMA adds
/// 2 * k to the address field.
uint64_t getKMajorSwizzle128Descriptor(uint64_t address);

/// The descriptor of an MN-major tile of 8-bit elements in the 128-byte
/// swizzle as TMA writes boxes of 128 M/N elements (128 bytes, the swizzle
/// span) x K rows: 1024-byte atoms of 8 K rows x 128 bytes; SBO 1024 (from
/// one group of 8 K rows to the next), LBO `atomColumnBytes` (from one
/// 128-element M/N column of atoms to the next: the K rows x 128 bytes of
/// one box). The tile must be 1024-byte aligned; K step k (32 rows) of an
/// MMA adds 32 * 128 bytes, 256 * k in the address field.
uint64_t getMNMajorSwizzle128Descriptor(uint64_t address,
                                        uint64_t atomColumnBytes);

/// The source descriptor of `tcgen05.cp .32x128b` for one 512-byte scale
/// chunk: 32 rows of 16 bytes, no swizzle, SBO 128 (8 rows), LBO 0 (a
/// single 16-byte column).
uint64_t getScaleChunkDescriptor(uint64_t address);

/// IR: the i64 descriptor `bits` (address field 0) with the address field
/// of the shared-memory byte address `address` (index) or-ed in.
Value emitSmemDescriptor(ImplicitLocOpBuilder &b, Value address, uint64_t bits);

//===----------------------------------------------------------------------===//
// Tensor Memory
//===----------------------------------------------------------------------===//

/// Lanes (rows) and 32-bit columns of one SM's Tensor Memory.
constexpr int64_t kTmemLanes = 128;
constexpr int64_t kTmemColumns = 512;

/// A Tensor Memory address: lane in bits 16-31, column in bits 0-15.
constexpr uint32_t getTmemAddress(uint32_t lane, uint32_t column) {
  return lane << 16 | column;
}

/// IR: `base + getTmemAddress(lane, column)` as i32 (`base` an i32 address
/// from `tcgen05.alloc`; `lane`, `column` static).
Value emitTmemAddress(ImplicitLocOpBuilder &b, Value base, uint32_t lane,
                      uint32_t column);

/// The columns `tcgen05.alloc` must ask for to hold `used` columns: a power
/// of two in [32, 512]; 0 when `used` exceeds 512.
int64_t getTmemAllocColumns(int64_t used);

/// The Tensor Memory of one CTA of a 1-CTA block-scaled GEMM: the f32
/// accumulator(s) (M = 128 rows = lanes, one column per output column),
/// then per scale stage the SFA columns (4 per 128 rows of A) and the SFB
/// columns (4 per 128 columns of B, N rounded up to 128).
struct TmemLayout {
  int64_t n = 256;
  int64_t accStages = 1;
  int64_t sfaColumns = 4;
  int64_t sfbColumns = 8;
  int64_t sfStages = 1;

  int64_t getAccColumn(int64_t stage) const { return stage * n; }
  int64_t getSfaColumn(int64_t stage) const {
    return accStages * n + stage * (sfaColumns + sfbColumns);
  }
  int64_t getSfbColumn(int64_t stage) const {
    return getSfaColumn(stage) + sfaColumns;
  }
  int64_t getUsedColumns() const { return getSfaColumn(sfStages); }
  int64_t getAllocColumns() const {
    return getTmemAllocColumns(getUsedColumns());
  }
};

/// The layout for an M = 128 tile of `n` columns with `accStages`
/// accumulators and `sfStages` scale-factor stages.
TmemLayout getTmemLayout(int64_t n, int64_t accStages, int64_t sfStages);

//===----------------------------------------------------------------------===//
// Scale factors of the blocked layout (SPEC §4.1)
//===----------------------------------------------------------------------===//

/// Bytes of one chunk of the blocked layout: 128 rows x 4 scale columns,
/// the scales of one 128-row x 128-K tile of fp8 data.
constexpr int64_t kScaleChunkBytes = 512;

/// Byte offset of chunk (`rowBlock` = row / 128, `kChunk` = K / 128) in the
/// blocked layout of a (rows, `numKBlocks`) scale matrix (numKBlocks =
/// K / 32): `gemm::getBlockedOffset(128 * rowBlock, 4 * kChunk,
/// numKBlocks)`, the quantizer's formula.
int64_t getScaleChunkOffset(int64_t rowBlock, int64_t kChunk,
                            int64_t numKBlocks);

/// The same as IR (index values; `colTiles` = ceil(numKBlocks / 4)) through
/// QuantizeArith's getBlockedOffset.
Value emitScaleChunkOffset(lowering::Bits &bb, Value rowBlock, Value kChunk,
                           Value colTiles);

/// A byte of Tensor Memory: lane, 32-bit column, byte in the word.
struct TmemByte {
  int64_t lane = 0;
  int64_t column = 0;
  int64_t byte = 0;
  bool operator==(const TmemByte &o) const {
    return lane == o.lane && column == o.column && byte == o.byte;
  }
};

/// Where `tcgen05.cp .32x128b.warpx4` puts byte `offset` (0-511) of its
/// source (32 rows of 16 bytes): row r = offset / 16 goes to lane r (and
/// its replicas r + 32, r + 64, r + 96), byte offset % 16 to column
/// (offset % 16) / 4, byte offset % 4.
TmemByte getCopy32x128bDestination(int64_t offset);

/// Where the scale of row `row` (of a tile of up to 128 * chunks rows) and
/// K block `kBlock` (0-3 within a 128-K stage) lands in Tensor Memory,
/// relative to the first column of its scale columns, when chunk row / 128
/// of the stage is copied to column 4 * (row / 128): through the chunk's
/// blocked offset `gemm::getBlockedOffset(row % 128, kBlock, 4)` and the
/// copy. Lane row % 32 (replicated), column 4 * (row / 128) + (row % 128) /
/// 32, byte `kBlock`: the MMA of K block `kBlock` selects it with SF ID
/// `kBlock`.
TmemByte getScaleTmemByte(int64_t row, int64_t kBlock);

} // namespace tcgen05
} // namespace mxfp8train
} // namespace mlir

#endif // MXFP8TRAIN_CONVERSION_UTILS_TCGEN05_H
