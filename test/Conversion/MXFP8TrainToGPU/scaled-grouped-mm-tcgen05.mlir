// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu="chip=sm_100a" --canonicalize --cse --split-input-file | FileCheck %s

// scaled_grouped_mm on sm_100a (Gemm/TCGen05.cpp, design (b) of
// KERNELS.md §5: contiguous token groups, grid-constant tensor maps,
// per-group padding of the scales only, masks in the epilogue). Row-major
// scales are re-laid by the to_blocked kernels into the grouped layouts of
// SPEC §4.2 before the launch (of the transposed matrix for MN-major
// operands); every launch is one persistent kernel of 256 threads with
// 203872 bytes of dynamic shared memory, like scaled_mm's.

// 2d-3d forward (tokens K-major, W stored (E, N, K)): A's scales in
// blocked_m_groups ((300 + 128 * 4) * 8 bytes), W's one to_blocked per
// expert (384 * 8 bytes each). The kernel's A boxes are rank 2 at the
// tile's first token (any row: a group starts anywhere); W's rank-3 boxes
// hold one expert (the outermost coordinate). After the warp roles the
// rows past the last group are zeroed. 3 row tiles (300 tokens) plus one
// per group (a group may start mid-tile) times 2 column tiles: 14 CTAs.
// CHECK-LABEL: func.func @fwd(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@to_blocked_m_groups_300x8_g4 {{.*}} args(%{{.*}} : memref<300x8xf8E8M0FNU>, %[[OFFS:.*]] : memref<4xi32>, %[[SA:.*]] : memref<6496xf8E8M0FNU>)
// CHECK:         gpu.launch_func @mxfp8train_kernels::@to_blocked_4x384x8 {{.*}} args(%{{.*}} : memref<4x384x8xf8E8M0FNU>, %{{.*}} : memref<4x3072xf8E8M0FNU>)
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_gmm_2d3d_tc05_k_k_e4m3_e4m3_bf16_300x384x256_b4_s4 blocks in (%c14, %c1, %c1) threads in (%c256, %c1, %c1) dynamic_shared_memory_size %c203872_i32 args(%{{.*}} : !llvm.ptr, %[[SA]] : memref<6496xf8E8M0FNU>, %{{.*}} : !llvm.ptr, %{{.*}} : memref<12288xf8E8M0FNU>, %[[OFFS]] : memref<4xi32>, %{{.*}} : memref<115200xbf16>)
// CHECK-NOT:     @gemm_
// A stage expects both boxes and the scale chunks: one SFA chunk and two
// SFB chunks, or one in the last of the three 128-column blocks of N.
// CHECK-LABEL: gpu.func @scaled_gmm_2d3d_tc05_k_k_e4m3_e4m3_bf16_300x384x256_b4_s4(
// CHECK:         %[[TX:.*]] = arith.select %{{.*}}, %c50688_i32, %c50176_i32 : i32
// CHECK:         nvvm.mbarrier.arrive.expect_tx %[[FULL:.*]], %[[TX]]
// CHECK:         nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg0, %[[FULL]], box[%{{[^,]*}}, %{{[^,]*}}] {
// CHECK:         nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg2, %[[FULL]], box[%{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}] {
// CHECK-COUNT-4: nvvm.tcgen05.mma.block_scale
// CHECK:         gpu.barrier
// CHECK:         scf.for %{{.*}} to %c115200 step
// CHECK-NEXT:      memref.store %{{.*}}, %arg5[%{{.*}}] : memref<115200xbf16>
func.func @fwd(%a: tensor<300x256xf8E4M3FN>, %as: tensor<300x8xf8E8M0FNU>,
               %w: tensor<4x384x256xf8E4M3FN>, %ws: tensor<4x384x8xf8E8M0FNU>,
               %offs: tensor<4xi32>) -> tensor<300x384xbf16> {
  %y = mxfp8train.scaled_grouped_mm %a [%as], %w [%ws] offs(%offs) transpose_rhs
      : tensor<300x256xf8E4M3FN> [tensor<300x8xf8E8M0FNU>],
        tensor<4x384x256xf8E4M3FN> [tensor<4x384x8xf8E8M0FNU>], tensor<4xi32> -> tensor<300x384xbf16>
  return %y : tensor<300x384xbf16>
}

// -----

// 2d-3d dgrad (W stored (E, K, N): B is MN-major): W's (E, K/32, N)
// scales are re-laid per expert as the blocked layout of their transpose.
// CHECK-LABEL: func.func @dgrad(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@to_blocked_m_groups_300x12_g4
// CHECK:         gpu.launch_func @mxfp8train_kernels::@to_blocked_t_4x12x256 {{.*}} args(%{{.*}} : memref<4x12x256xf8E8M0FNU>, %{{.*}} : memref<4x3072xf8E8M0FNU>)
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_gmm_2d3d_tc05_k_mn_e4m3_e4m3_bf16_300x256x384_b4_s4
func.func @dgrad(%d: tensor<300x384xf8E4M3FN>, %ds: tensor<300x12xf8E8M0FNU>,
                 %w: tensor<4x384x256xf8E4M3FN>, %ws: tensor<4x12x256xf8E8M0FNU>,
                 %offs: tensor<4xi32>) -> tensor<300x256xbf16> {
  %y = mxfp8train.scaled_grouped_mm %d [%ds], %w [%ws] offs(%offs)
      : tensor<300x384xf8E4M3FN> [tensor<300x12xf8E8M0FNU>],
        tensor<4x384x256xf8E4M3FN> [tensor<4x12x256xf8E8M0FNU>], tensor<4xi32> -> tensor<300x256xbf16>
  return %y : tensor<300x256xbf16>
}

