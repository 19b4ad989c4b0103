// The MoE exchange and a shard collective on a grid of one process, for
// mxfp8-launch --comm=single (bench/make-aot-artifacts.sh): quantize ->
// moe_dispatch -> scaled_grouped_mm (2d-3d, f32) -> moe_combine ->
// all_reduce (sum over the one process). On the GPU the runtime runs the
// exchange and the all-reduce over NCCL on device buffers; on the CPU over
// the in-process backend. Routing: 64 tokens, top-2 of 4 experts.
// @ep_two_ranks (below) is the same layer split over two processes.

shard.grid @ep(shape = 1)

func.func @ep_one_rank(%x: tensor<64x64xbf16>, %w: tensor<4x32x64xbf16>) -> tensor<128x32xf32> {
  %route = arith.constant dense<[[2, 0], [3, 2], [0, 3], [0, 1], [0, 2], [1, 0], [0, 1], [3, 0], [1, 0], [3, 0], [0, 3], [0, 2], [3, 0], [1, 0], [1, 3], [3, 0], [0, 2], [2, 3], [1, 0], [1, 3], [0, 2], [0, 2], [0, 2], [1, 3], [3, 1], [3, 2], [3, 1], [2, 0], [1, 2], [1, 0], [2, 3], [3, 1], [3, 1], [0, 3], [3, 0], [2, 0], [3, 1], [0, 2], [0, 2], [2, 1], [2, 3], [3, 2], [3, 0], [0, 1], [3, 2], [0, 3], [2, 3], [3, 1], [3, 2], [2, 0], [3, 1], [1, 2], [0, 1], [0, 3], [2, 0], [1, 3], [3, 1], [0, 3], [3, 1], [2, 0], [3, 2], [2, 3], [3, 1], [3, 0]]> : tensor<64x2xi32>
  %q, %s = mxfp8train.quantize %x axis = 1 mode = rceil : tensor<64x64xbf16> -> tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU>
  %rows, %rs, %offs, %counts = mxfp8train.moe_dispatch %q [%s], %route on @ep grid_axes = [0] num_experts = 4 capacity = 256
      : tensor<64x64xf8E4M3FN> [tensor<64x2xf8E8M0FNU>], tensor<64x2xi32> -> tensor<256x64xf8E4M3FN>, tensor<256x2xf8E8M0FNU>, tensor<4xi32>, tensor<4xi32>
  %wq, %ws = mxfp8train.quantize %w axis = 2 mode = rceil : tensor<4x32x64xbf16> -> tensor<4x32x64xf8E4M3FN>, tensor<4x32x2xf8E8M0FNU>
  %y = mxfp8train.scaled_grouped_mm %rows [%rs], %wq [%ws] offs(%offs) transpose_rhs
      : tensor<256x64xf8E4M3FN> [tensor<256x2xf8E8M0FNU>], tensor<4x32x64xf8E4M3FN> [tensor<4x32x2xf8E8M0FNU>], tensor<4xi32> -> tensor<256x32xf32>
  %out = mxfp8train.moe_combine %y, %route counts(%counts) on @ep grid_axes = [0] num_experts = 4 capacity = 256
      : tensor<256x32xf32>, tensor<64x2xi32>, tensor<4xi32> -> tensor<128x32xf32>
  %sum = shard.all_reduce %out on @ep grid_axes = [0] reduction = sum : tensor<128x32xf32> -> tensor<128x32xf32>
  return %sum : tensor<128x32xf32>
}

// The expert-parallel layer on a grid of two processes (SPMD: every rank
// runs @ep_two_ranks on its own 48 tokens and its 2 local experts of 4;
// the routing is the same constant on both), for mxfp8-launch
// --comm=ranks:2: quantize -> moe_dispatch -> scaled_grouped_mm (2d-3d,
// f32) -> moe_combine. Token t's slot j comes back as x[t] @ W_p[e]^T, p the
// rank that holds expert e.

shard.grid @ep2(shape = 2)

func.func @ep_two_ranks(%x: tensor<48x64xbf16>, %w: tensor<2x32x64xbf16>) -> tensor<96x32xf32> {
  %route = arith.constant dense<[[3, 2], [3, 1], [1, 0], [3, 2], [1, 0], [3, 1], [1, 0], [0, 2], [3, 1], [1, 2], [0, 2], [0, 3], [0, 3], [1, 2], [0, 1], [2, 1], [1, 2], [1, 2], [2, 1], [0, 2], [0, 1], [2, 1], [0, 2], [2, 1], [1, 2], [2, 0], [0, 2], [0, 1], [0, 1], [3, 0], [0, 2], [0, 3], [1, 0], [3, 1], [3, 1], [0, 2], [1, 2], [2, 1], [0, 1], [2, 0], [3, 0], [1, 0], [0, 3], [0, 1], [3, 0], [1, 3], [1, 2], [1, 3]]> : tensor<48x2xi32>
  %q, %s = mxfp8train.quantize %x axis = 1 mode = rceil : tensor<48x64xbf16> -> tensor<48x64xf8E4M3FN>, tensor<48x2xf8E8M0FNU>
  %rows, %rs, %offs, %counts = mxfp8train.moe_dispatch %q [%s], %route on @ep2 grid_axes = [0] num_experts = 4 capacity = 256
      : tensor<48x64xf8E4M3FN> [tensor<48x2xf8E8M0FNU>], tensor<48x2xi32> -> tensor<256x64xf8E4M3FN>, tensor<256x2xf8E8M0FNU>, tensor<2xi32>, tensor<8xi32>
  %wq, %ws = mxfp8train.quantize %w axis = 2 mode = rceil : tensor<2x32x64xbf16> -> tensor<2x32x64xf8E4M3FN>, tensor<2x32x2xf8E8M0FNU>
  %y = mxfp8train.scaled_grouped_mm %rows [%rs], %wq [%ws] offs(%offs) transpose_rhs
      : tensor<256x64xf8E4M3FN> [tensor<256x2xf8E8M0FNU>], tensor<2x32x64xf8E4M3FN> [tensor<2x32x2xf8E8M0FNU>], tensor<2xi32> -> tensor<256x32xf32>
  %out = mxfp8train.moe_combine %y, %route counts(%counts) on @ep2 grid_axes = [0] num_experts = 4 capacity = 256
      : tensor<256x32xf32>, tensor<48x2xi32>, tensor<8xi32> -> tensor<96x32xf32>
  return %out : tensor<96x32xf32>
}
