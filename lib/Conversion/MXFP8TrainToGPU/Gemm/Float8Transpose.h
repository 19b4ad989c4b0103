//===- Float8Transpose.h - MN-major fp8 operands made K-major ---*- C++ -*-===//
//
// The pre-pass of the sm_90a Float8 GEMM (WGMMAFloat8.h) for an operand
// stored MN-major, (K, rows) per batch: fp8 wgmma reads K-major shared
// memory only, so a transpose kernel copies the bytes, unchanged, into a
// K-major buffer (rows, kOut) per batch that the GEMM's tensor map reads.
// For a 2d-2d operand the contraction is the token dimension and every
// token group starts at a multiple of 128 of the output K (the GEMM's
// contraction tile, GemmSpec::getKGroupPadding), zero-filled to the end
// of its last tile.
//
// Where the operand comes straight from a Float8 cast, the cast kernel
// writes this buffer itself (Float8TransposeFusion.h: the same tile walk,
// emitFloat8TransposeTiles, over the cast's input instead of its bytes)
// and the GEMM launches no pre-pass for that operand.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_GEMM_FLOAT8TRANSPOSE_H
#define MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_GEMM_FLOAT8TRANSPOSE_H

#include "../KernelBuilder.h"
#include "mxfp8train/Conversion/Utils/GemmTiling.h"

#include <functional>
#include <string>

namespace mlir {
namespace mxfp8train {
namespace gpu_lowering {

/// Side of the square tile a CTA transposes through shared memory (bytes):
/// 128 source rows (K) x 128 bytes (rows of the operand).
inline constexpr int64_t kFloat8TransposeTile = 128;

/// One MN-major fp8 operand transposed by the pre-pass.
struct Float8TransposeSpec {
  /// Batches (dense rank 3), else 1.
  int64_t batches = 1;
  /// The operand's logical rows (M or N: the contiguous dimension of the
  /// stored data) and its stored contraction size K (source rows).
  int64_t rows = 0, k = 0;
  /// 2d-2d: the token groups of `offs` along K (0: K is not grouped).
  int64_t groups = 0;
  /// The fp8 element type (bytes are copied, never converted).
  Type dataType;

  /// The length of an output row: K (dense; the GEMM's tensor map
  /// zero-fills past it), or for 2d-2d the K padded per group to 128, at
  /// most alignTo(K, 128) + 128 x groups.
  int64_t getOutputK() const;
  /// Elements of the output buffer: batches x rows x getOutputK().
  int64_t getBufferElements() const { return batches * rows * getOutputK(); }
  /// CTA tiles: batches x output-K tiles x row tiles.
  int64_t numTiles() const;
  /// The kernel name (`gemm_f8_transpose_e4m3_b1_k512_r384`, `_g4` for
  /// groups).
  std::string getName() const;
};

/// Why an MN-major operand with contraction size `k` cannot be transposed
/// (empty when it can): the 16-byte stores of the K-major rows need K a
/// multiple of 16 (SPEC-float8 §6 requires it of every Float8 GEMM). Any
/// row count works: rows not a multiple of 16 (M of a wgrad, which
/// torch._scaled_mm leaves free) are read in narrower pieces.
std::string whyNotFloat8Transpose(int64_t k);

struct GemmSpec;

/// The transpose pre-pass of operand `l` (MN-major, data of `dataType`) of
/// the Float8 GEMM `spec`: per batch when `batched`, per token group of
/// `offs` for 2d-2d. Shared by the sm_90a and sm_100a Float8 kernels.
Float8TransposeSpec getFloat8TransposeSpec(const GemmSpec &spec,
                                           const gemm::OperandLayout &l,
                                           bool batched, Type dataType);

/// Why the Float8 grouped GEMM 2d-2d of `spec` cannot go through the two
/// transposes (token groups padded to 128) that both the sm_90a and the
/// sm_100a Float8 kernels read (empty when it can): both operands must be
/// stored tokens first, and each must satisfy whyNotFloat8Transpose.
std::string whyNotFloat8GroupedTranspose(const GemmSpec &spec);

/// Where the tile walk of emitFloat8TransposeTiles gets its source bytes.
/// The walk writes one or more K-major outputs of the same form from each
/// source chunk (sibling casts of one producer write theirs together).
struct Float8TileSource {
  /// Called by every thread at the start of each tile it writes (uniform
  /// across the CTA; may hold a barrier): the batch, the first operand row
  /// of the tile, and for 2d-2d the tile's token group (index; else null).
  std::function<void(Value batch, Value rowBase, Value group)> beginTile;
  /// What the chunk of source row `srcK` (of `batch`) at operand rows
  /// [col, col + 16) loads when `in` (i1) is true (else anything, without
  /// touching memory past the operand): the walk issues the loads of
  /// `loadBatch` of a thread's four chunks before it converts the first of
  /// them.
  std::function<SmallVector<Value>(Value batch, Value srcK, Value col,
                                   Value in)>
      load;
  /// Each output's 16 fp8 bytes (vector<16 x i8>) of the chunk from what
  /// `load` returned (`chunk`, 0..7, is its 16-byte chunk of the tile's
  /// 128 rows); zero bytes when `in` is false (past the rows, past K, past
  /// the tile's token group). Null: `load` returns those bytes.
  std::function<SmallVector<Value>(ValueRange raw, Value batch, Value srcK,
                                   Value col, Value chunk, Value in)>
      convert;
  /// Chunks whose loads a thread issues before it converts the first of
  /// them (a divisor of its 4 chunks a tile).
  int64_t loadBatch = 4;
};

/// Inside a kernel of 256 threads: the grid-stride walk over the 128 x 128
/// byte tiles of `d` (Float8Transpose.cpp has the scheme) that writes the
/// K-major buffers `outs` (flat fp8, one per output of `source`) from the
/// chunks of `source`, through `tileBufs` (kFloat8TransposeTile^2 bytes of
/// shared memory per output); `offs` (i32, 2d-2d only) places the token
/// groups. Shared by the transpose pre-pass and the Float8 casts that write
/// the K-major copy themselves.
void emitFloat8TransposeTiles(KernelBuilder &kb, const Float8TransposeSpec &d,
                              Value offs, ValueRange outs, ValueRange tileBufs,
                              const Float8TileSource &source);

/// Launches the transpose of `d` from `data` (the stored operand, flat fp8)
/// into `out` (flat fp8, getBufferElements()), reading the group ends from
/// `offs` (i32, 2d-2d only, else null).
void launchFloat8Transpose(RewriterBase &rewriter, Location loc,
                           const KernelCache &cache,
                           const Float8TransposeSpec &d, Value data, Value offs,
                           Value out);

} // namespace gpu_lowering
} // namespace mxfp8train
} // namespace mlir

#endif // MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_GEMM_FLOAT8TRANSPOSE_H
