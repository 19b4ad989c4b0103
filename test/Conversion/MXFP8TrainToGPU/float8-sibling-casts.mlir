// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu --canonicalize --split-input-file | FileCheck %s
// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu="fuse-sibling-casts=false" --canonicalize --split-input-file | FileCheck %s --check-prefix=NOSIB

// fuse-sibling-casts (Float8CastKernels.cpp): tensorwise Float8 quantizes
// of different results of one fused elementwise producer (the SwiGLU
// backward's dH1 and dH3) with the same types, pow2 and K-major form are
// lowered together at the first: one zeroed word per quantize, one amax
// kernel over the producer's operands with an atomic per word, one cast
// kernel writing every quantize's scale, data and K-major copy. Bit-
// identical results: gpu-check.py's `fuse_sibling_casts_*` cases compare
// both lowerings on the GPU.

#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @pair(%x: tensor<256x128xbf16>, %y: tensor<256x128xbf16>, %i: tensor<256x64xbf16>) -> (tensor<128x64xf32>, tensor<128x64xf32>, tensor<f32>, tensor<f32>) {
  %e = tensor.empty() : tensor<256x128xbf16>
  %g:2 = linalg.generic {indexing_maps = [#map, #map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%x, %y : tensor<256x128xbf16>, tensor<256x128xbf16>) outs(%e, %e : tensor<256x128xbf16>, tensor<256x128xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %o0: bf16, %o1: bf16):
    %af = arith.extf %a : bf16 to f32
    %bf = arith.extf %b : bf16 to f32
    %p = arith.mulf %af, %bf : f32
    %d = arith.subf %af, %bf : f32
    %pt = arith.truncf %p : f32 to bf16
    %dt = arith.truncf %d : f32 to bf16
    linalg.yield %pt, %dt : bf16, bf16
  } -> (tensor<256x128xbf16>, tensor<256x128xbf16>)
  %qi, %si = mxfp8train.quantize %i granularity = tensorwise : tensor<256x64xbf16> -> tensor<256x64xf8E4M3FN>, tensor<f32>
  %q0, %s0 = mxfp8train.quantize %g#0 granularity = tensorwise : tensor<256x128xbf16> -> tensor<256x128xf8E5M2>, tensor<f32>
  %w0 = mxfp8train.scaled_mm %q0 [%s0], %qi [%si] transpose_lhs {mxfp8train.role = "wgrad"} : tensor<256x128xf8E5M2> [tensor<f32>], tensor<256x64xf8E4M3FN> [tensor<f32>] -> tensor<128x64xf32>
  %q1, %s1 = mxfp8train.quantize %g#1 granularity = tensorwise : tensor<256x128xbf16> -> tensor<256x128xf8E5M2>, tensor<f32>
  %w1 = mxfp8train.scaled_mm %q1 [%s1], %qi [%si] transpose_lhs {mxfp8train.role = "wgrad"} : tensor<256x128xf8E5M2> [tensor<f32>], tensor<256x64xf8E4M3FN> [tensor<f32>] -> tensor<128x64xf32>
  return %w0, %w1, %s0, %s1 : tensor<128x64xf32>, tensor<128x64xf32>, tensor<f32>, tensor<f32>
}

// Both wgrads read their lhs MN-major: the pair's cast writes both K-major
// copies (and no row-major data: nothing else reads it).
// CHECK-LABEL: func.func @pair(
// CHECK:         %[[K0:.*]] = memref.alloc() : memref<32768xf8E5M2>
// CHECK:         %[[K1:.*]] = memref.alloc() : memref<32768xf8E5M2>
// CHECK:         @float8_cast_kmajor_tensor_bf16_e4m3_b1_k256_r64
// CHECK:         %[[S0:.*]] = memref.alloc() : memref<f32>
// CHECK-NEXT:    %[[S1:.*]] = memref.alloc() : memref<f32>
// CHECK-NEXT:    %[[W:.*]] = memref.alloc() : memref<2xi32>
// CHECK-NEXT:    gpu.memset  %[[W]], %{{.*}} : memref<2xi32>, i32
// CHECK-NEXT:    gpu.launch_func  @mxfp8train_kernels::@[[AMAX:float8_amax_tensor_bf16_32768_ew[0-9a-f]+]] {{.*}} args(%{{.*}} : memref<32768xbf16>, %{{.*}} : memref<32768xbf16>, %[[W]] : memref<2xi32>)
// CHECK-NOT:     float8_amax
// CHECK:         gpu.launch_func  @mxfp8train_kernels::@[[CAST:float8_cast_kmajor_tensor_bf16_e5m2_b1_k256_r128_n2_rm00_ew[0-9a-f]+]] {{.*}} args(%{{.*}} : memref<256x128xbf16>, %{{.*}} : memref<256x128xbf16>, %[[W]] : memref<2xi32>, %[[S0]] : memref<f32>, %[[S1]] : memref<f32>, %[[KA:.*]] : memref<32768xf8E5M2>, %[[KB:.*]] : memref<32768xf8E5M2>)
// CHECK-NOT:     float8_cast
// CHECK:         @scaled_mm_k_k_e5m2_e4m3_f32_128x64x256_{{.*}} args(%{{.*}} : !llvm.ptr, %[[S0]] : memref<f32>,
// CHECK:         @scaled_mm_k_k_e5m2_e4m3_f32_128x64x256_{{.*}} args(%{{.*}} : !llvm.ptr, %[[S1]] : memref<f32>,
// NOSIB-LABEL: func.func @pair(
// NOSIB-COUNT-3: gpu.memset  %{{.*}} : memref<1xi32>, i32
// NOSIB-NOT:     memref<2xi32>
// NOSIB:         gpu.func @float8_amax_tensor_bf16_32768_ew
// NOSIB:         gpu.func @float8_amax_tensor_bf16_32768_ew

