// RUN: mxfp8-opt %s --verify-roundtrip | FileCheck %s
// RUN: mxfp8-opt %s --mlir-print-op-generic | mxfp8-opt | FileCheck %s
// RUN: mxfp8-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

// The Float8 forms of quantize, dequantize, scaled_mm and scaled_grouped_mm
// (SPEC-float8 §2, §3, §5) and the Float8 recipe attribute.

// CHECK-LABEL: func.func @quantize_float8
func.func @quantize_float8(%x: tensor<64x128xbf16>, %g: tensor<64x128xf32>) -> (tensor<64x128xf8E4M3FN>, tensor<f32>, tensor<64x128xf8E4M3FN>, tensor<64x1xf32>, tensor<64x128xf8E5M2>, tensor<1x128xf32>) {
  // CHECK: mxfp8train.quantize %{{.*}} granularity = tensorwise : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<f32>
  // GENERIC: "mxfp8train.quantize"(%{{.*}}) <{axis = 0 : i64, granularity = #mxfp8train<float8_granularity tensorwise>, scale_layout = #mxfp8train<scale_layout row_major>, scale_mode = #mxfp8train<scale_mode floor>}>
  %q0, %s0 = mxfp8train.quantize %x granularity = tensorwise : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<f32>
  // CHECK: mxfp8train.quantize %{{.*}} axis = 1 granularity = axiswise pow2 : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<64x1xf32>
  // GENERIC: "mxfp8train.quantize"(%{{.*}}) <{axis = 1 : i64, granularity = #mxfp8train<float8_granularity axiswise>, pow2,
  %q1, %s1 = mxfp8train.quantize %x axis = 1 granularity = axiswise pow2 : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<64x1xf32>
  // CHECK: mxfp8train.quantize %{{.*}} axis = 0 granularity = axiswise : tensor<64x128xf32> -> tensor<64x128xf8E5M2>, tensor<1x128xf32>
  %q2, %s2 = mxfp8train.quantize %g axis = 0 granularity = axiswise : tensor<64x128xf32> -> tensor<64x128xf8E5M2>, tensor<1x128xf32>
  return %q0, %s0, %q1, %s1, %q2, %s2 : tensor<64x128xf8E4M3FN>, tensor<f32>, tensor<64x128xf8E4M3FN>, tensor<64x1xf32>, tensor<64x128xf8E5M2>, tensor<1x128xf32>
}

// CHECK-LABEL: func.func @dequantize_float8
func.func @dequantize_float8(%q: tensor<64x128xf8E4M3FN>, %t: tensor<f32>, %r: tensor<64x1xf32>) -> (tensor<64x128xbf16>, tensor<64x128xf32>) {
  // CHECK: mxfp8train.dequantize %{{.*}}[%{{.*}}] granularity = tensorwise : tensor<64x128xf8E4M3FN>[tensor<f32>] -> tensor<64x128xbf16>
  %a = mxfp8train.dequantize %q [%t] granularity = tensorwise : tensor<64x128xf8E4M3FN> [tensor<f32>] -> tensor<64x128xbf16>
  // CHECK: mxfp8train.dequantize %{{.*}}[%{{.*}}] axis = 1 granularity = axiswise : tensor<64x128xf8E4M3FN>[tensor<64x1xf32>] -> tensor<64x128xf32>
  %b = mxfp8train.dequantize %q [%r] axis = 1 granularity = axiswise : tensor<64x128xf8E4M3FN> [tensor<64x1xf32>] -> tensor<64x128xf32>
  return %a, %b : tensor<64x128xbf16>, tensor<64x128xf32>
}

