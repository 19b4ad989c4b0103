// RUN: mxfp8-opt %s -split-input-file -verify-diagnostics

// Every verifier and parser error of the Float8 forms (SPEC-float8 §6).

func.func @quantize_float8_rejects_e8m0_scales(%x: tensor<64x128xbf16>) {
  // expected-error @+1 {{'mxfp8train.quantize' op expects the scales to be f32 for Float8 data, found 'f8E8M0FNU'}}
  %q, %s = mxfp8train.quantize %x granularity = tensorwise : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<f8E8M0FNU>
  return
}

// -----

func.func @quantize_mx_rejects_f32_scales(%x: tensor<64x128xbf16>) {
  // expected-error @+1 {{'mxfp8train.quantize' op expects f8E8M0FNU scales without a Float8 granularity, found f32 (add granularity = tensorwise or axiswise)}}
  %q, %s = mxfp8train.quantize %x axis = 1 mode = rceil : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<64x4xf32>
  return
}

// -----

func.func @quantize_mx_rejects_pow2(%x: tensor<64x128xbf16>) {
  // expected-error @+1 {{'mxfp8train.quantize' op expects pow2 only with a Float8 granularity (MX scales are powers of two already)}}
  %q, %s = mxfp8train.quantize %x axis = 1 mode = rceil pow2 : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>
  return
}

// -----

func.func @quantize_tensorwise_rejects_shaped_scale(%x: tensor<64x128xbf16>) {
  // expected-error @+1 {{'mxfp8train.quantize' op expects the scales of shape  (one tensorwise scale), found 1x1}}
  %q, %s = mxfp8train.quantize %x granularity = tensorwise : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<1x1xf32>
  return
}

// -----

func.func @quantize_axiswise_rejects_scale_shape(%x: tensor<64x128xbf16>) {
  // expected-error @+1 {{'mxfp8train.quantize' op expects the scales of shape 64x1 (the data shape with dimension 1 set to 1), found 1x128}}
  %q, %s = mxfp8train.quantize %x axis = 1 granularity = axiswise : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<1x128xf32>
  return
}

// -----

func.func @quantize_axiswise_rejects_axis(%x: tensor<64x128xbf16>) {
  // expected-error @+1 {{'mxfp8train.quantize' op expects axis in [0, 2), found 2}}
  %q, %s = mxfp8train.quantize %x axis = 2 granularity = axiswise : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<64x1xf32>
  return
}

// -----

func.func @quantize_float8_rejects_blocked(%x: tensor<64x128xbf16>) {
  // expected-error @+1 {{'mxfp8train.quantize' op expects the scales in the row_major layout for Float8 data, found blocked}}
  %q, %s = mxfp8train.quantize %x axis = 1 granularity = axiswise layout = blocked : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<64x1xf32>
  return
}

// -----

func.func @quantize_float8_rejects_data_shape(%x: tensor<64x128xbf16>) {
  // expected-error @+1 {{'mxfp8train.quantize' op expects the data shape to equal the high-precision shape 64x128, found 64x64}}
  %q, %s = mxfp8train.quantize %x granularity = tensorwise : tensor<64x128xbf16> -> tensor<64x64xf8E4M3FN>, tensor<f32>
  return
}

// -----

func.func @quantize_float8_rejects_mode(%x: tensor<64x128xbf16>) {
  // expected-error @+1 {{'mode' is an MX attribute, not allowed with a Float8 granularity}}
  %q, %s = mxfp8train.quantize %x mode = rceil granularity = tensorwise : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<f32>
  return
}

// -----

// After the granularity too (it was "expected ':'").
func.func @quantize_float8_rejects_mode_after_granularity(%x: tensor<64x128xbf16>) {
  // expected-error @+1 {{'mode' is an MX attribute, not allowed with a Float8 granularity}}
  %q, %s = mxfp8train.quantize %x granularity = tensorwise mode = rceil : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<f32>
  return
}

// -----

