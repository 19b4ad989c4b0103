// RUN: mxfp8-opt %s --mxfp8train-quantize-before-all-gather="remarks=true" \
// RUN:   -verify-diagnostics | FileCheck %s

// Partitioned IR of a 2-process grid: FSDP weights split along their rows
// (gather_axis = 0) and gathered in high precision before their quantize.

shard.grid @grid(shape = 2)

// 1x32 blocks along K: a row split leaves every block whole. The shard is
// quantized, its fp8 data and e8m0 scales are gathered (the identity cast
// that shard-partition leaves is looked through), the bf16 gather goes.
// CHECK-LABEL: func.func @rowwise_moves_before_gather(
// CHECK-SAME:    %[[W:.*]]: tensor<64x128xbf16>
// CHECK-NOT:     shard.all_gather %[[W]]
// CHECK:         %[[Q:.*]], %[[S:.*]] = mxfp8train.quantize %[[W]] axis = 1 mode = rceil
// CHECK-SAME:      : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>
// CHECK:         %[[GQ:.*]] = shard.all_gather %[[Q]] on @grid grid_axes = [0] gather_axis = 0
// CHECK-SAME:      : tensor<64x128xf8E4M3FN> -> tensor<128x128xf8E4M3FN>
// CHECK:         %[[GS:.*]] = shard.all_gather %[[S]] on @grid grid_axes = [0] gather_axis = 0
// CHECK-SAME:      : tensor<64x4xf8E8M0FNU> -> tensor<128x4xf8E8M0FNU>
// CHECK:         return %[[GQ]], %[[GS]]
func.func @rowwise_moves_before_gather(%w: tensor<64x128xbf16>)
    -> (tensor<128x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>) {
  %g = shard.all_gather %w on @grid grid_axes = [0] gather_axis = 0
      : tensor<64x128xbf16> -> tensor<128x128xbf16>
  %c = tensor.cast %g : tensor<128x128xbf16> to tensor<128x128xbf16>
  %q, %s = mxfp8train.quantize %c axis = 1 mode = rceil
      : tensor<128x128xbf16> -> tensor<128x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>
  return %q, %s : tensor<128x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>
}

// 32x1 blocks along the split rows: 64 rows per piece are 2 whole blocks.
// CHECK-LABEL: func.func @colwise_moves_with_whole_blocks(
// CHECK-SAME:    %[[W:.*]]: tensor<64x64xf32>
// CHECK:         %[[Q:.*]], %[[S:.*]] = mxfp8train.quantize %[[W]] axis = 0 mode = floor
// CHECK-SAME:      -> tensor<64x64xf8E4M3FN>, tensor<2x64xf8E8M0FNU>
// CHECK:         shard.all_gather %[[Q]] {{.*}} gather_axis = 0 : tensor<64x64xf8E4M3FN> -> tensor<128x64xf8E4M3FN>
// CHECK:         shard.all_gather %[[S]] {{.*}} gather_axis = 0 : tensor<2x64xf8E8M0FNU> -> tensor<4x64xf8E8M0FNU>
func.func @colwise_moves_with_whole_blocks(%w: tensor<64x64xf32>)
    -> (tensor<128x64xf8E4M3FN>, tensor<4x64xf8E8M0FNU>) {
  %g = shard.all_gather %w on @grid grid_axes = [0] gather_axis = 0
      : tensor<64x64xf32> -> tensor<128x64xf32>
  %q, %s = mxfp8train.quantize %g axis = 0 mode = floor
      : tensor<128x64xf32> -> tensor<128x64xf8E4M3FN>, tensor<4x64xf8E8M0FNU>
  return %q, %s : tensor<128x64xf8E4M3FN>, tensor<4x64xf8E8M0FNU>
}

