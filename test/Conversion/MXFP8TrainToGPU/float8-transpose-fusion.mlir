// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu --canonicalize --split-input-file | FileCheck %s
// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu="fuse-transposes=false" --canonicalize --split-input-file | FileCheck %s --check-prefix=NOFUSE

// fuse-transposes (Gemm/Float8TransposeFusion.h): a Float8 quantize whose
// data a Float8 GEMM reads MN-major writes the K-major copy the GEMM's fp8
// wgmma reads (tiles of 128 K x 128 rows, each token group of a 2d-2d
// GEMM from a multiple of 128), and the GEMM launches no transpose pre-pass
// for that operand. Bit-identical results: gpu-check.py's `fuse_*` cases
// compare both lowerings on the GPU.

// Wgrad: both operands column casts along the tokens (K = 272), read
// MN-major: each cast writes the K-major copy; no transpose pre-pass.
func.func @wgrad_col(%g: tensor<272x208xbf16>, %x: tensor<272x400xbf16>) -> (tensor<208x400xf32>, tensor<1x208xf32>) {
  %q0, %s0 = mxfp8train.quantize %g axis = 0 granularity = axiswise pow2 : tensor<272x208xbf16> -> tensor<272x208xf8E4M3FN>, tensor<1x208xf32>
  %q1, %s1 = mxfp8train.quantize %x axis = 0 granularity = axiswise : tensor<272x400xbf16> -> tensor<272x400xf8E4M3FN>, tensor<1x400xf32>
  %r = mxfp8train.scaled_mm %q0 [%s0], %q1 [%s1] transpose_lhs {mxfp8train.role = "wgrad"} : tensor<272x208xf8E4M3FN> [tensor<1x208xf32>], tensor<272x400xf8E4M3FN> [tensor<1x400xf32>] -> tensor<208x400xf32>
  return %r, %s0 : tensor<208x400xf32>, tensor<1x208xf32>
}

// CHECK-LABEL: func.func @wgrad_col(
// CHECK:         %[[TB:.*]] = memref.alloc() : memref<108800xf8E4M3FN>
// CHECK-NEXT:    %[[TA:.*]] = memref.alloc() : memref<56576xf8E4M3FN>
// CHECK-NOT:     gemm_f8_transpose
// CHECK:         gpu.launch_func  @mxfp8train_kernels::@float8_amax_col_bf16_1x272x208
// CHECK:         gpu.launch_func  @mxfp8train_kernels::@float8_cast_kmajor_col_bf16_e4m3_pow2_b1_k272_r208 blocks in (%c6, %c1, %c1) threads in (%c256, %c1, %c1) args(%{{.*}} : memref<272x208xbf16>, %{{.*}} : memref<208xi32>, %{{.*}} : memref<208xf32>, %[[TA]] : memref<56576xf8E4M3FN>)
// CHECK:         gpu.launch_func  @mxfp8train_kernels::@float8_amax_col_bf16_1x272x400
// CHECK:         gpu.launch_func  @mxfp8train_kernels::@float8_cast_kmajor_col_bf16_e4m3_b1_k272_r400 blocks in (%c12, %c1, %c1) {{.*}} %[[TB]] : memref<108800xf8E4M3FN>)
// CHECK-NOT:     gemm_f8_transpose
// CHECK:         gpu.launch_func  @mxfp8train_kernels::@scaled_mm_k_k_e4m3_e4m3_f32_208x400x272_
// NOFUSE-LABEL: func.func @wgrad_col(
// NOFUSE:         @float8_cast_col_bf16_e4m3_pow2_1x272x208
// NOFUSE:         @float8_cast_col_bf16_e4m3_1x272x400
// NOFUSE:         @gemm_f8_transpose_e4m3_b1_k272_r208
// NOFUSE:         @gemm_f8_transpose_e4m3_b1_k272_r400

