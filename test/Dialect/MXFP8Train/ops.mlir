// RUN: mxfp8-opt %s --verify-roundtrip | FileCheck %s
// RUN: mxfp8-opt %s --mlir-print-op-generic | mxfp8-opt | FileCheck %s
// One space after '=' before an enum attribute (the declarative format
// used to print two): checked with --strict-whitespace.
// RUN: mxfp8-opt %s | FileCheck %s --strict-whitespace --check-prefix=SPACES
// SPACES: mxfp8train.quantize %arg2 axis = 1 mode = rceil layout = blocked :
// SPACES: mxfp8train.dequantize %arg0[%arg2] axis = 1 layout = blocked :
// SPACES: transpose_rhs lhs_layout = blocked rhs_layout = blocked :

// CHECK-LABEL: func.func @quantize_row_and_column
func.func @quantize_row_and_column(%x: tensor<64x128xbf16>) -> (tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>, tensor<64x128xf8E4M3FN>, tensor<2x128xf8E8M0FNU>) {
  // CHECK: mxfp8train.quantize %{{.*}} axis = 1 mode = rceil : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>
  %q0, %s0 = mxfp8train.quantize %x axis = 1 mode = rceil : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>
  // CHECK: mxfp8train.quantize %{{.*}} axis = 0 mode = floor : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<2x128xf8E8M0FNU>
  %q1, %s1 = mxfp8train.quantize %x axis = 0 mode = floor : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<2x128xf8E8M0FNU>
  return %q0, %s0, %q1, %s1 : tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>, tensor<64x128xf8E4M3FN>, tensor<2x128xf8E8M0FNU>
}

// CHECK-LABEL: func.func @quantize_modes_ranks_and_layouts
func.func @quantize_modes_ranks_and_layouts(%x: tensor<32xf32>, %y: tensor<2x3x64xf32>, %z: tensor<100x64xbf16>) {
  // CHECK: axis = 0 mode = ceil : tensor<32xf32> -> tensor<32xf8E5M2>, tensor<1xf8E8M0FNU>
  %a, %as = mxfp8train.quantize %x axis = 0 mode = ceil : tensor<32xf32> -> tensor<32xf8E5M2>, tensor<1xf8E8M0FNU>
  // CHECK: axis = 2 mode = even : tensor<2x3x64xf32>
  %b, %bs = mxfp8train.quantize %y axis = 2 mode = even : tensor<2x3x64xf32> -> tensor<2x3x64xf8E4M3FN>, tensor<2x3x2xf8E8M0FNU>
  // CHECK: axis = 1 mode = rceil layout = blocked : tensor<100x64xbf16> -> tensor<100x64xf8E4M3FN>, tensor<512xf8E8M0FNU>
  %c, %cs = mxfp8train.quantize %z axis = 1 mode = rceil layout = blocked : tensor<100x64xbf16> -> tensor<100x64xf8E4M3FN>, tensor<512xf8E8M0FNU>
  return
}

// CHECK-LABEL: func.func @dequantize_both_layouts
func.func @dequantize_both_layouts(%q: tensor<64x128xf8E4M3FN>, %s: tensor<64x4xf8E8M0FNU>, %b: tensor<512xf8E8M0FNU>) -> (tensor<64x128xbf16>, tensor<64x128xf32>) {
  // CHECK: mxfp8train.dequantize %{{.*}}[%{{.*}}] axis = 1 : tensor<64x128xf8E4M3FN>[tensor<64x4xf8E8M0FNU>] -> tensor<64x128xbf16>
  %x = mxfp8train.dequantize %q [%s] axis = 1 : tensor<64x128xf8E4M3FN> [tensor<64x4xf8E8M0FNU>] -> tensor<64x128xbf16>
  // CHECK: axis = 1 layout = blocked
  %y = mxfp8train.dequantize %q [%b] axis = 1 layout = blocked : tensor<64x128xf8E4M3FN> [tensor<512xf8E8M0FNU>] -> tensor<64x128xf32>
  return %x, %y : tensor<64x128xbf16>, tensor<64x128xf32>
}

