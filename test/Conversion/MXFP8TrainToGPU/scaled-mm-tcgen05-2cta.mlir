// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu="chip=sm_100a" --canonicalize --cse --split-input-file | FileCheck %s

// The 2-CTA tcgen05 kernel (#mxfp8train.gemm_config<cta_group = 2>,
// Gemm/TCGen05.cpp): clusters of two CTAs per 256 x 256 tile, the MMAs
// `cta_group::2` (M = 256) issued by the leader CTA (cluster rank 0). Each
// CTA holds 128 rows of A and 128 rows of B per stage (16384 + 16384
// bytes), its SFA chunk and both SFB chunks: six stages, 207008 bytes of
// dynamic shared memory (6 x 32768 + 12 mbarriers + 32 bytes that align
// the scale chunks, TMA destinations, to 128 + 6 x 1536 scale bytes +
// acc_full, acc_empty, the TMEM slot + 1 KiB of alignment).

// Host: the operand maps with 128-row boxes, the scales through 1-D tensor
// maps (boxes of 256 bytes, half a chunk, no swizzle, so that they can
// complete on the leader's barrier), and a cluster launch: M = 256, N = 384
// is 2 tiles, 2 clusters of 2 CTAs.
// CHECK-LABEL: func.func @fwd(
// CHECK-DAG:     %[[SMEM:.*]] = arith.constant 207008 : i32
// CHECK-DAG:     %[[C128:.*]] = llvm.mlir.constant(128 : i64) : i64
// CHECK-DAG:     %[[C256:.*]] = llvm.mlir.constant(256 : i64) : i64
// CHECK:         gpu.launch_func @mxfp8train_kernels::@to_blocked_256x16 {{.*}} args(%{{.*}} : memref<256x16xf8E8M0FNU>, %[[SA:.*]] : memref<4096xf8E8M0FNU>)
// CHECK:         gpu.launch_func @mxfp8train_kernels::@to_blocked_384x16 {{.*}} args(%{{.*}} : memref<384x16xf8E8M0FNU>, %[[SB:.*]] : memref<6144xf8E8M0FNU>)
// B's box: 128 rows x 128 K (half of the 256 columns of a tile per CTA).
// CHECK:         %[[MAPA:.*]] = llvm.call @mgpuTensorMapEncodeTiledMemref(
// CHECK:         %[[BOXB:.*]] = llvm.alloca %{{.*}} x !llvm.array<2 x i64>
// CHECK-NEXT:    %[[B0:.*]] = llvm.getelementptr %[[BOXB]][0, 0]
// CHECK-NEXT:    llvm.store %[[C128]], %[[B0]]
// CHECK-NEXT:    %[[B1:.*]] = llvm.getelementptr %[[BOXB]][0, 1]
// CHECK-NEXT:    llvm.store %[[C128]], %[[B1]]
// CHECK-NEXT:    %[[MAPB:.*]] = llvm.call @mgpuTensorMapEncodeTiledMemref(
// CHECK:         memref.extract_aligned_pointer_as_index %[[SA]] : memref<4096xf8E8M0FNU>
// CHECK:         %[[BOXSA:.*]] = llvm.alloca %{{.*}} x !llvm.array<1 x i64>
// CHECK-NEXT:    %[[S0:.*]] = llvm.getelementptr %[[BOXSA]][0, 0]
// CHECK-NEXT:    llvm.store %[[C256]], %[[S0]]
// CHECK-NEXT:    %[[MAPSA:.*]] = llvm.call @mgpuTensorMapEncodeTiledMemref(
// CHECK:         memref.extract_aligned_pointer_as_index %[[SB]] : memref<6144xf8E8M0FNU>
// CHECK:         %[[MAPSB:.*]] = llvm.call @mgpuTensorMapEncodeTiledMemref(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_mm_tc05_kb_kb_e4m3_e4m3_bf16_256x384x512_s6_cg2 clusters in (%c2, %c1, %c1) blocks in (%c4, %c1, %c1) threads in (%c256, %c1, %c1) dynamic_shared_memory_size %[[SMEM]] args(%[[MAPA]] : !llvm.ptr, %[[MAPSA]] : !llvm.ptr, %[[MAPB]] : !llvm.ptr, %[[MAPSB]] : !llvm.ptr, %{{.*}} : memref<98304xbf16>)
// CHECK:         llvm.call @mgpuMemFree(%[[MAPA]]
// CHECK-NEXT:    llvm.call @mgpuMemFree(%[[MAPB]]
// CHECK-NEXT:    llvm.call @mgpuMemFree(%[[MAPSA]]
// CHECK-NEXT:    llvm.call @mgpuMemFree(%[[MAPSB]]
// CHECK-NEXT:    return

