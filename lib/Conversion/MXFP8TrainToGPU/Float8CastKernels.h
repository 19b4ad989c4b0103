//===- Float8CastKernels.h - Float8 quantize/dequantize kernels -*- C++ -*-===//
//
// The Float8 (f32-scaled, SPEC-float8 §2) casts of convert-mxfp8train-to-gpu
// (Float8CastKernels.cpp and Float8GroupCastKernels.cpp have the kernel
// designs) and the pieces their kernels share.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_FLOAT8CASTKERNELS_H
#define MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_FLOAT8CASTKERNELS_H

#include "KernelBuilder.h"

namespace mlir {
namespace mxfp8train {
namespace gpu_lowering {

/// Adds the dense Float8 quantize (tensorwise, axiswise along any axis) and
/// dequantize lowerings; with `fuseProducers`, a quantize reads a fusable
/// elementwise producer's operands instead of its result (FusedProducer.h).
void populateFloat8CastKernelPatterns(RewritePatternSet &patterns,
                                      KernelCache &cache, bool fuseProducers);

/// Adds the dense Float8 dequantize lowering (Float8DequantizeKernels.cpp;
/// part of populateFloat8CastKernelPatterns).
void populateFloat8DequantizeKernelPatterns(RewritePatternSet &patterns,
                                            KernelCache &cache);

/// Adds the per-group (`offs`) Float8 quantize and dequantize lowerings
/// (Float8GroupCastKernels.cpp); `fuseProducers` as above.
void populateFloat8GroupCastKernelPatterns(RewritePatternSet &patterns,
                                           KernelCache &cache,
                                           bool fuseProducers);

//===----------------------------------------------------------------------===//
// Pieces shared by the dense and the per-group Float8 kernels
//===----------------------------------------------------------------------===//

/// How a Float8 cast's scaling groups lie in memory.
enum class Float8ViewKind { Tensor, Row, Column };

/// The canonical view of a Float8 cast: `outer x red x inner`, one scale per
/// (outer, inner) reduced along `red`. Tensor: (1, n, 1); Row: (rows, K, 1);
/// Column: everything before, at and after the axis.
struct Float8View {
  Float8ViewKind kind;
  int64_t outer, red, inner;

  static Float8View get(ArrayRef<int64_t> shape, bool tensorwise,
                        int64_t axis) {
    if (tensorwise)
      return {Float8ViewKind::Tensor, 1, llvm::product_of(shape), 1};
    int64_t inner = llvm::product_of(shape.drop_front(axis + 1));
    return {inner == 1 ? Float8ViewKind::Row : Float8ViewKind::Column,
            llvm::product_of(shape.take_front(axis)), shape[axis], inner};
  }

