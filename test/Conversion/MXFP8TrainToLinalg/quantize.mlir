// RUN: mxfp8-opt %s --convert-mxfp8train-to-linalg | FileCheck %s
// RUN: mxfp8-opt %s --convert-mxfp8train-to-linalg | FileCheck %s --check-prefix=NOCAST

// The fp8 and bf16 conversions are integer arithmetic: no float cast to or
// from a narrow type survives, and no NaN-dropping max is used.
// NOCAST-NOT: arith.truncf
// NOCAST-NOT: arith.extf
// NOCAST-NOT: arith.maxnumf
// NOCAST-NOT: mxfp8train.

// CHECK-DAG: #[[$ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$BLK3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>

// CHECK-LABEL: func.func @quantize_rowwise_rceil(
// CHECK-SAME:    %[[X:.*]]: tensor<4x64xbf16>
// CHECK:         %[[EXP:.*]] = tensor.expand_shape %[[X]] {{\[}}[0], [1, 2]] output_shape [4, 2, 32] : tensor<4x64xbf16> into tensor<4x2x32xbf16>
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<4x2xf32>)
// The amax: a reduction over the 32 elements of each block, NaN-propagating.
// CHECK:         %[[AMAX:.*]] = linalg.generic {indexing_maps = [#[[$ID3]], #[[$BLK3]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME:      ins(%[[EXP]] : tensor<4x2x32xbf16>) outs(%[[INIT]] : tensor<4x2xf32>)
// CHECK:           arith.bitcast %{{.*}} : bf16 to i16
// CHECK:           %[[ABS:.*]] = math.absf %{{.*}} : f32
// CHECK:           %[[MAX:.*]] = arith.maximumf %[[ABS]], %{{.*}} : f32
// CHECK:           linalg.yield %[[MAX]] : f32
// RCEIL: one fp32 multiply by fl32(1/448), then the byte from the bits.
// CHECK:         %[[SCALES:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%[[AMAX]] : tensor<4x2xf32>) outs(%{{.*}} : tensor<4x2xf8E8M0FNU>)
// CHECK:           arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK:           %[[SB:.*]] = arith.bitcast %{{.*}} : i8 to f8E8M0FNU
// CHECK:           linalg.yield %[[SB]] : f8E8M0FNU
// The data: elementwise over the blocks, the scale broadcast over the block.
// CHECK:         %[[DATA:.*]] = linalg.generic {indexing_maps = [#[[$ID3]], #[[$BLK3]], #[[$ID3]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME:      ins(%[[EXP]], %[[SCALES]] : tensor<4x2x32xbf16>, tensor<4x2xf8E8M0FNU>) outs(%{{.*}} : tensor<4x2x32xf8E4M3FN>)
// CHECK:           arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK:           %[[Q:.*]] = arith.bitcast %{{.*}} : i8 to f8E4M3FN
// CHECK:           linalg.yield %[[Q]] : f8E4M3FN
// CHECK:         %[[OUT:.*]] = tensor.collapse_shape %[[DATA]] {{\[}}[0], [1, 2]] : tensor<4x2x32xf8E4M3FN> into tensor<4x64xf8E4M3FN>
// CHECK:         return %[[OUT]], %[[SCALES]]
func.func @quantize_rowwise_rceil(%x: tensor<4x64xbf16>) -> (tensor<4x64xf8E4M3FN>, tensor<4x2xf8E8M0FNU>) {
  %q, %s = mxfp8train.quantize %x axis = 1 mode = rceil : tensor<4x64xbf16> -> tensor<4x64xf8E4M3FN>, tensor<4x2xf8E8M0FNU>
  return %q, %s : tensor<4x64xf8E4M3FN>, tensor<4x2xf8E8M0FNU>
}

