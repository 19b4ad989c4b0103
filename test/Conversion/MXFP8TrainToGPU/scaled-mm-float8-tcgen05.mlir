// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu="chip=sm_100a" --canonicalize --split-input-file | FileCheck %s

// Float8 scaled_mm / scaled_grouped_mm on sm_100a (Gemm/TCGen05.cpp with
// GemmSpec::tcgen05Float8): the MX tcgen05 kernel (TMA producer, stage
// ring, MMA issuer, TMEM accumulator, epilogue warps) with
// `tcgen05.mma ... kind::f8f6f4` and no scale factors: no scale chunks in
// the stages (48 KiB of A + B rows per stage: 4 stages, 197728 bytes, and
// with a rowwise scale 1.5 KiB of the tile's scale reciprocals: 199264), no
// tcgen05.cp, 256 TMEM columns (the accumulator only), and an epilogue
// that multiplies each tcgen05.ld value by RN_f32(1/sa[m]) then by
// RN_f32(1/sb[n]) (SPEC-float8 §5.4) before storeOutput's bias and
// rounding. The epilogue warps compute the tile's reciprocals once, into
// shared memory, while the tile's MMAs run. The f32 scales reach the kernel as they are (flat, or 0-d).

// Instruction descriptor of kind::f8f6f4 (f32 D at bits 4-5, A / B format
// at 7-9 / 10-12, A / B MN-major at 15 / 16, N >> 3 at 17, M >> 4 at 24):
//   138412048 = 0x08400010: D f32, e4m3 x e4m3, K-major x K-major, N 256, M 128

// CHECK-LABEL: func.func @rowwise(
// CHECK-NOT:     mxfp8train.to_blocked
// CHECK:         %[[AMAP:.*]] = llvm.call @mgpuTensorMapEncodeTiledMemref(
// CHECK:         %[[BMAP:.*]] = llvm.call @mgpuTensorMapEncodeTiledMemref(
// CHECK:         %[[SA:.*]] = memref.collapse_shape %{{.*}} {{\[\[}}0, 1]] : memref<256x1xf32> into memref<256xf32>
// CHECK:         %[[SB:.*]] = memref.collapse_shape %{{.*}} {{\[\[}}0, 1]] : memref<384x1xf32> into memref<384xf32>
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_mm_tc05_k_k_e4m3_e4m3_bf16_biasbf16_256x384x512_f8rr_s4 blocks in (%c4, %c1, %c1) threads in (%c256, %c1, %c1) dynamic_shared_memory_size %c199264_i32 args(%[[AMAP]] : !llvm.ptr, %[[SA]] : memref<256xf32>, %[[BMAP]] : !llvm.ptr, %[[SB]] : memref<384xf32>, %{{.*}} : memref<384xbf16>, %{{.*}} : memref<98304xbf16>)