// The kernel: every scale from its word (grid-stride), then per tile the
// tile's 128 scales staged in shared memory by threads 0..127, a barrier,
// the four input chunks of a thread loaded (zero past K), each cast
// against its 16 scales (zero bytes past K whatever the scale) into the
// swizzled tile, and the transpose's K-major stores.
// CHECK-LABEL: gpu.func @float8_cast_kmajor_col_bf16_e4m3_pow2_b1_k272_r208(
// CHECK-SAME:      %[[IN:.*]]: memref<272x208xbf16> {llvm.noalias, llvm.readonly}, %[[W:.*]]: memref<208xi32> {llvm.noalias, llvm.readonly}, %[[S:.*]]: memref<208xf32> {llvm.noalias, llvm.writeonly}, %[[OUT:.*]]: memref<56576xf8E4M3FN> {llvm.noalias, llvm.writeonly}) workgroup(%[[TILE:.*]] : memref<16384xi8, #gpu.address_space<workgroup>>, %[[STAGE:.*]] : memref<128xf32, #gpu.address_space<workgroup>>) kernel attributes {{{.*}}nvvm.minctasm = 3 : i32}
// CHECK:           scf.for %[[I:.*]] = %{{.*}} to %c208 step
// CHECK-NEXT:        memref.load %[[W]][%[[I]]]
// CHECK:             memref.store %{{.*}}, %[[S]][%[[I]]]
// CHECK:           scf.for
// CHECK:             arith.cmpi ult, %{{.*}}, %c128 : index
// CHECK:             scf.if
// CHECK:               memref.load %[[W]]
// CHECK:               memref.store %{{.*}}, %[[STAGE]]
// CHECK:             gpu.barrier
// CHECK-COUNT-4:     vector.load %[[IN]]
// CHECK:             vector.load %[[STAGE]]
// CHECK:             arith.mulf %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK:             nvvm.convert.f32x2.to.f8x2
// CHECK:             %[[NAN:.*]] = arith.select %{{.*}}, %cst_1, %{{.*}} : vector<16xi1>, vector<16xi8>
// CHECK-NEXT:        %[[B:.*]] = arith.select %{{.*}}, %[[NAN]], %cst_0 : vector<16xi8>
// CHECK:             vector.store %[[B]], %[[TILE]]
// CHECK:             gpu.barrier
// CHECK:             vector.store %{{.*}}, %[[OUT]]

// -----

// One cast read MN-major by two GEMMs of the same form: one K-major copy.
func.func @shared(%g: tensor<256x128xbf16>, %x: tensor<256x384xbf16>, %y: tensor<256x384xbf16>) -> (tensor<128x384xbf16>, tensor<128x384xbf16>) {
  %q0, %s0 = mxfp8train.quantize %g axis = 0 granularity = axiswise : tensor<256x128xbf16> -> tensor<256x128xf8E4M3FN>, tensor<1x128xf32>
  %q1, %s1 = mxfp8train.quantize %x axis = 0 granularity = axiswise : tensor<256x384xbf16> -> tensor<256x384xf8E4M3FN>, tensor<1x384xf32>
  %q2, %s2 = mxfp8train.quantize %y axis = 0 granularity = axiswise : tensor<256x384xbf16> -> tensor<256x384xf8E4M3FN>, tensor<1x384xf32>
  %r0 = mxfp8train.scaled_mm %q0 [%s0], %q1 [%s1] transpose_lhs {mxfp8train.role = "wgrad"} : tensor<256x128xf8E4M3FN> [tensor<1x128xf32>], tensor<256x384xf8E4M3FN> [tensor<1x384xf32>] -> tensor<128x384xbf16>
  %r1 = mxfp8train.scaled_mm %q0 [%s0], %q2 [%s2] transpose_lhs {mxfp8train.role = "wgrad"} : tensor<256x128xf8E4M3FN> [tensor<1x128xf32>], tensor<256x384xf8E4M3FN> [tensor<1x384xf32>] -> tensor<128x384xbf16>
  return %r0, %r1 : tensor<128x384xbf16>, tensor<128x384xbf16>
}

// CHECK-LABEL: func.func @shared(
// CHECK-COUNT-3: @float8_cast_kmajor_col_
// CHECK-NOT:     gemm_f8_transpose
// CHECK:         @scaled_mm_k_k_e4m3_e4m3_bf16_128x384x256_
// CHECK:         @scaled_mm_k_k_e4m3_e4m3_bf16_128x384x256_
// NOFUSE-LABEL: func.func @shared(
// NOFUSE-COUNT-4: @gemm_f8_transpose_

// -----

