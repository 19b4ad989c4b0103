// RUN: mxfp8-opt %s --convert-mxfp8train-to-linalg -split-input-file | FileCheck %s
// RUN: mxfp8-opt %s --convert-mxfp8train-to-linalg -split-input-file | FileCheck %s --check-prefix=NOCAST

// The Float8 forms (SPEC-float8 §2, §5) lower to linalg with integer
// encoding / decoding (no fp8 extf / truncf) and exactly the IEEE f32 ops
// the spec names: maximumf (NaN-propagating amax), divf max / amax, mulf
// x * s, divf 1 / s.
// NOCAST-NOT: arith.extf
// NOCAST-NOT: arith.truncf

// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROW:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-LABEL: func.func @quantize_axiswise_pow2
// amax per row: a reduction over axis 1 into the (64, 1) scale shape.
// CHECK:      %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:      %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<64x1xf32>)
// CHECK:      %[[AMAX:.*]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]}
// CHECK:        math.absf
// CHECK:        arith.maximumf
// The scale: amax bits <= 0x2B8CBCCC (730643660) take 0x57CBBA10
// (1472969232), else 448 / amax; then the pow2 R table.
// CHECK:      %[[S:.*]] = linalg.generic {{.*}} ins(%[[AMAX]] : tensor<64x1xf32>)
// CHECK:        arith.constant 730643660 : i32
// CHECK:        arith.cmpi ule
// CHECK:        arith.constant 4.480000e+02 : f32
// CHECK:        arith.divf
// CHECK:        arith.constant 1472969232 : i32
// CHECK:        arith.constant 44 : i32
// CHECK:        arith.cmpi uge
// The cast reads the row's scale.
// CHECK:      linalg.generic {indexing_maps = [#[[$ID]], #[[$ROW]], #[[$ID]]], iterator_types = ["parallel", "parallel"]} ins(%{{.*}}, %[[S]] : tensor<64x128xbf16>, tensor<64x1xf32>)
// CHECK:        arith.mulf
// CHECK:        linalg.yield %{{.*}} : f8E4M3FN
func.func @quantize_axiswise_pow2(%x: tensor<64x128xbf16>) -> (tensor<64x128xf8E4M3FN>, tensor<64x1xf32>) {
  %q, %s = mxfp8train.quantize %x axis = 1 granularity = axiswise pow2 : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<64x1xf32>
  return %q, %s : tensor<64x128xf8E4M3FN>, tensor<64x1xf32>
}

// -----

// Tensorwise e5m2: one rank-0 amax over every dimension, EPS scale
// 0x5B4BBA10 (1531689488), no pow2 table.
// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ALL:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @quantize_tensorwise_e5m2
// CHECK:      linalg.generic {indexing_maps = [#[[$ID]], #[[$ALL]]], iterator_types = ["reduction", "reduction"]} ins(%{{.*}} : tensor<32x64xf32>) outs(%{{.*}} : tensor<f32>)
// CHECK:      linalg.generic {{.*}} ins(%{{.*}} : tensor<f32>) outs(%{{.*}} : tensor<f32>)
// CHECK:        arith.constant 5.734400e+04 : f32
// CHECK:        arith.constant 1531689488 : i32
// CHECK-NOT:    arith.constant 44 : i32
// CHECK:      linalg.generic {indexing_maps = [#[[$ID]], #[[$ALL]], #[[$ID]]]
// CHECK:        linalg.yield %{{.*}} : f8E5M2
func.func @quantize_tensorwise_e5m2(%x: tensor<32x64xf32>) -> (tensor<32x64xf8E5M2>, tensor<f32>) {
  %q, %s = mxfp8train.quantize %x granularity = tensorwise : tensor<32x64xf32> -> tensor<32x64xf8E5M2>, tensor<f32>
  return %q, %s : tensor<32x64xf8E5M2>, tensor<f32>
}

// -----

// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$COL:.*]] = affine_map<(d0, d1) -> (0, d1)>
// CHECK-LABEL: func.func @dequantize_axis0
// CHECK:      linalg.generic {indexing_maps = [#[[$ID]], #[[$COL]], #[[$ID]]]
// CHECK:        arith.divf %{{.*}}, %{{.*}} : f32
// CHECK:        linalg.yield %{{.*}} : bf16
func.func @dequantize_axis0(%q: tensor<32x64xf8E4M3FN>, %s: tensor<1x64xf32>) -> tensor<32x64xbf16> {
  %x = mxfp8train.dequantize %q [%s] axis = 0 granularity = axiswise : tensor<32x64xf8E4M3FN> [tensor<1x64xf32>] -> tensor<32x64xbf16>
  return %x : tensor<32x64xbf16>
}

// -----

// Rowwise x @ Wᵀ with a bias: exact f32 operands (rhs transposed into
// (K, N)), an f32 matmul, then (acc * (1/sa[m])) * (1/sb[n]) + bias[n] and
// one rounding to bf16.
// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$T:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG: #[[$M:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[$N:.*]] = affine_map<(d0, d1) -> (d1, 0)>
// CHECK-DAG: #[[$BIAS:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @scaled_mm_rowwise_bias
// CHECK:      %[[A:.*]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]]]{{.*}} outs(%{{.*}} : tensor<16x64xf32>)
// CHECK:      %[[B:.*]] = linalg.generic {indexing_maps = [#[[$T]], #[[$ID]]]{{.*}} outs(%{{.*}} : tensor<64x32xf32>)
// CHECK:      %[[ACC:.*]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<16x64xf32>, tensor<64x32xf32>)
// CHECK:      linalg.generic {indexing_maps = [#[[$ID]], #[[$M]], #[[$N]], #[[$BIAS]], #[[$ID]]]{{.*}} ins(%[[ACC]], %{{.*}}, %{{.*}}, %{{.*}} : tensor<16x32xf32>, tensor<16x1xf32>, tensor<32x1xf32>, tensor<32xbf16>)
// CHECK:        %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK:        %[[IA:.*]] = arith.divf %[[ONE]], %{{.*}} : f32
// CHECK:        %[[IB:.*]] = arith.divf %{{.*}}, %{{.*}} : f32
// CHECK:        %[[P:.*]] = arith.mulf %{{.*}}, %[[IA]] : f32
// CHECK:        %[[Q:.*]] = arith.mulf %[[P]], %[[IB]] : f32
// CHECK:        arith.addf %[[Q]], %{{.*}} : f32
// CHECK:        linalg.yield %{{.*}} : bf16
func.func @scaled_mm_rowwise_bias(%x: tensor<16x64xf8E4M3FN>, %xs: tensor<16x1xf32>, %w: tensor<32x64xf8E4M3FN>, %ws: tensor<32x1xf32>, %b: tensor<32xbf16>) -> tensor<16x32xbf16> {
  %y = mxfp8train.scaled_mm %x [%xs], %w [%ws] bias(%b) transpose_rhs : tensor<16x64xf8E4M3FN> [tensor<16x1xf32>], tensor<32x64xf8E4M3FN> [tensor<32x1xf32>], tensor<32xbf16> -> tensor<16x32xbf16>
  return %y : tensor<16x32xbf16>
}

// -----

// Grouped 2d-3d: the MX grouped skeleton (scf.for over groups, f32 matmuls)
// on exact fp8 values into f32, then the per-row scale and the scale of the
// row's group (tensor.extract), zero outside every group.
// CHECK-LABEL: func.func @scaled_grouped_mm_2d3d
// CHECK:      scf.for
// CHECK:        linalg.matmul
// CHECK:      linalg.generic
// CHECK:        arith.cmpi sle
// CHECK:        tensor.extract %{{.*}} : tensor<4x16x1xf32>
// CHECK:        arith.divf
// CHECK:        arith.divf
// CHECK:        arith.select
// CHECK:        linalg.yield %{{.*}} : bf16
func.func @scaled_grouped_mm_2d3d(%a: tensor<40x32xf8E4M3FN>, %as: tensor<40x1xf32>, %w: tensor<4x16x32xf8E4M3FN>, %ws: tensor<4x16x1xf32>, %offs: tensor<4xi32>) -> tensor<40x16xbf16> {
  %y = mxfp8train.scaled_grouped_mm %a [%as], %w [%ws] offs(%offs) transpose_rhs : tensor<40x32xf8E4M3FN> [tensor<40x1xf32>], tensor<4x16x32xf8E4M3FN> [tensor<4x16x1xf32>], tensor<4xi32> -> tensor<40x16xbf16>
  return %y : tensor<40x16xbf16>
}

