// RUN: mxfp8-opt %s -split-input-file -verify-diagnostics

// One case per diagnostic of moe_dispatch and moe_combine
// (MoeExchangeOps.cpp): attributes, shapes, element types, the grid.

shard.grid @ep(shape = 4)
func.func @dispatch_rejects_zero_experts(%q: tensor<40x64xf8E4M3FN>, %s: tensor<40x2xf8E8M0FNU>, %route: tensor<40x2xi32>) {
  // expected-error @+1 {{'mxfp8train.moe_dispatch' op expects num_experts >= 1, found 0}}
  %rows, %rs, %offs, %counts = mxfp8train.moe_dispatch %q [%s], %route on @ep grid_axes = [0] num_experts = 0 capacity = 128
      : tensor<40x64xf8E4M3FN> [tensor<40x2xf8E8M0FNU>], tensor<40x2xi32> -> tensor<128x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU>, tensor<2xi32>, tensor<32xi32>
  return
}

// -----

shard.grid @ep(shape = 4)
func.func @dispatch_rejects_negative_experts(%q: tensor<40x64xf8E4M3FN>, %s: tensor<40x2xf8E8M0FNU>, %route: tensor<40x2xi32>) {
  // expected-error @+1 {{expects num_experts >= 1, found -8}}
  %rows, %rs, %offs, %counts = mxfp8train.moe_dispatch %q [%s], %route on @ep grid_axes = [0] num_experts = -8 capacity = 128
      : tensor<40x64xf8E4M3FN> [tensor<40x2xf8E8M0FNU>], tensor<40x2xi32> -> tensor<128x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU>, tensor<2xi32>, tensor<32xi32>
  return
}

// -----

shard.grid @ep(shape = 4)
func.func @dispatch_rejects_zero_capacity(%q: tensor<40x64xf8E4M3FN>, %s: tensor<40x2xf8E8M0FNU>, %route: tensor<40x2xi32>) {
  // expected-error @+1 {{expects capacity >= 1 (the rows each rank can receive), found 0}}
  %rows, %rs, %offs, %counts = mxfp8train.moe_dispatch %q [%s], %route on @ep grid_axes = [0] num_experts = 8 capacity = 0
      : tensor<40x64xf8E4M3FN> [tensor<40x2xf8E8M0FNU>], tensor<40x2xi32> -> tensor<128x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU>, tensor<2xi32>, tensor<32xi32>
  return
}

// -----

shard.grid @ep(shape = 4)
func.func @dispatch_rejects_zero_alignment(%q: tensor<40x64xf8E4M3FN>, %s: tensor<40x2xf8E8M0FNU>, %route: tensor<40x2xi32>) {
  // expected-error @+1 {{expects alignment >= 1 (the row multiple of each expert group), found 0}}
  %rows, %rs, %offs, %counts = mxfp8train.moe_dispatch %q [%s], %route on @ep grid_axes = [0] num_experts = 8 capacity = 128 alignment = 0
      : tensor<40x64xf8E4M3FN> [tensor<40x2xf8E8M0FNU>], tensor<40x2xi32> -> tensor<128x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU>, tensor<2xi32>, tensor<32xi32>
  return
}

// -----

shard.grid @ep(shape = 4)
func.func @dispatch_rejects_rank3_data(%q: tensor<2x20x64xf8E4M3FN>, %s: tensor<2x20x2xf8E8M0FNU>, %route: tensor<40x2xi32>) {
  // expected-error @+1 {{expects rank-2 data (tokens, K), found rank 3}}
  %rows, %rs, %offs, %counts = mxfp8train.moe_dispatch %q [%s], %route on @ep grid_axes = [0] num_experts = 8 capacity = 128
      : tensor<2x20x64xf8E4M3FN> [tensor<2x20x2xf8E8M0FNU>], tensor<40x2xi32> -> tensor<128x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU>, tensor<2xi32>, tensor<32xi32>
  return
}

// -----