// Setup: the cluster rank; twelve ring barriers and acc_full of one arrival,
// acc_empty of 256 (the epilogues of both CTAs); warp 2 of each CTA
// allocates 512 TMEM columns together (cta_group::2); a cluster barrier
// publishes both CTAs' barriers and allocations.
// CHECK-LABEL: gpu.func @scaled_mm_tc05_kb_kb_e4m3_e4m3_bf16_256x384x512_s6_cg2(
// CHECK-SAME:    %[[MA:[^:]*]]: !llvm.ptr {llvm.noalias, llvm.readonly}, %[[MSA:[^:]*]]: !llvm.ptr {llvm.noalias, llvm.readonly}, %[[MB:[^:]*]]: !llvm.ptr {llvm.noalias, llvm.readonly}, %[[MSB:[^:]*]]: !llvm.ptr {llvm.noalias, llvm.readonly}
// CHECK-SAME:    nvvm.cluster_dim = array<i32: 2, 1, 1>
// The SFA chunks at 196608 + 96 + 32 from the 1024-aligned stages.
// CHECK:         arith.addi %{{.*}}, %c196736 : index
// CHECK:         %[[RANK32:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK-NEXT:    %[[RANK:.*]] = arith.index_castui %[[RANK32]] : i32 to index
// CHECK-NEXT:    %[[LEADER:.*]] = arith.cmpi eq, %[[RANK]], %c0 : index
// CHECK-COUNT-13: nvvm.mbarrier.init %{{.*}}, %c1_i32
// CHECK:         nvvm.mbarrier.init %{{.*}}, %c256_i32
// CHECK-NEXT:    nvvm.fence.mbarrier.init
// CHECK:         nvvm.tcgen05.alloc %{{.*}}, %c512_i32 {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<3>, i32
// CHECK-NEXT:    nvvm.tcgen05.relinquish_alloc_permit {group = #nvvm.cta_group<cta_2>}
// CHECK:         nvvm.tcgen05.fence <before>
// CHECK-NEXT:    nvvm.cluster.arrive
// CHECK-NEXT:    nvvm.cluster.wait
// CHECK-NEXT:    nvvm.tcgen05.fence <after>

