// RUN: mxfp8-opt %s --pass-pipeline='builtin.module(func.func(sharding-propagation,shard-partition))' --split-input-file | FileCheck %s

// shard-partition of annotated mxfp8train graphs on a 2-process grid: the
// local shapes of data and scales, and the collectives that upstream inserts
// or that the models emit (docs/sharding.md).

// Megatron-style MLP: gate/up split along N, down along K. The local weights
// and their scales are halves; the down projection's f32 partials are
// all-reduced and rounded once to bf16.
// CHECK-LABEL: func.func @tensor_parallel_mlp(
// CHECK-SAME:    %[[X:arg[0-9]+]]: tensor<64x128xbf16>, %[[WG:arg[0-9]+]]: tensor<128x128xf8E4M3FN>, %[[WGS:arg[0-9]+]]: tensor<128x4xf8E8M0FNU>,
// CHECK-SAME:    %[[WU:arg[0-9]+]]: tensor<128x128xf8E4M3FN>, %[[WUS:arg[0-9]+]]: tensor<128x4xf8E8M0FNU>, %[[WD:arg[0-9]+]]: tensor<128x128xf8E4M3FN>, %[[WDS:arg[0-9]+]]: tensor<128x4xf8E8M0FNU>)
// CHECK-NEXT:  %[[Q:.*]], %[[QS:.*]] = mxfp8train.quantize %[[X]] axis = 1 mode = rceil : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>
// CHECK-NEXT:  %[[G:.*]] = mxfp8train.scaled_mm %[[Q]][%[[QS]]], %[[WG]][%[[WGS]]] transpose_rhs {{.*}} -> tensor<64x128xbf16>
// CHECK-NEXT:  %[[U:.*]] = mxfp8train.scaled_mm %[[Q]][%[[QS]]], %[[WU]][%[[WUS]]] transpose_rhs {{.*}} -> tensor<64x128xbf16>
// CHECK-NEXT:  tensor.empty() : tensor<64x128xbf16>
// CHECK-NEXT:  %[[H:.*]] = linalg.mul ins(%[[G]], %[[U]]
// CHECK-NEXT:  %[[HQ:.*]], %[[HS:.*]] = mxfp8train.quantize %[[H]] axis = 1 mode = rceil : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>
// CHECK-NEXT:  %[[P:.*]] = mxfp8train.scaled_mm %[[HQ]][%[[HS]]], %[[WD]][%[[WDS]]] transpose_rhs {{.*}} -> tensor<64x128xf32>
// CHECK-NEXT:  %[[R:.*]] = shard.all_reduce %[[P]] on @grid grid_axes = [0] : tensor<64x128xf32> -> tensor<64x128xf32>
// CHECK-NEXT:  %[[Y:.*]] = arith.truncf %[[R]] : tensor<64x128xf32> to tensor<64x128xbf16>
// CHECK-NEXT:  return %[[Y]] : tensor<64x128xbf16>
shard.grid @grid(shape = 2)
func.func @tensor_parallel_mlp(%x: tensor<64x128xbf16>,
    %wg: tensor<256x128xf8E4M3FN>, %wgs: tensor<256x4xf8E8M0FNU>,
    %wu: tensor<256x128xf8E4M3FN>, %wus: tensor<256x4xf8E8M0FNU>,
    %wd: tensor<128x256xf8E4M3FN>, %wds: tensor<128x8xf8E8M0FNU>) -> tensor<64x128xbf16> {
  %col = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %row = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %wg1 = shard.shard %wg to %col : tensor<256x128xf8E4M3FN>
  %wgs1 = shard.shard %wgs to %col : tensor<256x4xf8E8M0FNU>
  %wu1 = shard.shard %wu to %col : tensor<256x128xf8E4M3FN>
  %wus1 = shard.shard %wus to %col : tensor<256x4xf8E8M0FNU>
  %wd1 = shard.shard %wd to %row : tensor<128x256xf8E4M3FN>
  %wds1 = shard.shard %wds to %row : tensor<128x8xf8E8M0FNU>
  %q, %qs = mxfp8train.quantize %x axis = 1 mode = rceil
      : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>
  %g = mxfp8train.scaled_mm %q [%qs], %wg1 [%wgs1] transpose_rhs
      : tensor<64x128xf8E4M3FN> [tensor<64x4xf8E8M0FNU>],
        tensor<256x128xf8E4M3FN> [tensor<256x4xf8E8M0FNU>] -> tensor<64x256xbf16>
  %u = mxfp8train.scaled_mm %q [%qs], %wu1 [%wus1] transpose_rhs
      : tensor<64x128xf8E4M3FN> [tensor<64x4xf8E8M0FNU>],
        tensor<256x128xf8E4M3FN> [tensor<256x4xf8E8M0FNU>] -> tensor<64x256xbf16>
  %e = tensor.empty() : tensor<64x256xbf16>
  %h = linalg.mul ins(%g, %u : tensor<64x256xbf16>, tensor<64x256xbf16>)
      outs(%e : tensor<64x256xbf16>) -> tensor<64x256xbf16>
  %hq, %hs = mxfp8train.quantize %h axis = 1 mode = rceil
      : tensor<64x256xbf16> -> tensor<64x256xf8E4M3FN>, tensor<64x8xf8E8M0FNU>
  %y = mxfp8train.scaled_mm %hq [%hs], %wd1 [%wds1] transpose_rhs
      : tensor<64x256xf8E4M3FN> [tensor<64x8xf8E8M0FNU>],
        tensor<128x256xf8E4M3FN> [tensor<128x8xf8E8M0FNU>] -> tensor<64x128xbf16>
  return %y : tensor<64x128xbf16>
}

