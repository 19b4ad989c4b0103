// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu --canonicalize --split-input-file | FileCheck %s

// MN-major Float8 operands on sm_90a (Gemm/Float8Transpose.cpp): fp8
// wgmma reads K-major shared memory only, so the fp8 transpose pre-pass
// copies an operand stored (K, rows) into a K-major (rows, K) buffer,
// allocated with its tensor map (UINT8, 128B swizzle, boxes of 128 rows x
// 128 fp8) at the start of the block, and the GEMM reads that map. The
// gradient roles promote the accumulators (128 x 128 tiles, `_acc128`).

// dgrad: grad_output (256, 384) x weight stored (K = 384, N = 512): rhs
// MN-major. The transpose (3 K tiles x 4 row tiles = 12 CTAs of 256
// threads) writes 512 x 384 bytes; the GEMM's B map is over that buffer.
// CHECK-LABEL: func.func @dgrad(
// CHECK-SAME:    %[[G:.*]]: tensor<256x384xf8E4M3FN>, %{{.*}}: tensor<256x1xf32>, %[[W:.*]]: tensor<384x512xf8E4M3FN>
// CHECK:         %[[T:.*]] = memref.alloc() : memref<196608xf8E4M3FN>
// CHECK-NEXT:    memref.expand_shape %[[T]] {{\[\[}}0, 1]] output_shape [512, 384]
// CHECK:         %[[BMAP:.*]] = llvm.call @mgpuTensorMapEncodeTiledMemref
// CHECK:         %[[AMAP:.*]] = llvm.call @mgpuTensorMapEncodeTiledMemref
// CHECK:         %[[WB:.*]] = bufferization.to_buffer %[[W]]
// CHECK-NEXT:    %[[WF:.*]] = memref.collapse_shape %[[WB]] {{\[\[}}0, 1]] : memref<384x512xf8E4M3FN> into memref<196608xf8E4M3FN>
// CHECK-NEXT:    gpu.launch_func @mxfp8train_kernels::@gemm_f8_transpose_e4m3_b1_k384_r512 blocks in (%c12, %c1, %c1) threads in (%c256, %c1, %c1) args(%[[WF]] : memref<196608xf8E4M3FN>, %[[T]] : memref<196608xf8E4M3FN>)
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_mm_k_k_e4m3_e4m3_bf16_256x512x384_b1_p1c1_v9w1s6_f8rr_acc128 blocks in (%c8, %c1, %c1) threads in (%c384, %c1, %c1) dynamic_shared_memory_size %c217184_i32 args(%[[AMAP]] : !llvm.ptr, %{{.*}} : memref<256xf32>, %[[BMAP]] : !llvm.ptr, %{{.*}} : memref<512xf32>, %{{.*}} : memref<131072xbf16>)