// Tensorwise grad_output read K-major (dgrad) and MN-major (wgrad): the
// cast writes its row-major data too (`_rm`).
func.func @tensorwise_both(%g: tensor<256x384xbf16>, %w: tensor<384x320xbf16>, %x: tensor<256x320xbf16>) -> (tensor<256x320xbf16>, tensor<384x320xf32>) {
  %q0, %s0 = mxfp8train.quantize %g granularity = tensorwise : tensor<256x384xbf16> -> tensor<256x384xf8E5M2>, tensor<f32>
  %q1, %s1 = mxfp8train.quantize %w granularity = tensorwise : tensor<384x320xbf16> -> tensor<384x320xf8E4M3FN>, tensor<f32>
  %q2, %s2 = mxfp8train.quantize %x granularity = tensorwise : tensor<256x320xbf16> -> tensor<256x320xf8E4M3FN>, tensor<f32>
  %r0 = mxfp8train.scaled_mm %q0 [%s0], %q1 [%s1] {mxfp8train.role = "dgrad"} : tensor<256x384xf8E5M2> [tensor<f32>], tensor<384x320xf8E4M3FN> [tensor<f32>] -> tensor<256x320xbf16>
  %r1 = mxfp8train.scaled_mm %q0 [%s0], %q2 [%s2] transpose_lhs {mxfp8train.role = "wgrad"} : tensor<256x384xf8E5M2> [tensor<f32>], tensor<256x320xf8E4M3FN> [tensor<f32>] -> tensor<384x320xf32>
  return %r0, %r1 : tensor<256x320xbf16>, tensor<384x320xf32>
}

// CHECK-LABEL: func.func @tensorwise_both(
// CHECK:         %[[DATA:.*]] = memref.alloc() : memref<256x384xf8E5M2>
// CHECK:         gpu.launch_func  @mxfp8train_kernels::@float8_cast_kmajor_tensor_bf16_e5m2_b1_k256_r384_rm {{.*}} args(%{{.*}} : memref<256x384xbf16>, %{{.*}} : memref<1xi32>, %[[DATA]] : memref<256x384xf8E5M2>, %{{.*}} : memref<f32>, %{{.*}} : memref<98304xf8E5M2>)
// CHECK:         @float8_cast_kmajor_tensor_bf16_e4m3_b1_k384_r320 {{.*}}
// CHECK:         @float8_cast_kmajor_tensor_bf16_e4m3_b1_k256_r320 {{.*}}
// CHECK-NOT:     gemm_f8_transpose
// CHECK:         @scaled_mm_k_k_e5m2_e4m3_bf16_256x320x384_
// CHECK:         @scaled_mm_k_k_e5m2_e4m3_f32_384x320x256_
// The row-major data is stored only for chunks inside the operand.
// CHECK-LABEL: gpu.func @float8_cast_kmajor_tensor_bf16_e5m2_b1_k256_r384_rm(
// CHECK:           %[[Q:.*]] = arith.bitcast %{{.*}} : vector<16xi8> to vector<16xf8E5M2>
// CHECK-NEXT:      scf.if %{{.*}} {
// CHECK-NEXT:        arith.muli %{{.*}}, %c256 : index
// CHECK-NEXT:        %[[R:.*]] = arith.addi
// CHECK-NEXT:        vector.store %[[Q]], %arg2[%[[R]], %{{.*}}]

// -----

// 2d-2d: per-group casts with the GEMM's offsets write the K-major copies
// with each token group at a multiple of 128. The second operand's data is
// also returned: that cast keeps its kernel and the GEMM its transpose.
func.func @grouped_2d2d(%a: tensor<1008x144xbf16>, %b: tensor<1008x272xbf16>, %offs: tensor<4xi32>) -> (tensor<4x144x272xbf16>, tensor<1008x272xf8E4M3FN>) {
  %q0, %s0 = mxfp8train.quantize %a offs(%offs) axis = 0 granularity = axiswise pow2 : tensor<1008x144xbf16>, tensor<4xi32> -> tensor<1008x144xf8E4M3FN>, tensor<4x144xf32>
  %q1, %s1 = mxfp8train.quantize %b offs(%offs) axis = 0 granularity = axiswise pow2 : tensor<1008x272xbf16>, tensor<4xi32> -> tensor<1008x272xf8E4M3FN>, tensor<4x272xf32>
  %r = mxfp8train.scaled_grouped_mm %q0 [%s0], %q1 [%s1] offs(%offs) transpose_lhs {mxfp8train.role = "wgrad"} : tensor<1008x144xf8E4M3FN> [tensor<4x144xf32>], tensor<1008x272xf8E4M3FN> [tensor<4x272xf32>], tensor<4xi32> -> tensor<4x144x272xbf16>
  return %r, %q1 : tensor<4x144x272xbf16>, tensor<1008x272xf8E4M3FN>
}