// -----

// Tokens split in whole 128-row tiles: each shard quantizes 128 rows and
// writes 128 * 4 blocked scale bytes, the contiguous half of the 1024.
// CHECK-LABEL: func.func @data_parallel_blocked(
// CHECK-SAME:    %[[X:arg[0-9]+]]: tensor<128x64xbf16>, %[[W:arg[0-9]+]]: tensor<64x64xf8E4M3FN>, %[[WS:arg[0-9]+]]: tensor<512xf8E8M0FNU>) -> tensor<128x64xbf16>
// CHECK-NEXT:  %[[Q:.*]], %[[QS:.*]] = mxfp8train.quantize %[[X]] {{.*}} -> tensor<128x64xf8E4M3FN>, tensor<512xf8E8M0FNU>
// CHECK-NEXT:  %[[Y:.*]] = mxfp8train.scaled_mm %[[Q]][%[[QS]]], %[[W]][%[[WS]]] {{.*}} -> tensor<128x64xbf16>
// CHECK-NEXT:  return %[[Y]]
shard.grid @grid(shape = 2)
func.func @data_parallel_blocked(%x: tensor<256x64xbf16>, %w: tensor<64x64xf8E4M3FN>,
    %ws: tensor<512xf8E8M0FNU>) -> tensor<256x64xbf16> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %x1 = shard.shard %x to %s : tensor<256x64xbf16>
  %q, %qs = mxfp8train.quantize %x1 axis = 1 mode = rceil layout = blocked
      : tensor<256x64xbf16> -> tensor<256x64xf8E4M3FN>, tensor<1024xf8E8M0FNU>
  %y = mxfp8train.scaled_mm %q [%qs], %w [%ws] transpose_rhs lhs_layout = blocked rhs_layout = blocked
      : tensor<256x64xf8E4M3FN> [tensor<1024xf8E8M0FNU>],
        tensor<64x64xf8E4M3FN> [tensor<512xf8E8M0FNU>] -> tensor<256x64xbf16>
  return %y : tensor<256x64xbf16>
}

// -----

