// RUN: mxfp8-opt %s -split-input-file -verify-diagnostics

func.func @quantize_rejects_axis_out_of_range(%x: tensor<64x128xbf16>) {
  // expected-error @+1 {{'mxfp8train.quantize' op expects axis in [0, 2), found 2}}
  %q, %s = mxfp8train.quantize %x axis = 2 mode = rceil : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>
  return
}

// -----

func.func @quantize_rejects_axis_not_multiple_of_32(%x: tensor<64x100xbf16>) {
  // expected-error @+1 {{expects the blocked dimension 1 of the data to be a multiple of 32, found 100}}
  %q, %s = mxfp8train.quantize %x axis = 1 mode = rceil : tensor<64x100xbf16> -> tensor<64x100xf8E4M3FN>, tensor<64x3xf8E8M0FNU>
  return
}

// -----

func.func @quantize_rejects_dynamic_axis(%x: tensor<64x?xbf16>) {
  // expected-error @+1 {{expects the blocked dimension 1 of the data to be static, found a dynamic size}}
  %q, %s = mxfp8train.quantize %x axis = 1 mode = rceil : tensor<64x?xbf16> -> tensor<64x?xf8E4M3FN>, tensor<64x?xf8E8M0FNU>
  return
}

// -----

func.func @quantize_rejects_scale_shape(%x: tensor<64x128xbf16>) {
  // expected-error @+1 {{expects the scales of shape 64x4 (the data shape with dimension 1 divided by 32), found 64x2}}
  %q, %s = mxfp8train.quantize %x axis = 1 mode = rceil : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<64x2xf8E8M0FNU>
  return
}

// -----

func.func @quantize_rejects_data_shape(%x: tensor<64x128xbf16>) {
  // expected-error @+1 {{expects the data shape to equal the high-precision shape 64x128, found 32x128}}
  %q, %s = mxfp8train.quantize %x axis = 1 mode = rceil : tensor<64x128xbf16> -> tensor<32x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>
  return
}

// -----

func.func @quantize_rejects_rank_0(%x: tensor<f32>) {
  // expected-error @+1 {{expects a tensor of rank >= 1, found rank 0}}
  %q, %s = mxfp8train.quantize %x axis = 0 mode = rceil : tensor<f32> -> tensor<f8E4M3FN>, tensor<f8E8M0FNU>
  return
}

// -----

func.func @quantize_rejects_f16_input(%x: tensor<64x128xf16>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of bfloat16 type or 32-bit float values}}
  %q, %s = mxfp8train.quantize %x axis = 1 mode = rceil : tensor<64x128xf16> -> tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>
  return
}

// -----

func.func @quantize_rejects_int_data(%x: tensor<64x128xbf16>) {
  // expected-error @+1 {{result #0 must be ranked tensor of f8E4M3FN type or f8E5M2 type values}}
  %q, %s = mxfp8train.quantize %x axis = 1 mode = rceil : tensor<64x128xbf16> -> tensor<64x128xi8>, tensor<64x4xf8E8M0FNU>
  return
}

// -----

func.func @quantize_rejects_non_e8m0_scales(%x: tensor<64x128xbf16>) {
  // expected-error @+1 {{result #1 must be ranked tensor of f8E8M0FNU type or 32-bit float values}}
  %q, %s = mxfp8train.quantize %x axis = 1 mode = rceil : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<64x4xi8>
  return
}

// -----

func.func @quantize_rejects_blocked_rank_3(%x: tensor<2x64x128xbf16>) {
  // expected-error @+1 {{expects rank-2 data for the blocked layout of the scales, found rank 3}}
  %q, %s = mxfp8train.quantize %x axis = 2 mode = rceil layout = blocked : tensor<2x64x128xbf16> -> tensor<2x64x128xf8E4M3FN>, tensor<512xf8E8M0FNU>
  return
}

// -----

func.func @quantize_rejects_grouped_layout(%x: tensor<64x64xbf16>) {
  // expected-error @+1 {{'mxfp8train.quantize' op expects the row_major or blocked layout for the scales, found blocked_per_expert}}
  %q, %s = mxfp8train.quantize %x axis = 1 mode = rceil layout = blocked_per_expert : tensor<64x64xbf16> -> tensor<64x64xf8E4M3FN>, tensor<512xf8E8M0FNU>
  return
}

// -----

func.func @quantize_rejects_blocked_size(%x: tensor<100x64xbf16>) {
  // expected-error @+1 {{expects the scales of shape 512 in the blocked layout (ceil(100/128)*128 * ceil(2/4)*4 bytes), found 200}}
  %q, %s = mxfp8train.quantize %x axis = 1 mode = rceil layout = blocked : tensor<100x64xbf16> -> tensor<100x64xf8E4M3FN>, tensor<200xf8E8M0FNU>
  return
}

// -----

