// REQUIRES: ptxas
// RUN: mxfp8-opt %s --mxfp8train-lower-to-gpu="format=isa" | %extract_ptx > %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin > %t.log 2>&1
// RUN: FileCheck %s --input-file=%t.log --check-prefix=PTXAS

// The sm_90a Float8 GEMM (Gemm/WGMMAFloat8.cpp) in PTX: fp8 wgmma
// m64n256k32 with f32 accumulators on e4m3 x e4m3 and e5m2 x e4m3, the TMA
// producer's 2-D boxes of the fp8 operands, and the epilogue's correctly
// rounded reciprocals (rcp.rn.f32) and two mul.rn.f32 per value before the
// f32 bias add (no fma: one rounding per step, SPEC-float8 §5.4). The
// grouped 2d-3d kernel (fast accumulation, 128 x 256 tiles) runs as a pair
// of CTAs by default (`_c2`; docs/gpu.md "The 2-CTA cluster along M"): its
// half of the B tile multicast, the stage released on the peer at CTA
// scope by a predicated arrive. ptxas assembles the three kernels without
// spills (the promoted kernels as a pair: gemm-float8-pair-ptx.mlir).

// CHECK: .target sm_90a
// CHECK-LABEL: .entry scaled_gmm_2d3d_k_ks_e4m3_e4m3_bf16_512x256x256_b4_p1c1_v9w1s4_n256_c2_f8rr(
// CHECK: .reqnctapercluster 2, 1, 1
// CHECK: @{{%p[0-9]+}} mbarrier.arrive.release.cta.shared::cluster.b64 _
// CHECK: cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster
// CHECK-LABEL: .entry scaled_mm_k_k_e5m2_e4m3_f32_200x304x96_b1_p1c1_v9w1s4_n256_f8tt(
// CHECK: wgmma.mma_async.sync.aligned.m64n256k32.f32.e5m2.e4m3
// CHECK: rcp.rn.f32
// CHECK: rcp.rn.f32
// CHECK: mul.rn.f32 [[P:%r[0-9]+]], %r{{[0-9]+}}, [[IA:%r[0-9]+]];
// CHECK-NEXT: mul.rn.f32 %r{{[0-9]+}}, [[P]], [[IB:%r[0-9]+]];
// CHECK: cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// CHECK-LABEL: .entry scaled_mm_k_k_e4m3_e4m3_bf16_biasbf16_256x384x512_b1_p1c1_v9w1s4_n256_f8rr(
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3
// CHECK-NOT: wgmma.mma_async
// CHECK: wgmma.commit_group.sync.aligned
// CHECK: rcp.rn.f32
// CHECK: mul.rn.f32 [[Q:%r[0-9]+]], %r{{[0-9]+}}, %r{{[0-9]+}};
// CHECK-NEXT: mul.rn.f32 [[R:%r[0-9]+]], [[Q]], %r{{[0-9]+}};
// CHECK: add.rn.f32 %r{{[0-9]+}}, [[R]], %r{{[0-9]+}};
// CHECK: cvt.rn.bf16x2.f32
// CHECK: cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// CHECK-NOT: fma.rn.f32

// PTXAS-NOT: error
// PTXAS-NOT: warning
// PTXAS-COUNT-3: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: Compiling entry function

func.func @rowwise(%x: tensor<256x512xf8E4M3FN>, %xs: tensor<256x1xf32>, %w: tensor<384x512xf8E4M3FN>, %ws: tensor<384x1xf32>, %b: tensor<384xbf16>) -> tensor<256x384xbf16> {
  %y = mxfp8train.scaled_mm %x [%xs], %w [%ws] bias(%b) transpose_rhs {mxfp8train.role = "forward"}
      : tensor<256x512xf8E4M3FN> [tensor<256x1xf32>], tensor<384x512xf8E4M3FN> [tensor<384x1xf32>], tensor<384xbf16> -> tensor<256x384xbf16>
  return %y : tensor<256x384xbf16>
}

func.func @tensorwise(%g: tensor<200x96xf8E5M2>, %t: tensor<f32>, %w: tensor<304x96xf8E4M3FN>, %u: tensor<f32>) -> tensor<200x304xf32> {
  %y = mxfp8train.scaled_mm %g [%t], %w [%u] transpose_rhs {mxfp8train.role = "forward"}
      : tensor<200x96xf8E5M2> [tensor<f32>], tensor<304x96xf8E4M3FN> [tensor<f32>] -> tensor<200x304xf32>
  return %y : tensor<200x304xf32>
}

func.func @grouped(%a: tensor<512x256xf8E4M3FN>, %as: tensor<512x1xf32>, %w: tensor<4x256x256xf8E4M3FN>, %ws: tensor<4x256x1xf32>, %offs: tensor<4xi32>) -> tensor<512x256xbf16> {
  %y = mxfp8train.scaled_grouped_mm %a [%as], %w [%ws] offs(%offs) transpose_rhs
      : tensor<512x256xf8E4M3FN> [tensor<512x1xf32>], tensor<4x256x256xf8E4M3FN> [tensor<4x256x1xf32>], tensor<4xi32> -> tensor<512x256xbf16>
  return %y : tensor<512x256xbf16>
}