// CHECK-LABEL: func.func @scaled_mm_forms
func.func @scaled_mm_forms(%x: tensor<64x128xf8E4M3FN>, %xs: tensor<64x4xf8E8M0FNU>,
                           %w: tensor<256x128xf8E4M3FN>, %ws: tensor<256x4xf8E8M0FNU>,
                           %bias: tensor<256xf32>,
                           %go: tensor<64x256xf8E4M3FN>, %gos: tensor<2x256xf8E8M0FNU>,
                           %xc: tensor<64x128xf8E4M3FN>, %xcs: tensor<2x128xf8E8M0FNU>) {
  // CHECK: mxfp8train.scaled_mm %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}] bias(%{{.*}}) transpose_rhs : tensor<64x128xf8E4M3FN>[tensor<64x4xf8E8M0FNU>], tensor<256x128xf8E4M3FN>[tensor<256x4xf8E8M0FNU>], tensor<256xf32> -> tensor<64x256xbf16>
  %0 = mxfp8train.scaled_mm %x [%xs], %w [%ws] bias(%bias) transpose_rhs : tensor<64x128xf8E4M3FN> [tensor<64x4xf8E8M0FNU>], tensor<256x128xf8E4M3FN> [tensor<256x4xf8E8M0FNU>], tensor<256xf32> -> tensor<64x256xbf16>
  // CHECK: mxfp8train.scaled_mm {{.*}} transpose_lhs : {{.*}} -> tensor<256x128xf32>
  %1 = mxfp8train.scaled_mm %go [%gos], %xc [%xcs] transpose_lhs : tensor<64x256xf8E4M3FN> [tensor<2x256xf8E8M0FNU>], tensor<64x128xf8E4M3FN> [tensor<2x128xf8E8M0FNU>] -> tensor<256x128xf32>
  return
}

// CHECK-LABEL: func.func @scaled_mm_blocked_scales
func.func @scaled_mm_blocked_scales(%a: tensor<129x256xf8E4M3FN>, %as: tensor<2048xf8E8M0FNU>, %b: tensor<384x256xf8E4M3FN>, %bs: tensor<3072xf8E8M0FNU>) -> tensor<129x384xbf16> {
  // CHECK: transpose_rhs lhs_layout = blocked rhs_layout = blocked
  %0 = mxfp8train.scaled_mm %a [%as], %b [%bs] transpose_rhs lhs_layout = blocked rhs_layout = blocked : tensor<129x256xf8E4M3FN> [tensor<2048xf8E8M0FNU>], tensor<384x256xf8E4M3FN> [tensor<3072xf8E8M0FNU>] -> tensor<129x384xbf16>
  return %0 : tensor<129x384xbf16>
}

// CHECK-LABEL: func.func @scaled_mm_batched
func.func @scaled_mm_batched(%a: tensor<4x64x128xf8E4M3FN>, %as: tensor<4x64x4xf8E8M0FNU>, %b: tensor<4x128x32xf8E4M3FN>, %bs: tensor<4x4x32xf8E8M0FNU>) -> tensor<4x64x32xf32> {
  // CHECK: mxfp8train.scaled_mm {{.*}} -> tensor<4x64x32xf32>
  %0 = mxfp8train.scaled_mm %a [%as], %b [%bs] : tensor<4x64x128xf8E4M3FN> [tensor<4x64x4xf8E8M0FNU>], tensor<4x128x32xf8E4M3FN> [tensor<4x4x32xf8E8M0FNU>] -> tensor<4x64x32xf32>
  return %0 : tensor<4x64x32xf32>
}

