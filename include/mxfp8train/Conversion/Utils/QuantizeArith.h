//===- QuantizeArith.h - MX quantization arithmetic -------------*- C++ -*-===//
//
// The bit-exact scalar arithmetic of MX quantization (SPEC §2-§4), emitted as
// `arith` ops: the e8m0 scale byte of a block amax for every scale mode, the
// reciprocal scale, the fp32 -> fp8 cast, fp8 / e8m0 decoding and the blocked
// scale-layout offset. Every lowering (the CPU linalg path and the GPU
// kernels) builds its numerics from these functions, so that the backends
// cannot drift apart.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_CONVERSION_UTILS_QUANTIZEARITH_H
#define MXFP8TRAIN_CONVERSION_UTILS_QUANTIZEARITH_H

#include "mxfp8train/Dialect/MXFP8Train/IR/MXFP8TrainAttrs.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

#include <utility>

namespace mlir {
namespace mxfp8train {
namespace lowering {

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
// Scalar arithmetic builder
//===----------------------------------------------------------------------===//

/// Small wrapper that keeps the bit arithmetic readable. All integer values
/// are i32 unless said otherwise; the `cIdx` constants are `index`.
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
// Quantization arithmetic (SPEC §2)
//===----------------------------------------------------------------------===//

/// The e8m0 scale byte (SPEC §2.2-2.5) of the fp32 block amax `amax`
/// (>= +0.0 or NaN) for element format `fmt`. Returns an i32 in [0, 255].
Value computeScaleByte(Bits &bb, Value amax, ScaleMode mode,
                       const ElementFormat &fmt);

/// 2^(127 - byte) as an f32 (SPEC §2.1.1) for byte in [0, 254]: bits
/// `(254 - byte) << 23`, or the subnormal 2^-127 = 0x00400000 for byte 254.
/// Byte 255 gives a meaningless value; callers select NaN for it.
Value computeReciprocal(Bits &bb, Value byte);

/// fp32 `y` -> fp8 byte of format `fmt` (returned as i32 in [0, 255]):
/// round to nearest even, saturate finite and infinite overflow to ±max
/// (SATFINITE), keep subnormals and the sign of zero, NaN -> 0x7F.
Value encodeElement(Bits &bb, Value y, const ElementFormat &fmt);

//===----------------------------------------------------------------------===//
// Decoding (SPEC §3) and the blocked layout (SPEC §4.1)
//===----------------------------------------------------------------------===//

/// fp8 byte `byte` (i32 in [0, 255]) of format `fmt` -> its exact f32 value.
Value decodeElement(Bits &bb, Value byte, const ElementFormat &fmt);

/// 2^(byte - 127) as an f32 (SPEC §3): byte 0 -> 0x00400000 (2^-127, an f32
/// subnormal), byte 255 -> NaN.
Value decodeScale(Bits &bb, Value byte);

/// Position of entry (r, c) of a 2-D scale matrix with `numCols` columns in
/// the blocked layout of SPEC §4.1, as index values.
Value getBlockedOffset(Bits &bb, Value r, Value c, int64_t numCols);

/// The same for a matrix of `colTiles` 4-column tiles (ceil(numCols / 4)),
/// an index value that may be known at run time only.
Value getBlockedOffset(Bits &bb, Value r, Value c, Value colTiles);

/// The inverse of getBlockedOffset: the (row, column) of the padded scale
/// matrix of `colTiles` 4-column tiles whose entry byte `off` of the blocked
/// layout holds, as index values. Layout kernels that walk the blocked bytes
/// in order (every byte written once, padding included) use it to find
/// their source entry.
std::pair<Value, Value> getBlockedPosition(Bits &bb, Value off, Value colTiles);

} // namespace lowering
} // namespace mxfp8train
} // namespace mlir

#endif // MXFP8TRAIN_CONVERSION_UTILS_QUANTIZEARITH_H
