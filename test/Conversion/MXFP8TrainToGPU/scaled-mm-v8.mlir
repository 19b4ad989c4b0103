// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu --canonicalize --split-input-file | FileCheck %s

// v8, the default for scaled_mm and 2d-3d (Gemm/WGMMA.cpp,
// Gemm/DequantPrepass.cpp): each operand is dequantized by a pre-pass
// kernel into a zero-padded K-major bf16 buffer (rows to the tile, K to
// 64), then a warp-specialised bf16 GEMM (2 MMA warpgroups + 1 TMA producer
// warpgroup = 384 threads, 128x256 tiles, four 48 KiB stages, the eight
// mbarriers and 1 KiB of alignment slack: 197696 bytes of dynamic shared
// memory) loads them through tensor maps. The padded buffers and their maps
// lead the block (GemmMainloop.h, createPaddedOperands), so that no host
// call follows a launch and gpu-async-region keeps the launches on one
// stream. A flag word, zeroed by gpu.memset first, is set to 1 by a
// pre-pass that sees a nonzero block whose scale byte bf16 cannot hold
// exactly; the v8 kernel runs when it is 0, the fused-upcast v7 kernel on
// the fp8 operands when it is 1.

// A: 256 x 512 (one item = 8 elements of a row: 16384 items -> 64 CTAs);
// B: 384 rows padded to 512 (two 256-row tiles), 128 CTAs. Grid: 2 x 2 tiles of 128 x 256 = 4
// CTAs of v8; the v7 fallback keeps its 128x128 tiles (6 CTAs).
// The tensor maps: rank 2, BFLOAT16 (9), no interleave, 128B swizzle (3),
// L2 promotion 128B (2), zero fill; the descriptor of the 2-D view
// {ptr, ptr, 0, rows, 512, 512, 1}; boxes of 128 (A) or 256 (B) rows x 64 K
// (128 bytes, the swizzle span). Freed after the launches.
// CHECK-LABEL: func.func @fwd(
// CHECK-DAG:     %[[RANK:.*]] = llvm.mlir.constant(2 : i64) : i64
// CHECK-DAG:     %[[BF16:.*]] = llvm.mlir.constant(9 : i64) : i64
// CHECK-DAG:     %[[SW128:.*]] = llvm.mlir.constant(3 : i64) : i64
// CHECK-DAG:     %[[L0:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK-DAG:     %[[L1:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK-DAG:     %[[L64:.*]] = llvm.mlir.constant(64 : i64) : i64
// CHECK-DAG:     %[[L128:.*]] = llvm.mlir.constant(128 : i64) : i64
// CHECK-DAG:     %[[L256:.*]] = llvm.mlir.constant(256 : i64) : i64
// CHECK-DAG:     %[[L512:.*]] = llvm.mlir.constant(512 : i64) : i64
// CHECK:         %[[APAD:.*]] = memref.alloc() : memref<131072xbf16>
// CHECK-NEXT:    %[[BPAD:.*]] = memref.alloc() : memref<262144xbf16>
// CHECK-NEXT:    %[[AVIEW:.*]] = memref.expand_shape %[[APAD]] {{\[\[}}0, 1]] output_shape [256, 512] : memref<131072xbf16> into memref<256x512xbf16>
// CHECK-NEXT:    %[[APTR:.*]] = memref.extract_aligned_pointer_as_index %[[AVIEW]]
// CHECK-NEXT:    %[[AADDR:.*]] = arith.index_castui %[[APTR]] : index to i64
// CHECK-NEXT:    %[[ADESC:.*]] = llvm.alloca %{{.*}} x !llvm.array<7 x i64>
// CHECK-NEXT:    %[[AD0:.*]] = llvm.getelementptr %[[ADESC]][0, 0]
// CHECK-NEXT:    llvm.store %[[AADDR]], %[[AD0]]
// CHECK-NEXT:    %[[AD1:.*]] = llvm.getelementptr %[[ADESC]][0, 1]
// CHECK-NEXT:    llvm.store %[[AADDR]], %[[AD1]]
// CHECK-NEXT:    %[[AD2:.*]] = llvm.getelementptr %[[ADESC]][0, 2]
// CHECK-NEXT:    llvm.store %[[L0]], %[[AD2]]
// CHECK-NEXT:    %[[AD3:.*]] = llvm.getelementptr %[[ADESC]][0, 3]
// CHECK-NEXT:    llvm.store %[[L256]], %[[AD3]]
// CHECK-NEXT:    %[[AD4:.*]] = llvm.getelementptr %[[ADESC]][0, 4]
// CHECK-NEXT:    llvm.store %[[L512]], %[[AD4]]
// CHECK-NEXT:    %[[AD5:.*]] = llvm.getelementptr %[[ADESC]][0, 5]
// CHECK-NEXT:    llvm.store %[[L512]], %[[AD5]]
// CHECK-NEXT:    %[[AD6:.*]] = llvm.getelementptr %[[ADESC]][0, 6]
// CHECK-NEXT:    llvm.store %[[L1]], %[[AD6]]
// CHECK-NEXT:    %[[ABOX:.*]] = llvm.alloca %{{.*}} x !llvm.array<2 x i64>
// CHECK-NEXT:    %[[AB0:.*]] = llvm.getelementptr %[[ABOX]][0, 0]
// CHECK-NEXT:    llvm.store %[[L128]], %[[AB0]]
// CHECK-NEXT:    %[[AB1:.*]] = llvm.getelementptr %[[ABOX]][0, 1]
// CHECK-NEXT:    llvm.store %[[L64]], %[[AB1]]
// CHECK-NEXT:    %[[AMAP:.*]] = llvm.call @mgpuTensorMapEncodeTiledMemref(%[[RANK]], %[[ADESC]], %[[BF16]], %[[L0]], %[[SW128]], %[[RANK]], %[[L0]], %[[ABOX]])
// CHECK-NEXT:    %[[BVIEW:.*]] = memref.expand_shape %[[BPAD]] {{\[\[}}0, 1]] output_shape [512, 512] : memref<262144xbf16> into memref<512x512xbf16>
// CHECK:         %[[BBOX:.*]] = llvm.alloca %{{.*}} x !llvm.array<2 x i64>
// CHECK-NEXT:    %[[BB0:.*]] = llvm.getelementptr %[[BBOX]][0, 0]
// CHECK-NEXT:    llvm.store %[[L256]], %[[BB0]]
// CHECK-NEXT:    %[[BB1:.*]] = llvm.getelementptr %[[BBOX]][0, 1]
// CHECK-NEXT:    llvm.store %[[L64]], %[[BB1]]
// CHECK-NEXT:    %[[BMAP:.*]] = llvm.call @mgpuTensorMapEncodeTiledMemref(%[[RANK]], %{{.*}}, %[[BF16]], %[[L0]], %[[SW128]], %[[RANK]], %[[L0]], %[[BBOX]])
// CHECK:         %[[OUT:.*]] = memref.alloc() : memref<256x384xf32>
// CHECK:         %[[FLAG:.*]] = memref.alloc() : memref<1xi32>
// CHECK:         gpu.memset %[[FLAG]], %c0_i32 : memref<1xi32>, i32
// CHECK:         gpu.launch_func @mxfp8train_kernels::@gemm_dequant_k_e4m3_1x256x512_pad256x512 blocks in (%c64, %c1, %c1) threads in (%c256, %c1, %c1) args(%{{.*}} : memref<131072xf8E4M3FN>, %{{.*}} : memref<4096xf8E8M0FNU>, %[[APAD]] : memref<131072xbf16>, %[[FLAG]] : memref<1xi32>)
// CHECK:         gpu.launch_func @mxfp8train_kernels::@gemm_dequant_k_e4m3_1x384x512_pad512x512 blocks in (%c128, %c1, %c1) threads in (%c256, %c1, %c1) args(%{{.*}} : memref<196608xf8E4M3FN>, %{{.*}} : memref<6144xf8E8M0FNU>, %[[BPAD]] : memref<262144xbf16>, %[[FLAG]] : memref<1xi32>)
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_mm_k_k_bf16_bf16_f32_biasbf16_256x384x512_b1_p1c1_v8w1s4_n256_gs blocks in (%c4, %c1, %c1) threads in (%c384, %c1, %c1) dynamic_shared_memory_size %c197696_i32 args(%[[AMAP]] : !llvm.ptr, %[[BMAP]] : !llvm.ptr, %{{.*}} : memref<384xbf16>, %[[FLAG]] : memref<1xi32>, %{{.*}} : memref<98304xf32>)
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_mm_k_k_e4m3_e4m3_f32_biasbf16_256x384x512_b1_p2c1_v7w2s4_gu blocks in (%c6, %c1, %c1) threads in (%c512, %c1, %c1) dynamic_shared_memory_size %c132416_i32 args({{.*}}%[[FLAG]] : memref<1xi32>, %{{.*}} : memref<98304xf32>)
// CHECK:         bufferization.to_tensor %[[OUT]] restrict writable
// CHECK-NEXT:    llvm.call @mgpuMemFree(%[[AMAP]], %{{.*}})
// CHECK-NEXT:    llvm.call @mgpuMemFree(%[[BMAP]], %{{.*}})
// CHECK-NEXT:    return