// CHECK-LABEL: func.func @scaled_grouped_mm_forms
func.func @scaled_grouped_mm_forms(%a: tensor<512x256xf8E4M3FN>, %as: tensor<512x8xf8E8M0FNU>,
                                   %w: tensor<8x64x256xf8E4M3FN>, %ws: tensor<8x64x8xf8E8M0FNU>,
                                   %offs: tensor<8xi32>,
                                   %go: tensor<512x64xf8E4M3FN>, %gos: tensor<16x64xf8E8M0FNU>,
                                   %ac: tensor<512x256xf8E4M3FN>, %acs: tensor<16x256xf8E8M0FNU>) {
  // CHECK: mxfp8train.scaled_grouped_mm %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}] offs(%{{.*}}) transpose_rhs : {{.*}} -> tensor<512x64xbf16>
  %0 = mxfp8train.scaled_grouped_mm %a [%as], %w [%ws] offs(%offs) transpose_rhs : tensor<512x256xf8E4M3FN> [tensor<512x8xf8E8M0FNU>], tensor<8x64x256xf8E4M3FN> [tensor<8x64x8xf8E8M0FNU>], tensor<8xi32> -> tensor<512x64xbf16>
  // CHECK: mxfp8train.scaled_grouped_mm {{.*}} transpose_lhs : {{.*}} -> tensor<8x64x256xf32>
  %1 = mxfp8train.scaled_grouped_mm %go [%gos], %ac [%acs] offs(%offs) transpose_lhs : tensor<512x64xf8E4M3FN> [tensor<16x64xf8E8M0FNU>], tensor<512x256xf8E4M3FN> [tensor<16x256xf8E8M0FNU>], tensor<8xi32> -> tensor<8x64x256xf32>
  return
}

// CHECK-LABEL: func.func @recipes
// CHECK-SAME: test.a = #mxfp8train.recipe<mxfp8_rceil>
// CHECK-SAME: test.b = #mxfp8train.recipe<mxfp8_rceil_wgrad_with_hp>
// CHECK-SAME: test.c = #mxfp8train.recipe<mxfp8_emulated_rceil>
// CHECK-SAME: test.d = #mxfp8train.recipe<scale_calculation_mode = floor, wgrad_with_hp = true, out_dtype = f32, pad_token_groups = true, token_group_alignment = 128>
// CHECK-SAME: test.e = #mxfp8train.recipe<elem_type = f8E5M2>
// CHECK-SAME: test.f = #mxfp8train.recipe<mxfp8_rceil>
func.func @recipes() attributes {
    test.a = #mxfp8train.recipe<mxfp8_rceil>,
    test.b = #mxfp8train.recipe<wgrad_with_hp = true>,
    test.c = #mxfp8train.recipe<mxfp8_emulated_rceil>,
    test.d = #mxfp8train.recipe<mxfp8_rceil_wgrad_with_hp, scale_calculation_mode = floor, out_dtype = f32, pad_token_groups = true, token_group_alignment = 128>,
    test.e = #mxfp8train.recipe<elem_type = f8E5M2>,
    test.f = #mxfp8train.recipe<> } {
  return
}

// CHECK-LABEL: func.func @grouped_and_padding_ops
func.func @grouped_and_padding_ops(%x: tensor<200x256xbf16>, %w: tensor<8x64x256xbf16>, %offs: tensor<8xi32>, %go: tensor<200x64xf32>) {
  // CHECK: %{{.*}}, %{{.*}} = mxfp8train.pad_token_groups %{{.*}} offs(%{{.*}}) alignment = 32 : tensor<200x256xbf16>, tensor<8xi32> -> tensor<480x256xbf16>, tensor<8xi32>
  %xp, %poffs = mxfp8train.pad_token_groups %x offs(%offs) alignment = 32 : tensor<200x256xbf16>, tensor<8xi32> -> tensor<480x256xbf16>, tensor<8xi32>
  // CHECK: mxfp8train.grouped_mm %{{.*}}, %{{.*}} offs(%{{.*}}) transpose_rhs : tensor<480x256xbf16>, tensor<8x64x256xbf16>, tensor<8xi32> -> tensor<480x64xf32>
  %y = mxfp8train.grouped_mm %xp, %w offs(%poffs) transpose_rhs : tensor<480x256xbf16>, tensor<8x64x256xbf16>, tensor<8xi32> -> tensor<480x64xf32>
  // CHECK: mxfp8train.unpad_token_groups %{{.*}} offs(%{{.*}}) alignment = 32 : tensor<480x64xf32>, tensor<8xi32> -> tensor<200x64xf32>
  %u = mxfp8train.unpad_token_groups %y offs(%offs) alignment = 32 : tensor<480x64xf32>, tensor<8xi32> -> tensor<200x64xf32>
  // CHECK: mxfp8train.grouped_mm {{.*}} transpose_lhs : tensor<200x64xf32>, tensor<200x256xbf16>, tensor<8xi32> -> tensor<8x64x256xbf16>
  %dw = mxfp8train.grouped_mm %go, %x offs(%offs) transpose_lhs : tensor<200x64xf32>, tensor<200x256xbf16>, tensor<8xi32> -> tensor<8x64x256xbf16>
  return
}

