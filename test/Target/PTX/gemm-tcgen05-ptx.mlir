// REQUIRES: ptxas
// RUN: mxfp8-opt %s --mxfp8train-lower-to-gpu="chip=sm_100a format=isa" > %t.mlir
// RUN: FileCheck %s --input-file=%t.mlir --check-prefix=HOST
// RUN: %extract_ptx < %t.mlir > %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: FileCheck %s --input-file=%t.ptx --check-prefix=STAGE
// RUN: %ptxas -arch=sm_100a -v %t.ptx -o %t.cubin > %t.log 2>&1
// RUN: FileCheck %s --input-file=%t.log --check-prefix=PTXAS

// The tcgen05 scaled_mm kernel (Gemm/TCGen05.cpp) in PTX for sm_100a (PTX
// ISA 8.8: the .block32 form needs it): the setup, one K stage of the MMA
// issuer in order, the epilogue's loads, and ptxas without spills. The
// kernel's 203872 bytes of dynamic shared memory (at most sm_100a's 232448)
// are set by the launch in the host code; ptxas reports only static shared
// memory.

// HOST-LABEL: llvm.func @fwd(
// HOST:         %[[SMEM:.*]] = llvm.mlir.constant(203872 : i32) : i32
// HOST:         gpu.launch_func {{.*}}@scaled_mm_tc05_kb_kb_e4m3_e4m3_bf16_biasbf16_256x384x512_s4 blocks in ({{.*}}) threads in ({{.*}}) : i64 dynamic_shared_memory_size %[[SMEM]]

// CHECK: .version 8.8
// CHECK: .target sm_100a
// CHECK-LABEL: .entry scaled_mm_tc05_kb_kb_e4m3_e4m3_bf16_biasbf16_256x384x512_s4(
// CHECK-DAG: .maxntid 256, 1, 1
// CHECK-DAG: .minnctapersm 1
// CHECK: fence.mbarrier_init.release.cluster;
// CHECK: tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32
// CHECK-NEXT: tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
// CHECK: mbarrier.arrive.expect_tx.shared.b64
// CHECK: cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// CHECK: cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes
// CHECK: tcgen05.ld.sync.aligned.32x32b.x32.b32
// CHECK: tcgen05.wait::ld.sync.aligned;
// CHECK: tcgen05.dealloc.cta_group::1.sync.aligned.b32

// One K stage of the MMA thread: wait full[s], fence, the SFA chunk and the
// two SFB chunks copied into consecutive 4-column groups, four MMAs whose
// descriptors step by 2 (32 bytes along K) and whose instruction
// descriptors carry SF IDs 0-3, all reading the same scale columns, then
// the commit that releases the stage.
// STAGE-LABEL: .entry scaled_mm_tc05_kb_kb_e4m3_e4m3_bf16_biasbf16_256x384x512_s4(
// STAGE:      mbarrier.try_wait.parity.shared.b64
// STAGE:      tcgen05.fence::after_thread_sync;
// STAGE:      tcgen05.cp.cta_group::1.32x128b.warpx4 [[[SFA:%r[0-9]+]]], {{%rd[0-9]+}};
// STAGE:      tcgen05.cp.cta_group::1.32x128b.warpx4 [[[SFA]]+4], {{%rd[0-9]+}};
// STAGE:      tcgen05.cp.cta_group::1.32x128b.warpx4 [[[SFA]]+8], {{%rd[0-9]+}};
// STAGE:      or.b64 [[DA:%rd[0-9]+]], {{%rd[0-9]+}}, 4611756662049538048;
// STAGE:      or.b64 [[DB:%rd[0-9]+]], {{%rd[0-9]+}}, 4611756662049538048;
// STAGE:      mov.b32 [[I0:%r[0-9]+]], 146800640;
// STAGE-NEXT: tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.block32.collector::a::discard [[[ACC:%r[0-9]+]]], [[DA]], [[DB]], [[I0]], [[[SFA]]], [[[SFB:%r[0-9]+]]], {{%p[0-9]+}};
// STAGE:      mov.b32 [[I1:%r[0-9]+]], 683671568;
// STAGE-NEXT: tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.block32.collector::a::discard [[[ACC]]], {{%rd[0-9]+}}, {{%rd[0-9]+}}, [[I1]], [[[SFA]]], [[[SFB]]], {{%p[0-9]+}};
// STAGE:      mov.b32 [[I2:%r[0-9]+]], 1220542496;
// STAGE-NEXT: tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.block32.collector::a::discard [[[ACC]]], {{%rd[0-9]+}}, {{%rd[0-9]+}}, [[I2]], [[[SFA]]], [[[SFB]]], {{%p[0-9]+}};
// STAGE:      mov.b32 [[I3:%r[0-9]+]], 1757413424;
// STAGE-NEXT: tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.block32.collector::a::discard [[[ACC]]], {{%rd[0-9]+}}, {{%rd[0-9]+}}, [[I3]], [[[SFA]]], [[[SFB]]], {{%p[0-9]+}};
// STAGE-NOT:  tcgen05.{{cp|mma}}
// STAGE:      tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64
// The tile's accumulator is then committed to acc_full.
// STAGE:      tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64

// PTXAS-NOT: error
// PTXAS-NOT: warning
// PTXAS: Compiling entry function 'scaled_mm_tc05_kb_kb_e4m3_e4m3_bf16_biasbf16_256x384x512_s4' for 'sm_100a'
// PTXAS-NEXT: Function properties
// PTXAS-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

func.func @fwd(%a: tensor<256x512xf8E4M3FN>, %as: tensor<256x16xf8E8M0FNU>,
               %w: tensor<384x512xf8E4M3FN>, %ws: tensor<384x16xf8E8M0FNU>,
               %bias: tensor<384xbf16>) -> tensor<256x384xbf16> {
  %y = mxfp8train.scaled_mm %a [%as], %w [%ws] bias(%bias) transpose_rhs
      : tensor<256x512xf8E4M3FN> [tensor<256x16xf8E8M0FNU>],
        tensor<384x512xf8E4M3FN> [tensor<384x16xf8E8M0FNU>], tensor<384xbf16> -> tensor<256x384xbf16>
  return %y : tensor<256x384xbf16>
}
