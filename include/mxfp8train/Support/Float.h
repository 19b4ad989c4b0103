//===- Float.h - host conversions of narrow float formats ----------*- C++ -*-===//
//
// bf16 <-> f32 bit conversions used on the host side (mxfp8-run inputs and
// outputs). The fp8 formats go through llvm::APFloat.
//
//===----------------------------------------------------------------------===//

#ifndef MXFP8TRAIN_SUPPORT_FLOAT_H
#define MXFP8TRAIN_SUPPORT_FLOAT_H

#include <cstdint>
#include <cstring>

namespace mlir::mxfp8train {

/// The bits of an f32.
inline uint32_t getFloatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}

/// The f32 with bits `u`.
inline float getFloatFromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}

/// f32 -> bf16 bit pattern, round to nearest even; NaN stays a quiet NaN with
/// its sign, infinities and subnormals are kept.
inline uint16_t convertFloatToBF16Bits(float f) {
  uint32_t u = getFloatBits(f);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u)
    return uint16_t((u >> 16) | 0x0040u);
  u += 0x7FFFu + ((u >> 16) & 1u);
  return uint16_t(u >> 16);
}

/// bf16 bit pattern -> f32 (exact).
inline float convertBF16BitsToFloat(uint16_t bits) {
  return getFloatFromBits(uint32_t(bits) << 16);
}

} // namespace mlir::mxfp8train

#endif // MXFP8TRAIN_SUPPORT_FLOAT_H
