// RUN: mxfp8-opt %s -split-input-file -verify-diagnostics

// #mxfp8train.gemm_config and the discardable mxfp8train.* attributes: one
// case per diagnostic.

func.func @gemm_config_rejects_other_attribute(%a: tensor<128x64xf8E4M3FN>, %as: tensor<128x2xf8E8M0FNU>) {
  // expected-error @+1 {{'mxfp8train.scaled_mm' op 'mxfp8train.gemm_config' must be a #mxfp8train.gemm_config, found 7 : i64}}
  %0 = mxfp8train.scaled_mm %a [%as], %a [%as] transpose_rhs {mxfp8train.gemm_config = 7 : i64}
      : tensor<128x64xf8E4M3FN> [tensor<128x2xf8E8M0FNU>], tensor<128x64xf8E4M3FN> [tensor<128x2xf8E8M0FNU>] -> tensor<128x128xbf16>
  return
}

// -----

// expected-error @+1 {{'func.func' op 'mxfp8train.gemm_config' applies to mxfp8train.scaled_mm and mxfp8train.scaled_grouped_mm only}}
func.func @gemm_config_rejects_other_op() attributes {mxfp8train.gemm_config = #mxfp8train.gemm_config<>} {
  return
}

// -----

func.func @rejects_unknown_discardable_attribute(%a: tensor<128x64xf8E4M3FN>, %as: tensor<128x2xf8E8M0FNU>) {
  // expected-error @+1 {{'mxfp8train.scaled_mm' op has unknown discardable attribute 'mxfp8train.gemm_version' (expected mxfp8train.gemm_config, mxfp8train.role, mxfp8train.grad_output, mxfp8train.offs_alignment, mxfp8train.recipe or mxfp8train.use_fast_accum)}}
  %0 = mxfp8train.scaled_mm %a [%as], %a [%as] transpose_rhs {mxfp8train.gemm_version = 8 : i64}
      : tensor<128x64xf8E4M3FN> [tensor<128x2xf8E8M0FNU>], tensor<128x64xf8E4M3FN> [tensor<128x2xf8E8M0FNU>] -> tensor<128x128xbf16>
  return
}

// -----

func.func @use_fast_accum_rejects_non_bool(%x: tensor<16x64xf8E4M3FN>, %xs: tensor<16x1xf32>, %w: tensor<32x64xf8E4M3FN>, %ws: tensor<32x1xf32>) {
  // expected-error @+1 {{'mxfp8train.scaled_mm' op 'mxfp8train.use_fast_accum' must be a bool, found 1 : i64}}
  %y = mxfp8train.scaled_mm %x [%xs], %w [%ws] transpose_rhs {mxfp8train.use_fast_accum = 1 : i64}
      : tensor<16x64xf8E4M3FN> [tensor<16x1xf32>], tensor<32x64xf8E4M3FN> [tensor<32x1xf32>] -> tensor<16x32xbf16>
  return
}

// -----

func.func @use_fast_accum_rejects_mx_gemm(%a: tensor<128x64xf8E4M3FN>, %as: tensor<128x2xf8E8M0FNU>) {
  // expected-error @+1 {{'mxfp8train.scaled_mm' op 'mxfp8train.use_fast_accum' applies to Float8 mxfp8train.scaled_mm and mxfp8train.scaled_grouped_mm only (MX GEMMs accumulate in f32)}}
  %0 = mxfp8train.scaled_mm %a [%as], %a [%as] transpose_rhs {mxfp8train.use_fast_accum = true}
      : tensor<128x64xf8E4M3FN> [tensor<128x2xf8E8M0FNU>], tensor<128x64xf8E4M3FN> [tensor<128x2xf8E8M0FNU>] -> tensor<128x128xbf16>
  return
}

// -----

// The recipe a module was converted with (mxfp8train-rewrite-matmuls).
// expected-error @+1 {{'builtin.module' op 'mxfp8train.recipe' must be a training recipe, found "mxfp8_rceil"}}
module attributes {mxfp8train.recipe = "mxfp8_rceil"} {
}

// -----

// expected-error @+1 {{'func.func' op 'mxfp8train.recipe' applies to builtin.module only}}
func.func @recipe_rejects_other_op() attributes {mxfp8train.recipe = #mxfp8train.recipe<mxfp8_rceil>} {
  return
}

// -----

// expected-error @+1 {{gemm_config stages must be in [2, 6], found 7}}
func.func @gemm_config_rejects_stages() attributes {test.c = #mxfp8train.gemm_config<kernel = fused_upcast_ws, stages = 7>} {
  return
}

// -----

