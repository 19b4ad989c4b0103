// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu --split-input-file | FileCheck %s
// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu="chip=sm_100a" --split-input-file | FileCheck %s --check-prefix=B200

// The host side of a 1x32 quantize: inputs read through to_buffer, results
// allocated, one launch of a kernel specialised for the 2-D view, results
// handed back with restrict; the kernel: one thread per 32-element block.

// CHECK-LABEL: func.func @quantize_rowwise_rank3(
// CHECK-SAME:    %[[X:.*]]: tensor<4x8x64xbf16>
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C256:.*]] = arith.constant 256 : index
// CHECK:         %[[IN:.*]] = bufferization.to_buffer %[[X]] read_only : tensor<4x8x64xbf16> to memref<4x8x64xbf16>
// CHECK:         %[[INV:.*]] = memref.collapse_shape %[[IN]] {{\[}}[0, 1], [2]] : memref<4x8x64xbf16> into memref<32x64xbf16>
// CHECK:         %[[Q:.*]] = memref.alloc() : memref<4x8x64xf8E4M3FN>
// CHECK:         %[[S:.*]] = memref.alloc() : memref<4x8x2xf8E8M0FNU>
// CHECK:         %[[QV:.*]] = memref.collapse_shape %[[Q]]
// CHECK:         %[[SV:.*]] = memref.collapse_shape %[[S]]
// CHECK:         gpu.launch_func @mxfp8train_kernels::@quantize_1x32_bf16_e4m3_rceil_rowmajor_32x64
// CHECK-SAME:      blocks in (%[[C1]], %[[C1]], %[[C1]]) threads in (%[[C256]], %[[C1]], %[[C1]])
// CHECK-SAME:      args(%[[INV]] : memref<32x64xbf16>, %[[QV]] : memref<32x64xf8E4M3FN>, %[[SV]] : memref<32x2xf8E8M0FNU>)
// CHECK:         %[[QT:.*]] = bufferization.to_tensor %[[Q]] restrict writable
// CHECK:         %[[ST:.*]] = bufferization.to_tensor %[[S]] restrict writable
// CHECK:         return %[[QT]], %[[ST]]

// CHECK:       gpu.module @mxfp8train_kernels
// CHECK:         gpu.func @quantize_1x32_bf16_e4m3_rceil_rowmajor_32x64(
// CHECK-SAME:      memref<32x64xbf16> {llvm.noalias, llvm.readonly}
// CHECK-SAME:      memref<32x64xf8E4M3FN> {llvm.noalias, llvm.writeonly}
// CHECK-SAME:      kernel attributes {known_block_size = array<i32: 256, 1, 1>}
// Two lanes per block (64 blocks: 128 items, whole warps): each loads its
// 16 elements, the partial amaxes meet through one shuffle.
// CHECK:           %[[C128:.*]] = arith.constant 128 : index
// CHECK:           scf.for %{{.*}} = %{{.*}} to %[[C128]]
// CHECK:             %[[V:.*]] = vector.load %{{.*}} {alignment = 16 : i64} : memref<32x64xbf16>, vector<16xbf16>
// CHECK:             %[[ABS:.*]] = arith.andi %{{.*}}, %{{.*}} : vector<16xi16>
// CHECK:             vector.reduction <maximumf>, %{{.*}} : vector<16xbf16> into bf16
// CHECK:             gpu.shuffle  xor %{{.*}}, %{{.*}}, %{{.*}} : i32
// CHECK:             arith.maximumf %{{.*}}, %{{.*}} : vector<1xf32>
// RCEIL: fl32(amax * fl32(1/448)) (the shared computeScaleByte).
// CHECK:             arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK:             arith.mulf %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK-COUNT-8:     nvvm.convert.f32x2.to.f8x2 %{{.*}}, %{{.*}} {rnd = #nvvm.fp_rnd_mode<rn>, sat = #nvvm.sat_mode<satfinite>} : i16(f8E4M3FN)
// A block with scale byte 255 is all 0x7F.
// CHECK:             arith.select %{{.*}}, %{{.*}}, %{{.*}} : vector<16xi8>
// CHECK:             vector.store %{{.*}} {alignment = 16 : i64} : memref<32x64xf8E4M3FN>, vector<16xf8E4M3FN>
// The first lane of the pair stores the scale byte.
// CHECK:             scf.if
// CHECK:               memref.store %{{.*}} : memref<32x2xf8E8M0FNU>
func.func @quantize_rowwise_rank3(%x: tensor<4x8x64xbf16>)
    -> (tensor<4x8x64xf8E4M3FN>, tensor<4x8x2xf8E8M0FNU>) {
  %q, %s = mxfp8train.quantize %x axis = 2 mode = rceil
      : tensor<4x8x64xbf16> -> tensor<4x8x64xf8E4M3FN>, tensor<4x8x2xf8E8M0FNU>
  return %q, %s : tensor<4x8x64xf8E4M3FN>, tensor<4x8x2xf8E8M0FNU>
}

