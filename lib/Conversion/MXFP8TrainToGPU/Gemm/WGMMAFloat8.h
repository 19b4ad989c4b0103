//===- WGMMAFloat8.h - the sm_90a Float8 (f32-scaled) GEMM -----*- C++ -*-===//
//
// The native fp8 GEMM of a Float8 `scaled_mm` on sm_90a
// (GemmVariant::WgmmaFloat8): the v8 kernel's ring (TMA producer, two wgmma
// warpgroups, WGMMA.cpp) on the fp8 operands as stored, `wgmma` m64nNk32
// with e4m3 / e5m2 inputs and f32 accumulators, and an epilogue that
// applies the reciprocals of the f32 scales (SPEC-float8 §5.4); MN-major
// operands go through the fp8 transpose pre-pass (Float8Transpose.h), and
// the gradient GEMMs promote the accumulators into an f32 sum:
//
//   out = RN_out(RN_f32(RN_f32(acc * RN_f32(1/sa[m])) * RN_f32(1/sb[n]))
//                + bias[n])
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_GEMM_WGMMAFLOAT8_H
#define MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_GEMM_WGMMAFLOAT8_H

#include "Float8Transpose.h"
#include "GemmMainloop.h"

#include <array>
#include <optional>

#include <string>

namespace mlir {
namespace mxfp8train {
namespace gpu_lowering {

/// The scale side of the Float8 kernel's epilogue for one output tile of
/// `batch`: the reciprocals RN_f32(1 / s) of A's row scales and B's column
/// scales (f32 division, round to nearest), or of a tensorwise scalar,
/// read from the kernel's scale arguments (GemmArgs::aScales / bScales).
class Float8EpilogueScales : public GemmIndexArith {
public:
  Float8EpilogueScales(GemmMainloop &mainloop, Value batch);

  /// Computes the rowwise reciprocals of the tile at (rowBase, colBase)
  /// once, into shared memory at byte address `sharedAddr`
  /// (GemmSpec::float8FactorBytes: tile.m row factors, then tile.n column
  /// factors): thread `thread` of the `threads` threads that call it (all
  /// of them, a multiple of 32) computes every threads-th factor, between
  /// two `bar.sync kFactorBarrier, threads` (the first keeps the previous
  /// tile's readers, the second this tile's). Afterwards getRowFactor and
  /// getColumnFactor read the staged factors of rows [rowBase, rowBase +
  /// tile.m) and columns [colBase, colBase + tile.n): one shared load
  /// each, instead of a global load and a division per value.
  void stageFactors(Value sharedAddr, Value thread, int64_t threads,
                    Value rowBase, Value colBase);
  /// The named barrier of stageFactors (barrier 0 is the CTA's).
  static constexpr int32_t kFactorBarrier = 1;
  /// RN_f32(1 / sa[row]) (the row clamped into the batch: rows past the
  /// end are not stored), or A's tensorwise reciprocal.
  Value getRowFactor(Value row);
  /// RN_f32(1 / sb[col]) (clamped likewise), or B's tensorwise one.
  Value getColumnFactor(Value col);
  /// RN_f32(RN_f32(acc * rowFactor) * columnFactor): two f32 multiplies in
  /// this order (SPEC-float8 §5.4).
  Value apply(Value acc, Value rowFactor, Value columnFactor);

private:
  /// RN_f32(1 / scales[index]).
  Value reciprocal(Value scales, Value index);
  /// The factors computed from the scale arguments (no staging).
  Value computeRowFactor(Value row);
  Value computeColumnFactor(Value col);
  /// The staged factor at `index` of the shared f32 array at `base`.
  Value loadStaged(Value base, Value index);

  GemmMainloop &mainloop;
  const GemmSpec &spec;
  const GemmArgs &args;
  Value batch;
  /// The tensorwise reciprocals, computed once (null for rowwise scales).
  Value aScalar, bScalar;
  /// After stageFactors: the tile's origin and the shared byte addresses
  /// of its row and column factors (null before).
  Value rowBase, colBase, rowFactors, columnFactors;
};

/// Configures `spec` (a Float8 `scaled_mm` problem) for the Float8 kernel:
/// the v8 configuration (configureDequantBF16Gemm: 384 threads, 128 x
/// `tileN` tiles, `stages` stages) with 128 fp8 of K per stage (128-byte
/// rows, the 128B swizzle span), and the cluster along M where it was
/// measured no slower: grouped forms with 128 x 256 tiles without
/// promotion (`spec`'s promoteInterval is set before).
void configureWgmmaFloat8Gemm(GemmSpec &spec, int64_t tileN, int64_t stages);

/// Why the sm_90a Float8 kernel does not take the Float8 `op` (empty when
/// it does): K-major operands are read in place, MN-major ones (`lhs`
/// stored (K, M) with `transpose_lhs`, `rhs` stored (K, N) without
/// `transpose_rhs`) go through the fp8 transpose pre-pass, which needs
/// their rows and K multiples of 16.
std::string whyNotWgmmaFloat8(ScaledMmOp op);

/// The same for a Float8 `scaled_grouped_mm`: 2d-3d with lhs (M, K) and rhs
/// (E, N, K) (`transpose_rhs`); 2d-2d with both operands stored tokens
/// first (lhs (T, M) with `transpose_lhs`, rhs (T, N)), both transposed.
std::string whyNotWgmmaFloat8Grouped(ScaledGroupedMmOp op);

/// Why a Float8 `scaled_mm` or `scaled_grouped_mm` (`op`) has no GPU
/// lowering on `chip` (the pass's diagnostic; empty when it should have).
std::string whyNoFloat8GemmLowering(Operation *op, GPUChip chip);

/// An MN-major operand of a Float8 GEMM as the sm_90a kernel reads it: the
/// fp8 transpose pre-pass's K-major buffer and the rows of a box of its
/// tensor map (the tile's M for A, N for B).
struct Float8TransposedForm {
  Float8TransposeSpec d;
  int64_t boxRows = 0;
};

/// The operands (A, B) of the Float8 `scaled_mm` / `scaled_grouped_mm`
/// `op` that the sm_90a kernel reads through the transpose pre-pass
/// (std::nullopt for one read in place); both std::nullopt when that
/// kernel does not take `op` (whyNoFloat8GemmLowering).
std::array<std::optional<Float8TransposedForm>, 2>
getFloat8TransposedForms(Operation *op, const GPUTargetInfo &target);

/// Adds the lowering of Float8 `scaled_mm` and `scaled_grouped_mm` (2d-3d,
/// 2d-2d) to the Float8 kernel on sm_90a.
void populateFloat8GemmPatterns(RewritePatternSet &patterns,
                                KernelCache &cache);

} // namespace gpu_lowering
} // namespace mxfp8train
} // namespace mlir

#endif // MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_GEMM_WGMMAFLOAT8_H