// The transpose kernel: thread t loads 16-byte chunk t % 8 of source row
// t / 8 (+ 32 rows per round, four rounds, all four loads first), zero past
// K or the rows, and stores each at chunk (t % 8) ^ (row / 16 % 8) of the
// row in shared memory;
// after a barrier each thread gathers output row r = t / 8, K chunk
// q = t % 8 (16 byte loads at rows 16 q + j, column chunk (r / 16) ^ q)
// and stores them as 16 contiguous bytes of the K-major output.
// CHECK-LABEL: gpu.func @gemm_f8_transpose_e4m3_b1_k384_r512(
// CHECK-SAME:      %[[SRC:.*]]: memref<196608xf8E4M3FN> {llvm.noalias, llvm.readonly}, %[[DST:.*]]: memref<196608xf8E4M3FN> {llvm.noalias, llvm.writeonly}) workgroup(%[[TILE:.*]] : memref<16384xi8, #gpu.address_space<workgroup>>)
// CHECK:           %[[KK:.*]] = arith.divui %thread_id_x, %c8 : index
// CHECK-NEXT:      %[[CH:.*]] = arith.remui %thread_id_x, %c8 : index
// CHECK-NEXT:      %[[SK:.*]] = arith.addi %{{.*}}, %[[KK]] : index
// CHECK-NEXT:      %[[CO:.*]] = arith.muli %[[CH]], %c16 : index
// CHECK-NEXT:      %[[COL:.*]] = arith.addi %{{.*}}, %[[CO]] : index
// CHECK-NEXT:      %[[IN1:.*]] = arith.cmpi ult, %[[COL]], %c512 : index
// CHECK-NEXT:      %[[IN2:.*]] = arith.cmpi ult, %[[SK]], %c384 : index
// CHECK-NEXT:      %[[IN:.*]] = arith.andi %[[IN2]], %[[IN1]] : i1
// CHECK-NEXT:      %[[V:.*]] = scf.if %[[IN]] -> (vector<16xi8>) {
// CHECK-NEXT:        %[[BB:.*]] = arith.muli %{{.*}}, %c196608 : index
// CHECK-NEXT:        %[[R:.*]] = arith.muli %[[SK]], %c512 : index
// CHECK-NEXT:        %[[O:.*]] = arith.addi %[[R]], %[[COL]] : index
// CHECK-NEXT:        %[[OB:.*]] = arith.addi %[[BB]], %[[O]] : index
// CHECK-NEXT:        %[[L:.*]] = vector.load %[[SRC]][%[[OB]]] {alignment = 16 : i64} : memref<196608xf8E4M3FN>, vector<16xf8E4M3FN>
// CHECK-NEXT:        %[[LB:.*]] = arith.bitcast %[[L]] : vector<16xf8E4M3FN> to vector<16xi8>
// CHECK-NEXT:        scf.yield %[[LB]] : vector<16xi8>
// CHECK-NEXT:      } else {
// CHECK-NEXT:        scf.yield %cst : vector<16xi8>
// CHECK-NEXT:      }
// CHECK-COUNT-3:   vector.load %[[SRC]]
// CHECK:           %[[RB:.*]] = arith.divui %[[KK]], %c16 : index
// CHECK-NEXT:      %[[RB8:.*]] = arith.remui %[[RB]], %c8 : index
// CHECK-NEXT:      %[[SL:.*]] = arith.xori %[[CH]], %[[RB8]] : index
// CHECK-NEXT:      %[[SLB:.*]] = arith.muli %[[SL]], %c16 : index
// CHECK-NEXT:      %[[ROW:.*]] = arith.muli %[[KK]], %c128 : index
// CHECK-NEXT:      %[[SO:.*]] = arith.addi %[[ROW]], %[[SLB]] : index
// CHECK-NEXT:      vector.store %[[V]], %[[TILE]][%[[SO]]] {alignment = 16 : i64} : memref<16384xi8, #gpu.address_space<workgroup>>, vector<16xi8>
// CHECK-COUNT-3:   vector.store %{{.*}}, %[[TILE]]
// CHECK-NEXT:      gpu.barrier
// Store: thread (warp W, lane L) writes output rows 4 G .. 4 G + 3 (G =
// 4 W + L / 8) at K chunk Q = L % 8: 16 four-byte shared loads of source
// rows 16 Q + j in shared chunk (G / 4) ^ Q, then per output row its 16
// bytes (byte i of each word) and one 16-byte store.
// CHECK-NEXT:      %[[WP:.*]] = arith.divui %thread_id_x, %c32 : index
// CHECK-NEXT:      %[[LN:.*]] = arith.remui %thread_id_x, %c32 : index
// CHECK-NEXT:      %[[Q:.*]] = arith.remui %[[LN]], %c8 : index
// CHECK-NEXT:      %[[GL:.*]] = arith.divui %[[LN]], %c8 : index
// CHECK-NEXT:      %[[GW:.*]] = arith.muli %[[WP]], %c4 : index
// CHECK-NEXT:      %[[G:.*]] = arith.addi %[[GW]], %[[GL]] : index
// CHECK-NEXT:      %[[GC:.*]] = arith.divui %[[G]], %c4 : index
// CHECK-NEXT:      %[[X:.*]] = arith.xori %[[GC]], %[[Q]] : index
// CHECK-NEXT:      %[[XB:.*]] = arith.muli %[[X]], %c16 : index
// CHECK-NEXT:      %[[GR:.*]] = arith.remui %[[G]], %c4 : index
// CHECK-NEXT:      %[[GB:.*]] = arith.muli %[[GR]], %c4 : index
// CHECK-NEXT:      %[[WO:.*]] = arith.addi %[[XB]], %[[GB]] : index
// CHECK-NEXT:      %[[R0:.*]] = arith.muli %[[Q]], %c2048 : index
// CHECK-NEXT:      %[[A0:.*]] = arith.addi %[[R0]], %[[WO]] : index
// CHECK-NEXT:      %[[W0:.*]] = vector.load %[[TILE]][%[[A0]]] {alignment = 4 : i64} : memref<16384xi8, #gpu.address_space<workgroup>>, vector<4xi8>
// CHECK-COUNT-15:  vector.load %[[TILE]]
// CHECK:           %[[B0:.*]] = vector.extract %[[W0]][0] : i8 from vector<4xi8>
// CHECK-COUNT-15:  vector.extract %{{.*}}[0] : i8 from vector<4xi8>
// CHECK-NEXT:      %[[VEC:.*]] = vector.from_elements %[[B0]], {{.*}} : vector<16xi8>
// CHECK:           scf.if
// CHECK:             %[[OV:.*]] = arith.bitcast %[[VEC]] : vector<16xi8> to vector<16xf8E4M3FN>
// CHECK-NEXT:        vector.store %[[OV]], %[[DST]][%{{.*}}] {alignment = 16 : i64} : memref<196608xf8E4M3FN>, vector<16xf8E4M3FN>
// CHECK:           vector.extract %[[W0]][1] : i8 from vector<4xi8>
// CHECK-COUNT-3:   vector.store %{{.*}}, %[[DST]]
// CHECK:           gpu.barrier
// CHECK:           gpu.return
func.func @dgrad(%g: tensor<256x384xf8E4M3FN>, %gs: tensor<256x1xf32>, %w: tensor<384x512xf8E4M3FN>, %ws: tensor<1x512xf32>) -> tensor<256x512xbf16> {
  %y = mxfp8train.scaled_mm %g [%gs], %w [%ws] {mxfp8train.role = "dgrad"}
      : tensor<256x384xf8E4M3FN> [tensor<256x1xf32>], tensor<384x512xf8E4M3FN> [tensor<1x512xf32>] -> tensor<256x512xbf16>
  return %y : tensor<256x512xbf16>
}