  /// The data view: (n), (rows, K) or (outer, red, inner).
  SmallVector<int64_t> dataShape() const {
    switch (kind) {
    case Float8ViewKind::Tensor:
      return {red};
    case Float8ViewKind::Row:
      return {outer, red};
    case Float8ViewKind::Column:
      return {outer, red, inner};
    }
    llvm_unreachable("unknown view kind");
  }
  /// The scale view: () for Tensor (the rank-0 buffer), (rows) or
  /// (outer, inner).
  SmallVector<int64_t> scaleShape() const {
    if (kind == Float8ViewKind::Row)
      return {outer};
    if (kind == Float8ViewKind::Column)
      return {outer, inner};
    return {};
  }
  /// The contiguous extent that one vector access may not cross.
  int64_t contiguous() const {
    return kind == Float8ViewKind::Column ? inner : red;
  }
  StringRef tag() const {
    switch (kind) {
    case Float8ViewKind::Tensor:
      return "tensor";
    case Float8ViewKind::Row:
      return "row";
    case Float8ViewKind::Column:
      return "col";
    }
    llvm_unreachable("unknown view kind");
  }
};

/// Rows loaded before their first use by the column cast kernels.
constexpr int64_t kRowBatch = 8;
/// The CTA tile of the column amax kernels: 32 strips of `lanes` columns
/// (one per lane) x 8 warps of getAmaxWarpRows rows each.
constexpr int64_t kAmaxTileStrips = 32;
/// Rows per thread of the column amax kernels, all loaded at once: 16, or
/// 8 when a fused elementwise producer is read (its operands' loads and
/// its body took 190 registers at 16: one CTA per SM).
inline int64_t getAmaxWarpRows(bool fusedInput) { return fusedInput ? 8 : 16; }
inline int64_t getAmaxTileRows(bool fusedInput) {
  return getAmaxWarpRows(fusedInput) * (kThreadsPerCTA / 32);
}
/// Rows per thread of the column cast kernels.
constexpr int64_t kColumnCastRows = 16;

/// Lanes of one 16-byte access of `elemType` that divide `contiguous`.
int64_t getLaneCount(int64_t contiguous, Type elemType);

/// Byte size of an access of `lanes` elements of `type`.
int64_t getAccessBytes(int64_t lanes, Type type);

/// The fp8 lanes (vector<N x f8Type>) of `x` (f32 lanes) times `s` (an f32
/// or f32 lanes): `RN_f32(x * s)`, then the hardware RNE satfinite cast;
/// NaN products become 0x7F (SPEC-float8 §2.5, §2.7).
Value castLanes(KernelBuilder &kb, Value x, Value s, Type f8Type);

/// The exact f32 amax (NaN-propagating `max.NaN`) of the lanes `absLanes`
/// of |x|.
Value reduceAmaxF32(KernelBuilder &kb, Value absLanes);

/// The NaN-propagating maximum of the f32 `a` over the `width` lanes of
/// each aligned lane group of the warp, in every lane (`shfl.sync.bfly`).
Value warpMax(KernelBuilder &kb, Value a, int64_t width);

/// A thread's place in the column amax tile of strip block `sb` and row
/// block `rb`: the first column `c0` of its strip (lane l's strip, clamped
/// to the last of `strips` strips of `lanes` columns), the tile's first row
/// and the thread's first row (warp w's getAmaxWarpRows rows).
struct AmaxTileThread {
  Value c0, tileRow, r0;
};
AmaxTileThread getAmaxTileThread(KernelBuilder &kb, Value sb, Value rb,
                                 int64_t strips, int64_t lanes,
                                 bool fusedInput);

/// The workgroup memory of reduceColumnAmaxInCTA: 8 warps x 32 lanes x 8
/// f32.
MemRefType getColumnAmaxReduceType(MLIRContext *ctx);

/// The column amax of a CTA tile: thread (warp w, lane l) holds `acc`, the
/// maxima (vector<lanes x f32>, NaN-propagating) of |x| over its rows of
/// the strip at column `c0`; the maxima over the 8 warps go, one column per
/// thread (w < lanes: column c0 + w of lane l's strip), to
/// `atomicMax(column, bits)` (the u32 bits of the f32 amax). Every thread
/// of the CTA must call it; two barriers around the shared buffer `buf`.
void reduceColumnAmaxInCTA(
    KernelBuilder &kb, Value acc, Value buf, Value c0, int64_t lanes,
    function_ref<void(Value column, Value bits)> atomicMax);

/// The f32 scales (vector<lanes x f32>) of the `lanes` amax words (u32 bits
/// of the f32 amax, as the amax kernels' `atomicMax` leaves them) of
/// `words` at `index`: computeFloat8Scale of each (SPEC-float8 §2.3, §2.4).
Value loadScalesFromAmaxWords(KernelBuilder &kb, Value words, ValueRange index,
                              int64_t lanes, Type f8Type, bool pow2);

/// `RN_f32(float(q) / s)` of the fp8 lanes `q` (vector<N x f8 type>) and
/// the f32 lanes `s`: the exact hardware widening and the IEEE division
/// (`div.rn.f32`); the caller rounds it into the result type
/// (finishDequantized).
Value dequantizeToF32(KernelBuilder &kb, Value q, Value s);

} // namespace gpu_lowering
} // namespace mxfp8train
} // namespace mlir

#endif // MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_FLOAT8CASTKERNELS_H
