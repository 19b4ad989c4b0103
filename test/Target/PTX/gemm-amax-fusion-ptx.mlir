// REQUIRES: ptxas
// RUN: mxfp8-opt %s --mxfp8train-lower-to-gpu="format=isa fuse-gemm-amax=true" | %extract_ptx > %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx --check-prefix=FWD
// RUN: FileCheck %s --input-file=%t.ptx --check-prefix=BWD
// RUN: FileCheck %s --input-file=%t.ptx --check-prefix=NOPASS
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin > %t.log 2>&1
// RUN: FileCheck %s --input-file=%t.log --check-prefix=PTXAS
// RUN: FileCheck %s --input-file=%t.log --check-prefix=PTXAS-BWD
// RUN: FileCheck %s --input-file=%t.log --check-prefix=NOERR
// The one-set promotion on 128 x 160 tiles (ordered issue, the staged
// epilogue's last 32 columns): still no stack frame.
// RUN: mxfp8-opt %s --mxfp8train-lower-to-gpu="format=isa fuse-gemm-amax=true float8-promote-tile-n=160" | %extract_ptx > %t.n160.ptx
// RUN: %ptxas -arch=sm_90a -v %t.n160.ptx -o %t.n160.cubin > %t.n160.log 2>&1
// RUN: FileCheck %s --input-file=%t.n160.log --check-prefix=N160
// RUN: FileCheck %s --input-file=%t.n160.log --check-prefix=NOERR
// The amax taken by three producer-warpgroup warps (gemm-amax-warps=3,
// within that warpgroup's 72 registers): the output read back coherently.
// RUN: mxfp8-opt %s --mxfp8train-lower-to-gpu="format=isa fuse-gemm-amax=true gemm-amax-warps=3" | %extract_ptx > %t.w3.ptx
// RUN: FileCheck %s --input-file=%t.w3.ptx --check-prefix=W3
// RUN: %ptxas -arch=sm_90a -v %t.w3.ptx -o %t.w3.cubin > %t.w3.log 2>&1
// RUN: FileCheck %s --input-file=%t.w3.log --check-prefix=NOERR
// RUN: FileCheck %s --input-file=%t.w3.log --check-prefix=W3LOG

// The Float8 GEMMs whose epilogue takes tensorwise amaxes
// (fuse-gemm-amax, Gemm/GemmAmaxFusion.h) in PTX: the fast-accumulation
// forward kernel reading h1 and the promoted dgrad kernel reading h1 and
// h3 (the tile's rows prefetched into L2 at its start, then 16-byte
// non-coherent loads, four row chunks' before the first store), the producer's body (ex2), the warp's maximum by shfl.sync.bfly
// and one atom.global.max.u32 per result; ptxas fits both in the MMA
// warpgroups' registers without spills (the Llama step's kernels at
// 16384 tokens likewise: docs/gpu.md).

#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @swiglu_forward(%qx: tensor<256x128xf8E4M3FN>, %sx: tensor<f32>, %qw1: tensor<384x128xf8E4M3FN>, %sw1: tensor<f32>, %qw3: tensor<384x128xf8E4M3FN>, %sw3: tensor<f32>) -> (tensor<256x384xf8E4M3FN>, tensor<f32>) {
  %cst = arith.constant 1.000000e+00 : f32
  %h1 = mxfp8train.scaled_mm %qx[%sx], %qw1[%sw1] transpose_rhs {mxfp8train.role = "forward", mxfp8train.use_fast_accum = true} : tensor<256x128xf8E4M3FN>[tensor<f32>], tensor<384x128xf8E4M3FN>[tensor<f32>] -> tensor<256x384xbf16>
  %h3 = mxfp8train.scaled_mm %qx[%sx], %qw3[%sw3] transpose_rhs {mxfp8train.role = "forward", mxfp8train.use_fast_accum = true} : tensor<256x128xf8E4M3FN>[tensor<f32>], tensor<384x128xf8E4M3FN>[tensor<f32>] -> tensor<256x384xbf16>
  %e = tensor.empty() : tensor<256x384xbf16>
  %h = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%h1, %h3 : tensor<256x384xbf16>, tensor<256x384xbf16>) outs(%e : tensor<256x384xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %o: bf16):
    %af = arith.extf %a : bf16 to f32
    %bf = arith.extf %b : bf16 to f32
    %n = arith.negf %af : f32
    %x = math.exp %n : f32
    %d = arith.addf %x, %cst : f32
    %s = arith.divf %cst, %d : f32
    %m = arith.mulf %af, %s : f32
    %r = arith.mulf %m, %bf : f32
    %t = arith.truncf %r : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<256x384xbf16>
  %q, %sq = mxfp8train.quantize %h granularity = tensorwise : tensor<256x384xbf16> -> tensor<256x384xf8E4M3FN>, tensor<f32>
  return %q, %sq : tensor<256x384xf8E4M3FN>, tensor<f32>
}