shard.grid @ep(shape = 4)
func.func @dispatch_rejects_dynamic_tokens(%q: tensor<?x64xf8E4M3FN>, %s: tensor<40x2xf8E8M0FNU>, %route: tensor<40x2xi32>) {
  // expected-error @+1 {{expects static shapes (the exchange sizes its buffers at compile time), found 'tensor<?x64xf8E4M3FN>' for operand #0}}
  %rows, %rs, %offs, %counts = mxfp8train.moe_dispatch %q [%s], %route on @ep grid_axes = [0] num_experts = 8 capacity = 128
      : tensor<?x64xf8E4M3FN> [tensor<40x2xf8E8M0FNU>], tensor<40x2xi32> -> tensor<128x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU>, tensor<2xi32>, tensor<32xi32>
  return
}

// -----

shard.grid @ep(shape = 4)
func.func @dispatch_rejects_k_not_multiple_of_32(%q: tensor<40x48xf8E4M3FN>, %s: tensor<40x1xf8E8M0FNU>, %route: tensor<40x2xi32>) {
  // expected-error @+1 {{expects K (dimension 1 of the data) to be a positive multiple of 32, found 48}}
  %rows, %rs, %offs, %counts = mxfp8train.moe_dispatch %q [%s], %route on @ep grid_axes = [0] num_experts = 8 capacity = 128
      : tensor<40x48xf8E4M3FN> [tensor<40x1xf8E8M0FNU>], tensor<40x2xi32> -> tensor<128x48xf8E4M3FN>, tensor<128x1xf8E8M0FNU>, tensor<2xi32>, tensor<32xi32>
  return
}

// -----

shard.grid @ep(shape = 4)
func.func @dispatch_rejects_scale_shape(%q: tensor<40x64xf8E4M3FN>, %s: tensor<2x64xf8E8M0FNU>, %route: tensor<40x2xi32>) {
  // expected-error @+1 {{expects scales of shape 40x2 (1x32 blocks along K, as quantize axis = 1 makes them), found 2x64}}
  %rows, %rs, %offs, %counts = mxfp8train.moe_dispatch %q [%s], %route on @ep grid_axes = [0] num_experts = 8 capacity = 128
      : tensor<40x64xf8E4M3FN> [tensor<2x64xf8E8M0FNU>], tensor<40x2xi32> -> tensor<128x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU>, tensor<2xi32>, tensor<32xi32>
  return
}

// -----

shard.grid @ep(shape = 4)
func.func @dispatch_rejects_rank3_routing(%q: tensor<40x64xf8E4M3FN>, %s: tensor<40x2xf8E8M0FNU>, %route: tensor<40x2x1xi32>) {
  // expected-error @+1 {{expects token_experts of rank 1 (T * topK) or 2 (T, topK), found rank 3}}
  %rows, %rs, %offs, %counts = mxfp8train.moe_dispatch %q [%s], %route on @ep grid_axes = [0] num_experts = 8 capacity = 128
      : tensor<40x64xf8E4M3FN> [tensor<40x2xf8E8M0FNU>], tensor<40x2x1xi32> -> tensor<128x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU>, tensor<2xi32>, tensor<32xi32>
  return
}

// -----

shard.grid @ep(shape = 4)
func.func @dispatch_rejects_routing_rows(%q: tensor<40x64xf8E4M3FN>, %s: tensor<40x2xf8E8M0FNU>, %route: tensor<20x4xi32>) {
  // expected-error @+1 {{expects token_experts with one row per token (40), found 20x4}}
  %rows, %rs, %offs, %counts = mxfp8train.moe_dispatch %q [%s], %route on @ep grid_axes = [0] num_experts = 8 capacity = 128
      : tensor<40x64xf8E4M3FN> [tensor<40x2xf8E8M0FNU>], tensor<20x4xi32> -> tensor<128x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU>, tensor<2xi32>, tensor<32xi32>
  return
}

// -----

shard.grid @ep(shape = 4)
func.func @dispatch_rejects_zero_top_k(%q: tensor<40x64xf8E4M3FN>, %s: tensor<40x2xf8E8M0FNU>, %route: tensor<40x0xi32>) {
  // expected-error @+1 {{expects at least one expert slot per token (topK >= 1) in token_experts, found 40x0}}
  %rows, %rs, %offs, %counts = mxfp8train.moe_dispatch %q [%s], %route on @ep grid_axes = [0] num_experts = 8 capacity = 128
      : tensor<40x64xf8E4M3FN> [tensor<40x2xf8E8M0FNU>], tensor<40x0xi32> -> tensor<128x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU>, tensor<2xi32>, tensor<32xi32>
  return
}