// -----

// Equal specialisations share one kernel; a full grid of one item per
// thread: 16384 * 512 blocks * 2 lanes / 256 threads = 65536 CTAs on either
// chip.

// CHECK-LABEL: func.func @kernel_reuse(
// CHECK:         %[[G:.*]] = arith.constant 65536 : index
// CHECK:         gpu.launch_func @mxfp8train_kernels::@quantize_1x32_bf16_e4m3_floor_rowmajor_16384x16384 blocks in (%[[G]],
// CHECK:         gpu.launch_func @mxfp8train_kernels::@quantize_1x32_bf16_e4m3_floor_rowmajor_16384x16384 blocks in (%[[G]],
// CHECK:       gpu.module @mxfp8train_kernels
// CHECK-COUNT-1: gpu.func @quantize_1x32_bf16_e4m3_floor_rowmajor_16384x16384
// CHECK-NOT:     gpu.func
// B200-LABEL:  func.func @kernel_reuse(
// B200:          arith.constant 65536 : index
func.func @kernel_reuse(%x: tensor<16384x16384xbf16>, %y: tensor<16384x16384xbf16>)
    -> (tensor<16384x16384xf8E4M3FN>, tensor<16384x512xf8E8M0FNU>,
        tensor<16384x16384xf8E4M3FN>, tensor<16384x512xf8E8M0FNU>) {
  %q, %s = mxfp8train.quantize %x axis = 1 mode = floor
      : tensor<16384x16384xbf16> -> tensor<16384x16384xf8E4M3FN>, tensor<16384x512xf8E8M0FNU>
  %q2, %s2 = mxfp8train.quantize %y axis = 1 mode = floor
      : tensor<16384x16384xbf16> -> tensor<16384x16384xf8E4M3FN>, tensor<16384x512xf8E8M0FNU>
  return %q, %s, %q2, %s2 : tensor<16384x16384xf8E4M3FN>, tensor<16384x512xf8E8M0FNU>,
                             tensor<16384x16384xf8E4M3FN>, tensor<16384x512xf8E8M0FNU>
}

// -----

// 32x1 along a middle axis: the (outer, rows, cols) view (2, 64, 48); one
// thread per 4 columns x 32 rows (16-byte f32 rows), all 32 loads first.

// CHECK-LABEL: func.func @quantize_middle_axis(
// CHECK:         memref.collapse_shape %{{.*}} {{\[}}[0], [1], [2, 3]] : memref<2x64x3x16xf32> into memref<2x64x48xf32>
// CHECK:         memref.collapse_shape %{{.*}} {{\[}}[0], [1], [2, 3]] : memref<2x2x3x16xf8E8M0FNU> into memref<2x2x48xf8E8M0FNU>
// CHECK:         gpu.launch_func @mxfp8train_kernels::@quantize_32x1_f32_e4m3_even_rowmajor_2x64x48
// CHECK:       gpu.func @quantize_32x1_f32_e4m3_even_rowmajor_2x64x48(
// CHECK-COUNT-32: vector.load %{{.*}} {alignment = 16 : i64} : memref<2x64x48xf32>, vector<4xf32>
// CHECK:         arith.maximumf %{{.*}} : vector<4xf32>
// CHECK:         vector.store %{{.*}} {alignment = 4 : i64} : memref<2x2x48xf8E8M0FNU>, vector<4xf8E8M0FNU>
// CHECK-COUNT-32: vector.store %{{.*}} {alignment = 4 : i64} : memref<2x64x48xf8E4M3FN>, vector<4xf8E4M3FN>
func.func @quantize_middle_axis(%x: tensor<2x64x3x16xf32>)
    -> (tensor<2x64x3x16xf8E4M3FN>, tensor<2x2x3x16xf8E8M0FNU>) {
  %q, %s = mxfp8train.quantize %x axis = 1 mode = even
      : tensor<2x64x3x16xf32> -> tensor<2x64x3x16xf8E4M3FN>, tensor<2x2x3x16xf8E8M0FNU>
  return %q, %s : tensor<2x64x3x16xf8E4M3FN>, tensor<2x2x3x16xf8E8M0FNU>
}

