// REQUIRES: ptxas
// RUN: mxfp8-opt %s --mxfp8train-lower-to-gpu="format=isa" | %extract_ptx > %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: FileCheck %s --input-file=%t.ptx --check-prefix=ORDER
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin > %t.log 2>&1
// RUN: FileCheck %s --input-file=%t.log --check-prefix=PTXAS
// RUN: FileCheck %s --input-file=%t.ptx --check-prefix=V7
// RUN: FileCheck %s --input-file=%t.ptx --check-prefix=V7NOSHFL

// The warp-specialised fused-upcast GEMM (v7, `kernel = fused_upcast_ws`,
// v8's fallback) in PTX: 512 threads (two MMA warpgroups, two converter
// warpgroups), the mbarrier ring of GemmMainloop (four stages: full and
// empty barriers initialised once), parity waits on both sides, the
// converters' named barrier (id 1, 256 threads) for the rebalancing
// maxima, the async-proxy fence before the arrive that publishes a stage,
// wgmma m64n128k16 with wait_group 1. An MN-major op asking for v7 gets the
// v5 kernel (its loaders spill at 128 registers).

// CHECK: .target sm_90a
// CHECK-LABEL: .entry scaled_mm_mn_k_e4m3_e4m3_f32_256x384x512_b1_p1c1(
// CHECK: .maxntid 256, 1, 1
// CHECK-NOT: mbarrier
// CHECK-LABEL: .entry scaled_mm_k_k_e4m3_e4m3_bf16_biasbf16_256x384x512_b1_p2c1_v7w2s4(
// CHECK-DAG: .maxntid 512, 1, 1
// CHECK-DAG: .minnctapersm 1
// CHECK-COUNT-8: mbarrier.init.shared.b64
// CHECK: bar.sync 0;
// CHECK-DAG: mbarrier.try_wait.parity.shared.b64
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// CHECK-DAG: wgmma.wait_group.sync.aligned {{[[:space:]]*}}1;
// CHECK-DAG: wgmma.wait_group.sync.aligned {{[[:space:]]*}}0;
// CHECK-DAG: mbarrier.arrive.shared.b64
// CHECK-DAG: bar.sync {{[[:space:]]*}}1, 256;
// CHECK-DAG: mul.rn.bf16x2
// CHECK-DAG: st.shared.v4.b32

// ORDER-LABEL: .entry scaled_mm_k_k_e4m3_e4m3_bf16_biasbf16_256x384x512_b1_p2c1_v7w2s4(
// ORDER: fence.proxy.async.shared::cta;
// ORDER-NEXT: mbarrier.arrive.shared.b64

// The shorter converter: bytes placed by prmt (0x1404: b1 << 24 | b0 << 8,
// 0x3424: b3 << 24 | b2 << 8), the warp maxima by redux.sync (no shuffles),
// the 2^120 restore only on the two-multiply path; 128 registers (this
// small bias shape spills 32 bytes; 8192^3 without bias none).
// V7-LABEL: .entry scaled_mm_k_k_e4m3_e4m3_bf16_biasbf16_256x384x512_b1_p2c1_v7w2s4(
// V7-DAG:   prmt.b32 {{.*}}, 0, 0x1404U;
// V7-DAG:   prmt.b32 {{.*}}, 0, 0x3424U;
// V7-DAG:   redux.sync.max.u32
// V7NOSHFL-LABEL: .entry scaled_mm_k_k_e4m3_e4m3_bf16_biasbf16_256x384x512_b1_p2c1_v7w2s4(
// V7NOSHFL-NOT:   shfl.sync

// PTXAS-NOT: error
// PTXAS-NOT: warning
// PTXAS: Compiling entry function 'scaled_mm_k_k_e4m3_e4m3_bf16_biasbf16_256x384x512_b1_p2c1_v7w2s4' for 'sm_90a'
// PTXAS-NEXT: Function properties
// PTXAS-NEXT: {{[0-9]+}} bytes stack frame, {{[0-9]+}} bytes spill stores
// PTXAS-NEXT: Used 128 registers, used 2 barriers

func.func @fwd(%a: tensor<256x512xf8E4M3FN>, %as: tensor<256x16xf8E8M0FNU>,
               %w: tensor<384x512xf8E4M3FN>, %ws: tensor<384x16xf8E8M0FNU>,
               %bias: tensor<384xbf16>) -> tensor<256x384xbf16> {
  %y = mxfp8train.scaled_mm %a [%as], %w [%ws] bias(%bias) transpose_rhs
      {mxfp8train.gemm_config = #mxfp8train.gemm_config<kernel = fused_upcast_ws>}
      : tensor<256x512xf8E4M3FN> [tensor<256x16xf8E8M0FNU>],
        tensor<384x512xf8E4M3FN> [tensor<384x16xf8E8M0FNU>], tensor<384xbf16> -> tensor<256x384xbf16>
  return %y : tensor<256x384xbf16>
}

func.func @mn_lhs(%a: tensor<512x256xf8E4M3FN>, %as: tensor<16x256xf8E8M0FNU>,
                  %w: tensor<384x512xf8E4M3FN>, %ws: tensor<384x16xf8E8M0FNU>)
    -> tensor<256x384xf32> {
  %y = mxfp8train.scaled_mm %a [%as], %w [%ws] transpose_lhs transpose_rhs
      {mxfp8train.gemm_config = #mxfp8train.gemm_config<kernel = fused_upcast_ws>}
      : tensor<512x256xf8E4M3FN> [tensor<16x256xf8E8M0FNU>],
        tensor<384x512xf8E4M3FN> [tensor<384x16xf8E8M0FNU>] -> tensor<256x384xf32>
  return %y : tensor<256x384xf32>
}