// Both casts of the backward (quantize_dual): four gathers, the colwise
// scales along their block rows.
// CHECK-LABEL: func.func @dual_moves_both_axes(
// CHECK-SAME:    %[[W:.*]]: tensor<32x64xbf16>
// CHECK:         %[[RQ:.*]], %[[RS:.*]], %[[CQ:.*]], %[[CS:.*]] = mxfp8train.quantize_dual %[[W]] mode = rceil
// CHECK-SAME:      : tensor<32x64xbf16> -> tensor<32x64xf8E4M3FN>, tensor<32x2xf8E8M0FNU>, tensor<32x64xf8E4M3FN>, tensor<1x64xf8E8M0FNU>
// CHECK:         shard.all_gather %[[RQ]] {{.*}} : tensor<32x64xf8E4M3FN> -> tensor<64x64xf8E4M3FN>
// CHECK:         shard.all_gather %[[RS]] {{.*}} : tensor<32x2xf8E8M0FNU> -> tensor<64x2xf8E8M0FNU>
// CHECK:         shard.all_gather %[[CQ]] {{.*}} : tensor<32x64xf8E4M3FN> -> tensor<64x64xf8E4M3FN>
// CHECK:         shard.all_gather %[[CS]] {{.*}} : tensor<1x64xf8E8M0FNU> -> tensor<2x64xf8E8M0FNU>
func.func @dual_moves_both_axes(%w: tensor<32x64xbf16>)
    -> (tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU>, tensor<64x64xf8E4M3FN>, tensor<2x64xf8E8M0FNU>) {
  %g = shard.all_gather %w on @grid grid_axes = [0] gather_axis = 0
      : tensor<32x64xbf16> -> tensor<64x64xbf16>
  %rq, %rs, %cq, %cs = mxfp8train.quantize_dual %g mode = rceil
      : tensor<64x64xbf16> -> tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU>,
                              tensor<64x64xf8E4M3FN>, tensor<2x64xf8E8M0FNU>
  return %rq, %rs, %cq, %cs : tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU>, tensor<64x64xf8E4M3FN>, tensor<2x64xf8E8M0FNU>
}

// Two quantizes of one gathered weight (the unfused forward and backward
// casts) both move, and the bf16 gather goes.
// CHECK-LABEL: func.func @two_quantizes_move(
// CHECK-SAME:    %[[W:.*]]: tensor<32x64xbf16>
// CHECK-NOT:     shard.all_gather %[[W]]
// CHECK:         mxfp8train.quantize %[[W]] axis = 1
// CHECK-COUNT-2: shard.all_gather
// CHECK:         mxfp8train.quantize %[[W]] axis = 0
// CHECK-COUNT-2: shard.all_gather
// CHECK-NOT:     shard.all_gather
func.func @two_quantizes_move(%w: tensor<32x64xbf16>)
    -> (tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU>, tensor<64x64xf8E4M3FN>, tensor<2x64xf8E8M0FNU>) {
  %g = shard.all_gather %w on @grid grid_axes = [0] gather_axis = 0
      : tensor<32x64xbf16> -> tensor<64x64xbf16>
  %rq, %rs = mxfp8train.quantize %g axis = 1 mode = rceil
      : tensor<64x64xbf16> -> tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU>
  %cq, %cs = mxfp8train.quantize %g axis = 0 mode = rceil
      : tensor<64x64xbf16> -> tensor<64x64xf8E4M3FN>, tensor<2x64xf8E8M0FNU>
  return %rq, %rs, %cq, %cs : tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU>, tensor<64x64xf8E4M3FN>, tensor<2x64xf8E8M0FNU>
}

