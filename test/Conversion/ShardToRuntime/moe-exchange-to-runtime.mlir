// RUN: mxfp8-opt %s --convert-shard-to-runtime-collectives | FileCheck %s

// mxfp8train.moe_dispatch and moe_combine become calls of the runtime's
// shard ABI of the MoE exchange (ExpertParallel.h): buffers as index
// addresses, fresh copies in, fresh buffers out, the status asserted.

// CHECK-DAG:  func.func private @mxfp8rtShardMoeDispatchMx(index, index, index, index, index, index, index, index, index, index, index, index, index, index) -> i32
// CHECK-DAG:  func.func private @mxfp8rtShardMoeCombine(index, index, i32, index, index, index, index, index, index, index, index, index) -> i32
// The grid goes with its last user.
// CHECK-NOT:  shard.grid
// CHECK-NOT:  mxfp8train.moe_

shard.grid @ep(shape = 4)

// (T, topK) = (40, 2) routing, K = 64, 8 experts over 4 processes,
// capacity 128, the default alignment 32.
// CHECK-LABEL: func.func @dispatch(
// CHECK-SAME:    %[[Q:[^:]*]]: tensor<40x64xf8E4M3FN>, %[[S:[^:]*]]: tensor<40x2xf8E8M0FNU>, %[[ROUTE:[^:]*]]: tensor<40x2xi32>
// CHECK-DAG:     %[[C40:.*]] = arith.constant 40 : index
// CHECK-DAG:     %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG:     %[[C128:.*]] = arith.constant 128 : index
// CHECK-DAG:     %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG:     %[[OK:.*]] = arith.constant 0 : i32
// CHECK:         %[[QC:.*]] = bufferization.alloc_tensor() copy(%[[Q]]) : tensor<40x64xf8E4M3FN>
// CHECK:         %[[QB:.*]] = bufferization.to_buffer %[[QC]] read_only : tensor<40x64xf8E4M3FN> to memref<40x64xf8E4M3FN>
// CHECK:         %[[QP:.*]] = memref.extract_aligned_pointer_as_index %[[QB]]
// CHECK:         %[[SC:.*]] = bufferization.alloc_tensor() copy(%[[S]]) : tensor<40x2xf8E8M0FNU>
// CHECK:         %[[SB:.*]] = bufferization.to_buffer %[[SC]] read_only
// CHECK:         %[[SP:.*]] = memref.extract_aligned_pointer_as_index %[[SB]]
// CHECK:         %[[RC:.*]] = bufferization.alloc_tensor() copy(%[[ROUTE]]) : tensor<40x2xi32>
// CHECK:         %[[RB:.*]] = bufferization.to_buffer %[[RC]] read_only
// CHECK:         %[[RP:.*]] = memref.extract_aligned_pointer_as_index %[[RB]]
// CHECK:         %[[ROWS:.*]] = memref.alloc() : memref<128x64xf8E4M3FN>
// CHECK:         %[[RS:.*]] = memref.alloc() : memref<128x2xf8E8M0FNU>
// CHECK:         %[[OFFS:.*]] = memref.alloc() : memref<2xi32>
// CHECK:         %[[COUNTS:.*]] = memref.alloc() : memref<32xi32>
// CHECK:         %[[ROWSP:.*]] = memref.extract_aligned_pointer_as_index %[[ROWS]]
// CHECK:         %[[RSP:.*]] = memref.extract_aligned_pointer_as_index %[[RS]]
// CHECK:         %[[OFFSP:.*]] = memref.extract_aligned_pointer_as_index %[[OFFS]]
// CHECK:         %[[COUNTSP:.*]] = memref.extract_aligned_pointer_as_index %[[COUNTS]]
// CHECK:         %[[STATUS:.*]] = call @mxfp8rtShardMoeDispatchMx(%[[QP]], %[[SP]], %[[C40]], %[[C64]], %[[C2]], %[[RP]], %[[C8]], %[[C128]], %[[C32]], %[[ROWSP]], %[[RSP]], %[[OFFSP]], %[[COUNTSP]], %[[C4]])
// CHECK:         %[[EQ:.*]] = arith.cmpi eq, %[[STATUS]], %[[OK]] : i32
// CHECK:         cf.assert %[[EQ]], "mxfp8train.moe_dispatch: the runtime collective failed (mxfp8rtShardMoeDispatchMx, mxfp8rtGetLastError() says why)"
// CHECK-DAG:     %[[TR:.*]] = bufferization.to_tensor %[[ROWS]] restrict writable : memref<128x64xf8E4M3FN> to tensor<128x64xf8E4M3FN>
// CHECK-DAG:     %[[TRS:.*]] = bufferization.to_tensor %[[RS]] restrict writable
// CHECK-DAG:     %[[TO:.*]] = bufferization.to_tensor %[[OFFS]] restrict writable
// CHECK-DAG:     %[[TC:.*]] = bufferization.to_tensor %[[COUNTS]] restrict writable
// CHECK:         return %[[TR]], %[[TRS]], %[[TO]], %[[TC]]
func.func @dispatch(%q: tensor<40x64xf8E4M3FN>, %s: tensor<40x2xf8E8M0FNU>, %route: tensor<40x2xi32>) -> (tensor<128x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU>, tensor<2xi32>, tensor<32xi32>) {
  %rows, %rs, %offs, %counts = mxfp8train.moe_dispatch %q [%s], %route on @ep grid_axes = [0] num_experts = 8 capacity = 128
      : tensor<40x64xf8E4M3FN> [tensor<40x2xf8E8M0FNU>], tensor<40x2xi32> -> tensor<128x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU>, tensor<2xi32>, tensor<32xi32>
  return %rows, %rs, %offs, %counts : tensor<128x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU>, tensor<2xi32>, tensor<32xi32>
}