// -----

// Blocked scales are written by the kernel at the shared getBlockedOffset
// positions; the padding of the (200 -> 256) x (3 -> 4) matrix is written
// as 0x00 by two more grid-stride loops (56 * 4 whole rows, 200 * 1
// columns).

// CHECK-LABEL: func.func @quantize_blocked(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@quantize_1x32_f32_e5m2_floor_blocked_200x96
// CHECK-SAME:      memref<1024xf8E8M0FNU>
// CHECK:       gpu.func @quantize_1x32_f32_e5m2_floor_blocked_200x96(
// CHECK-DAG:     %[[C200:.*]] = arith.constant 200 : index
// CHECK-DAG:     %[[C224:.*]] = arith.constant 224 : index
// CHECK-DAG:     %[[C1216:.*]] = arith.constant 1216 : index
// CHECK:         scf.for %{{.*}} = %{{.*}} to %[[C1216]]
// CHECK:           nvvm.convert.f32x2.to.f8x2 {{.*}} : i16(f8E5M2)
// CHECK:           memref.store %{{.*}}[%{{.*}}] : memref<1024xf8E8M0FNU>
// CHECK:         scf.for %{{.*}} = %{{.*}} to %[[C224]]
// CHECK:           memref.store %{{.*}}[%{{.*}}] : memref<1024xf8E8M0FNU>
// CHECK:         scf.for %{{.*}} = %{{.*}} to %[[C200]]
// CHECK:           memref.store %{{.*}}[%{{.*}}] : memref<1024xf8E8M0FNU>
func.func @quantize_blocked(%x: tensor<200x96xf32>)
    -> (tensor<200x96xf8E5M2>, tensor<1024xf8E8M0FNU>) {
  %q, %s = mxfp8train.quantize %x axis = 1 mode = floor layout = blocked
      : tensor<200x96xf32> -> tensor<200x96xf8E5M2>, tensor<1024xf8E8M0FNU>
  return %q, %s : tensor<200x96xf8E5M2>, tensor<1024xf8E8M0FNU>
}

// -----

// quantize_dual: one launch, one read of the input; one lane per 32 x 4
// tile (32 row loads of 8 bytes, one 32x1 block per column, like the 32x1
// kernel). Every scale byte is computed once: the row amaxes are
// reduce-scattered over the 8 lanes of a 1x32 block (8 words to lane ^ 1,
// 4 to lane ^ 2, 2 to lane ^ 4: each lane ends with 4 rows and stores their
// 4 bytes, no lane guard), the bytes gathered back (lane ^ 4, ^ 2, ^ 1);
// the lane's 4 column bytes need no exchange. Then both casts of each row,
// 4-byte stores.

