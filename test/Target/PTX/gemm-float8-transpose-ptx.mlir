// REQUIRES: ptxas
// RUN: mxfp8-opt %s --mxfp8train-lower-to-gpu="format=isa" | %extract_ptx > %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin > %t.log 2>&1
// RUN: FileCheck %s --input-file=%t.log --check-prefix=PTXAS
// RUN: mxfp8-opt %s --mxfp8train-lower-to-gpu="format=isa float8-promote-interval=512" | %extract_ptx > %t512.ptx
// RUN: %ptxas -arch=sm_90a -v %t512.ptx -o %t512.cubin > %t512.log 2>&1
// RUN: FileCheck %s --input-file=%t512.log --check-prefix=PTXAS

// The sm_90a Float8 GEMM's MN-major operands and accumulator promotion in
// PTX (Gemm/Float8Transpose.cpp, Gemm/WGMMA.cpp): the fp8 transpose moves
// 16 bytes per global load and store (four each per thread and tile),
// 16-byte shared stores and 4-byte shared loads (16 per thread: a source
// row's bytes of the thread's four output rows) around one CTA barrier;
// the promoted GEMMs (dgrad, wgrad e5m2 x e4m3, grouped 2d-2d) issue
// m64n128k32 wgmma and add the accumulators into the f32 sum with
// add.rn.f32. ptxas assembles the ten kernels without
// spills or warnings (none serializes its wgmma), also with a 512-element
// promotion interval.

// CHECK: .target sm_90a
// CHECK-LABEL: .entry gemm_f8_transpose_e4m3_b1_k512_r256_g4(
// CHECK-COUNT-4: ld.global.nc.v4.b32
// CHECK: bar.sync 0;
// CHECK-COUNT-16: ld.shared.b32
// CHECK-NOT: ld.shared
// CHECK-COUNT-4: st.global.v4.b32
// CHECK-LABEL: .entry scaled_gmm_2d2d_k_k_e4m3_e4m3_bf16_256x128x512_b4_p1c1_v9w1s4_f8rr_acc128(
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// CHECK-DAG: add.rn.f32
// CHECK-LABEL: .entry gemm_f8_transpose_e5m2_b1_k512_r256(
// CHECK-LABEL: .entry scaled_mm_k_k_e5m2_e4m3_f32_256x128x512_b1_p1c1_v9w1s6_f8tt_acc128(
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n128k32.f32.e5m2.e4m3
// CHECK-DAG: add.rn.f32
// CHECK-LABEL: .entry gemm_f8_transpose_e4m3_b1_k384_r512(
// CHECK-LABEL: .entry scaled_mm_k_k_e4m3_e4m3_bf16_256x512x384_b1_p1c1_v9w1s6_f8rr_acc128(
// CHECK: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3

// PTXAS-NOT: error
// PTXAS-NOT: warning
// PTXAS-NOT: serialized
// PTXAS-COUNT-10: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: Compiling entry function

func.func @dgrad(%g: tensor<256x384xf8E4M3FN>, %gs: tensor<256x1xf32>, %w: tensor<384x512xf8E4M3FN>, %ws: tensor<1x512xf32>) -> tensor<256x512xbf16> {
  %y = mxfp8train.scaled_mm %g [%gs], %w [%ws] {mxfp8train.role = "dgrad"}
      : tensor<256x384xf8E4M3FN> [tensor<256x1xf32>], tensor<384x512xf8E4M3FN> [tensor<1x512xf32>] -> tensor<256x512xbf16>
  return %y : tensor<256x512xbf16>
}

func.func @wgrad(%g: tensor<512x256xf8E5M2>, %t: tensor<f32>, %x: tensor<512x128xf8E4M3FN>, %u: tensor<f32>) -> tensor<256x128xf32> {
  %y = mxfp8train.scaled_mm %g [%t], %x [%u] transpose_lhs {mxfp8train.role = "wgrad"}
      : tensor<512x256xf8E5M2> [tensor<f32>], tensor<512x128xf8E4M3FN> [tensor<f32>] -> tensor<256x128xf32>
  return %y : tensor<256x128xf32>
}

func.func @grouped_2d2d(%a: tensor<512x256xf8E4M3FN>, %as: tensor<4x256xf32>, %b: tensor<512x128xf8E4M3FN>, %bs: tensor<4x128xf32>, %offs: tensor<4xi32>) -> tensor<4x256x128xbf16> {
  %y = mxfp8train.scaled_grouped_mm %a [%as], %b [%bs] offs(%offs) transpose_lhs {mxfp8train.use_fast_accum = false}
      : tensor<512x256xf8E4M3FN> [tensor<4x256xf32>], tensor<512x128xf8E4M3FN> [tensor<4x128xf32>], tensor<4xi32> -> tensor<4x256x128xbf16>
  return %y : tensor<4x256x128xbf16>
}

func.func @dgrad_mixed(%g: tensor<256x1024xf8E4M3FN>, %gs: tensor<256x1xf32>, %w: tensor<1024x512xf8E4M3FN>, %ws: tensor<f32>) -> tensor<256x512xbf16> {
  %y = mxfp8train.scaled_mm %g [%gs], %w [%ws] {mxfp8train.role = "dgrad"}
      : tensor<256x1024xf8E4M3FN> [tensor<256x1xf32>], tensor<1024x512xf8E4M3FN> [tensor<f32>] -> tensor<256x512xbf16>
  return %y : tensor<256x512xbf16>
}