// The pre-pass: per item of 8 elements the exact range (magnitude + 1 carries into bit 7) choosing the hardware
// conversion, else prmt placement and two bf16 multiplies (2^120 = bf16
// bits 247 << 7, then 2^(s - 127) = bits s << 7).
// CHECK:       gpu.func @gemm_dequant_k_e4m3_1x256x512_pad256x512(
// CHECK-DAG:     %[[C3:.*]] = arith.constant 3 : i32
// CHECK-DAG:     %[[C246:.*]] = arith.constant 246 : i32
// CHECK-DAG:     %[[CARRY:.*]] = arith.constant dense<16843009> : vector<2xi32>
// CHECK-DAG:     %[[POW120:.*]] = arith.constant dense<1.329230e+36> : vector<8xbf16>
// CHECK:         scf.for
// CHECK:           vector.load %{{.*}} {alignment = 8 : i64} : memref<131072xf8E4M3FN>, vector<8xf8E4M3FN>
// CHECK:           arith.addi %{{.*}}, %[[CARRY]] : vector<2xi32>
// CHECK:           scf.if %{{.*}} -> (vector<8xbf16>) {
// CHECK:             nvvm.convert.f8x2.to.f16x2
// CHECK:           } else {
// CHECK-COUNT-4:     nvvm.prmt
// CHECK:             arith.mulf %{{.*}}, %[[POW120]] : vector<8xbf16>
// CHECK:             arith.mulf %{{.*}} : vector<8xbf16>
// CHECK-DAG:       arith.cmpi slt, %{{.*}}, %[[C3]] : i32
// CHECK-DAG:       arith.cmpi sgt, %{{.*}}, %[[C246]] : i32
// CHECK:           scf.if
// CHECK-NEXT:        memref.store %c1_i32, %arg3[%c0] : memref<1xi32>
// CHECK:           vector.store %{{.*}}, %arg2[%{{.*}}] {alignment = 16 : i64} : memref<131072xbf16>, vector<8xbf16>