// Producer (both CTAs): the tiles of the cluster (blockIdx / 2, step
// gridDim / 2); the leader alone expects the bytes of both CTAs (2 x
// 34304, or 2 x 33792 without the second SFB chunk of the last N tile);
// every copy of both CTAs is a cta_group::2 box completing on the leader's
// full[s] (mapa to rank 0); CTA r loads rows 128 r of the A and B tiles,
// and its SFA chunk from row block (rowBase + 128 r) / 128; each scale
// chunk is two boxes (bytes [off, off + 256) and [off + 256, off + 512)).
// CHECK:         %[[BID:.*]] = gpu.block_id x
// CHECK-NEXT:    %[[GRID:.*]] = gpu.grid_dim x
// CHECK-NEXT:    %[[CLUSTER:.*]] = arith.divui %[[BID]], %c2 : index
// CHECK-NEXT:    %[[CLUSTERS:.*]] = arith.divui %[[GRID]], %c2 : index
// CHECK-NEXT:    scf.for %{{.*}} = %[[CLUSTER]] to %c2 step %[[CLUSTERS]]
// CHECK:           scf.for %[[KT:.*]] = %c0 to %c4 step %c1
// CHECK:             nvvm.mbarrier.try_wait.parity
// CHECK:             %[[TX:.*]] = arith.select %{{.*}}, %c34304_i32, %c33792_i32 : i32
// CHECK:             %[[FULL:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<3>
// CHECK-NEXT:        scf.if %[[LEADER]] {
// CHECK-NEXT:          %[[TX2:.*]] = arith.muli %[[TX]], %c2_i32 : i32
// CHECK-NEXT:          nvvm.mbarrier.arrive.expect_tx %[[FULL]], %[[TX2]] : !llvm.ptr<3>, i32
// CHECK-NEXT:        }
// CHECK-NEXT:        %[[LFULL:.*]] = nvvm.mapa %[[FULL]], %c0_i32 : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK:             %[[HALF:.*]] = arith.muli %[[RANK]], %c128 : index
// CHECK-NEXT:        %[[ROWA:.*]] = arith.addi %{{.*}}, %[[HALF]] : index
// CHECK-NEXT:        %[[ROWB:.*]] = arith.addi %{{.*}}, %[[HALF]] : index
// CHECK:             %[[ROWA32:.*]] = arith.index_cast %[[ROWA]] : index to i32
// CHECK:             %[[DSTA:.*]] = llvm.addrspacecast %{{.*}} : !llvm.ptr<3> to !llvm.ptr<7>
// CHECK-NEXT:        %[[LFULLI:.*]] = llvm.ptrtoint %[[LFULL]] : !llvm.ptr<7> to i64
// CHECK-NEXT:        %[[LFULL3:.*]] = llvm.inttoptr %[[LFULLI]] : i64 to !llvm.ptr<3>
// CHECK-NEXT:        nvvm.cp.async.bulk.tensor.shared.cluster.global %[[DSTA]], %[[MA]], %[[LFULL3]], box[%[[K0:.*]], %[[ROWA32]]] {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<7>, !llvm.ptr
// CHECK:             %[[ROWB32:.*]] = arith.index_cast %[[ROWB]] : index to i32
// CHECK:             nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MB]], %[[LFULL3]], box[%[[K0]], %[[ROWB32]]] {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<7>, !llvm.ptr
// CHECK:             %[[BLKA:.*]] = arith.divui %[[ROWA]], %c128 : index
// CHECK:             %[[OFFA:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK:             %[[DSFA:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<3>
// CHECK-NEXT:        %[[DSFA7:.*]] = llvm.addrspacecast %[[DSFA]] : !llvm.ptr<3> to !llvm.ptr<7>
// CHECK-NEXT:        nvvm.cp.async.bulk.tensor.shared.cluster.global %[[DSFA7]], %[[MSA]], %[[LFULL3]], box[%[[OFFA]]] {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<7>, !llvm.ptr
// CHECK:             nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MSA]], %[[LFULL3]], box[%{{.*}}] {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<7>, !llvm.ptr
// CHECK-COUNT-2:     nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MSB]], %[[LFULL3]], box[%{{.*}}] {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<7>, !llvm.ptr
// CHECK:             scf.if
// CHECK-COUNT-2:       nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MSB]], %[[LFULL3]], box[%{{.*}}] {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<7>, !llvm.ptr
// The producer's tail: after its last tile it waits once more on each of
// the six empty[s] (the leader's last tcgen05.commit arrivals land before
// the CTA may exit).
// CHECK:           scf.for %{{.*}} = %c0 to %c6 step %c1 {
// CHECK-NOT:         nvvm.cp.async.bulk.tensor
// CHECK:             nvvm.mbarrier.try_wait.parity
// CHECK-NOT:         nvvm.cp.async.bulk.tensor
// CHECK:             memref.store
// CHECK:           }
// CHECK-NEXT:    }