// -----

shard.grid @ep(shape = 4)
func.func @dispatch_rejects_flat_routing_size(%q: tensor<40x64xf8E4M3FN>, %s: tensor<40x2xf8E8M0FNU>, %route: tensor<60xi32>) {
  // expected-error @+1 {{expects token_experts of T * topK entries with topK >= 1 (a positive multiple of T = 40), found 60}}
  %rows, %rs, %offs, %counts = mxfp8train.moe_dispatch %q [%s], %route on @ep grid_axes = [0] num_experts = 8 capacity = 128
      : tensor<40x64xf8E4M3FN> [tensor<40x2xf8E8M0FNU>], tensor<60xi32> -> tensor<128x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU>, tensor<2xi32>, tensor<32xi32>
  return
}

// -----

shard.grid @ep(shape = 4)
func.func @dispatch_rejects_rows_shape(%q: tensor<40x64xf8E4M3FN>, %s: tensor<40x2xf8E8M0FNU>, %route: tensor<40x2xi32>) {
  // expected-error @+1 {{expects rows of shape 128x64 (capacity x K), found 64x64}}
  %rows, %rs, %offs, %counts = mxfp8train.moe_dispatch %q [%s], %route on @ep grid_axes = [0] num_experts = 8 capacity = 128
      : tensor<40x64xf8E4M3FN> [tensor<40x2xf8E8M0FNU>], tensor<40x2xi32> -> tensor<64x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU>, tensor<2xi32>, tensor<32xi32>
  return
}

// -----

shard.grid @ep(shape = 4)
func.func @dispatch_rejects_rows_type(%q: tensor<40x64xf8E4M3FN>, %s: tensor<40x2xf8E8M0FNU>, %route: tensor<40x2xi32>) {
  // expected-error @+1 {{expects rows of element type 'f8E4M3FN' (the data's), found 'f8E5M2'}}
  %rows, %rs, %offs, %counts = mxfp8train.moe_dispatch %q [%s], %route on @ep grid_axes = [0] num_experts = 8 capacity = 128
      : tensor<40x64xf8E4M3FN> [tensor<40x2xf8E8M0FNU>], tensor<40x2xi32> -> tensor<128x64xf8E5M2>, tensor<128x2xf8E8M0FNU>, tensor<2xi32>, tensor<32xi32>
  return
}

// -----

shard.grid @ep(shape = 4)
func.func @dispatch_rejects_row_scales_shape(%q: tensor<40x64xf8E4M3FN>, %s: tensor<40x2xf8E8M0FNU>, %route: tensor<40x2xi32>) {
  // expected-error @+1 {{expects row_scales of shape 128x2 (capacity x K/32), found 40x2}}
  %rows, %rs, %offs, %counts = mxfp8train.moe_dispatch %q [%s], %route on @ep grid_axes = [0] num_experts = 8 capacity = 128
      : tensor<40x64xf8E4M3FN> [tensor<40x2xf8E8M0FNU>], tensor<40x2xi32> -> tensor<128x64xf8E4M3FN>, tensor<40x2xf8E8M0FNU>, tensor<2xi32>, tensor<32xi32>
  return
}

// -----

shard.grid @ep(shape = 4)
func.func @dispatch_rejects_offs_rank(%q: tensor<40x64xf8E4M3FN>, %s: tensor<40x2xf8E8M0FNU>, %route: tensor<40x2xi32>) {
  // expected-error @+1 {{expects offs of rank 1 (one group end per local expert), found rank 2}}
  %rows, %rs, %offs, %counts = mxfp8train.moe_dispatch %q [%s], %route on @ep grid_axes = [0] num_experts = 8 capacity = 128
      : tensor<40x64xf8E4M3FN> [tensor<40x2xf8E8M0FNU>], tensor<40x2xi32> -> tensor<128x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU>, tensor<2x1xi32>, tensor<32xi32>
  return
}

// -----