// -----

// 2d-2d wgrad (dO and X stored (tokens, rows): both MN-major): both scale
// matrices (tokens / 32, rows) re-laid as blocked_k_groups of their
// transposes (rows * (10 + 4 * 4) bytes). Per stage the MMA issuer
// multiplies K block 0 and only those of blocks 1-3 that start before the
// group's end (a group ends at any multiple of 32 tokens; the rest of the
// box is the next group's tokens); an empty group stores zeros.
// CHECK-LABEL: func.func @wgrad(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@to_blocked_t_k_groups_10x384_g4 {{.*}} args(%{{.*}} : memref<10x384xf8E8M0FNU>, %[[OFFS:.*]] : memref<4xi32>, %[[SA:.*]] : memref<9984xf8E8M0FNU>)
// CHECK:         gpu.launch_func @mxfp8train_kernels::@to_blocked_t_k_groups_10x256_g4 {{.*}} args(%{{.*}} : memref<10x256xf8E8M0FNU>, %[[OFFS]] : memref<4xi32>, %[[SB:.*]] : memref<6656xf8E8M0FNU>)
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_gmm_2d2d_tc05_mn_mn_e4m3_e4m3_f32_384x256x320_b4_s4 {{.*}} args(%{{.*}} : !llvm.ptr, %[[SA]] : memref<9984xf8E8M0FNU>, %{{.*}} : !llvm.ptr, %[[SB]] : memref<6656xf8E8M0FNU>, %[[OFFS]] : memref<4xi32>, %{{.*}} : memref<393216xf32>)
// CHECK-LABEL: gpu.func @scaled_gmm_2d2d_tc05_mn_mn_e4m3_e4m3_f32_384x256x320_b4_s4(
// The MMA issuer's stage loop runs from 0 over the group's contraction
// tiles; block 0 accumulates from the tile's second stage on.
// CHECK:         scf.for %[[KT:.*]] = %c0 to %{{.*}} step %c1 {
// CHECK:           %[[NOTFIRST:.*]] = arith.cmpi ne, %[[KT]], %c0 : index
// CHECK-NEXT:      nvvm.tcgen05.mma.block_scale %{{.*}}, %{{.*}}, %{{.*}}, %c146898944_i32, %[[NOTFIRST]],
// CHECK-NEXT:      %[[K0:.*]] = arith.muli %[[KT]], %c128 : index
// CHECK-NEXT:      %[[K1:.*]] = arith.addi %[[K0]], %c32 : index
// CHECK-NEXT:      %[[T1:.*]] = arith.addi %[[LO:.*]], %[[K1]] : index
// CHECK-NEXT:      %[[IN1:.*]] = arith.cmpi ult, %[[T1]], %[[HI:.*]] : index
// CHECK-NEXT:      scf.if %[[IN1]] {
// CHECK:             nvvm.tcgen05.mma.block_scale {{.*}}, %c683769872_i32, %true,
// CHECK:           arith.addi %[[K0]], %c64 : index
// CHECK:           scf.if
// CHECK:             nvvm.tcgen05.mma.block_scale {{.*}}, %c1220640800_i32, %true,
// CHECK:           arith.addi %[[K0]], %c96 : index
// CHECK:           scf.if
// CHECK:             nvvm.tcgen05.mma.block_scale {{.*}}, %c1757511728_i32, %true,
// CHECK:           nvvm.tcgen05.commit
// The epilogue: a group whose first token is not below its end is empty.
// CHECK:         %[[EMPTY:.*]] = arith.cmpi uge, %{{.*}}, %{{.*}} : index
// CHECK:         nvvm.tcgen05.ld
// CHECK:         arith.select %[[EMPTY]], %cst, %{{.*}} : vector<32xf32>
func.func @wgrad(%d: tensor<320x384xf8E4M3FN>, %ds: tensor<10x384xf8E8M0FNU>,
                 %x: tensor<320x256xf8E4M3FN>, %xs: tensor<10x256xf8E8M0FNU>,
                 %offs: tensor<4xi32>) -> tensor<4x384x256xf32> {
  %y = mxfp8train.scaled_grouped_mm %d [%ds], %x [%xs] offs(%offs) transpose_lhs
      : tensor<320x384xf8E4M3FN> [tensor<10x384xf8E8M0FNU>],
        tensor<320x256xf8E4M3FN> [tensor<10x256xf8E8M0FNU>], tensor<4xi32> -> tensor<4x384x256xf32>
  return %y : tensor<4x384x256xf32>
}