// CHECK-LABEL: gpu.func @scaled_mm_tc05_k_k_e4m3_e4m3_bf16_biasbf16_256x384x512_f8rr_s4(
// CHECK-SAME:      %{{.*}}: !llvm.ptr {{{.*}}}, %[[KSA:.*]]: memref<256xf32> {{{.*}}}, %{{.*}}: !llvm.ptr {{{.*}}}, %[[KSB:.*]]: memref<384xf32> {{{.*}}}
// CHECK-NOT:       nvvm.tcgen05.cp
// CHECK:           nvvm.tcgen05.alloc %{{.*}}, %c256_i32
// The producer: the two boxes only (A 16 KiB, B 32 KiB), no scale copies.
// CHECK:           nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c49152_i32
// CHECK-NEXT:      arith.muli
// CHECK:           nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK:           nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK-NOT:       nvvm.cp.async.bulk.shared.cluster.global
// The MMA issuer: four K = 32 MMAs per stage, descriptors 32 bytes (+2)
// apart along the K-major rows, the first of a tile without input D.
// CHECK:           %[[DA:.*]] = arith.ori %{{.*}}, %c4611756662049538048_i64 : i64
// CHECK:           %[[DB:.*]] = arith.ori %{{.*}}, %c4611756662049538048_i64 : i64
// CHECK-NEXT:      %[[FIRST:.*]] = arith.cmpi ne, %{{.*}}, %c0 : index
// CHECK-NEXT:      nvvm.tcgen05.mma %[[ACC:.*]], %[[DA]], %[[DB]], %c138412048_i32, %[[FIRST]] {ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.tcgen05_mma_kind<f8f6f4>}
// CHECK-NEXT:      %[[A1:.*]] = arith.addi %[[DA]], %c2_i64 : i64
// CHECK-NEXT:      %[[B1:.*]] = arith.addi %[[DB]], %c2_i64 : i64
// CHECK-NEXT:      nvvm.tcgen05.mma %[[ACC]], %[[A1]], %[[B1]], %c138412048_i32, %true {{.*}}kind = #nvvm.tcgen05_mma_kind<f8f6f4>
// CHECK:           nvvm.tcgen05.mma %[[ACC]], %{{.*}}, %{{.*}}, %c138412048_i32, %true
// CHECK:           nvvm.tcgen05.mma %[[ACC]], %{{.*}}, %{{.*}}, %c138412048_i32, %true
// CHECK-NOT:       nvvm.tcgen05.mma
// CHECK:           nvvm.tcgen05.commit
// The epilogue warps (threads 128-255) stage the tile's reciprocals before
// waiting for its accumulator, between two named barriers of their 128
// threads: one row factor (rows clamped to m - 1 = 255) and two column
// factors (clamped to n - 1 = 383) per thread, at 196704 + 512 after the
// rows. Then per thread its row's factor once and per value the column's,
// each a shared load, and (acc * ia) * ib.
// CHECK:           nvvm.barrier id = %[[C1:.*]] number_of_threads = %[[C128:.*]]
// CHECK-NEXT:      arith.addi %{{.*}}, %c197216 : index
// CHECK:           arith.minui %{{.*}}, %c255 : index
// CHECK-NEXT:      %[[RA:.*]] = memref.load %[[KSA]][%{{.*}}] : memref<256xf32>
// CHECK-NEXT:      %[[IA:.*]] = arith.divf %[[ONE:.*]], %[[RA]] : f32
// CHECK:           llvm.store %[[IA]], %{{.*}} : f32, !llvm.ptr<3>
// CHECK-COUNT-2:   memref.load %[[KSB]][%{{.*}}] : memref<384xf32>
// CHECK:           nvvm.barrier id = %[[C1]] number_of_threads = %[[C128]]
// CHECK-NOT:       arith.divf
// CHECK:           nvvm.mbarrier.try_wait.parity
// CHECK-NOT:       arith.divf
// CHECK:           %[[SIA:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
// CHECK:           nvvm.tcgen05.ld
// CHECK-NEXT:      nvvm.tcgen05.wait <load>
// CHECK-NEXT:      %[[F:.*]] = arith.bitcast %{{.*}} : vector<32xi32> to vector<32xf32>
// CHECK-NEXT:      %[[V0:.*]] = vector.extract %[[F]][0] : f32 from vector<32xf32>
// CHECK-NOT:       arith.divf
// CHECK:           %[[IB:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[V0]], %[[SIA]] : f32
// CHECK-NEXT:      %{{.*}} = arith.mulf %[[P]], %[[IB]] : f32
func.func @rowwise(%a: tensor<256x512xf8E4M3FN>, %as: tensor<256x1xf32>,
                   %w: tensor<384x512xf8E4M3FN>, %ws: tensor<384x1xf32>,
                   %bias: tensor<384xbf16>) -> tensor<256x384xbf16> {
  %y = mxfp8train.scaled_mm %a [%as], %w [%ws] bias(%bias) transpose_rhs
      : tensor<256x512xf8E4M3FN> [tensor<256x1xf32>],
        tensor<384x512xf8E4M3FN> [tensor<384x1xf32>], tensor<384xbf16> -> tensor<256x384xbf16>
  return %y : tensor<256x384xbf16>
}

// -----

