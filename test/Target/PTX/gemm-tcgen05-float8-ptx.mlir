// REQUIRES: ptxas
// RUN: mxfp8-opt %s --mxfp8train-lower-to-gpu="chip=sm_100a format=isa" | %extract_ptx > %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %ptxas -arch=sm_100a -v %t.ptx -o %t.cubin > %t.log 2>&1
// RUN: FileCheck %s --input-file=%t.log --check-prefix=PTXAS

// The Float8 tcgen05 GEMM (Gemm/TCGen05.cpp, GemmSpec::tcgen05Float8) in
// PTX for sm_100a, assembled by ptxas without spills (checked by ptxas and
// by inspection only: no Blackwell GPU runs these here). Per stage four
// `tcgen05.mma ... kind::f8f6f4` without scale operands and no tcgen05.cp;
// the producer's two (K-major) or three (B MN-major: one box per 128
// columns) TMA boxes and no bulk copies of scales; the epilogue's
// correctly rounded reciprocals (rcp.rn, staged once per tile in shared
// memory between two `bar.sync 1, 128` before the accumulator wait) and
// round-to-nearest multiplies
// (LLVM pairs them into mul.rn.f32x2: still one rounding per value and
// step) with no fma (SPEC-float8 §5.4).
//
// Instruction descriptors (kind::f8f6f4: D f32 at bits 4-5, A / B format
// at 7-9 / 10-12, A / B MN-major at 15 / 16, N >> 3 at 17, M >> 4 at 24):
//   138412048 = 0x08400010  e4m3 x e4m3, K-major, N 256, M 128
//   138477712 = 0x08410090  e5m2 x e4m3, B MN-major, N 256, M 128
//   272629776 = 0x10400010  e4m3 x e4m3, K-major, N 256, M 256 (cta_group::2)

// CHECK: .version 8.8
// CHECK: .target sm_100a

// The kernels in the order of the PTX (the reverse of the functions).
// CHECK-LABEL: .entry gemm_f8_transpose_e4m3_b1_k48_r32_g4(
// CHECK-LABEL: .entry gemm_f8_transpose_e4m3_b1_k48_r64_g4(
// CHECK-LABEL: .entry scaled_gmm_2d2d_tc05_k_k_e4m3_e4m3_bf16_32x64x48_b4_f8rr_s4(
// CHECK-NOT: tcgen05.cp
// CHECK: cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// CHECK-NEXT: cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// CHECK-NOT: cp.async.bulk
// CHECK: mov.b32 [[G:%r[0-9]+]], 138412048;
// CHECK-NEXT: tcgen05.mma.cta_group::1.kind::f8f6f4.collector::a::discard [{{%r[0-9]+}}], {{%rd[0-9]+}}, {{%rd[0-9]+}}, [[G]], {{%p[0-9]+}};
// CHECK-NOT: tcgen05.cp

// CHECK-LABEL: .entry scaled_gmm_2d3d_tc05_k_k_e4m3_e4m3_bf16_40x32x64_b4_f8rr_s4(
// CHECK: tcgen05.mma.cta_group::1.kind::f8f6f4.collector::a::discard
// CHECK-NOT: tcgen05.cp

// CHECK-LABEL: .entry scaled_mm_tc05_k_k_e4m3_e4m3_bf16_512x512x256_f8rt_s6_cg2(
// CHECK-NOT: tcgen05.cp
// CHECK: tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32
// CHECK: mov.b32 [[P:%r[0-9]+]], 272629776;
// CHECK-NEXT: tcgen05.mma.cta_group::2.kind::f8f6f4.collector::a::discard [{{%r[0-9]+}}], {{%rd[0-9]+}}, {{%rd[0-9]+}}, [[P]], {{%p[0-9]+}};
// CHECK: tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64
// CHECK-NOT: tcgen05.cp

