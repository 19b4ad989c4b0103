// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu --canonicalize --split-input-file | FileCheck %s
// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu="chip=sm_100a" --canonicalize --split-input-file | FileCheck %s --check-prefix=B200
// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu="simple-gemm=true" --canonicalize --split-input-file | FileCheck %s --check-prefix=SIMPLE

// The simple tiled GEMM kernels (Gemm/SimpleGemm.cpp): one launch per
// contraction with a grid of (N/64, M/64, batch or groups) CTAs of 256
// threads, operands read in their stored orientation (the kernel name lists
// the stored dims of A, B and C), f32 fused multiply-adds through two
// 32 x 65 f32 tiles in shared memory.

// A zero-filled init is not read.
// CHECK-LABEL: func.func @matmul_bt(
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C256:.*]] = arith.constant 256 : index
// CHECK-NOT:     linalg.fill
// CHECK:         gpu.launch_func @mxfp8train_kernels::@gemm_mkbf16_nkbf16_mnf32_1x64x80x96 blocks in (%[[C2]], %[[C1]], %[[C1]]) threads in (%[[C256]], %[[C1]], %[[C1]]) args(%{{.*}} : memref<64x96xbf16>, %{{.*}} : memref<80x96xbf16>, %{{.*}} : memref<64x80xf32>)
// CHECK-NOT:     linalg.matmul
// CHECK:       gpu.func @gemm_mkbf16_nkbf16_mnf32_1x64x80x96(
// CHECK-SAME:    workgroup(%{{.*}} : memref<32x65xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<32x65xf32, #gpu.address_space<workgroup>>)
// CHECK:         scf.for
// CHECK:           memref.load %arg0
// CHECK:           gpu.barrier
// CHECK:           math.fma
// CHECK:           gpu.barrier
#mm_a = affine_map<(m, n, k) -> (m, k)>
#mm_bt = affine_map<(m, n, k) -> (n, k)>
#mm_c = affine_map<(m, n, k) -> (m, n)>
func.func @matmul_bt(%x: tensor<64x96xbf16>, %w: tensor<80x96xbf16>) -> tensor<64x80xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x80xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x80xf32>) -> tensor<64x80xf32>
  %y = linalg.matmul indexing_maps = [#mm_a, #mm_bt, #mm_c]
      ins(%x, %w : tensor<64x96xbf16>, tensor<80x96xbf16>) outs(%f : tensor<64x80xf32>) -> tensor<64x80xf32>
  return %y : tensor<64x80xf32>
}

// -----

// A transposed lhs and an init that is read (C += A B), bf16 result.
// CHECK-LABEL: func.func @matmul_at_init(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@gemm_kmf32_knf32_mnbf16_initbf16_1x130x70x32
// CHECK-SAME:      args(%{{.*}} : memref<32x130xf32>, %{{.*}} : memref<32x70xf32>, %{{.*}} : memref<130x70xbf16>, %{{.*}} : memref<130x70xbf16>)
#mm_at = affine_map<(m, n, k) -> (k, m)>
#mm_b = affine_map<(m, n, k) -> (k, n)>
#mm_c = affine_map<(m, n, k) -> (m, n)>
func.func @matmul_at_init(%a: tensor<32x130xf32>, %b: tensor<32x70xf32>, %c: tensor<130x70xbf16>) -> tensor<130x70xbf16> {
  %y = linalg.matmul indexing_maps = [#mm_at, #mm_b, #mm_c]
      ins(%a, %b : tensor<32x130xf32>, tensor<32x70xf32>) outs(%c : tensor<130x70xbf16>) -> tensor<130x70xbf16>
  return %y : tensor<130x70xbf16>
}

// -----

// CHECK-LABEL: func.func @batch(
// CHECK-DAG:     %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK:         gpu.launch_func @mxfp8train_kernels::@gemm_bmkf32_bknf32_bmnf32_3x16x16x64 blocks in (%[[C1]], %[[C1]], %[[C3]])
func.func @batch(%a: tensor<3x16x64xf32>, %b: tensor<3x64x16xf32>) -> tensor<3x16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x16x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<3x16x16xf32>) -> tensor<3x16x16xf32>
  %y = linalg.batch_matmul ins(%a, %b : tensor<3x16x64xf32>, tensor<3x64x16xf32>)
      outs(%f : tensor<3x16x16xf32>) -> tensor<3x16x16xf32>
  return %y : tensor<3x16x16xf32>
}