// The tensorwise recipe's grad_input: e5m2 grad_output x e4m3 weight stored
// (K, N) (no transpose_rhs: B MN-major, which kind::f8f6f4 reads for 8-bit
// formats), tensorwise scales (0-d buffers, one reciprocal each per tile),
// f32 out. B's MN-major boxes: one per 128 columns, the K = 32 steps 32
// rows (4096 bytes, +256) apart.
//   138477712 = 0x08410090: D f32, A e5m2 (1 << 7), B MN-major (1 << 16), N 256, M 128
// CHECK-LABEL: func.func @tensorwise_dgrad(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_mm_tc05_k_mn_e5m2_e4m3_f32_200x304x96_f8tt_s4 {{.*}} args(%{{.*}} : !llvm.ptr, %{{.*}} : memref<f32>, %{{.*}} : !llvm.ptr, %{{.*}} : memref<f32>, %{{.*}} : memref<60800xf32>)
// CHECK-LABEL: gpu.func @scaled_mm_tc05_k_mn_e5m2_e4m3_f32_200x304x96_f8tt_s4(
// CHECK-SAME:      %{{.*}}: !llvm.ptr {{{.*}}}, %[[KSA:.*]]: memref<f32> {{{.*}}}, %{{.*}}: !llvm.ptr {{{.*}}}, %[[KSB:.*]]: memref<f32> {{{.*}}}
// CHECK-NOT:       nvvm.tcgen05.cp
// CHECK:           nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c49152_i32
// CHECK-COUNT-3:   nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK:           nvvm.tcgen05.mma %{{.*}}, %{{.*}}, %{{.*}}, %c138477712_i32, %{{.*}} {{.*}}kind = #nvvm.tcgen05_mma_kind<f8f6f4>
// CHECK:           arith.addi %{{.*}}, %c256_i64 : i64
// CHECK:           nvvm.tcgen05.mma %{{.*}}, %{{.*}}, %{{.*}}, %c138477712_i32, %true
// CHECK:           %[[TA:.*]] = memref.load %[[KSA]][] : memref<f32>
// CHECK-NEXT:      %[[IA:.*]] = arith.divf %[[ONE:.*]], %[[TA]] : f32
// CHECK-NEXT:      %[[TB:.*]] = memref.load %[[KSB]][] : memref<f32>
// CHECK-NEXT:      %[[IB:.*]] = arith.divf %[[ONE]], %[[TB]] : f32
// CHECK:           nvvm.tcgen05.ld
// CHECK:           %[[P:.*]] = arith.mulf %{{.*}}, %[[IA]] : f32
// CHECK-NEXT:      arith.mulf %[[P]], %[[IB]] : f32
// CHECK-NOT:       memref.load %[[KSB]]
// CHECK:           gpu.return
func.func @tensorwise_dgrad(%g: tensor<200x96xf8E5M2>, %t: tensor<f32>, %w: tensor<96x304xf8E4M3FN>, %tw: tensor<f32>) -> tensor<200x304xf32> {
  %y = mxfp8train.scaled_mm %g [%t], %w [%tw]
      : tensor<200x96xf8E5M2> [tensor<f32>], tensor<96x304xf8E4M3FN> [tensor<f32>] -> tensor<200x304xf32>
  return %y : tensor<200x304xf32>
}

// -----

// The wgrad form: lhs stored (K, M) with transpose_lhs (A MN-major).
//   138444816 = 0x08408010: D f32, e4m3 x e4m3, A MN-major (1 << 15), N 256, M 128
// CHECK-LABEL: gpu.func @scaled_mm_tc05_mn_k_e4m3_e4m3_bf16_128x32x64_f8rr_s4(
// CHECK:           nvvm.tcgen05.mma %{{.*}}, %{{.*}}, %{{.*}}, %c138444816_i32, %{{.*}} {{.*}}kind = #nvvm.tcgen05_mma_kind<f8f6f4>
func.func @wgrad(%x: tensor<64x128xf8E4M3FN>, %xs: tensor<1x128xf32>, %w: tensor<32x64xf8E4M3FN>, %ws: tensor<32x1xf32>) -> tensor<128x32xbf16> {
  %y = mxfp8train.scaled_mm %x [%xs], %w [%ws] transpose_lhs transpose_rhs
      : tensor<64x128xf8E4M3FN> [tensor<1x128xf32>], tensor<32x64xf8E4M3FN> [tensor<32x1xf32>] -> tensor<128x32xbf16>
  return %y : tensor<128x32xbf16>
}

