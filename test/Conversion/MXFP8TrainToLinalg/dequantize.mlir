// RUN: mxfp8-opt %s --convert-mxfp8train-to-linalg | FileCheck %s
// RUN: mxfp8-opt %s --convert-mxfp8train-to-linalg | FileCheck %s --check-prefix=NOCAST

// fp8 bytes are decoded with integer ops; no extf from f8 (it does not lower
// on the CPU) and no truncf to bf16 (rounded with integer ops).
// NOCAST-NOT: arith.extf
// NOCAST-NOT: arith.truncf
// NOCAST-NOT: mxfp8train.

// CHECK-DAG: #[[$ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$BLK3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>

// CHECK-LABEL: func.func @dequantize_rowwise_bf16(
// CHECK-SAME:    %[[Q:.*]]: tensor<64x128xf8E4M3FN>, %[[S:.*]]: tensor<64x4xf8E8M0FNU>
// CHECK:         %[[EXP:.*]] = tensor.expand_shape %[[Q]] {{\[}}[0], [1, 2]] output_shape [64, 4, 32]
// CHECK:         %[[R:.*]] = linalg.generic {indexing_maps = [#[[$ID3]], #[[$BLK3]], #[[$ID3]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME:      ins(%[[EXP]], %[[S]] : tensor<64x4x32xf8E4M3FN>, tensor<64x4xf8E8M0FNU>) outs(%{{.*}} : tensor<64x4x32xbf16>)
// CHECK:           arith.bitcast %{{.*}} : f8E4M3FN to i8
// CHECK:           %[[X:.*]] = arith.bitcast %{{.*}} : i32 to f32
// CHECK:           arith.bitcast %{{.*}} : f8E8M0FNU to i8
// CHECK:           %[[SC:.*]] = arith.bitcast %{{.*}} : i32 to f32
// CHECK:           arith.mulf %[[X]], %[[SC]] : f32
// CHECK:           %[[B:.*]] = arith.bitcast %{{.*}} : i16 to bf16
// CHECK:           linalg.yield %[[B]] : bf16
// CHECK:         tensor.collapse_shape %[[R]] {{\[}}[0], [1, 2]] : tensor<64x4x32xbf16> into tensor<64x128xbf16>
func.func @dequantize_rowwise_bf16(%q: tensor<64x128xf8E4M3FN>, %s: tensor<64x4xf8E8M0FNU>) -> tensor<64x128xbf16> {
  %x = mxfp8train.dequantize %q [%s] axis = 1 : tensor<64x128xf8E4M3FN> [tensor<64x4xf8E8M0FNU>] -> tensor<64x128xbf16>
  return %x : tensor<64x128xbf16>
}

// f32 result: the exact product is yielded as is.
// CHECK-LABEL: func.func @dequantize_colwise_e5m2_f32(
// CHECK:         linalg.generic {{.*}} outs(%{{.*}} : tensor<2x32x8xf32>)
// CHECK:           arith.bitcast %{{.*}} : f8E5M2 to i8
// CHECK:           %[[X:.*]] = arith.bitcast %{{.*}} : i32 to f32
// CHECK:           %[[SC:.*]] = arith.bitcast %{{.*}} : i32 to f32
// CHECK:           %[[P:.*]] = arith.mulf %[[X]], %[[SC]] : f32
// CHECK-NEXT:      linalg.yield %[[P]] : f32
func.func @dequantize_colwise_e5m2_f32(%q: tensor<64x8xf8E5M2>, %s: tensor<2x8xf8E8M0FNU>) -> tensor<64x8xf32> {
  %x = mxfp8train.dequantize %q [%s] axis = 0 : tensor<64x8xf8E5M2> [tensor<2x8xf8E8M0FNU>] -> tensor<64x8xf32>
  return %x : tensor<64x8xf32>
}

// Blocked scales are first gathered back into the row-major (64, 4) matrix.
// CHECK-LABEL: func.func @dequantize_blocked(
// CHECK-SAME:    %[[Q:.*]]: tensor<64x128xf8E4M3FN>, %[[S:.*]]: tensor<512xf8E8M0FNU>
// CHECK:         %[[RM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} outs(%{{.*}} : tensor<64x4xf8E8M0FNU>)
// CHECK:           linalg.index 0
// CHECK:           linalg.index 1
// CHECK:           %[[E:.*]] = tensor.extract %[[S]][%{{.*}}] : tensor<512xf8E8M0FNU>
// CHECK:           linalg.yield %[[E]]
// CHECK:         linalg.generic {{.*}} ins(%{{.*}}, %[[RM]] : tensor<64x4x32xf8E4M3FN>, tensor<64x4xf8E8M0FNU>)
func.func @dequantize_blocked(%q: tensor<64x128xf8E4M3FN>, %s: tensor<512xf8E8M0FNU>) -> tensor<64x128xf32> {
  %x = mxfp8train.dequantize %q [%s] axis = 1 layout = blocked : tensor<64x128xf8E4M3FN> [tensor<512xf8E8M0FNU>] -> tensor<64x128xf32>
  return %x : tensor<64x128xf32>
}