// -----

// wgrad (float8_tensorwise): grad_output stored (T = 512, M = 256) e5m2
// with transpose_lhs, input stored (T, N = 128) e4m3: both operands are
// transposed (their own kernels: the types differ), f32 out.
// CHECK-LABEL: func.func @wgrad(
// CHECK:         %[[TA:.*]] = memref.alloc() : memref<131072xf8E5M2>
// CHECK-NEXT:    %[[TB:.*]] = memref.alloc() : memref<65536xf8E4M3FN>
// CHECK-NEXT:    memref.expand_shape %[[TA]] {{\[\[}}0, 1]] output_shape [256, 512]
// CHECK:         %[[AMAP:.*]] = llvm.call @mgpuTensorMapEncodeTiledMemref
// CHECK:         memref.expand_shape %[[TB]] {{\[\[}}0, 1]] output_shape [128, 512]
// CHECK:         %[[BMAP:.*]] = llvm.call @mgpuTensorMapEncodeTiledMemref
// CHECK:         gpu.launch_func @mxfp8train_kernels::@gemm_f8_transpose_e5m2_b1_k512_r256 blocks in (%c8, %c1, %c1) threads in (%c256, %c1, %c1) args(%{{.*}} : memref<131072xf8E5M2>, %[[TA]] : memref<131072xf8E5M2>)
// CHECK:         gpu.launch_func @mxfp8train_kernels::@gemm_f8_transpose_e4m3_b1_k512_r128 blocks in (%c4, %c1, %c1) threads in (%c256, %c1, %c1) args(%{{.*}} : memref<65536xf8E4M3FN>, %[[TB]] : memref<65536xf8E4M3FN>)
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_mm_k_k_e5m2_e4m3_f32_256x128x512_b1_p1c1_v9w1s6_f8tt_acc128 blocks in (%c2, %c1, %c1) threads in (%c384, %c1, %c1) dynamic_shared_memory_size %c197728_i32 args(%[[AMAP]] : !llvm.ptr, %{{.*}} : memref<f32>, %[[BMAP]] : !llvm.ptr, %{{.*}} : memref<f32>, %{{.*}} : memref<32768xf32>)
// CHECK-LABEL: gpu.func @scaled_mm_k_k_e5m2_e4m3_f32_256x128x512_b1_p1c1_v9w1s6_f8tt_acc128(
// CHECK:           nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 32>, D[<f32>, <one>], A[<e5m2>, <one>, <row>], B[<e4m3>, <one>, <col>]
func.func @wgrad(%g: tensor<512x256xf8E5M2>, %t: tensor<f32>, %x: tensor<512x128xf8E4M3FN>, %u: tensor<f32>) -> tensor<256x128xf32> {
  %y = mxfp8train.scaled_mm %g [%t], %x [%u] transpose_lhs {mxfp8train.role = "wgrad"}
      : tensor<512x256xf8E5M2> [tensor<f32>], tensor<512x128xf8E4M3FN> [tensor<f32>] -> tensor<256x128xf32>
  return %y : tensor<256x128xf32>
}