// Flat routing of 40 tokens x topK 3: T = 40, topK = 3; alignment 1.
// CHECK-LABEL: func.func @dispatch_flat_routing(
// CHECK-DAG:     %[[C40:.*]] = arith.constant 40 : index
// CHECK-DAG:     %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK:         call @mxfp8rtShardMoeDispatchMx(%{{.*}}, %{{.*}}, %[[C40]], %{{.*}}, %[[C3]], %{{.*}}, %{{.*}}, %{{.*}}, %[[C1]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
func.func @dispatch_flat_routing(%q: tensor<40x64xf8E4M3FN>, %s: tensor<40x2xf8E8M0FNU>, %route: tensor<120xi32>) -> tensor<2xi32> {
  %rows, %rs, %offs, %counts = mxfp8train.moe_dispatch %q [%s], %route on @ep grid_axes = [0] num_experts = 8 capacity = 128 alignment = 1
      : tensor<40x64xf8E4M3FN> [tensor<40x2xf8E8M0FNU>], tensor<120xi32> -> tensor<128x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU>, tensor<2xi32>, tensor<32xi32>
  return %offs : tensor<2xi32>
}

// bf16 expert outputs (MXFP8RT_DATA_BF16 = 1), N = 32, (T, topK) = (40, 2).
// CHECK-LABEL: func.func @combine(
// CHECK-SAME:    %[[Y:[^:]*]]: tensor<128x32xbf16>, %[[ROUTE:[^:]*]]: tensor<40x2xi32>, %[[COUNTS:[^:]*]]: tensor<32xi32>
// CHECK-DAG:     %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG:     %[[BF16:.*]] = arith.constant 1 : i32
// CHECK-DAG:     %[[C40:.*]] = arith.constant 40 : index
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG:     %[[C128:.*]] = arith.constant 128 : index
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK:         bufferization.alloc_tensor() copy(%[[Y]]) : tensor<128x32xbf16>
// CHECK:         %[[YP:.*]] = memref.extract_aligned_pointer_as_index
// CHECK:         bufferization.alloc_tensor() copy(%[[ROUTE]]) : tensor<40x2xi32>
// CHECK:         %[[RP:.*]] = memref.extract_aligned_pointer_as_index
// CHECK:         bufferization.alloc_tensor() copy(%[[COUNTS]]) : tensor<32xi32>
// CHECK:         %[[CP:.*]] = memref.extract_aligned_pointer_as_index
// CHECK:         %[[OUT:.*]] = memref.alloc() : memref<80x32xbf16>
// CHECK:         %[[OUTP:.*]] = memref.extract_aligned_pointer_as_index %[[OUT]]
// CHECK:         call @mxfp8rtShardMoeCombine(%[[YP]], %[[C32]], %[[BF16]], %[[C40]], %[[C2]], %[[RP]], %[[C8]], %[[CP]], %[[C128]], %[[C32]], %[[OUTP]], %[[C4]])
// CHECK:         cf.assert %{{.*}}, "mxfp8train.moe_combine: the runtime collective failed (mxfp8rtShardMoeCombine, mxfp8rtGetLastError() says why)"
// CHECK:         %[[R:.*]] = bufferization.to_tensor %[[OUT]] restrict writable : memref<80x32xbf16> to tensor<80x32xbf16>
// CHECK:         return %[[R]]
func.func @combine(%y: tensor<128x32xbf16>, %route: tensor<40x2xi32>, %counts: tensor<32xi32>) -> tensor<80x32xbf16> {
  %out = mxfp8train.moe_combine %y, %route counts(%counts) on @ep grid_axes = [0] num_experts = 8 capacity = 128
      : tensor<128x32xbf16>, tensor<40x2xi32>, tensor<32xi32> -> tensor<80x32xbf16>
  return %out : tensor<80x32xbf16>
}

// f32 outputs (MXFP8RT_DATA_F32 = 2) and flat routing: 120 slots, passed as
// 120 tokens of topK 1 (the same slot order).
// CHECK-LABEL: func.func @combine_f32_flat_routing(
// CHECK-DAG:     %[[F32:.*]] = arith.constant 2 : i32
// CHECK-DAG:     %[[C120:.*]] = arith.constant 120 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK:         call @mxfp8rtShardMoeCombine(%{{.*}}, %{{.*}}, %[[F32]], %[[C120]], %[[C1]], %{{.*}})
func.func @combine_f32_flat_routing(%y: tensor<128x16xf32>, %route: tensor<120xi32>, %counts: tensor<32xi32>) -> tensor<120x16xf32> {
  %out = mxfp8train.moe_combine %y, %route counts(%counts) on @ep grid_axes = [0] num_experts = 8 capacity = 128
      : tensor<128x16xf32>, tensor<120xi32>, tensor<32xi32> -> tensor<120x16xf32>
  return %out : tensor<120x16xf32>
}
