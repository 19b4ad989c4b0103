// RUN: mxfp8-opt %s --mxfp8train-quantize-before-all-to-all="remarks=true" \
// RUN:   -verify-diagnostics | FileCheck %s

// Partitioned IR of a 2-process grid: tokens exchanged by shard.all_to_all
// in high precision before their quantize (expert-parallel dispatch; the
// CPU execution of a partitioned model: test/Execution/
// ShardingExecutionTest.cpp, TokenExchangeInMxfp8).

shard.grid @grid(shape = 2)

// Rows redistributed (split and concat along the tokens), 1x32 blocks
// along K: every block stays whole. Each process quantizes its own tokens
// and exchanges the fp8 data and e8m0 scales with the same axes (the
// identity cast that shard-partition leaves is looked through); the bf16
// exchange goes.
// CHECK-LABEL: func.func @token_rows_move_before_exchange(
// CHECK-SAME:    %[[X:.*]]: tensor<16x64xbf16>
// CHECK-NOT:     shard.all_to_all %[[X]]
// CHECK:         %[[Q:.*]], %[[S:.*]] = mxfp8train.quantize %[[X]] axis = 1 mode = rceil
// CHECK-SAME:      : tensor<16x64xbf16> -> tensor<16x64xf8E4M3FN>, tensor<16x2xf8E8M0FNU>
// CHECK:         %[[EQ:.*]] = shard.all_to_all %[[Q]] on @grid grid_axes = [0] split_axis = 0 concat_axis = 0
// CHECK-SAME:      : tensor<16x64xf8E4M3FN> -> tensor<16x64xf8E4M3FN>
// CHECK:         %[[ES:.*]] = shard.all_to_all %[[S]] on @grid grid_axes = [0] split_axis = 0 concat_axis = 0
// CHECK-SAME:      : tensor<16x2xf8E8M0FNU> -> tensor<16x2xf8E8M0FNU>
// CHECK:         return %[[EQ]], %[[ES]]
func.func @token_rows_move_before_exchange(%x: tensor<16x64xbf16>)
    -> (tensor<16x64xf8E4M3FN>, tensor<16x2xf8E8M0FNU>) {
  %t = shard.all_to_all %x on @grid grid_axes = [0] split_axis = 0 concat_axis = 0
      : tensor<16x64xbf16> -> tensor<16x64xbf16>
  %c = tensor.cast %t : tensor<16x64xbf16> to tensor<16x64xbf16>
  %q, %s = mxfp8train.quantize %c axis = 1 mode = rceil
      : tensor<16x64xbf16> -> tensor<16x64xf8E4M3FN>, tensor<16x2xf8E8M0FNU>
  return %q, %s : tensor<16x64xf8E4M3FN>, tensor<16x2xf8E8M0FNU>
}

// Rows to a split of K (split axis 1, concat axis 0): the quantized K is
// cut into pieces of 64 / 2 = 32, one whole block each. The scales split
// along their block columns: (8, 2) -> (16, 1).
// CHECK-LABEL: func.func @k_split_moves_with_whole_blocks(
// CHECK-SAME:    %[[X:.*]]: tensor<8x64xbf16>
// CHECK:         %[[Q:.*]], %[[S:.*]] = mxfp8train.quantize %[[X]] axis = 1 mode = rceil
// CHECK-SAME:      : tensor<8x64xbf16> -> tensor<8x64xf8E4M3FN>, tensor<8x2xf8E8M0FNU>
// CHECK:         shard.all_to_all %[[Q]] {{.*}} split_axis = 1 concat_axis = 0 : tensor<8x64xf8E4M3FN> -> tensor<16x32xf8E4M3FN>
// CHECK:         shard.all_to_all %[[S]] {{.*}} split_axis = 1 concat_axis = 0 : tensor<8x2xf8E8M0FNU> -> tensor<16x1xf8E8M0FNU>
func.func @k_split_moves_with_whole_blocks(%x: tensor<8x64xbf16>)
    -> (tensor<16x32xf8E4M3FN>, tensor<16x1xf8E8M0FNU>) {
  %t = shard.all_to_all %x on @grid grid_axes = [0] split_axis = 1 concat_axis = 0
      : tensor<8x64xbf16> -> tensor<16x32xbf16>
  %q, %s = mxfp8train.quantize %t axis = 1 mode = rceil
      : tensor<16x32xbf16> -> tensor<16x32xf8E4M3FN>, tensor<16x1xf8E8M0FNU>
  return %q, %s : tensor<16x32xf8E4M3FN>, tensor<16x1xf8E8M0FNU>
}

