// REQUIRES: ptxas
// RUN: mxfp8-opt %s --mxfp8train-lower-to-gpu="format=isa" | %extract_ptx > %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: FileCheck %s --input-file=%t.ptx --check-prefix=ORDER
// RUN: FileCheck %s --input-file=%t.ptx --check-prefix=NOCVT
// RUN: FileCheck %s --input-file=%t.ptx --check-prefix=WGMMA
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin > %t.log 2>&1
// RUN: FileCheck %s --input-file=%t.log --check-prefix=PTXAS
// RUN: FileCheck %s --input-file=%t.log --check-prefix=SPILL

// The sm_90a GEMM kernels (Gemm/WGMMAUpcast.cpp) in PTX: exact e4m3 -> bf16
// upcast by integer bit moves and bf16x2 multiplies (no F2F conversions),
// scale rebalancing through shared-memory atomics, the async-proxy fence
// before the barrier that publishes a stage, four wgmma m64n128k16 bf16 per
// stage with fp32 accumulators, wait_group 1 in the loop. ptxas assembles
// them without spills (forward layout: 128 registers for two CTAs per SM;
// MN-major operands: one CTA per SM). The forward op asks for v5
// (`#mxfp8train.gemm_config<kernel = fused_upcast>`; its default is v8,
// gemm-v8-ptx.mlir).

// CHECK: .version 8.6
// CHECK: .target sm_90a
// The kernels are emitted in reverse order of their ops.
// CHECK-LABEL: .entry scaled_gmm_2d2d_k_k_e4m3_e4m3_f32_256x384x1024_b4_p1c2(
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK-LABEL: .entry scaled_mm_mn_mn_e4m3_e4m3_f32_biasbf16_256x512x384_b1_p1c1(
// CHECK: .minnctapersm 1
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK-LABEL: .entry scaled_mm_k_k_e4m3_e4m3_bf16_biasbf16_256x384x512_b1_p1c2(
// CHECK-DAG: .maxntid 256, 1, 1
// CHECK-DAG: .minnctapersm 2
// CHECK-DAG: atom.shared.max.u32
// CHECK-DAG: mul.rn.bf16x2
// CHECK-DAG: st.shared.v4.b32
// CHECK-DAG: fence.proxy.async.shared::cta;
// CHECK-DAG: wgmma.fence.sync.aligned;
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK-DAG: wgmma.commit_group.sync.aligned;
// CHECK-DAG: wgmma.wait_group.sync.aligned {{[[:space:]]*}}1;
// CHECK-DAG: wgmma.wait_group.sync.aligned {{[[:space:]]*}}0;

// Every stage is published by the fence and a barrier; four wgmma per
// stage and kernel; no F2F conversion of fp8 anywhere.
// ORDER: fence.proxy.async.shared::cta;
// ORDER-NEXT: bar.sync
// WGMMA-COUNT-12: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// WGMMA-NOT: wgmma.mma_async
// NOCVT-NOT: cvt.f32.f16
// NOCVT-NOT: cvt.rn.f16x2.e4m3x2

// PTXAS-NOT: error
// PTXAS-NOT: warning
// PTXAS-DAG: Compiling entry function 'scaled_mm_k_k_e4m3_e4m3_bf16_biasbf16_256x384x512_b1_p1c2' for 'sm_90a'
// PTXAS-DAG: Compiling entry function 'scaled_mm_mn_mn_e4m3_e4m3_f32_biasbf16_256x512x384_b1_p1c1' for 'sm_90a'
// PTXAS-DAG: Compiling entry function 'scaled_gmm_2d2d_k_k_e4m3_e4m3_f32_256x384x1024_b4_p1c2' for 'sm_90a'
// SPILL-NOT: {{[1-9][0-9]*}} bytes spill
// SPILL-COUNT-3: 0 bytes spill stores, 0 bytes spill loads
// SPILL-NOT: {{[1-9][0-9]*}} bytes spill

func.func @fwd(%a: tensor<256x512xf8E4M3FN>, %as: tensor<256x16xf8E8M0FNU>,
               %w: tensor<384x512xf8E4M3FN>, %ws: tensor<384x16xf8E8M0FNU>,
               %bias: tensor<384xbf16>) -> tensor<256x384xbf16> {
  %y = mxfp8train.scaled_mm %a [%as], %w [%ws] bias(%bias) transpose_rhs
      {mxfp8train.gemm_config = #mxfp8train.gemm_config<kernel = fused_upcast>}
      : tensor<256x512xf8E4M3FN> [tensor<256x16xf8E8M0FNU>],
        tensor<384x512xf8E4M3FN> [tensor<384x16xf8E8M0FNU>], tensor<384xbf16> -> tensor<256x384xbf16>
  return %y : tensor<256x384xbf16>
}

func.func @mn_major(%a: tensor<384x256xf8E4M3FN>, %as: tensor<12x256xf8E8M0FNU>,
                    %b: tensor<384x512xf8E4M3FN>, %bs: tensor<12x512xf8E8M0FNU>,
                    %bias: tensor<512xbf16>) -> tensor<256x512xf32> {
  %y = mxfp8train.scaled_mm %a [%as], %b [%bs] bias(%bias) transpose_lhs
      {mxfp8train.gemm_config = #mxfp8train.gemm_config<kernel = fused_upcast>}
      : tensor<384x256xf8E4M3FN> [tensor<12x256xf8E8M0FNU>],
        tensor<384x512xf8E4M3FN> [tensor<12x512xf8E8M0FNU>], tensor<512xbf16> -> tensor<256x512xf32>
  return %y : tensor<256x512xf32>
}

func.func @wgrad(%dot: tensor<256x1024xf8E4M3FN>, %ds: tensor<256x32xf8E8M0FNU>,
                 %xt: tensor<384x1024xf8E4M3FN>, %xs: tensor<384x32xf8E8M0FNU>,
                 %offs: tensor<4xi32>) -> tensor<4x256x384xf32> {
  %y = mxfp8train.scaled_grouped_mm %dot [%ds], %xt [%xs] offs(%offs) transpose_rhs
      {mxfp8train.gemm_config = #mxfp8train.gemm_config<kernel = fused_upcast>}
      : tensor<256x1024xf8E4M3FN> [tensor<256x32xf8E8M0FNU>],
        tensor<384x1024xf8E4M3FN> [tensor<384x32xf8E8M0FNU>], tensor<4xi32>
        -> tensor<4x256x384xf32>
  return %y : tensor<4x256x384xf32>
}