func.func @quantize_rejects_unknown_mode(%x: tensor<64x128xbf16>) {
  // expected-error @+2 {{expected ::mlir::mxfp8train::ScaleMode to be one of: floor, rceil, ceil, even}}
  // expected-error @+1 {{failed to parse MXFP8Train_ScaleModeAttr parameter 'value'}}
  %q, %s = mxfp8train.quantize %x axis = 1 mode = nearest : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>
  return
}

// -----

func.func @dequantize_rejects_scale_shape(%q: tensor<64x128xf8E4M3FN>, %s: tensor<64x8xf8E8M0FNU>) {
  // expected-error @+1 {{'mxfp8train.dequantize' op expects the scales of shape 64x4 (the data shape with dimension 1 divided by 32), found 64x8}}
  %x = mxfp8train.dequantize %q [%s] axis = 1 : tensor<64x128xf8E4M3FN> [tensor<64x8xf8E8M0FNU>] -> tensor<64x128xbf16>
  return
}

// -----

func.func @dequantize_rejects_result_shape(%q: tensor<64x128xf8E4M3FN>, %s: tensor<64x4xf8E8M0FNU>) {
  // expected-error @+1 {{expects the data shape to equal the high-precision shape 64x64, found 64x128}}
  %x = mxfp8train.dequantize %q [%s] axis = 1 : tensor<64x128xf8E4M3FN> [tensor<64x4xf8E8M0FNU>] -> tensor<64x64xbf16>
  return
}

// -----

func.func @dequantize_rejects_f16_result(%q: tensor<64x128xf8E4M3FN>, %s: tensor<64x4xf8E8M0FNU>) {
  // expected-error @+1 {{result #0 must be ranked tensor of bfloat16 type or 32-bit float values}}
  %x = mxfp8train.dequantize %q [%s] axis = 1 : tensor<64x128xf8E4M3FN> [tensor<64x4xf8E8M0FNU>] -> tensor<64x128xf16>
  return
}

// -----

func.func @scaled_mm_rejects_rank_1(%a: tensor<64xf8E4M3FN>, %as: tensor<2xf8E8M0FNU>) {
  // expected-error @+1 {{'mxfp8train.scaled_mm' op expects lhs of rank 2 or 3, found rank 1}}
  %0 = mxfp8train.scaled_mm %a [%as], %a [%as] : tensor<64xf8E4M3FN> [tensor<2xf8E8M0FNU>], tensor<64xf8E4M3FN> [tensor<2xf8E8M0FNU>] -> tensor<64xbf16>
  return
}

// -----

func.func @scaled_mm_rejects_rank_mismatch(%a: tensor<64x128xf8E4M3FN>, %as: tensor<64x4xf8E8M0FNU>, %b: tensor<2x128x32xf8E4M3FN>, %bs: tensor<2x4x32xf8E8M0FNU>) {
  // expected-error @+1 {{expects rhs of rank 2 like lhs, found rank 3}}
  %0 = mxfp8train.scaled_mm %a [%as], %b [%bs] : tensor<64x128xf8E4M3FN> [tensor<64x4xf8E8M0FNU>], tensor<2x128x32xf8E4M3FN> [tensor<2x4x32xf8E8M0FNU>] -> tensor<64x32xbf16>
  return
}

// -----

func.func @scaled_mm_rejects_contraction_mismatch(%a: tensor<64x128xf8E4M3FN>, %as: tensor<64x4xf8E8M0FNU>, %b: tensor<96x32xf8E4M3FN>, %bs: tensor<3x32xf8E8M0FNU>) {
  // expected-error @+1 {{expects the contraction sizes of lhs (128, dimension 1) and rhs (96, dimension 0) to be equal}}
  %0 = mxfp8train.scaled_mm %a [%as], %b [%bs] : tensor<64x128xf8E4M3FN> [tensor<64x4xf8E8M0FNU>], tensor<96x32xf8E4M3FN> [tensor<3x32xf8E8M0FNU>] -> tensor<64x32xbf16>
  return
}

// -----

func.func @scaled_mm_rejects_k_not_multiple_of_32(%a: tensor<64x48xf8E4M3FN>, %as: tensor<64x1xf8E8M0FNU>, %b: tensor<48x32xf8E4M3FN>, %bs: tensor<1x32xf8E8M0FNU>) {
  // expected-error @+1 {{expects the blocked dimension 1 of lhs to be a multiple of 32, found 48}}
  %0 = mxfp8train.scaled_mm %a [%as], %b [%bs] : tensor<64x48xf8E4M3FN> [tensor<64x1xf8E8M0FNU>], tensor<48x32xf8E4M3FN> [tensor<1x32xf8E8M0FNU>] -> tensor<64x32xbf16>
  return
}

// -----