// The v8 GEMM: the kernel body only when the flag word is 0; mbarriers
// full (1 arrival: the producer's expect_tx) and empty (256 MMA arrivals),
// their initialisation fenced for the async proxy. The MMA warpgroups
// (setmaxnreg 216) wait full[s] and, with no proxy fence (TMA and wgmma
// both use the async proxy), issue four wgmma m64n256k16. The producer
// warpgroup (setmaxnreg 72): its thread 0 prefetches both tensor maps,
// then per stage waits empty[s], expects 48 KiB (16 KiB A + 32 KiB B) on
// full[s] with its arrival and issues two cp.async.bulk.tensor boxes
// completing on full[s]: A at (K, tile row), B at (K, tile column) 16 KiB
// further. No cp.async is left.
// CHECK:       gpu.func @scaled_mm_k_k_bf16_bf16_f32_biasbf16_256x384x512_b1_p1c1_v8w1s4_n256_gs(
// CHECK-SAME:    %[[AMAPK:[^:]*]]: !llvm.ptr {llvm.noalias, llvm.readonly}, %[[BMAPK:[^:]*]]: !llvm.ptr {llvm.noalias, llvm.readonly}
// CHECK-SAME:    nvvm.maxntid = array<i32: 384, 1, 1>
// CHECK:         %[[ANY:.*]] = memref.load %arg3[%c0] : memref<1xi32>
// CHECK:         %[[GO:.*]] = arith.cmpi eq, %[[ANY]], %c0_i32 : i32
// CHECK:         scf.if %[[GO]] {
// CHECK:           nvvm.mbarrier.init %{{.*}}, %c1_i32
// CHECK-NEXT:      arith.addi
// CHECK-NEXT:      arith.index_castui
// CHECK-NEXT:      llvm.inttoptr
// CHECK-NEXT:      nvvm.mbarrier.init %{{.*}}, %c256_i32
// CHECK-COUNT-3:   nvvm.mbarrier.init %{{.*}}, %c1_i32
// CHECK:           nvvm.mbarrier.init %{{.*}}, %c256_i32
// CHECK-NEXT:      nvvm.fence.mbarrier.init
// CHECK:           gpu.barrier
// The MMA role's warpgroup index is lane 0's, shuffled (warp-uniform for
// ptxas: uniform registers for the descriptors). Per stage: the ring's
// slot and parity are loaded as kept (GemmMainloop::advanceRing, no
// division by the stage count); the smem descriptors' address field
// ((byte address >> 4) & 0x3FFF, LBO 16 bytes: 0x10000) in 32 bits, the
// K steps (+2 = 32 bytes) added there, the constant upper word (SBO 1024,
// 128B swizzle) or-ed in.
// CHECK:           nvvm.setmaxregister increase 216
// CHECK-NEXT:      %[[WG:.*]] = arith.divui %thread_id_x, %c128 : index
// CHECK-NEXT:      %[[WG32:.*]] = arith.index_castui %[[WG]] : index to i32
// CHECK-NEXT:      %[[LANE0:.*]] = nvvm.shfl.sync idx %c-1_i32, %[[WG32]], %c0_i32, %c31_i32 : i32 -> i32
// CHECK-NEXT:      %[[UWG:.*]] = arith.index_castui %[[LANE0]] : i32 to index
// CHECK:           memref.load %{{.*}}[%c0] : memref<1xindex>
// CHECK-NEXT:      %[[SLOT:.*]] = memref.load %{{.*}}[%c0] : memref<1xindex>
// CHECK-NEXT:      %[[PARITY:.*]] = memref.load %{{.*}}[%c0] : memref<1xi32>
// CHECK-NOT:       arith.remui
// CHECK:           nvvm.mbarrier.try_wait.parity %{{.*}}, %[[PARITY]]
// CHECK-NOT:       nvvm.fence.proxy
// CHECK:           %[[STAGE:.*]] = arith.muli %[[SLOT]], %c49152 : index
// CHECK-NEXT:      %[[SADDR:.*]] = arith.addi %{{.*}}, %[[STAGE]] : index
// CHECK-NEXT:      %[[AROWS:.*]] = arith.muli %[[UWG]], %c8192 : index
// CHECK-NEXT:      %[[AADDR:.*]] = arith.addi %[[SADDR]], %[[AROWS]] : index
// CHECK:           %[[A32:.*]] = arith.index_castui %[[AADDR]] : index to i32
// CHECK-NEXT:      %[[ASHR:.*]] = arith.shrui %[[A32]], %c4_i32 : i32
// CHECK-NEXT:      %[[AFIELD:.*]] = arith.andi %[[ASHR]], %c16383_i32 : i32
// CHECK-NEXT:      %[[ALOW:.*]] = arith.ori %[[AFIELD]], %c65536_i32 : i32
// CHECK:           nvvm.wgmma.fence.aligned
// CHECK:           %[[A0:.*]] = arith.extui %[[ALOW]] : i32 to i64
// CHECK-NEXT:      %[[DESCA0:.*]] = arith.ori %[[A0]], %c4611686293305294848_i64 : i64
// CHECK-NEXT:      nvvm.wgmma.mma_async %[[DESCA0]], %{{.*}} <m = 64, n = 256, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK:           %[[A1:.*]] = arith.addi %[[ALOW]], %c2_i32 : i32
// CHECK-COUNT-3:   nvvm.wgmma.mma_async {{.*}} <m = 64, n = 256, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK:           nvvm.wgmma.wait.group.sync.aligned 1
// The previous stage's release (not for the tile's first): its slot is
// the last of the four before slot 0 (GemmMainloop::getPreviousStage),
// its empty barrier the one after the four full barriers; then the ring
// position advances (the slot wraps at 4).
// CHECK:           scf.if
// CHECK-NEXT:        %[[AT0:.*]] = arith.cmpi eq, %[[SLOT]], %c0 : index
// CHECK-NEXT:        %[[DOWN:.*]] = arith.subi %[[SLOT]], %c1 : index
// CHECK-NEXT:        %[[PREV:.*]] = arith.select %[[AT0]], %c3, %[[DOWN]] : index
// CHECK-NEXT:        arith.addi %[[PREV]], %c4 : index
// CHECK:             nvvm.mbarrier.arrive
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[NEXT:.*]] = arith.addi %[[SLOT]], %c1 : index
// CHECK-NEXT:      arith.cmpi eq, %[[NEXT]], %c4 : index
// CHECK:         } else {
// CHECK:           nvvm.setmaxregister decrease 72
// CHECK:           %[[ROLE:.*]] = arith.subi %thread_id_x, %c256 : index
// CHECK:           %[[FIRST:.*]] = arith.cmpi eq, %[[ROLE]], %c0 : index
// CHECK:           scf.if %[[FIRST]] {
// CHECK-NEXT:        nvvm.prefetch tensormap, %[[AMAPK]] : !llvm.ptr
// CHECK-NEXT:        nvvm.prefetch tensormap, %[[BMAPK]] : !llvm.ptr
// CHECK-DAG:         %[[COL:.*]] = arith.muli %{{.*}}, %c256 : index
// CHECK-DAG:         %[[ROW:.*]] = arith.muli %{{.*}}, %c128 : index
// CHECK:             scf.for %[[KT:.*]] = %c0 to %c8 step %c1 {
// CHECK:               nvvm.mbarrier.try_wait.parity
// CHECK-NEXT:          %[[K:.*]] = arith.muli %[[KT]], %c64 : index
// CHECK-NEXT:          %[[KI:.*]] = arith.index_castui %[[K]] : index to i32
// CHECK-NEXT:          %[[ROWI:.*]] = arith.index_castui %[[ROW]] : index to i32
// CHECK-NEXT:          %[[COLI:.*]] = arith.index_castui %[[COL]] : index to i32
// CHECK:               %[[FULL:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<3>
// CHECK-NEXT:          nvvm.mbarrier.arrive.expect_tx %[[FULL]], %c49152_i32 : !llvm.ptr<3>, i32
// CHECK-NEXT:          %[[SOFF:.*]] = arith.muli %{{.*}}, %c49152 : index
// CHECK-NEXT:          %[[STAGE:.*]] = arith.addi %{{.*}}, %[[SOFF]] : index
// CHECK:               nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[AMAPK]], %[[FULL]], box[%[[KI]], %[[ROWI]]] {isCTAOnly = true}
// CHECK-NEXT:          %[[BDST:.*]] = arith.addi %[[STAGE]], %c16384 : index
// CHECK:               nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[BMAPK]], %[[FULL]], box[%[[KI]], %[[COLI]]] {isCTAOnly = true}
// CHECK-NOT:       nvvm.cp.async.shared.global
// CHECK:         gpu.return