func.func @swiglu_backward(%h1: tensor<256x384xbf16>, %h3: tensor<256x384xbf16>, %qdo: tensor<256x128xf8E5M2>, %sdo: tensor<f32>, %qw2: tensor<128x384xf8E4M3FN>, %sw2: tensor<f32>) -> (tensor<256x384xf8E5M2>, tensor<f32>, tensor<256x384xf8E5M2>, tensor<f32>) {
  %cst = arith.constant 1.000000e+00 : f32
  %da = mxfp8train.scaled_mm %qdo[%sdo], %qw2[%sw2] {mxfp8train.role = "dgrad", mxfp8train.use_fast_accum = false} : tensor<256x128xf8E5M2>[tensor<f32>], tensor<128x384xf8E4M3FN>[tensor<f32>] -> tensor<256x384xbf16>
  %e = tensor.empty() : tensor<256x384xbf16>
  %g:2 = linalg.generic {indexing_maps = [#map, #map, #map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%da, %h1, %h3 : tensor<256x384xbf16>, tensor<256x384xbf16>, tensor<256x384xbf16>) outs(%e, %e : tensor<256x384xbf16>, tensor<256x384xbf16>) {
  ^bb0(%in: bf16, %in_14: bf16, %in_15: bf16, %out: bf16, %out_16: bf16):
    %14 = arith.extf %in : bf16 to f32
    %15 = arith.extf %in_14 : bf16 to f32
    %16 = arith.extf %in_15 : bf16 to f32
    %17 = arith.negf %15 : f32
    %18 = math.exp %17 : f32
    %19 = arith.addf %18, %cst : f32
    %20 = arith.divf %cst, %19 : f32
    %21 = arith.mulf %15, %20 : f32
    %22 = arith.mulf %14, %21 : f32
    %23 = arith.subf %cst, %20 : f32
    %24 = arith.mulf %15, %23 : f32
    %25 = arith.addf %24, %cst : f32
    %26 = arith.mulf %20, %25 : f32
    %27 = arith.mulf %14, %16 : f32
    %28 = arith.mulf %27, %26 : f32
    %29 = arith.truncf %28 : f32 to bf16
    %30 = arith.truncf %22 : f32 to bf16
    linalg.yield %29, %30 : bf16, bf16
  } -> (tensor<256x384xbf16>, tensor<256x384xbf16>)
  %q0, %s0 = mxfp8train.quantize %g#0 granularity = tensorwise : tensor<256x384xbf16> -> tensor<256x384xf8E5M2>, tensor<f32>
  %q1, %s1 = mxfp8train.quantize %g#1 granularity = tensorwise : tensor<256x384xbf16> -> tensor<256x384xf8E5M2>, tensor<f32>
  return %q0, %s0, %q1, %s1 : tensor<256x384xf8E5M2>, tensor<f32>, tensor<256x384xf8E5M2>, tensor<f32>
}

// No amax pass for the fused casts.
// NOPASS-NOT: .entry float8_amax_tensor
// FWD-LABEL: .entry scaled_mm_k_k_e4m3_e4m3_bf16_256x384x128_b1_p1c1_v9w1s4_n256_f8tt_amax
// FWD:         cp.async.bulk.prefetch.L2.global
// FWD:         wgmma.mma_async
// FWD-COUNT-4: ld.global.nc.v4.b32
// FWD:         st.global.v4.b32
// FWD:         ex2.approx
// FWD-COUNT-5: shfl.sync.bfly.b32
// FWD:         atom.global.max.u32
// FWD-NOT:     atom.global
// FWD:       .entry
// BWD-LABEL: .entry scaled_mm_k_k_e5m2_e4m3_bf16_256x384x128_b1_p1c1_v9w1s6_f8tt_acc128_amax
// BWD:         cp.async.bulk.prefetch.L2.global
// BWD:         wgmma.mma_async
// BWD-COUNT-8: ld.global.nc.v4.b32
// BWD:         st.global.v4.b32
// BWD:         ex2.approx
// BWD-COUNT-2: atom.global.max.u32
// BWD-NOT:     atom.global
// BWD:       .entry

// W3-LABEL: .entry scaled_mm_k_k_e4m3_e4m3_bf16_256x384x128_b1_p1c1_v9w1s4_n256_f8tt_amax{{[0-9a-f]+}}w3
// The MMA warps' arrival on full[slot] after a tile (the tile mbarriers
// at +215104), then in the producer warpgroup the TMA copies and the amax
// warps: their arrival on empty[slot] (full + 32 bytes), the wait on
// full[slot], the output read back.
// W3:         mbarrier.init.shared.b64 {{.*}}+215104]
// W3:         setmaxnreg.inc.sync.aligned.u32 216
// W3:         mbarrier.arrive.shared.b64
// W3:         setmaxnreg.dec.sync.aligned.u32 72
// W3:         cp.async.bulk.tensor
// W3:         mbarrier.arrive.shared.b64 {{.*}}+32]
// W3:         mbarrier.try_wait.parity
// W3:         ld.global.v4.b32
// W3:         ld.global.nc.v4.b32
// W3:         ex2.approx
// W3:         atom.global.max.u32
// W3LOG-DAG: Compiling entry function 'scaled_mm_k_k_e4m3_e4m3_bf16_256x384x128_b1_p1c1_v9w1s4_n256_f8tt_amax{{[0-9a-f]+}}w3
// W3LOG-DAG: Compiling entry function 'scaled_mm_k_k_e5m2_e4m3_bf16_256x384x128_b1_p1c1_v9w1s6_f8tt_acc128_amax{{[0-9a-f]+}}w3

// NOERR-NOT: error
// NOERR-NOT: warning
// NOERR-NOT: {{[1-9][0-9]*}} bytes stack frame
// NOERR-NOT: {{[1-9][0-9]*}} bytes spill
// N160: Compiling entry function 'scaled_mm_k_k_e5m2_e4m3_bf16_256x384x128_b1_p1c1_v9w1s{{[0-9]}}_n160_f8tt_acc128_amax
// N160-NEXT: Function properties
// N160-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Compiling entry function 'scaled_mm_k_k_e4m3_e4m3_bf16_256x384x128_b1_p1c1_v9w1s4_n256_f8tt_amax
// PTXAS-NEXT: Function properties
// PTXAS-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-BWD: Compiling entry function 'scaled_mm_k_k_e5m2_e4m3_bf16_256x384x128_b1_p1c1_v9w1s6_f8tt_acc128_amax
// PTXAS-BWD-NEXT: Function properties
// PTXAS-BWD-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