// -----

// Grouped 2d-2d (fp8_rowwise grad_weight): tokens (T = 512, M = 256) and
// (T, N = 128), four groups. Each transposed buffer has K padded per group
// to 128 (alignTo(512, 128) + 4 x 128 = 1024 per row); the transpose walks
// the groups' clamped ends (max with the start, min with T) to find its
// tile's source rows; a tile past the last group writes nothing. The GEMM
// walks each group's padded range (ceil(len / 128) contraction tiles) and
// reads the scales of group g at g x M + m and g x N + n. Promoted here
// (`use_fast_accum = false`; torchao's grouped GEMMs accumulate fast).
// CHECK-LABEL: func.func @grouped_2d2d(
// CHECK:         %[[TA:.*]] = memref.alloc() : memref<262144xf8E4M3FN>
// CHECK-NEXT:    %[[TB:.*]] = memref.alloc() : memref<131072xf8E4M3FN>
// CHECK-NEXT:    memref.expand_shape %[[TA]] {{\[\[}}0, 1]] output_shape [256, 1024]
// CHECK:         memref.expand_shape %[[TB]] {{\[\[}}0, 1]] output_shape [128, 1024]
// CHECK:         gpu.launch_func @mxfp8train_kernels::@gemm_f8_transpose_e4m3_b1_k512_r256_g4 blocks in (%c16, %c1, %c1) threads in (%c256, %c1, %c1) args(%{{.*}} : memref<131072xf8E4M3FN>, %[[OFFS:.*]] : memref<4xi32>, %[[TA]] : memref<262144xf8E4M3FN>)
// CHECK:         gpu.launch_func @mxfp8train_kernels::@gemm_f8_transpose_e4m3_b1_k512_r128_g4 blocks in (%c8, %c1, %c1) threads in (%c256, %c1, %c1) args(%{{.*}} : memref<65536xf8E4M3FN>, %[[OFFS]] : memref<4xi32>, %[[TB]] : memref<131072xf8E4M3FN>)
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_gmm_2d2d_k_k_e4m3_e4m3_bf16_256x128x512_b4_p1c1_v9w1s4_f8rr_acc128 blocks in (%c8, %c1, %c1) threads in (%c384, %c1, %c1) dynamic_shared_memory_size %c151616_i32 args(%{{.*}} : !llvm.ptr, %{{.*}} : memref<1024xf32>, %{{.*}} : !llvm.ptr, %{{.*}} : memref<512xf32>, %{{.*}} : memref<4xi32>, %{{.*}} : memref<131072xbf16>)

