// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu --canonicalize | FileCheck %s

// The 2-CTA cluster along M of v8's grouped kernels (GemmSpec::clusterM,
// name suffix `_c2`; docs/gpu.md "The 2-CTA cluster along M").

func.func @grouped_2d3d(%a: tensor<1024x512xf8E4M3FN>, %as: tensor<1024x16xf8E8M0FNU>,
                        %w: tensor<8x384x512xf8E4M3FN>, %ws: tensor<8x384x16xf8E8M0FNU>,
                        %offs: tensor<8xi32>) -> tensor<1024x384xbf16> {
  %y = mxfp8train.scaled_grouped_mm %a [%as], %w [%ws] offs(%offs) transpose_rhs
      : tensor<1024x512xf8E4M3FN> [tensor<1024x16xf8E8M0FNU>],
        tensor<8x384x512xf8E4M3FN> [tensor<8x384x16xf8E8M0FNU>], tensor<8xi32>
        -> tensor<1024x384xbf16>
  return %y : tensor<1024x384xbf16>
}

// 2d-3d, 8 experts of up to 1024 rows: the B map's boxes are 128 rows (a
// CTA's half of the 256-column tile), the launch is of clusters of two
// CTAs: (ceil(8 / 2) + 8 experts) x 2 column tiles = 24 pairs, 48 CTAs.
// CHECK-LABEL: func.func @grouped_2d3d(
// CHECK-DAG:     %[[BOX128:.*]] = llvm.mlir.constant(128 : i64) : i64
// CHECK-DAG:     %[[BOX64:.*]] = llvm.mlir.constant(64 : i64) : i64
// CHECK:         memref.expand_shape %{{.*}} output_shape [4096, 512]
// CHECK:         %[[BOX:.*]] = llvm.alloca %{{.*}} x !llvm.array<2 x i64>
// CHECK:         %[[B0:.*]] = llvm.getelementptr %[[BOX]][0, 0]
// CHECK-NEXT:    llvm.store %[[BOX128]], %[[B0]]
// CHECK:         %[[B1:.*]] = llvm.getelementptr %[[BOX]][0, 1]
// CHECK-NEXT:    llvm.store %[[BOX64]], %[[B1]]
// CHECK-NEXT:    llvm.call @mgpuTensorMapEncodeTiledMemref(%{{.*}}, %[[BOX]])
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_gmm_2d3d_k_k_bf16_bf16_bf16_1024x384x512_b8_p1c1_v8w1s4_n256_c2_gs clusters in (%c2, %c1, %c1) blocks in (%c48, %c1, %c1) threads in (%c384, %c1, %c1)
// The fallback (v7) has no cluster.
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_gmm_2d3d_k_k_e4m3_e4m3_bf16_1024x384x512_b8_p2c1_v7w2s4_gu blocks in

