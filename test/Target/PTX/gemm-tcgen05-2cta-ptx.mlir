// REQUIRES: ptxas
// RUN: mxfp8-opt %s --mxfp8train-lower-to-gpu="chip=sm_100a format=isa" > %t.mlir
// RUN: mlir-translate --mlir-to-llvmir %t.mlir | FileCheck %s --check-prefix=HOST
// RUN: %extract_ptx < %t.mlir > %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %ptxas -arch=sm_100a -v %t.ptx -o %t.cubin > %t.log 2>&1
// RUN: FileCheck %s --input-file=%t.log --check-prefix=PTXAS

// The 2-CTA tcgen05 scaled_mm kernel (#mxfp8train.gemm_config<cta_group =
// 2>, Gemm/TCGen05.cpp) in PTX for sm_100a: the cluster launch of the host
// code, the cluster of two CTAs in the kernel's directives, the pair's
// allocation and cluster barriers, the cta_group::2 copies completing on the
// leader's barrier, one K stage of the leader's MMAs (M = 256) with the
// multicast commits, the epilogue's remote release, and ptxas without
// spills (207008 bytes of dynamic shared memory, set by the launch).

// The host launch: clusters of (2, 1, 1), grid 4 x 1 x 1 (2 tiles), 256
// threads, 207008 bytes of dynamic shared memory.
// HOST: call void @mgpuLaunchClusterKernel(ptr %{{.*}}, i64 2, i64 1, i64 1, i64 4, i64 1, i64 1, i64 256, i64 1, i64 1, i32 207008,

// CHECK: .version 8.8
// CHECK: .target sm_100a
// CHECK-LABEL: .entry scaled_mm_tc05_kb_kb_e4m3_e4m3_bf16_biasbf16_256x384x512_s6_cg2(
// CHECK-DAG: .explicitcluster
// CHECK-DAG: .reqnctapercluster 2, 1, 1
// CHECK-DAG: .maxntid 256, 1, 1
// CHECK: fence.mbarrier_init.release.cluster;
// CHECK: mov.u32 {{%r[0-9]+}}, %cluster_ctarank;
// CHECK: tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32
// CHECK-NEXT: tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;
// CHECK: tcgen05.fence::before_thread_sync;
// CHECK-NEXT: barrier.cluster.arrive;
// CHECK-NEXT: barrier.cluster.wait;
// CHECK-NEXT: tcgen05.fence::after_thread_sync;

// Producer: the leader's expect_tx on its full[s], the leader's full[s]
// mapped into the cluster window, then the A and B boxes (2-D) and the
// scale boxes (1-D, two per chunk) in the cta_group::2 form on it.
// CHECK: mbarrier.arrive.expect_tx.shared.b64 {{%rd[0-9]+}}, [[[FULL:%rd[0-9]+]]],
// CHECK: mapa.shared::cluster.u64 [[LFULL:%rd[0-9]+]], [[FULL]], 0;
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2 [{{%rd[0-9]+}}], [{{%rd[0-9]+}}, {{{%r[0-9]+}}, {{%r[0-9]+}}}], [[[LFULL]]];
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2 [{{%rd[0-9]+}}], [{{%rd[0-9]+}}, {{{%r[0-9]+}}, {{%r[0-9]+}}}], [[[LFULL]]];
// CHECK-COUNT-4: cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2 [{{%rd[0-9]+}}], [{{%rd[0-9]+}}, {{{%r[0-9]+}}}], [[[LFULL]]];

// One K stage of the leader's MMA thread, after its wait for both CTAs'
// epilogues on acc_empty at cluster scope: the three scale chunks copied
// with cta_group::2, four M = 256 MMAs (instruction descriptors
// 0x10C00000 + SF IDs), the commit to empty[s] multicast to both CTAs,
// and after the tile the commit to acc_full, multicast too.
// CHECK: mbarrier.try_wait.parity.acquire.cluster.shared.b64 {{%p[0-9]+}}, [{{%rd[0-9]+}}], {{%r[0-9]+}}, {{%r[0-9]+}};
// CHECK: tcgen05.fence::after_thread_sync;
// CHECK-COUNT-3: tcgen05.cp.cta_group::2.32x128b.warpx4
// CHECK: tcgen05.mma.cta_group::2.kind::mxf8f6f4.block_scale.block32.collector::a::discard
// CHECK-COUNT-3: tcgen05.mma.cta_group::2.kind::mxf8f6f4.block_scale.block32.collector::a::discard
// CHECK-NOT: tcgen05.mma
// CHECK: tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [{{%rd[0-9]+(\+[0-9]+)?}}], [[MASK:%rs[0-9]+]];
// CHECK: tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [{{%rd[0-9]+}}], [[MASK]];

// Epilogue: loads of the CTA's own lanes, then the release of the leader's
// acc_empty through the cluster window; teardown after a cluster barrier.
// CHECK: mapa.shared::cluster.u64 [[LEMPTY:%rd[0-9]+]], {{%rd[0-9]+}}, 0;
// CHECK-COUNT-8: tcgen05.ld.sync.aligned.32x32b.x32.b32
// CHECK-NEXT: tcgen05.wait::ld.sync.aligned;
// CHECK-NEXT: tcgen05.fence::before_thread_sync;
// CHECK: mbarrier.arrive.release.cluster.shared::cluster.b64 _, [[[LEMPTY]]],
// CHECK: barrier.cluster.arrive;
// CHECK-NEXT: barrier.cluster.wait;
// CHECK: tcgen05.dealloc.cta_group::2.sync.aligned.b32
// CHECK-NOT: cta_group::1

// PTXAS-NOT: error
// PTXAS-NOT: warning
// PTXAS: Compiling entry function 'scaled_mm_tc05_kb_kb_e4m3_e4m3_bf16_biasbf16_256x384x512_s6_cg2' for 'sm_100a'
// PTXAS-NEXT: Function properties
// PTXAS-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

func.func @fwd(%a: tensor<256x512xf8E4M3FN>, %as: tensor<256x16xf8E8M0FNU>,
               %w: tensor<384x512xf8E4M3FN>, %ws: tensor<384x16xf8E8M0FNU>,
               %bias: tensor<384xbf16>) -> tensor<256x384xbf16> {
  %y = mxfp8train.scaled_mm %a [%as], %w [%ws] bias(%bias) transpose_rhs
      {mxfp8train.gemm_config = #mxfp8train.gemm_config<cta_group = 2>}
      : tensor<256x512xf8E4M3FN> [tensor<256x16xf8E8M0FNU>],
        tensor<384x512xf8E4M3FN> [tensor<384x16xf8E8M0FNU>], tensor<384xbf16> -> tensor<256x384xbf16>
  return %y : tensor<256x384xbf16>
}