// Blocked scales with whole 128-row tiles per shard: the 1-D bytes gather
// along their only dimension (128 * 4 bytes per shard).
// CHECK-LABEL: func.func @blocked_whole_tiles_move(
// CHECK:         %[[Q:.*]], %[[S:.*]] = mxfp8train.quantize %{{.*}} axis = 1 mode = rceil layout = blocked
// CHECK-SAME:      -> tensor<128x128xf8E4M3FN>, tensor<512xf8E8M0FNU>
// CHECK:         shard.all_gather %[[Q]] {{.*}} gather_axis = 0 : tensor<128x128xf8E4M3FN> -> tensor<256x128xf8E4M3FN>
// CHECK:         shard.all_gather %[[S]] {{.*}} gather_axis = 0 : tensor<512xf8E8M0FNU> -> tensor<1024xf8E8M0FNU>
func.func @blocked_whole_tiles_move(%w: tensor<128x128xbf16>)
    -> (tensor<256x128xf8E4M3FN>, tensor<1024xf8E8M0FNU>) {
  %g = shard.all_gather %w on @grid grid_axes = [0] gather_axis = 0
      : tensor<128x128xbf16> -> tensor<256x128xbf16>
  %q, %s = mxfp8train.quantize %g axis = 1 mode = rceil layout = blocked
      : tensor<256x128xbf16> -> tensor<256x128xf8E4M3FN>, tensor<1024xf8E8M0FNU>
  return %q, %s : tensor<256x128xf8E4M3FN>, tensor<1024xf8E8M0FNU>
}

// Float8 rowwise (axiswise along K): the amax of each row is in one shard.
// CHECK-LABEL: func.func @float8_rowwise_moves(
// CHECK:         %[[Q:.*]], %[[S:.*]] = mxfp8train.quantize %{{.*}} axis = 1 granularity = axiswise pow2
// CHECK-SAME:      -> tensor<32x64xf8E4M3FN>, tensor<32x1xf32>
// CHECK:         shard.all_gather %[[Q]] {{.*}} : tensor<32x64xf8E4M3FN> -> tensor<64x64xf8E4M3FN>
// CHECK:         shard.all_gather %[[S]] {{.*}} : tensor<32x1xf32> -> tensor<64x1xf32>
func.func @float8_rowwise_moves(%w: tensor<32x64xbf16>)
    -> (tensor<64x64xf8E4M3FN>, tensor<64x1xf32>) {
  %g = shard.all_gather %w on @grid grid_axes = [0] gather_axis = 0
      : tensor<32x64xbf16> -> tensor<64x64xbf16>
  %q, %s = mxfp8train.quantize %g axis = 1 granularity = axiswise pow2
      : tensor<64x64xbf16> -> tensor<64x64xf8E4M3FN>, tensor<64x1xf32>
  return %q, %s : tensor<64x64xf8E4M3FN>, tensor<64x1xf32>
}

// A split along the columns (gather_axis = 1) leaves 32x1 blocks whole.
// CHECK-LABEL: func.func @column_split_colwise_moves(
// CHECK:         mxfp8train.quantize %{{.*}} axis = 0 {{.*}} -> tensor<64x32xf8E4M3FN>, tensor<2x32xf8E8M0FNU>
// CHECK:         shard.all_gather {{.*}} gather_axis = 1 : tensor<64x32xf8E4M3FN> -> tensor<64x64xf8E4M3FN>
// CHECK:         shard.all_gather {{.*}} gather_axis = 1 : tensor<2x32xf8E8M0FNU> -> tensor<2x64xf8E8M0FNU>
func.func @column_split_colwise_moves(%w: tensor<64x32xbf16>)
    -> (tensor<64x64xf8E4M3FN>, tensor<2x64xf8E8M0FNU>) {
  %g = shard.all_gather %w on @grid grid_axes = [0] gather_axis = 1
      : tensor<64x32xbf16> -> tensor<64x64xbf16>
  %q, %s = mxfp8train.quantize %g axis = 0 mode = rceil
      : tensor<64x64xbf16> -> tensor<64x64xf8E4M3FN>, tensor<2x64xf8E8M0FNU>
  return %q, %s : tensor<64x64xf8E4M3FN>, tensor<2x64xf8E8M0FNU>
}

// Negative cases: the quantize stays after the high-precision gather.

