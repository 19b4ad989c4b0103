// REQUIRES: ptxas
// RUN: mxfp8-opt %s --mxfp8train-lower-to-gpu="format=isa gemm-cluster-m=2" | %extract_ptx > %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin > %t.log 2>&1
// RUN: FileCheck %s --input-file=%t.log --check-prefix=PTXAS

// The promoted sm_90a Float8 GEMM (a gradient role: the wgmma accumulators
// added into an f32 sum every 128 contraction elements, 128 x 128 tiles)
// as a pair of CTAs along M (gemm-cluster-m=2). Its stage release is two
// predicated arrivals, this CTA's empty[s] and the peer's through mapa, no
// branch: with branches around the two arrivals ptxas spilled this kernel
// (512 bytes here, 376 for the Llama dgrad shape) and it ran twice as slow
// as one CTA (session 19; 2-14 % slower since, bench/README.md session 21).

// CHECK-LABEL: .entry scaled_mm_k_k_e5m2_e4m3_bf16_256x256x512_b1_p1c1_v9w1s{{[0-9]+}}_c2_f8tt_acc128(
// CHECK: .reqnctapercluster 2, 1, 1
// CHECK: wgmma.mma_async.sync.aligned.m64n128k32.f32.e5m2.e4m3
// CHECK: @{{%p[0-9]+}} mbarrier.arrive.expect_tx.shared.b64 _, [{{%r[0-9]+}}], 0;
// CHECK: mapa.shared::cluster.u64 [[REMOTE:%rd[0-9]+]], {{%rd[0-9]+}}, {{%r[0-9]+}};
// CHECK: @{{%p[0-9]+}} mbarrier.arrive.release.cta.shared::cluster.b64 _, [[[REMOTE]]];
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster

// PTXAS-NOT: error
// PTXAS-NOT: warning
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
func.func @dgrad(%g: tensor<256x512xf8E5M2>, %t: tensor<f32>, %w: tensor<256x512xf8E4M3FN>, %u: tensor<f32>) -> tensor<256x256xbf16> {
  %r = mxfp8train.scaled_mm %g [%t], %w [%u] transpose_rhs {mxfp8train.role = "dgrad"}
      : tensor<256x512xf8E5M2> [tensor<f32>], tensor<256x512xf8E4M3FN> [tensor<f32>] -> tensor<256x256xbf16>
  return %r : tensor<256x256xbf16>
}
