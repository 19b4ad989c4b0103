//===- QuantizeKernels.h - pieces of the MX quantize kernels ----*- C++ -*-===//
//
// What the MX quantize kernels share between QuantizeKernels.cpp (the
// patterns, the 1x32 kernel, the pieces below) and ColumnCastKernels.cpp
// (the column-tile walk of the 32x1 and quantize_dual kernels).
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_QUANTIZEKERNELS_H
#define MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_QUANTIZEKERNELS_H

#include "BlockView.h"
#include "KernelBuilder.h"

namespace mlir {
namespace mxfp8train {
namespace gpu_lowering {
class KernelInput;
class BF16OperandWriter;

namespace mx_cast {

/// Everything a quantize kernel is specialised on.
struct QuantizeSpec {
  BlockView view;
  Type inType, f8Type;
  ScaleMode mode;
  ScaleLayout layout;
};

//===----------------------------------------------------------------------===//
// Kernel-body pieces (QuantizeKernels.cpp)
//===----------------------------------------------------------------------===//

/// The kernel-name tag of a scale mode.
StringRef getModeTag(ScaleMode mode);
/// The scalar amax of a vector in the input type as f32 (exact).
Value amaxF32(KernelBuilder &kb, Value absMax);
/// fp8 bytes of `x * rcp` (f32 lanes), all 0x7F in a NaN block
/// (`isNaNBlock`: an i1, or the per-lane word mask of a column tile).
Value quantizeLanes(KernelBuilder &kb, Value x, Value rcp, Value isNaNBlock,
                    Type f8Type);
/// Byte 0x00 at every padding position of the blocked layout of a
/// `numRows x numCols` scale matrix.
void emitBlockedPadding(KernelBuilder &kb, Value scales, int64_t numRows,
                        int64_t numCols);
/// Stores the i32 scale bytes `bytes` of blocks (r, c + j): one vector
/// store in the row-major view (`rowMajorIndex`), or byte stores at the
/// blocked offsets of `blockedPosition(j)` in a matrix of `blockedCols`.
void storeScaleBytes(
    KernelBuilder &kb, ArrayRef<Value> bytes, Value scales, ScaleLayout layout,
    ArrayRef<Value> rowMajorIndex,
    function_ref<std::pair<Value, Value>(int64_t)> blockedPosition,
    int64_t blockedCols);
/// Runs `store` where `must` holds, always where it is null
/// (BF16OperandWriter::mustStoreFp8).
void storeFp8Where(KernelBuilder &kb, Value must, function_ref<void()> store);

//===----------------------------------------------------------------------===//
// Column-tile kernels (ColumnCastKernels.cpp)
//===----------------------------------------------------------------------===//

/// Columns per thread of a 32x1 quantize tile (4, fewer where `cols`
/// needs it).
int64_t getColsPerThread(int64_t cols);
/// Columns of one lane of the dual kernel (8 bytes of input per row).
int64_t getDualColsPerThread(Type inType);
/// Lanes per 32-row column tile of a 32x1 or dual kernel on `input` that
/// writes (`colForm`) or not the colwise bf16 form, at most `cpt`.
int64_t getColumnSplit(const KernelCache &cache, const KernelInput &input,
                       bool colForm, int64_t cpt);
/// Column tiles of the walk over `v` and the tiles its loop runs (a
/// multiple of a warp's tiles where the lanes shuffle).
std::pair<int64_t, int64_t> getColumnTiles(const BlockView &v, int64_t cpt,
                                           int64_t split, bool shuffles);
/// 32x1: (in, data, scales) with `split` lanes per 32 rows x cpt columns.
void buildQuantize32x1(KernelBuilder &kb, const QuantizeSpec &spec,
                       const KernelInput &input, int64_t split, ValueRange in,
                       Value data, Value scales, const BF16OperandWriter &bf16);
/// quantize_dual: (in, rowData, rowScales, colData, colScales);
/// `rowScaleStage`: workgroup memory of 32 x getStagedRowScaleBlocks bytes
/// through which the rowwise scale bytes go, or null (stored directly).
void buildQuantizeDual(KernelBuilder &kb, const QuantizeSpec &rowSpec,
                       const QuantizeSpec &colSpec, const KernelInput &input,
                       int64_t split, ValueRange in, Value rowData,
                       Value rowScales, Value colData, Value colScales,
                       const BF16OperandWriter &rowBF16,
                       const BF16OperandWriter &colBF16, Value rowScaleStage);
/// Rowwise scale bytes per tile row that a dual kernel's CTA stages in
/// workgroup memory (32 rows of them), or 0 where its rowwise scales are
/// stored directly (row-major scales; a CTA's tiles in one block row).
int64_t getStagedRowScaleBlocks(const QuantizeSpec &rowSpec, const BlockView &v,
                                int64_t cpt, int64_t split);

} // namespace mx_cast
} // namespace gpu_lowering
} // namespace mxfp8train
} // namespace mlir

#endif // MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_QUANTIZEKERNELS_H
