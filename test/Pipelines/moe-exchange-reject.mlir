// RUN: mxfp8-opt %s --mxfp8train-verify-lowering-input="reject-moe-exchange" -split-input-file --verify-diagnostics -o /dev/null
// RUN: mxfp8-opt %s --mxfp8train-lower-to-gpu -split-input-file --verify-diagnostics -o /dev/null
// RUN: mxfp8-opt %s --mxfp8train-verify-lowering-input -split-input-file | FileCheck %s

// The MoE exchange has no device lowering yet: the GPU pipeline (and
// reject-moe-exchange) rejects moe_dispatch and moe_combine at their
// location; without the option (the CPU pipeline) they pass.

shard.grid @ep(shape = 2)

// CHECK-LABEL: func.func @dispatch_and_combine
// CHECK: mxfp8train.moe_dispatch
// CHECK: mxfp8train.moe_combine
func.func @dispatch_and_combine(%q: tensor<8x32xf8E4M3FN>, %s: tensor<8x1xf8E8M0FNU>, %route: tensor<8xi32>, %y: tensor<32x16xbf16>) -> (tensor<2xi32>, tensor<8x16xbf16>) {
  // expected-error @below {{'mxfp8train.moe_dispatch' has no GPU lowering yet: the runtime's MoE exchange runs on device buffers over NCCL (mxfp8rtMoeDispatchMx), but the GPU pipeline does not call it from a step's stream; lower it with the CPU pipeline}}
  %rows, %rs, %offs, %counts = mxfp8train.moe_dispatch %q [%s], %route on @ep grid_axes = [0] num_experts = 4 capacity = 32
      : tensor<8x32xf8E4M3FN> [tensor<8x1xf8E8M0FNU>], tensor<8xi32> -> tensor<32x32xf8E4M3FN>, tensor<32x1xf8E8M0FNU>, tensor<2xi32>, tensor<8xi32>
  // expected-error @below {{'mxfp8train.moe_combine' has no GPU lowering yet: the runtime's MoE exchange runs on device buffers over NCCL (mxfp8rtMoeDispatchMx), but the GPU pipeline does not call it from a step's stream; lower it with the CPU pipeline}}
  %out = mxfp8train.moe_combine %y, %route counts(%counts) on @ep grid_axes = [0] num_experts = 4 capacity = 32
      : tensor<32x16xbf16>, tensor<8xi32>, tensor<8xi32> -> tensor<8x16xbf16>
  return %offs, %out : tensor<2xi32>, tensor<8x16xbf16>
}