// CHECK-LABEL: func.func @to_blocked_layouts
func.func @to_blocked_layouts(%s: tensor<100x3xf8E8M0FNU>, %m: tensor<512x8xf8E8M0FNU>, %k: tensor<64x16xf8E8M0FNU>, %e: tensor<8x64x8xf8E8M0FNU>, %offs: tensor<8xi32>) {
  // CHECK: mxfp8train.to_blocked %{{.*}} layout = blocked : tensor<100x3xf8E8M0FNU> -> tensor<512xf8E8M0FNU>
  %0 = mxfp8train.to_blocked %s layout = blocked : tensor<100x3xf8E8M0FNU> -> tensor<512xf8E8M0FNU>
  // CHECK: mxfp8train.to_blocked %{{.*}} offs(%{{.*}}) layout = blocked_m_groups : tensor<512x8xf8E8M0FNU>, tensor<8xi32> -> tensor<12288xf8E8M0FNU>
  %1 = mxfp8train.to_blocked %m offs(%offs) layout = blocked_m_groups : tensor<512x8xf8E8M0FNU>, tensor<8xi32> -> tensor<12288xf8E8M0FNU>
  // CHECK: layout = blocked_k_groups : tensor<64x16xf8E8M0FNU>, tensor<8xi32> -> tensor<6144xf8E8M0FNU>
  %2 = mxfp8train.to_blocked %k offs(%offs) layout = blocked_k_groups : tensor<64x16xf8E8M0FNU>, tensor<8xi32> -> tensor<6144xf8E8M0FNU>
  // CHECK: layout = blocked_per_expert : tensor<8x64x8xf8E8M0FNU> -> tensor<8x1024xf8E8M0FNU>
  %3 = mxfp8train.to_blocked %e layout = blocked_per_expert : tensor<8x64x8xf8E8M0FNU> -> tensor<8x1024xf8E8M0FNU>
  return
}

// CHECK-LABEL: func.func @scaled_grouped_mm_blocked_layouts
func.func @scaled_grouped_mm_blocked_layouts(%a: tensor<512x256xf8E4M3FN>, %as: tensor<12288xf8E8M0FNU>,
    %w: tensor<8x64x256xf8E4M3FN>, %ws: tensor<8x1024xf8E8M0FNU>, %offs: tensor<8xi32>,
    %go: tensor<512x64xf8E4M3FN>, %gos: tensor<6144xf8E8M0FNU>, %ac: tensor<512x256xf8E4M3FN>, %acs: tensor<12288xf8E8M0FNU>) {
  // CHECK: lhs_layout = blocked_m_groups rhs_layout = blocked_per_expert
  %0 = mxfp8train.scaled_grouped_mm %a [%as], %w [%ws] offs(%offs) transpose_rhs lhs_layout = blocked_m_groups rhs_layout = blocked_per_expert : tensor<512x256xf8E4M3FN> [tensor<12288xf8E8M0FNU>], tensor<8x64x256xf8E4M3FN> [tensor<8x1024xf8E8M0FNU>], tensor<8xi32> -> tensor<512x64xbf16>
  // CHECK: lhs_layout = blocked_k_groups rhs_layout = blocked_k_groups
  %1 = mxfp8train.scaled_grouped_mm %go [%gos], %ac [%acs] offs(%offs) transpose_lhs lhs_layout = blocked_k_groups rhs_layout = blocked_k_groups : tensor<512x64xf8E4M3FN> [tensor<6144xf8E8M0FNU>], tensor<512x256xf8E4M3FN> [tensor<12288xf8E8M0FNU>], tensor<8xi32> -> tensor<8x64x256xf32>
  return
}