// The fallback: the same guard, run when a flag is set.
// CHECK:       gpu.func @scaled_mm_k_k_e4m3_e4m3_f32_biasbf16_256x384x512_b1_p2c1_v7w2s4_gu(
// CHECK:         %[[ANY2:.*]] = memref.load %arg5[%c0] : memref<1xi32>
// CHECK:         arith.cmpi ne, %[[ANY2]], %c0_i32 : i32
func.func @fwd(%a: tensor<256x512xf8E4M3FN>, %as: tensor<256x16xf8E8M0FNU>,
               %w: tensor<384x512xf8E4M3FN>, %ws: tensor<384x16xf8E8M0FNU>,
               %bias: tensor<384xbf16>) -> tensor<256x384xf32> {
  %y = mxfp8train.scaled_mm %a [%as], %w [%ws] bias(%bias) transpose_rhs
      : tensor<256x512xf8E4M3FN> [tensor<256x16xf8E8M0FNU>],
        tensor<384x512xf8E4M3FN> [tensor<384x16xf8E8M0FNU>], tensor<384xbf16> -> tensor<256x384xf32>
  return %y : tensor<256x384xf32>
}

// -----

// MN-major operands with blocked scales and e5m2: A (200 rows, not a
// multiple of 16) item by item, rows fastest (a 32-block of one row), the blocked scale offset, the
// e5m2 exact range [10, 239] and the hardware conversion only; the
// fallback is v5 (v7 takes K-major operands with row-major scales only).
// The v8 kernel itself only sees padded K-major bf16 (its name says k_k).
// CHECK-LABEL: func.func @mn_blocked_e5m2(
// B (96 rows, a multiple of 16) goes through the shared-memory transpose:
// one CTA per tile of 32 K x 128 rows (2 x 2 tiles), 4608 + 512 bytes.
// CHECK:         gpu.launch_func @mxfp8train_kernels::@gemm_dequant_mnb_e5m2_1x200x64_pad256x64 blocks in (%c2, %c1, %c1) threads in (%c256, %c1, %c1) args(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@gemm_dequant_mnb_e4m3_1x96x64_pad256x64 blocks in (%c4, %c1, %c1) threads in (%c256, %c1, %c1) dynamic_shared_memory_size %c5120_i32
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_mm_k_k_bf16_bf16_f32_200x96x64_b1_p1c1_v8w1s4_n256_gs blocks in (%c2, %c1, %c1) threads in (%c384, %c1, %c1)
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_mm_mnb_mnb_e5m2_e4m3_f32_200x96x64_b1_p1c1_gu blocks in (%c2, %c1, %c1) threads in (%c256, %c1, %c1)
// CHECK:       gpu.func @gemm_dequant_mnb_e5m2_1x200x64_pad256x64(
// CHECK-DAG:     arith.constant 10 : i32
// CHECK-DAG:     arith.constant 239 : i32
// CHECK-NOT:     nvvm.prmt
// CHECK:         gpu.return
// CHECK:       gpu.func @gemm_dequant_mnb_e4m3_1x96x64_pad256x64(
// CHECK:         gpu.dynamic_shared_memory
// CHECK:         scf.for
// CHECK:           vector.load %{{.*}} {alignment = 16 : i64} : memref<6144xf8E4M3FN>, vector<16xf8E4M3FN>
// CHECK:           vector.store %{{.*}} {alignment = 16 : i64} : memref<4608xi8, #gpu.address_space<workgroup>>, vector<16xi8>
// CHECK:           gpu.barrier
// CHECK-COUNT-16:  memref.load {{.*}} : memref<4608xi8, #gpu.address_space<workgroup>>
// CHECK:           vector.store %{{.*}} {alignment = 16 : i64} : memref<16384xbf16>, vector<16xbf16>
// CHECK:           gpu.barrier
func.func @mn_blocked_e5m2(%a: tensor<64x200xf8E5M2>, %as: tensor<1024xf8E8M0FNU>,
                           %b: tensor<64x96xf8E4M3FN>, %bs: tensor<512xf8E8M0FNU>)
    -> tensor<200x96xf32> {
  %y = mxfp8train.scaled_mm %a [%as], %b [%bs] transpose_lhs
      lhs_layout = blocked rhs_layout = blocked
      : tensor<64x200xf8E5M2> [tensor<1024xf8E8M0FNU>],
        tensor<64x96xf8E4M3FN> [tensor<512xf8E8M0FNU>] -> tensor<200x96xf32>
  return %y : tensor<200x96xf32>
}

