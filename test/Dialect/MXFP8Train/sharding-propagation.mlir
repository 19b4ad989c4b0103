// RUN: mxfp8-opt %s --pass-pipeline='builtin.module(func.func(sharding-propagation))' --split-input-file | FileCheck %s

// Shardings on the inputs of converted graphs propagate through quantize,
// scaled_mm and dequantize: scales take the split of their data, a split N
// of a GEMM makes the next quantize split along its quantized axis, and the
// contraction of the down projection follows (docs/sharding.md).

// Megatron-style tensor parallelism of a Llama MLP: only the weights are
// annotated (gate/up split along N, down along K).
// CHECK-LABEL: func.func @tensor_parallel_mlp
// The activation is replicated, so are its quantized data and scales.
// CHECK:      %data, %scales = mxfp8train.quantize
// CHECK-NEXT: shard.sharding @grid split_axes = {{\[\[}}]]
// CHECK-NEXT: shard.shard %scales to {{.*}} : tensor<64x4xf8E8M0FNU>
// The gate and up projections split along N.
// CHECK:      mxfp8train.scaled_mm {{.*}} -> tensor<64x256xbf16>
// CHECK-NEXT: shard.sharding @grid split_axes = {{\[\[}}], [0]]
// CHECK:      mxfp8train.scaled_mm {{.*}} -> tensor<64x256xbf16>
// CHECK-NEXT: shard.sharding @grid split_axes = {{\[\[}}], [0]]
// The product is quantized along the split axis; its scales split with it.
// CHECK:      linalg.mul
// CHECK:      %[[HQ:.*]], %[[HS:.*]] = mxfp8train.quantize
// CHECK-NEXT: shard.sharding @grid split_axes = {{\[\[}}], [0]]
// CHECK-NEXT: shard.shard %[[HS]] to {{.*}} : tensor<64x8xf8E8M0FNU>
// CHECK-NEXT: shard.sharding @grid split_axes = {{\[\[}}], [0]]
// CHECK-NEXT: shard.shard %[[HQ]] to {{.*}} : tensor<64x256xf8E4M3FN>
// The down projection contracts over the split axis: its result is whole
// (partition adds the all-reduce).
// CHECK:      mxfp8train.scaled_mm {{.*}} -> tensor<64x128xbf16>
// CHECK-NEXT: shard.sharding @grid split_axes = {{\[\[}}]]
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

// Data parallelism with blocked scales: the token split reaches the 1-D
// blocked scale sequence (whole 128-row tiles) and the GEMM's M.
// CHECK-LABEL: func.func @data_parallel_blocked
// CHECK:      %data, %scales = mxfp8train.quantize {{.*}} layout = blocked
// CHECK-NEXT: shard.sharding @grid split_axes = {{\[\[}}0]]
// CHECK-NEXT: shard.shard %scales to {{.*}} : tensor<1024xf8E8M0FNU>
// CHECK:      mxfp8train.scaled_mm
// CHECK-NEXT: shard.sharding @grid split_axes = {{\[\[}}0]]
// CHECK-NEXT: shard.shard {{.*}} : tensor<256x64xbf16>
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

// Float8 rowwise: the (M, 1) scales follow M, never their unit dimension;
// a tensorwise scalar scale stays replicated.
// CHECK-LABEL: func.func @float8_rowwise_dequantize
// CHECK:      shard.shard %sharding_annotated to
// CHECK-NEXT: shard.sharding @grid split_axes = {{\[\[}}0]]
// CHECK-NEXT: shard.shard %arg1 to {{.*}} annotate_for_users : tensor<64x1xf32>
// CHECK:      mxfp8train.dequantize
// CHECK:      shard.sharding @grid split_axes = []
// CHECK-NEXT: shard.shard %arg3 to {{.*}} annotate_for_users : tensor<f32>
// CHECK:      mxfp8train.dequantize
// CHECK-NEXT: shard.sharding @grid split_axes = {{\[\[}}0]]
// CHECK-NEXT: shard.shard {{.*}} : tensor<64x128xbf16>
shard.grid @grid(shape = 2)
func.func @float8_rowwise_dequantize(%q: tensor<64x128xf8E4M3FN>, %s: tensor<64x1xf32>,
    %t: tensor<64x128xf8E4M3FN>, %ts: tensor<f32>) -> (tensor<64x128xbf16>, tensor<64x128xbf16>) {
  %sh = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %q1 = shard.shard %q to %sh : tensor<64x128xf8E4M3FN>
  %t1 = shard.shard %t to %sh : tensor<64x128xf8E4M3FN>
  %x = mxfp8train.dequantize %q1 [%s] axis = 1 granularity = axiswise
      : tensor<64x128xf8E4M3FN> [tensor<64x1xf32>] -> tensor<64x128xbf16>
  %y = mxfp8train.dequantize %t1 [%ts] granularity = tensorwise
      : tensor<64x128xf8E4M3FN> [tensor<f32>] -> tensor<64x128xbf16>
  return %x, %y : tensor<64x128xbf16>, tensor<64x128xbf16>
}

// -----

// Float8 per-group (offs) casts follow the runtime token groups: the input,
// the group ends, the data and the (E, X) scales are all replicated, so a
// split input is gathered before the cast.
// CHECK-LABEL: func.func @float8_per_group_replicated
// CHECK:      shard.sharding @grid split_axes = {{\[\[}}]]
// CHECK-NEXT: shard.shard %{{.*}} to %{{.*}} annotate_for_users : tensor<64x32xbf16>
// CHECK:      mxfp8train.quantize {{.*}} offs(
// CHECK-NEXT: shard.sharding @grid split_axes = {{\[\[}}]]
// CHECK-NEXT: shard.shard %scales to {{.*}} : tensor<4x32xf32>
// CHECK-NEXT: shard.sharding @grid split_axes = {{\[\[}}]]
// CHECK-NEXT: shard.shard %data to {{.*}} : tensor<64x32xf8E4M3FN>
shard.grid @grid(shape = 2)
func.func @float8_per_group_replicated(%x: tensor<64x32xbf16>, %offs: tensor<4xi32>)
    -> (tensor<64x32xf8E4M3FN>, tensor<4x32xf32>) {
  %sh = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %x1 = shard.shard %x to %sh : tensor<64x32xbf16>
  %q, %s = mxfp8train.quantize %x1 offs(%offs) axis = 0 granularity = axiswise pow2
      : tensor<64x32xbf16>, tensor<4xi32> -> tensor<64x32xf8E4M3FN>, tensor<4x32xf32>
  return %q, %s : tensor<64x32xf8E4M3FN>, tensor<4x32xf32>
}