// CHECK-LABEL: .entry scaled_mm_tc05_k_mn_e5m2_e4m3_f32_200x304x96_f8tt_s4(
// CHECK-NOT: tcgen05.cp
// CHECK: cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes [[[S:%rd[0-9]+]]], [{{%rd[0-9]+}}, {{.*}}
// CHECK: cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes [[[S]]+16384]
// CHECK: cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes [[[S]]+32768]
// CHECK-NOT: cp.async.bulk
// CHECK: mbarrier.try_wait
// CHECK: mov.b32 [[J:%r[0-9]+]], 138477712;
// CHECK-NEXT: tcgen05.mma.cta_group::1.kind::f8f6f4.collector::a::discard [{{%r[0-9]+}}], {{%rd[0-9]+}}, {{%rd[0-9]+}}, [[J]], {{%p[0-9]+}};
// CHECK-COUNT-3: tcgen05.mma.cta_group::1.kind::f8f6f4.collector::a::discard [{{%r[0-9]+}}], {{%rd[0-9]+}}, {{%rd[0-9]+}}, [[J]], {{%p[0-9]+}};
// CHECK-NOT: tcgen05.cp

// CHECK-LABEL: .entry scaled_mm_tc05_k_k_e4m3_e4m3_bf16_biasbf16_256x384x512_f8rr_s4(
// CHECK-NOT: tcgen05.cp
// CHECK-NOT: cp.async.bulk.shared::cta.global
// CHECK: tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32
// CHECK: mbarrier.arrive.expect_tx.shared.b64
// CHECK: cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// CHECK-NEXT: cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// CHECK-NOT: cp.async.bulk
// CHECK: mbarrier.try_wait
// CHECK: mov.b32 [[I:%r[0-9]+]], 138412048;
// CHECK-NEXT: tcgen05.mma.cta_group::1.kind::f8f6f4.collector::a::discard [[[ACC:%r[0-9]+]]], {{%rd[0-9]+}}, {{%rd[0-9]+}}, [[I]], {{%p[0-9]+}};
// CHECK: tcgen05.mma.cta_group::1.kind::f8f6f4.collector::a::discard [[[ACC]]], {{%rd[0-9]+}}, {{%rd[0-9]+}}, [[I]], {{%p[0-9]+}};
// CHECK-NEXT: tcgen05.mma.cta_group::1.kind::f8f6f4.collector::a::discard [[[ACC]]], {{%rd[0-9]+}}, {{%rd[0-9]+}}, [[I]], {{%p[0-9]+}};
// CHECK-NEXT: tcgen05.mma.cta_group::1.kind::f8f6f4.collector::a::discard [[[ACC]]], {{%rd[0-9]+}}, {{%rd[0-9]+}}, [[I]], {{%p[0-9]+}};
// CHECK-NEXT: tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64
// CHECK-NOT: fma.rn
// CHECK: bar.sync 1, 128;
// CHECK-COUNT-3: rcp.rn.f32
// CHECK-NOT: rcp.rn.f32
// CHECK: bar.sync 1, 128;
// CHECK-NOT: rcp.rn.f32
// CHECK: mbarrier.try_wait
// CHECK-NOT: rcp.rn.f32
// CHECK: ld.shared.b32
// CHECK-NOT: rcp.rn.f32
// CHECK: tcgen05.ld.sync.aligned.32x32b.x32.b32
// CHECK-NOT: fma.rn
// CHECK: mul.rn.f32x2
// CHECK-NOT: fma.rn
// CHECK-NOT: rcp.rn.f32
// CHECK: add.rn.f32x2
// CHECK-NOT: fma.rn
// CHECK: cvt.rn.bf16x2.f32
// CHECK-NOT: tcgen05.cp
// CHECK: tcgen05.dealloc.cta_group::1.sync.aligned.b32