shard.grid @ep(shape = 4)
func.func @dispatch_rejects_counts_rank(%q: tensor<40x64xf8E4M3FN>, %s: tensor<40x2xf8E8M0FNU>, %route: tensor<40x2xi32>) {
  // expected-error @+1 {{expects counts of rank 1, found rank 2}}
  %rows, %rs, %offs, %counts = mxfp8train.moe_dispatch %q [%s], %route on @ep grid_axes = [0] num_experts = 8 capacity = 128
      : tensor<40x64xf8E4M3FN> [tensor<40x2xf8E8M0FNU>], tensor<40x2xi32> -> tensor<128x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU>, tensor<2xi32>, tensor<4x8xi32>
  return
}

// -----

shard.grid @ep(shape = 4)
func.func @dispatch_rejects_missing_grid(%q: tensor<40x64xf8E4M3FN>, %s: tensor<40x2xf8E8M0FNU>, %route: tensor<40x2xi32>) {
  // expected-error @+1 {{expects @nowhere to name a shard.grid, found none}}
  %rows, %rs, %offs, %counts = mxfp8train.moe_dispatch %q [%s], %route on @nowhere grid_axes = [0] num_experts = 8 capacity = 128
      : tensor<40x64xf8E4M3FN> [tensor<40x2xf8E8M0FNU>], tensor<40x2xi32> -> tensor<128x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU>, tensor<2xi32>, tensor<32xi32>
  return
}

// -----

shard.grid @ep(shape = 4)
func.func @dispatch_rejects_grid_axis_out_of_range(%q: tensor<40x64xf8E4M3FN>, %s: tensor<40x2xf8E8M0FNU>, %route: tensor<40x2xi32>) {
  // expected-error @+1 {{expects grid_axes in [0, 1) of @ep without repeats, found [1]}}
  %rows, %rs, %offs, %counts = mxfp8train.moe_dispatch %q [%s], %route on @ep grid_axes = [1] num_experts = 8 capacity = 128
      : tensor<40x64xf8E4M3FN> [tensor<40x2xf8E8M0FNU>], tensor<40x2xi32> -> tensor<128x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU>, tensor<2xi32>, tensor<32xi32>
  return
}

// -----

shard.grid @ep(shape = 2x2)
func.func @dispatch_rejects_repeated_grid_axis(%q: tensor<40x64xf8E4M3FN>, %s: tensor<40x2xf8E8M0FNU>, %route: tensor<40x2xi32>) {
  // expected-error @+1 {{expects grid_axes in [0, 2) of @ep without repeats, found [0, 0]}}
  %rows, %rs, %offs, %counts = mxfp8train.moe_dispatch %q [%s], %route on @ep grid_axes = [0, 0] num_experts = 8 capacity = 128
      : tensor<40x64xf8E4M3FN> [tensor<40x2xf8E8M0FNU>], tensor<40x2xi32> -> tensor<128x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU>, tensor<2xi32>, tensor<32xi32>
  return
}

// -----

shard.grid @ep(shape = 0)
func.func @dispatch_rejects_empty_grid_axis(%q: tensor<40x64xf8E4M3FN>, %s: tensor<40x2xf8E8M0FNU>, %route: tensor<40x2xi32>) {
  // expected-error @+1 {{expects grid axis 0 of @ep to hold at least one process, found size 0}}
  %rows, %rs, %offs, %counts = mxfp8train.moe_dispatch %q [%s], %route on @ep grid_axes = [0] num_experts = 8 capacity = 128
      : tensor<40x64xf8E4M3FN> [tensor<40x2xf8E8M0FNU>], tensor<40x2xi32> -> tensor<128x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU>, tensor<2xi32>, tensor<32xi32>
  return
}

// -----

shard.grid @ep(shape = 4)
func.func @dispatch_rejects_uneven_expert_split(%q: tensor<40x64xf8E4M3FN>, %s: tensor<40x2xf8E8M0FNU>, %route: tensor<40x2xi32>) {
  // expected-error @+1 {{expects num_experts (6) to be a multiple of the 4 processes of @ep along its grid_axes (the experts split evenly over the ranks)}}
  %rows, %rs, %offs, %counts = mxfp8train.moe_dispatch %q [%s], %route on @ep grid_axes = [0] num_experts = 6 capacity = 128
      : tensor<40x64xf8E4M3FN> [tensor<40x2xf8E8M0FNU>], tensor<40x2xi32> -> tensor<128x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU>, tensor<2xi32>, tensor<32xi32>
  return
}

