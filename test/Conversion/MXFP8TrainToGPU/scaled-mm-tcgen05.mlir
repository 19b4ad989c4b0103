// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu="chip=sm_100a" --canonicalize --cse --split-input-file | FileCheck %s
// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu="chip=sm_100a simple-gemm=true" --canonicalize --split-input-file | FileCheck %s --check-prefix=SIMPLE

// scaled_mm on sm_100a (Gemm/TCGen05.cpp): rank 2, K-major operands, e4m3 /
// e5m2. Row-major scales are re-laid by to_blocked first; the tensor maps of
// both operands (128 x 128 and 256 x 128 boxes, 128-byte swizzle) are created
// by the host code and freed after the launch; one persistent kernel of 256
// threads with 203872 bytes of dynamic shared memory (four stages of
// 16384 + 32768 + 512 + 1024 bytes, ten mbarriers, the TMEM slot, 1 KiB of
// alignment: at most the 232448 bytes of sm_100a).

// CHECK-LABEL: func.func @fwd_rowmajor(
// CHECK-DAG:     %[[SMEM:.*]] = arith.constant 203872 : i32
// CHECK-DAG:     %[[C256:.*]] = llvm.mlir.constant(256 : i64) : i64
// CHECK-DAG:     %[[C128:.*]] = llvm.mlir.constant(128 : i64) : i64
// CHECK:         gpu.launch_func @mxfp8train_kernels::@to_blocked_256x16 {{.*}} args(%{{.*}} : memref<256x16xf8E8M0FNU>, %[[SA:.*]] : memref<4096xf8E8M0FNU>)
// CHECK:         gpu.launch_func @mxfp8train_kernels::@to_blocked_384x16 {{.*}} args(%{{.*}} : memref<384x16xf8E8M0FNU>, %[[SB:.*]] : memref<6144xf8E8M0FNU>)
// CHECK:         %[[BOXA:.*]] = llvm.alloca %{{.*}} x !llvm.array<2 x i64>
// CHECK:         %[[MAPA:.*]] = llvm.call @mgpuTensorMapEncodeTiledMemref(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[BOXA]])
// B's box: 256 rows x 128 K.
// CHECK:         %[[BOXB:.*]] = llvm.alloca %{{.*}} x !llvm.array<2 x i64>
// CHECK-NEXT:    %[[B0:.*]] = llvm.getelementptr %[[BOXB]][0, 0]
// CHECK-NEXT:    llvm.store %[[C256]], %[[B0]]
// CHECK-NEXT:    %[[B1:.*]] = llvm.getelementptr %[[BOXB]][0, 1]
// CHECK-NEXT:    llvm.store %[[C128]], %[[B1]]
// CHECK-NEXT:    %[[MAPB:.*]] = llvm.call @mgpuTensorMapEncodeTiledMemref(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_mm_tc05_kb_kb_e4m3_e4m3_bf16_biasbf16_256x384x512_s4 blocks in (%c4, %c1, %c1) threads in (%c256, %c1, %c1) dynamic_shared_memory_size %[[SMEM]] args(%[[MAPA]] : !llvm.ptr, %[[SA]] : memref<4096xf8E8M0FNU>, %[[MAPB]] : !llvm.ptr, %[[SB]] : memref<6144xf8E8M0FNU>, %{{.*}} : memref<384xbf16>, %{{.*}} : memref<98304xbf16>)
// CHECK:         llvm.call @mgpuMemFree(%[[MAPA]]
// CHECK-NEXT:    llvm.call @mgpuMemFree(%[[MAPB]]
// CHECK-NEXT:    return