func.func @scaled_mm_rejects_lhs_scales_along_wrong_axis(%a: tensor<64x128xf8E4M3FN>, %as: tensor<2x128xf8E8M0FNU>, %b: tensor<128x32xf8E4M3FN>, %bs: tensor<4x32xf8E8M0FNU>) {
  // expected-error @+1 {{expects the lhs scales of shape 64x4 (the data shape with dimension 1 divided by 32), found 2x128}}
  %0 = mxfp8train.scaled_mm %a [%as], %b [%bs] : tensor<64x128xf8E4M3FN> [tensor<2x128xf8E8M0FNU>], tensor<128x32xf8E4M3FN> [tensor<4x32xf8E8M0FNU>] -> tensor<64x32xbf16>
  return
}

// -----

func.func @scaled_mm_rejects_rhs_scales_of_transposed_rhs(%a: tensor<64x128xf8E4M3FN>, %as: tensor<64x4xf8E8M0FNU>, %b: tensor<32x128xf8E4M3FN>, %bs: tensor<1x128xf8E8M0FNU>) {
  // expected-error @+1 {{expects the rhs scales of shape 32x4 (the data shape with dimension 1 divided by 32), found 1x128}}
  %0 = mxfp8train.scaled_mm %a [%as], %b [%bs] transpose_rhs : tensor<64x128xf8E4M3FN> [tensor<64x4xf8E8M0FNU>], tensor<32x128xf8E4M3FN> [tensor<1x128xf8E8M0FNU>] -> tensor<64x32xbf16>
  return
}

// -----

func.func @scaled_mm_rejects_result_shape(%a: tensor<64x128xf8E4M3FN>, %as: tensor<64x4xf8E8M0FNU>, %b: tensor<128x32xf8E4M3FN>, %bs: tensor<4x32xf8E8M0FNU>) {
  // expected-error @+1 {{expects a result of shape 64x32 (M x N), found 32x64}}
  %0 = mxfp8train.scaled_mm %a [%as], %b [%bs] : tensor<64x128xf8E4M3FN> [tensor<64x4xf8E8M0FNU>], tensor<128x32xf8E4M3FN> [tensor<4x32xf8E8M0FNU>] -> tensor<32x64xbf16>
  return
}

// -----

func.func @scaled_mm_rejects_bias_shape(%a: tensor<64x128xf8E4M3FN>, %as: tensor<64x4xf8E8M0FNU>, %b: tensor<128x32xf8E4M3FN>, %bs: tensor<4x32xf8E8M0FNU>, %bias: tensor<64xf32>) {
  // expected-error @+1 {{expects a bias of shape 32 (N), found 64}}
  %0 = mxfp8train.scaled_mm %a [%as], %b [%bs] bias(%bias) : tensor<64x128xf8E4M3FN> [tensor<64x4xf8E8M0FNU>], tensor<128x32xf8E4M3FN> [tensor<4x32xf8E8M0FNU>], tensor<64xf32> -> tensor<64x32xbf16>
  return
}

// -----

func.func @scaled_mm_rejects_batch_mismatch(%a: tensor<2x64x128xf8E4M3FN>, %as: tensor<2x64x4xf8E8M0FNU>, %b: tensor<3x128x32xf8E4M3FN>, %bs: tensor<3x4x32xf8E8M0FNU>) {
  // expected-error @+1 {{expects equal batch sizes, found 2 and 3}}
  %0 = mxfp8train.scaled_mm %a [%as], %b [%bs] : tensor<2x64x128xf8E4M3FN> [tensor<2x64x4xf8E8M0FNU>], tensor<3x128x32xf8E4M3FN> [tensor<3x4x32xf8E8M0FNU>] -> tensor<2x64x32xbf16>
  return
}

// -----

func.func @scaled_mm_rejects_blocked_batched(%a: tensor<2x64x128xf8E4M3FN>, %as: tensor<512xf8E8M0FNU>, %b: tensor<2x128x32xf8E4M3FN>, %bs: tensor<2x4x32xf8E8M0FNU>) {
  // expected-error @+1 {{expects the blocked scale layout only for rank-2 operands}}
  %0 = mxfp8train.scaled_mm %a [%as], %b [%bs] lhs_layout = blocked : tensor<2x64x128xf8E4M3FN> [tensor<512xf8E8M0FNU>], tensor<2x128x32xf8E4M3FN> [tensor<2x4x32xf8E8M0FNU>] -> tensor<2x64x32xbf16>
  return
}

// -----

func.func @scaled_mm_rejects_blocked_size(%a: tensor<129x256xf8E4M3FN>, %as: tensor<1024xf8E8M0FNU>, %b: tensor<256x32xf8E4M3FN>, %bs: tensor<8x32xf8E8M0FNU>) {
  // expected-error @+1 {{expects the lhs scales of shape 2048 in the blocked layout (ceil(129/128)*128 * ceil(8/4)*4 bytes), found 1024}}
  %0 = mxfp8train.scaled_mm %a [%as], %b [%bs] lhs_layout = blocked : tensor<129x256xf8E4M3FN> [tensor<1024xf8E8M0FNU>], tensor<256x32xf8E4M3FN> [tensor<8x32xf8E8M0FNU>] -> tensor<129x32xbf16>
  return
}

