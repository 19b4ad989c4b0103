//===- LoweringUtils.h - shared helpers of the CPU lowering -----*- C++ -*-===//
//
// Internal helpers shared by the files of convert-mxfp8train-to-linalg: the
// exact dequantization generic, the blocked-layout gathers (SPEC §4.1), and
// the token-group loops of the grouped ops (SPEC §4.2, §7). The scalar fp8 /
// e8m0 bit arithmetic comes from Conversion/Utils/QuantizeArith.h.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOLINALG_LOWERINGUTILS_H
#define MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOLINALG_LOWERINGUTILS_H

#include "mxfp8train/Conversion/Utils/QuantizeArith.h"
#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainAttrs.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace mlir {
namespace mxfp8train {
namespace linalg_lowering {

//===----------------------------------------------------------------------===//
// Scalar arithmetic (shared with the GPU lowering)
//===----------------------------------------------------------------------===//

// The fp8 / e8m0 bit arithmetic of the generic bodies lives in
// Conversion/Utils/QuantizeArith.h, which the GPU kernels use too.
using lowering::Bits;
using lowering::computeReciprocal;
using lowering::computeScaleByte;
using lowering::decodeElement;
using lowering::decodeScale;
using lowering::ElementFormat;
using lowering::encodeElement;
using lowering::getBlockedOffset;
using lowering::getElementFormat;

//===----------------------------------------------------------------------===//
// Tensor-level helpers (MXFP8TrainToLinalg.cpp)
//===----------------------------------------------------------------------===//

/// True when every operand and result of `op` has a static shape.
bool hasStaticShapes(Operation *op);

/// Writes the row-major scale tensor `rowMajor` of rank-2 data blocked along
/// `axis` in the blocked layout of SPEC §4.1 (padding bytes 0x00).
Value buildBlockedScales(OpBuilder &b, Location loc, Value rowMajor,
                         int64_t axis);

/// Reads blocked scales `blocked` (SPEC §4.1) of rank-2 data of shape
/// `dataShape` blocked along `axis` back into the row-major scale tensor.
Value buildRowMajorScales(OpBuilder &b, Location loc, Value blocked,
                          ArrayRef<int64_t> dataShape, int64_t axis);

/// Dequantizes `data` (blocked along `axis`) with row-major `scales` into a
/// tensor of element type `resultType` whose dimension i is dimension
/// `perm[i]` of `data`. With `shifts` (buildScaleShifts of `scales`), the
/// element of row r is `q * 2^(byte - 127 - shifts[r])`, still exact in f32.
Value buildDequantize(OpBuilder &b, Location loc, Value data, Value scales,
                      int64_t axis, ArrayRef<int64_t> perm, Type resultType,
                      Value shifts = nullptr);

/// The scale shifts of an MX GEMM operand (SPEC §3.1, docs/numerics.md
/// "`scaled_mm`"): for `data` blocked along `axis` with row-major
/// `scales`, an i32 tensor of the data's shape without `axis` holding, per
/// row (all other indices), the smallest s >= 0 with which every element of
/// the row dequantizes to a finite f32 `q * 2^(byte - 127 - s)`: the excess
/// of the row's largest dequantized binade over f32's (zero elements, NaN /
/// Inf codes and NaN scales do not count; 0 for all ordinary data). A GEMM
/// multiplies the shifted operands and undoes both shifts on the f32 sum
/// (undoScaleShifts), so products that are finite stay finite even where an
/// operand element alone exceeds f32 (e.g. byte 247 with |q| >= 256, which
/// RCEIL gives a bf16 block holding bf16 max).
Value buildScaleShifts(OpBuilder &b, Location loc, Value data, Value scales,
                       int64_t axis);

/// An f32 GEMM operand and, for a dequantized MX operand, the i32 scale
/// shifts of its rows (buildScaleShifts; null for other operands).
struct F32Operand {
  Value values, shifts;
};

/// An MX GEMM operand as the GEMMs read it: `data` blocked along `axis`
/// with row-major `scales`, dequantized exactly to f32 in the orientation
/// `perm` (buildDequantize) with its rows' scale shifts (buildScaleShifts),
/// which the GEMM undoes on its sums (undoScaleShifts).
F32Operand buildShiftedDequantize(OpBuilder &b, Location loc, Value data,
                                  Value scales, int64_t axis,
                                  ArrayRef<int64_t> perm);

/// `acc * 2^(lhsShift + rhsShift)` (f32 times an exact power of two; i32
/// shifts from buildScaleShifts).
Value undoScaleShifts(Bits &bb, Value acc, Value lhsShift, Value rhsShift);

//===----------------------------------------------------------------------===//
// Token groups (LayoutToLinalg.cpp)
//===----------------------------------------------------------------------===//

/// The body of one iteration of a token-group loop: `g` is the group index,
/// `[start, end)` its (clamped) token range, `args` the loop-carried values;
/// returns their next values.
using GroupBodyFn =
    function_ref<SmallVector<Value>(OpBuilder &b, Location loc, Value g,
                                    Value start, Value end, ValueRange args)>;

/// Emits `scf.for g in [0, G)` over the groups of the i32 1-D `offs` (G
/// static), carrying `inits`, and returns the final carried values. Group g
/// covers `[start, end)` with `end = min(max(offs[g], start), total)` and
/// `start` the previous end (0 for g = 0): offsets are clamped into
/// [0, total] and made non-decreasing, so every access derived from them
/// stays in bounds whatever `offs` holds.
SmallVector<Value> buildGroupLoop(OpBuilder &b, Location loc, Value offs,
                                  int64_t total, ValueRange inits,
                                  GroupBodyFn body);

/// The clamped cumulative group ends of `offs` (as buildGroupLoop clamps
/// them): `end[g] = min(max(offs[g], end[g-1]), total)` with `end[-1] = 0`,
/// an i32 tensor of the shape of `offs` (GroupedToLinalg.cpp).
Value buildClampedEnds(OpBuilder &b, Location loc, Value offs, int64_t total);

/// `ceil(v / m) * m` for index `v` and a positive constant `m`.
Value roundUpIndex(OpBuilder &b, Location loc, Value v, int64_t m);

/// Reads scales in the `blocked_m_groups` layout (SPEC §4.2 a) of a
/// `(rows, cols)` row-major scale matrix with token groups `offs` along the
/// rows back into that matrix (row-major; rows past the last group: 0x00).
Value buildRowMajorFromMGroups(OpBuilder &b, Location loc, Value blocked,
                               Value offs, int64_t rows, int64_t cols);

/// Reads scales in the `blocked_k_groups` layout (SPEC §4.2 b) back into the
/// row-major scale matrix `S (rows, cols)` whose columns are 32-token blocks
/// grouped by `offs / 32` (columns past the last group: 0x00). With
/// `transposed`, the result is `Sᵀ (cols, rows)` instead (the stored
/// orientation of scales of data stored token-major).
Value buildRowMajorFromKGroups(OpBuilder &b, Location loc, Value blocked,
                               Value offs, int64_t rows, int64_t cols,
                               bool transposed);

//===----------------------------------------------------------------------===//
// Pattern registration
//===----------------------------------------------------------------------===//

/// to_blocked, pad_token_groups and unpad_token_groups (LayoutToLinalg.cpp).
void populateLayoutToLinalgPatterns(RewritePatternSet &patterns);

/// grouped_mm and scaled_grouped_mm (GroupedToLinalg.cpp).
void populateGroupedToLinalgPatterns(RewritePatternSet &patterns);

/// The exact f32 values of fp8 `data`, with its last two dimensions swapped
/// when `transposed` (Float8ToLinalg.cpp).
Value buildFloat8ToF32(OpBuilder &b, Location loc, Value data, bool transposed);

/// `lhs x rhs` accumulated in f32 from zero into a tensor of `resultShape`:
/// linalg.matmul for rank 2, linalg.batch_matmul for rank 3 (both operands
/// f32, already in (B?, M, K) x (B?, K, N) order; MXFP8TrainToLinalg.cpp).
Value buildF32Matmul(OpBuilder &b, Location loc, Value lhs, Value rhs,
                     ArrayRef<int64_t> resultShape);

/// The Float8 forms of quantize, dequantize and scaled_mm
/// (Float8ToLinalg.cpp).
void populateFloat8ToLinalgPatterns(RewritePatternSet &patterns);

/// quantize_dual as its two quantizes (QuantizeDualToLinalg.cpp).
void populateQuantizeDualToLinalgPatterns(RewritePatternSet &patterns);

} // namespace linalg_lowering
} // namespace mxfp8train
} // namespace mlir

#endif // MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOLINALG_LOWERINGUTILS_H