func.func @quantize_tensorwise_rejects_axis(%x: tensor<64x128xbf16>) {
  // expected-error @+1 {{'axis' is not allowed with tensorwise}}
  %q, %s = mxfp8train.quantize %x axis = 1 granularity = tensorwise : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<f32>
  return
}

// -----

func.func @quantize_axiswise_needs_axis(%x: tensor<64x128xbf16>) {
  // expected-error @+1 {{expected 'axis = N' with axiswise}}
  %q, %s = mxfp8train.quantize %x granularity = axiswise : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<64x1xf32>
  return
}

// -----

func.func @quantize_mx_needs_mode(%x: tensor<64x128xbf16>) {
  // expected-error @+1 {{expected 'axis = N mode = M' (MX) or a Float8 'granularity'}}
  %q, %s = mxfp8train.quantize %x axis = 1 : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>
  return
}

// -----

func.func @quantize_rejects_unknown_granularity(%x: tensor<64x128xbf16>) {
  // expected-error @+2 {{expected ::mlir::mxfp8train::Float8Granularity to be one of: tensorwise, axiswise}}
  // expected-error @+1 {{failed to parse MXFP8Train_Float8GranularityAttr parameter 'value'}}
  %q, %s = mxfp8train.quantize %x granularity = blockwise : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<f32>
  return
}

// -----

func.func @dequantize_float8_rejects_scale_shape(%q: tensor<64x128xf8E4M3FN>, %s: tensor<1x128xf32>) {
  // expected-error @+1 {{'mxfp8train.dequantize' op expects the scales of shape 64x1 (the data shape with dimension 1 set to 1), found 1x128}}
  %x = mxfp8train.dequantize %q [%s] axis = 1 granularity = axiswise : tensor<64x128xf8E4M3FN> [tensor<1x128xf32>] -> tensor<64x128xbf16>
  return
}

// -----

func.func @dequantize_mx_rejects_f32_scales(%q: tensor<64x128xf8E4M3FN>, %s: tensor<64x4xf32>) {
  // expected-error @+1 {{'mxfp8train.dequantize' op expects f8E8M0FNU scales without a Float8 granularity}}
  %x = mxfp8train.dequantize %q [%s] axis = 1 : tensor<64x128xf8E4M3FN> [tensor<64x4xf32>] -> tensor<64x128xbf16>
  return
}

// -----

func.func @dequantize_tensorwise_rejects_axis(%q: tensor<64x128xf8E4M3FN>, %s: tensor<f32>) {
  // expected-error @+1 {{'axis' is not allowed with tensorwise}}
  %x = mxfp8train.dequantize %q [%s] axis = 1 granularity = tensorwise : tensor<64x128xf8E4M3FN> [tensor<f32>] -> tensor<64x128xbf16>
  return
}

// -----

func.func @scaled_mm_rejects_mixed_mx_float8(%a: tensor<16x64xf8E4M3FN>, %as: tensor<16x2xf8E8M0FNU>, %b: tensor<32x64xf8E4M3FN>, %bs: tensor<32x1xf32>) {
  // expected-error @+1 {{'mxfp8train.scaled_mm' op expects both operands MX (f8E8M0FNU scales) or both Float8 (f32 scales), found lhs scales of 'f8E8M0FNU' and rhs scales of 'f32'}}
  %y = mxfp8train.scaled_mm %a [%as], %b [%bs] transpose_rhs : tensor<16x64xf8E4M3FN> [tensor<16x2xf8E8M0FNU>], tensor<32x64xf8E4M3FN> [tensor<32x1xf32>] -> tensor<16x32xbf16>
  return
}

// -----