// A split K with a bias: the bias is added on the first shard of the
// reduction group only (zeros elsewhere), so the all-reduce adds it once.
// CHECK-LABEL: func.func @contraction_split_with_bias(
// CHECK-SAME:    %[[A:arg[0-9]+]]: tensor<32x64xf8E4M3FN>, %[[AS:arg[0-9]+]]: tensor<32x2xf8E8M0FNU>, %[[B:arg[0-9]+]]: tensor<64x64xf8E4M3FN>, %[[BS:arg[0-9]+]]: tensor<64x2xf8E8M0FNU>, %[[BIAS:arg[0-9]+]]: tensor<64xbf16>)
// CHECK-DAG:   %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:   %[[IDX:.*]] = shard.process_multi_index on @grid axes = [0] : index
// CHECK:       %[[LEAD:.*]] = arith.cmpi eq, %[[IDX]], %[[C0]] : index
// CHECK-NEXT:  %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<64xbf16>
// CHECK-NEXT:  %[[LB:.*]] = arith.select %[[LEAD]], %[[BIAS]], %[[ZERO]] : tensor<64xbf16>
// CHECK-NEXT:  %[[P:.*]] = mxfp8train.scaled_mm %[[A]][%[[AS]]], %[[B]][%[[BS]]] bias(%[[LB]]) transpose_rhs {{.*}} -> tensor<32x64xf32>
// CHECK-NEXT:  %[[R:.*]] = shard.all_reduce %[[P]] on @grid grid_axes = [0] : tensor<32x64xf32> -> tensor<32x64xf32>
// CHECK-NEXT:  return %[[R]] : tensor<32x64xf32>
shard.grid @grid(shape = 2)
func.func @contraction_split_with_bias(%a: tensor<32x128xf8E4M3FN>, %as: tensor<32x4xf8E8M0FNU>,
    %b: tensor<64x128xf8E4M3FN>, %bs: tensor<64x4xf8E8M0FNU>, %bias: tensor<64xbf16>) -> tensor<32x64xf32> {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %a1 = shard.shard %a to %s : tensor<32x128xf8E4M3FN>
  %y = mxfp8train.scaled_mm %a1 [%as], %b [%bs] bias(%bias) transpose_rhs
      : tensor<32x128xf8E4M3FN> [tensor<32x4xf8E8M0FNU>],
        tensor<64x128xf8E4M3FN> [tensor<64x4xf8E8M0FNU>], tensor<64xbf16> -> tensor<32x64xf32>
  return %y : tensor<32x64xf32>
}

// -----