// CHECK-LABEL: func.func @quantize_dual(
// CHECK:         %[[G:.*]] = arith.constant 1 : index
// CHECK:         gpu.launch_func @mxfp8train_kernels::@quantize_dual_bf16_e4m3_e4m3_rceil_rowmajor_rowmajor_128x256 blocks in (%[[G]],
// CHECK-SAME:      args(%{{.*}} : memref<128x256xbf16>, %{{.*}} : memref<128x256xf8E4M3FN>, %{{.*}} : memref<128x8xf8E8M0FNU>, %{{.*}} : memref<128x256xf8E4M3FN>, %{{.*}} : memref<4x256xf8E8M0FNU>)
// CHECK:       gpu.func @quantize_dual_bf16_e4m3_e4m3_rceil_rowmajor_rowmajor_128x256(
// CHECK-DAG:     %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-DAG:     %[[TWO:.*]] = arith.constant 2 : i32
// CHECK-DAG:     %[[FOUR:.*]] = arith.constant 4 : i32
// CHECK-DAG:     %[[WIDTH:.*]] = arith.constant 32 : i32
// CHECK-COUNT-32: vector.load %{{.*}} {alignment = 8 : i64} : memref<128x256xbf16>, vector<4xbf16>
// CHECK-NOT:     scf.if
// CHECK-COUNT-8: gpu.shuffle  xor %{{.*}}, %[[ONE]], %[[WIDTH]] : i32
// CHECK-COUNT-4: gpu.shuffle  xor %{{.*}}, %[[TWO]], %[[WIDTH]] : i32
// CHECK-COUNT-2: gpu.shuffle  xor %{{.*}}, %[[FOUR]], %[[WIDTH]] : i32
// CHECK-COUNT-4: memref.store %{{.*}} : memref<128x8xf8E8M0FNU>
// CHECK:         gpu.shuffle  xor %{{.*}}, %[[FOUR]], %[[WIDTH]] : i32
// CHECK-COUNT-2: gpu.shuffle  xor %{{.*}}, %[[TWO]], %[[WIDTH]] : i32
// CHECK-COUNT-4: gpu.shuffle  xor %{{.*}}, %[[ONE]], %[[WIDTH]] : i32
// CHECK-NOT:     gpu.shuffle
// CHECK:         vector.store %{{.*}} {alignment = 4 : i64} : memref<4x256xf8E8M0FNU>, vector<4xf8E8M0FNU>
// CHECK:         nvvm.convert.f32x2.to.f8x2
// CHECK-COUNT-64: vector.store %{{.*}} {alignment = 4 : i64} : memref<128x256xf8E4M3FN>, vector<4xf8E4M3FN>
// CHECK-NOT:     gpu.shuffle
// CHECK:         gpu.return
func.func @quantize_dual(%x: tensor<128x256xbf16>)
    -> (tensor<128x256xf8E4M3FN>, tensor<128x8xf8E8M0FNU>,
        tensor<128x256xf8E4M3FN>, tensor<4x256xf8E8M0FNU>) {
  %a, %b, %c, %d = mxfp8train.quantize_dual %x mode = rceil
      : tensor<128x256xbf16> -> tensor<128x256xf8E4M3FN>, tensor<128x8xf8E8M0FNU>,
                                tensor<128x256xf8E4M3FN>, tensor<4x256xf8E8M0FNU>
  return %a, %b, %c, %d : tensor<128x256xf8E4M3FN>, tensor<128x8xf8E8M0FNU>,
                          tensor<128x256xf8E4M3FN>, tensor<4x256xf8E8M0FNU>
}

// -----

// dequantize: the hardware e4m3x2 -> f16x2 conversion (exact), the shared
// decodeScale, NaN made the CPU path's 0x7FC0.

// CHECK-LABEL: func.func @dequantize(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@dequantize_1x32_e4m3_bf16_rowmajor_64x128
// CHECK:         gpu.launch_func @mxfp8train_kernels::@dequantize_32x1_e4m3_f32_rowmajor_64x128
// CHECK:       gpu.func @dequantize_32x1_e4m3_f32_rowmajor_64x128(
// CHECK:         %[[NANF:.*]] = arith.constant dense<0x7FC00000> : vector<4xf32>
// CHECK:         vector.load %{{.*}} : memref<2x128xf8E8M0FNU>, vector<4xf8E8M0FNU>
// CHECK:         %[[P:.*]] = arith.mulf %{{.*}} : vector<4xf32>
// CHECK:         %[[UNO:.*]] = arith.cmpf uno, %[[P]], %[[P]] : vector<4xf32>
// CHECK:         %[[R:.*]] = arith.select %[[UNO]], %[[NANF]], %[[P]]
// CHECK:         vector.store %[[R]], %{{.*}} {alignment = 16 : i64} : memref<64x128xf32>, vector<4xf32>
// CHECK:       gpu.func @dequantize_1x32_e4m3_bf16_rowmajor_64x128(
// CHECK-SAME:      {llvm.noalias, llvm.readonly}
// CHECK:         %[[NANB:.*]] = arith.constant dense<0x7FC0> : vector<8xbf16>
// CHECK:         vector.load %{{.*}} {alignment = 8 : i64} : memref<64x128xf8E4M3FN>, vector<8xf8E4M3FN>
// CHECK:         nvvm.convert.f8x2.to.f16x2 %{{.*}} : vector<2xi8>(f8E4M3FN) -> vector<2xf16>
// CHECK:         arith.cmpf uno
// CHECK:         arith.truncf %{{.*}} : vector<8xf32> to vector<8xbf16>
// CHECK:         arith.select %{{.*}}, %[[NANB]], %{{.*}} : vector<8xi1>, vector<8xbf16>
// CHECK:         vector.store %{{.*}} {alignment = 16 : i64} : memref<64x128xbf16>, vector<8xbf16>
func.func @dequantize(%q: tensor<64x128xf8E4M3FN>, %s: tensor<64x4xf8E8M0FNU>,
                      %q2: tensor<64x128xf8E4M3FN>, %s2: tensor<2x128xf8E8M0FNU>)
    -> (tensor<64x128xbf16>, tensor<64x128xf32>) {
  %x = mxfp8train.dequantize %q [%s] axis = 1
      : tensor<64x128xf8E4M3FN> [tensor<64x4xf8E8M0FNU>] -> tensor<64x128xbf16>
  %y = mxfp8train.dequantize %q2 [%s2] axis = 0
      : tensor<64x128xf8E4M3FN> [tensor<2x128xf8E8M0FNU>] -> tensor<64x128xf32>
  return %x, %y : tensor<64x128xbf16>, tensor<64x128xf32>
}