// Per-group (jagged) scales along the token axis (SPEC-float8 §3.3): the
// operands of the grouped 2d-2d weight gradient, (E, X) scales.
// CHECK-LABEL: func.func @per_group_float8
func.func @per_group_float8(%x: tensor<96x64xbf16>, %offs: tensor<4xi32>) -> (tensor<96x64xf8E4M3FN>, tensor<4x64xf32>, tensor<96x64xf32>) {
  // CHECK: %[[Q:.*]], %[[S:.*]] = mxfp8train.quantize %{{.*}} offs(%{{.*}}) axis = 0 granularity = axiswise pow2 : tensor<96x64xbf16>, tensor<4xi32> -> tensor<96x64xf8E4M3FN>, tensor<4x64xf32>
  // GENERIC: "mxfp8train.quantize"(%{{.*}}, %{{.*}}) <{axis = 0 : i64, granularity = #mxfp8train<float8_granularity axiswise>, pow2, scale_layout = #mxfp8train<scale_layout row_major>, scale_mode = #mxfp8train<scale_mode floor>}> : (tensor<96x64xbf16>, tensor<4xi32>)
  %q, %s = mxfp8train.quantize %x offs(%offs) axis = 0 granularity = axiswise pow2 : tensor<96x64xbf16>, tensor<4xi32> -> tensor<96x64xf8E4M3FN>, tensor<4x64xf32>
  // CHECK: mxfp8train.dequantize %[[Q]][%[[S]]] offs(%{{.*}}) axis = 0 granularity = axiswise : tensor<96x64xf8E4M3FN>[tensor<4x64xf32>], tensor<4xi32> -> tensor<96x64xf32>
  %d = mxfp8train.dequantize %q [%s] offs(%offs) axis = 0 granularity = axiswise : tensor<96x64xf8E4M3FN> [tensor<4x64xf32>], tensor<4xi32> -> tensor<96x64xf32>
  return %q, %s, %d : tensor<96x64xf8E4M3FN>, tensor<4x64xf32>, tensor<96x64xf32>
}

// The three GEMMs of a rowwise linear (SPEC-float8 §3.1), a tensorwise
// forward with e5m2, and the mixed grad_input of rowwise_with_gw_hp.
// CHECK-LABEL: func.func @scaled_mm_float8
func.func @scaled_mm_float8(%x: tensor<16x64xf8E4M3FN>, %xs: tensor<16x1xf32>, %w: tensor<32x64xf8E4M3FN>, %ws: tensor<32x1xf32>,
                            %xt: tensor<16x64xf8E4M3FN>, %xts: tensor<1x64xf32>, %g: tensor<16x32xf8E4M3FN>, %gs: tensor<1x32xf32>,
                            %e: tensor<16x32xf8E5M2>, %t: tensor<f32>, %wt: tensor<32x64xf8E4M3FN>, %bias: tensor<32xbf16>) -> (tensor<16x32xbf16>, tensor<32x64xf32>, tensor<16x64xbf16>) {
  // CHECK: mxfp8train.scaled_mm %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}] bias(%{{.*}}) transpose_rhs : tensor<16x64xf8E4M3FN>[tensor<16x1xf32>], tensor<32x64xf8E4M3FN>[tensor<32x1xf32>], tensor<32xbf16> -> tensor<16x32xbf16>
  %y = mxfp8train.scaled_mm %x [%xs], %w [%ws] bias(%bias) transpose_rhs
      : tensor<16x64xf8E4M3FN> [tensor<16x1xf32>], tensor<32x64xf8E4M3FN> [tensor<32x1xf32>], tensor<32xbf16> -> tensor<16x32xbf16>
  // grad_weight = gOᵀ @ x: lhs stored (M, N) scaled per column (1, N).
  // CHECK: mxfp8train.scaled_mm %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}] transpose_lhs : tensor<16x32xf8E4M3FN>[tensor<1x32xf32>], tensor<16x64xf8E4M3FN>[tensor<1x64xf32>] -> tensor<32x64xf32>
  %dw = mxfp8train.scaled_mm %g [%gs], %xt [%xts] transpose_lhs
      : tensor<16x32xf8E4M3FN> [tensor<1x32xf32>], tensor<16x64xf8E4M3FN> [tensor<1x64xf32>] -> tensor<32x64xf32>
  // CHECK: mxfp8train.scaled_mm %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}] : tensor<16x32xf8E5M2>[tensor<f32>], tensor<32x64xf8E4M3FN>[tensor<f32>] -> tensor<16x64xbf16>
  %dx = mxfp8train.scaled_mm %e [%t], %wt [%t]
      : tensor<16x32xf8E5M2> [tensor<f32>], tensor<32x64xf8E4M3FN> [tensor<f32>] -> tensor<16x64xbf16>
  return %y, %dw, %dx : tensor<16x32xbf16>, tensor<32x64xf32>, tensor<16x64xbf16>
}