func.func @scaled_mm_float8_rejects_k(%a: tensor<16x40xf8E4M3FN>, %as: tensor<16x1xf32>, %b: tensor<32x40xf8E4M3FN>, %bs: tensor<32x1xf32>) {
  // expected-error @+1 {{'mxfp8train.scaled_mm' op expects the contraction size K (40) to be a multiple of 16 for Float8 operands (torch._scaled_mm), found remainder 8}}
  %y = mxfp8train.scaled_mm %a [%as], %b [%bs] transpose_rhs : tensor<16x40xf8E4M3FN> [tensor<16x1xf32>], tensor<32x40xf8E4M3FN> [tensor<32x1xf32>] -> tensor<16x32xbf16>
  return
}

// -----

func.func @scaled_mm_float8_rejects_n(%a: tensor<16x64xf8E4M3FN>, %as: tensor<16x1xf32>, %b: tensor<24x64xf8E4M3FN>, %bs: tensor<24x1xf32>) {
  // expected-error @+1 {{'mxfp8train.scaled_mm' op expects N (24) to be a multiple of 16 for Float8 operands (torch._scaled_mm), found remainder 8}}
  %y = mxfp8train.scaled_mm %a [%as], %b [%bs] transpose_rhs : tensor<16x64xf8E4M3FN> [tensor<16x1xf32>], tensor<24x64xf8E4M3FN> [tensor<24x1xf32>] -> tensor<16x24xbf16>
  return
}

// -----

func.func @scaled_mm_float8_allows_any_m(%a: tensor<7x64xf8E4M3FN>, %as: tensor<7x1xf32>, %b: tensor<32x64xf8E4M3FN>, %bs: tensor<32x1xf32>) {
  // M is free (only K and N are checked); the next op is the error.
  %y = mxfp8train.scaled_mm %a [%as], %b [%bs] transpose_rhs : tensor<7x64xf8E4M3FN> [tensor<7x1xf32>], tensor<32x64xf8E4M3FN> [tensor<32x1xf32>] -> tensor<7x32xbf16>
  // expected-error @+1 {{'mxfp8train.scaled_mm' op expects a result of shape 7x32 (M x N), found 7x16}}
  %z = mxfp8train.scaled_mm %a [%as], %b [%bs] transpose_rhs : tensor<7x64xf8E4M3FN> [tensor<7x1xf32>], tensor<32x64xf8E4M3FN> [tensor<32x1xf32>] -> tensor<7x16xbf16>
  return
}

// -----

func.func @scaled_mm_float8_rejects_e5m2_pair(%a: tensor<16x64xf8E5M2>, %as: tensor<16x1xf32>, %b: tensor<32x64xf8E5M2>, %bs: tensor<32x1xf32>) {
  // expected-error @+1 {{'mxfp8train.scaled_mm' op expects at most one f8E5M2 operand (torch._scaled_mm rejects e5m2 x e5m2)}}
  %y = mxfp8train.scaled_mm %a [%as], %b [%bs] transpose_rhs : tensor<16x64xf8E5M2> [tensor<16x1xf32>], tensor<32x64xf8E5M2> [tensor<32x1xf32>] -> tensor<16x32xbf16>
  return
}

// -----

func.func @scaled_mm_float8_rejects_rowwise_shape(%a: tensor<16x64xf8E4M3FN>, %as: tensor<1x64xf32>, %b: tensor<32x64xf8E4M3FN>, %bs: tensor<32x1xf32>) {
  // expected-error @+1 {{'mxfp8train.scaled_mm' op expects the lhs scales of shape 16x1 (tensorwise: rank 0; rowwise: the stored shape with dimension 1 (K) set to 1), found 1x64}}
  %y = mxfp8train.scaled_mm %a [%as], %b [%bs] transpose_rhs : tensor<16x64xf8E4M3FN> [tensor<1x64xf32>], tensor<32x64xf8E4M3FN> [tensor<32x1xf32>] -> tensor<16x32xbf16>
  return
}

// -----

