// RUN: mxfp8-opt %s --convert-mxfp8train-to-linalg | FileCheck %s
// RUN: mxfp8-opt %s --convert-mxfp8train-to-linalg | FileCheck %s --check-prefix=NOCAST

// NOCAST-NOT: arith.extf
// NOCAST-NOT: arith.truncf
// NOCAST-NOT: linalg.transpose
// NOCAST-NOT: mxfp8train.

// The linear forward x @ W^T: each operand's scale shifts (one reduction
// over its elements and scale bytes: per row, how far its largest
// dequantized binade exceeds f32's, else 0), then
// both operands are dequantized exactly into f32 with their rows' scales
// divided by 2^shift, in the canonical (M, K) x (K, N) orientation (the
// transpose of W is folded into its dequantization generic), then an f32
// matmul from zero, then the epilogue: acc * 2^(row shift + column shift),
// the bias add in f32 and one rounding to bf16.
// CHECK-LABEL: func.func @linear_forward(
// CHECK-SAME:    %[[X:.*]]: tensor<64x128xf8E4M3FN>, %[[XS:.*]]: tensor<64x4xf8E8M0FNU>, %[[W:.*]]: tensor<256x128xf8E4M3FN>, %[[WS:.*]]: tensor<256x4xf8E8M0FNU>, %[[BIAS:.*]]: tensor<256xf32>
// CHECK:         %[[XE0:.*]] = tensor.expand_shape %[[X]] {{\[}}[0], [1, 2]] output_shape [64, 4, 32]
// CHECK:         %[[XR:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "reduction"]} ins(%[[XE0]], %[[XS]] : tensor<64x4x32xf8E4M3FN>, tensor<64x4xf8E8M0FNU>) outs(%{{.*}} : tensor<64xi32>)
// CHECK:           arith.constant 381 : i32
// CHECK:           arith.maxsi
// CHECK:         %[[XE:.*]] = tensor.expand_shape %[[X]] {{\[}}[0], [1, 2]] output_shape [64, 4, 32]
// CHECK:         %[[XD:.*]] = linalg.generic {{.*}} ins(%[[XE]], %[[XS]], %[[XR]] : {{.*}}) outs(%{{.*}} : tensor<64x4x32xf32>)
// CHECK:         %[[LHS:.*]] = tensor.collapse_shape %[[XD]] {{\[}}[0], [1, 2]] : tensor<64x4x32xf32> into tensor<64x128xf32>
// CHECK:         %[[WR:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %[[WS]] : tensor<256x4x32xf8E4M3FN>, tensor<256x4xf8E8M0FNU>) outs(%{{.*}} : tensor<256xi32>)
// CHECK:         %[[WE:.*]] = tensor.expand_shape %[[W]] {{\[}}[0], [1, 2]] output_shape [256, 4, 32]
// CHECK:         %[[WD:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[WE]], %[[WS]], %[[WR]] : tensor<256x4x32xf8E4M3FN>, tensor<256x4xf8E8M0FNU>, tensor<256xi32>) outs(%{{.*}} : tensor<4x32x256xf32>)
// CHECK:         %[[RHS:.*]] = tensor.collapse_shape %[[WD]] {{\[}}[0, 1], [2]] : tensor<4x32x256xf32> into tensor<128x256xf32>
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[ACC0:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<64x256xf32>)
// CHECK:         %[[ACC:.*]] = linalg.matmul ins(%[[LHS]], %[[RHS]] : tensor<64x128xf32>, tensor<128x256xf32>) outs(%[[ACC0]] : tensor<64x256xf32>)
// CHECK:         %[[OUT:.*]] = linalg.generic {{.*}} ins(%[[ACC]], %[[XR]], %[[WR]], %[[BIAS]] : tensor<64x256xf32>, tensor<64xi32>, tensor<256xi32>, tensor<256xf32>) outs(%{{.*}} : tensor<64x256xbf16>)
// CHECK:           arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK:           arith.addf %{{.*}}, %{{.*}} : f32
// CHECK:           arith.bitcast %{{.*}} : i16 to bf16
// CHECK:         return %[[OUT]]
func.func @linear_forward(%x: tensor<64x128xf8E4M3FN>, %xs: tensor<64x4xf8E8M0FNU>, %w: tensor<256x128xf8E4M3FN>, %ws: tensor<256x4xf8E8M0FNU>, %bias: tensor<256xf32>) -> tensor<64x256xbf16> {
  %0 = mxfp8train.scaled_mm %x [%xs], %w [%ws] bias(%bias) transpose_rhs : tensor<64x128xf8E4M3FN> [tensor<64x4xf8E8M0FNU>], tensor<256x128xf8E4M3FN> [tensor<256x4xf8E8M0FNU>], tensor<256xf32> -> tensor<64x256xbf16>
  return %0 : tensor<64x256xbf16>
}