// Expert parallelism of the 2d-3d grouped GEMM: each shard holds 2 of the 4
// experts and slices offs at its first expert; the rows before its first
// group (earlier experts) are zeroed, and the all-reduce adds the shards.
// The first group's start is the unsharded op's: the running maximum of the
// earlier ends (a reduction over offs with the entries from FIRST on masked
// out, from 0), clamped to the 128 tokens.
// CHECK-LABEL: func.func @expert_parallel(
// CHECK-SAME:    %[[A:arg[0-9]+]]: tensor<128x64xf8E4M3FN>, %[[AS:arg[0-9]+]]: tensor<128x2xf8E8M0FNU>, %[[W:arg[0-9]+]]: tensor<2x32x64xf8E4M3FN>, %[[WS:arg[0-9]+]]: tensor<2x32x2xf8E8M0FNU>, %[[OFFS:arg[0-9]+]]: tensor<4xi32>)
// CHECK:       %[[IDX:.*]] = shard.process_multi_index on @grid axes = [0] : index
// CHECK:       %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT:  %[[FIRST:.*]] = arith.muli %[[IDX]], %[[C2]] : index
// CHECK-NEXT:  %[[SLICE:.*]] = tensor.extract_slice %[[OFFS]][%[[FIRST]]] [2] [1] : tensor<4xi32> to tensor<2xi32>
// CHECK:       %[[PREFIX:.*]] = linalg.generic {{.*}}iterator_types = ["reduction"]} ins(%[[OFFS]] : tensor<4xi32>) outs(%{{.*}} : tensor<i32>)
// CHECK:         %[[I:.*]] = linalg.index 0 : index
// CHECK-NEXT:    %[[EARLIER:.*]] = arith.cmpi ult, %[[I]], %[[FIRST]] : index
// CHECK:         %[[ENTRY:.*]] = arith.select %[[EARLIER]], %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:    %[[RMAX:.*]] = arith.maxsi %{{.*}}, %[[ENTRY]] : i32
// CHECK-NEXT:    linalg.yield %[[RMAX]] : i32
// CHECK:       %[[PREV:.*]] = tensor.extract %[[PREFIX]][] : tensor<i32>
// CHECK-NEXT:  %[[PREVI:.*]] = arith.index_cast %[[PREV]] : i32 to index
// CHECK-NEXT:  %[[C128:.*]] = arith.constant 128 : index
// CHECK-NEXT:  %[[START:.*]] = arith.minsi %[[PREVI]], %[[C128]] : index
// CHECK-NEXT:  %[[P:.*]] = mxfp8train.scaled_grouped_mm %[[A]][%[[AS]]], %[[W]][%[[WS]]] offs(%[[SLICE]]) transpose_rhs {{.*}} -> tensor<128x32xf32>
// CHECK:       %[[M:.*]] = linalg.generic {{.*}} ins(%[[P]] : tensor<128x32xf32>)
// CHECK:         %[[ROW:.*]] = linalg.index 0 : index
// CHECK-NEXT:    %[[BEFORE:.*]] = arith.cmpi ult, %[[ROW]], %[[START]] : index
// CHECK:         arith.select %[[BEFORE]]
// CHECK:       %[[R:.*]] = shard.all_reduce %[[M]] on @grid grid_axes = [0] : tensor<128x32xf32> -> tensor<128x32xf32>
// CHECK-NEXT:  %[[Y:.*]] = arith.truncf %[[R]] : tensor<128x32xf32> to tensor<128x32xbf16>
// CHECK-NEXT:  return %[[Y]]
shard.grid @grid(shape = 2)
func.func @expert_parallel(%a: tensor<128x64xf8E4M3FN>, %as: tensor<128x2xf8E8M0FNU>,
    %w: tensor<4x32x64xf8E4M3FN>, %ws: tensor<4x32x2xf8E8M0FNU>, %offs: tensor<4xi32>) -> tensor<128x32xbf16> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %w1 = shard.shard %w to %s : tensor<4x32x64xf8E4M3FN>
  %ws1 = shard.shard %ws to %s : tensor<4x32x2xf8E8M0FNU>
  %y = mxfp8train.scaled_grouped_mm %a [%as], %w1 [%ws1] offs(%offs) transpose_rhs
      : tensor<128x64xf8E4M3FN> [tensor<128x2xf8E8M0FNU>],
        tensor<4x32x64xf8E4M3FN> [tensor<4x32x2xf8E8M0FNU>], tensor<4xi32> -> tensor<128x32xbf16>
  return %y : tensor<128x32xbf16>
}

// -----

// to_blocked of a token split: whole 128-row tiles, 512 of the 1024 bytes.
// CHECK-LABEL: func.func @to_blocked_rows(
// CHECK-SAME:    %[[S:arg[0-9]+]]: tensor<128x4xf8E8M0FNU>) -> tensor<512xf8E8M0FNU>
// CHECK-NEXT:  mxfp8train.to_blocked %[[S]] layout = blocked : tensor<128x4xf8E8M0FNU> -> tensor<512xf8E8M0FNU>
shard.grid @grid(shape = 2)
func.func @to_blocked_rows(%s0: tensor<256x4xf8E8M0FNU>) -> tensor<1024xf8E8M0FNU> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %x1 = shard.shard %s0 to %s : tensor<256x4xf8E8M0FNU>
  %b = mxfp8train.to_blocked %x1 layout = blocked : tensor<256x4xf8E8M0FNU> -> tensor<1024xf8E8M0FNU>
  return %b : tensor<1024xf8E8M0FNU>
}

// -----

// Ops whose layout follows runtime offsets are replicated: a split input is
// all-gathered first.
// CHECK-LABEL: func.func @replicated_padding(
// CHECK-SAME:    %[[X:arg[0-9]+]]: tensor<128x64xbf16>, %[[OFFS:arg[0-9]+]]: tensor<4xi32>)
// CHECK-NEXT:  %[[G:.*]] = shard.all_gather %[[X]] on @grid grid_axes = [0] gather_axis = 0 : tensor<128x64xbf16> -> tensor<256x64xbf16>
// CHECK:       mxfp8train.pad_token_groups {{.*}} : tensor<256x64xbf16>, tensor<4xi32> -> tensor<384x64xbf16>, tensor<4xi32>
shard.grid @grid(shape = 2)
func.func @replicated_padding(%x: tensor<256x64xbf16>, %offs: tensor<4xi32>) -> tensor<384x64xbf16> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %x1 = shard.shard %x to %s : tensor<256x64xbf16>
  %p, %po = mxfp8train.pad_token_groups %x1 offs(%offs) alignment = 32
      : tensor<256x64xbf16>, tensor<4xi32> -> tensor<384x64xbf16>, tensor<4xi32>
  return %p : tensor<384x64xbf16>
}