// CHECK-LABEL: gpu.func @gemm_f8_transpose_e4m3_b1_k512_r256_g4(
// CHECK-SAME:      %[[TSRC:.*]]: memref<131072xf8E4M3FN> {{{.*}}}, %[[TOFFS:.*]]: memref<4xi32> {{{.*}}}, %{{.*}}: memref<262144xf8E4M3FN>
// CHECK:           %[[OK:.*]] = arith.muli %{{.*}}, %c128 : index
// CHECK-NEXT:      %[[S:.*]]:6 = scf.for %[[G:.*]] = %c0 to %c4 step %c1 iter_args(%[[ST:.*]] = %c0, %[[PS:.*]] = %c0, %{{.*}} = %false, %{{.*}} = %c0, %{{.*}} = %c0, %{{.*}} = %c0) -> (index, index, i1, index, index, index) {
// CHECK-NEXT:        memref.load %[[TOFFS]]
// CHECK-NEXT:        arith.index_cast
// CHECK-NEXT:        %[[E0:.*]] = arith.maxsi %{{.*}}, %[[ST]] : index
// CHECK-NEXT:        %[[E:.*]] = arith.minsi %[[E0]], %c512 : index
// CHECK:             %[[PEND:.*]] = arith.addi %[[PS]], %{{.*}} : index
// CHECK-NEXT:        %[[LT:.*]] = arith.cmpi ult, %[[OK]], %[[PEND]] : index
// CHECK-NEXT:        %[[GE:.*]] = arith.cmpi ule, %[[PS]], %[[OK]] : index
// CHECK-NEXT:        %[[HIT:.*]] = arith.andi %[[GE]], %[[LT]] : i1
// CHECK:             %[[OFF:.*]] = arith.subi %[[OK]], %[[PS]] : index
// CHECK-NEXT:        %[[SRC0:.*]] = arith.addi %[[ST]], %[[OFF]] : index
// CHECK-NEXT:        arith.select %[[HIT]], %[[SRC0]], %{{.*}} : index
// CHECK-NEXT:        arith.select %[[HIT]], %[[E]], %{{.*}} : index
// CHECK-NEXT:        arith.select %[[HIT]], %[[G]], %{{.*}} : index
// CHECK:           scf.if %[[S]]#2 {
// CHECK:             %[[SROW:.*]] = arith.addi %[[S]]#3, %{{.*}} : index
// CHECK:             arith.cmpi ult, %[[SROW]], %[[S]]#4 : index
// CHECK:             vector.load %[[TSRC]]