// -----

// The 2-CTA kernel (gemm_config cta_group = 2): M = 256 per MMA, the
// leader's cta_group::2 MMAs; each CTA's stage is its 128 rows of A and B
// (32 KiB; the leader expects both CTAs' 65536 bytes), six stages.
//   272629776 = 0x10400010: D f32, e4m3 x e4m3, K-major, N 256, M 256
// CHECK-LABEL: func.func @pair(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_mm_tc05_k_k_e4m3_e4m3_bf16_512x512x256_f8rt_s6_cg2 clusters in
// CHECK-LABEL: gpu.func @scaled_mm_tc05_k_k_e4m3_e4m3_bf16_512x512x256_f8rt_s6_cg2(
// CHECK-NOT:       nvvm.tcgen05.cp
// CHECK:           nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c65536_i32
// CHECK:           nvvm.tcgen05.mma %{{.*}}, %{{.*}}, %{{.*}}, %c272629776_i32, %{{.*}} {ctaGroup = #nvvm.cta_group<cta_2>, kind = #nvvm.tcgen05_mma_kind<f8f6f4>}
func.func @pair(%a: tensor<512x256xf8E4M3FN>, %as: tensor<512x1xf32>,
                %w: tensor<512x256xf8E4M3FN>, %ws: tensor<f32>) -> tensor<512x512xbf16> {
  %y = mxfp8train.scaled_mm %a [%as], %w [%ws] transpose_rhs
      {mxfp8train.gemm_config = #mxfp8train.gemm_config<cta_group = 2>}
      : tensor<512x256xf8E4M3FN> [tensor<512x1xf32>],
        tensor<512x256xf8E4M3FN> [tensor<f32>] -> tensor<512x512xbf16>
  return %y : tensor<512x512xbf16>
}

// -----

// Grouped 2d-3d (the MoE forward): tokens (M, K) in groups, experts stored
// (E, N, K) through a 3-D map, rowwise scales (M, 1) and (E, N, 1) flat:
// expert e's column scales from e * N.
// CHECK-LABEL: func.func @grouped_2d3d(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_gmm_2d3d_tc05_k_k_e4m3_e4m3_bf16_40x32x64_b4_f8rr_s4 {{.*}} args(%{{.*}} : !llvm.ptr, %{{.*}} : memref<40xf32>, %{{.*}} : !llvm.ptr, %{{.*}} : memref<128xf32>, %{{.*}} : memref<4xi32>, %{{.*}} : memref<1280xbf16>)
// CHECK-LABEL: gpu.func @scaled_gmm_2d3d_tc05_k_k_e4m3_e4m3_bf16_40x32x64_b4_f8rr_s4(
// CHECK-SAME:      %[[KSB:[^:]*]]: memref<128xf32>
// CHECK:           nvvm.tcgen05.mma %{{.*}}, %{{.*}}, %{{.*}}, %c138412048_i32, %{{.*}} {{.*}}kind = #nvvm.tcgen05_mma_kind<f8f6f4>
// CHECK:           nvvm.barrier id
// CHECK:           %[[COL:.*]] = arith.minui %{{.*}}, %c31 : index
// CHECK-NEXT:      %[[BASE:.*]] = arith.muli %[[E:.*]], %c32 : index
// CHECK-NEXT:      %[[IDX:.*]] = arith.addi %[[BASE]], %[[COL]] : index
// CHECK-NEXT:      memref.load %[[KSB]][%[[IDX]]] : memref<128xf32>
// CHECK:           nvvm.barrier id
// CHECK:           nvvm.tcgen05.ld
func.func @grouped_2d3d(%a: tensor<40x64xf8E4M3FN>, %as: tensor<40x1xf32>, %w: tensor<4x32x64xf8E4M3FN>, %ws: tensor<4x32x1xf32>, %offs: tensor<4xi32>) -> tensor<40x32xbf16> {
  %out = mxfp8train.scaled_grouped_mm %a [%as], %w [%ws] offs(%offs) transpose_rhs
      : tensor<40x64xf8E4M3FN> [tensor<40x1xf32>], tensor<4x32x64xf8E4M3FN> [tensor<4x32x1xf32>], tensor<4xi32> -> tensor<40x32xbf16>
  return %out : tensor<40x32xbf16>
}

// -----

// 2d-2d (the fp8_rowwise grad_weight: tokens stored (T, M) with
// transpose_lhs and (T, N), scales (E, M) / (E, N)): both operands go
// through the fp8 transpose pre-pass with each token group padded to 128
// (output K = alignTo(48, 128) + 128 x 4 = 640), and the kernel reads the
// K-major buffers (`k_k`) over each group's padded range; the epilogue's
// row scale is group g's (g x 32 + m), an empty group stores zeros.
// CHECK-LABEL: func.func @grouped_2d2d(
// CHECK:         %[[TA:.*]] = memref.alloc() : memref<20480xf8E4M3FN>
// CHECK:         gpu.launch_func @mxfp8train_kernels::@gemm_f8_transpose_e4m3_b1_k48_r32_g4 {{.*}} args(%{{.*}} : memref<1536xf8E4M3FN>, %[[OFFS:.*]] : memref<4xi32>, %[[TA]] : memref<20480xf8E4M3FN>)
// CHECK:         %[[VA:.*]] = memref.expand_shape %[[TA]] {{\[\[}}0, 1]] output_shape [32, 640]
// CHECK:         %[[TB:.*]] = memref.alloc() : memref<40960xf8E4M3FN>
// CHECK:         gpu.launch_func @mxfp8train_kernels::@gemm_f8_transpose_e4m3_b1_k48_r64_g4 {{.*}} args(%{{.*}} : memref<3072xf8E4M3FN>, %{{.*}} : memref<4xi32>, %[[TB]] : memref<40960xf8E4M3FN>)
// CHECK:         memref.expand_shape %[[TB]] {{\[\[}}0, 1]] output_shape [64, 640]
// CHECK:         memref.extract_aligned_pointer_as_index %[[VA]] : memref<32x640xf8E4M3FN>
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_gmm_2d2d_tc05_k_k_e4m3_e4m3_bf16_32x64x48_b4_f8rr_s4 blocks in (%c4, %c1, %c1) {{.*}} args(%{{.*}} : !llvm.ptr, %{{.*}} : memref<128xf32>, %{{.*}} : !llvm.ptr, %{{.*}} : memref<256xf32>, %{{.*}} : memref<4xi32>, %{{.*}} : memref<8192xbf16>)

// CHECK-LABEL: gpu.func @scaled_gmm_2d2d_tc05_k_k_e4m3_e4m3_bf16_32x64x48_b4_f8rr_s4(
// CHECK-SAME:      %{{.*}}: !llvm.ptr {{{.*}}}, %[[KSA:.*]]: memref<128xf32> {{{.*}}}, %{{.*}}: !llvm.ptr {{{.*}}}, %[[KSB:.*]]: memref<256xf32> {{{.*}}}
// CHECK:           %[[ZEROS:.*]] = arith.constant dense<0.000000e+00> : vector<32xf32>
// CHECK-NOT:       nvvm.tcgen05.cp
// CHECK:           nvvm.tcgen05.mma %{{.*}}, %{{.*}}, %{{.*}}, %c138412048_i32, %{{.*}} {{.*}}kind = #nvvm.tcgen05_mma_kind<f8f6f4>
// CHECK-COUNT-3:   nvvm.tcgen05.mma %{{.*}}, %{{.*}}, %{{.*}}, %c138412048_i32, %true
// CHECK-NOT:       nvvm.tcgen05.mma
// CHECK:           nvvm.barrier id
// CHECK:           %[[R:.*]] = arith.minui %{{.*}}, %c31 : index
// CHECK-NEXT:      %[[GA:.*]] = arith.muli %[[G:.*]], %c32 : index
// CHECK-NEXT:      %[[IA:.*]] = arith.addi %[[GA]], %[[R]] : index
// CHECK-NEXT:      memref.load %[[KSA]][%[[IA]]] : memref<128xf32>
// CHECK:           arith.muli %[[G]], %c64 : index
// CHECK:           memref.load %[[KSB]]
// CHECK:           nvvm.barrier id
// CHECK:           %[[EMPTY:.*]] = arith.cmpi uge, %{{.*}}#1, %{{.*}}#2 : index
// CHECK:           nvvm.tcgen05.ld
// CHECK:           arith.select %[[EMPTY]], %[[ZEROS]], %{{.*}} : vector<32xf32>
// CHECK-NOT:       nvvm.tcgen05.cp
// CHECK:           gpu.return
func.func @grouped_2d2d(%go: tensor<48x32xf8E4M3FN>, %gos: tensor<4x32xf32>, %x: tensor<48x64xf8E4M3FN>, %xs: tensor<4x64xf32>, %offs: tensor<4xi32>) -> tensor<4x32x64xbf16> {
  %dw = mxfp8train.scaled_grouped_mm %go [%gos], %x [%xs] offs(%offs) transpose_lhs
      : tensor<48x32xf8E4M3FN> [tensor<4x32xf32>], tensor<48x64xf8E4M3FN> [tensor<4x64xf32>], tensor<4xi32> -> tensor<4x32x64xbf16>
  return %dw : tensor<4x32x64xbf16>
}

// -----

// A batched wgrad whose MN-major lhs has rows of 20 bytes (M = 20, not
// 16-byte aligned for TMA; torch._scaled_mm leaves M free): the lhs goes
// through the fp8 transpose pre-pass (4-byte pieces) into a (2, 20, 64)
// K-major buffer, read through a 3-D map like a K-major batched operand;
// the rhs (rows of 32 bytes) is read MN-major in place (`k_mn`).
// CHECK-LABEL: func.func @wgrad_rows_20_batched(
// CHECK:         %[[T:.*]] = memref.alloc() : memref<2560xf8E5M2>
// CHECK:         gpu.launch_func @mxfp8train_kernels::@gemm_f8_transpose_e5m2_b2_k64_r20 blocks in (%c2, %c1, %c1) threads in (%c256, %c1, %c1) args(%{{.*}} : memref<2560xf8E5M2>, %[[T]] : memref<2560xf8E5M2>)
// CHECK-NEXT:    %[[V:.*]] = memref.expand_shape %[[T]] {{\[\[}}0, 1, 2]] output_shape [2, 20, 64]
// CHECK-NOT:     gemm_f8_transpose
// CHECK:         memref.extract_aligned_pointer_as_index %[[V]] : memref<2x20x64xf8E5M2>
// CHECK-NOT:     gemm_f8_transpose
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_mm_tc05_k_mn_e5m2_e4m3_f32_20x32x64_b2_f8tt_s4 blocks in (%c2, %c1, %c1)
// CHECK-LABEL: gpu.func @gemm_f8_transpose_e5m2_b2_k64_r20(
// CHECK-COUNT-4:   vector.load %{{.*}} {alignment = 4 : i64} : memref<2560xf8E5M2>, vector<4xf8E5M2>
func.func @wgrad_rows_20_batched(%g: tensor<2x64x20xf8E5M2>, %t: tensor<f32>, %x: tensor<2x64x32xf8E4M3FN>) -> tensor<2x20x32xf32> {
  %y = mxfp8train.scaled_mm %g [%t], %x [%t] transpose_lhs {mxfp8train.role = "wgrad", mxfp8train.use_fast_accum = false}
      : tensor<2x64x20xf8E5M2> [tensor<f32>], tensor<2x64x32xf8E4M3FN> [tensor<f32>] -> tensor<2x20x32xf32>
  return %y : tensor<2x20x32xf32>
}