func.func @scaled_mm_float8_rejects_rhs_shape(%a: tensor<16x64xf8E4M3FN>, %as: tensor<16x1xf32>, %b: tensor<64x32xf8E4M3FN>, %bs: tensor<64x1xf32>) {
  // expected-error @+1 {{'mxfp8train.scaled_mm' op expects the rhs scales of shape 1x32 (tensorwise: rank 0; rowwise: the stored shape with dimension 0 (K) set to 1), found 64x1}}
  %y = mxfp8train.scaled_mm %a [%as], %b [%bs] : tensor<16x64xf8E4M3FN> [tensor<16x1xf32>], tensor<64x32xf8E4M3FN> [tensor<64x1xf32>] -> tensor<16x32xbf16>
  return
}

// -----

func.func @scaled_mm_float8_rejects_blocked(%a: tensor<16x64xf8E4M3FN>, %as: tensor<16x1xf32>, %b: tensor<32x64xf8E4M3FN>, %bs: tensor<32x1xf32>) {
  // expected-error @+1 {{'mxfp8train.scaled_mm' op expects the lhs scales in the row_major layout for Float8 data, found blocked}}
  %y = mxfp8train.scaled_mm %a [%as], %b [%bs] transpose_rhs lhs_layout = blocked : tensor<16x64xf8E4M3FN> [tensor<16x1xf32>], tensor<32x64xf8E4M3FN> [tensor<32x1xf32>] -> tensor<16x32xbf16>
  return
}

// -----

func.func @scaled_grouped_mm_float8_rejects_e5m2(%a: tensor<40x64xf8E5M2>, %as: tensor<40x1xf32>, %w: tensor<4x32x64xf8E4M3FN>, %ws: tensor<4x32x1xf32>, %offs: tensor<4xi32>) {
  // expected-error @+1 {{'mxfp8train.scaled_grouped_mm' op expects f8E4M3FN lhs for a Float8 scaled_grouped_mm (torch._scaled_grouped_mm), found 'f8E5M2'}}
  %out = mxfp8train.scaled_grouped_mm %a [%as], %w [%ws] offs(%offs) transpose_rhs : tensor<40x64xf8E5M2> [tensor<40x1xf32>], tensor<4x32x64xf8E4M3FN> [tensor<4x32x1xf32>], tensor<4xi32> -> tensor<40x32xbf16>
  return
}

// -----

func.func @scaled_grouped_mm_float8_rejects_k(%a: tensor<40x40xf8E4M3FN>, %as: tensor<40x1xf32>, %w: tensor<4x32x40xf8E4M3FN>, %ws: tensor<4x32x1xf32>, %offs: tensor<4xi32>) {
  // expected-error @+1 {{'mxfp8train.scaled_grouped_mm' op expects the contraction size K (40) to be a multiple of 16 for Float8 operands (torch._scaled_grouped_mm), found remainder 8}}
  %out = mxfp8train.scaled_grouped_mm %a [%as], %w [%ws] offs(%offs) transpose_rhs : tensor<40x40xf8E4M3FN> [tensor<40x1xf32>], tensor<4x32x40xf8E4M3FN> [tensor<4x32x1xf32>], tensor<4xi32> -> tensor<40x32xbf16>
  return
}

// -----

func.func @scaled_grouped_mm_float8_rejects_n(%a: tensor<40x64xf8E4M3FN>, %as: tensor<40x1xf32>, %w: tensor<4x24x64xf8E4M3FN>, %ws: tensor<4x24x1xf32>, %offs: tensor<4xi32>) {
  // expected-error @+1 {{'mxfp8train.scaled_grouped_mm' op expects N (24) to be a multiple of 16 for Float8 operands (torch._scaled_grouped_mm), found remainder 8}}
  %out = mxfp8train.scaled_grouped_mm %a [%as], %w [%ws] offs(%offs) transpose_rhs : tensor<40x64xf8E4M3FN> [tensor<40x1xf32>], tensor<4x24x64xf8E4M3FN> [tensor<4x24x1xf32>], tensor<4xi32> -> tensor<40x24xbf16>
  return
}

// -----