// -----

shard.grid @ep(shape = 4)
func.func @dispatch_rejects_counts_shape(%q: tensor<40x64xf8E4M3FN>, %s: tensor<40x2xf8E8M0FNU>, %route: tensor<40x2xi32>) {
  // expected-error @+1 {{expects counts of shape 4 * 8 (processes * num_experts: every rank's rows per destination rank and local expert), found 16}}
  %rows, %rs, %offs, %counts = mxfp8train.moe_dispatch %q [%s], %route on @ep grid_axes = [0] num_experts = 8 capacity = 128
      : tensor<40x64xf8E4M3FN> [tensor<40x2xf8E8M0FNU>], tensor<40x2xi32> -> tensor<128x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU>, tensor<2xi32>, tensor<16xi32>
  return
}

// -----

shard.grid @ep(shape = 4)
func.func @dispatch_rejects_offs_shape(%q: tensor<40x64xf8E4M3FN>, %s: tensor<40x2xf8E8M0FNU>, %route: tensor<40x2xi32>) {
  // expected-error @+1 {{expects offs of shape 2 (num_experts / processes: one group end per local expert), found 8}}
  %rows, %rs, %offs, %counts = mxfp8train.moe_dispatch %q [%s], %route on @ep grid_axes = [0] num_experts = 8 capacity = 128
      : tensor<40x64xf8E4M3FN> [tensor<40x2xf8E8M0FNU>], tensor<40x2xi32> -> tensor<128x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU>, tensor<8xi32>, tensor<32xi32>
  return
}

// -----

shard.grid @ep(shape = 4)
func.func @dispatch_rejects_bf16_data(%q: tensor<40x64xbf16>, %s: tensor<40x2xf8E8M0FNU>, %route: tensor<40x2xi32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of f8E4M3FN type or f8E5M2 type values, but got 'tensor<40x64xbf16>'}}
  %rows, %rs, %offs, %counts = mxfp8train.moe_dispatch %q [%s], %route on @ep grid_axes = [0] num_experts = 8 capacity = 128
      : tensor<40x64xbf16> [tensor<40x2xf8E8M0FNU>], tensor<40x2xi32> -> tensor<128x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU>, tensor<2xi32>, tensor<32xi32>
  return
}

// -----

shard.grid @ep(shape = 4)
func.func @dispatch_rejects_f32_scales(%q: tensor<40x64xf8E4M3FN>, %s: tensor<40x2xf32>, %route: tensor<40x2xi32>) {
  // expected-error @+1 {{operand #1 must be ranked tensor of f8E8M0FNU type values, but got 'tensor<40x2xf32>'}}
  %rows, %rs, %offs, %counts = mxfp8train.moe_dispatch %q [%s], %route on @ep grid_axes = [0] num_experts = 8 capacity = 128
      : tensor<40x64xf8E4M3FN> [tensor<40x2xf32>], tensor<40x2xi32> -> tensor<128x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU>, tensor<2xi32>, tensor<32xi32>
  return
}

// -----

shard.grid @ep(shape = 4)
func.func @dispatch_rejects_i64_routing(%q: tensor<40x64xf8E4M3FN>, %s: tensor<40x2xf8E8M0FNU>, %route: tensor<40x2xi64>) {
  // expected-error @+1 {{operand #2 must be ranked tensor of 32-bit signless integer values, but got 'tensor<40x2xi64>'}}
  %rows, %rs, %offs, %counts = mxfp8train.moe_dispatch %q [%s], %route on @ep grid_axes = [0] num_experts = 8 capacity = 128
      : tensor<40x64xf8E4M3FN> [tensor<40x2xf8E8M0FNU>], tensor<40x2xi64> -> tensor<128x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU>, tensor<2xi32>, tensor<32xi32>
  return
}

// -----