// -----

// 2d-3d: A's rows padded by one extra tile (tiles start at any group
// start), B per expert. 2d-2d: K (the tokens) padded by 64 per group
// (1024 + 4 x 64 = 1280), the pre-passes read `offs` and build the group
// table in 96 bytes of shared memory; the fallback is v5.
// The padded buffers of both ops lead the block, then their tensor maps:
// 2d-3d A 1152 x 512 in boxes of 128 rows, B the eight experts' 512 rows
// stacked (4096 x 512) in boxes of 256 rows; 2d-2d A 256 x 1280, B 512 x
// 1280.
// CHECK-LABEL: func.func @grouped(
// CHECK-COUNT-4: memref.alloc() : memref<{{[0-9]+}}xbf16>
// CHECK-DAG:     memref.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [1152, 512]
// CHECK-DAG:     memref.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [4096, 512]
// CHECK-DAG:     memref.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [256, 1280]
// CHECK-DAG:     memref.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [512, 1280]
// CHECK:         gpu.memset
// CHECK:         gpu.launch_func @mxfp8train_kernels::@gemm_dequant_k_e4m3_1x1024x512_pad1152x512
// CHECK:         gpu.launch_func @mxfp8train_kernels::@gemm_dequant_k_e4m3_8x384x512_pad512x512
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_gmm_2d3d_k_k_bf16_bf16_bf16_1024x384x512_b8_p1c1_v8w1s4_n256_c2_
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_gmm_2d3d_k_k_e4m3_e4m3_bf16_1024x384x512_b8_p2c1_v7w2s4_
// CHECK:         gpu.memset
// CHECK:         gpu.launch_func @mxfp8train_kernels::@gemm_dequant_k_e4m3_1x256x1024_pad256x1280_g4 blocks in (%c160, %c1, %c1) threads in (%c256, %c1, %c1) dynamic_shared_memory_size %c96_i32 args(%{{.*}} : memref<262144xf8E4M3FN>, %{{.*}} : memref<8192xf8E8M0FNU>, %{{.*}} : memref<4xi32>,
// CHECK:         gpu.launch_func @mxfp8train_kernels::@gemm_dequant_k_e4m3_1x384x1024_pad512x1280_g4
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_gmm_2d2d_k_k_bf16_bf16_f32_256x384x1024_b4_p1c1_v8w1s4_n256_c2_gs clusters in (%c2, %c1, %c1) blocks
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_gmm_2d2d_k_k_e4m3_e4m3_f32_256x384x1024_b4_p1c2_gu blocks
// The group table: thread 0 walks the clamped ends, flags a nonempty group
// whose start or end is not a multiple of 32, stores the padded end, start
// and length; every item counts the groups whose padded end is <= its K.
// CHECK:       gpu.func @gemm_dequant_k_e4m3_1x256x1024_pad256x1280_g4(
// CHECK:         gpu.dynamic_shared_memory
// CHECK:         scf.for
// CHECK:           arith.ori
// CHECK:           arith.remui %{{.*}}, %c32
// CHECK:         gpu.barrier
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             arith.cmpi ule
// The 2d-3d producer: A's box starts at the tile's row inside its group
// (any row: TMA coordinates need no alignment), B's at expert x 512 plus
// the tile's column and 128 x the cluster rank (the CTA's half of the
// B tile, multicast to the pair) in the stacked map.
// CHECK:       gpu.func @scaled_gmm_2d3d_k_k_bf16_bf16_bf16_1024x384x512_b8_p1c1_v8w1s4_n256_c2_gs(
// CHECK:         nvvm.prefetch tensormap
// CHECK:         %[[WALK:.*]]:6 = scf.for
// CHECK:         scf.if %[[WALK]]#2 {
// CHECK-NEXT:      %[[COL:.*]] = arith.muli %{{.*}}, %c256 : index
// CHECK:           scf.for
// CHECK:             %[[ROWI:.*]] = arith.index_castui %[[WALK]]#4 : index to i32
// CHECK:             %[[HALF:.*]] = arith.addi %[[COL]], %{{.*}} : index
// CHECK-NEXT:        %[[EXP:.*]] = arith.muli %[[WALK]]#3, %c512 : index
// CHECK-NEXT:        %[[BROW:.*]] = arith.addi %[[EXP]], %[[HALF]] : index
// CHECK-NEXT:        %[[BROWI:.*]] = arith.index_castui %[[BROW]] : index to i32
// CHECK:             nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg0, %{{.*}}, box[%{{.*}}, %[[ROWI]]]
// CHECK:             nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg1, %{{.*}}, box[%{{.*}}, %[[BROWI]]]
func.func @grouped(%a: tensor<1024x512xf8E4M3FN>, %as: tensor<1024x16xf8E8M0FNU>,
                   %w: tensor<8x384x512xf8E4M3FN>, %ws: tensor<8x384x16xf8E8M0FNU>,
                   %offs: tensor<8xi32>,
                   %dot: tensor<256x1024xf8E4M3FN>, %ds: tensor<256x32xf8E8M0FNU>,
                   %xt: tensor<384x1024xf8E4M3FN>, %xs: tensor<384x32xf8E8M0FNU>,
                   %offs4: tensor<4xi32>) -> (tensor<1024x384xbf16>, tensor<4x256x384xf32>) {
  %y = mxfp8train.scaled_grouped_mm %a [%as], %w [%ws] offs(%offs) transpose_rhs
      : tensor<1024x512xf8E4M3FN> [tensor<1024x16xf8E8M0FNU>],
        tensor<8x384x512xf8E4M3FN> [tensor<8x384x16xf8E8M0FNU>], tensor<8xi32>
        -> tensor<1024x384xbf16>
  %dw = mxfp8train.scaled_grouped_mm %dot [%ds], %xt [%xs] offs(%offs4) transpose_rhs
      : tensor<256x1024xf8E4M3FN> [tensor<256x32xf8E8M0FNU>],
        tensor<384x1024xf8E4M3FN> [tensor<384x32xf8E8M0FNU>], tensor<4xi32>
        -> tensor<4x256x384xf32>
  return %y, %dw : tensor<1024x384xbf16>, tensor<4x256x384xf32>
}