// -----

func.func @scaled_mm_rejects_f16_bias(%a: tensor<64x128xf8E4M3FN>, %as: tensor<64x4xf8E8M0FNU>, %b: tensor<128x32xf8E4M3FN>, %bs: tensor<4x32xf8E8M0FNU>, %bias: tensor<32xf16>) {
  // expected-error @+1 {{operand #4 must be ranked tensor of bfloat16 type or 32-bit float values, but got 'tensor<32xf16>'}}
  %0 = mxfp8train.scaled_mm %a [%as], %b [%bs] bias(%bias) : tensor<64x128xf8E4M3FN> [tensor<64x4xf8E8M0FNU>], tensor<128x32xf8E4M3FN> [tensor<4x32xf8E8M0FNU>], tensor<32xf16> -> tensor<64x32xbf16>
  return
}

// -----

func.func @scaled_grouped_mm_rejects_offs_rank(%a: tensor<512x256xf8E4M3FN>, %as: tensor<512x8xf8E8M0FNU>, %w: tensor<8x64x256xf8E4M3FN>, %ws: tensor<8x64x8xf8E8M0FNU>, %offs: tensor<8x1xi32>) {
  // expected-error @+1 {{'mxfp8train.scaled_grouped_mm' op expects offs to be a 1-D i32 tensor, found rank 2}}
  %0 = mxfp8train.scaled_grouped_mm %a [%as], %w [%ws] offs(%offs) transpose_rhs : tensor<512x256xf8E4M3FN> [tensor<512x8xf8E8M0FNU>], tensor<8x64x256xf8E4M3FN> [tensor<8x64x8xf8E8M0FNU>], tensor<8x1xi32> -> tensor<512x64xbf16>
  return
}

// -----

func.func @scaled_grouped_mm_rejects_i64_offs(%a: tensor<512x256xf8E4M3FN>, %as: tensor<512x8xf8E8M0FNU>, %w: tensor<8x64x256xf8E4M3FN>, %ws: tensor<8x64x8xf8E8M0FNU>, %offs: tensor<8xi64>) {
  // expected-error @+1 {{operand #4 must be ranked tensor of 32-bit signless integer values}}
  %0 = mxfp8train.scaled_grouped_mm %a [%as], %w [%ws] offs(%offs) transpose_rhs : tensor<512x256xf8E4M3FN> [tensor<512x8xf8E8M0FNU>], tensor<8x64x256xf8E4M3FN> [tensor<8x64x8xf8E8M0FNU>], tensor<8xi64> -> tensor<512x64xbf16>
  return
}

// -----

func.func @scaled_grouped_mm_rejects_offs_length(%a: tensor<512x256xf8E4M3FN>, %as: tensor<512x8xf8E8M0FNU>, %w: tensor<8x64x256xf8E4M3FN>, %ws: tensor<8x64x8xf8E8M0FNU>, %offs: tensor<4xi32>) {
  // expected-error @+1 {{expects one offs entry per expert (8), found 4}}
  %0 = mxfp8train.scaled_grouped_mm %a [%as], %w [%ws] offs(%offs) transpose_rhs : tensor<512x256xf8E4M3FN> [tensor<512x8xf8E8M0FNU>], tensor<8x64x256xf8E4M3FN> [tensor<8x64x8xf8E8M0FNU>], tensor<4xi32> -> tensor<512x64xbf16>
  return
}

// -----

func.func @scaled_grouped_mm_rejects_2d3d_transpose_lhs(%a: tensor<512x256xf8E4M3FN>, %as: tensor<512x8xf8E8M0FNU>, %w: tensor<8x64x256xf8E4M3FN>, %ws: tensor<8x64x8xf8E8M0FNU>, %offs: tensor<8xi32>) {
  // expected-error @+1 {{expects no transpose_lhs in the 2d-3d form}}
  %0 = mxfp8train.scaled_grouped_mm %a [%as], %w [%ws] offs(%offs) transpose_lhs transpose_rhs : tensor<512x256xf8E4M3FN> [tensor<512x8xf8E8M0FNU>], tensor<8x64x256xf8E4M3FN> [tensor<8x64x8xf8E8M0FNU>], tensor<8xi32> -> tensor<512x64xbf16>
  return
}

// -----