// The kernel (GemmMainloop's launch, carve-out, ring, tile walk, warp roles
// and epilogue store). Setup: full[0..3] and empty[0..3] (one arrival: the
// producer's expect_tx, a tcgen05.commit), acc_full (a commit), acc_empty
// (the 128 epilogue threads); warp 2 allocates 512 TMEM columns.
// CHECK-LABEL: gpu.func @scaled_mm_tc05_kb_kb_e4m3_e4m3_bf16_biasbf16_256x384x512_s4(
// CHECK-SAME:    %[[MA:.*]]: !llvm.ptr {llvm.noalias, llvm.readonly}, %{{.*}}: memref<4096xf8E8M0FNU> {llvm.noalias, llvm.readonly}, %[[MB:.*]]: !llvm.ptr {llvm.noalias, llvm.readonly}
// CHECK-SAME:    nvvm.maxntid = array<i32: 256, 1, 1>
// CHECK-COUNT-9: nvvm.mbarrier.init %{{.*}}, %c1_i32
// CHECK:         nvvm.mbarrier.init %{{.*}}, %c128_i32
// CHECK-NEXT:    nvvm.fence.mbarrier.init
// CHECK:         nvvm.tcgen05.alloc %[[SLOT:.*]], %c512_i32 : !llvm.ptr<3>, i32
// CHECK-NEXT:    nvvm.tcgen05.relinquish_alloc_permit
// CHECK:         nvvm.tcgen05.fence <before>
// CHECK-NEXT:    gpu.barrier
// CHECK-NEXT:    nvvm.tcgen05.fence <after>
// CHECK:         %[[TMEM:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> i32

// Producer: N = 384 has three 128-row blocks of B scales, so the second SFB
// chunk of the last N tile is absent: 50688 or 50176 transaction bytes.
// CHECK:         scf.for %{{.*}} = %block_id_x to %c4 step %grid_dim_x
// CHECK:           scf.for
// CHECK:             nvvm.mbarrier.try_wait.parity
// CHECK:             %[[TX:.*]] = arith.select %[[SECOND:.*]], %c50688_i32, %c50176_i32 : i32
// CHECK:             nvvm.mbarrier.arrive.expect_tx %[[FULL:.*]], %[[TX]] : !llvm.ptr<3>, i32
// CHECK:             nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MA]], %[[FULL]], box[%[[K0:.*]], %{{.*}}] {isCTAOnly = true}
// CHECK:             nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MB]], %[[FULL]], box[%[[K0]], %{{.*}}] {isCTAOnly = true}
// CHECK:             nvvm.cp.async.bulk.shared.cluster.global %{{.*}}, %{{.*}}, %[[FULL]], %c512_i32
// CHECK:             nvvm.cp.async.bulk.shared.cluster.global %{{.*}}, %{{.*}}, %[[FULL]], %c512_i32
// CHECK-NEXT:        scf.if %[[SECOND]] {
// CHECK:               nvvm.cp.async.bulk.shared.cluster.global %{{.*}}, %{{.*}}, %[[FULL]], %c512_i32

// MMA issuer, one K stage: wait full[s], the three 512-byte scale chunks
// into stage s's TMEM columns (SFA at 256 + 12 s, SFB 4 and 8 columns
// further), four MMAs K = 32 with SF IDs 0-3 in the instruction descriptor
// (0x08C00000, 0x28C00010, 0x48C00020, 0x68C00030: M 128, N 256, UE8M0,
// e4m3 x e4m3, K-major), the first with enable_input_d = (kt != 0), then
// commit to empty[s]; after the tile's last stage commit to acc_full.
// CHECK:         scf.for %{{.*}} = %block_id_x to %c4 step %grid_dim_x
// CHECK:           nvvm.mbarrier.try_wait.parity
// CHECK-NEXT:      nvvm.tcgen05.fence <after>
// CHECK:           scf.for %[[KT:.*]] = %c0 to %c4 step %c1
// CHECK:             nvvm.mbarrier.try_wait.parity
// CHECK-NEXT:        nvvm.tcgen05.fence <after>
// CHECK:             %[[SFA:.*]] = llvm.inttoptr %[[SFAADDR:.*]] : i32 to !llvm.ptr<6>
// CHECK:             nvvm.tcgen05.cp %[[SFA]], %{{.*}} {multicast = #nvvm.tcgen05_cp_multicast<warpx4>, shape = #nvvm.tcgen05_cp_shape<shape_32x128b>}
// CHECK:             %[[SFB:.*]] = llvm.inttoptr %{{.*}} : i32 to !llvm.ptr<6>
// CHECK:             nvvm.tcgen05.cp %[[SFB]], %{{.*}} {multicast = #nvvm.tcgen05_cp_multicast<warpx4>, shape = #nvvm.tcgen05_cp_shape<shape_32x128b>}
// CHECK:             nvvm.tcgen05.cp %{{.*}}, %{{.*}} {multicast = #nvvm.tcgen05_cp_multicast<warpx4>, shape = #nvvm.tcgen05_cp_shape<shape_32x128b>}
// CHECK:             %[[FIRST:.*]] = arith.cmpi ne, %[[KT]], %c0 : index
// CHECK:             nvvm.tcgen05.mma.block_scale %[[ACC:.*]], %{{.*}}, %{{.*}}, %c146800640_i32, %[[FIRST]], %[[SFA]], %[[SFB]] {blockScale = #nvvm.tcgen05_mma_block_scale<block32>, ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.block_scale_kind<mxf8f6f4>}
// CHECK:             nvvm.tcgen05.mma.block_scale %[[ACC]], %{{.*}}, %{{.*}}, %c683671568_i32, %true, %[[SFA]], %[[SFB]]
// CHECK:             nvvm.tcgen05.mma.block_scale %[[ACC]], %{{.*}}, %{{.*}}, %c1220542496_i32, %true, %[[SFA]], %[[SFB]]
// CHECK:             nvvm.tcgen05.mma.block_scale %[[ACC]], %{{.*}}, %{{.*}}, %c1757413424_i32, %true, %[[SFA]], %[[SFB]]
// CHECK-NOT:         {{ nvvm\.tcgen05\.(cp|mma)}}
// CHECK:             nvvm.tcgen05.commit %{{.*}} : !llvm.ptr<3>
// The ring position advanced: counter, slot and parity (no division).
// CHECK-COUNT-3:     memref.store
// CHECK-NEXT:      }
// CHECK:           nvvm.tcgen05.commit %{{.*}} : !llvm.ptr<3>