shard.grid @ep(shape = 4)
func.func @combine_rejects_rank1_expert_out(%y: tensor<128xbf16>, %route: tensor<40x2xi32>, %counts: tensor<32xi32>) {
  // expected-error @+1 {{'mxfp8train.moe_combine' op expects rank-2 expert_out (capacity, N), found rank 1}}
  %out = mxfp8train.moe_combine %y, %route counts(%counts) on @ep grid_axes = [0] num_experts = 8 capacity = 128
      : tensor<128xbf16>, tensor<40x2xi32>, tensor<32xi32> -> tensor<80x32xbf16>
  return
}

// -----

shard.grid @ep(shape = 4)
func.func @combine_rejects_dynamic_result(%y: tensor<128x32xbf16>, %route: tensor<40x2xi32>, %counts: tensor<32xi32>) {
  // expected-error @+1 {{expects static shapes (the exchange sizes its buffers at compile time), found 'tensor<?x32xbf16>' for result #0}}
  %out = mxfp8train.moe_combine %y, %route counts(%counts) on @ep grid_axes = [0] num_experts = 8 capacity = 128
      : tensor<128x32xbf16>, tensor<40x2xi32>, tensor<32xi32> -> tensor<?x32xbf16>
  return
}

// -----

shard.grid @ep(shape = 4)
func.func @combine_rejects_expert_out_rows(%y: tensor<100x32xbf16>, %route: tensor<40x2xi32>, %counts: tensor<32xi32>) {
  // expected-error @+1 {{expects expert_out with capacity (128) rows, found 100x32}}
  %out = mxfp8train.moe_combine %y, %route counts(%counts) on @ep grid_axes = [0] num_experts = 8 capacity = 128
      : tensor<100x32xbf16>, tensor<40x2xi32>, tensor<32xi32> -> tensor<80x32xbf16>
  return
}

// -----

shard.grid @ep(shape = 4)
func.func @combine_rejects_zero_columns(%y: tensor<128x0xbf16>, %route: tensor<40x2xi32>, %counts: tensor<32xi32>) {
  // expected-error @+1 {{expects expert_out with N >= 1 columns, found 128x0}}
  %out = mxfp8train.moe_combine %y, %route counts(%counts) on @ep grid_axes = [0] num_experts = 8 capacity = 128
      : tensor<128x0xbf16>, tensor<40x2xi32>, tensor<32xi32> -> tensor<80x0xbf16>
  return
}

// -----

shard.grid @ep(shape = 4)
func.func @combine_rejects_rank3_routing(%y: tensor<128x32xbf16>, %route: tensor<40x2x1xi32>, %counts: tensor<32xi32>) {
  // expected-error @+1 {{expects token_experts of rank 1 (T * topK) or 2 (T, topK), found rank 3}}
  %out = mxfp8train.moe_combine %y, %route counts(%counts) on @ep grid_axes = [0] num_experts = 8 capacity = 128
      : tensor<128x32xbf16>, tensor<40x2x1xi32>, tensor<32xi32> -> tensor<80x32xbf16>
  return
}

// -----

shard.grid @ep(shape = 4)
func.func @combine_rejects_zero_top_k(%y: tensor<128x32xbf16>, %route: tensor<40x0xi32>, %counts: tensor<32xi32>) {
  // expected-error @+1 {{expects at least one expert slot per token (topK >= 1) in token_experts, found 40x0}}
  %out = mxfp8train.moe_combine %y, %route counts(%counts) on @ep grid_axes = [0] num_experts = 8 capacity = 128
      : tensor<128x32xbf16>, tensor<40x0xi32>, tensor<32xi32> -> tensor<0x32xbf16>
  return
}

// -----

shard.grid @ep(shape = 4)
func.func @combine_rejects_counts_rank(%y: tensor<128x32xbf16>, %route: tensor<40x2xi32>, %counts: tensor<4x8xi32>) {
  // expected-error @+1 {{expects counts of rank 1, found rank 2}}
  %out = mxfp8train.moe_combine %y, %route counts(%counts) on @ep grid_axes = [0] num_experts = 8 capacity = 128
      : tensor<128x32xbf16>, tensor<40x2xi32>, tensor<4x8xi32> -> tensor<80x32xbf16>
  return
}

// -----

