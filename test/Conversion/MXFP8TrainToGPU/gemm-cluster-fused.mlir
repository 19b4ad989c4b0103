// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu --canonicalize --split-input-file | FileCheck %s --check-prefixes=CHECK,PAIR
// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu="gemm-cluster-m=1" --canonicalize --split-input-file | FileCheck %s --check-prefixes=CHECK,ONE

// A GEMM operand written by its quantize (DequantFusion.h) is read through
// the tensor map the fusion plan creates before the quantize, so the plan
// must give it the box of the GEMM's B loads: half the 256-column tile per
// CTA with the cluster along M (the grouped default), the whole tile with
// `gemm-cluster-m=1`. A box that does not match makes every stage's full
// barrier expect other bytes than land (a hang on the GPU, found on the
// H200 in session 19).
// The plan's maps: A's pre-pass form (128-row boxes either way), then the
// form the quantize writes for B.
// CHECK-LABEL: func.func @fused_rhs(
// CHECK-DAG:     %[[BOX128:.*]] = llvm.mlir.constant(128 : i64) : i64
// ONE-DAG:       %[[BOX256:.*]] = llvm.mlir.constant(256 : i64) : i64
// CHECK-DAG:     %[[BOXK:.*]] = llvm.mlir.constant(64 : i64) : i64
// CHECK:         %[[ABOX:.*]] = llvm.alloca %{{.*}} x !llvm.array<2 x i64>
// CHECK:         %[[A0:.*]] = llvm.getelementptr %[[ABOX]][0, 0]
// CHECK-NEXT:    llvm.store %[[BOX128]], %[[A0]]
// CHECK:         %[[AMAP:.*]] = llvm.call @mgpuTensorMapEncodeTiledMemref(%{{.*}}, %[[ABOX]])
// CHECK:         %[[BBOX:.*]] = llvm.alloca %{{.*}} x !llvm.array<2 x i64>
// CHECK:         %[[B0:.*]] = llvm.getelementptr %[[BBOX]][0, 0]
// PAIR-NEXT:     llvm.store %[[BOX128]], %[[B0]]
// ONE-NEXT:      llvm.store %[[BOX256]], %[[B0]]
// CHECK:         %[[B1:.*]] = llvm.getelementptr %[[BBOX]][0, 1]
// CHECK-NEXT:    llvm.store %[[BOXK]], %[[B1]]
// CHECK-NEXT:    %[[BMAP:.*]] = llvm.call @mgpuTensorMapEncodeTiledMemref(%{{.*}}, %[[BBOX]])
// CHECK:         gpu.launch_func @mxfp8train_kernels::@quantize_1x32_bf16_e4m3_rceil_rowmajor_3072x512_bf16b8r512_f8lazy
// PAIR:          gpu.launch_func @mxfp8train_kernels::@scaled_gmm_2d3d_k_k_bf16_bf16_bf16_1024x384x512_b8_p1c1_v8w1s4_n256_c2_gs2 clusters in (%c2, %c1, %c1) {{.*}} args(%[[AMAP]] : !llvm.ptr, %[[BMAP]] : !llvm.ptr,
// ONE:           gpu.launch_func @mxfp8train_kernels::@scaled_gmm_2d3d_k_k_bf16_bf16_bf16_1024x384x512_b8_p1c1_v8w1s4_n256_gs2 blocks in {{.*}} args(%[[AMAP]] : !llvm.ptr, %[[BMAP]] : !llvm.ptr,
func.func @fused_rhs(%a: tensor<1024x512xf8E4M3FN>, %as: tensor<1024x16xf8E8M0FNU>,
                     %w: tensor<8x384x512xbf16>, %offs: tensor<8xi32>) -> tensor<1024x384xbf16> {
  %b, %bs = mxfp8train.quantize %w axis = 2 mode = rceil : tensor<8x384x512xbf16> -> tensor<8x384x512xf8E4M3FN>, tensor<8x384x16xf8E8M0FNU>
  %y = mxfp8train.scaled_grouped_mm %a [%as], %b [%bs] offs(%offs) transpose_rhs
      : tensor<1024x512xf8E4M3FN> [tensor<1024x16xf8E8M0FNU>],
        tensor<8x384x512xf8E4M3FN> [tensor<8x384x16xf8E8M0FNU>], tensor<8xi32>
        -> tensor<1024x384xbf16>
  return %y : tensor<1024x384xbf16>
}