// -----

// The 32x1 (axis 0) cast with blocked scales: the blocked rows are the N
// columns of the data, so an N split of 128 per shard keeps whole tiles
// (128 rows x 4 scale columns = 512 of the 1024 bytes); quantize_dual split
// along M quantizes 128 rows per shard, 4 of the 8 colwise scale rows.
// CHECK-LABEL: func.func @colwise_blocked(
// CHECK-SAME:    %[[X:arg[0-9]+]]: tensor<64x128xbf16>) -> (tensor<64x128xf8E4M3FN>, tensor<512xf8E8M0FNU>)
// CHECK-NEXT:  mxfp8train.quantize %[[X]] axis = 0 {{.*}} : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<512xf8E8M0FNU>
// CHECK-LABEL: func.func @dual_rows(
// CHECK-SAME:    %[[X:arg[0-9]+]]: tensor<128x64xbf16>)
// CHECK-NEXT:  mxfp8train.quantize_dual %[[X]] {{.*}} -> tensor<128x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU>, tensor<128x64xf8E4M3FN>, tensor<4x64xf8E8M0FNU>
shard.grid @grid(shape = 2)
func.func @colwise_blocked(%x: tensor<64x256xbf16>) -> (tensor<64x256xf8E4M3FN>, tensor<1024xf8E8M0FNU>) {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %x1 = shard.shard %x to %s : tensor<64x256xbf16>
  %q, %qs = mxfp8train.quantize %x1 axis = 0 mode = rceil layout = blocked
      : tensor<64x256xbf16> -> tensor<64x256xf8E4M3FN>, tensor<1024xf8E8M0FNU>
  return %q, %qs : tensor<64x256xf8E4M3FN>, tensor<1024xf8E8M0FNU>
}
func.func @dual_rows(%x: tensor<256x64xbf16>) -> (tensor<256x64xf8E4M3FN>, tensor<256x2xf8E8M0FNU>,
                                                 tensor<256x64xf8E4M3FN>, tensor<8x64xf8E8M0FNU>) {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %x1 = shard.shard %x to %s : tensor<256x64xbf16>
  %rq, %rs, %cq, %cs = mxfp8train.quantize_dual %x1 mode = rceil
      : tensor<256x64xbf16> -> tensor<256x64xf8E4M3FN>, tensor<256x2xf8E8M0FNU>,
                               tensor<256x64xf8E4M3FN>, tensor<8x64xf8E8M0FNU>
  return %rq, %rs, %cq, %cs : tensor<256x64xf8E4M3FN>, tensor<256x2xf8E8M0FNU>,
                              tensor<256x64xf8E4M3FN>, tensor<8x64xf8E8M0FNU>
}

// -----

