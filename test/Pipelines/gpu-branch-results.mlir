// REQUIRES: ptxas
// RUN: mxfp8-opt %s --mxfp8train-lower-to-gpu --mlir-print-ir-after=mxfp8train-gpu-device-buffers -o /dev/null 2>&1 | FileCheck %s

// Kernel results yielded out of an scf.if (on a host condition, a function
// argument): each branch copies its result into one destination allocated
// before the if (RemainingOps.cpp), which is the if's result (they were
// rejected: "this tensor is yielded out of 'scf.if'"). region-results.mlir
// has the CPU runs of the same form.

// CHECK-LABEL: func.func @branch(
// CHECK-SAME:    %[[X:.*]]: memref<64x64xbf16>, %[[COND:.*]]: i1, %[[OUT:.*]]: memref<64x64xf8E4M3FN>
// CHECK:         %[[DEST:.*]] = gpu.alloc  () : memref<64x64xf8E4M3FN>
// CHECK:         scf.if %[[COND]] {
// CHECK:           %[[Q1:.*]] = gpu.alloc  () : memref<64x64xf8E4M3FN>
// CHECK:           gpu.launch_func  @mxfp8train_kernels::@quantize_1x32_{{.*}} args(%[[X]] : memref<64x64xbf16>, %[[Q1]] : memref<64x64xf8E4M3FN>,
// CHECK:           gpu.launch_func  {{.*}} args({{.*}}%[[Q1]] : memref<64x64xf8E4M3FN>, %[[DEST]] : memref<64x64xf8E4M3FN>)
// CHECK:         } else {
// CHECK:           %[[Q0:.*]] = gpu.alloc  () : memref<64x64xf8E4M3FN>
// CHECK:           gpu.launch_func  @mxfp8train_kernels::@quantize_32x1_{{.*}} args(%[[X]] : memref<64x64xbf16>, %[[Q0]] : memref<64x64xf8E4M3FN>,
// CHECK:           gpu.launch_func  {{.*}} args({{.*}}%[[Q0]] : memref<64x64xf8E4M3FN>, %[[DEST]] : memref<64x64xf8E4M3FN>)
// CHECK:         }
// CHECK:         gpu.memcpy  %[[OUT]], %[[DEST]]
func.func @branch(%x: tensor<64x64xbf16>, %cond: i1) -> tensor<64x64xf8E4M3FN> {
  %r = scf.if %cond -> tensor<64x64xf8E4M3FN> {
    %q, %s = mxfp8train.quantize %x axis = 1 mode = rceil : tensor<64x64xbf16> -> tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU>
    scf.yield %q : tensor<64x64xf8E4M3FN>
  } else {
    %q, %s = mxfp8train.quantize %x axis = 0 mode = rceil : tensor<64x64xbf16> -> tensor<64x64xf8E4M3FN>, tensor<2x64xf8E8M0FNU>
    scf.yield %q : tensor<64x64xf8E4M3FN>
  }
  return %r : tensor<64x64xf8E4M3FN>
}
