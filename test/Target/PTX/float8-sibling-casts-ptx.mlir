// REQUIRES: ptxas
// RUN: mxfp8-opt %s --mxfp8train-lower-to-gpu="format=isa" | %extract_ptx > %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin > %t.log 2>&1
// RUN: FileCheck %s --input-file=%t.log --check-prefix=PTXAS

// The sibling tensorwise casts of the SwiGLU backward (dH1, dH3: two
// results of one generic over (dA, h1, h3), each read by a dgrad and,
// MN-major, by a wgrad) in PTX (Float8CastKernels.cpp,
// Gemm/Float8TransposeFusion.cpp): one amax kernel with two atomics, one
// cast kernel storing both results' row-major data and both K-major tiles.
// Its chunks' operands load raw, two chunks in flight, and the body runs at
// the cast: ptxas keeps it within 128 registers (two CTAs an SM) with at
// most a few dozen bytes of spills (evaluated as each of four chunks
// loaded, it spilled 368 bytes).

#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @swiglu_backward(%da: tensor<512x384xbf16>, %h1: tensor<512x384xbf16>, %h3: tensor<512x384xbf16>, %w1: tensor<384x256xbf16>, %x: tensor<512x256xbf16>) -> (tensor<512x256xbf16>, tensor<512x256xbf16>, tensor<384x256xbf16>, tensor<384x256xbf16>) {
  %cst = arith.constant 1.000000e+00 : f32
  %e = tensor.empty() : tensor<512x384xbf16>
  %g:2 = linalg.generic {indexing_maps = [#map, #map, #map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%da, %h1, %h3 : tensor<512x384xbf16>, tensor<512x384xbf16>, tensor<512x384xbf16>) outs(%e, %e : tensor<512x384xbf16>, tensor<512x384xbf16>) {
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
  } -> (tensor<512x384xbf16>, tensor<512x384xbf16>)
  %qw, %sw = mxfp8train.quantize %w1 granularity = tensorwise : tensor<384x256xbf16> -> tensor<384x256xf8E4M3FN>, tensor<f32>
  %qx, %sx = mxfp8train.quantize %x granularity = tensorwise : tensor<512x256xbf16> -> tensor<512x256xf8E4M3FN>, tensor<f32>
  %q0, %s0 = mxfp8train.quantize %g#0 granularity = tensorwise : tensor<512x384xbf16> -> tensor<512x384xf8E5M2>, tensor<f32>
  %d0 = mxfp8train.scaled_mm %q0 [%s0], %qw [%sw] {mxfp8train.role = "dgrad"} : tensor<512x384xf8E5M2> [tensor<f32>], tensor<384x256xf8E4M3FN> [tensor<f32>] -> tensor<512x256xbf16>
  %q1, %s1 = mxfp8train.quantize %g#1 granularity = tensorwise : tensor<512x384xbf16> -> tensor<512x384xf8E5M2>, tensor<f32>
  %d1 = mxfp8train.scaled_mm %q1 [%s1], %qw [%sw] {mxfp8train.role = "dgrad"} : tensor<512x384xf8E5M2> [tensor<f32>], tensor<384x256xf8E4M3FN> [tensor<f32>] -> tensor<512x256xbf16>
  %w0g = mxfp8train.scaled_mm %q0 [%s0], %qx [%sx] transpose_lhs {mxfp8train.role = "wgrad"} : tensor<512x384xf8E5M2> [tensor<f32>], tensor<512x256xf8E4M3FN> [tensor<f32>] -> tensor<384x256xbf16>
  %w1g = mxfp8train.scaled_mm %q1 [%s1], %qx [%sx] transpose_lhs {mxfp8train.role = "wgrad"} : tensor<512x384xf8E5M2> [tensor<f32>], tensor<512x256xf8E4M3FN> [tensor<f32>] -> tensor<384x256xbf16>
  return %d0, %d1, %w0g, %w1g : tensor<512x256xbf16>, tensor<512x256xbf16>, tensor<384x256xbf16>, tensor<384x256xbf16>
}

// CHECK-LABEL: .entry float8_amax_tensor_bf16_196608_ew
// CHECK-COUNT-2: atom.global.max.u32
// CHECK-NOT:     atom.global
// CHECK:       .entry float8_cast_kmajor_tensor_bf16_e5m2_b1_k512_r384_n2_rm11_ew
// CHECK:         ex2.approx
// CHECK:         bar.sync
// CHECK:         ld.shared.b32

// PTXAS-NOT: warning
// PTXAS:     Compiling entry function 'float8_cast_kmajor_tensor_bf16_e5m2_b1_k512_r384_n2_rm11_ew{{[0-9a-f]+}}' for 'sm_90a'
// PTXAS-NEXT: Function properties
// PTXAS-NEXT: {{[0-9]?[0-9]}} bytes stack frame, {{[0-9]?[0-9]}} bytes spill stores, {{[0-9]?[0-9]}} bytes spill loads
// PTXAS-NEXT: Used {{[0-9]+}} registers