// MMA issuer: thread 0 of warp 1 of the leader only. One K stage: the
// scale chunks copied with cta_group::2 (each CTA's chunks into its own
// Tensor Memory), four M = 256 MMAs (instruction descriptors 0x10C00000,
// 0x30C00010, 0x50C00020, 0x70C00030: M 256, N 256, SF IDs 0-3), then the
// commit to empty[s] multicast to both CTAs (mask 0b11); acc_full likewise.
// CHECK:         %[[ISSUER:.*]] = arith.andi %{{.*}}, %[[LEADER]] : i1
// CHECK-NEXT:    scf.if %[[ISSUER]] {
// CHECK:           scf.for %{{.*}} = %{{.*}} to %c2 step %{{.*}} {
// The wait for both CTAs' epilogues on acc_empty acquires at cluster scope
// (the peer's arrivals are .release.cluster).
// CHECK:             scf.while
// CHECK-NEXT:          nvvm.mbarrier.try_wait %{{.*}}, %{{.*}}, %{{.*}} {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<3>, i32, i32 -> i1
// CHECK:             nvvm.tcgen05.fence <after>
// CHECK:             scf.for
// CHECK:               nvvm.mbarrier.try_wait.parity
// CHECK-NEXT:          nvvm.tcgen05.fence <after>
// CHECK-COUNT-3:       nvvm.tcgen05.cp %{{.*}}, %{{.*}} {group = #nvvm.cta_group<cta_2>, multicast = #nvvm.tcgen05_cp_multicast<warpx4>, shape = #nvvm.tcgen05_cp_shape<shape_32x128b>}
// CHECK:               nvvm.tcgen05.mma.block_scale %{{.*}}, %{{.*}}, %{{.*}}, %c281018368_i32, %{{.*}} {blockScale = #nvvm.tcgen05_mma_block_scale<block32>, ctaGroup = #nvvm.cta_group<cta_2>, kind = #nvvm.block_scale_kind<mxf8f6f4>}
// CHECK:               nvvm.tcgen05.mma.block_scale %{{.*}}, %c817889296_i32, %true, {{.*}}ctaGroup = #nvvm.cta_group<cta_2>
// CHECK:               nvvm.tcgen05.mma.block_scale %{{.*}}, %c1354760224_i32, %true, {{.*}}ctaGroup = #nvvm.cta_group<cta_2>
// CHECK:               nvvm.tcgen05.mma.block_scale %{{.*}}, %c1891631152_i32, %true, {{.*}}ctaGroup = #nvvm.cta_group<cta_2>
// CHECK-NOT:           nvvm.tcgen05.mma
// CHECK:               nvvm.tcgen05.commit %{{.*}}, multicast_mask = %c3_i16 {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<3>, i16
// CHECK:             }
// CHECK:             nvvm.tcgen05.commit %{{.*}}, multicast_mask = %c3_i16 {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<3>, i16

// Epilogue (both CTAs): its own TMEM lanes hold rows rowBase + 128 r of
// the tile; after the last load every thread arrives on the leader's
// acc_empty (release at cluster scope).
// CHECK:         nvvm.tcgen05.fence <after>
// CHECK:         %[[EHALF:.*]] = arith.muli %[[RANK]], %c128 : index
// CHECK-NEXT:    %[[EROW:.*]] = arith.addi %{{.*}}, %[[EHALF]] : index
// CHECK:         arith.addi %[[EROW]], %{{.*}} : index
// CHECK-COUNT-8: nvvm.tcgen05.ld
// CHECK-NEXT:    nvvm.tcgen05.wait <load>
// CHECK-NEXT:    nvvm.tcgen05.fence <before>
// CHECK:         %[[LEMPTY:.*]] = nvvm.mapa %{{.*}}, %c0_i32 : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NEXT:    nvvm.mbarrier.arrive %[[LEMPTY]] {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<7>