// 32x1 blocks: the reduction is the middle dimension of (K/32, 32, N); FLOOR
// has no float multiply in the scale generic.
// CHECK-LABEL: func.func @quantize_colwise_floor(
// CHECK:         tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2]] output_shape [2, 32, 16] : tensor<64x16xf32> into tensor<2x32x16xf32>
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]} {{.*}} outs(%{{.*}} : tensor<2x16xf32>)
// CHECK:           arith.maximumf
// CHECK:         linalg.generic {{.*}} ins(%{{.*}} : tensor<2x16xf32>) outs(%{{.*}} : tensor<2x16xf8E8M0FNU>)
// CHECK-NOT:       arith.mulf
// CHECK:           linalg.yield
// CHECK:         linalg.generic {{.*}} outs(%{{.*}} : tensor<2x32x16xf8E4M3FN>)
// CHECK:         tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<2x32x16xf8E4M3FN> into tensor<64x16xf8E4M3FN>
func.func @quantize_colwise_floor(%x: tensor<64x16xf32>) -> (tensor<64x16xf8E4M3FN>, tensor<2x16xf8E8M0FNU>) {
  %q, %s = mxfp8train.quantize %x axis = 0 mode = floor : tensor<64x16xf32> -> tensor<64x16xf8E4M3FN>, tensor<2x16xf8E8M0FNU>
  return %q, %s : tensor<64x16xf8E4M3FN>, tensor<2x16xf8E8M0FNU>
}

// Rank 3 along the middle axis, e5m2 elements.
// CHECK-LABEL: func.func @quantize_rank3_e5m2(
// CHECK:         tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2], [3]] output_shape [2, 2, 32, 8] : tensor<2x64x8xbf16> into tensor<2x2x32x8xbf16>
// CHECK:         iterator_types = ["parallel", "parallel", "reduction", "parallel"]
// CHECK:         arith.bitcast %{{.*}} : i8 to f8E5M2
// CHECK:         tensor.collapse_shape %{{.*}} : tensor<2x2x32x8xf8E5M2> into tensor<2x64x8xf8E5M2>
func.func @quantize_rank3_e5m2(%x: tensor<2x64x8xbf16>) -> (tensor<2x64x8xf8E5M2>, tensor<2x2x8xf8E8M0FNU>) {
  %q, %s = mxfp8train.quantize %x axis = 1 mode = even : tensor<2x64x8xbf16> -> tensor<2x64x8xf8E5M2>, tensor<2x2x8xf8E8M0FNU>
  return %q, %s : tensor<2x64x8xf8E5M2>, tensor<2x2x8xf8E8M0FNU>
}

// Blocked scales: the row-major bytes are gathered into the padded tile
// sequence (100 rows -> 128, 3 columns -> 4: 512 bytes), padding byte 0.
// CHECK-LABEL: func.func @quantize_blocked(
// CHECK:         %[[RM:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<100x3xf8E8M0FNU>)
// CHECK:         %[[BL:.*]] = linalg.generic {{.*}} iterator_types = ["parallel"]} outs(%{{.*}} : tensor<512xf8E8M0FNU>)
// CHECK:           %[[OFF:.*]] = linalg.index 0 : index
// CHECK:           arith.divui %[[OFF]]
// CHECK:           %[[V:.*]] = tensor.extract %[[RM]][%{{.*}}, %{{.*}}] : tensor<100x3xf8E8M0FNU>
// CHECK:           arith.select
// CHECK:           linalg.yield %{{.*}} : f8E8M0FNU
// CHECK:         return %{{.*}}, %[[BL]]
func.func @quantize_blocked(%x: tensor<100x96xbf16>) -> (tensor<100x96xf8E4M3FN>, tensor<512xf8E8M0FNU>) {
  %q, %s = mxfp8train.quantize %x axis = 1 mode = rceil layout = blocked : tensor<100x96xbf16> -> tensor<100x96xf8E4M3FN>, tensor<512xf8E8M0FNU>
  return %q, %s : tensor<100x96xf8E4M3FN>, tensor<512xf8E8M0FNU>
}