// CHECK-LABEL: func.func @colwise_split_block_stays(
// CHECK:         %[[G:.*]] = shard.all_gather
// CHECK:         mxfp8train.quantize %[[G]] axis = 0
func.func @colwise_split_block_stays(%w: tensor<48x64xbf16>)
    -> (tensor<96x64xf8E4M3FN>, tensor<3x64xf8E8M0FNU>) {
  %g = shard.all_gather %w on @grid grid_axes = [0] gather_axis = 0
      : tensor<48x64xbf16> -> tensor<96x64xbf16>
  // expected-remark @below {{quantize left after its all-gather: each piece holds 48 elements of the quantized dimension 0, not a multiple of 32: a 32-element block would straddle two pieces}}
  %q, %s = mxfp8train.quantize %g axis = 0 mode = rceil
      : tensor<96x64xbf16> -> tensor<96x64xf8E4M3FN>, tensor<3x64xf8E8M0FNU>
  return %q, %s : tensor<96x64xf8E4M3FN>, tensor<3x64xf8E8M0FNU>
}

// CHECK-LABEL: func.func @dual_split_block_stays(
// CHECK:         %[[G:.*]] = shard.all_gather
// CHECK:         mxfp8train.quantize_dual %[[G]]
func.func @dual_split_block_stays(%w: tensor<48x64xbf16>)
    -> (tensor<96x64xf8E4M3FN>, tensor<96x2xf8E8M0FNU>, tensor<96x64xf8E4M3FN>, tensor<3x64xf8E8M0FNU>) {
  %g = shard.all_gather %w on @grid grid_axes = [0] gather_axis = 0
      : tensor<48x64xbf16> -> tensor<96x64xbf16>
  // expected-remark @below {{quantize left after its all-gather: each piece holds 48 elements of the quantized dimension 0, not a multiple of 32}}
  %rq, %rs, %cq, %cs = mxfp8train.quantize_dual %g mode = rceil
      : tensor<96x64xbf16> -> tensor<96x64xf8E4M3FN>, tensor<96x2xf8E8M0FNU>,
                              tensor<96x64xf8E4M3FN>, tensor<3x64xf8E8M0FNU>
  return %rq, %rs, %cq, %cs : tensor<96x64xf8E4M3FN>, tensor<96x2xf8E8M0FNU>, tensor<96x64xf8E4M3FN>, tensor<3x64xf8E8M0FNU>
}

// CHECK-LABEL: func.func @float8_tensorwise_stays(
// CHECK:         %[[G:.*]] = shard.all_gather
// CHECK:         mxfp8train.quantize %[[G]] granularity = tensorwise
func.func @float8_tensorwise_stays(%w: tensor<32x64xbf16>)
    -> (tensor<64x64xf8E4M3FN>, tensor<f32>) {
  %g = shard.all_gather %w on @grid grid_axes = [0] gather_axis = 0
      : tensor<32x64xbf16> -> tensor<64x64xbf16>
  // expected-remark @below {{quantize left after its all-gather: a tensorwise Float8 scale is the amax of the whole tensor: each piece would be scaled by its own amax}}
  %q, %s = mxfp8train.quantize %g granularity = tensorwise
      : tensor<64x64xbf16> -> tensor<64x64xf8E4M3FN>, tensor<f32>
  return %q, %s : tensor<64x64xf8E4M3FN>, tensor<f32>
}

// CHECK-LABEL: func.func @float8_axiswise_along_gather_stays(
// CHECK:         %[[G:.*]] = shard.all_gather
// CHECK:         mxfp8train.quantize %[[G]] axis = 0
func.func @float8_axiswise_along_gather_stays(%w: tensor<32x64xbf16>)
    -> (tensor<64x64xf8E4M3FN>, tensor<1x64xf32>) {
  %g = shard.all_gather %w on @grid grid_axes = [0] gather_axis = 0
      : tensor<32x64xbf16> -> tensor<64x64xbf16>
  // expected-remark @below {{quantize left after its all-gather: the axiswise Float8 amax along dimension 0 spans the pieces the collective moves}}
  %q, %s = mxfp8train.quantize %g axis = 0 granularity = axiswise
      : tensor<64x64xbf16> -> tensor<64x64xf8E4M3FN>, tensor<1x64xf32>
  return %q, %s : tensor<64x64xf8E4M3FN>, tensor<1x64xf32>
}