// Epilogue (warps 4-7): eight 32x32b.x32 loads of the thread's row, the
// accumulator released after the last one; per 8 columns
// GemmMainloop::storeOutput: bias, RNE to bf16, one 16-byte store (N = 384
// is a multiple of 8: masked by row and column as a whole).
// CHECK:         scf.for
// CHECK:           nvvm.mbarrier.try_wait.parity
// CHECK-NEXT:      nvvm.tcgen05.fence <after>
// CHECK-COUNT-7:   nvvm.tcgen05.ld %{{.*}} {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<32xi32>
// CHECK:           nvvm.tcgen05.ld %{{.*}} {shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<32xi32>
// CHECK-NEXT:      nvvm.tcgen05.wait <load>
// CHECK-NEXT:      nvvm.tcgen05.fence <before>
// CHECK:           nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3>
// CHECK:           arith.addf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:      arith.truncf %{{.*}} : f32 to bf16
// CHECK:           scf.if
// CHECK-NEXT:        vector.from_elements
// CHECK-NEXT:        vector.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : memref<98304xbf16>, vector<8xbf16>
// Teardown: warp 2 frees the columns after every role is done.
// CHECK:         nvvm.tcgen05.fence <before>
// CHECK-NEXT:    gpu.barrier
// CHECK:         nvvm.tcgen05.fence <after>
// CHECK-NEXT:    %[[T:.*]] = llvm.inttoptr %[[TMEM]] : i32 to !llvm.ptr<6>
// CHECK-NEXT:    nvvm.tcgen05.dealloc %[[T]], %c512_i32 : !llvm.ptr<6>, i32

// With simple-gemm the simple kernel runs on the row-major scales.
// SIMPLE-LABEL: func.func @fwd_rowmajor(
// SIMPLE-NOT:     to_blocked
// SIMPLE:         gpu.launch_func @mxfp8train_kernels::@gemm_mke4m3_nke4m3_mnbf16_biasbf16_1x256x384x512
func.func @fwd_rowmajor(%a: tensor<256x512xf8E4M3FN>, %as: tensor<256x16xf8E8M0FNU>,
                        %w: tensor<384x512xf8E4M3FN>, %ws: tensor<384x16xf8E8M0FNU>,
                        %bias: tensor<384xbf16>) -> tensor<256x384xbf16> {
  %y = mxfp8train.scaled_mm %a [%as], %w [%ws] bias(%bias) transpose_rhs
      : tensor<256x512xf8E4M3FN> [tensor<256x16xf8E8M0FNU>],
        tensor<384x512xf8E4M3FN> [tensor<384x16xf8E8M0FNU>], tensor<384xbf16> -> tensor<256x384xbf16>
  return %y : tensor<256x384xbf16>
}

// -----