func.func @scaled_grouped_mm_float8_rejects_rhs_scales(%a: tensor<40x64xf8E4M3FN>, %as: tensor<40x1xf32>, %w: tensor<4x32x64xf8E4M3FN>, %ws: tensor<4x1x64xf32>, %offs: tensor<4xi32>) {
  // expected-error @+1 {{'mxfp8train.scaled_grouped_mm' op expects the rhs scales of shape 4x32x1 (the stored rhs shape with dimension 2 (K) set to 1), found 4x1x64}}
  %out = mxfp8train.scaled_grouped_mm %a [%as], %w [%ws] offs(%offs) transpose_rhs : tensor<40x64xf8E4M3FN> [tensor<40x1xf32>], tensor<4x32x64xf8E4M3FN> [tensor<4x1x64xf32>], tensor<4xi32> -> tensor<40x32xbf16>
  return
}

// -----

func.func @scaled_grouped_mm_float8_rejects_lhs_scales(%a: tensor<40x64xf8E4M3FN>, %as: tensor<40xf32>, %w: tensor<4x32x64xf8E4M3FN>, %ws: tensor<4x32x1xf32>, %offs: tensor<4xi32>) {
  // expected-error @+1 {{'mxfp8train.scaled_grouped_mm' op expects the lhs scales of shape 40x1 (one scale per token), found 40}}
  %out = mxfp8train.scaled_grouped_mm %a [%as], %w [%ws] offs(%offs) transpose_rhs : tensor<40x64xf8E4M3FN> [tensor<40xf32>], tensor<4x32x64xf8E4M3FN> [tensor<4x32x1xf32>], tensor<4xi32> -> tensor<40x32xbf16>
  return
}

// -----

func.func @scaled_grouped_mm_float8_2d2d_rejects_m(%go: tensor<40x32xf8E4M3FN>, %gos: tensor<4x32xf32>, %x: tensor<40x64xf8E4M3FN>, %xs: tensor<4x64xf32>, %offs: tensor<4xi32>) {
  // expected-error @+1 {{'mxfp8train.scaled_grouped_mm' op expects the token count M (40) to be a multiple of 16 for Float8 operands (torch._scaled_grouped_mm), found remainder 8}}
  %dw = mxfp8train.scaled_grouped_mm %go [%gos], %x [%xs] offs(%offs) transpose_lhs : tensor<40x32xf8E4M3FN> [tensor<4x32xf32>], tensor<40x64xf8E4M3FN> [tensor<4x64xf32>], tensor<4xi32> -> tensor<4x32x64xbf16>
  return
}

// -----

func.func @scaled_grouped_mm_float8_2d2d_rejects_scales(%go: tensor<48x32xf8E4M3FN>, %gos: tensor<4x32xf32>, %x: tensor<48x64xf8E4M3FN>, %xs: tensor<64x4xf32>, %offs: tensor<4xi32>) {
  // expected-error @+1 {{'mxfp8train.scaled_grouped_mm' op expects the rhs scales of shape 4x64 (one scale per group and rhs column), found 64x4}}
  %dw = mxfp8train.scaled_grouped_mm %go [%gos], %x [%xs] offs(%offs) transpose_lhs : tensor<48x32xf8E4M3FN> [tensor<4x32xf32>], tensor<48x64xf8E4M3FN> [tensor<64x4xf32>], tensor<4xi32> -> tensor<4x32x64xbf16>
  return
}

// -----

func.func @scaled_grouped_mm_float8_rejects_mixed(%a: tensor<40x64xf8E4M3FN>, %as: tensor<40x1xf32>, %w: tensor<4x32x64xf8E4M3FN>, %ws: tensor<4x32x2xf8E8M0FNU>, %offs: tensor<4xi32>) {
  // expected-error @+1 {{'mxfp8train.scaled_grouped_mm' op expects both operands MX (f8E8M0FNU scales) or both Float8 (f32 scales)}}
  %out = mxfp8train.scaled_grouped_mm %a [%as], %w [%ws] offs(%offs) transpose_rhs : tensor<40x64xf8E4M3FN> [tensor<40x1xf32>], tensor<4x32x64xf8E4M3FN> [tensor<4x32x2xf8E8M0FNU>], tensor<4xi32> -> tensor<40x32xbf16>
  return
}