// PTXAS-NOT: error
// PTXAS-NOT: warning
// PTXAS: Compiling entry function 'scaled_mm_tc05_k_k_e4m3_e4m3_bf16_biasbf16_256x384x512_f8rr_s4' for 'sm_100a'
// PTXAS-NEXT: Function properties
// PTXAS-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Compiling entry function 'scaled_mm_tc05_k_mn_e5m2_e4m3_f32_200x304x96_f8tt_s4' for 'sm_100a'
// PTXAS-NEXT: Function properties
// PTXAS-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Compiling entry function 'scaled_mm_tc05_k_k_e4m3_e4m3_bf16_512x512x256_f8rt_s6_cg2' for 'sm_100a'
// PTXAS-NEXT: Function properties
// PTXAS-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Compiling entry function 'scaled_gmm_2d3d_tc05_k_k_e4m3_e4m3_bf16_40x32x64_b4_f8rr_s4' for 'sm_100a'
// PTXAS-NEXT: Function properties
// PTXAS-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Compiling entry function 'scaled_gmm_2d2d_tc05_k_k_e4m3_e4m3_bf16_32x64x48_b4_f8rr_s4' for 'sm_100a'
// PTXAS-NEXT: Function properties
// PTXAS-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Compiling entry function 'gemm_f8_transpose_e4m3_b1_k48_r64_g4' for 'sm_100a'
// PTXAS-NEXT: Function properties
// PTXAS-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Compiling entry function 'gemm_f8_transpose_e4m3_b1_k48_r32_g4' for 'sm_100a'
// PTXAS-NEXT: Function properties
// PTXAS-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// Rowwise e4m3, bf16 bias and output (the forward).
func.func @fwd(%a: tensor<256x512xf8E4M3FN>, %as: tensor<256x1xf32>,
               %w: tensor<384x512xf8E4M3FN>, %ws: tensor<384x1xf32>,
               %bias: tensor<384xbf16>) -> tensor<256x384xbf16> {
  %y = mxfp8train.scaled_mm %a [%as], %w [%ws] bias(%bias) transpose_rhs
      : tensor<256x512xf8E4M3FN> [tensor<256x1xf32>],
        tensor<384x512xf8E4M3FN> [tensor<384x1xf32>], tensor<384xbf16> -> tensor<256x384xbf16>
  return %y : tensor<256x384xbf16>
}

// Tensorwise e5m2 grad_output x e4m3 weight stored (K, N), f32 out (the
// tensorwise recipe's grad_input), edge tiles in M and N.
func.func @dgrad(%g: tensor<200x96xf8E5M2>, %t: tensor<f32>, %w: tensor<96x304xf8E4M3FN>, %tw: tensor<f32>) -> tensor<200x304xf32> {
  %y = mxfp8train.scaled_mm %g [%t], %w [%tw]
      : tensor<200x96xf8E5M2> [tensor<f32>], tensor<96x304xf8E4M3FN> [tensor<f32>] -> tensor<200x304xf32>
  return %y : tensor<200x304xf32>
}

// The 2-CTA kernel, rowwise x tensorwise.
func.func @pair(%a: tensor<512x256xf8E4M3FN>, %as: tensor<512x1xf32>,
                %w: tensor<512x256xf8E4M3FN>, %ws: tensor<f32>) -> tensor<512x512xbf16> {
  %y = mxfp8train.scaled_mm %a [%as], %w [%ws] transpose_rhs
      {mxfp8train.gemm_config = #mxfp8train.gemm_config<cta_group = 2>}
      : tensor<512x256xf8E4M3FN> [tensor<512x1xf32>],
        tensor<512x256xf8E4M3FN> [tensor<f32>] -> tensor<512x512xbf16>
  return %y : tensor<512x512xbf16>
}

// Grouped 2d-3d (the MoE forward).
func.func @grouped(%a: tensor<40x64xf8E4M3FN>, %as: tensor<40x1xf32>, %w: tensor<4x32x64xf8E4M3FN>, %ws: tensor<4x32x1xf32>, %offs: tensor<4xi32>) -> tensor<40x32xbf16> {
  %out = mxfp8train.scaled_grouped_mm %a [%as], %w [%ws] offs(%offs) transpose_rhs
      : tensor<40x64xf8E4M3FN> [tensor<40x1xf32>], tensor<4x32x64xf8E4M3FN> [tensor<4x32x1xf32>], tensor<4xi32> -> tensor<40x32xbf16>
  return %out : tensor<40x32xbf16>
}

// 2d-2d (the grad_weight): the two fp8 transposes (token groups padded to
// 128) and the kernel on their K-major buffers.
func.func @grouped_2d2d(%go: tensor<48x32xf8E4M3FN>, %gos: tensor<4x32xf32>, %x: tensor<48x64xf8E4M3FN>, %xs: tensor<4x64xf32>, %offs: tensor<4xi32>) -> tensor<4x32x64xbf16> {
  %dw = mxfp8train.scaled_grouped_mm %go [%gos], %x [%xs] offs(%offs) transpose_lhs
      : tensor<48x32xf8E4M3FN> [tensor<4x32xf32>], tensor<48x64xf8E4M3FN> [tensor<4x64xf32>], tensor<4xi32> -> tensor<4x32x64xbf16>
  return %dw : tensor<4x32x64xbf16>
}
