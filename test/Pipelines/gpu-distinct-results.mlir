// RUN: mxfp8-opt %s --mxfp8train-lower-to-gpu=format=isa | FileCheck %s
// REQUIRES: ptxas

// A value returned twice and an argument returned (the per-matmul probe of
// the MoE step returns grouped_mm results that the step returns too): each
// result gets its own out-parameter; the kernel writes one, device copies
// fill the two others.

// CHECK-LABEL: llvm.func @dup(
// CHECK:         llvm.call @mgpuStreamCreate
// CHECK:         gpu.launch_func <%{{.*}} : !llvm.ptr> @mxfp8train_kernels::@grouped_gemm_2d3d_mkbf16_gnkbf16_mnbf16_1x64x80x96_g4
// CHECK-COUNT-2: llvm.call @mgpuMemcpy
// CHECK-NOT:     llvm.call @mgpuMemAlloc
// CHECK:         llvm.call @mgpuStreamSynchronize
func.func @dup(%x: tensor<64x96xbf16>, %w: tensor<4x80x96xbf16>, %offs: tensor<4xi32>)
    -> (tensor<64x80xbf16>, tensor<64x80xbf16>, tensor<64x96xbf16>) {
  %y = mxfp8train.grouped_mm %x, %w offs(%offs) transpose_rhs
      : tensor<64x96xbf16>, tensor<4x80x96xbf16>, tensor<4xi32> -> tensor<64x80xbf16>
  return %y, %y, %x : tensor<64x80xbf16>, tensor<64x80xbf16>, tensor<64x96xbf16>
}