// -----

// expected-error @+1 {{expected a float8 recipe name (float8_tensorwise, float8_rowwise, float8_rowwise_with_gw_hp, fp8_rowwise) first, found 'mxfp8_rceil'}}
func.func @float8_recipe_rejects_name() attributes {r = #mxfp8train.float8_recipe<mxfp8_rceil>} {
  return
}

// -----

// expected-error @+1 {{unknown float8 recipe field 'scale_calculation_mode'}}
func.func @float8_recipe_rejects_field() attributes {r = #mxfp8train.float8_recipe<float8_rowwise, scale_calculation_mode = rceil>} {
  return
}

// -----

// expected-error @+1 {{float8 recipe field 'out_dtype' is given twice}}
func.func @float8_recipe_rejects_twice() attributes {r = #mxfp8train.float8_recipe<float8_rowwise, out_dtype = f32, out_dtype = bf16>} {
  return
}

// -----

// expected-error @+1 {{float8 recipe float8_dtype must be f8E4M3FN or f8E5M2, found 'bf16'}}
func.func @float8_recipe_rejects_dtype() attributes {r = #mxfp8train.float8_recipe<float8_rowwise, float8_dtype = bf16>} {
  return
}

// -----

// expected-error @+1 {{float8 recipe out_dtype must be bf16 or f32, found 'f16'}}
func.func @float8_recipe_rejects_out_dtype() attributes {r = #mxfp8train.float8_recipe<float8_tensorwise, out_dtype = f16>} {
  return
}

// -----

// expected-error @+1 {{expected 'true' or 'false'}}
func.func @float8_recipe_rejects_bool() attributes {r = #mxfp8train.float8_recipe<float8_tensorwise, pad_token_groups = yes>} {
  return
}

// -----

// Per-group (offs) scales: Float8 axiswise along the token axis 0 of a 2-D
// tensor, (E, X) f32 scales (SPEC-float8 §3.3).

func.func @per_group_rejects_mx(%x: tensor<64x128xbf16>, %offs: tensor<4xi32>) {
  // expected-error @+1 {{'mxfp8train.quantize' op expects offs only with a Float8 granularity (per-group axiswise scales), found an MX cast}}
  %q, %s = mxfp8train.quantize %x offs(%offs) axis = 0 mode = rceil : tensor<64x128xbf16>, tensor<4xi32> -> tensor<64x128xf8E4M3FN>, tensor<2x128xf8E8M0FNU>
  return
}

// -----

func.func @per_group_rejects_tensorwise(%x: tensor<64x128xbf16>, %offs: tensor<4xi32>) {
  // expected-error @+1 {{'mxfp8train.quantize' op expects granularity = axiswise with offs (per-group scales along the token axis), found tensorwise}}
  %q, %s = mxfp8train.quantize %x offs(%offs) granularity = tensorwise : tensor<64x128xbf16>, tensor<4xi32> -> tensor<64x128xf8E4M3FN>, tensor<f32>
  return
}

// -----

func.func @per_group_rejects_rank3(%x: tensor<2x64x128xbf16>, %offs: tensor<4xi32>) {
  // expected-error @+1 {{'mxfp8train.quantize' op expects a 2-D (tokens x columns) tensor with offs, found rank 3}}
  %q, %s = mxfp8train.quantize %x offs(%offs) axis = 0 granularity = axiswise : tensor<2x64x128xbf16>, tensor<4xi32> -> tensor<2x64x128xf8E4M3FN>, tensor<4x128xf32>
  return
}

// -----

