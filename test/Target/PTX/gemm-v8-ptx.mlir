// REQUIRES: ptxas
// RUN: mxfp8-opt %s --mxfp8train-lower-to-gpu="format=isa" | %extract_ptx > %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: FileCheck %s --input-file=%t.ptx --check-prefix=ORDER
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin > %t.log 2>&1
// RUN: FileCheck %s --input-file=%t.log --check-prefix=PTXAS

// v8 (the default for scaled_mm) in PTX: two dequantization pre-passes
// (prmt byte placement, bf16x2 multiplies, the hardware e4m3 conversion
// only for blocks holding a NaN code), then the bf16 GEMM of 384 threads:
// the flag word read once, the mbarrier ring of four stages, 16-byte
// cp.async.cg into the swizzled stages completed through
// cp.async.mbarrier.arrive.noinc, the async-proxy fence after the full
// wait, wgmma m64n256k16; ptxas without spills.

// CHECK: .target sm_90a
// CHECK-LABEL: .entry gemm_dequant_k_e4m3_1x256x512_pad256x512(
// CHECK-DAG: prmt.b32 {{.*}} 0x1404U;
// CHECK-DAG: prmt.b32 {{.*}} 0x3424U;
// CHECK-DAG: mul.rn.bf16x2
// CHECK-DAG: cvt.rn.f16x2.e4m3x2
// CHECK-DAG: st.global.v4.b32
// CHECK-LABEL: .entry scaled_mm_k_k_bf16_bf16_f32_biasbf16_256x384x512_b1_p1c1_v8w1s4_n256_gs(
// CHECK-DAG: .maxntid 384, 1, 1
// CHECK-DAG: .minnctapersm 1
// CHECK-DAG: ld.global.nc.b32
// CHECK-DAG: mbarrier.try_wait.parity.shared.b64
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// CHECK-DAG: wgmma.wait_group.sync.aligned {{[[:space:]]*}}1;
// CHECK-DAG: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16;
// CHECK-DAG: cp.async.mbarrier.arrive.noinc.shared.b64
// CHECK-LABEL: .entry scaled_mm_k_k_e4m3_e4m3_f32_biasbf16_256x384x512_b1_p2c1_v7w2s4_gu(

// ORDER-LABEL: .entry scaled_mm_k_k_bf16_bf16_f32_biasbf16_256x384x512_b1_p1c1_v8w1s4_n256_gs(
// ORDER: mbarrier.try_wait.parity.shared.b64
// ORDER: fence.proxy.async.shared::cta;
// ORDER: wgmma.fence.sync.aligned;

// PTXAS-NOT: error
// PTXAS-NOT: warning
// PTXAS: Compiling entry function 'scaled_mm_k_k_bf16_bf16_f32_biasbf16_256x384x512_b1_p1c1_v8w1s4_n256_gs' for 'sm_90a'
// PTXAS-NEXT: Function properties
// PTXAS-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Compiling entry function 'gemm_dequant_k_e4m3_1x384x512_pad512x512' for 'sm_90a'
// PTXAS-NEXT: Function properties
// PTXAS-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

func.func @fwd(%a: tensor<256x512xf8E4M3FN>, %as: tensor<256x16xf8E8M0FNU>,
               %w: tensor<384x512xf8E4M3FN>, %ws: tensor<384x16xf8E8M0FNU>,
               %bias: tensor<384xbf16>) -> tensor<256x384xf32> {
  %y = mxfp8train.scaled_mm %a [%as], %w [%ws] bias(%bias) transpose_rhs
      : tensor<256x512xf8E4M3FN> [tensor<256x16xf8E8M0FNU>],
        tensor<384x512xf8E4M3FN> [tensor<384x16xf8E8M0FNU>], tensor<384xbf16> -> tensor<256x384xf32>
  return %y : tensor<256x384xf32>
}