// -----

// Per-group (jagged) scales (SPEC-float8 §3.3): the clamped group ends, the
// group of every row (the number of ends <= t), the amax of each (group,
// column) as a (g, t, x) generic reducing t that reads |x| only for the rows
// of group g, the dense scale arithmetic on the (E, X) amax, and the cast of
// every row with the scale of its group (rows past the last group: 0).
// CHECK-DAG: #[[$GX:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[$GT:.*]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-DAG: #[[$GS:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROWG:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @quantize_per_group
// CHECK-SAME:    (%[[X:.*]]: tensor<48x32xf32>, %[[OFFS:.*]]: tensor<3xi32>)
// CHECK:      %[[ENDS:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<3xi32>)
// CHECK:      %[[GROUPS:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<48xi32>)
// CHECK-COUNT-3: tensor.extract %[[ENDS]]
// CHECK:      %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<3x32xf32>)
// CHECK:      %[[AMAX:.*]] = linalg.generic {indexing_maps = [#[[$GX]], #[[$GT]], #[[$GS]]], iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[X]], %[[GROUPS]] : tensor<48x32xf32>, tensor<48xi32>) outs(%[[INIT]] : tensor<3x32xf32>)
// CHECK:        math.absf
// CHECK:        arith.cmpi eq
// CHECK:        arith.select
// CHECK:        arith.maximumf
// CHECK:      %[[S:.*]] = linalg.generic {{.*}} ins(%[[AMAX]] : tensor<3x32xf32>) outs(%{{.*}} : tensor<3x32xf32>)
// CHECK:        arith.constant 730643660 : i32
// CHECK:        arith.constant 44 : i32
// CHECK:      %[[Q:.*]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ROWG]], #[[$ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[X]], %[[GROUPS]] : tensor<48x32xf32>, tensor<48xi32>)
// CHECK:        arith.cmpi slt
// CHECK:        tensor.extract %[[S]]
// CHECK:        arith.mulf
// CHECK:        linalg.yield %{{.*}} : f8E4M3FN
// CHECK:      return %[[Q]], %[[S]]
func.func @quantize_per_group(%x: tensor<48x32xf32>, %offs: tensor<3xi32>) -> (tensor<48x32xf8E4M3FN>, tensor<3x32xf32>) {
  %q, %s = mxfp8train.quantize %x offs(%offs) axis = 0 granularity = axiswise pow2 : tensor<48x32xf32>, tensor<3xi32> -> tensor<48x32xf8E4M3FN>, tensor<3x32xf32>
  return %q, %s : tensor<48x32xf8E4M3FN>, tensor<3x32xf32>
}

// -----

// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROWG:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @dequantize_per_group
// CHECK:      %[[GROUPS:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<48xi32>)
// CHECK:      linalg.generic {indexing_maps = [#[[$ID]], #[[$ROWG]], #[[$ID]]], iterator_types = ["parallel", "parallel"]} ins(%{{.*}}, %[[GROUPS]] : tensor<48x32xf8E4M3FN>, tensor<48xi32>)
// CHECK:        tensor.extract
// CHECK:        arith.divf %{{.*}}, %{{.*}} : f32
// CHECK:        linalg.yield %{{.*}} : bf16
func.func @dequantize_per_group(%q: tensor<48x32xf8E4M3FN>, %s: tensor<3x32xf32>, %offs: tensor<3xi32>) -> tensor<48x32xbf16> {
  %x = mxfp8train.dequantize %q [%s] offs(%offs) axis = 0 granularity = axiswise : tensor<48x32xf8E4M3FN> [tensor<3x32xf32>], tensor<3xi32> -> tensor<48x32xbf16>
  return %x : tensor<48x32xbf16>
}