// expected-error @+1 {{gemm_config stages must be at most 4 with kernel = dequant_bf16 and tile_n = 256, found 5}}
func.func @gemm_config_rejects_stages_of_wide_tiles() attributes {test.c = #mxfp8train.gemm_config<stages = 5>} {
  return
}

// -----

// expected-error @+1 {{gemm_config stages does not apply to kernel = fused_upcast}}
func.func @gemm_config_rejects_stages_of_fused_upcast() attributes {test.c = #mxfp8train.gemm_config<kernel = fused_upcast, stages = 3>} {
  return
}

// -----

// expected-error @+1 {{gemm_config converters does not apply to kernel = fused_upcast}}
func.func @gemm_config_rejects_converters_of_fused_upcast() attributes {test.c = #mxfp8train.gemm_config<kernel = fused_upcast, converters = 1>} {
  return
}

// -----

// expected-error @+1 {{gemm_config tile_n must be 128 or 256, found 64}}
func.func @gemm_config_rejects_tile_n() attributes {test.c = #mxfp8train.gemm_config<tile_n = 64>} {
  return
}

// -----

// expected-error @+1 {{gemm_config tile_n applies to kernel = dequant_bf16 only, found kernel = fused_upcast_ws}}
func.func @gemm_config_rejects_tile_n_of_fused_upcast() attributes {test.c = #mxfp8train.gemm_config<kernel = fused_upcast_ws, tile_n = 128>} {
  return
}

// -----

// expected-error @+1 {{gemm_config dequant_ctas applies to kernel = dequant_bf16 only, found kernel = fused_upcast}}
func.func @gemm_config_rejects_dequant_ctas_of_fused_upcast() attributes {test.c = #mxfp8train.gemm_config<kernel = fused_upcast, dequant_ctas = 8>} {
  return
}

// -----

// expected-error @+1 {{gemm_config dequant_ctas must be >= 0 (0: no cap), found -1}}
func.func @gemm_config_rejects_dequant_ctas() attributes {test.c = #mxfp8train.gemm_config<dequant_ctas = -1>} {
  return
}

// -----

// expected-error @+1 {{gemm_config prefetch must be in [1, 4], found 5}}
func.func @gemm_config_rejects_prefetch() attributes {test.c = #mxfp8train.gemm_config<prefetch = 5>} {
  return
}

// -----

// expected-error @+1 {{gemm_config ctas_per_sm must be in [1, 2], found 3}}
func.func @gemm_config_rejects_ctas_per_sm() attributes {test.c = #mxfp8train.gemm_config<kernel = fused_upcast, ctas_per_sm = 3>} {
  return
}

// -----

// expected-error @+1 {{gemm_config converters must be in [1, 2], found 0}}
func.func @gemm_config_rejects_converters() attributes {test.c = #mxfp8train.gemm_config<converters = 0>} {
  return
}

// -----

// expected-error @+1 {{gemm_config cta_group must be in [1, 2], found 4}}
func.func @gemm_config_rejects_cta_group() attributes {test.c = #mxfp8train.gemm_config<cta_group = 4>} {
  return
}

// -----

// expected-error @+2 {{expected 'true' or 'false'}}
// expected-error @+1 {{failed to parse MXFP8Train_GemmConfigAttr parameter 'rebalance' which is to be a `bool`}}
func.func @gemm_config_rejects_rebalance() attributes {test.c = #mxfp8train.gemm_config<rebalance = 0>} {
  return
}

// -----

// expected-error @+2 {{expected ::mlir::mxfp8train::GemmKernel to be one of: dequant_bf16, fused_upcast_ws, fused_upcast}}
// expected-error @+1 {{failed to parse MXFP8Train_GemmConfigAttr parameter 'kernel' which is to be a `::mlir::mxfp8train::GemmKernel`}}
func.func @gemm_config_rejects_kernel() attributes {test.c = #mxfp8train.gemm_config<kernel = v6>} {
  return
}

// -----

// expected-error @+1 {{duplicate or unknown struct parameter name: version}}
func.func @gemm_config_rejects_unknown_field() attributes {test.c = #mxfp8train.gemm_config<version = 8>} {
  return
}

// -----

// expected-error @+1 {{gemm_config cluster_m must be in [1, 2], found 4}}
func.func @gemm_config_rejects_cluster_m() attributes {test.c = #mxfp8train.gemm_config<cluster_m = 4>} {
  return
}

// -----

// expected-error @+1 {{gemm_config cluster_m applies to kernel = dequant_bf16 only, found kernel = fused_upcast_ws}}
func.func @gemm_config_rejects_cluster_m_kernel() attributes {test.c = #mxfp8train.gemm_config<kernel = fused_upcast_ws, cluster_m = 2>} {
  return
}