// CHECK-LABEL: gpu.func @scaled_gmm_2d2d_k_k_e4m3_e4m3_bf16_256x128x512_b4_p1c1_v9w1s4_f8rr_acc128(
// CHECK-SAME:      %{{.*}}: !llvm.ptr {{{.*}}}, %[[SA:.*]]: memref<1024xf32> {{{.*}}}, %{{.*}}: !llvm.ptr {{{.*}}}, %[[SB:.*]]: memref<512xf32> {{{.*}}}, %[[KOFFS:.*]]: memref<4xi32>
// CHECK:           %[[W:.*]]:3 = scf.for %{{.*}} iter_args(%{{.*}} = %c0, %{{.*}} = %c0, %[[PE:.*]] = %c0) -> (index, index, index) {
// CHECK-NEXT:        memref.load %[[KOFFS]]
// CHECK-NEXT:        arith.index_cast
// CHECK-NEXT:        arith.maxsi
// CHECK-NEXT:        arith.minsi %{{.*}}, %c512 : index
// CHECK-NEXT:        %[[LEN:.*]] = arith.subi
// CHECK-NEXT:        %[[L1:.*]] = arith.addi %[[LEN]], %c127 : index
// CHECK-NEXT:        %[[L2:.*]] = arith.divui %[[L1]], %c128 : index
// CHECK-NEXT:        %[[L3:.*]] = arith.muli %[[L2]], %c128 : index
// CHECK-NEXT:        arith.addi %[[PE]], %[[L3]] : index
// CHECK:           %[[KB:.*]] = arith.divui %[[W]]#1, %c128 : index
// CHECK-NEXT:      %[[KE0:.*]] = arith.addi %[[W]]#2, %c127 : index
// CHECK-NEXT:      %[[KE1:.*]] = arith.divui %[[KE0]], %c128 : index
// CHECK-NEXT:      %[[KE:.*]] = arith.maxui %[[KE1]], %[[KB]] : index
// CHECK-NEXT:      %[[KN:.*]] = arith.subi %[[KE]], %[[KB]] : index
// CHECK-NEXT:      %[[KP0:.*]] = arith.divui %[[KN]], %c2 : index
// CHECK-NEXT:      %[[KP1:.*]] = arith.muli %[[KP0]], %c2 : index
// CHECK-NEXT:      %[[KP:.*]] = arith.addi %[[KB]], %[[KP1]] : index
// CHECK-NEXT:      scf.for %{{.*}} = %[[KB]] to %[[KP]] step %c2
// CHECK:           scf.for %{{.*}} = %[[KP]] to %[[KE]] step %c1
// CHECK:           %[[R:.*]] = arith.minui %{{.*}}, %c255 : index
// CHECK-NEXT:      %[[GB:.*]] = arith.muli %[[G:.*]], %c256 : index
// CHECK-NEXT:      %[[I:.*]] = arith.addi %[[GB]], %[[R]] : index
// CHECK-NEXT:      memref.load %[[SA]][%[[I]]] : memref<1024xf32>
// CHECK:           %[[C:.*]] = arith.minui %{{.*}}, %c127 : index
// CHECK-NEXT:      %[[GN:.*]] = arith.muli %[[G]], %c128 : index
// CHECK-NEXT:      %[[J:.*]] = arith.addi %[[GN]], %[[C]] : index
// CHECK-NEXT:      memref.load %[[SB]][%[[J]]] : memref<512xf32>
func.func @grouped_2d2d(%a: tensor<512x256xf8E4M3FN>, %as: tensor<4x256xf32>, %b: tensor<512x128xf8E4M3FN>, %bs: tensor<4x128xf32>, %offs: tensor<4xi32>) -> tensor<4x256x128xbf16> {
  %y = mxfp8train.scaled_grouped_mm %a [%as], %b [%bs] offs(%offs) transpose_lhs {mxfp8train.use_fast_accum = false}
      : tensor<512x256xf8E4M3FN> [tensor<4x256xf32>], tensor<512x128xf8E4M3FN> [tensor<4x128xf32>], tensor<4xi32> -> tensor<4x256x128xbf16>
  return %y : tensor<4x256x128xbf16>
}

// -----