// The amax kernel: each chunk's operands loaded and the body evaluated
// once, a running maximum per result, one atomic per result and CTA.
// CHECK:       gpu.func @[[AMAX]](%{{.*}}: memref<32768xbf16> {{.*}}, %{{.*}}: memref<32768xbf16> {{.*}}, %[[AW:.*]]: memref<2xi32> {llvm.noalias})
// CHECK:         scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (vector<8xbf16>, vector<8xbf16>)
// CHECK-COUNT-8:   vector.load
// CHECK-NOT:       vector.load
// CHECK:           scf.yield %{{.*}}, %{{.*}} : vector<8xbf16>, vector<8xbf16>
// CHECK:         memref.atomic_rmw maxu %{{.*}}, %[[AW]][%c0] : (i32, memref<2xi32>) -> i32
// CHECK:         memref.atomic_rmw maxu %{{.*}}, %[[AW]][%c1] : (i32, memref<2xi32>) -> i32

// The cast kernel: both scales from their words, written by thread 0; per
// tile two chunks' operands loaded raw (the source row clamped to K - 1 =
// 255, the column to rows - 16 = 112: always inside the operand; the cast
// zeroes what lies past it), the body evaluated at the cast, each result
// cast into its own swizzled tile, then each tile's K-major stores.
// CHECK:       gpu.func @[[CAST]](%{{.*}}: memref<256x128xbf16> {{.*}}, %{{.*}}: memref<256x128xbf16> {{.*}}, %[[CW:.*]]: memref<2xi32> {{.*}}, %[[CS0:.*]]: memref<f32> {{.*}}, %[[CS1:.*]]: memref<f32> {{.*}}, %[[O0:.*]]: memref<32768xf8E5M2> {{.*}}, %[[O1:.*]]: memref<32768xf8E5M2> {{.*}}) workgroup(%[[T0:.*]] : memref<16384xi8, #gpu.address_space<workgroup>>, %[[T1:.*]] : memref<16384xi8, #gpu.address_space<workgroup>>, %{{.*}} : memref<128xf32, #gpu.address_space<workgroup>>)
// CHECK:         memref.load %[[CW]][%c0]
// CHECK:         memref.load %[[CW]][%c1]
// CHECK:         scf.if
// CHECK-NEXT:      memref.store %{{.*}}, %[[CS0]][]
// CHECK-NEXT:      memref.store %{{.*}}, %[[CS1]][]
// CHECK:         scf.for
// CHECK:           %[[K0:.*]] = arith.minui %{{.*}}, %c255 : index
// CHECK-NEXT:      %[[C0:.*]] = arith.minui %{{.*}}, %c112 : index
// CHECK:           vector.load %{{.*}}[%{{.*}}, %[[C0]]]
// CHECK-NEXT:      vector.load %{{.*}}[%{{.*}}, %[[C0]]]
// CHECK:           arith.minui %{{.*}}, %c255 : index
// CHECK-NEXT:      arith.minui %{{.*}}, %c112 : index
// CHECK-COUNT-2:   vector.load
// CHECK-NOT:       vector.load
// CHECK:           arith.mulf %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK:           arith.subf %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK:           vector.store %{{.*}}, %[[T0]]
// CHECK:           vector.store %{{.*}}, %[[T1]]
// CHECK:           gpu.barrier
// CHECK-COUNT-16:  vector.load %[[T0]]
// CHECK:           vector.store %{{.*}}, %[[O0]]
// CHECK-COUNT-16:  vector.load %[[T1]]
// CHECK:           vector.store %{{.*}}, %[[O1]]

// -----