// Both casts of the backward (quantize_dual) of redistributed rows: 64 rows
// per process, pieces of 32 sent and of 64 received, whole 32x1 blocks:
// four exchanges.
// CHECK-LABEL: func.func @dual_moves_both_casts(
// CHECK-SAME:    %[[X:.*]]: tensor<64x64xbf16>
// CHECK:         %[[RQ:.*]], %[[RS:.*]], %[[CQ:.*]], %[[CS:.*]] = mxfp8train.quantize_dual %[[X]] mode = rceil
// CHECK:         shard.all_to_all %[[RQ]] {{.*}} : tensor<64x64xf8E4M3FN> -> tensor<64x64xf8E4M3FN>
// CHECK:         shard.all_to_all %[[RS]] {{.*}} : tensor<64x2xf8E8M0FNU> -> tensor<64x2xf8E8M0FNU>
// CHECK:         shard.all_to_all %[[CQ]] {{.*}} : tensor<64x64xf8E4M3FN> -> tensor<64x64xf8E4M3FN>
// CHECK:         shard.all_to_all %[[CS]] {{.*}} : tensor<2x64xf8E8M0FNU> -> tensor<2x64xf8E8M0FNU>
func.func @dual_moves_both_casts(%x: tensor<64x64xbf16>)
    -> (tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU>, tensor<64x64xf8E4M3FN>, tensor<2x64xf8E8M0FNU>) {
  %t = shard.all_to_all %x on @grid grid_axes = [0] split_axis = 0 concat_axis = 0
      : tensor<64x64xbf16> -> tensor<64x64xbf16>
  %rq, %rs, %cq, %cs = mxfp8train.quantize_dual %t mode = rceil
      : tensor<64x64xbf16> -> tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU>, tensor<64x64xf8E4M3FN>, tensor<2x64xf8E8M0FNU>
  return %rq, %rs, %cq, %cs : tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU>, tensor<64x64xf8E4M3FN>, tensor<2x64xf8E8M0FNU>
}

// Float8 rowwise (torchao's float8_rowwise tokens): the amax of each row
// runs along K, which each process holds whole.
// CHECK-LABEL: func.func @float8_rowwise_moves(
// CHECK:         %[[Q:.*]], %[[S:.*]] = mxfp8train.quantize %{{.*}} axis = 1 granularity = axiswise pow2
// CHECK-SAME:      : tensor<16x64xbf16> -> tensor<16x64xf8E4M3FN>, tensor<16x1xf32>
// CHECK:         shard.all_to_all %[[Q]]
// CHECK:         shard.all_to_all %[[S]] {{.*}} : tensor<16x1xf32> -> tensor<16x1xf32>
func.func @float8_rowwise_moves(%x: tensor<16x64xbf16>)
    -> (tensor<16x64xf8E4M3FN>, tensor<16x1xf32>) {
  %t = shard.all_to_all %x on @grid grid_axes = [0] split_axis = 0 concat_axis = 0
      : tensor<16x64xbf16> -> tensor<16x64xbf16>
  %q, %s = mxfp8train.quantize %t axis = 1 granularity = axiswise pow2
      : tensor<16x64xbf16> -> tensor<16x64xf8E4M3FN>, tensor<16x1xf32>
  return %q, %s : tensor<16x64xf8E4M3FN>, tensor<16x1xf32>
}

// 32x1 blocks along the concat axis, 48 rows received from each process:
// a block would straddle two pieces. Left in place.
// CHECK-LABEL: func.func @straddling_block_stays(
// CHECK:         %[[T:.*]] = shard.all_to_all %{{.*}} : tensor<48x64xbf16> -> tensor<96x32xbf16>
// CHECK:         mxfp8train.quantize %[[T]] axis = 0
func.func @straddling_block_stays(%x: tensor<48x64xbf16>)
    -> (tensor<96x32xf8E4M3FN>, tensor<3x32xf8E8M0FNU>) {
  %t = shard.all_to_all %x on @grid grid_axes = [0] split_axis = 1 concat_axis = 0
      : tensor<48x64xbf16> -> tensor<96x32xbf16>
  // expected-remark @below {{quantize left after its all-to-all: each piece holds 48 elements of the quantized dimension 0, not a multiple of 32: a 32-element block would straddle two pieces}}
  %q, %s = mxfp8train.quantize %t axis = 0 mode = rceil
      : tensor<96x32xbf16> -> tensor<96x32xf8E4M3FN>, tensor<3x32xf8E8M0FNU>
  return %q, %s : tensor<96x32xf8E4M3FN>, tensor<3x32xf8E8M0FNU>
}