// The MoE dgrad: scaled_grouped_mm 2d-3d with the experts stored
// (E = 4, K = 512, N = 128) (no transpose_rhs) and scales (E, 1, N): the
// pre-pass transposes each expert into a stacked K-major (E x N, K)
// buffer (4 batches of 128 rows), which the 2d-3d kernel reads through a
// 2-D map (expert e's rows at e x 128), its scales flat (E x N).
// CHECK-LABEL: func.func @grouped_2d3d_mn_rhs(
// CHECK:         %[[T:.*]] = memref.alloc() : memref<262144xf8E4M3FN>
// CHECK-NEXT:    memref.expand_shape %[[T]] {{\[\[}}0, 1]] output_shape [512, 512]
// CHECK:         gpu.launch_func @mxfp8train_kernels::@gemm_f8_transpose_e4m3_b4_k512_r128 blocks in (%c16, %c1, %c1) threads in (%c256, %c1, %c1) args(%{{.*}} : memref<262144xf8E4M3FN>, %[[T]] : memref<262144xf8E4M3FN>)
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_gmm_2d3d_k_k_e4m3_e4m3_bf16_256x128x512_b4_p1c1_v9w1s4_f8rr_acc128 blocks in (%c6, %c1, %c1) threads in (%c384, %c1, %c1) dynamic_shared_memory_size %c151616_i32 args(%{{.*}} : !llvm.ptr, %{{.*}} : memref<256xf32>, %{{.*}} : !llvm.ptr, %{{.*}} : memref<512xf32>, %{{.*}} : memref<4xi32>, %{{.*}} : memref<32768xbf16>)
func.func @grouped_2d3d_mn_rhs(%a: tensor<256x512xf8E4M3FN>, %sa: tensor<256x1xf32>, %b: tensor<4x512x128xf8E4M3FN>, %sb: tensor<4x1x128xf32>, %offs: tensor<4xi32>) -> tensor<256x128xbf16> {
  %r = mxfp8train.scaled_grouped_mm %a [%sa], %b [%sb] offs(%offs) {mxfp8train.role = "dgrad", mxfp8train.use_fast_accum = false} : tensor<256x512xf8E4M3FN> [tensor<256x1xf32>], tensor<4x512x128xf8E4M3FN> [tensor<4x1x128xf32>], tensor<4xi32> -> tensor<256x128xbf16>
  return %r : tensor<256x128xbf16>
}

// -----

// A wgrad dO^T @ x with out_features = 40 (M, rows of the MN-major lhs; a
// multiple of 8, not of 16): source rows of 40 bytes are 8-byte aligned, so
// each 16-byte chunk is two 8-byte loads (zero when out of bounds), the
// second guarded by the row count too (a chunk at operand rows 32..47
// holds 8 rows of the operand), joined by a vector.shuffle.
// The GEMM reads the (40, 64) K-major buffer.
// CHECK-LABEL: func.func @wgrad_rows_40(
// CHECK:         %[[T:.*]] = memref.alloc() : memref<2560xf8E5M2>
// CHECK:         memref.expand_shape %[[T]] {{\[\[}}0, 1]] output_shape [40, 64]
// CHECK:         gpu.launch_func @mxfp8train_kernels::@gemm_f8_transpose_e5m2_b1_k64_r40 blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(%{{.*}} : memref<2560xf8E5M2>, %[[T]] : memref<2560xf8E5M2>)
// CHECK:         gpu.launch_func @mxfp8train_kernels::@gemm_f8_transpose_e4m3_b1_k64_r32
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_mm_k_k_e5m2_e4m3_f32_40x32x64_b1_p1c1_v9w1s6_f8tt_acc128
// CHECK-LABEL: gpu.func @gemm_f8_transpose_e5m2_b1_k64_r40(
// CHECK-SAME:      %[[SRC:.*]]: memref<2560xf8E5M2> {llvm.noalias, llvm.readonly}
// CHECK:           %[[CO:.*]] = arith.muli %{{.*}}, %c16 : index
// CHECK-NEXT:      %[[IN1:.*]] = arith.cmpi ult, %[[CO]], %c40 : index
// CHECK-NEXT:      %[[IN2:.*]] = arith.cmpi ult, %{{.*}}, %c64 : index
// CHECK-NEXT:      %[[IN:.*]] = arith.andi %[[IN2]], %[[IN1]] : i1
// CHECK-NEXT:      %[[P0:.*]] = scf.if %[[IN]] -> (vector<8xi8>) {
// CHECK:             %[[L0:.*]] = vector.load %[[SRC]][%{{.*}}] {alignment = 8 : i64} : memref<2560xf8E5M2>, vector<8xf8E5M2>
// CHECK-NEXT:        %[[B0:.*]] = arith.bitcast %[[L0]] : vector<8xf8E5M2> to vector<8xi8>
// CHECK-NEXT:        scf.yield %[[B0]] : vector<8xi8>
// CHECK-NEXT:      } else {
// CHECK-NEXT:        scf.yield %[[Z:.*]] : vector<8xi8>
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[C8:.*]] = arith.addi %[[CO]], %c8 : index
// CHECK-NEXT:      %[[IN3:.*]] = arith.cmpi ult, %[[C8]], %c40 : index
// CHECK-NEXT:      %[[IN4:.*]] = arith.andi %[[IN]], %[[IN3]] : i1
// CHECK-NEXT:      %[[P1:.*]] = scf.if %[[IN4]] -> (vector<8xi8>) {
// CHECK:             arith.addi %{{.*}}, %[[C8]] : index
// CHECK:             %[[L1:.*]] = vector.load %[[SRC]][%{{.*}}] {alignment = 8 : i64} : memref<2560xf8E5M2>, vector<8xf8E5M2>
// CHECK-NEXT:        %[[B1:.*]] = arith.bitcast %[[L1]] : vector<8xf8E5M2> to vector<8xi8>
// CHECK-NEXT:        scf.yield %[[B1]] : vector<8xi8>
// CHECK-NEXT:      } else {
// CHECK-NEXT:        scf.yield %[[Z]] : vector<8xi8>
// CHECK-NEXT:      }
// CHECK-NEXT:      vector.shuffle %[[P0]], %[[P1]] [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] : vector<8xi8>, vector<8xi8>
// CHECK-NOT:       vector<16xf8E5M2>
// CHECK:           gpu.barrier
func.func @wgrad_rows_40(%g: tensor<64x40xf8E5M2>, %t: tensor<f32>, %x: tensor<64x32xf8E4M3FN>) -> tensor<40x32xf32> {
  %y = mxfp8train.scaled_mm %g [%t], %x [%t] transpose_lhs {mxfp8train.role = "wgrad", mxfp8train.use_fast_accum = false}
      : tensor<64x40xf8E5M2> [tensor<f32>], tensor<64x32xf8E4M3FN> [tensor<f32>] -> tensor<40x32xf32>
  return %y : tensor<40x32xf32>
}

