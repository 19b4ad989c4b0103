// RUN: mxfp8-opt %s --verify-roundtrip | FileCheck %s
// RUN: mxfp8-opt %s --mlir-print-op-generic | mxfp8-opt | FileCheck %s

// The expert-parallel exchange ops round-trip; the default alignment (32)
// and empty grid_axes are not printed.

shard.grid @ep(shape = 4)
shard.grid @ep2d(shape = 2x4)

// CHECK-LABEL: func.func @dispatch_grouped_gemm_combine(
// CHECK-SAME:    %[[Q:[^:]*]]: tensor<40x64xf8E4M3FN>, %[[S:[^:]*]]: tensor<40x2xf8E8M0FNU>, %[[ROUTE:[^:]*]]: tensor<40x2xi32>
// CHECK:         %[[ROWS:.*]], %[[RS:.*]], %[[OFFS:.*]], %[[COUNTS:.*]] = mxfp8train.moe_dispatch %[[Q]][%[[S]]], %[[ROUTE]] on @ep grid_axes = [0] num_experts = 8 capacity = 128 : tensor<40x64xf8E4M3FN>[tensor<40x2xf8E8M0FNU>], tensor<40x2xi32> -> tensor<128x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU>, tensor<2xi32>, tensor<32xi32>
// CHECK:         %[[Y:.*]] = mxfp8train.scaled_grouped_mm %[[ROWS]][%[[RS]]], %{{.*}}[%{{.*}}] offs(%[[OFFS]]) transpose_rhs
// CHECK:         mxfp8train.moe_combine %[[Y]], %[[ROUTE]] counts(%[[COUNTS]]) on @ep grid_axes = [0] num_experts = 8 capacity = 128 : tensor<128x32xbf16>, tensor<40x2xi32>, tensor<32xi32> -> tensor<80x32xbf16>
func.func @dispatch_grouped_gemm_combine(%q: tensor<40x64xf8E4M3FN>, %s: tensor<40x2xf8E8M0FNU>, %route: tensor<40x2xi32>, %wq: tensor<2x32x64xf8E4M3FN>, %ws: tensor<2x32x2xf8E8M0FNU>) -> tensor<80x32xbf16> {
  %rows, %rs, %offs, %counts = mxfp8train.moe_dispatch %q [%s], %route on @ep grid_axes = [0] num_experts = 8 capacity = 128
      : tensor<40x64xf8E4M3FN> [tensor<40x2xf8E8M0FNU>], tensor<40x2xi32> -> tensor<128x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU>, tensor<2xi32>, tensor<32xi32>
  %y = mxfp8train.scaled_grouped_mm %rows [%rs], %wq [%ws] offs(%offs) transpose_rhs
      : tensor<128x64xf8E4M3FN> [tensor<128x2xf8E8M0FNU>], tensor<2x32x64xf8E4M3FN> [tensor<2x32x2xf8E8M0FNU>], tensor<2xi32> -> tensor<128x32xbf16>
  %out = mxfp8train.moe_combine %y, %route counts(%counts) on @ep grid_axes = [0] num_experts = 8 capacity = 128
      : tensor<128x32xbf16>, tensor<40x2xi32>, tensor<32xi32> -> tensor<80x32xbf16>
  return %out : tensor<80x32xbf16>
}

// Flat routing, f8E5M2 data, alignment 1, f32 outputs, a 2-D grid.
// CHECK-LABEL: func.func @flat_routing_alignment_one(
// CHECK:         mxfp8train.moe_dispatch %{{.*}}[%{{.*}}], %{{.*}} on @ep2d grid_axes = [0, 1] num_experts = 16 capacity = 64 alignment = 1 : tensor<8x32xf8E5M2>[tensor<8x1xf8E8M0FNU>], tensor<24xi32> -> tensor<64x32xf8E5M2>, tensor<64x1xf8E8M0FNU>, tensor<2xi32>, tensor<128xi32>
// CHECK:         mxfp8train.moe_combine %{{.*}}, %{{.*}} counts(%{{.*}}) on @ep2d grid_axes = [0, 1] num_experts = 16 capacity = 64 alignment = 1 : tensor<64x16xf32>, tensor<24xi32>, tensor<128xi32> -> tensor<24x16xf32>
func.func @flat_routing_alignment_one(%q: tensor<8x32xf8E5M2>, %s: tensor<8x1xf8E8M0FNU>, %route: tensor<24xi32>, %y: tensor<64x16xf32>) -> (tensor<64x32xf8E5M2>, tensor<24x16xf32>) {
  %rows, %rs, %offs, %counts = mxfp8train.moe_dispatch %q [%s], %route on @ep2d grid_axes = [0, 1] num_experts = 16 capacity = 64 alignment = 1
      : tensor<8x32xf8E5M2> [tensor<8x1xf8E8M0FNU>], tensor<24xi32> -> tensor<64x32xf8E5M2>, tensor<64x1xf8E8M0FNU>, tensor<2xi32>, tensor<128xi32>
  %out = mxfp8train.moe_combine %y, %route counts(%counts) on @ep2d grid_axes = [0, 1] num_experts = 16 capacity = 64 alignment = 1
      : tensor<64x16xf32>, tensor<24xi32>, tensor<128xi32> -> tensor<24x16xf32>
  return %rows, %out : tensor<64x32xf8E5M2>, tensor<24x16xf32>
}

// No tokens on this rank; one process (no grid_axes): every expert local.
// CHECK-LABEL: func.func @no_tokens_one_process(
// CHECK:         mxfp8train.moe_dispatch %{{.*}}[%{{.*}}], %{{.*}} on @ep num_experts = 3 capacity = 32 : tensor<0x64xf8E4M3FN>[tensor<0x2xf8E8M0FNU>], tensor<0xi32> -> tensor<32x64xf8E4M3FN>, tensor<32x2xf8E8M0FNU>, tensor<3xi32>, tensor<3xi32>
func.func @no_tokens_one_process(%q: tensor<0x64xf8E4M3FN>, %s: tensor<0x2xf8E8M0FNU>, %route: tensor<0xi32>) -> tensor<3xi32> {
  %rows, %rs, %offs, %counts = mxfp8train.moe_dispatch %q [%s], %route on @ep num_experts = 3 capacity = 32
      : tensor<0x64xf8E4M3FN> [tensor<0x2xf8E8M0FNU>], tensor<0xi32> -> tensor<32x64xf8E4M3FN>, tensor<32x2xf8E8M0FNU>, tensor<3xi32>, tensor<3xi32>
  return %offs : tensor<3xi32>
}
