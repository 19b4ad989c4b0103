// Exact products next to scale bytes of zero or small data (found by a
// new-user trial of the scale shifts, docs/numerics.md "`scaled_mm`"): a
// row shifts only when one of its elements alone exceeds f32, so a block of
// scale byte 253-254 holding zeros changes nothing. Each case has K-block 0
// of zeros under a high scale byte and a K-block 1 whose exact sum the
// result must be; shifting by the scale bytes alone lost them.
//
// RUN: mxfp8-run %s --device=cpu --entry=e4m3_small_result | FileCheck %s --check-prefix=SMALL
// SMALL: 0  r  -  1x1xf32  1.65304e-37  1.65304e-37  -
// RUN: mxfp8-run %s --device=cpu --entry=e5m2_low_block | FileCheck %s --check-prefix=LOW
// LOW: 0  r  -  1x1xf32  0.4375  0.4375  -
// RUN: mxfp8-run %s --device=cpu --entry=e5m2_inf | FileCheck %s --check-prefix=INF
// INF: 0  r  -  1x1xf32  inf  inf  -

// e4m3: 32 x (1.875 * 2^-127) * (1.875 * 2^-2) = 1.6530389e-37 (f32, exact); a shift of 8 made 1.6456921e-37.
func.func @e4m3_small_result(%a: tensor<1x64xf8E4M3FN> {mxfp8run.values = dense<"0x00000000000000000000000000000000000000000000000000000000000000003F3F3F3F3F3F3F3F3F3F3F3F3F3F3F3F3F3F3F3F3F3F3F3F3F3F3F3F3F3F3F3F"> : tensor<1x64xf8E4M3FN>},
    %as: tensor<1x2xf8E8M0FNU> {mxfp8run.values = dense<"0xFE00"> : tensor<1x2xf8E8M0FNU>},
    %b: tensor<64x1xf8E4M3FN> {mxfp8run.values = dense<"0x00000000000000000000000000000000000000000000000000000000000000003F3F3F3F3F3F3F3F3F3F3F3F3F3F3F3F3F3F3F3F3F3F3F3F3F3F3F3F3F3F3F3F"> : tensor<64x1xf8E4M3FN>},
    %bs: tensor<2x1xf8E8M0FNU> {mxfp8run.values = dense<"0xFE7D"> : tensor<2x1xf8E8M0FNU>})
    -> (tensor<1x1xf32> {mxfp8run.name = "r"}) {
  %r = mxfp8train.scaled_mm %a [%as], %b [%bs] : tensor<1x64xf8E4M3FN> [tensor<1x2xf8E8M0FNU>], tensor<64x1xf8E4M3FN> [tensor<2x1xf8E8M0FNU>] -> tensor<1x1xf32>
  return %r : tensor<1x1xf32>
}

// e5m2: 32 x 2^-16 * 2^-126 * 448 * 2^127 = 0.4375; a shift of 14 flushed the lhs elements to 0.
func.func @e5m2_low_block(%a: tensor<1x64xf8E5M2> {mxfp8run.values = dense<"0x00000000000000000000000000000000000000000000000000000000000000000101010101010101010101010101010101010101010101010101010101010101"> : tensor<1x64xf8E5M2>},
    %as: tensor<1x2xf8E8M0FNU> {mxfp8run.values = dense<"0xFD01"> : tensor<1x2xf8E8M0FNU>},
    %b: tensor<64x1xf8E4M3FN> {mxfp8run.values = dense<"0x00000000000000000000000000000000000000000000000000000000000000007E7E7E7E7E7E7E7E7E7E7E7E7E7E7E7E7E7E7E7E7E7E7E7E7E7E7E7E7E7E7E7E"> : tensor<64x1xf8E4M3FN>},
    %bs: tensor<2x1xf8E8M0FNU> {mxfp8run.values = dense<"0x7FFE"> : tensor<2x1xf8E8M0FNU>})
    -> (tensor<1x1xf32> {mxfp8run.name = "r"}) {
  %r = mxfp8train.scaled_mm %a [%as], %b [%bs] : tensor<1x64xf8E5M2> [tensor<1x2xf8E8M0FNU>], tensor<64x1xf8E4M3FN> [tensor<2x1xf8E8M0FNU>] -> tensor<1x1xf32>
  return %r : tensor<1x1xf32>
}

// e5m2: 2^-16 * 2^-127 times +Inf is +Inf; a shift of 15 made the lhs element 0 and the product NaN.
func.func @e5m2_inf(%a: tensor<1x64xf8E5M2> {mxfp8run.values = dense<"0x00000000000000000000000000000000000000000000000000000000000000000100000000000000000000000000000000000000000000000000000000000000"> : tensor<1x64xf8E5M2>},
    %as: tensor<1x2xf8E8M0FNU> {mxfp8run.values = dense<"0xFE00"> : tensor<1x2xf8E8M0FNU>},
    %b: tensor<64x1xf8E5M2> {mxfp8run.values = dense<"0x00000000000000000000000000000000000000000000000000000000000000007C00000000000000000000000000000000000000000000000000000000000000"> : tensor<64x1xf8E5M2>},
    %bs: tensor<2x1xf8E8M0FNU> {mxfp8run.values = dense<"0x7F7F"> : tensor<2x1xf8E8M0FNU>})
    -> (tensor<1x1xf32> {mxfp8run.name = "r"}) {
  %r = mxfp8train.scaled_mm %a [%as], %b [%bs] : tensor<1x64xf8E5M2> [tensor<1x2xf8E8M0FNU>], tensor<64x1xf8E5M2> [tensor<2x1xf8E8M0FNU>] -> tensor<1x1xf32>
  return %r : tensor<1x1xf32>
}