// -----

// Rows odd (45) and a multiple of 4 only (20): single-byte and 4-byte
// pieces.
// CHECK-LABEL: gpu.func @gemm_f8_transpose_e4m3_b1_k64_r45(
// CHECK-COUNT-16:  vector.load %{{.*}} {alignment = 1 : i64} : memref<2880xf8E4M3FN>, vector<1xf8E4M3FN>
// CHECK:           gpu.barrier
// CHECK-LABEL: gpu.func @gemm_f8_transpose_e4m3_b1_k64_r20(
// CHECK-COUNT-4:   vector.load %{{.*}} {alignment = 4 : i64} : memref<1280xf8E4M3FN>, vector<4xf8E4M3FN>
// CHECK-NOT:       vector.load %{{.*}} : memref<1280xf8E4M3FN>, vector<16xf8E4M3FN>
// CHECK:           gpu.barrier
func.func @wgrad_rows_20_45(%a: tensor<64x20xf8E4M3FN>, %b: tensor<64x45xf8E4M3FN>, %t: tensor<f32>, %x: tensor<64x32xf8E4M3FN>) -> (tensor<20x32xf32>, tensor<45x32xf32>) {
  %y0 = mxfp8train.scaled_mm %a [%t], %x [%t] transpose_lhs {mxfp8train.role = "wgrad"}
      : tensor<64x20xf8E4M3FN> [tensor<f32>], tensor<64x32xf8E4M3FN> [tensor<f32>] -> tensor<20x32xf32>
  %y1 = mxfp8train.scaled_mm %b [%t], %x [%t] transpose_lhs {mxfp8train.role = "wgrad"}
      : tensor<64x45xf8E4M3FN> [tensor<f32>], tensor<64x32xf8E4M3FN> [tensor<f32>] -> tensor<45x32xf32>
  return %y0, %y1 : tensor<20x32xf32>, tensor<45x32xf32>
}