// Teardown: a cluster barrier (no CTA frees its columns while the pair's
// MMAs or the other epilogue may use them), then each warp 2 frees them.
// CHECK:         nvvm.tcgen05.fence <before>
// CHECK-NEXT:    nvvm.cluster.arrive
// CHECK-NEXT:    nvvm.cluster.wait
// CHECK:         nvvm.tcgen05.fence <after>
// CHECK:         nvvm.tcgen05.dealloc %{{.*}}, %c512_i32 {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<6>, i32
func.func @fwd(%a: tensor<256x512xf8E4M3FN>, %as: tensor<256x16xf8E8M0FNU>,
               %w: tensor<384x512xf8E4M3FN>, %ws: tensor<384x16xf8E8M0FNU>) -> tensor<256x384xbf16> {
  %0 = mxfp8train.scaled_mm %a [%as], %w [%ws] transpose_rhs
      {mxfp8train.gemm_config = #mxfp8train.gemm_config<cta_group = 2>}
      : tensor<256x512xf8E4M3FN> [tensor<256x16xf8E8M0FNU>],
        tensor<384x512xf8E4M3FN> [tensor<384x16xf8E8M0FNU>] -> tensor<256x384xbf16>
  return %0 : tensor<256x384xbf16>
}

// -----

// 2d-3d: 256-row tiles per group (ceil(rows / 256) each), walked per
// cluster. The blocked_m_groups scales pad each group to 128 rows, so the
// SFA chunk of CTA r is the group's first 128-row block (the earlier
// groups' ceil(rows / 128)) plus 2 per earlier tile of the group, plus r.
// Scale chunks come in two 256-byte boxes of the 1-D scale maps (6496
// bytes here: not whole chunks).
// CHECK-LABEL: func.func @fwd_2d3d(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_gmm_2d3d_tc05_k_k_e4m3_e4m3_bf16_300x384x256_b4_s6_cg2 clusters in (%c2, %c1, %c1) blocks in (%c24, %c1, %c1)
// CHECK-LABEL: gpu.func @scaled_gmm_2d3d_tc05_k_k_e4m3_e4m3_bf16_300x384x256_b4_s6_cg2(
// CHECK:         %[[RANK32:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK-NEXT:    %[[RANK:.*]] = arith.index_castui %[[RANK32]] : i32 to index
// CHECK:         scf.for %[[TILE:.*]] = %{{.*}} to %c12 step
// CHECK-NEXT:      %[[MT:.*]] = arith.divui %[[TILE]], %c2 : index
// CHECK:         %[[WALK:.*]]:8 = scf.for %{{.*}} = %c0 to %c4 step %c1 iter_args(%[[START:[^ ]*]] = %c0, %[[CUM:[^ ]*]] = %c0, %{{[^ ]*}} = %false, %{{[^ ]*}} = %c0, %{{[^ ]*}} = %c0, %{{[^ ]*}} = %c0, %[[BLOCKS:[^ ]*]] = %c0, %[[BLOCK:[^ ]*]] = %c0)
// CHECK:           %[[END:.*]] = arith.minsi %{{.*}}, %c300 : index
// CHECK-NEXT:      %[[ROWS:.*]] = arith.subi %[[END]], %[[START]] : index
// CHECK-NEXT:      %[[R255:.*]] = arith.addi %[[ROWS]], %c255 : index
// CHECK-NEXT:      %[[TILES:.*]] = arith.divui %[[R255]], %c256 : index
// CHECK:           %[[HIT:.*]] = arith.andi
// CHECK-NEXT:      %[[INGROUP:.*]] = arith.subi %[[MT]], %[[CUM]] : index

// CHECK:           %[[TWO:.*]] = arith.muli %[[INGROUP]], %c2 : index
// CHECK-NEXT:      %[[MINE:.*]] = arith.addi %[[BLOCKS]], %[[TWO]] : index
// CHECK-NEXT:      %[[R127:.*]] = arith.addi %[[ROWS]], %c127 : index
// CHECK-NEXT:      %[[GBLOCKS:.*]] = arith.divui %[[R127]], %c128 : index
// CHECK-NEXT:      %[[NEXTBLOCKS:.*]] = arith.addi %[[BLOCKS]], %[[GBLOCKS]] : index
// CHECK-NEXT:      %[[SEL:.*]] = arith.select %[[HIT]], %[[MINE]], %[[BLOCK]] : index
// CHECK-NEXT:      scf.yield %[[END]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[NEXTBLOCKS]], %[[SEL]]
// CHECK:         %[[HALF:.*]] = arith.muli %[[RANK]], %c128 : index
// CHECK:         %[[RB:.*]] = arith.divui %[[HALF]], %c128 : index
// CHECK-NEXT:    %[[SFABLOCK:.*]] = arith.addi %[[WALK]]#7, %[[RB]] : index
// CHECK-NEXT:    arith.muli %[[SFABLOCK]], %c128 : index
// CHECK:         %[[OFF32:.*]] = arith.index_cast %[[OFF:.*]] : index to i32
// CHECK:         nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg1, %{{.*}}, box[%[[OFF32]]] {group = #nvvm.cta_group<cta_2>}
// CHECK:         %[[OFF2:.*]] = arith.addi %[[OFF]], %c256 : index
// CHECK-NEXT:    %[[OFF232:.*]] = arith.index_cast %[[OFF2]] : index to i32
// CHECK:         nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg1, %{{.*}}, box[%[[OFF232]]] {group = #nvvm.cta_group<cta_2>}
func.func @fwd_2d3d(%a: tensor<300x256xf8E4M3FN>, %as: tensor<300x8xf8E8M0FNU>,
                    %w: tensor<4x384x256xf8E4M3FN>, %ws: tensor<4x384x8xf8E8M0FNU>,
                    %offs: tensor<4xi32>) -> tensor<300x384xbf16> {
  %y = mxfp8train.scaled_grouped_mm %a [%as], %w [%ws] offs(%offs) transpose_rhs
      {mxfp8train.gemm_config = #mxfp8train.gemm_config<cta_group = 2>}
      : tensor<300x256xf8E4M3FN> [tensor<300x8xf8E8M0FNU>],
        tensor<4x384x256xf8E4M3FN> [tensor<4x384x8xf8E8M0FNU>], tensor<4xi32> -> tensor<300x384xbf16>
  return %y : tensor<300x384xbf16>
}

// -----

// 2d-2d (MN-major operands) and rank-3 scaled_mm take the 2-CTA kernel as
// well; cta_group = 1 is the 1-CTA kernel (no cluster).
// CHECK-LABEL: func.func @wgrad_2d2d(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_gmm_2d2d_tc05_mn_mn_e4m3_e4m3_f32_384x256x320_b4_s6_cg2 clusters in (%c2, %c1, %c1) blocks in (%c16, %c1, %c1)
// CHECK-LABEL: func.func @bmm(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_mm_tc05_k_k_e4m3_e4m3_bf16_256x384x512_b3_s6_cg2 clusters in (%c2, %c1, %c1) blocks in (%c12, %c1, %c1)
// CHECK-LABEL: func.func @one_cta(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_mm_tc05_kb_kb_e4m3_e4m3_bf16_256x384x512_s4 blocks in
// CHECK-LABEL: gpu.func @scaled_mm_tc05_kb_kb_e4m3_e4m3_bf16_256x384x512_s4(
// CHECK-NOT:     nvvm.cluster_dim
// CHECK-SAME:    nvvm.maxntid
// CHECK-NOT:     cta_2
// CHECK:         gpu.return
// CHECK-LABEL: gpu.func @scaled_mm_tc05_k_k_e4m3_e4m3_bf16_256x384x512_b3_s6_cg2(
// CHECK-SAME:    nvvm.cluster_dim = array<i32: 2, 1, 1>
// CHECK-LABEL: gpu.func @scaled_gmm_2d2d_tc05_mn_mn_e4m3_e4m3_f32_384x256x320_b4_s6_cg2(
// CHECK-SAME:    nvvm.cluster_dim = array<i32: 2, 1, 1>
// CHECK:         nvvm.tcgen05.mma.block_scale {{.*}}ctaGroup = #nvvm.cta_group<cta_2>
func.func @wgrad_2d2d(%d: tensor<320x384xf8E4M3FN>, %ds: tensor<10x384xf8E8M0FNU>,
                      %x: tensor<320x256xf8E4M3FN>, %xs: tensor<10x256xf8E8M0FNU>,
                      %offs: tensor<4xi32>) -> tensor<4x384x256xf32> {
  %y = mxfp8train.scaled_grouped_mm %d [%ds], %x [%xs] offs(%offs) transpose_lhs
      {mxfp8train.gemm_config = #mxfp8train.gemm_config<cta_group = 2>}
      : tensor<320x384xf8E4M3FN> [tensor<10x384xf8E8M0FNU>],
        tensor<320x256xf8E4M3FN> [tensor<10x256xf8E8M0FNU>], tensor<4xi32> -> tensor<4x384x256xf32>
  return %y : tensor<4x384x256xf32>
}
func.func @bmm(%a: tensor<3x256x512xf8E4M3FN>, %as: tensor<3x256x16xf8E8M0FNU>,
               %w: tensor<3x384x512xf8E4M3FN>, %ws: tensor<3x384x16xf8E8M0FNU>) -> tensor<3x256x384xbf16> {
  %0 = mxfp8train.scaled_mm %a [%as], %w [%ws] transpose_rhs
      {mxfp8train.gemm_config = #mxfp8train.gemm_config<cta_group = 2>}
      : tensor<3x256x512xf8E4M3FN> [tensor<3x256x16xf8E8M0FNU>],
        tensor<3x384x512xf8E4M3FN> [tensor<3x384x16xf8E8M0FNU>] -> tensor<3x256x384xbf16>
  return %0 : tensor<3x256x384xbf16>
}
func.func @one_cta(%a: tensor<256x512xf8E4M3FN>, %as: tensor<256x16xf8E8M0FNU>,
                   %w: tensor<384x512xf8E4M3FN>, %ws: tensor<384x16xf8E8M0FNU>) -> tensor<256x384xbf16> {
  %0 = mxfp8train.scaled_mm %a [%as], %w [%ws] transpose_rhs
      {mxfp8train.gemm_config = #mxfp8train.gemm_config<cta_group = 1>}
      : tensor<256x512xf8E4M3FN> [tensor<256x16xf8E8M0FNU>],
        tensor<384x512xf8E4M3FN> [tensor<384x16xf8E8M0FNU>] -> tensor<256x384xbf16>
  return %0 : tensor<256x384xbf16>
}