// -----

// Token-group padding: a group table in workgroup memory filled by thread 0
// (offsets clamped like the CPU path), a barrier, then one CTA iteration per
// 8 output rows of 32 16-byte vectors.

// CHECK-LABEL: func.func @pad_unpad(
// CHECK:         %[[G:.*]] = arith.constant 60 : index
// CHECK:         gpu.launch_func @mxfp8train_kernels::@pad_token_groups_bf16_a32_200x256_to_480x256_g8 blocks in (%[[G]],
// CHECK-SAME:      args(%{{.*}} : memref<200x256xbf16>, %{{.*}} : memref<8xi32>, %{{.*}} : memref<480x256xbf16>, %{{.*}} : memref<8xi32>)
// CHECK:         gpu.launch_func @mxfp8train_kernels::@unpad_token_groups_bf16_a32_480x256_to_200x256_g8
// CHECK:       gpu.func @pad_token_groups_bf16_a32_200x256_to_480x256_g8(
// CHECK-SAME:      workgroup(%[[TABLE:.*]] : memref<4x8xi32, #gpu.address_space<workgroup>>)
// CHECK:         arith.maxsi
// CHECK:         arith.minsi
// CHECK:         memref.store %{{.*}}, %[[TABLE]]
// CHECK:         gpu.barrier
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:           memref.load %[[TABLE]]
// CHECK:           scf.if %{{.*}} -> (vector<8xbf16>)
// CHECK:           vector.store %{{.*}} {alignment = 16 : i64} : memref<480x256xbf16>, vector<8xbf16>
func.func @pad_unpad(%x: tensor<200x256xbf16>, %offs: tensor<8xi32>)
    -> (tensor<480x256xbf16>, tensor<8xi32>, tensor<200x256xbf16>) {
  %xp, %po = mxfp8train.pad_token_groups %x offs(%offs) alignment = 32
      : tensor<200x256xbf16>, tensor<8xi32> -> tensor<480x256xbf16>, tensor<8xi32>
  %u = mxfp8train.unpad_token_groups %xp offs(%offs) alignment = 32
      : tensor<480x256xbf16>, tensor<8xi32> -> tensor<200x256xbf16>
  return %xp, %po, %u : tensor<480x256xbf16>, tensor<8xi32>, tensor<200x256xbf16>
}

// -----

// to_blocked: one thread per 4 output bytes, in output order.

// CHECK-LABEL: func.func @to_blocked(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@to_blocked_100x3
// CHECK-SAME:      args(%{{.*}} : memref<100x3xf8E8M0FNU>, %{{.*}} : memref<512xf8E8M0FNU>)
// CHECK:         gpu.launch_func @mxfp8train_kernels::@to_blocked_2x130x5
// CHECK-SAME:      args(%{{.*}} : memref<2x130x5xf8E8M0FNU>, %{{.*}} : memref<2x2048xf8E8M0FNU>)
// CHECK:       gpu.func @to_blocked_100x3(
// CHECK:         vector.store %{{.*}} {alignment = 4 : i64} : memref<512xf8E8M0FNU>, vector<4xf8E8M0FNU>
func.func @to_blocked(%s: tensor<100x3xf8E8M0FNU>, %e: tensor<2x130x5xf8E8M0FNU>)
    -> (tensor<512xf8E8M0FNU>, tensor<2x2048xf8E8M0FNU>) {
  %b = mxfp8train.to_blocked %s layout = blocked
      : tensor<100x3xf8E8M0FNU> -> tensor<512xf8E8M0FNU>
  %p = mxfp8train.to_blocked %e layout = blocked_per_expert
      : tensor<2x130x5xf8E8M0FNU> -> tensor<2x2048xf8E8M0FNU>
  return %b, %p : tensor<512xf8E8M0FNU>, tensor<2x2048xf8E8M0FNU>
}