func.func @per_group_rejects_axis1(%x: tensor<64x128xbf16>, %offs: tensor<4xi32>) {
  // expected-error @+1 {{'mxfp8train.quantize' op expects axis = 0 (the token axis that offs splits) with offs, found axis = 1}}
  %q, %s = mxfp8train.quantize %x offs(%offs) axis = 1 granularity = axiswise : tensor<64x128xbf16>, tensor<4xi32> -> tensor<64x128xf8E4M3FN>, tensor<4x64xf32>
  return
}

// -----

func.func @per_group_rejects_2d_offs(%x: tensor<64x128xbf16>, %offs: tensor<4x1xi32>) {
  // expected-error @+1 {{'mxfp8train.quantize' op expects offs to be a 1-D i32 tensor, found rank 2}}
  %q, %s = mxfp8train.quantize %x offs(%offs) axis = 0 granularity = axiswise : tensor<64x128xbf16>, tensor<4x1xi32> -> tensor<64x128xf8E4M3FN>, tensor<4x128xf32>
  return
}

// -----

func.func @per_group_rejects_i64_offs(%x: tensor<64x128xbf16>, %offs: tensor<4xi64>) {
  // expected-error @+1 {{operand #1 must be ranked tensor of 32-bit signless integer values, but got 'tensor<4xi64>'}}
  %q, %s = mxfp8train.quantize %x offs(%offs) axis = 0 granularity = axiswise : tensor<64x128xbf16>, tensor<4xi64> -> tensor<64x128xf8E4M3FN>, tensor<4x128xf32>
  return
}

// -----

func.func @per_group_rejects_dense_scale_shape(%x: tensor<64x128xbf16>, %offs: tensor<4xi32>) {
  // expected-error @+1 {{'mxfp8train.quantize' op expects the scales of shape 4x128 (one scale per group and column: offs entries x columns, the (E, N) / (E, K) scales of a 2d-2d scaled_grouped_mm), found 1x128}}
  %q, %s = mxfp8train.quantize %x offs(%offs) axis = 0 granularity = axiswise : tensor<64x128xbf16>, tensor<4xi32> -> tensor<64x128xf8E4M3FN>, tensor<1x128xf32>
  return
}

// -----

func.func @per_group_rejects_group_count(%x: tensor<64x128xbf16>, %offs: tensor<4xi32>) {
  // expected-error @+1 {{'mxfp8train.quantize' op expects the scales of shape 4x128}}
  %q, %s = mxfp8train.quantize %x offs(%offs) axis = 0 granularity = axiswise : tensor<64x128xbf16>, tensor<4xi32> -> tensor<64x128xf8E4M3FN>, tensor<3x128xf32>
  return
}

// -----

func.func @per_group_rejects_data_shape(%x: tensor<64x128xbf16>, %offs: tensor<4xi32>) {
  // expected-error @+1 {{'mxfp8train.quantize' op expects the data shape to equal the high-precision shape 64x128, found 32x128}}
  %q, %s = mxfp8train.quantize %x offs(%offs) axis = 0 granularity = axiswise : tensor<64x128xbf16>, tensor<4xi32> -> tensor<32x128xf8E4M3FN>, tensor<4x128xf32>
  return
}

// -----

func.func @per_group_rejects_blocked_layout(%x: tensor<64x128xbf16>, %offs: tensor<4xi32>) {
  // expected-error @+1 {{'mxfp8train.quantize' op expects the scales in the row_major layout for Float8 data, found blocked}}
  %q, %s = mxfp8train.quantize %x offs(%offs) axis = 0 granularity = axiswise layout = blocked : tensor<64x128xbf16>, tensor<4xi32> -> tensor<64x128xf8E4M3FN>, tensor<4x128xf32>
  return
}

// -----

func.func @per_group_rejects_decreasing_offs(%x: tensor<64x128xbf16>) {
  %offs = arith.constant dense<[16, 8, 32, 64]> : tensor<4xi32>
  // expected-error @+1 {{'mxfp8train.quantize' op expects non-decreasing offs, found offs[1] = 8 after 16}}
  %q, %s = mxfp8train.quantize %x offs(%offs) axis = 0 granularity = axiswise : tensor<64x128xbf16>, tensor<4xi32> -> tensor<64x128xf8E4M3FN>, tensor<4x128xf32>
  return
}