shard.grid @ep(shape = 4)
func.func @combine_rejects_result_shape(%y: tensor<128x32xbf16>, %route: tensor<40x2xi32>, %counts: tensor<32xi32>) {
  // expected-error @+1 {{expects a result of shape 80x32 (T * topK x N), found 40x32}}
  %out = mxfp8train.moe_combine %y, %route counts(%counts) on @ep grid_axes = [0] num_experts = 8 capacity = 128
      : tensor<128x32xbf16>, tensor<40x2xi32>, tensor<32xi32> -> tensor<40x32xbf16>
  return
}

// -----

shard.grid @ep(shape = 4)
func.func @combine_rejects_result_type(%y: tensor<128x32xbf16>, %route: tensor<40x2xi32>, %counts: tensor<32xi32>) {
  // expected-error @+1 {{expects a result of element type 'bf16' (the expert outputs'), found 'f32'}}
  %out = mxfp8train.moe_combine %y, %route counts(%counts) on @ep grid_axes = [0] num_experts = 8 capacity = 128
      : tensor<128x32xbf16>, tensor<40x2xi32>, tensor<32xi32> -> tensor<80x32xf32>
  return
}

// -----

shard.grid @ep(shape = 4)
func.func @combine_rejects_zero_capacity(%y: tensor<0x32xbf16>, %route: tensor<40x2xi32>, %counts: tensor<32xi32>) {
  // expected-error @+1 {{expects capacity >= 1 (the rows each rank can receive), found 0}}
  %out = mxfp8train.moe_combine %y, %route counts(%counts) on @ep grid_axes = [0] num_experts = 8 capacity = 0
      : tensor<0x32xbf16>, tensor<40x2xi32>, tensor<32xi32> -> tensor<80x32xbf16>
  return
}

// -----

shard.grid @ep(shape = 4)
func.func @combine_rejects_uneven_expert_split(%y: tensor<128x32xbf16>, %route: tensor<40x2xi32>, %counts: tensor<24xi32>) {
  // expected-error @+1 {{expects num_experts (6) to be a multiple of the 4 processes of @ep along its grid_axes (the experts split evenly over the ranks)}}
  %out = mxfp8train.moe_combine %y, %route counts(%counts) on @ep grid_axes = [0] num_experts = 6 capacity = 128
      : tensor<128x32xbf16>, tensor<40x2xi32>, tensor<24xi32> -> tensor<80x32xbf16>
  return
}

// -----

shard.grid @ep(shape = 4)
func.func @combine_rejects_counts_shape(%y: tensor<128x32xbf16>, %route: tensor<40x2xi32>, %counts: tensor<8xi32>) {
  // expected-error @+1 {{expects counts of shape 4 * 8 (processes * num_experts: every rank's rows per destination rank and local expert), found 8}}
  %out = mxfp8train.moe_combine %y, %route counts(%counts) on @ep grid_axes = [0] num_experts = 8 capacity = 128
      : tensor<128x32xbf16>, tensor<40x2xi32>, tensor<8xi32> -> tensor<80x32xbf16>
  return
}

// -----

shard.grid @ep(shape = 4)
func.func @combine_rejects_missing_grid(%y: tensor<128x32xbf16>, %route: tensor<40x2xi32>, %counts: tensor<32xi32>) {
  // expected-error @+1 {{expects @nowhere to name a shard.grid, found none}}
  %out = mxfp8train.moe_combine %y, %route counts(%counts) on @nowhere grid_axes = [0] num_experts = 8 capacity = 128
      : tensor<128x32xbf16>, tensor<40x2xi32>, tensor<32xi32> -> tensor<80x32xbf16>
  return
}

// -----

shard.grid @ep(shape = 4)
func.func @combine_rejects_fp8_expert_out(%y: tensor<128x32xf8E4M3FN>, %route: tensor<40x2xi32>, %counts: tensor<32xi32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of bfloat16 type or 32-bit float values, but got 'tensor<128x32xf8E4M3FN>'}}
  %out = mxfp8train.moe_combine %y, %route counts(%counts) on @ep grid_axes = [0] num_experts = 8 capacity = 128
      : tensor<128x32xf8E4M3FN>, tensor<40x2xi32>, tensor<32xi32> -> tensor<80x32xbf16>
  return
}
