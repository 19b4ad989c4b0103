// RUN: mxfp8-opt %s --convert-elementwise-to-linalg --convert-mxfp8train-to-gpu --split-input-file | FileCheck %s
// RUN: mxfp8-opt %s --mxfp8train-lower-to-gpu=chip=sm_90a --split-input-file -o /dev/null
// RUN: mxfp8-opt %s --mxfp8train-lower-to-gpu=chip=sm_100a --split-input-file -o /dev/null

// Elementwise bodies whose inputs are the same tensor (x * x) pass it to
// the kernel once. A kernel with the same shape and body that reads two
// tensors (x * y) is another kernel: they shared a name, and the second
// launch failed to verify ("'gpu.launch_func' op got 2 kernel operands but
// expected 3"), for the elementwise kernels and for quantize kernels that
// evaluate the product as a fused producer (the square and the product of
// a global-norm gradient clipping).

// CHECK-LABEL: func.func @square_and_product(
// CHECK:         gpu.launch_func  @mxfp8train_kernels::@[[SQ:elementwise_2048_2in_1out_[0-9a-f]+]] {{.*}} args(%{{.*}} : memref<2048xf32>, %{{.*}} : memref<2048xf32>)
// CHECK:         gpu.launch_func  @mxfp8train_kernels::@[[PR:elementwise_2048_2in_1out_[0-9a-f]+]] {{.*}} args(%{{.*}} : memref<2048xf32>, %{{.*}} : memref<2048xf32>, %{{.*}} : memref<2048xf32>)
// CHECK-DAG:     gpu.func @[[SQ]](%{{[^:]*}}: memref<2048xf32> {{{[^}]*}}}, %{{[^:]*}}: memref<2048xf32> {{{[^}]*}}}) kernel
// CHECK-DAG:     gpu.func @[[PR]](%{{[^:]*}}: memref<2048xf32> {{{[^}]*}}}, %{{[^:]*}}: memref<2048xf32> {{{[^}]*}}}, %{{[^:]*}}: memref<2048xf32> {{{[^}]*}}}) kernel
func.func @square_and_product(%x: tensor<32x64xf32>, %y: tensor<32x64xf32>) -> (tensor<32x64xf32>, tensor<32x64xf32>) {
  %sq = arith.mulf %x, %x : tensor<32x64xf32>
  %pr = arith.mulf %x, %y : tensor<32x64xf32>
  return %sq, %pr : tensor<32x64xf32>, tensor<32x64xf32>
}

// -----

// CHECK-LABEL: func.func @quantize_square_and_product(
// CHECK:         gpu.launch_func  @mxfp8train_kernels::@[[SQ:quantize_1x32_bf16_e4m3_rceil_rowmajor_64x64_ew[0-9a-f]+]] {{.*}} args(%{{.*}} : memref<64x64xbf16>, %{{.*}} : memref<64x64xf8E4M3FN>,
// CHECK:         gpu.launch_func  @mxfp8train_kernels::@[[PR:quantize_1x32_bf16_e4m3_rceil_rowmajor_64x64_ew[0-9a-f]+]] {{.*}} args(%{{.*}} : memref<64x64xbf16>, %{{.*}} : memref<64x64xbf16>, %{{.*}} : memref<64x64xf8E4M3FN>,
func.func @quantize_square_and_product(%x: tensor<64x64xbf16>, %y: tensor<64x64xbf16>) -> (tensor<64x64xf8E4M3FN>, tensor<64x64xf8E4M3FN>) {
  %sq = arith.mulf %x, %x : tensor<64x64xbf16>
  %pr = arith.mulf %x, %y : tensor<64x64xbf16>
  %q1, %s1 = mxfp8train.quantize %sq axis = 1 mode = rceil : tensor<64x64xbf16> -> tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU>
  %q2, %s2 = mxfp8train.quantize %pr axis = 1 mode = rceil : tensor<64x64xbf16> -> tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU>
  return %q1, %q2 : tensor<64x64xf8E4M3FN>, tensor<64x64xf8E4M3FN>
}
