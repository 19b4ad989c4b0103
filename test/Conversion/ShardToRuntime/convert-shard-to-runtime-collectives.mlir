// RUN: mxfp8-opt %s --convert-shard-to-runtime-collectives | FileCheck %s

// The runtime functions, declared once, with index = intptr_t.
// CHECK-DAG:  func.func private @mxfp8rtShardAllReduce(index, index, index, i32, i32, index) -> i32
// CHECK-DAG:  func.func private @mxfp8rtShardAllGather(index, index, index, i32, index) -> i32
// CHECK-DAG:  func.func private @mxfp8rtShardReduceScatter(index, index, index, i32, i32, index) -> i32
// CHECK-DAG:  func.func private @mxfp8rtShardAllToAll(index, index, index, i32, index) -> i32
// CHECK-DAG:  func.func private @mxfp8rtShardProcessIndex(index) -> index
// The grid goes with its last user.
// CHECK-NOT:  shard.

shard.grid @grid(shape = 2)

// f32 sum: a copy of the input, a fresh result buffer, 32 elements,
// MXFP8RT_DATA_F32 (2), MXFP8RT_REDUCE_SUM (0), 2 processes.
// CHECK-LABEL: func.func @all_reduce_sum(
// CHECK-SAME:    %[[X:.*]]: tensor<4x8xf32>
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[SUM:.*]] = arith.constant 0 : i32
// CHECK-DAG:     %[[F32:.*]] = arith.constant 2 : i32
// CHECK-DAG:     %[[C32:.*]] = arith.constant 32 : index
// CHECK:         %[[COPY:.*]] = bufferization.alloc_tensor() copy(%[[X]]) : tensor<4x8xf32>
// CHECK:         %[[IN:.*]] = bufferization.to_buffer %[[COPY]] read_only : tensor<4x8xf32> to memref<4x8xf32>
// CHECK:         %[[SEND:.*]] = memref.extract_aligned_pointer_as_index %[[IN]]
// CHECK:         %[[OUT:.*]] = memref.alloc() : memref<4x8xf32>
// CHECK:         %[[RECV:.*]] = memref.extract_aligned_pointer_as_index %[[OUT]]
// CHECK:         %[[STATUS:.*]] = call @mxfp8rtShardAllReduce(%[[SEND]], %[[RECV]], %[[C32]], %[[F32]], %[[SUM]], %[[C2]])
// CHECK:         %[[OK:.*]] = arith.cmpi eq, %[[STATUS]], %[[SUM]] : i32
// CHECK:         cf.assert %[[OK]], "shard.all_reduce: the runtime collective failed (mxfp8rtShardAllReduce, mxfp8rtGetLastError() says why)"
// CHECK:         %[[R:.*]] = bufferization.to_tensor %[[OUT]] restrict writable : memref<4x8xf32> to tensor<4x8xf32>
// CHECK:         return %[[R]]
func.func @all_reduce_sum(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = shard.all_reduce %x on @grid grid_axes = [0] reduction = sum : tensor<4x8xf32> -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// fp8 data gathered along axis 1: the parts arrive stacked [2, 4, 8]
// (MXFP8RT_DATA_BYTE = 0, 32 bytes each), move next to the gather axis and
// merge with it.
// CHECK-LABEL: func.func @all_gather_fp8_axis1(
// CHECK-DAG:     %[[BYTE:.*]] = arith.constant 0 : i32
// CHECK-DAG:     %[[C32:.*]] = arith.constant 32 : index
// CHECK:         %[[OUT:.*]] = memref.alloc() : memref<2x4x8xf8E4M3FN>
// CHECK:         call @mxfp8rtShardAllGather(%{{.*}}, %{{.*}}, %[[C32]], %[[BYTE]], %{{.*}})
// CHECK:         %[[STACKED:.*]] = bufferization.to_tensor %[[OUT]] restrict writable : memref<2x4x8xf8E4M3FN> to tensor<2x4x8xf8E4M3FN>
// CHECK:         %[[T:.*]] = linalg.transpose ins(%[[STACKED]] : tensor<2x4x8xf8E4M3FN>) outs(%{{.*}} : tensor<4x2x8xf8E4M3FN>) permutation = [1, 0, 2]
// CHECK:         %[[R:.*]] = tensor.collapse_shape %[[T]] {{\[}}[0], [1, 2]] : tensor<4x2x8xf8E4M3FN> into tensor<4x16xf8E4M3FN>
// CHECK:         return %[[R]]
func.func @all_gather_fp8_axis1(%x: tensor<4x8xf8E4M3FN>) -> tensor<4x16xf8E4M3FN> {
  %r = shard.all_gather %x on @grid grid_axes = [0] gather_axis = 1 : tensor<4x8xf8E4M3FN> -> tensor<4x16xf8E4M3FN>
  return %r : tensor<4x16xf8E4M3FN>
}

// Gathered along axis 0: the stacked parts only merge.
// CHECK-LABEL: func.func @all_gather_axis0(
// CHECK:         call @mxfp8rtShardAllGather
// CHECK-NOT:     linalg.transpose
// CHECK:         tensor.collapse_shape %{{.*}} {{\[}}[0, 1]] : tensor<2x3xi32> into tensor<6xi32>
func.func @all_gather_axis0(%x: tensor<3xi32>) -> tensor<6xi32> {
  %r = shard.all_gather %x on @grid grid_axes = [0] gather_axis = 0 : tensor<3xi32> -> tensor<6xi32>
  return %r : tensor<6xi32>
}

// bf16 max scattered along axis 1: the axis splits into (2, 4) and the
// blocks move outermost before the call (16 elements per process,
// MXFP8RT_DATA_BF16 = 1, MXFP8RT_REDUCE_MAX = 1).
// CHECK-LABEL: func.func @reduce_scatter_bf16_axis1(
// CHECK-SAME:    %[[X:.*]]: tensor<4x8xbf16>
// CHECK-DAG:     %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-DAG:     %[[C16:.*]] = arith.constant 16 : index
// CHECK:         %[[E:.*]] = tensor.expand_shape %[[X]] {{\[}}[0], [1, 2]] output_shape [4, 2, 4] : tensor<4x8xbf16> into tensor<4x2x4xbf16>
// CHECK:         %[[B:.*]] = linalg.transpose ins(%[[E]] : tensor<4x2x4xbf16>) outs(%{{.*}} : tensor<2x4x4xbf16>) permutation = [1, 0, 2]
// CHECK:         bufferization.alloc_tensor() copy(%[[B]]) : tensor<2x4x4xbf16>
// CHECK:         %[[OUT:.*]] = memref.alloc() : memref<4x4xbf16>
// CHECK:         call @mxfp8rtShardReduceScatter(%{{.*}}, %{{.*}}, %[[C16]], %[[ONE]], %[[ONE]], %{{.*}})
// CHECK:         bufferization.to_tensor %[[OUT]] restrict writable : memref<4x4xbf16> to tensor<4x4xbf16>
func.func @reduce_scatter_bf16_axis1(%x: tensor<4x8xbf16>) -> tensor<4x4xbf16> {
  %r = shard.reduce_scatter %x on @grid grid_axes = [0] reduction = max scatter_axis = 1 : tensor<4x8xbf16> -> tensor<4x4xbf16>
  return %r : tensor<4x4xbf16>
}

// e8m0 scales, split along 1 and concatenated along 0: blocks of 16 bytes
// to each process, received stacked in sender order and merged into rows.
// CHECK-LABEL: func.func @all_to_all_e8m0(
// CHECK-SAME:    %[[X:.*]]: tensor<4x8xf8E8M0FNU>
// CHECK-DAG:     %[[C16:.*]] = arith.constant 16 : index
// CHECK:         %[[E:.*]] = tensor.expand_shape %[[X]] {{\[}}[0], [1, 2]] output_shape [4, 2, 4]
// CHECK:         linalg.transpose ins(%[[E]] : tensor<4x2x4xf8E8M0FNU>) outs(%{{.*}} : tensor<2x4x4xf8E8M0FNU>) permutation = [1, 0, 2]
// CHECK:         %[[OUT:.*]] = memref.alloc() : memref<2x4x4xf8E8M0FNU>
// CHECK:         call @mxfp8rtShardAllToAll(%{{.*}}, %{{.*}}, %[[C16]], %{{.*}}, %{{.*}})
// CHECK:         %[[Q:.*]] = bufferization.to_tensor %[[OUT]]
// CHECK:         %[[R:.*]] = tensor.collapse_shape %[[Q]] {{\[}}[0, 1], [2]] : tensor<2x4x4xf8E8M0FNU> into tensor<8x4xf8E8M0FNU>
// CHECK:         return %[[R]]
func.func @all_to_all_e8m0(%x: tensor<4x8xf8E8M0FNU>) -> tensor<8x4xf8E8M0FNU> {
  %r = shard.all_to_all %x on @grid grid_axes = [0] split_axis = 1 concat_axis = 0 : tensor<4x8xf8E8M0FNU> -> tensor<8x4xf8E8M0FNU>
  return %r : tensor<8x4xf8E8M0FNU>
}

// The process index is the bound communicator's rank, checked; the grid
// shape is a constant.
// CHECK-LABEL: func.func @process_index(
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK:         %[[RANK:.*]] = call @mxfp8rtShardProcessIndex(%[[C2]]) : (index) -> index
// CHECK:         %[[OK:.*]] = arith.cmpi sge, %[[RANK]], %[[C0]] : index
// CHECK:         cf.assert %[[OK]], "shard.process_linear_index: no communicator of the grid's size is bound to this thread
// CHECK:         return %[[RANK]], %[[C2]] : index, index
func.func @process_index() -> (index, index) {
  %i = shard.process_linear_index on @grid : index
  %s = shard.grid_shape @grid : index
  return %i, %s : index, index
}

// all_slice (replicated to split, no communication) through upstream's
// lowering: this process's rows by its rank.
// CHECK-LABEL: func.func @all_slice(
// CHECK-SAME:    %[[X:.*]]: tensor<4x4xf32>
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK:         %[[RANK:.*]] = call @mxfp8rtShardProcessIndex(%[[C2]])
// CHECK:         %[[ROW:.*]] = arith.muli %[[RANK]], %[[C2]] : index
// CHECK:         tensor.extract_slice %[[X]][%[[ROW]], 0]
func.func @all_slice(%x: tensor<4x4xf32>) -> tensor<2x4xf32> {
  %r = shard.all_slice %x on @grid grid_axes = [0] slice_axis = 0 : tensor<4x4xf32> -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}