// Blocked scales go straight in. e5m2 x e4m3: A format 1 at bits 7-9
// (0x08C00080 | SF IDs). K = 96 is one stage (the K loop folds away: the MMA's enable_input_d is false) (the TMA box and the blocked
// padding zero-fill K 96-127); N = 256 has both SFB chunks (no branch). f32
// results: 16-byte stores of four.
// CHECK-LABEL: func.func @blocked_e5m2(
// CHECK-NOT:     to_blocked
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_mm_tc05_kb_kb_e5m2_e4m3_f32_128x256x96_s4 blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1)
// CHECK-SAME:      args(%{{.*}} : !llvm.ptr, %{{.*}} : memref<512xf8E8M0FNU>, %{{.*}} : !llvm.ptr, %{{.*}} : memref<1024xf8E8M0FNU>, %{{.*}} : memref<32768xf32>)
// CHECK-LABEL: gpu.func @scaled_mm_tc05_kb_kb_e5m2_e4m3_f32_128x256x96_s4(
// CHECK-NOT:     arith.select {{.*}} : i32
// CHECK:         nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c50688_i32
// CHECK-COUNT-3: nvvm.cp.async.bulk.shared.cluster.global
// The producer's ring position advanced: the slot wraps after the last of
// the four stages and the parity flips with it (GemmMainloop::advanceRing).
// CHECK-NEXT:    %[[NEXT:.*]] = arith.addi %[[SLOT:.*]], %c1 : index
// CHECK-NEXT:    %[[WRAP:.*]] = arith.cmpi eq, %[[NEXT]], %c4 : index
// CHECK-NEXT:    %[[FLIP:.*]] = arith.extui %[[WRAP]] : i1 to i32
// CHECK-NEXT:    %[[PARITY:.*]] = arith.xori %{{.*}}, %[[FLIP]] : i32
// CHECK-NEXT:    %[[NSLOT:.*]] = arith.select %[[WRAP]], %c0, %[[NEXT]] : index
// CHECK-NEXT:    %[[COUNT:.*]] = arith.addi %{{.*}}, %c1 : index
// CHECK-NEXT:    memref.store %[[COUNT]]
// CHECK-NEXT:    memref.store %[[NSLOT]]
// CHECK-NEXT:    memref.store %[[PARITY]]
// CHECK-NEXT:    }
// CHECK:         nvvm.tcgen05.mma.block_scale {{.*}}, %c146800768_i32, %false,
// CHECK:         nvvm.tcgen05.mma.block_scale {{.*}}, %c683671696_i32,
// CHECK:         nvvm.tcgen05.mma.block_scale {{.*}}, %c1220542624_i32,
// CHECK:         nvvm.tcgen05.mma.block_scale {{.*}}, %c1757413552_i32,
// CHECK-NOT:     arith.truncf
// CHECK:         vector.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : memref<32768xf32>, vector<4xf32>
func.func @blocked_e5m2(%a: tensor<128x96xf8E5M2>, %as: tensor<512xf8E8M0FNU>,
                        %w: tensor<256x96xf8E4M3FN>, %ws: tensor<1024xf8E8M0FNU>) -> tensor<128x256xf32> {
  %y = mxfp8train.scaled_mm %a [%as], %w [%ws] transpose_rhs lhs_layout = blocked rhs_layout = blocked
      : tensor<128x96xf8E5M2> [tensor<512xf8E8M0FNU>],
        tensor<256x96xf8E4M3FN> [tensor<1024xf8E8M0FNU>] -> tensor<128x256xf32>
  return %y : tensor<128x256xf32>
}

// -----