// -----

// grouped_mm 2d-3d: each CTA walks the clamped group ends (max with the
// previous end, min with the rows) and multiplies the rows of every group
// that meets its 64 rows by that group's expert.
// CHECK-LABEL: func.func @grouped_2d3d(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@grouped_gemm_2d3d_mkbf16_gnkbf16_mnbf16_1x100x48x64_g4
// CHECK:       gpu.func @grouped_gemm_2d3d_mkbf16_gnkbf16_mnbf16_1x100x48x64_g4(
// CHECK:         scf.for %[[G:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[START:[a-z0-9]+]] = %{{.*}},
// CHECK:           %[[RAW:.*]] = memref.load %arg2[%[[G]]] : memref<4xi32>
// CHECK:           %[[END0:.*]] = arith.index_cast %[[RAW]] : i32 to index
// CHECK:           %[[END1:.*]] = arith.maxsi %[[END0]], %[[START]] : index
// CHECK:           arith.minsi %[[END1]], %{{.*}} : index
// CHECK:           memref.load %arg1[%[[G]], %{{.*}}, %{{.*}}] : memref<4x48x64xbf16>
func.func @grouped_2d3d(%x: tensor<100x64xbf16>, %w: tensor<4x48x64xbf16>, %offs: tensor<4xi32>) -> tensor<100x48xbf16> {
  %y = mxfp8train.grouped_mm %x, %w offs(%offs) transpose_rhs
      : tensor<100x64xbf16>, tensor<4x48x64xbf16>, tensor<4xi32> -> tensor<100x48xbf16>
  return %y : tensor<100x48xbf16>
}

// -----

// grouped_mm 2d-2d: one CTA column (grid z) per group, contracting over the
// group's tokens only.
// CHECK-LABEL: func.func @grouped_2d2d(
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK:         gpu.launch_func @mxfp8train_kernels::@grouped_gemm_2d2d_kmbf16_knbf16_gmnbf16_4x48x64x100_g4 blocks in (%{{.*}}, %{{.*}}, %[[C4]])
func.func @grouped_2d2d(%dy: tensor<100x48xbf16>, %x: tensor<100x64xbf16>, %offs: tensor<4xi32>) -> tensor<4x48x64xbf16> {
  %y = mxfp8train.grouped_mm %dy, %x offs(%offs) transpose_lhs
      : tensor<100x48xbf16>, tensor<100x64xbf16>, tensor<4xi32> -> tensor<4x48x64xbf16>
  return %y : tensor<4x48x64xbf16>
}

// -----