func.func @scaled_grouped_mm_rejects_2d3d_contraction(%a: tensor<512x256xf8E4M3FN>, %as: tensor<512x8xf8E8M0FNU>, %w: tensor<8x64x128xf8E4M3FN>, %ws: tensor<8x64x4xf8E8M0FNU>, %offs: tensor<8xi32>) {
  // expected-error @+1 {{expects the contraction sizes of lhs (256) and rhs (128, dimension 2) to be equal}}
  %0 = mxfp8train.scaled_grouped_mm %a [%as], %w [%ws] offs(%offs) transpose_rhs : tensor<512x256xf8E4M3FN> [tensor<512x8xf8E8M0FNU>], tensor<8x64x128xf8E4M3FN> [tensor<8x64x4xf8E8M0FNU>], tensor<8xi32> -> tensor<512x64xbf16>
  return
}

// -----

func.func @scaled_grouped_mm_rejects_2d3d_result(%a: tensor<512x256xf8E4M3FN>, %as: tensor<512x8xf8E8M0FNU>, %w: tensor<8x64x256xf8E4M3FN>, %ws: tensor<8x64x8xf8E8M0FNU>, %offs: tensor<8xi32>) {
  // expected-error @+1 {{expects a result of shape 512x64, found 512x256}}
  %0 = mxfp8train.scaled_grouped_mm %a [%as], %w [%ws] offs(%offs) transpose_rhs : tensor<512x256xf8E4M3FN> [tensor<512x8xf8E8M0FNU>], tensor<8x64x256xf8E4M3FN> [tensor<8x64x8xf8E8M0FNU>], tensor<8xi32> -> tensor<512x256xbf16>
  return
}

// -----

func.func @scaled_grouped_mm_rejects_2d2d_token_mismatch(%go: tensor<512x64xf8E4M3FN>, %gos: tensor<16x64xf8E8M0FNU>, %a: tensor<256x256xf8E4M3FN>, %as: tensor<8x256xf8E8M0FNU>, %offs: tensor<8xi32>) {
  // expected-error @+1 {{expects the token (contraction) sizes of lhs (512) and rhs (256) to be equal}}
  %0 = mxfp8train.scaled_grouped_mm %go [%gos], %a [%as] offs(%offs) transpose_lhs : tensor<512x64xf8E4M3FN> [tensor<16x64xf8E8M0FNU>], tensor<256x256xf8E4M3FN> [tensor<8x256xf8E8M0FNU>], tensor<8xi32> -> tensor<8x64x256xbf16>
  return
}

// -----

func.func @scaled_grouped_mm_rejects_2d2d_result(%go: tensor<512x64xf8E4M3FN>, %gos: tensor<16x64xf8E8M0FNU>, %a: tensor<512x256xf8E4M3FN>, %as: tensor<16x256xf8E8M0FNU>, %offs: tensor<8xi32>) {
  // expected-error @+1 {{expects a result of shape 8x64x256, found 4x64x256}}
  %0 = mxfp8train.scaled_grouped_mm %go [%gos], %a [%as] offs(%offs) transpose_lhs : tensor<512x64xf8E4M3FN> [tensor<16x64xf8E8M0FNU>], tensor<512x256xf8E4M3FN> [tensor<16x256xf8E8M0FNU>], tensor<8xi32> -> tensor<4x64x256xbf16>
  return
}

// -----

func.func @scaled_grouped_mm_rejects_2d2d_scales(%go: tensor<512x64xf8E4M3FN>, %gos: tensor<512x2xf8E8M0FNU>, %a: tensor<512x256xf8E4M3FN>, %as: tensor<16x256xf8E8M0FNU>, %offs: tensor<8xi32>) {
  // expected-error @+1 {{expects the lhs scales of shape 16x64 (the data shape with dimension 0 divided by 32), found 512x2}}
  %0 = mxfp8train.scaled_grouped_mm %go [%gos], %a [%as] offs(%offs) transpose_lhs : tensor<512x64xf8E4M3FN> [tensor<512x2xf8E8M0FNU>], tensor<512x256xf8E4M3FN> [tensor<16x256xf8E8M0FNU>], tensor<8xi32> -> tensor<8x64x256xbf16>
  return
}

// -----

func.func @scaled_grouped_mm_rejects_rank_4_rhs(%a: tensor<512x256xf8E4M3FN>, %as: tensor<512x8xf8E8M0FNU>, %w: tensor<2x8x64x256xf8E4M3FN>, %ws: tensor<2x8x64x8xf8E8M0FNU>, %offs: tensor<8xi32>) {
  // expected-error @+1 {{expects rhs of rank 2 (2d-2d) or 3 (2d-3d), found rank 4}}
  %0 = mxfp8train.scaled_grouped_mm %a [%as], %w [%ws] offs(%offs) : tensor<512x256xf8E4M3FN> [tensor<512x8xf8E8M0FNU>], tensor<2x8x64x256xf8E4M3FN> [tensor<2x8x64x8xf8E8M0FNU>], tensor<8xi32> -> tensor<512x64xbf16>
  return
}

// -----

