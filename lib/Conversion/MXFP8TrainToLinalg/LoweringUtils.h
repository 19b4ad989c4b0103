//===- LoweringUtils.h - shared helpers of the CPU lowering -----*- C++ -*-===//
//
// Internal helpers shared by the files of convert-mxfp8train-to-linalg: the
// exact dequantization generic, the blocked-layout gathers (SPEC §4.1), and
// the token-group loops of the grouped ops (SPEC §4.2, §7), and the scalar
// fp8 / e8m0 bit arithmetic used inside linalg.generic bodies.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOLINALG_LOWERINGUTILS_H
#define MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOLINALG_LOWERINGUTILS_H

#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainAttrs.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace mlir {
namespace mxfp8train {
namespace linalg_lowering {

//===----------------------------------------------------------------------===//
// Element formats
//===----------------------------------------------------------------------===//

/// The parameters of an fp8 element format that the scale and cast formulas
/// need (SPEC §1; e5m2 uses the same scheme with its own constants).
struct ElementFormat {
  /// Stored mantissa bits (3 for e4m3, 2 for e5m2).
  int64_t mantissaBits;
  /// Exponent bias (7 for e4m3, 15 for e5m2).
  int64_t bias;
  /// Magnitude code of the largest finite value (0x7E = 448, 0x7B = 57344).
  int64_t maxCode;
  /// Exponent of the largest power of two <= max (8 for e4m3, 15 for e5m2).
  int64_t emaxPow2;
  /// The largest finite value (448 or 57344).
  float maxValue;
  /// Whether the all-ones exponent encodes Inf/NaN (e5m2) instead of being an
  /// ordinary binade (e4m3fn, where only 0x7F/0xFF are NaN).
  bool ieeeSpecials;
};

/// The format of `type`, which the verifier restricts to f8E4M3FN / f8E5M2.
inline ElementFormat getElementFormat(Type type) {
  if (isa<Float8E5M2Type>(type))
    return {2, 15, 0x7B, 15, 57344.0f, true};
  return {3, 7, 0x7E, 8, 448.0f, false};
}

//===----------------------------------------------------------------------===//
// Scalar arithmetic inside linalg.generic bodies
//===----------------------------------------------------------------------===//

/// Small wrapper that keeps the bit arithmetic of the generic bodies readable.
/// All integer values are i32 unless said otherwise.
class Bits {
public:
  Bits(OpBuilder &builder, Location loc) : b(loc, builder) {}

  Value c(int64_t v) { return arith::ConstantIntOp::create(b, v, 32); }
  Value cf(float v) {
    return arith::ConstantFloatOp::create(b, b.getF32Type(), APFloat(v));
  }
  Value cIdx(int64_t v) { return arith::ConstantIndexOp::create(b, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, x, y); }
  Value divu(Value x, Value y) { return arith::DivUIOp::create(b, x, y); }
  Value remu(Value x, Value y) { return arith::RemUIOp::create(b, x, y); }
  Value band(Value x, Value y) { return arith::AndIOp::create(b, x, y); }
  Value bor(Value x, Value y) { return arith::OrIOp::create(b, x, y); }
  Value shl(Value x, Value y) { return arith::ShLIOp::create(b, x, y); }
  Value shr(Value x, Value y) { return arith::ShRUIOp::create(b, x, y); }
  Value maxs(Value x, Value y) { return arith::MaxSIOp::create(b, x, y); }
  Value mins(Value x, Value y) { return arith::MinSIOp::create(b, x, y); }
  Value minu(Value x, Value y) { return arith::MinUIOp::create(b, x, y); }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, p, x, y);
  }
  Value eq(Value x, Value y) { return cmp(arith::CmpIPredicate::eq, x, y); }
  Value ne(Value x, Value y) { return cmp(arith::CmpIPredicate::ne, x, y); }
  Value ugt(Value x, Value y) { return cmp(arith::CmpIPredicate::ugt, x, y); }
  Value ult(Value x, Value y) { return cmp(arith::CmpIPredicate::ult, x, y); }
  Value land(Value x, Value y) { return arith::AndIOp::create(b, x, y); }
  Value lor(Value x, Value y) { return arith::OrIOp::create(b, x, y); }
  Value select(Value c, Value t, Value f) {
    return arith::SelectOp::create(b, c, t, f);
  }
  /// Zero-extends an i1 to i32.
  Value zext(Value x) { return arith::ExtUIOp::create(b, b.getI32Type(), x); }
  Value bitcast(Type t, Value x) { return arith::BitcastOp::create(b, t, x); }
  Value f32Bits(Value f) { return bitcast(b.getI32Type(), f); }
  Value f32FromBits(Value i) { return bitcast(b.getF32Type(), i); }

  /// The i32 value of an 8-bit float/e8m0 scalar (its bit pattern, 0..255).
  Value byteOf(Value v) {
    Value i8 = bitcast(b.getI8Type(), v);
    return arith::ExtUIOp::create(b, b.getI32Type(), i8);
  }
  /// The 8-bit float scalar of type `t` with the low byte of `code` as bits.
  Value byteAs(Type t, Value code) {
    Value i8 = arith::TruncIOp::create(b, b.getI8Type(), code);
    return bitcast(t, i8);
  }

  /// bf16 or f32 scalar -> f32, exactly (bf16 is the high half of an f32).
  Value toF32(Value v) {
    if (v.getType().isF32())
      return v;
    Value i16 = bitcast(b.getI16Type(), v);
    Value i32 = arith::ExtUIOp::create(b, b.getI32Type(), i16);
    return f32FromBits(shl(i32, c(16)));
  }

  /// f32 -> `t` (bf16 or f32), round to nearest even. NaN stays a quiet NaN
  /// with its sign; subnormals and infinities are kept.
  Value fromF32(Type t, Value f) {
    if (t.isF32())
      return f;
    Value u = f32Bits(f);
    Value isNaN = ugt(band(u, c(0x7FFFFFFF)), c(0x7F800000));
    Value rounded = add(add(u, c(0x7FFF)), band(shr(u, c(16)), c(1)));
    Value hi = select(isNaN, bor(shr(u, c(16)), c(0x40)), shr(rounded, c(16)));
    Value i16 = arith::TruncIOp::create(b, b.getI16Type(), hi);
    return bitcast(t, i16);
  }

  ImplicitLocOpBuilder b;
};

//===----------------------------------------------------------------------===//
// Decoding and the blocked offset (MXFP8TrainToLinalg.cpp)
//===----------------------------------------------------------------------===//

/// fp8 byte `byte` (i32 in [0, 255]) of format `fmt` -> its exact f32 value.
Value decodeElement(Bits &bb, Value byte, const ElementFormat &fmt);

/// 2^(byte - 127) as an f32 (SPEC §3): byte 0 -> 0x00400000 (2^-127, an f32
/// subnormal), byte 255 -> NaN.
Value decodeScale(Bits &bb, Value byte);

/// Position of entry (r, c) of a 2-D scale matrix with `numCols` columns in
/// the blocked layout of SPEC §4.1, as index values.
Value getBlockedOffset(Bits &bb, Value r, Value c, int64_t numCols);

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
/// `perm[i]` of `data`.
Value buildDequantize(OpBuilder &b, Location loc, Value data, Value scales,
                      int64_t axis, ArrayRef<int64_t> perm, Type resultType);

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

} // namespace linalg_lowering
} // namespace mxfp8train
} // namespace mlir

#endif // MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOLINALG_LOWERINGUTILS_H