// -----

// The same for the K-major copies Float8 casts write (Float8TransposeFusion,
// getFloat8TransposedForms): a grouped wgrad with fast accumulation (128 x
// 256 tiles) runs as a pair by default, and the cast's map of B (272 rows
// of tokens-first data, 128 fp8 of K per box row) has half the tile's
// columns per box; one CTA reads whole 256-row boxes.
// CHECK-LABEL: func.func @float8_wgrad(
// CHECK-DAG:     %[[F128:.*]] = llvm.mlir.constant(128 : i64) : i64
// ONE-DAG:       %[[F256:.*]] = llvm.mlir.constant(256 : i64) : i64
// CHECK:         %[[BBOX:.*]] = llvm.alloca %{{.*}} x !llvm.array<2 x i64>
// CHECK:         %[[B0:.*]] = llvm.getelementptr %[[BBOX]][0, 0]
// PAIR-NEXT:     llvm.store %[[F128]], %[[B0]]
// ONE-NEXT:      llvm.store %[[F256]], %[[B0]]
// CHECK:         %[[B1:.*]] = llvm.getelementptr %[[BBOX]][0, 1]
// CHECK-NEXT:    llvm.store %[[F128]], %[[B1]]
// CHECK-NEXT:    %[[BMAP:.*]] = llvm.call @mgpuTensorMapEncodeTiledMemref(%{{.*}}, %[[BBOX]])
// CHECK:         %[[AMAP:.*]] = llvm.call @mgpuTensorMapEncodeTiledMemref(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@float8_cast_kmajor_group_bf16_e4m3_pow2_b1_k1008_r272_g4
// PAIR:          gpu.launch_func @mxfp8train_kernels::@scaled_gmm_2d2d_k_k_e4m3_e4m3_bf16_144x272x1008_b4_p1c1_v9w1s4_n256_c2_f8rr clusters in (%c2, %c1, %c1) {{.*}} args(%[[AMAP]] : !llvm.ptr, %{{[^,]*}}, %[[BMAP]] : !llvm.ptr,
// ONE:           gpu.launch_func @mxfp8train_kernels::@scaled_gmm_2d2d_k_k_e4m3_e4m3_bf16_144x272x1008_b4_p1c1_v9w1s4_n256_f8rr blocks in {{.*}} args(%[[AMAP]] : !llvm.ptr, %{{[^,]*}}, %[[BMAP]] : !llvm.ptr,
func.func @float8_wgrad(%a: tensor<1008x144xbf16>, %b: tensor<1008x272xbf16>, %offs: tensor<4xi32>) -> tensor<4x144x272xbf16> {
  %q0, %s0 = mxfp8train.quantize %a offs(%offs) axis = 0 granularity = axiswise pow2 : tensor<1008x144xbf16>, tensor<4xi32> -> tensor<1008x144xf8E4M3FN>, tensor<4x144xf32>
  %q1, %s1 = mxfp8train.quantize %b offs(%offs) axis = 0 granularity = axiswise pow2 : tensor<1008x272xbf16>, tensor<4xi32> -> tensor<1008x272xf8E4M3FN>, tensor<4x272xf32>
  %r = mxfp8train.scaled_grouped_mm %q0 [%s0], %q1 [%s1] offs(%offs) transpose_lhs {mxfp8train.role = "wgrad", mxfp8train.use_fast_accum = true} : tensor<1008x144xf8E4M3FN> [tensor<4x144xf32>], tensor<1008x272xf8E4M3FN> [tensor<4x272xf32>], tensor<4xi32> -> tensor<4x144x272xbf16>
  return %r : tensor<4x144x272xbf16>
}