// The weight gradient dO^T @ x (transpose_lhs) with an f32 result and no
// bias: the shifts are reduced along the stored K (dimension 0 of both
// scale tensors), and the epilogue only undoes them.
// CHECK-LABEL: func.func @wgrad_f32(
// CHECK:         linalg.generic {{.*}} iterator_types = ["reduction", "reduction", "parallel"]} ins(%{{.*}}, %{{.*}} : tensor<2x32x256xf8E4M3FN>, tensor<2x256xf8E8M0FNU>) outs(%{{.*}} : tensor<256xi32>)
// CHECK:         linalg.generic {{.*}} outs(%{{.*}} : tensor<256x2x32xf32>)
// CHECK:         %[[L:.*]] = tensor.collapse_shape %{{.*}} : tensor<256x2x32xf32> into tensor<256x64xf32>
// CHECK:         linalg.generic {{.*}} iterator_types = ["reduction", "reduction", "parallel"]} ins(%{{.*}}, %{{.*}} : tensor<2x32x128xf8E4M3FN>, tensor<2x128xf8E8M0FNU>) outs(%{{.*}} : tensor<128xi32>)
// CHECK:         linalg.generic {{.*}} outs(%{{.*}} : tensor<2x32x128xf32>)
// CHECK:         %[[R:.*]] = tensor.collapse_shape %{{.*}} : tensor<2x32x128xf32> into tensor<64x128xf32>
// CHECK:         %[[MM:.*]] = linalg.matmul ins(%[[L]], %[[R]] : tensor<256x64xf32>, tensor<64x128xf32>) outs(%{{.*}} : tensor<256x128xf32>)
// CHECK:         %[[OUT:.*]] = linalg.generic {{.*}} ins(%[[MM]], %{{.*}}, %{{.*}} : tensor<256x128xf32>, tensor<256xi32>, tensor<128xi32>) outs(%{{.*}} : tensor<256x128xf32>)
// CHECK-NOT:       arith.addf
// CHECK:         return %[[OUT]]
func.func @wgrad_f32(%go: tensor<64x256xf8E4M3FN>, %gos: tensor<2x256xf8E8M0FNU>, %xc: tensor<64x128xf8E4M3FN>, %xcs: tensor<2x128xf8E8M0FNU>) -> tensor<256x128xf32> {
  %1 = mxfp8train.scaled_mm %go [%gos], %xc [%xcs] transpose_lhs : tensor<64x256xf8E4M3FN> [tensor<2x256xf8E8M0FNU>], tensor<64x128xf8E4M3FN> [tensor<2x128xf8E8M0FNU>] -> tensor<256x128xf32>
  return %1 : tensor<256x128xf32>
}

// Batched operands use linalg.batch_matmul.
// CHECK-LABEL: func.func @batched(
// CHECK:         linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<4x64x128xf32>, tensor<4x128x32xf32>) outs(%{{.*}} : tensor<4x64x32xf32>)
func.func @batched(%a: tensor<4x64x128xf8E4M3FN>, %as: tensor<4x64x4xf8E8M0FNU>, %b: tensor<4x128x32xf8E4M3FN>, %bs: tensor<4x4x32xf8E8M0FNU>) -> tensor<4x64x32xf32> {
  %0 = mxfp8train.scaled_mm %a [%as], %b [%bs] : tensor<4x64x128xf8E4M3FN> [tensor<4x64x4xf8E8M0FNU>], tensor<4x128x32xf8E4M3FN> [tensor<4x4x32xf8E8M0FNU>] -> tensor<4x64x32xf32>
  return %0 : tensor<4x64x32xf32>
}

// Blocked scales of both operands are un-swizzled before the dequantization;
// a bf16 bias is widened with integer ops.
// CHECK-LABEL: func.func @blocked_scales(
// CHECK-SAME:    %[[AS:[^:]*]]: tensor<2048xf8E8M0FNU>
// CHECK-SAME:    %[[BS:[^:]*]]: tensor<3072xf8E8M0FNU>
// CHECK:         tensor.extract %[[AS]]
// CHECK:         tensor.extract %[[BS]]
// CHECK:         linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<129x256xf32>, tensor<256x384xf32>)
// CHECK:         arith.bitcast %{{.*}} : bf16 to i16
func.func @blocked_scales(%a: tensor<129x256xf8E4M3FN>, %as: tensor<2048xf8E8M0FNU>, %b: tensor<384x256xf8E4M3FN>, %bs: tensor<3072xf8E8M0FNU>, %bias: tensor<384xbf16>) -> tensor<129x384xf32> {
  %0 = mxfp8train.scaled_mm %a [%as], %b [%bs] bias(%bias) transpose_rhs lhs_layout = blocked rhs_layout = blocked : tensor<129x256xf8E4M3FN> [tensor<2048xf8E8M0FNU>], tensor<384x256xf8E4M3FN> [tensor<3072xf8E8M0FNU>], tensor<384xbf16> -> tensor<129x384xf32>
  return %0 : tensor<129x384xf32>
}