// expected-error @+1 {{recipe token_group_alignment must be 32 or 128, found 64}}
func.func @recipe_rejects_alignment() attributes {r = #mxfp8train.recipe<token_group_alignment = 64>} {
  return
}

// -----

// expected-error @+1 {{recipe elem_type must be f8E4M3FN or f8E5M2, found 'bf16'}}
func.func @recipe_rejects_elem_type() attributes {r = #mxfp8train.recipe<elem_type = bf16>} {
  return
}

// -----

// expected-error @+1 {{recipe out_dtype must be bf16 or f32, found 'f16'}}
func.func @recipe_rejects_out_dtype() attributes {r = #mxfp8train.recipe<out_dtype = f16>} {
  return
}

// -----

// expected-error @+1 {{unknown recipe field 'block_size'}}
func.func @recipe_rejects_unknown_field() attributes {r = #mxfp8train.recipe<block_size = 32>} {
  return
}

// -----

// expected-error @+1 {{expected a recipe field or one of the named recipes mxfp8_rceil, mxfp8_rceil_wgrad_with_hp, mxfp8_emulated_rceil (first), found 'mxfp8_cublas'}}
func.func @recipe_rejects_unknown_name() attributes {r = #mxfp8train.recipe<mxfp8_cublas>} {
  return
}

// -----

// expected-error @+1 {{expected floor, rceil, ceil or even, found 'nearest'}}
func.func @recipe_rejects_unknown_mode() attributes {r = #mxfp8train.recipe<scale_calculation_mode = nearest>} {
  return
}

// -----

// expected-error @+1 {{expected 'true' or 'false', found 'yes'}}
func.func @recipe_rejects_bool() attributes {r = #mxfp8train.recipe<wgrad_with_hp = yes>} {
  return
}

// -----

// expected-error @+1 {{expected auto or emulated, found 'cutlass'}}
func.func @recipe_rejects_kernel_preference() attributes {r = #mxfp8train.recipe<kernel_preference = cutlass>} {
  return
}

// -----

func.func @grouped_mm_rejects_offs_length(%a: tensor<512x256xbf16>, %w: tensor<8x64x256xbf16>, %offs: tensor<4xi32>) {
  // expected-error @+1 {{'mxfp8train.grouped_mm' op expects one offs entry per expert (8), found 4}}
  %0 = mxfp8train.grouped_mm %a, %w offs(%offs) transpose_rhs : tensor<512x256xbf16>, tensor<8x64x256xbf16>, tensor<4xi32> -> tensor<512x64xbf16>
  return
}

// -----

func.func @grouped_mm_rejects_2d2d_result(%go: tensor<512x64xbf16>, %a: tensor<512x256xbf16>, %offs: tensor<8xi32>) {
  // expected-error @+1 {{expects a result of shape 8x64x256, found 8x256x64}}
  %0 = mxfp8train.grouped_mm %go, %a offs(%offs) transpose_lhs : tensor<512x64xbf16>, tensor<512x256xbf16>, tensor<8xi32> -> tensor<8x256x64xbf16>
  return
}

// -----

func.func @scaled_grouped_mm_rejects_blocked_for_2d3d_lhs(%a: tensor<512x256xf8E4M3FN>, %as: tensor<4096xf8E8M0FNU>, %w: tensor<8x64x256xf8E4M3FN>, %ws: tensor<8x64x8xf8E8M0FNU>, %offs: tensor<8xi32>) {
  // expected-error @+1 {{expects the row_major or blocked_m_groups layout for the lhs scales, found blocked}}
  %0 = mxfp8train.scaled_grouped_mm %a [%as], %w [%ws] offs(%offs) transpose_rhs lhs_layout = blocked : tensor<512x256xf8E4M3FN> [tensor<4096xf8E8M0FNU>], tensor<8x64x256xf8E4M3FN> [tensor<8x64x8xf8E8M0FNU>], tensor<8xi32> -> tensor<512x64xbf16>
  return
}

// -----

func.func @scaled_grouped_mm_rejects_m_groups_size(%a: tensor<512x256xf8E4M3FN>, %as: tensor<4096xf8E8M0FNU>, %w: tensor<8x64x256xf8E4M3FN>, %ws: tensor<8x64x8xf8E8M0FNU>, %offs: tensor<8xi32>) {
  // expected-error @+1 {{expects the lhs scales of shape 12288 in the blocked_m_groups layout, found 4096}}
  %0 = mxfp8train.scaled_grouped_mm %a [%as], %w [%ws] offs(%offs) transpose_rhs lhs_layout = blocked_m_groups : tensor<512x256xf8E4M3FN> [tensor<4096xf8E8M0FNU>], tensor<8x64x256xf8E4M3FN> [tensor<8x64x8xf8E8M0FNU>], tensor<8xi32> -> tensor<512x64xbf16>
  return
}

