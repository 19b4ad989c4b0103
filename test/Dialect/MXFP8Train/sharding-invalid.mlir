// RUN: mxfp8-opt %s --pass-pipeline='builtin.module(func.func(sharding-propagation))' --split-input-file --verify-diagnostics

// sharding-propagation rejects splits that would cut a 32-element scaling
// block or a 128-row blocked scale tile, uneven splits, and splits of loops
// the op cannot split, with a diagnostic at the op (docs/sharding.md).

shard.grid @grid(shape = 2)
func.func @quantize_axis_cuts_block(%x: tensor<64x96xbf16>) {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %x1 = shard.shard %x to %s : tensor<64x96xbf16>
  // expected-error @below {{cannot split dimension 1 (the quantized axis) (size 96) over 2 shards: 48 per shard is not a multiple of 32 (the 32-element scaling block)}}
  // expected-error @below {{fail to get sharding option}}
  %q, %qs = mxfp8train.quantize %x1 axis = 1 mode = rceil
      : tensor<64x96xbf16> -> tensor<64x96xf8E4M3FN>, tensor<64x3xf8E8M0FNU>
  return
}

// -----

shard.grid @grid(shape = 4)
func.func @blocked_rows_cut_tile(%x: tensor<256x64xbf16>) {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %x1 = shard.shard %x to %s : tensor<256x64xbf16>
  // expected-error @below {{cannot split dimension 0 (size 256) over 4 shards: 64 per shard is not a multiple of 128 (the 128-row tile of the blocked scale layout)}}
  // expected-error @below {{fail to get sharding option}}
  %q, %qs = mxfp8train.quantize %x1 axis = 1 mode = rceil layout = blocked
      : tensor<256x64xbf16> -> tensor<256x64xf8E4M3FN>, tensor<1024xf8E8M0FNU>
  return
}

// -----

shard.grid @grid(shape = 2)
func.func @blocked_split_along_quantized_axis(%x: tensor<128x256xbf16>) {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %x1 = shard.shard %x to %s : tensor<128x256xbf16>
  // expected-error @below {{cannot split dimension 1 (the quantized axis): the blocked scale layout interleaves the 4-column scale tiles of every 128-row tile, so a shard's scales are not a slice of the blocked bytes}}
  // expected-error @below {{fail to get sharding option}}
  %q, %qs = mxfp8train.quantize %x1 axis = 1 mode = rceil layout = blocked
      : tensor<128x256xbf16> -> tensor<128x256xf8E4M3FN>, tensor<1024xf8E8M0FNU>
  return
}

// -----

shard.grid @grid(shape = 2)
func.func @float8_tensorwise_amax_is_global(%x: tensor<64x128xbf16>) {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %x1 = shard.shard %x to %s : tensor<64x128xbf16>
  // expected-error @below {{cannot split dimension 0: a Float8 tensorwise quantize takes amax over the whole tensor; a split input would need an all-reduce max before the scale, which is not modeled: replicate the input}}
  // expected-error @below {{fail to get sharding option}}
  %q, %qs = mxfp8train.quantize %x1 granularity = tensorwise
      : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<f32>
  return
}

// -----

shard.grid @grid(shape = 2)
func.func @float8_axiswise_split_along_amax(%x: tensor<64x128xbf16>) {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %x1 = shard.shard %x to %s : tensor<64x128xbf16>
  // expected-error @below {{cannot split dimension 1 (the quantized axis): a Float8 axiswise quantize takes amax along the quantized axis; a split would need an all-reduce max before the scale, which is not modeled}}
  // expected-error @below {{fail to get sharding option}}
  %q, %qs = mxfp8train.quantize %x1 axis = 1 granularity = axiswise
      : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<64x1xf32>
  return
}

// -----

shard.grid @grid(shape = 3)
func.func @scaled_mm_uneven_m(%a: tensor<100x64xf8E4M3FN>, %as: tensor<100x2xf8E8M0FNU>,
    %b: tensor<64x64xf8E4M3FN>, %bs: tensor<64x2xf8E8M0FNU>) {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %a1 = shard.shard %a to %s : tensor<100x64xf8E4M3FN>
  // expected-error @below {{cannot split M (size 100) evenly over 3 shards}}
  // expected-error @below {{fail to get sharding option}}
  %y = mxfp8train.scaled_mm %a1 [%as], %b [%bs] transpose_rhs
      : tensor<100x64xf8E4M3FN> [tensor<100x2xf8E8M0FNU>],
        tensor<64x64xf8E4M3FN> [tensor<64x2xf8E8M0FNU>] -> tensor<100x64xbf16>
  return
}

// -----

shard.grid @grid(shape = 2)
func.func @scaled_mm_blocked_k(%a: tensor<128x256xf8E4M3FN>, %as: tensor<1024xf8E8M0FNU>,
    %b: tensor<64x256xf8E4M3FN>, %bs: tensor<64x8xf8E8M0FNU>) {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %a1 = shard.shard %a to %s : tensor<128x256xf8E4M3FN>
  // expected-error @below {{cannot split K (the contraction dimension): the lhs blocked scale layout interleaves the 4-column scale tiles of every 128-row tile, so a shard's scales are not a slice of the blocked bytes}}
  // expected-error @below {{fail to get sharding option}}
  %y = mxfp8train.scaled_mm %a1 [%as], %b [%bs] transpose_rhs lhs_layout = blocked
      : tensor<128x256xf8E4M3FN> [tensor<1024xf8E8M0FNU>],
        tensor<64x256xf8E4M3FN> [tensor<64x8xf8E8M0FNU>] -> tensor<128x64xbf16>
  return
}

