//===- CastLanes.h - lane helpers shared by the cast kernels ----*- C++ -*-===//
//
// Small vector helpers of the quantize / dequantize kernel bodies that both
// the MX kernels (QuantizeKernels.cpp, DequantizeKernels.cpp) and the
// Float8 kernels (Float8CastKernels.cpp) use: the exact widening of the
// input lanes to f32 and the final rounding of dequantized f32 lanes into
// the result type.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_CASTLANES_H
#define MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_CASTLANES_H

#include "KernelBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

namespace mlir {
namespace mxfp8train {
namespace gpu_lowering {

/// bf16/f32 lanes -> f32 lanes (arith.extf, exact).
inline Value toF32(KernelBuilder &kb, Value v) {
  auto type = cast<VectorType>(v.getType());
  if (type.getElementType().isF32())
    return v;
  return arith::ExtFOp::create(
      kb, VectorType::get(type.getShape(), kb.getF32Type()), v);
}

/// `p` (f32 lanes) rounded into `outType` lanes; NaN lanes become the CPU
/// path's quiet NaN (f32 0x7FC00000, bf16 0x7FC0): the hardware returns a
/// canonical NaN of another bit pattern.
inline Value finishDequantized(KernelBuilder &kb, Value p, Type outType) {
  auto type = cast<VectorType>(p.getType());
  Value isNaN = arith::CmpFOp::create(kb, arith::CmpFPredicate::UNO, p, p);
  auto outVec = VectorType::get(type.getShape(), outType);
  Value rounded = p;
  uint64_t nanBits = 0x7FC00000;
  if (outType.isBF16()) {
    // cvt.rn.bf16x2.f32: round to nearest even, subnormals kept.
    rounded = arith::TruncFOp::create(kb, outVec, p);
    nanBits = 0x7FC0;
  }
  return arith::SelectOp::create(kb, isNaN, kb.splatBits(outVec, nanBits),
                                 rounded);
}

} // namespace gpu_lowering
} // namespace mxfp8train
} // namespace mlir

#endif // MXFP8TRAIN_LIB_CONVERSION_MXFP8TRAINTOGPU_CASTLANES_H