// -----

// to_blocked blocked_m_groups: a grid of one thread per 4 output bytes
// (2436 words: 10 CTAs); thread 0 fills the group table (offsets clamped
// into [0, 300] and to non-decreasing values like the CPU path, padded ends
// rounded up to 128 rows), a barrier, then each word takes its virtual row
// from the shared inverse of the blocked offset, bisects the padded ends
// (ceil(log2(5)) = 3 steps) and reads its 4 bytes clamped into the matrix.

// CHECK-LABEL: func.func @to_blocked_m_groups(
// CHECK-DAG:     %[[C10:.*]] = arith.constant 10 : index
// CHECK:         gpu.launch_func @mxfp8train_kernels::@to_blocked_m_groups_300x9_g4 blocks in (%[[C10]],
// CHECK-SAME:      args(%{{.*}} : memref<300x9xf8E8M0FNU>, %{{.*}} : memref<4xi32>, %{{.*}} : memref<9744xf8E8M0FNU>)
// CHECK:       gpu.func @to_blocked_m_groups_300x9_g4(
// CHECK-SAME:      workgroup(%[[T:.*]] : memref<4x4xi32, #gpu.address_space<workgroup>>)
// CHECK-DAG:     %[[C300:.*]] = arith.constant 300 : i32
// CHECK-DAG:     %[[C128:.*]] = arith.constant 128 : i32
// CHECK-DAG:     %[[WORDS:.*]] = arith.constant 2436 : index
// CHECK:         scf.for
// CHECK:           %[[RAW:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<4xi32>
// CHECK:           %[[MAX:.*]] = arith.maxsi %[[RAW]], %{{.*}} : i32
// CHECK:           arith.minsi %[[MAX]], %[[C300]] : i32
// CHECK:           arith.divui %{{.*}}, %[[C128]] : i32
// CHECK-COUNT-4:   memref.store %{{.*}}, %[[T]]
// CHECK:         gpu.barrier
// CHECK:         scf.for %{{.*}} = %{{.*}} to %[[WORDS]] step
// CHECK-COUNT-3:   memref.load %[[T]][%c3,
// CHECK:           arith.minui %{{.*}}, %c299 : index
// CHECK-COUNT-4:   memref.load %{{.*}} : memref<300x9xf8E8M0FNU>
// CHECK:           vector.store %{{.*}} {alignment = 4 : i64} : memref<9744xf8E8M0FNU>, vector<4xf8E8M0FNU>
func.func @to_blocked_m_groups(%s: tensor<300x9xf8E8M0FNU>, %offs: tensor<4xi32>)
    -> tensor<9744xf8E8M0FNU> {
  %m = mxfp8train.to_blocked %s offs(%offs) layout = blocked_m_groups
      : tensor<300x9xf8E8M0FNU>, tensor<4xi32> -> tensor<9744xf8E8M0FNU>
  return %m : tensor<9744xf8E8M0FNU>
}

// -----

// to_blocked blocked_k_groups: the table counts scale columns, offs // 32
// (tokens clamped into [0, 10 * 32]), padded to 4 columns; a word's group is
// the one whose padded columns hold byte / 128 (the padded rows).