// CHECK-LABEL: func.func @blocked_partial_tile_stays(
// CHECK:         %[[G:.*]] = shard.all_gather
// CHECK:         mxfp8train.quantize %[[G]] axis = 1
func.func @blocked_partial_tile_stays(%w: tensor<64x128xbf16>)
    -> (tensor<128x128xf8E4M3FN>, tensor<512xf8E8M0FNU>) {
  %g = shard.all_gather %w on @grid grid_axes = [0] gather_axis = 0
      : tensor<64x128xbf16> -> tensor<128x128xbf16>
  // expected-remark @below {{quantize left after its all-gather: blocked scales of 64 rows per piece: not whole 128-row tiles}}
  %q, %s = mxfp8train.quantize %g axis = 1 mode = rceil layout = blocked
      : tensor<128x128xbf16> -> tensor<128x128xf8E4M3FN>, tensor<512xf8E8M0FNU>
  return %q, %s : tensor<128x128xf8E4M3FN>, tensor<512xf8E8M0FNU>
}

// CHECK-LABEL: func.func @blocked_along_gather_stays(
// CHECK:         %[[G:.*]] = shard.all_gather
// CHECK:         mxfp8train.quantize %[[G]] axis = 0
func.func @blocked_along_gather_stays(%w: tensor<128x128xbf16>)
    -> (tensor<256x128xf8E4M3FN>, tensor<1024xf8E8M0FNU>) {
  %g = shard.all_gather %w on @grid grid_axes = [0] gather_axis = 0
      : tensor<128x128xbf16> -> tensor<256x128xbf16>
  // expected-remark @below {{quantize left after its all-gather: blocked scales along the cut axis: the layout interleaves the blocks of each 128-row tile, so the pieces' scale bytes do not concatenate}}
  %q, %s = mxfp8train.quantize %g axis = 0 mode = rceil layout = blocked
      : tensor<256x128xbf16> -> tensor<256x128xf8E4M3FN>, tensor<1024xf8E8M0FNU>
  return %q, %s : tensor<256x128xf8E4M3FN>, tensor<1024xf8E8M0FNU>
}

// CHECK-LABEL: func.func @per_group_float8_stays(
// CHECK:         %[[G:.*]] = shard.all_gather
// CHECK:         mxfp8train.quantize %[[G]] offs
func.func @per_group_float8_stays(%x: tensor<32x64xbf16>, %offs: tensor<2xi32>)
    -> (tensor<64x64xf8E4M3FN>, tensor<2x64xf32>) {
  %g = shard.all_gather %x on @grid grid_axes = [0] gather_axis = 0
      : tensor<32x64xbf16> -> tensor<64x64xbf16>
  // expected-remark @below {{quantize left after its all-gather: per-group Float8 scales follow the runtime token offsets}}
  %q, %s = mxfp8train.quantize %g offs(%offs) axis = 0 granularity = axiswise
      : tensor<64x64xbf16>, tensor<2xi32> -> tensor<64x64xf8E4M3FN>, tensor<2x64xf32>
  return %q, %s : tensor<64x64xf8E4M3FN>, tensor<2x64xf32>
}