// MN-major operands (the wgrad form: lhs stored K x M, rhs stored K x N)
// take the kernel natively. Their row-major (K / 32, rows) scales are
// re-laid by the lowering into the blocked layout of the transpose
// (to_blocked_t, 256 -> 1024 and 512 -> 2048 bytes); both tensor maps have
// boxes of 128 K rows x 128 columns. Per stage the producer loads one box
// of A and two of B (columns colBase and colBase + 128, 16 KiB apart in the
// B tile); the MMAs carry the MN-major bits 15/16 (0x08C18000 | SF IDs),
// the descriptors LBO 16384 / SBO 1024 (0x4000404004000000 without
// address), and K block kk is 32 rows further: + 256 kk in the address
// field.
// CHECK-LABEL: func.func @wgrad(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@to_blocked_t_2x256 {{.*}} args(%{{.*}} : memref<2x256xf8E8M0FNU>, %[[SA:.*]] : memref<1024xf8E8M0FNU>)
// CHECK:         gpu.launch_func @mxfp8train_kernels::@to_blocked_t_2x512 {{.*}} args(%{{.*}} : memref<2x512xf8E8M0FNU>, %[[SB:.*]] : memref<2048xf8E8M0FNU>)
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_mm_tc05_mn_mn_e4m3_e4m3_f32_256x512x64_s4 blocks in (%c4, %c1, %c1) threads in (%c256, %c1, %c1) dynamic_shared_memory_size %c203872_i32 args(%{{.*}} : !llvm.ptr, %[[SA]] : memref<1024xf8E8M0FNU>, %{{.*}} : !llvm.ptr, %[[SB]] : memref<2048xf8E8M0FNU>, %{{.*}} : memref<131072xf32>)
// The relayout kernel (the to_blocked kernel of LayoutKernels.cpp on the
// transposed matrix): each word of 4 output bytes holds scales (r, c..c+3)
// of the (256, 2) transpose, read at in[c, r] (clamped to [1, 255]), or
// 0x00 past it.
// CHECK-LABEL: gpu.func @to_blocked_t_2x256(
// CHECK:         scf.for
// CHECK:           %[[R:.*]] = arith.minui %{{.*}}, %c255 : index
// CHECK:           %[[C:.*]] = arith.minui %{{.*}}, %c1 : index
// CHECK:           memref.load %{{.*}}[%[[C]], %[[R]]] : memref<2x256xf8E8M0FNU>
// CHECK:           arith.select
// CHECK:           vector.store %{{.*}}, %{{.*}}[%{{.*}}] {alignment = 4 : i64} : memref<1024xf8E8M0FNU>, vector<4xf8E8M0FNU>
// CHECK-LABEL: gpu.func @scaled_mm_tc05_mn_mn_e4m3_e4m3_f32_256x512x64_s4(
// CHECK-SAME:    %[[MA:[^:]*]]: !llvm.ptr {{.*}}, %{{.*}}: memref<1024xf8E8M0FNU> {{.*}}, %[[MB:[^:]*]]: !llvm.ptr
// CHECK:         nvvm.mbarrier.arrive.expect_tx %[[FULL:.*]], %c50688_i32
// CHECK:         %[[ATILE:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK:         nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MA]], %[[FULL]], box[%{{.*}}, %c0_i32]
// CHECK:         arith.addi %[[ATILE]], %c16384 : index
// CHECK:         nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MB]], %[[FULL]], box[%{{.*}}, %c0_i32]
// CHECK-DAG:     arith.addi %{{.*}}, %c128 : index
// CHECK-DAG:     arith.addi %[[ATILE]], %c32768 : index
// CHECK:         nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MB]], %[[FULL]], box[%{{.*}}, %c0_i32]
// CHECK-NOT:     nvvm.cp.async.bulk.tensor
// CHECK:         %[[DA:.*]] = arith.ori %{{.*}}, %c4611756662116581376_i64 : i64
// CHECK:         %[[DB:.*]] = arith.ori %{{.*}}, %c4611756662116581376_i64 : i64
// CHECK-NEXT:    nvvm.tcgen05.mma.block_scale %{{.*}}, %[[DA]], %[[DB]], %c146898944_i32, %false,
// CHECK-DAG:     %[[DB1:.*]] = arith.addi %[[DB]], %c256_i64 : i64
// CHECK-DAG:     %[[DA1:.*]] = arith.addi %[[DA]], %c256_i64 : i64
// CHECK:         nvvm.tcgen05.mma.block_scale %{{.*}}, %[[DA1]], %[[DB1]], %c683769872_i32, %true,
// CHECK-DAG:     %[[DB2:.*]] = arith.addi %[[DB]], %c512_i64 : i64
// CHECK-DAG:     %[[DA2:.*]] = arith.addi %[[DA]], %c512_i64 : i64
// CHECK:         nvvm.tcgen05.mma.block_scale %{{.*}}, %[[DA2]], %[[DB2]], %c1220640800_i32, %true,
// CHECK-DAG:     %[[DB3:.*]] = arith.addi %[[DB]], %c768_i64 : i64
// CHECK-DAG:     %[[DA3:.*]] = arith.addi %[[DA]], %c768_i64 : i64
// CHECK:         nvvm.tcgen05.mma.block_scale %{{.*}}, %[[DA3]], %[[DB3]], %c1757511728_i32, %true,
func.func @wgrad(%a: tensor<64x256xf8E4M3FN>, %as: tensor<2x256xf8E8M0FNU>,
                 %b: tensor<64x512xf8E4M3FN>, %bs: tensor<2x512xf8E8M0FNU>) -> tensor<256x512xf32> {
  %y = mxfp8train.scaled_mm %a [%as], %b [%bs] transpose_lhs
      : tensor<64x256xf8E4M3FN> [tensor<2x256xf8E8M0FNU>],
        tensor<64x512xf8E4M3FN> [tensor<2x512xf8E8M0FNU>] -> tensor<256x512xf32>
  return %y : tensor<256x512xf32>
}