// -----

func.func @scaled_grouped_mm_rejects_per_expert_size(%a: tensor<512x256xf8E4M3FN>, %as: tensor<512x8xf8E8M0FNU>, %w: tensor<8x64x256xf8E4M3FN>, %ws: tensor<8x512xf8E8M0FNU>, %offs: tensor<8xi32>) {
  // expected-error @+1 {{expects the rhs scales of shape 8x1024 in the blocked_per_expert layout, found 8x512}}
  %0 = mxfp8train.scaled_grouped_mm %a [%as], %w [%ws] offs(%offs) transpose_rhs rhs_layout = blocked_per_expert : tensor<512x256xf8E4M3FN> [tensor<512x8xf8E8M0FNU>], tensor<8x64x256xf8E4M3FN> [tensor<8x512xf8E8M0FNU>], tensor<8xi32> -> tensor<512x64xbf16>
  return
}

// -----

func.func @scaled_mm_rejects_grouped_layout(%a: tensor<64x128xf8E4M3FN>, %as: tensor<512xf8E8M0FNU>, %b: tensor<128x32xf8E4M3FN>, %bs: tensor<4x32xf8E8M0FNU>) {
  // expected-error @+1 {{expects the row_major or blocked layout for the lhs scales, found blocked_m_groups}}
  %0 = mxfp8train.scaled_mm %a [%as], %b [%bs] lhs_layout = blocked_m_groups : tensor<64x128xf8E4M3FN> [tensor<512xf8E8M0FNU>], tensor<128x32xf8E4M3FN> [tensor<4x32xf8E8M0FNU>] -> tensor<64x32xbf16>
  return
}

// -----

func.func @pad_token_groups_rejects_rows(%x: tensor<200x256xbf16>, %offs: tensor<8xi32>) {
  // expected-error @+1 {{'mxfp8train.pad_token_groups' op expects 480 padded rows (ceil((200 + 32*8)/32)*32), found 456}}
  %xp, %p = mxfp8train.pad_token_groups %x offs(%offs) alignment = 32 : tensor<200x256xbf16>, tensor<8xi32> -> tensor<456x256xbf16>, tensor<8xi32>
  return
}

// -----

func.func @pad_token_groups_rejects_alignment(%x: tensor<200x256xbf16>, %offs: tensor<8xi32>) {
  // expected-error @+1 {{expects alignment 16, 32 or 128, found 64}}
  %xp, %p = mxfp8train.pad_token_groups %x offs(%offs) alignment = 64 : tensor<200x256xbf16>, tensor<8xi32> -> tensor<768x256xbf16>, tensor<8xi32>
  return
}

// -----

func.func @pad_token_groups_rejects_columns(%x: tensor<200x256xbf16>, %offs: tensor<8xi32>) {
  // expected-error @+1 {{expects the padded and unpadded tensors to have the same number of columns, found 256 and 128}}
  %xp, %p = mxfp8train.pad_token_groups %x offs(%offs) alignment = 32 : tensor<200x256xbf16>, tensor<8xi32> -> tensor<480x128xbf16>, tensor<8xi32>
  return
}

// -----

func.func @unpad_token_groups_rejects_rows(%y: tensor<480x64xbf16>, %offs: tensor<8xi32>) {
  // expected-error @+1 {{'mxfp8train.unpad_token_groups' op expects 448 padded rows (ceil((190 + 32*8)/32)*32), found 480}}
  %u = mxfp8train.unpad_token_groups %y offs(%offs) alignment = 32 : tensor<480x64xbf16>, tensor<8xi32> -> tensor<190x64xbf16>
  return
}

// -----

func.func @to_blocked_rejects_row_major(%s: tensor<100x3xf8E8M0FNU>) {
  // expected-error @+1 {{'mxfp8train.to_blocked' op expects a blocked target layout, found row_major}}
  %0 = mxfp8train.to_blocked %s layout = row_major : tensor<100x3xf8E8M0FNU> -> tensor<300xf8E8M0FNU>
  return
}

// -----

func.func @to_blocked_rejects_missing_offs(%s: tensor<512x8xf8E8M0FNU>) {
  // expected-error @+1 {{expects offs with the blocked_m_groups layout}}
  %0 = mxfp8train.to_blocked %s layout = blocked_m_groups : tensor<512x8xf8E8M0FNU> -> tensor<12288xf8E8M0FNU>
  return
}

// -----

func.func @to_blocked_rejects_stray_offs(%s: tensor<100x3xf8E8M0FNU>, %offs: tensor<8xi32>) {
  // expected-error @+1 {{expects no offs with the blocked layout}}
  %0 = mxfp8train.to_blocked %s offs(%offs) layout = blocked : tensor<100x3xf8E8M0FNU>, tensor<8xi32> -> tensor<512xf8E8M0FNU>
  return
}

// -----