// Read row-major only (dgrads): the plain tensor cast writes both.
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @pair_rowmajor(%x: tensor<256x128xbf16>, %y: tensor<256x128xbf16>, %w: tensor<128x64xbf16>) -> (tensor<256x64xbf16>, tensor<256x64xbf16>) {
  %e = tensor.empty() : tensor<256x128xbf16>
  %g:2 = linalg.generic {indexing_maps = [#map, #map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%x, %y : tensor<256x128xbf16>, tensor<256x128xbf16>) outs(%e, %e : tensor<256x128xbf16>, tensor<256x128xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %o0: bf16, %o1: bf16):
    %af = arith.extf %a : bf16 to f32
    %bf = arith.extf %b : bf16 to f32
    %p = arith.mulf %af, %bf : f32
    %d = arith.subf %af, %bf : f32
    %pt = arith.truncf %p : f32 to bf16
    %dt = arith.truncf %d : f32 to bf16
    linalg.yield %pt, %dt : bf16, bf16
  } -> (tensor<256x128xbf16>, tensor<256x128xbf16>)
  %qw, %sw = mxfp8train.quantize %w granularity = tensorwise : tensor<128x64xbf16> -> tensor<128x64xf8E4M3FN>, tensor<f32>
  %q0, %s0 = mxfp8train.quantize %g#0 granularity = tensorwise : tensor<256x128xbf16> -> tensor<256x128xf8E5M2>, tensor<f32>
  %d0 = mxfp8train.scaled_mm %q0 [%s0], %qw [%sw] {mxfp8train.role = "dgrad"} : tensor<256x128xf8E5M2> [tensor<f32>], tensor<128x64xf8E4M3FN> [tensor<f32>] -> tensor<256x64xbf16>
  %q1, %s1 = mxfp8train.quantize %g#1 granularity = tensorwise : tensor<256x128xbf16> -> tensor<256x128xf8E5M2>, tensor<f32>
  %d1 = mxfp8train.scaled_mm %q1 [%s1], %qw [%sw] {mxfp8train.role = "dgrad"} : tensor<256x128xf8E5M2> [tensor<f32>], tensor<128x64xf8E4M3FN> [tensor<f32>] -> tensor<256x64xbf16>
  return %d0, %d1 : tensor<256x64xbf16>, tensor<256x64xbf16>
}

// CHECK-LABEL: func.func @pair_rowmajor(
// CHECK:         gpu.memset  %[[W:.*]], %{{.*}} : memref<2xi32>, i32
// CHECK-NEXT:    gpu.launch_func  @mxfp8train_kernels::@float8_amax_tensor_bf16_32768_ew{{.*}} args(%{{.*}} : memref<32768xbf16>, %{{.*}} : memref<32768xbf16>, %[[W]] : memref<2xi32>)
// CHECK-NEXT:    gpu.launch_func  @mxfp8train_kernels::@[[CAST:float8_cast_tensor_bf16_e5m2_32768_ew[0-9a-f]+]] {{.*}} args(%{{.*}} : memref<32768xbf16>, %{{.*}} : memref<32768xbf16>, %[[W]] : memref<2xi32>, %{{.*}} : memref<32768xf8E5M2>, %{{.*}} : memref<f32>, %{{.*}} : memref<32768xf8E5M2>, %{{.*}} : memref<f32>)
// CHECK-NOT:     float8_cast_tensor
// CHECK:       gpu.func @[[CAST]](
// CHECK:         scf.for
// CHECK-COUNT-2:   vector.load
// CHECK-NOT:       vector.load
// CHECK:           nvvm.convert.f32x2.to.f8x2
// CHECK:           vector.store
// CHECK:           nvvm.convert.f32x2.to.f8x2
// CHECK:           vector.store
// NOSIB-LABEL: func.func @pair_rowmajor(
// NOSIB-COUNT-2: @float8_cast_tensor_bf16_e5m2_32768_ew

// -----

// Not siblings: different fp8 types (and one read K-major only).
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @not_siblings(%x: tensor<256x128xbf16>, %y: tensor<256x128xbf16>) -> (tensor<256x128xf8E5M2>, tensor<256x128xf8E4M3FN>) {
  %e = tensor.empty() : tensor<256x128xbf16>
  %g:2 = linalg.generic {indexing_maps = [#map, #map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%x, %y : tensor<256x128xbf16>, tensor<256x128xbf16>) outs(%e, %e : tensor<256x128xbf16>, tensor<256x128xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %o0: bf16, %o1: bf16):
    %af = arith.extf %a : bf16 to f32
    %bf = arith.extf %b : bf16 to f32
    %p = arith.mulf %af, %bf : f32
    %d = arith.subf %af, %bf : f32
    %pt = arith.truncf %p : f32 to bf16
    %dt = arith.truncf %d : f32 to bf16
    linalg.yield %pt, %dt : bf16, bf16
  } -> (tensor<256x128xbf16>, tensor<256x128xbf16>)
  %q0, %s0 = mxfp8train.quantize %g#0 granularity = tensorwise : tensor<256x128xbf16> -> tensor<256x128xf8E5M2>, tensor<f32>
  %q1, %s1 = mxfp8train.quantize %g#1 granularity = tensorwise : tensor<256x128xbf16> -> tensor<256x128xf8E4M3FN>, tensor<f32>
  return %q0, %q1 : tensor<256x128xf8E5M2>, tensor<256x128xf8E4M3FN>
}

// CHECK-LABEL: func.func @not_siblings(
// CHECK-COUNT-2: gpu.memset  %{{.*}} : memref<1xi32>, i32
// CHECK-NOT:     memref<2xi32>