// Float8 axiswise along the exchanged rows: the amax spans the pieces.
// CHECK-LABEL: func.func @float8_axiswise_along_rows_stays(
// CHECK:         %[[T:.*]] = shard.all_to_all
// CHECK:         mxfp8train.quantize %[[T]] axis = 0 granularity = axiswise
func.func @float8_axiswise_along_rows_stays(%x: tensor<32x64xbf16>)
    -> (tensor<32x64xf8E4M3FN>, tensor<1x64xf32>) {
  %t = shard.all_to_all %x on @grid grid_axes = [0] split_axis = 0 concat_axis = 0
      : tensor<32x64xbf16> -> tensor<32x64xbf16>
  // expected-remark @below {{quantize left after its all-to-all: the axiswise Float8 amax along dimension 0 spans the pieces the collective moves}}
  %q, %s = mxfp8train.quantize %t axis = 0 granularity = axiswise
      : tensor<32x64xbf16> -> tensor<32x64xf8E4M3FN>, tensor<1x64xf32>
  return %q, %s : tensor<32x64xf8E4M3FN>, tensor<1x64xf32>
}

// Tensorwise: one amax of the whole tensor.
// CHECK-LABEL: func.func @float8_tensorwise_stays(
// CHECK:         %[[T:.*]] = shard.all_to_all
// CHECK:         mxfp8train.quantize %[[T]] granularity = tensorwise
func.func @float8_tensorwise_stays(%x: tensor<32x64xbf16>)
    -> (tensor<32x64xf8E4M3FN>, tensor<f32>) {
  %t = shard.all_to_all %x on @grid grid_axes = [0] split_axis = 0 concat_axis = 0
      : tensor<32x64xbf16> -> tensor<32x64xbf16>
  // expected-remark @below {{quantize left after its all-to-all: a tensorwise Float8 scale is the amax of the whole tensor: each piece would be scaled by its own amax}}
  %q, %s = mxfp8train.quantize %t granularity = tensorwise
      : tensor<32x64xbf16> -> tensor<32x64xf8E4M3FN>, tensor<f32>
  return %q, %s : tensor<32x64xf8E4M3FN>, tensor<f32>
}

// Blocked scales are 1-D bytes in 128-row tiles: no axis to exchange them
// along.
// CHECK-LABEL: func.func @blocked_stays(
// CHECK:         %[[T:.*]] = shard.all_to_all
// CHECK:         mxfp8train.quantize %[[T]] axis = 1 mode = rceil layout = blocked
func.func @blocked_stays(%x: tensor<128x128xbf16>)
    -> (tensor<128x128xf8E4M3FN>, tensor<512xf8E8M0FNU>) {
  %t = shard.all_to_all %x on @grid grid_axes = [0] split_axis = 0 concat_axis = 0
      : tensor<128x128xbf16> -> tensor<128x128xbf16>
  // expected-remark @below {{quantize left after its all-to-all: blocked scales: their 1-D bytes interleave the blocks of each 128-row tile and do not split along the exchange's axes}}
  %q, %s = mxfp8train.quantize %t axis = 1 mode = rceil layout = blocked
      : tensor<128x128xbf16> -> tensor<128x128xf8E4M3FN>, tensor<512xf8E8M0FNU>
  return %q, %s : tensor<128x128xf8E4M3FN>, tensor<512xf8E8M0FNU>
}

// The exchanged bf16 tokens are also returned: their exchange stays, so the
// quantize stays after it (moving it would add traffic).
// CHECK-LABEL: func.func @other_user_stays(
// CHECK:         %[[T:.*]] = shard.all_to_all
// CHECK:         mxfp8train.quantize %[[T]]
func.func @other_user_stays(%x: tensor<16x64xbf16>)
    -> (tensor<16x64xf8E4M3FN>, tensor<16x2xf8E8M0FNU>, tensor<16x64xbf16>) {
  %t = shard.all_to_all %x on @grid grid_axes = [0] split_axis = 0 concat_axis = 0
      : tensor<16x64xbf16> -> tensor<16x64xbf16>
  // expected-remark @below {{quantize left after its all-to-all: the exchanged tensor is also used by 'func.return': its high-precision all-to-all would stay as well}}
  %q, %s = mxfp8train.quantize %t axis = 1 mode = rceil
      : tensor<16x64xbf16> -> tensor<16x64xf8E4M3FN>, tensor<16x2xf8E8M0FNU>
  return %q, %s, %t : tensor<16x64xf8E4M3FN>, tensor<16x2xf8E8M0FNU>, tensor<16x64xbf16>
}

// Not an exchanged input: nothing to do, no remark.
// CHECK-LABEL: func.func @no_exchange(
// CHECK-NOT:     shard.all_to_all
func.func @no_exchange(%x: tensor<16x64xbf16>)
    -> (tensor<16x64xf8E4M3FN>, tensor<16x2xf8E8M0FNU>) {
  %q, %s = mxfp8train.quantize %x axis = 1 mode = rceil
      : tensor<16x64xbf16> -> tensor<16x64xf8E4M3FN>, tensor<16x2xf8E8M0FNU>
  return %q, %s : tensor<16x64xf8E4M3FN>, tensor<16x2xf8E8M0FNU>
}