func.func @to_blocked_rejects_rank(%s: tensor<8x64x8xf8E8M0FNU>) {
  // expected-error @+1 {{expects scales of rank 2 for the blocked layout, found rank 3}}
  %0 = mxfp8train.to_blocked %s layout = blocked : tensor<8x64x8xf8E8M0FNU> -> tensor<512xf8E8M0FNU>
  return
}

// -----

func.func @to_blocked_rejects_size(%s: tensor<100x3xf8E8M0FNU>) {
  // expected-error @+1 {{expects a result of shape 512 for the blocked layout, found 300}}
  %0 = mxfp8train.to_blocked %s layout = blocked : tensor<100x3xf8E8M0FNU> -> tensor<300xf8E8M0FNU>
  return
}

// -----

func.func @to_blocked_rejects_k_groups_size(%s: tensor<64x16xf8E8M0FNU>, %offs: tensor<8xi32>) {
  // expected-error @+1 {{expects a result of shape 6144 for the blocked_k_groups layout, found 2048}}
  %0 = mxfp8train.to_blocked %s offs(%offs) layout = blocked_k_groups : tensor<64x16xf8E8M0FNU>, tensor<8xi32> -> tensor<2048xf8E8M0FNU>
  return
}

// -----

// Constant offs are checked against SPEC §7.1: a 2d-2d scaled_grouped_mm
// contracts whole 32-token scale blocks per group, so a group end that is not
// a multiple of 32 would read the wrong scales (issue 14 row 8).
func.func @scaled_grouped_mm_rejects_2d2d_unaligned_offs(%go: tensor<64x64xf8E4M3FN>, %gos: tensor<2x64xf8E8M0FNU>, %a: tensor<64x32xf8E4M3FN>, %as: tensor<2x32xf8E8M0FNU>) {
  %offs = arith.constant dense<[40, 64]> : tensor<2xi32>
  // expected-error @+1 {{'mxfp8train.scaled_grouped_mm' op expects every offs entry to be a multiple of 32 (2d-2d groups are whole 32-token scale blocks), found offs[0] = 40}}
  %0 = mxfp8train.scaled_grouped_mm %go [%gos], %a [%as] offs(%offs) transpose_lhs : tensor<64x64xf8E4M3FN> [tensor<2x64xf8E8M0FNU>], tensor<64x32xf8E4M3FN> [tensor<2x32xf8E8M0FNU>], tensor<2xi32> -> tensor<2x64x32xbf16>
  return
}

// -----

func.func @grouped_mm_rejects_decreasing_offs(%a: tensor<64x64xbf16>, %w: tensor<2x64x64xbf16>) {
  %offs = arith.constant dense<[48, 16]> : tensor<2xi32>
  // expected-error @+1 {{'mxfp8train.grouped_mm' op expects non-decreasing offs, found offs[1] = 16 after 48}}
  %0 = mxfp8train.grouped_mm %a, %w offs(%offs) transpose_rhs : tensor<64x64xbf16>, tensor<2x64x64xbf16>, tensor<2xi32> -> tensor<64x64xbf16>
  return
}

// -----

func.func @grouped_mm_rejects_offs_past_tokens(%a: tensor<64x64xbf16>, %w: tensor<2x64x64xbf16>) {
  %offs = arith.constant dense<[32, 96]> : tensor<2xi32>
  // expected-error @+1 {{'mxfp8train.grouped_mm' op expects offs at most the token count 64, found offs[1] = 96}}
  %0 = mxfp8train.grouped_mm %a, %w offs(%offs) transpose_rhs : tensor<64x64xbf16>, tensor<2x64x64xbf16>, tensor<2xi32> -> tensor<64x64xbf16>
  return
}

// -----

func.func @grouped_mm_rejects_negative_offs(%a: tensor<64x64xbf16>, %w: tensor<2x64x64xbf16>) {
  %offs = arith.constant dense<[-32, 64]> : tensor<2xi32>
  // expected-error @+1 {{'mxfp8train.grouped_mm' op expects offs entries >= 0, found offs[0] = -32}}
  %0 = mxfp8train.grouped_mm %a, %w offs(%offs) transpose_rhs : tensor<64x64xbf16>, tensor<2x64x64xbf16>, tensor<2xi32> -> tensor<64x64xbf16>
  return
}

// -----

func.func @pad_token_groups_rejects_offs_past_tokens(%x: tensor<200x256xbf16>) {
  %offs = arith.constant dense<[100, 201]> : tensor<2xi32>
  // expected-error @+1 {{'mxfp8train.pad_token_groups' op expects offs at most the token count 200, found offs[1] = 201}}
  %xp, %p = mxfp8train.pad_token_groups %x offs(%offs) alignment = 32 : tensor<200x256xbf16>, tensor<2xi32> -> tensor<288x256xbf16>, tensor<2xi32>
  return
}
