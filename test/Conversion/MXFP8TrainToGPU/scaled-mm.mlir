// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu --canonicalize --split-input-file | FileCheck %s

// scaled_mm / scaled_grouped_mm on sm_90a (Gemm/WGMMAUpcast.cpp): one persistent
// launch of 256 threads per op with dynamic shared memory for three stages
// of 128x64 bf16 A and B tiles (3 x 32 KiB), 64 bytes of rebalancing slots
// and 1 KiB of alignment slack = 99392 bytes; the kernel body converts fp8
// to bf16 with the scales, fences the generic-proxy writes for the async
// proxy, and multiplies with four wgmma m64n128k16 per stage.

// Forward layout (lhs (M, K), rhs (N, K)): 2 x 3 tiles of 128 x 128 -> 6
// CTAs; two CTAs per SM. The K-major ops here ask for v5
// (`#mxfp8train.gemm_config<kernel = fused_upcast>`): their default is v8
// (scaled-mm-v8.mlir).
// CHECK-LABEL: func.func @fwd(
// CHECK-DAG:     %[[C6:.*]] = arith.constant 6 : index
// CHECK-DAG:     %[[C256:.*]] = arith.constant 256 : index
// CHECK-DAG:     %[[SMEM:.*]] = arith.constant 99392 : i32
// CHECK:         %[[OUT:.*]] = memref.alloc() : memref<256x384xbf16>
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_mm_k_k_e4m3_e4m3_bf16_biasbf16_256x384x512_b1_p1c2 blocks in (%[[C6]], %{{.*}}, %{{.*}}) threads in (%[[C256]], %{{.*}}, %{{.*}}) dynamic_shared_memory_size %[[SMEM]] args(%{{.*}} : memref<131072xf8E4M3FN>, %{{.*}} : memref<4096xf8E8M0FNU>, %{{.*}} : memref<196608xf8E4M3FN>, %{{.*}} : memref<6144xf8E8M0FNU>, %{{.*}} : memref<384xbf16>, %{{.*}} : memref<98304xbf16>)
// CHECK:         bufferization.to_tensor %[[OUT]] restrict writable
// CHECK:       gpu.func @scaled_mm_k_k_e4m3_e4m3_bf16_biasbf16_256x384x512_b1_p1c2(
// CHECK-SAME:    kernel attributes {known_block_size = array<i32: 256, 1, 1>, nvvm.maxntid = array<i32: 256, 1, 1>, nvvm.minctasm = 2 : i32}
// CHECK:         gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK:         memref.view {{.*}} to memref<49152xbf16, #gpu.address_space<workgroup>>
// CHECK:         memref.view {{.*}} to memref<3x4xi32, #gpu.address_space<workgroup>>
// CHECK:         scf.for
// CHECK:           vector.load {{.*}} : memref<131072xf8E4M3FN>, vector<16xf8E4M3FN>
// CHECK:           scf.for
// CHECK-COUNT-4:     memref.atomic_rmw maxu
// CHECK:             gpu.barrier
// CHECK:             arith.mulf {{.*}} : vector<16xbf16>
// CHECK:             vector.store {{.*}} : memref<49152xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
// CHECK:             nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT:        gpu.barrier
// CHECK:             nvvm.wgmma.fence.aligned
// CHECK-COUNT-4:     nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK-NEXT:        nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT:        nvvm.wgmma.wait.group.sync.aligned 1
// CHECK:           nvvm.wgmma.wait.group.sync.aligned 0
func.func @fwd(%a: tensor<256x512xf8E4M3FN>, %as: tensor<256x16xf8E8M0FNU>,
               %w: tensor<384x512xf8E4M3FN>, %ws: tensor<384x16xf8E8M0FNU>,
               %bias: tensor<384xbf16>) -> tensor<256x384xbf16> {
  %y = mxfp8train.scaled_mm %a [%as], %w [%ws] bias(%bias) transpose_rhs
      {mxfp8train.gemm_config = #mxfp8train.gemm_config<kernel = fused_upcast>}
      : tensor<256x512xf8E4M3FN> [tensor<256x16xf8E8M0FNU>],
        tensor<384x512xf8E4M3FN> [tensor<384x16xf8E8M0FNU>], tensor<384xbf16> -> tensor<256x384xbf16>
  return %y : tensor<256x384xbf16>
}

// -----

// wgrad-style operands (lhs stored (K, M), rhs stored (K, N): both MN-major)
// with blocked scales, f32 result: one CTA per SM; 2 x 1 tiles.
// CHECK-LABEL: func.func @mn_major_blocked(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_mm_mnb_mnb_e4m3_e4m3_f32_200x96x64_b1_p1c1 blocks in (%c2, %c1, %c1)
// CHECK:       gpu.func @scaled_mm_mnb_mnb_e4m3_e4m3_f32_200x96x64_b1_p1c1(
// CHECK-SAME:    nvvm.minctasm = 1 : i32
func.func @mn_major_blocked(%a: tensor<64x200xf8E4M3FN>, %as: tensor<1024xf8E8M0FNU>,
                            %b: tensor<64x96xf8E4M3FN>, %bs: tensor<512xf8E8M0FNU>)
    -> tensor<200x96xf32> {
  %y = mxfp8train.scaled_mm %a [%as], %b [%bs] transpose_lhs
      lhs_layout = blocked rhs_layout = blocked
      {mxfp8train.gemm_config = #mxfp8train.gemm_config<kernel = fused_upcast>}
      : tensor<64x200xf8E4M3FN> [tensor<1024xf8E8M0FNU>],
        tensor<64x96xf8E4M3FN> [tensor<512xf8E8M0FNU>] -> tensor<200x96xf32>
  return %y : tensor<200x96xf32>
}

// -----

// Rank 3: the batch is part of the tile index (3 x 2 x 1 tiles).
// CHECK-LABEL: func.func @batched(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_mm_k_mn_e4m3_e4m3_bf16_129x96x256_b3_p1c1 blocks in (%c6, %c1, %c1)
func.func @batched(%a: tensor<3x129x256xf8E4M3FN>, %as: tensor<3x129x8xf8E8M0FNU>,
                   %b: tensor<3x256x96xf8E4M3FN>, %bs: tensor<3x8x96xf8E8M0FNU>)
    -> tensor<3x129x96xbf16> {
  %y = mxfp8train.scaled_mm %a [%as], %b [%bs]
      {mxfp8train.gemm_config = #mxfp8train.gemm_config<kernel = fused_upcast>}
      : tensor<3x129x256xf8E4M3FN> [tensor<3x129x8xf8E8M0FNU>],
        tensor<3x256x96xf8E4M3FN> [tensor<3x8x96xf8E8M0FNU>] -> tensor<3x129x96xbf16>
  return %y : tensor<3x129x96xbf16>
}

// -----

// 2d-3d: the tile loop walks the groups of `offs` (an upper bound of
// (ceil(1024 / 128) + 8) x 3 = 48 tiles), then the rows past the last group
// are zero-filled.
// CHECK-LABEL: func.func @grouped_2d3d(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_gmm_2d3d_k_k_e4m3_e4m3_bf16_1024x384x512_b8_p1c2 blocks in (%c48, %c1, %c1) threads in (%c256, %c1, %c1) dynamic_shared_memory_size %c99392_i32 args({{.*}} : memref<8xi32>, {{.*}} : memref<393216xbf16>)
// CHECK:       gpu.func @scaled_gmm_2d3d_k_k_e4m3_e4m3_bf16_1024x384x512_b8_p1c2(
// CHECK:         scf.for
// CHECK:           memref.load %{{.*}} : memref<8xi32>
// CHECK:           arith.maxsi
// CHECK:           arith.minsi
// CHECK:           scf.if
// CHECK:             nvvm.wgmma.mma_async
// CHECK:         memref.store %{{.*}} : memref<393216xbf16>
func.func @grouped_2d3d(%a: tensor<1024x512xf8E4M3FN>, %as: tensor<1024x16xf8E8M0FNU>,
                        %w: tensor<8x384x512xf8E4M3FN>, %ws: tensor<8x384x16xf8E8M0FNU>,
                        %offs: tensor<8xi32>) -> tensor<1024x384xbf16> {
  %y = mxfp8train.scaled_grouped_mm %a [%as], %w [%ws] offs(%offs) transpose_rhs
      {mxfp8train.gemm_config = #mxfp8train.gemm_config<kernel = fused_upcast>}
      : tensor<1024x512xf8E4M3FN> [tensor<1024x16xf8E8M0FNU>],
        tensor<8x384x512xf8E4M3FN> [tensor<8x384x16xf8E8M0FNU>], tensor<8xi32>
        -> tensor<1024x384xbf16>
  return %y : tensor<1024x384xbf16>
}

// -----

// 2d-2d (wgrad): per group the full (N, K) output over the group's tokens;
// 4 groups x 2 x 3 tiles.
// CHECK-LABEL: func.func @grouped_2d2d(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_gmm_2d2d_k_k_e4m3_e4m3_f32_256x384x1024_b4_p1c2 blocks in (%c24, %c1, %c1)
func.func @grouped_2d2d(%dot: tensor<256x1024xf8E4M3FN>, %ds: tensor<256x32xf8E8M0FNU>,
                        %xt: tensor<384x1024xf8E4M3FN>, %xs: tensor<384x32xf8E8M0FNU>,
                        %offs: tensor<4xi32>) -> tensor<4x256x384xf32> {
  %y = mxfp8train.scaled_grouped_mm %dot [%ds], %xt [%xs] offs(%offs) transpose_rhs
      {mxfp8train.gemm_config = #mxfp8train.gemm_config<kernel = fused_upcast>}
      : tensor<256x1024xf8E4M3FN> [tensor<256x32xf8E8M0FNU>],
        tensor<384x1024xf8E4M3FN> [tensor<384x32xf8E8M0FNU>], tensor<4xi32>
        -> tensor<4x256x384xf32>
  return %y : tensor<4x256x384xf32>
}

// -----

// The warp-specialised fused upcast (v7, `kernel = fused_upcast_ws`; the
// roles and the ring of GemmMainloop, its converter in scaled-mm-v7.mlir):
// 512 threads (MMA warpgroups first, then the converters), one CTA per SM,
// dynamic shared memory for four stages (4 x 32 KiB), eight mbarriers (64
// bytes), the converters' rebalancing slots (2 x 8 warps x 16 bytes) and
// 1 KiB of alignment slack = 132416 bytes.
// CHECK-LABEL: func.func @fwd_ring(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_mm_k_k_e4m3_e4m3_bf16_256x384x512_b1_p2c1_v7w2s4 blocks in (%c6, %c1, %c1) threads in (%c512, %c1, %c1) dynamic_shared_memory_size %c132416_i32
// CHECK:       gpu.func @scaled_mm_k_k_e4m3_e4m3_bf16_256x384x512_b1_p2c1_v7w2s4(
// CHECK-SAME:    kernel attributes {known_block_size = array<i32: 512, 1, 1>, nvvm.maxntid = array<i32: 512, 1, 1>, nvvm.minctasm = 1 : i32}
// CHECK:         memref.view {{.*}} to memref<2x8x4xi32, #gpu.address_space<workgroup>>
// CHECK-COUNT-8: nvvm.mbarrier.init {{.*}}, %c256_i32 : !llvm.ptr<3>, i32
// CHECK:         gpu.barrier
// CHECK:         memref.alloca() : memref<1xindex>
// CHECK:         scf.if
// The MMA warpgroups: wait full[s], four wgmma, keep one stage in flight,
// release the previous stage, epilogue.
// CHECK:           scf.for
// CHECK:             nvvm.mbarrier.try_wait.parity
// CHECK:             nvvm.wgmma.fence.aligned
// CHECK-COUNT-4:     nvvm.wgmma.mma_async
// CHECK-NEXT:        nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT:        nvvm.wgmma.wait.group.sync.aligned 1
// CHECK:             nvvm.mbarrier.arrive
// CHECK:           nvvm.wgmma.wait.group.sync.aligned 0
// CHECK:           nvvm.mbarrier.arrive
// CHECK:           vector.store {{.*}} : memref<98304xbf16>, vector<2xbf16>
// The converters: loads ahead, the named barrier of the rebalancing, wait
// empty[s], convert, fence, arrive full[s]; no CTA barrier.
// CHECK:         } else {
// CHECK-NOT:       gpu.barrier
// CHECK:           vector.load {{.*}} : memref<131072xf8E4M3FN>, vector<16xf8E4M3FN>
// CHECK:           scf.for
// CHECK:             nvvm.barrier id = %c1_i32 number_of_threads = %c256_i32
// CHECK:             nvvm.mbarrier.try_wait.parity
// CHECK:             arith.mulf {{.*}} : vector<16xbf16>
// CHECK:             vector.store {{.*}} : memref<65536xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
// CHECK:             nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK:             nvvm.mbarrier.arrive
func.func @fwd_ring(%a: tensor<256x512xf8E4M3FN>, %as: tensor<256x16xf8E8M0FNU>,
                  %w: tensor<384x512xf8E4M3FN>, %ws: tensor<384x16xf8E8M0FNU>)
    -> tensor<256x384xbf16> {
  %y = mxfp8train.scaled_mm %a [%as], %w [%ws] transpose_rhs
      {mxfp8train.gemm_config = #mxfp8train.gemm_config<kernel = fused_upcast_ws>}
      : tensor<256x512xf8E4M3FN> [tensor<256x16xf8E8M0FNU>],
        tensor<384x512xf8E4M3FN> [tensor<384x16xf8E8M0FNU>] -> tensor<256x384xbf16>
  return %y : tensor<256x384xbf16>
}

// -----

// The fused-upcast fields of #mxfp8train.gemm_config: two contraction tiles
// loaded ahead, one CTA per SM (.minnctapersm 1) instead of two.
// CHECK-LABEL: func.func @fwd_configured(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_mm_k_k_e4m3_e4m3_bf16_256x384x512_b1_p2c1 blocks in (%c6, %c1, %c1) threads in (%c256, %c1, %c1) dynamic_shared_memory_size %c99392_i32
// CHECK:       gpu.func @scaled_mm_k_k_e4m3_e4m3_bf16_256x384x512_b1_p2c1(
// CHECK-SAME:    nvvm.minctasm = 1 : i32
func.func @fwd_configured(%a: tensor<256x512xf8E4M3FN>, %as: tensor<256x16xf8E8M0FNU>,
                          %w: tensor<384x512xf8E4M3FN>, %ws: tensor<384x16xf8E8M0FNU>)
    -> tensor<256x384xbf16> {
  %y = mxfp8train.scaled_mm %a [%as], %w [%ws] transpose_rhs
      {mxfp8train.gemm_config = #mxfp8train.gemm_config<kernel = fused_upcast, prefetch = 2, ctas_per_sm = 1>}
      : tensor<256x512xf8E4M3FN> [tensor<256x16xf8E8M0FNU>],
        tensor<384x512xf8E4M3FN> [tensor<384x16xf8E8M0FNU>] -> tensor<256x384xbf16>
  return %y : tensor<256x384xbf16>
}
