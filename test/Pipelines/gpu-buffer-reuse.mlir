// REQUIRES: ptxas
// RUN: mxfp8-opt %s --mxfp8train-lower-to-gpu="elementwise-kernels=false" --mlir-print-ir-after=gpu-kernel-outlining -o /dev/null 2>&1 | FileCheck %s
// RUN: mxfp8-opt %s --mxfp8train-lower-to-gpu --mlir-print-ir-after=gpu-kernel-outlining -o /dev/null 2>&1 | FileCheck %s --check-prefix=EW

// Regression (H200, 2026-11-29: the Llama/MLP high-precision step returned a
// wrong dW2): the kernels read tensors through bufferization.to_buffer; a cse
// between the conversion and bufferization merged the two to_buffer ops of
// %a, so one-shot bufferization saw %a's last read before %b was computed and
// wrote %b into %a's buffer, which the third GEMM still reads. %b must get a
// buffer of its own and the third GEMM must read %a's. Checked with the
// elementwise generics on the parallel-loop path (CHECK) and as vectorized
// kernels (EW, the default), which write %a and %b through flattened views.

// CHECK-LABEL: func.func @reuse(
// CHECK:         gpu.launch_func @reuse_kernel::@reuse_kernel {{.*}}args({{.*}}, %arg0 : memref<32x64xbf16>, %[[A:[a-z0-9_]+]] : memref<32x64xbf16>)
// CHECK:         gpu.launch_func @mxfp8train_kernels::@gemm_{{.*}} args(%[[A]] : memref<32x64xbf16>, %arg1 : memref<64x64xbf16>, %[[M1:[a-z0-9_]+]] : memref<32x64xf32>)
// CHECK:         gpu.launch_func @reuse_kernel_0::@reuse_kernel
// CHECK-NOT:     %[[A]] : memref<32x64xbf16>)
// CHECK:         gpu.launch_func @mxfp8train_kernels::@gemm_{{.*}} args(%[[B:[a-z0-9_]+]] : memref<32x64xbf16>, %arg2 : memref<64x64xbf16>, %arg3 : memref<32x64xf32>)
// CHECK:         gpu.launch_func @mxfp8train_kernels::@gemm_{{.*}} args(%[[A]] : memref<32x64xbf16>, %arg2 : memref<64x64xbf16>, %arg4 : memref<32x64xf32>)

// EW-LABEL: func.func @reuse(
// EW:         %[[A:alloc[a-z0-9_]*]] = memref.alloc() : memref<32x64xbf16>
// EW:         %[[FA:[a-z0-9_]+]] = memref.collapse_shape %[[A]]
// EW:         gpu.launch_func @mxfp8train_kernels::@elementwise_2048_1in_1out_{{.*}} args(%{{.*}} : memref<2048xbf16>, %[[FA]] : memref<2048xbf16>)
// EW:         gpu.launch_func @mxfp8train_kernels::@gemm_{{.*}} args(%[[A]] : memref<32x64xbf16>, %arg1 : memref<64x64xbf16>, %{{.*}} : memref<32x64xf32>)
// EW:         gpu.launch_func @mxfp8train_kernels::@elementwise_2048_1in_1out_
// EW-NOT:     %[[FA]] : memref<2048xbf16>)
// EW:         gpu.launch_func @mxfp8train_kernels::@gemm_{{.*}} args(%[[B:[a-z0-9_]+]] : memref<32x64xbf16>, %arg2 : memref<64x64xbf16>, %arg3 : memref<32x64xf32>)
// EW:         gpu.launch_func @mxfp8train_kernels::@gemm_{{.*}} args(%[[A]] : memref<32x64xbf16>, %arg2 : memref<64x64xbf16>, %arg4 : memref<32x64xf32>)

#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @reuse(%x: tensor<32x64xbf16>, %w: tensor<64x64xbf16>, %v: tensor<64x64xbf16>)
    -> (tensor<32x64xf32>, tensor<32x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<32x64xbf16>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<32x64xbf16>) outs(%e1 : tensor<32x64xbf16>) {
  ^bb0(%in: bf16, %out: bf16):
    %n = arith.negf %in : bf16
    linalg.yield %n : bf16
  } -> tensor<32x64xbf16>
  %ef = tensor.empty() : tensor<32x64xf32>
  %z = linalg.fill ins(%zero : f32) outs(%ef : tensor<32x64xf32>) -> tensor<32x64xf32>
  %m1 = linalg.matmul ins(%a, %w : tensor<32x64xbf16>, tensor<64x64xbf16>) outs(%z : tensor<32x64xf32>) -> tensor<32x64xf32>
  %e2 = tensor.empty() : tensor<32x64xbf16>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m1 : tensor<32x64xf32>) outs(%e2 : tensor<32x64xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<32x64xbf16>
  %m2 = linalg.matmul ins(%b, %v : tensor<32x64xbf16>, tensor<64x64xbf16>) outs(%z : tensor<32x64xf32>) -> tensor<32x64xf32>
  %m3 = linalg.matmul ins(%a, %v : tensor<32x64xbf16>, tensor<64x64xbf16>) outs(%z : tensor<32x64xf32>) -> tensor<32x64xf32>
  return %m2, %m3 : tensor<32x64xf32>, tensor<32x64xf32>
}