// CHECK-LABEL: func.func @grouped_2d2d(
// CHECK:         gpu.launch_func  @mxfp8train_kernels::@float8_group_amax_bf16_1008x144_g4
// CHECK:         gpu.launch_func  @mxfp8train_kernels::@float8_cast_kmajor_group_bf16_e4m3_pow2_b1_k1008_r144_g4 blocks in (%c24, %c1, %c1) {{.*}} args(%{{.*}} : memref<1008x144xbf16>, %{{.*}} : memref<576xi32>, %{{.*}} : memref<4xi32>, %{{.*}} : memref<576xf32>, %{{.*}} : memref<221184xf8E4M3FN>)
// CHECK:         @float8_group_quantize_bf16_e4m3_pow2_1008x272_g4
// CHECK:         @gemm_f8_transpose_e4m3_b1_k1008_r272_g4
// CHECK:         @scaled_gmm_2d2d_k_k_e4m3_e4m3_bf16_144x272x1008_
// A tile's scales are its token group's (the group the scan found).
// CHECK-LABEL: gpu.func @float8_cast_kmajor_group_bf16_e4m3_pow2_b1_k1008_r144_g4(
// CHECK:           %[[SCAN:.*]]:6 = scf.for
// CHECK:           scf.if %[[SCAN]]#2 {
// CHECK:             arith.muli %[[SCAN]]#5, %c144 : index

// -----

// Casts grouped by other offsets than the GEMM's keep their kernels.
func.func @other_offsets(%a: tensor<512x128xbf16>, %b: tensor<512x128xbf16>, %o1: tensor<2xi32>, %o2: tensor<2xi32>) -> tensor<2x128x128xbf16> {
  %q0, %s0 = mxfp8train.quantize %a offs(%o1) axis = 0 granularity = axiswise : tensor<512x128xbf16>, tensor<2xi32> -> tensor<512x128xf8E4M3FN>, tensor<2x128xf32>
  %q1, %s1 = mxfp8train.quantize %b offs(%o1) axis = 0 granularity = axiswise : tensor<512x128xbf16>, tensor<2xi32> -> tensor<512x128xf8E4M3FN>, tensor<2x128xf32>
  %r = mxfp8train.scaled_grouped_mm %q0 [%s0], %q1 [%s1] offs(%o2) transpose_lhs : tensor<512x128xf8E4M3FN> [tensor<2x128xf32>], tensor<512x128xf8E4M3FN> [tensor<2x128xf32>], tensor<2xi32> -> tensor<2x128x128xbf16>
  return %r : tensor<2x128x128xbf16>
}

// CHECK-LABEL: func.func @other_offsets(
// CHECK-NOT:     float8_cast_kmajor
// CHECK-COUNT-2: @gemm_f8_transpose_e4m3_b1_k512_r128_g2

// -----

// A wgrad whose grad_output has 40 columns (out_features, M of the GEMM;
// torch._scaled_mm leaves M free): the K-major cast walks 16 elements of a
// row at a time, so the cast keeps its own kernel and the pre-pass
// transposes its bytes (8-byte pieces); the other operand is fused.
func.func @rows_not_16(%g: tensor<256x40xbf16>, %x: tensor<256x384xbf16>) -> tensor<40x384xf32> {
  %q0, %s0 = mxfp8train.quantize %g axis = 0 granularity = axiswise : tensor<256x40xbf16> -> tensor<256x40xf8E4M3FN>, tensor<1x40xf32>
  %q1, %s1 = mxfp8train.quantize %x axis = 0 granularity = axiswise : tensor<256x384xbf16> -> tensor<256x384xf8E4M3FN>, tensor<1x384xf32>
  %r = mxfp8train.scaled_mm %q0 [%s0], %q1 [%s1] transpose_lhs {mxfp8train.role = "wgrad"} : tensor<256x40xf8E4M3FN> [tensor<1x40xf32>], tensor<256x384xf8E4M3FN> [tensor<1x384xf32>] -> tensor<40x384xf32>
  return %r : tensor<40x384xf32>
}

// CHECK-LABEL: func.func @rows_not_16(
// CHECK-NOT:     float8_cast_kmajor_col_bf16_e4m3_b1_k256_r40
// CHECK:         @float8_cast_col_bf16_e4m3_1x256x40
// CHECK:         @float8_cast_kmajor_col_bf16_e4m3_b1_k256_r384
// CHECK:         @gemm_f8_transpose_e4m3_b1_k256_r40
// CHECK-NOT:     gemm_f8_transpose
// CHECK:         @scaled_mm_k_k_e4m3_e4m3_f32_40x384x256_