// Float8: an axiswise quantize along K split along M (its (M, 1) scales
// split with it), then a rowwise scaled_mm with a tensorwise rhs scale that
// stays a replicated scalar.
// CHECK-LABEL: func.func @float8_rowwise(
// CHECK-SAME:    %[[X:arg[0-9]+]]: tensor<32x64xbf16>, %[[W:arg[0-9]+]]: tensor<64x64xf8E4M3FN>, %[[WS:arg[0-9]+]]: tensor<f32>) -> tensor<32x64xbf16>
// CHECK-NEXT:  %[[Q:.*]], %[[QS:.*]] = mxfp8train.quantize %[[X]] axis = 1 granularity = axiswise : tensor<32x64xbf16> -> tensor<32x64xf8E4M3FN>, tensor<32x1xf32>
// CHECK-NEXT:  mxfp8train.scaled_mm %[[Q]][%[[QS]]], %[[W]][%[[WS]]] transpose_rhs : tensor<32x64xf8E4M3FN>[tensor<32x1xf32>], tensor<64x64xf8E4M3FN>[tensor<f32>] -> tensor<32x64xbf16>
shard.grid @grid(shape = 2)
func.func @float8_rowwise(%x: tensor<64x64xbf16>, %w: tensor<64x64xf8E4M3FN>, %ws: tensor<f32>) -> tensor<64x64xbf16> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %x1 = shard.shard %x to %s : tensor<64x64xbf16>
  %q, %qs = mxfp8train.quantize %x1 axis = 1 granularity = axiswise
      : tensor<64x64xbf16> -> tensor<64x64xf8E4M3FN>, tensor<64x1xf32>
  %y = mxfp8train.scaled_mm %q [%qs], %w [%ws] transpose_rhs
      : tensor<64x64xf8E4M3FN> [tensor<64x1xf32>],
        tensor<64x64xf8E4M3FN> [tensor<f32>] -> tensor<64x64xbf16>
  return %y : tensor<64x64xbf16>
}

// -----

// blocked_per_expert scales split along the experts: 2 of 4 per shard.
// CHECK-LABEL: func.func @to_blocked_per_expert(
// CHECK-SAME:    %[[S:arg[0-9]+]]: tensor<2x32x2xf8E8M0FNU>) -> tensor<2x512xf8E8M0FNU>
// CHECK-NEXT:  mxfp8train.to_blocked %[[S]] layout = blocked_per_expert : tensor<2x32x2xf8E8M0FNU> -> tensor<2x512xf8E8M0FNU>
shard.grid @grid(shape = 2)
func.func @to_blocked_per_expert(%s0: tensor<4x32x2xf8E8M0FNU>) -> tensor<4x512xf8E8M0FNU> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %x1 = shard.shard %s0 to %s : tensor<4x32x2xf8E8M0FNU>
  %b = mxfp8train.to_blocked %x1 layout = blocked_per_expert
      : tensor<4x32x2xf8E8M0FNU> -> tensor<4x512xf8E8M0FNU>
  return %b : tensor<4x512xf8E8M0FNU>
}

// -----

// A tensorwise cast (amax over the whole tensor: no loop may split) of a
// replicated tensor whose GEMM user wants its rows split: the cast stays
// whole and upstream slices its data for the GEMM (propagation used to fail
// with "replicate the input", though the input was replicated).
// CHECK-LABEL: func.func @tensorwise_cast_for_a_split_user(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<64x64xbf16>
// CHECK:         %[[Q:.*]], %[[QS:.*]] = mxfp8train.quantize %[[X]] granularity = tensorwise : tensor<64x64xbf16> -> tensor<64x64xf8E4M3FN>, tensor<f32>
// CHECK:         %[[SLICE:.*]] = shard.all_slice %[[Q]] on @grid grid_axes = [0] slice_axis = 0 : tensor<64x64xf8E4M3FN> -> tensor<32x64xf8E4M3FN>
// CHECK:         mxfp8train.scaled_mm %[[SLICE]][%[[QS]]], {{.*}} -> tensor<32x64xbf16>
shard.grid @grid(shape = 2)
func.func @tensorwise_cast_for_a_split_user(%x: tensor<64x64xbf16>, %wq: tensor<64x64xf8E4M3FN>, %wqs: tensor<f32>) -> tensor<64x64xbf16> {
  %r = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %x0 = shard.shard %x to %r : tensor<64x64xbf16>
  %q, %qs = mxfp8train.quantize %x0 granularity = tensorwise : tensor<64x64xbf16> -> tensor<64x64xf8E4M3FN>, tensor<f32>
  %q1 = shard.shard %q to %s annotate_for_users : tensor<64x64xf8E4M3FN>
  %y = mxfp8train.scaled_mm %q1 [%qs], %wq [%wqs] transpose_rhs : tensor<64x64xf8E4M3FN> [tensor<f32>], tensor<64x64xf8E4M3FN> [tensor<f32>] -> tensor<64x64xbf16>
  %y1 = shard.shard %y to %r annotate_for_users : tensor<64x64xbf16>
  return %y1 : tensor<64x64xbf16>
}
