// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu --split-input-file | FileCheck %s
// RUN: mxfp8-opt %s --mxfp8train-lower-to-gpu="chip=sm_90a format=isa" --split-input-file | FileCheck %s --check-prefix=LOWER
// RUN: mxfp8-opt %s --mxfp8train-lower-to-gpu="chip=sm_100a format=isa" --split-input-file | FileCheck %s --check-prefix=LOWER

// Shapes with nothing to compute (issue 14 rows 3-6): zero groups, zero
// columns, zero experts, an empty contraction, and rank-1 data. The GPU
// lowering gives each its exact value (empty tensors, zeros, the bias, the
// init) without a launch, or launches a kernel with no empty buffer among
// its parameters; the whole pipeline gives valid LLVM IR (mxfp8-opt verifies
// after every pass).

// CHECK-LABEL: func.func @grouped_mm_no_groups
// CHECK-NOT:     gpu.launch_func
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<64x16xbf16>
// CHECK:         %[[Z:.*]] = linalg.fill ins(%{{.*}} : bf16) outs(%[[E]] : tensor<64x16xbf16>)
// CHECK:         return %[[Z]]
// LOWER-LABEL: llvm.func @grouped_mm_no_groups(
func.func @grouped_mm_no_groups(%a: tensor<64x32xbf16>, %b: tensor<0x32x16xbf16>, %offs: tensor<0xi32>) -> tensor<64x16xbf16> {
  %r = mxfp8train.grouped_mm %a, %b offs(%offs) : tensor<64x32xbf16>, tensor<0x32x16xbf16>, tensor<0xi32> -> tensor<64x16xbf16>
  return %r : tensor<64x16xbf16>
}


// -----

// CHECK-LABEL: func.func @scaled_grouped_mm_2d2d_no_groups
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<0x16x32xbf16>
// CHECK-NEXT:    return %[[E]]
// LOWER-LABEL: llvm.func @scaled_grouped_mm_2d2d_no_groups(
func.func @scaled_grouped_mm_2d2d_no_groups(%a: tensor<16x64xf8E4M3FN>, %as: tensor<16x2xf8E8M0FNU>, %b: tensor<64x32xf8E4M3FN>, %bs: tensor<2x32xf8E8M0FNU>, %offs: tensor<0xi32>) -> tensor<0x16x32xbf16> {
  %r = mxfp8train.scaled_grouped_mm %a [%as], %b [%bs] offs(%offs) : tensor<16x64xf8E4M3FN> [tensor<16x2xf8E8M0FNU>], tensor<64x32xf8E4M3FN> [tensor<2x32xf8E8M0FNU>], tensor<0xi32> -> tensor<0x16x32xbf16>
  return %r : tensor<0x16x32xbf16>
}


// -----

// The padded offsets are still computed; the empty data buffers are no
// kernel parameters.
// CHECK-LABEL: func.func @pad_token_groups_no_columns
// CHECK:         %[[OFFS:.*]] = bufferization.to_buffer %{{.*}} : tensor<2xi32> to memref<2xi32>
// CHECK:         %[[P:.*]] = memref.alloc() : memref<128x0xbf16>
// CHECK:         %[[PO:.*]] = memref.alloc() : memref<2xi32>
// CHECK:         gpu.launch_func @mxfp8train_kernels::@pad_token_groups_bf16_a32_64x0_to_128x0_g2 blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(%[[OFFS]] : memref<2xi32>, %[[PO]] : memref<2xi32>)
// CHECK:       gpu.func @pad_token_groups_bf16_a32_64x0_to_128x0_g2(%{{.*}}: memref<2xi32> {llvm.noalias, llvm.readonly}, %[[OUT:.*]]: memref<2xi32> {llvm.noalias, llvm.writeonly})
// CHECK-NOT:     vector.
// CHECK:         memref.store %{{.*}}, %[[OUT]][%{{.*}}] : memref<2xi32>
// CHECK-NOT:     vector.
// CHECK:         gpu.return
// LOWER-LABEL: llvm.func @pad_token_groups_no_columns(
func.func @pad_token_groups_no_columns(%x: tensor<64x0xbf16>, %offs: tensor<2xi32>) -> (tensor<128x0xbf16>, tensor<2xi32>) {
  %p, %po = mxfp8train.pad_token_groups %x offs(%offs) alignment = 32 : tensor<64x0xbf16>, tensor<2xi32> -> tensor<128x0xbf16>, tensor<2xi32>
  return %p, %po : tensor<128x0xbf16>, tensor<2xi32>
}


// -----