// With simple-gemm, scaled_mm with row-major scales runs the simple kernel,
// on sm_90a too: the tiles hold the exact unscaled elements, the scale
// bytes of the tile's 64 rows go to two i32 workgroup buffers, each K step
// (one scale block) sums its products q_a q_b with fma and adds the sum
// times 2^(e1) * 2^(e2), e1 + e2 = sa + sb - 254 (SPEC §3.1's exact
// products, finite where an operand element alone exceeds f32). On sm_100a
// this form (rank 2, K-major) takes the tcgen05 kernel
// (scaled-mm-tcgen05.mlir also shows the forms that keep the simple kernel
// there).
// SIMPLE-LABEL: func.func @scaled_fallback(
// SIMPLE:         gpu.launch_func @mxfp8train_kernels::@gemm_mke4m3_nke4m3_mnbf16_biasbf16_1x32x16x64
// SIMPLE-SAME:      args(%{{.*}} : memref<32x64xf8E4M3FN>, %{{.*}} : memref<32x2xf8E8M0FNU>, %{{.*}} : memref<16x64xf8E4M3FN>, %{{.*}} : memref<16x2xf8E8M0FNU>, %{{.*}} : memref<16xbf16>, %{{.*}} : memref<32x16xbf16>)
// SIMPLE:       gpu.func @gemm_mke4m3_nke4m3_mnbf16_biasbf16_1x32x16x64(
// SIMPLE-SAME:    workgroup(%{{.*}} : memref<32x65xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<32x65xf32, #gpu.address_space<workgroup>>, %[[SA:.*]] : memref<64xi32, #gpu.address_space<workgroup>>, %[[SB:.*]] : memref<64xi32, #gpu.address_space<workgroup>>)
// SIMPLE:         memref.load %arg1[%{{.*}}, %{{.*}}] : memref<32x2xf8E8M0FNU>
// SIMPLE:         memref.store %{{.*}}, %[[SA]][%{{.*}}] : memref<64xi32, #gpu.address_space<workgroup>>
// SIMPLE:         memref.load %arg3[%{{.*}}, %{{.*}}] : memref<16x2xf8E8M0FNU>
// SIMPLE:         memref.store %{{.*}}, %[[SB]][%{{.*}}] : memref<64xi32, #gpu.address_space<workgroup>>
// SIMPLE:         gpu.barrier
// SIMPLE:         math.fma
// SIMPLE:         scf.yield
// SIMPLE:         %[[A0:.*]] = memref.load %[[SA]]
// SIMPLE:         %[[B0:.*]] = memref.load %[[SB]]
// SIMPLE:         %[[SUM:.*]] = arith.addi %[[A0]], %[[B0]] : i32
// SIMPLE:         %[[E:.*]] = arith.subi %[[SUM]], %c254_i32 : i32
// SIMPLE:         arith.divsi %[[E]], %c2_i32 : i32
// SIMPLE:         %[[P:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// SIMPLE-NEXT:    %[[Q:.*]] = arith.mulf %[[P]], %{{.*}} : f32
// SIMPLE-NEXT:    arith.addf %{{.*}}, %[[Q]] : f32
// SIMPLE-LABEL: func.func @scaled_grouped_fallback(
// SIMPLE:         gpu.launch_func @mxfp8train_kernels::@grouped_gemm_2d2d_kme4m3_kne4m3_gmnf32_4x40x64x128_g4
// B200-LABEL: func.func @scaled_fallback(
// B200:         gpu.launch_func @mxfp8train_kernels::@to_blocked_32x2
// B200:         gpu.launch_func @mxfp8train_kernels::@to_blocked_16x2
// B200:         gpu.launch_func @mxfp8train_kernels::@scaled_mm_tc05_kb_kb_e4m3_e4m3_bf16_biasbf16_32x16x64_s4
func.func @scaled_fallback(%a: tensor<32x64xf8E4M3FN>, %as: tensor<32x2xf8E8M0FNU>,
                           %b: tensor<16x64xf8E4M3FN>, %bs: tensor<16x2xf8E8M0FNU>,
                           %bias: tensor<16xbf16>) -> tensor<32x16xbf16> {
  %y = mxfp8train.scaled_mm %a [%as], %b [%bs] bias(%bias) transpose_rhs
      : tensor<32x64xf8E4M3FN> [tensor<32x2xf8E8M0FNU>],
        tensor<16x64xf8E4M3FN> [tensor<16x2xf8E8M0FNU>], tensor<16xbf16> -> tensor<32x16xbf16>
  return %y : tensor<32x16xbf16>
}

// -----

// On sm_100a the grouped forms take the tcgen05 kernel
// (scaled-grouped-mm-tcgen05.mlir) except where TMA cannot read them: an
// MN-major operand whose rows are not 16-byte aligned (M = 40) keeps the
// simple kernel.
// B200-LABEL: func.func @scaled_grouped_fallback(
// B200:         gpu.launch_func @mxfp8train_kernels::@grouped_gemm_2d2d_kme4m3_kne4m3_gmnf32_4x40x64x128_g4
func.func @scaled_grouped_fallback(%a: tensor<128x40xf8E4M3FN>, %as: tensor<4x40xf8E8M0FNU>,
                                   %b: tensor<128x64xf8E4M3FN>, %bs: tensor<4x64xf8E8M0FNU>,
                                   %offs: tensor<4xi32>) -> tensor<4x40x64xf32> {
  %y = mxfp8train.scaled_grouped_mm %a [%as], %b [%bs] offs(%offs) transpose_lhs
      : tensor<128x40xf8E4M3FN> [tensor<4x40xf8E8M0FNU>],
        tensor<128x64xf8E4M3FN> [tensor<4x64xf8E8M0FNU>], tensor<4xi32> -> tensor<4x40x64xf32>
  return %y : tensor<4x40x64xf32>
}