// -----

// Every field of #mxfp8train.gemm_config reaches the kernels: dequant_ctas =
// 1 caps the pre-pass of A at 132 CTAs (one per SM; 256 without the cap),
// tile_n = 128 with six stages (6 x 32 KiB + 12 mbarriers + 1 KiB = 197728
// bytes), and the fallback gets the fused-upcast fields: one prefetch tile,
// no rebalancing, one converter warpgroup (384 threads), six stages
// (196608 + 96 + 2 x 4 warps x 16 + 1024 = 197856 bytes).
// CHECK-LABEL: func.func @configured(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@gemm_dequant_k_e4m3_1x1024x512_pad1024x512 blocks in (%c132, %c1, %c1)
// CHECK:         gpu.launch_func @mxfp8train_kernels::@gemm_dequant_k_e4m3_1x384x512_pad384x512 blocks in (%c96, %c1, %c1)
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_mm_k_k_bf16_bf16_f32_1024x384x512_b1_p1c1_norebal_v8w1s6_gs blocks in (%c24, %c1, %c1) threads in (%c384, %c1, %c1) dynamic_shared_memory_size %c197728_i32
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_mm_k_k_e4m3_e4m3_f32_1024x384x512_b1_p1c1_norebal_v7w1s6_gu blocks in (%c24, %c1, %c1) threads in (%c384, %c1, %c1) dynamic_shared_memory_size %c197856_i32
func.func @configured(%a: tensor<1024x512xf8E4M3FN>, %as: tensor<1024x16xf8E8M0FNU>,
                      %w: tensor<384x512xf8E4M3FN>, %ws: tensor<384x16xf8E8M0FNU>) -> tensor<1024x384xf32> {
  %y = mxfp8train.scaled_mm %a [%as], %w [%ws] transpose_rhs
      {mxfp8train.gemm_config = #mxfp8train.gemm_config<tile_n = 128, stages = 6, dequant_ctas = 1, prefetch = 1, rebalance = false, converters = 1>}
      : tensor<1024x512xf8E4M3FN> [tensor<1024x16xf8E8M0FNU>],
        tensor<384x512xf8E4M3FN> [tensor<384x16xf8E8M0FNU>] -> tensor<1024x384xf32>
  return %y : tensor<1024x384xf32>
}