// -----

func.func @per_group_rejects_offs_past_tokens(%x: tensor<64x128xbf16>) {
  %offs = arith.constant dense<[16, 32, 48, 80]> : tensor<4xi32>
  // expected-error @+1 {{'mxfp8train.quantize' op expects offs at most the token count 64, found offs[3] = 80}}
  %q, %s = mxfp8train.quantize %x offs(%offs) axis = 0 granularity = axiswise : tensor<64x128xbf16>, tensor<4xi32> -> tensor<64x128xf8E4M3FN>, tensor<4x128xf32>
  return
}

// -----

func.func @per_group_dequantize_rejects_mx(%q: tensor<64x128xf8E4M3FN>, %s: tensor<2x128xf8E8M0FNU>, %offs: tensor<4xi32>) {
  // expected-error @+1 {{'mxfp8train.dequantize' op expects offs only with a Float8 granularity (per-group axiswise scales), found an MX cast}}
  %x = mxfp8train.dequantize %q [%s] offs(%offs) axis = 0 : tensor<64x128xf8E4M3FN> [tensor<2x128xf8E8M0FNU>], tensor<4xi32> -> tensor<64x128xbf16>
  return
}

// -----

func.func @per_group_dequantize_rejects_scale_shape(%q: tensor<64x128xf8E4M3FN>, %s: tensor<4x64xf32>, %offs: tensor<4xi32>) {
  // expected-error @+1 {{'mxfp8train.dequantize' op expects the scales of shape 4x128}}
  %x = mxfp8train.dequantize %q [%s] offs(%offs) axis = 0 granularity = axiswise : tensor<64x128xf8E4M3FN> [tensor<4x64xf32>], tensor<4xi32> -> tensor<64x128xbf16>
  return
}

// -----

func.func @per_group_dequantize_rejects_axis1(%q: tensor<64x128xf8E4M3FN>, %s: tensor<4x128xf32>, %offs: tensor<4xi32>) {
  // expected-error @+1 {{'mxfp8train.dequantize' op expects axis = 0 (the token axis that offs splits) with offs, found axis = 1}}
  %x = mxfp8train.dequantize %q [%s] offs(%offs) axis = 1 granularity = axiswise : tensor<64x128xf8E4M3FN> [tensor<4x128xf32>], tensor<4xi32> -> tensor<64x128xbf16>
  return
}

// -----

// The generic form cannot carry what the custom syntax has no words for:
// an axis on a tensorwise cast, a scale_mode on a Float8 cast (the printer
// dropped them, so the IR changed in a round trip).
func.func @tensorwise_with_axis(%x: tensor<64x64xbf16>) {
  // expected-error @below {{expects no axis with granularity = tensorwise (axis 0, the default), found axis = 7}}
  %0:2 = "mxfp8train.quantize"(%x) <{axis = 7 : i64, granularity = #mxfp8train<float8_granularity tensorwise>, scale_layout = #mxfp8train<scale_layout row_major>, scale_mode = #mxfp8train<scale_mode floor>}> : (tensor<64x64xbf16>) -> (tensor<64x64xf8E4M3FN>, tensor<f32>)
  return
}

// -----

func.func @float8_with_scale_mode(%x: tensor<64x64xbf16>) {
  // expected-error @below {{expects no scale_mode with a Float8 granularity (its scale comes from the amax, SPEC-float8 §2.3), found rceil}}
  %0:2 = "mxfp8train.quantize"(%x) <{axis = 1 : i64, granularity = #mxfp8train<float8_granularity axiswise>, scale_layout = #mxfp8train<scale_layout row_major>, scale_mode = #mxfp8train<scale_mode rceil>}> : (tensor<64x64xbf16>) -> (tensor<64x64xf8E4M3FN>, tensor<64x1xf32>)
  return
}