// The kernel: full[s] expects 1 arrival, empty[s] 4 (two MMA warpgroups of
// each CTA), a cluster barrier after the initialisation.
// CHECK:       gpu.func @scaled_gmm_2d3d_k_k_bf16_bf16_bf16_1024x384x512_b8_p1c1_v8w1s4_n256_c2_gs(
// CHECK-SAME:    nvvm.cluster_dim = array<i32: 2, 1, 1>
// CHECK-COUNT-4: nvvm.mbarrier.init %{{.*}}, %c4_i32
// CHECK:         nvvm.fence.mbarrier.init
// CHECK-NEXT:  }
// CHECK-NEXT:    nvvm.cluster.arrive
// CHECK-NEXT:    nvvm.cluster.wait
// The MMA role walks pairs: unit t = blockIdx.x / 2 (+ gridDim.x / 2), an
// expert's ceil(rows / 256) pairs, CTA r taking row tile 2 j + r.
// CHECK:         %[[BID:.*]] = arith.divui %block_id_x{{.*}}, %c2 : index
// CHECK:         %[[GRID:.*]] = arith.divui %grid_dim_x{{.*}}, %c2 : index
// CHECK:         %[[RANKI:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK-NEXT:    %[[RANK:.*]] = arith.index_castui %[[RANKI]] : i32 to index
// CHECK-NEXT:    scf.for %[[UNIT:.*]] = %[[BID]] to %c24 step %[[GRID]] {
// CHECK-NEXT:      %[[MU:.*]] = arith.divui %[[UNIT]], %c2 : index
// CHECK:             %[[ROUND:.*]] = arith.addi %{{.*}}, %c255 : index
// CHECK-NEXT:        %[[PAIRS:.*]] = arith.divui %[[ROUND]], %c256 : index
// CHECK:             %[[J:.*]] = arith.subi %[[MU]], %{{.*}} : index
// CHECK-NEXT:        %[[J2:.*]] = arith.muli %[[J]], %c2 : index
// CHECK-NEXT:        %[[MT:.*]] = arith.addi %[[J2]], %[[RANK]] : index
// CHECK-NEXT:        arith.muli %[[MT]], %c128 : index
// The release of a stage: thread 0 of each warpgroup on this CTA's
// empty[s], thread 32 on the peer's (rank ^ 1) through mapa; predicated
// arrivals, no branch (a branch there made ptxas spill the promoted Float8
// kernels' accumulators).
// CHECK:         %[[WGT:.*]] = arith.remui %thread_id_x, %c128 : index
// CHECK:         %[[EMPTY:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<3>
// CHECK-NEXT:    %[[T0:.*]] = arith.cmpi eq, %[[WGT]], %c0 : index
// CHECK-NEXT:    nvvm.mbarrier.arrive.expect_tx %[[EMPTY]], %c0_i32, predicate = %[[T0]] : !llvm.ptr<3>, i32, i1
// CHECK-NEXT:    %[[R:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK-NEXT:    %[[PEER:.*]] = arith.xori %[[R]], %c1_i32 : i32
// CHECK-NEXT:    %[[REMOTE:.*]] = nvvm.mapa %[[EMPTY]], %[[PEER]] : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NEXT:    %[[T32:.*]] = arith.cmpi eq, %[[WGT]], %c32 : index
// The release at CTA scope (no cluster-wide fence per stage).
// CHECK-NEXT:    nvvm.inline_ptx "mbarrier.arrive.release.cta.shared::cluster.b64 _, [$0];" ro(%[[REMOTE]] : !llvm.ptr<7>), predicate = %[[T32]]
// The producer: expect_tx of A (16 KiB) and the whole B tile (32 KiB); A
// into its own stage, B rows [128 r, 128 r + 128) of the tile (expert x 512
// + column + 128 r of the stacked map) multicast to both CTAs (mask 0b11)
// at stage offset 16384 + 16384 r.
// CHECK:         nvvm.prefetch tensormap, %arg0
// CHECK:         nvvm.mbarrier.try_wait.parity
// CHECK:         %[[PRANKI:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK-NEXT:    %[[PRANK:.*]] = arith.index_castui %[[PRANKI]] : i32 to index
// CHECK-NEXT:    %[[HALF:.*]] = arith.muli %[[PRANK]], %c128 : index
// CHECK-NEXT:    %[[COL:.*]] = arith.addi %{{.*}}, %[[HALF]] : index
// CHECK-NEXT:    %[[EXP:.*]] = arith.muli %{{.*}}, %c512 : index
// CHECK-NEXT:    %[[BROW:.*]] = arith.addi %[[EXP]], %[[COL]] : index
// CHECK-NEXT:    %[[BROWI:.*]] = arith.index_castui %[[BROW]] : index to i32
// CHECK-NEXT:    %[[SHARE:.*]] = arith.muli %[[PRANK]], %c16384 : index
// CHECK-NEXT:    %[[BOFF:.*]] = arith.addi %[[SHARE]], %c16384 : index
// CHECK:         nvvm.mbarrier.arrive.expect_tx %[[FULL:.*]], %c49152_i32
// CHECK:         %[[STAGE:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK:         nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg0, %[[FULL]], box[%{{.*}}, %{{.*}}] {isCTAOnly = true}
// CHECK-NEXT:    %[[BDST:.*]] = arith.addi %[[STAGE]], %[[BOFF]] : index
// CHECK:         nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %arg1, %{{.*}}, box[%{{.*}}, %[[BROWI]]] multicast_mask = %c3_i16 : !llvm.ptr<7>, !llvm.ptr
// No CTA exits while its peer may still write into it: a cluster barrier
// before the zeroing of the rows past the last group.
// CHECK:         nvvm.cluster.arrive
// CHECK-NEXT:    nvvm.cluster.wait
// CHECK-NEXT:    gpu.block_id x
