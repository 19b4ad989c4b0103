// The MoE exchange and a shard collective on a grid of one process, for
// mxfp8-launch --comm=single (bench/make-aot-artifacts.sh): quantize ->
// moe_dispatch -> scaled_grouped_mm (2d-3d, f32) -> moe_combine ->
// all_reduce (sum over the one process). On the GPU the runtime runs the
// exchange and the all-reduce over NCCL on device buffers; on the CPU over
// the in-process backend. Routing: 64 tokens, top-2 of 4 experts.

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