// CHECK-LABEL: func.func @scaled_mm_float8_mixed
func.func @scaled_mm_float8_mixed(%g: tensor<16x32xf8E4M3FN>, %gs: tensor<16x1xf32>, %w: tensor<32x64xf8E4M3FN>, %t: tensor<f32>) -> tensor<16x64xbf16> {
  // CHECK: mxfp8train.scaled_mm %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}] : tensor<16x32xf8E4M3FN>[tensor<16x1xf32>], tensor<32x64xf8E4M3FN>[tensor<f32>] -> tensor<16x64xbf16>
  %dx = mxfp8train.scaled_mm %g [%gs], %w [%t]
      : tensor<16x32xf8E4M3FN> [tensor<16x1xf32>], tensor<32x64xf8E4M3FN> [tensor<f32>] -> tensor<16x64xbf16>
  return %dx : tensor<16x64xbf16>
}

// CHECK-LABEL: func.func @scaled_grouped_mm_float8
func.func @scaled_grouped_mm_float8(%a: tensor<40x64xf8E4M3FN>, %as: tensor<40x1xf32>, %w: tensor<4x32x64xf8E4M3FN>, %ws: tensor<4x32x1xf32>,
                                    %go: tensor<48x32xf8E4M3FN>, %gos: tensor<4x32xf32>, %x: tensor<48x64xf8E4M3FN>, %xs: tensor<4x64xf32>,
                                    %offs: tensor<4xi32>) -> (tensor<40x32xbf16>, tensor<4x32x64xbf16>) {
  // CHECK: mxfp8train.scaled_grouped_mm %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}] offs(%{{.*}}) transpose_rhs : tensor<40x64xf8E4M3FN>[tensor<40x1xf32>], tensor<4x32x64xf8E4M3FN>[tensor<4x32x1xf32>], tensor<4xi32> -> tensor<40x32xbf16>
  %out = mxfp8train.scaled_grouped_mm %a [%as], %w [%ws] offs(%offs) transpose_rhs
      : tensor<40x64xf8E4M3FN> [tensor<40x1xf32>], tensor<4x32x64xf8E4M3FN> [tensor<4x32x1xf32>], tensor<4xi32> -> tensor<40x32xbf16>
  // CHECK: mxfp8train.scaled_grouped_mm %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}] offs(%{{.*}}) transpose_lhs : tensor<48x32xf8E4M3FN>[tensor<4x32xf32>], tensor<48x64xf8E4M3FN>[tensor<4x64xf32>], tensor<4xi32> -> tensor<4x32x64xbf16>
  %dw = mxfp8train.scaled_grouped_mm %go [%gos], %x [%xs] offs(%offs) transpose_lhs
      : tensor<48x32xf8E4M3FN> [tensor<4x32xf32>], tensor<48x64xf8E4M3FN> [tensor<4x64xf32>], tensor<4xi32> -> tensor<4x32x64xbf16>
  return %out, %dw : tensor<40x32xbf16>, tensor<4x32x64xbf16>
}

// CHECK-LABEL: func.func @float8_recipes
// CHECK-SAME: r0 = #mxfp8train.float8_recipe<float8_rowwise>
// CHECK-SAME: r1 = #mxfp8train.float8_recipe<float8_rowwise>
// CHECK-SAME: r2 = #mxfp8train.float8_recipe<float8_tensorwise, round_scales_to_power_of_2 = true>
// CHECK-SAME: r3 = #mxfp8train.float8_recipe<float8_rowwise_with_gw_hp, float8_dtype = f8E5M2, out_dtype = f32, pad_token_groups = true, round_scales_to_power_of_2 = false>
// CHECK-SAME: r4 = #mxfp8train.float8_recipe<float8_tensorwise>
func.func @float8_recipes() attributes {
    r0 = #mxfp8train.float8_recipe<float8_rowwise>,
    r1 = #mxfp8train.float8_recipe<fp8_rowwise, round_scales_to_power_of_2 = true>,
    r2 = #mxfp8train.float8_recipe<float8_tensorwise, round_scales_to_power_of_2 = true>,
    r3 = #mxfp8train.float8_recipe<float8_rowwise_with_gw_hp, pad_token_groups = true, out_dtype = f32, float8_dtype = f8E5M2, round_scales_to_power_of_2 = false>,
    r4 = #mxfp8train.float8_recipe<float8_tensorwise, float8_dtype = f8E4M3FN>} {
  return
}