// -----

shard.grid @grid(shape = 2)
func.func @grouped_token_split(%a: tensor<128x64xf8E4M3FN>, %as: tensor<128x2xf8E8M0FNU>,
    %w: tensor<4x32x64xf8E4M3FN>, %ws: tensor<4x32x2xf8E8M0FNU>, %offs: tensor<4xi32>) {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %a1 = shard.shard %a to %s : tensor<128x64xf8E4M3FN>
  // expected-error @below {{cannot split M (the tokens): token groups are given by global offsets (offs); split the experts instead, or dispatch the tokens to the experts' shards first}}
  // expected-error @below {{fail to get sharding option}}
  %y = mxfp8train.scaled_grouped_mm %a1 [%as], %w [%ws] offs(%offs) transpose_rhs
      : tensor<128x64xf8E4M3FN> [tensor<128x2xf8E8M0FNU>],
        tensor<4x32x64xf8E4M3FN> [tensor<4x32x2xf8E8M0FNU>], tensor<4xi32> -> tensor<128x32xbf16>
  return
}

// -----

shard.grid @grid(shape = 2)
func.func @to_blocked_columns(%s0: tensor<128x8xf8E8M0FNU>) {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %x1 = shard.shard %s0 to %s : tensor<128x8xf8E8M0FNU>
  // expected-error @below {{cannot split the scale columns: the blocked layout interleaves the 4-column tiles of every 128-row tile, so a shard's columns are not a slice of the blocked bytes}}
  // expected-error @below {{fail to get sharding option}}
  %b = mxfp8train.to_blocked %x1 layout = blocked : tensor<128x8xf8E8M0FNU> -> tensor<1024xf8E8M0FNU>
  return
}

// -----

// Explicit shard sizes and halos are refused where propagation meets them
// (partition used to crash on the operand upstream could not reshard).
shard.grid @grid(shape = 2)
func.func @explicit_shard_sizes(%x: tensor<64x128xbf16>) {
  %s = shard.sharding @grid split_axes = [[0]] sharded_dims_offsets = [0, 24, 64] : !shard.sharding
  %x1 = shard.shard %x to %s : tensor<64x128xbf16>
  // expected-error @below {{cannot shard operand #0 with halos or explicit shard sizes: only even splits keep whole scaling blocks}}
  %q, %qs = mxfp8train.quantize %x1 axis = 1 mode = rceil
      : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>
  return
}

// -----

shard.grid @grid(shape = 2)
func.func @halos(%x: tensor<64x128xbf16>) {
  %s = shard.sharding @grid split_axes = [[0]] halo_sizes = [1, 1] : !shard.sharding
  %x1 = shard.shard %x to %s : tensor<64x128xbf16>
  // expected-error @below {{cannot shard operand #0 with halos or explicit shard sizes: only even splits keep whole scaling blocks}}
  %q, %qs = mxfp8train.quantize %x1 axis = 1 mode = rceil
      : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>
  return
}

// -----

// A grid axis of size 0 (the split used to divide by it).
shard.grid @grid(shape = 0)
func.func @empty_grid_axis(%x: tensor<8x64xbf16>) {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %x1 = shard.shard %x to %s : tensor<8x64xbf16>
  // expected-error @below {{cannot split dimension 0 over 0 processes (a grid axis of size 0)}}
  // expected-error @below {{fail to get sharding option}}
  %q, %qs = mxfp8train.quantize %x1 axis = 1 mode = rceil
      : tensor<8x64xbf16> -> tensor<8x64xf8E4M3FN>, tensor<8x2xf8E8M0FNU>
  return
}

// -----

// The blocked_m_groups lhs scales of a 2d-3d grouped GEMM are sized by the
// number of groups (each padded to whole tiles): an expert split would give
// the local op scales of the global size (it used to build an op that fails
// its verifier in shard-partition).
shard.grid @grid(shape = 2)
func.func @experts_with_grouped_lhs_scales(%q: tensor<128x128xf8E4M3FN>, %qb: tensor<2560xf8E8M0FNU>, %w: tensor<4x64x128xf8E4M3FN>, %wb: tensor<4x512xf8E8M0FNU>, %offs: tensor<4xi32>) {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %w1 = shard.shard %w to %s annotate_for_users : tensor<4x64x128xf8E4M3FN>
  // expected-error @below {{cannot split E (the experts): the lhs scales are in the grouped layout blocked_m_groups, whose size follows the number of groups (each group padded to whole tiles); use row-major lhs scales to split the experts}}
  // expected-error @below {{fail to get sharding option}}
  %y = mxfp8train.scaled_grouped_mm %q [%qb], %w1 [%wb] offs(%offs) transpose_rhs lhs_layout = blocked_m_groups rhs_layout = blocked_per_expert
      : tensor<128x128xf8E4M3FN> [tensor<2560xf8E8M0FNU>], tensor<4x64x128xf8E4M3FN> [tensor<4x512xf8E8M0FNU>], tensor<4xi32> -> tensor<128x64xbf16>
  return
}
