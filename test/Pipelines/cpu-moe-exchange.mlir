// RUN: mxfp8-opt %s --mxfp8train-lower-to-cpu | FileCheck %s

// The CPU pipeline runs convert-shard-to-runtime-collectives: the MoE
// exchange ops become calls of the runtime's shard ABI in the LLVM dialect,
// the grid goes.

// CHECK-NOT:   shard.grid
// CHECK-DAG:   llvm.func @mxfp8rtShardMoeDispatchMx(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64) -> i32
// CHECK-DAG:   llvm.func @mxfp8rtShardMoeCombine(i64, i64, i32, i64, i64, i64, i64, i64, i64, i64, i64, i64) -> i32
// CHECK-LABEL: llvm.func @step(
// CHECK:         llvm.call @mxfp8rtShardMoeDispatchMx(
// CHECK:         llvm.call @mxfp8rtShardMoeCombine(
// CHECK-NOT:     mxfp8train.

shard.grid @ep(shape = 2)

func.func @step(%x: tensor<8x32xbf16>, %route: tensor<8xi32>, %w: tensor<2x16x32xbf16>) -> tensor<8x16xbf16> {
  %q, %s = mxfp8train.quantize %x axis = 1 mode = rceil : tensor<8x32xbf16> -> tensor<8x32xf8E4M3FN>, tensor<8x1xf8E8M0FNU>
  %rows, %rs, %offs, %counts = mxfp8train.moe_dispatch %q [%s], %route on @ep grid_axes = [0] num_experts = 4 capacity = 64
      : tensor<8x32xf8E4M3FN> [tensor<8x1xf8E8M0FNU>], tensor<8xi32> -> tensor<64x32xf8E4M3FN>, tensor<64x1xf8E8M0FNU>, tensor<2xi32>, tensor<8xi32>
  %wq, %ws = mxfp8train.quantize %w axis = 2 mode = rceil : tensor<2x16x32xbf16> -> tensor<2x16x32xf8E4M3FN>, tensor<2x16x1xf8E8M0FNU>
  %y = mxfp8train.scaled_grouped_mm %rows [%rs], %wq [%ws] offs(%offs) transpose_rhs
      : tensor<64x32xf8E4M3FN> [tensor<64x1xf8E8M0FNU>], tensor<2x16x32xf8E4M3FN> [tensor<2x16x1xf8E8M0FNU>], tensor<2xi32> -> tensor<64x16xbf16>
  %out = mxfp8train.moe_combine %y, %route counts(%counts) on @ep grid_axes = [0] num_experts = 4 capacity = 64
      : tensor<64x16xbf16>, tensor<8xi32>, tensor<8xi32> -> tensor<8x16xbf16>
  return %out : tensor<8x16xbf16>
}