// -----

// An MN-major operand whose rows are not 16-byte aligned (M = 40) cannot
// have a tensor map: the simple kernel on the row-major scales.
// CHECK-LABEL: func.func @mn_major_unaligned(
// CHECK-NOT:     to_blocked
// CHECK-NOT:     mgpuTensorMapEncodeTiledMemref
// CHECK:         gpu.launch_func @mxfp8train_kernels::@gemm_kme4m3_nke4m3_mnbf16_1x40x16x64
func.func @mn_major_unaligned(%a: tensor<64x40xf8E4M3FN>, %as: tensor<2x40xf8E8M0FNU>,
                              %w: tensor<16x64xf8E4M3FN>, %ws: tensor<16x2xf8E8M0FNU>) -> tensor<40x16xbf16> {
  %y = mxfp8train.scaled_mm %a [%as], %w [%ws] transpose_lhs transpose_rhs
      : tensor<64x40xf8E4M3FN> [tensor<2x40xf8E8M0FNU>],
        tensor<16x64xf8E4M3FN> [tensor<16x2xf8E8M0FNU>] -> tensor<40x16xbf16>
  return %y : tensor<40x16xbf16>
}

// -----

// Rank 3 takes the tcgen05 kernel: the row-major scales of each batch are
// re-laid by the to_blocked kernel of blocked_per_expert (one 512-byte
// to_blocked per batch), the data has rank-3 tensor maps whose boxes hold
// one batch (the outermost box coordinate is the batch), and a stage
// expects both boxes (16 + 32 KiB) and one SFA and one SFB chunk.
// CHECK-LABEL: func.func @batched(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@to_blocked_2x64x2 {{.*}} args(%{{.*}} : memref<2x64x2xf8E8M0FNU>, %{{.*}} : memref<2x512xf8E8M0FNU>)
// CHECK:         gpu.launch_func @mxfp8train_kernels::@to_blocked_2x32x2 {{.*}} args(%{{.*}} : memref<2x32x2xf8E8M0FNU>, %{{.*}} : memref<2x512xf8E8M0FNU>)
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_mm_tc05_k_k_e4m3_e4m3_f32_64x32x64_b2_s4 {{.*}} args(%{{.*}} : !llvm.ptr, %{{.*}} : memref<1024xf8E8M0FNU>, %{{.*}} : !llvm.ptr, %{{.*}} : memref<1024xf8E8M0FNU>, %{{.*}} : memref<4096xf32>)
// CHECK-NOT:     @gemm_bmke4m3
// CHECK-LABEL: gpu.func @scaled_mm_tc05_k_k_e4m3_e4m3_f32_64x32x64_b2_s4(
// CHECK:         nvvm.mbarrier.arrive.expect_tx %[[FULL:.*]], %c50176_i32
// CHECK:         nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg0, %[[FULL]], box[%c0_i32, %c0_i32, %[[B:.*]]]
// CHECK:         nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg2, %[[FULL]], box[%c0_i32, %c0_i32, %[[B]]]
func.func @batched(%a: tensor<2x64x64xf8E4M3FN>, %as: tensor<2x64x2xf8E8M0FNU>,
                   %w: tensor<2x32x64xf8E4M3FN>, %ws: tensor<2x32x2xf8E8M0FNU>) -> tensor<2x64x32xf32> {
  %y = mxfp8train.scaled_mm %a [%as], %w [%ws] transpose_rhs
      : tensor<2x64x64xf8E4M3FN> [tensor<2x64x2xf8E8M0FNU>],
        tensor<2x32x64xf8E4M3FN> [tensor<2x32x2xf8E8M0FNU>] -> tensor<2x64x32xf32>
  return %y : tensor<2x64x32xf32>
}