// The bf16 gathered weight has another user: moving the quantize would add
// an fp8 gather to the bf16 one.
// CHECK-LABEL: func.func @other_user_stays(
// CHECK:         %[[G:.*]] = shard.all_gather
// CHECK:         mxfp8train.quantize %[[G]] axis = 1
func.func @other_user_stays(%w: tensor<32x64xbf16>)
    -> (tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU>, tensor<64x64xbf16>) {
  %g = shard.all_gather %w on @grid grid_axes = [0] gather_axis = 0
      : tensor<32x64xbf16> -> tensor<64x64xbf16>
  // expected-remark @below {{quantize left after its all-gather: the gathered tensor is also used by 'func.return': its high-precision gather would stay as well}}
  %q, %s = mxfp8train.quantize %g axis = 1 mode = rceil
      : tensor<64x64xbf16> -> tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU>
  return %q, %s, %g : tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU>, tensor<64x64xbf16>
}

// One quantize of the gathered tensor cannot move, so neither does the
// other (the bf16 gather stays for the first).
// CHECK-LABEL: func.func @sibling_blocks_move(
// CHECK:         %[[G:.*]] = shard.all_gather
// CHECK:         mxfp8train.quantize %[[G]] axis = 1
// CHECK:         mxfp8train.quantize %[[G]] axis = 0
func.func @sibling_blocks_move(%w: tensor<48x64xbf16>)
    -> (tensor<96x64xf8E4M3FN>, tensor<96x2xf8E8M0FNU>, tensor<96x64xf8E4M3FN>, tensor<3x64xf8E8M0FNU>) {
  %g = shard.all_gather %w on @grid grid_axes = [0] gather_axis = 0
      : tensor<48x64xbf16> -> tensor<96x64xbf16>
  // expected-remark @below {{quantize left after its all-gather: another quantize of the gathered tensor cannot move: its high-precision gather would stay}}
  %rq, %rs = mxfp8train.quantize %g axis = 1 mode = rceil
      : tensor<96x64xbf16> -> tensor<96x64xf8E4M3FN>, tensor<96x2xf8E8M0FNU>
  // expected-remark @below {{each piece holds 48 elements of the quantized dimension 0}}
  %cq, %cs = mxfp8train.quantize %g axis = 0 mode = rceil
      : tensor<96x64xbf16> -> tensor<96x64xf8E4M3FN>, tensor<3x64xf8E8M0FNU>
  return %rq, %rs, %cq, %cs : tensor<96x64xf8E4M3FN>, tensor<96x2xf8E8M0FNU>, tensor<96x64xf8E4M3FN>, tensor<3x64xf8E8M0FNU>
}

// Dynamic rows: the shard's size along the gather axis is unknown.
// CHECK-LABEL: func.func @dynamic_rows_stay(
// CHECK:         %[[G:.*]] = shard.all_gather
// CHECK:         mxfp8train.quantize %[[G]] axis = 1
func.func @dynamic_rows_stay(%w: tensor<?x64xbf16>)
    -> (tensor<?x64xf8E4M3FN>, tensor<?x2xf8E8M0FNU>) {
  %g = shard.all_gather %w on @grid grid_axes = [0] gather_axis = 0
      : tensor<?x64xbf16> -> tensor<?x64xbf16>
  // expected-remark @below {{quantize left after its all-gather: the gather has dynamic shapes}}
  %q, %s = mxfp8train.quantize %g axis = 1 mode = rceil
      : tensor<?x64xbf16> -> tensor<?x64xf8E4M3FN>, tensor<?x2xf8E8M0FNU>
  return %q, %s : tensor<?x64xf8E4M3FN>, tensor<?x2xf8E8M0FNU>
}

// Not a gathered input: nothing to do, no remark.
// CHECK-LABEL: func.func @no_gather_untouched(
// CHECK-NOT:     shard.all_gather
func.func @no_gather_untouched(%w: tensor<32x64xbf16>)
    -> (tensor<32x64xf8E4M3FN>, tensor<32x2xf8E8M0FNU>) {
  %q, %s = mxfp8train.quantize %w axis = 1 mode = rceil
      : tensor<32x64xbf16> -> tensor<32x64xf8E4M3FN>, tensor<32x2xf8E8M0FNU>
  return %q, %s : tensor<32x64xf8E4M3FN>, tensor<32x2xf8E8M0FNU>
}