// CHECK-LABEL: func.func @unpad_token_groups_no_columns
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<64x0xbf16>
// CHECK-NEXT:    return %[[E]]
// LOWER-LABEL: llvm.func @unpad_token_groups_no_columns(
func.func @unpad_token_groups_no_columns(%x: tensor<128x0xbf16>, %offs: tensor<2xi32>) -> tensor<64x0xbf16> {
  %u = mxfp8train.unpad_token_groups %x offs(%offs) alignment = 32 : tensor<128x0xbf16>, tensor<2xi32> -> tensor<64x0xbf16>
  return %u : tensor<64x0xbf16>
}


// -----

// Rank-1 data is viewed as one row (1 x 64), not collapsed past its rank.
// CHECK-LABEL: func.func @quantize_rank1
// CHECK:         memref.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [1, 64] : memref<64xbf16> into memref<1x64xbf16>
// CHECK:         memref.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [1, 64] : memref<64xf8E4M3FN> into memref<1x64xf8E4M3FN>
// CHECK:         memref.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [1, 2] : memref<2xf8E8M0FNU> into memref<1x2xf8E8M0FNU>
// CHECK:         gpu.launch_func @mxfp8train_kernels::@quantize_1x32_bf16_e4m3_rceil_rowmajor_1x64
// LOWER-LABEL: llvm.func @quantize_rank1(
func.func @quantize_rank1(%x: tensor<64xbf16>) -> (tensor<64xf8E4M3FN>, tensor<2xf8E8M0FNU>) {
  %q, %s = mxfp8train.quantize %x axis = 0 mode = rceil : tensor<64xbf16> -> tensor<64xf8E4M3FN>, tensor<2xf8E8M0FNU>
  return %q, %s : tensor<64xf8E4M3FN>, tensor<2xf8E8M0FNU>
}


// -----

// CHECK-LABEL: func.func @dequantize_rank1
// CHECK-DAG:     memref.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [1, 64] : memref<64xf8E4M3FN> into memref<1x64xf8E4M3FN>
// CHECK-DAG:     memref.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [1, 2] : memref<2xf8E8M0FNU> into memref<1x2xf8E8M0FNU>
// CHECK-DAG:     memref.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [1, 64] : memref<64xbf16> into memref<1x64xbf16>
// CHECK:         gpu.launch_func
// LOWER-LABEL: llvm.func @dequantize_rank1(
func.func @dequantize_rank1(%q: tensor<64xf8E4M3FN>, %s: tensor<2xf8E8M0FNU>) -> tensor<64xbf16> {
  %x = mxfp8train.dequantize %q [%s] axis = 0 : tensor<64xf8E4M3FN> [tensor<2xf8E8M0FNU>] -> tensor<64xbf16>
  return %x : tensor<64xbf16>
}


// -----

// CHECK-LABEL: func.func @to_blocked_per_expert_no_experts
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<0x512xf8E8M0FNU>
// CHECK-NEXT:    return %[[E]]
// LOWER-LABEL: llvm.func @to_blocked_per_expert_no_experts(
func.func @to_blocked_per_expert_no_experts(%s: tensor<0x128x4xf8E8M0FNU>) -> tensor<0x512xf8E8M0FNU> {
  %b = mxfp8train.to_blocked %s layout = blocked_per_expert : tensor<0x128x4xf8E8M0FNU> -> tensor<0x512xf8E8M0FNU>
  return %b : tensor<0x512xf8E8M0FNU>
}


// -----

// K = 0: every output is the bias rounded to bf16.
// CHECK-LABEL: func.func @scaled_mm_empty_contraction
// CHECK-SAME:    %[[BIAS:[^:]*]]: tensor<32xf32>
// CHECK-NOT:     gpu.launch_func
// CHECK:         linalg.generic {{.*}} ins(%[[BIAS]] : tensor<32xf32>) outs(%{{.*}} : tensor<16x32xbf16>)
// CHECK-NOT:     gpu.launch_func
// CHECK:         return
// LOWER-LABEL: llvm.func @scaled_mm_empty_contraction(
func.func @scaled_mm_empty_contraction(%a: tensor<16x0xf8E4M3FN>, %as: tensor<16x0xf8E8M0FNU>, %b: tensor<0x32xf8E4M3FN>, %bs: tensor<0x32xf8E8M0FNU>, %bias: tensor<32xf32>) -> tensor<16x32xbf16> {
  %r = mxfp8train.scaled_mm %a [%as], %b [%bs] bias(%bias) : tensor<16x0xf8E4M3FN> [tensor<16x0xf8E8M0FNU>], tensor<0x32xf8E4M3FN> [tensor<0x32xf8E8M0FNU>], tensor<32xf32> -> tensor<16x32xbf16>
  return %r : tensor<16x32xbf16>
}


