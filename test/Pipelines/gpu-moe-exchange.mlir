// RUN: mxfp8-opt %s --mxfp8train-lower-to-gpu="format=isa" | FileCheck %s

// The GPU pipeline runs convert-shard-to-runtime-collectives, as the CPU
// pipeline does: the MoE exchange ops become calls of the runtime's shard
// ABI on device buffers. Each call's operand copies are device copies, the
// step's stream is synchronized (gpu-async-region's wait before a host op
// with side effects) before the call, and the kernels after it run on a new
// stream; the grouped GEMM reads the dispatched fp8 rows.

// CHECK-NOT:   shard.grid
// CHECK-DAG:   llvm.func @mxfp8rtShardMoeDispatchMx(i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64) -> i32
// CHECK-DAG:   llvm.func @mxfp8rtShardMoeCombine(i64, i64, i32, i64, i64, i64, i64, i64, i64, i64, i64, i64) -> i32
// CHECK-LABEL: llvm.func @step(
// CHECK:         llvm.call @mgpuMemcpy(
// CHECK:         llvm.call @mgpuStreamSynchronize(
// CHECK-NEXT:    llvm.call @mgpuStreamDestroy(
// CHECK:         llvm.call @mxfp8rtShardMoeDispatchMx(
// CHECK:         llvm.call @mgpuStreamCreate(
// CHECK:         gpu.launch_func {{.*}}@scaled_gmm_2d3d
// CHECK:         llvm.call @mgpuStreamSynchronize(
// CHECK-NEXT:    llvm.call @mgpuStreamDestroy(
// CHECK:         llvm.call @mxfp8rtShardMoeCombine(
// CHECK-NOT:     mxfp8train.

shard.grid @ep(shape = 1)

func.func @step(%x: tensor<64x64xbf16>, %route: tensor<64x2xi32>, %w: tensor<4x32x64xbf16>) -> tensor<128x32xbf16> {
  %q, %s = mxfp8train.quantize %x axis = 1 mode = rceil : tensor<64x64xbf16> -> tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU>
  %rows, %rs, %offs, %counts = mxfp8train.moe_dispatch %q [%s], %route on @ep grid_axes = [0] num_experts = 4 capacity = 256
      : tensor<64x64xf8E4M3FN> [tensor<64x2xf8E8M0FNU>], tensor<64x2xi32> -> tensor<256x64xf8E4M3FN>, tensor<256x2xf8E8M0FNU>, tensor<4xi32>, tensor<4xi32>
  %wq, %ws = mxfp8train.quantize %w axis = 2 mode = rceil : tensor<4x32x64xbf16> -> tensor<4x32x64xf8E4M3FN>, tensor<4x32x2xf8E8M0FNU>
  %y = mxfp8train.scaled_grouped_mm %rows [%rs], %wq [%ws] offs(%offs) transpose_rhs
      : tensor<256x64xf8E4M3FN> [tensor<256x2xf8E8M0FNU>], tensor<4x32x64xf8E4M3FN> [tensor<4x32x2xf8E8M0FNU>], tensor<4xi32> -> tensor<256x32xbf16>
  %out = mxfp8train.moe_combine %y, %route counts(%counts) on @ep grid_axes = [0] num_experts = 4 capacity = 256
      : tensor<256x32xbf16>, tensor<64x2xi32>, tensor<4xi32> -> tensor<128x32xbf16>
  return %out : tensor<128x32xbf16>
}