// CHECK-LABEL: func.func @to_blocked_k_groups(
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK:         gpu.launch_func @mxfp8train_kernels::@to_blocked_k_groups_100x10_g4 blocks in (%[[C4]],
// CHECK-SAME:      args(%{{.*}} : memref<100x10xf8E8M0FNU>, %{{.*}} : memref<4xi32>, %{{.*}} : memref<3328xf8E8M0FNU>)
// CHECK:       gpu.func @to_blocked_k_groups_100x10_g4(
// CHECK-SAME:      workgroup(%[[T:.*]] : memref<4x4xi32, #gpu.address_space<workgroup>>)
// CHECK-DAG:     %[[C320:.*]] = arith.constant 320 : i32
// CHECK-DAG:     %[[C32:.*]] = arith.constant 32 : i32
// CHECK-DAG:     %[[C4I:.*]] = arith.constant 4 : i32
// CHECK-DAG:     %[[C128:.*]] = arith.constant 128 : index
// CHECK:         scf.for
// CHECK:           %[[END:.*]] = arith.minsi %{{.*}}, %[[C320]] : i32
// CHECK:           %[[FIRST:.*]] = arith.divui %{{.*}}, %[[C32]] : i32
// CHECK:           %[[LAST:.*]] = arith.divui %[[END]], %[[C32]] : i32
// CHECK:           arith.subi %[[LAST]], %[[FIRST]] : i32
// CHECK:           arith.divui %{{.*}}, %[[C4I]] : i32
// CHECK:           memref.store %[[FIRST]], %[[T]]
// CHECK:           memref.store %[[LAST]], %[[T]]
// CHECK:         gpu.barrier
// CHECK:         scf.for
// CHECK:           %[[OFF:.*]] = arith.muli %{{.*}}, %c4 : index
// CHECK:           arith.divui %[[OFF]], %[[C128]] : index
// CHECK:           arith.maxui %{{.*}}, %c1 : index
// CHECK-COUNT-4:   memref.load %{{.*}} : memref<100x10xf8E8M0FNU>
// CHECK:           vector.store %{{.*}}, %{{.*}}[%[[OFF]]] {alignment = 4 : i64} : memref<3328xf8E8M0FNU>, vector<4xf8E8M0FNU>
func.func @to_blocked_k_groups(%s: tensor<100x10xf8E8M0FNU>, %offs: tensor<4xi32>)
    -> tensor<3328xf8E8M0FNU> {
  %k = mxfp8train.to_blocked %s offs(%offs) layout = blocked_k_groups
      : tensor<100x10xf8E8M0FNU>, tensor<4xi32> -> tensor<3328xf8E8M0FNU>
  return %k : tensor<3328xf8E8M0FNU>
}

// -----

// A large grouped to_blocked runs on at most the resident CTAs (132 SMs x 8
// on sm_90a, 148 x 8 on sm_100a), each building the group table once; with
// no groups every byte is padding: zeros, no table.

// CHECK-LABEL: func.func @to_blocked_grouped_grid(
// CHECK-DAG:     %[[C1056:.*]] = arith.constant 1056 : index
// CHECK:         gpu.launch_func @mxfp8train_kernels::@to_blocked_m_groups_16384x224_g8 blocks in (%[[C1056]],
// CHECK:         gpu.launch_func @mxfp8train_kernels::@to_blocked_k_groups_16x64_g0
// CHECK:       gpu.func @to_blocked_k_groups_16x64_g0(
// CHECK-NOT:       workgroup
// CHECK-SAME:      {
// CHECK-NOT:     memref.load
// CHECK:         vector.store
// CHECK-NOT:     memref.load
// CHECK:         gpu.return
// B200-LABEL:  func.func @to_blocked_grouped_grid(
// B200:          %[[C1184:.*]] = arith.constant 1184 : index
// B200:          gpu.launch_func @mxfp8train_kernels::@to_blocked_m_groups_16384x224_g8 blocks in (%[[C1184]],
func.func @to_blocked_grouped_grid(%s: tensor<16384x224xf8E8M0FNU>, %offs: tensor<8xi32>,
                                   %k: tensor<16x64xf8E8M0FNU>, %none: tensor<0xi32>)
    -> (tensor<3899392xf8E8M0FNU>, tensor<8192xf8E8M0FNU>) {
  %m = mxfp8train.to_blocked %s offs(%offs) layout = blocked_m_groups
      : tensor<16384x224xf8E8M0FNU>, tensor<8xi32> -> tensor<3899392xf8E8M0FNU>
  %e = mxfp8train.to_blocked %k offs(%none) layout = blocked_k_groups
      : tensor<16x64xf8E8M0FNU>, tensor<0xi32> -> tensor<8192xf8E8M0FNU>
  return %m, %e : tensor<3899392xf8E8M0FNU>, tensor<8192xf8E8M0FNU>
}