// -----

// A linalg op with an empty iteration space is its init.
// CHECK-LABEL: func.func @matmul_empty_contraction
// CHECK-SAME:    %[[C:[^:]*]]: tensor<16x32xbf16>
// CHECK-NEXT:    return %[[C]]
// LOWER-LABEL: llvm.func @matmul_empty_contraction(
func.func @matmul_empty_contraction(%a: tensor<16x0xbf16>, %b: tensor<0x32xbf16>, %c: tensor<16x32xbf16>) -> tensor<16x32xbf16> {
  %r = linalg.matmul ins(%a, %b : tensor<16x0xbf16>, tensor<0x32xbf16>) outs(%c : tensor<16x32xbf16>) -> tensor<16x32xbf16>
  return %r : tensor<16x32xbf16>
}

// -----

// Float8 casts of an empty input whose scales have elements: every scaling
// group is empty, its amax 0, every scale that of amax 0 (computeFloat8Scale:
// 448 / max(0, 1e-12) = 4.48e14 for e4m3, 2^48 rounded down to a power of
// 2), as on the CPU path; no launch.
// CHECK-LABEL: func.func @float8_rowwise_no_columns
// CHECK-NOT:     gpu.launch_func
// CHECK:         %[[S:.*]] = arith.constant 4.480000e+14 : f32
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<64x0xf8E4M3FN>
// CHECK:         linalg.fill ins(%[[S]] : f32)
// CHECK-SAME:      -> tensor<64x1xf32>
// CHECK-NOT:     gpu.launch_func
// LOWER-LABEL: llvm.func @float8_rowwise_no_columns(
func.func @float8_rowwise_no_columns(%x: tensor<64x0xbf16>) -> (tensor<64x0xf8E4M3FN>, tensor<64x1xf32>) {
  %q, %s = mxfp8train.quantize %x axis = 1 granularity = axiswise : tensor<64x0xbf16> -> tensor<64x0xf8E4M3FN>, tensor<64x1xf32>
  return %q, %s : tensor<64x0xf8E4M3FN>, tensor<64x1xf32>
}

// -----

// CHECK-LABEL: func.func @float8_per_group_no_tokens
// CHECK-NOT:     gpu.launch_func
// CHECK:         %[[S:.*]] = arith.constant 2.81474977E+14 : f32
// CHECK:         linalg.fill ins(%[[S]] : f32)
// CHECK-SAME:      -> tensor<4x128xf32>
// LOWER-LABEL: llvm.func @float8_per_group_no_tokens(
func.func @float8_per_group_no_tokens(%x: tensor<0x128xbf16>, %o: tensor<4xi32>) -> (tensor<0x128xf8E4M3FN>, tensor<4x128xf32>) {
  %q, %s = mxfp8train.quantize %x offs(%o) axis = 0 granularity = axiswise pow2 : tensor<0x128xbf16>, tensor<4xi32> -> tensor<0x128xf8E4M3FN>, tensor<4x128xf32>
  return %q, %s : tensor<0x128xf8E4M3FN>, tensor<4x128xf32>
}

// -----

// Tensorwise keeps its kernels (a rank-0 scale): the amax kernel has no
// input parameter, only its word; the cast kernel writes the scale.
// CHECK-LABEL: func.func @float8_tensorwise_empty
// CHECK:         gpu.memset
// CHECK:         gpu.launch_func  @mxfp8train_kernels::@float8_amax_tensor_bf16_0 {{.*}} args(%{{.*}} : memref<1xi32>)
// CHECK:         gpu.launch_func  @mxfp8train_kernels::@float8_cast_tensor_bf16_e5m2_0 {{.*}} args(%{{.*}} : memref<1xi32>, %{{.*}} : memref<f32>)
// CHECK:       gpu.func @float8_amax_tensor_bf16_0(%{{.*}}: memref<1xi32> {llvm.noalias})
// LOWER-LABEL: llvm.func @float8_tensorwise_empty(
func.func @float8_tensorwise_empty(%x: tensor<0x128xbf16>) -> (tensor<0x128xf8E5M2>, tensor<f32>) {
  %q, %s = mxfp8train.quantize %x granularity = tensorwise : tensor<0x128xbf16> -> tensor<0x128xf8E5M2>, tensor<f32>
  return %q, %s : tensor<0x128xf8E5M2>, tensor<f32>
}
