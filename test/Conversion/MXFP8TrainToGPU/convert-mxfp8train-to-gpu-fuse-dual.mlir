// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu --split-input-file | FileCheck %s
// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu="fuse-dual=false" --split-input-file | FileCheck %s --check-prefix=NOFUSE

// A 1x32 and a 32x1 quantize of the same tensor with the same mode become
// one quantize_dual launch (the input is read once); each keeps its own
// element type and scale layout.

// CHECK-LABEL: func.func @linear_input_casts(
// CHECK-COUNT-1: gpu.launch_func
// CHECK-SAME:      @mxfp8train_kernels::@quantize_dual_bf16_e4m3_e5m2_rceil_rowmajor_blocked_128x64
// CHECK-SAME:      args(%{{.*}} : memref<128x64xbf16>, %{{.*}} : memref<128x64xf8E4M3FN>, %{{.*}} : memref<128x2xf8E8M0FNU>, %{{.*}} : memref<128x64xf8E5M2>, %{{.*}} : memref<512xf8E8M0FNU>)
// CHECK-NOT:     gpu.launch_func
// NOFUSE-LABEL: func.func @linear_input_casts(
// NOFUSE:         gpu.launch_func @mxfp8train_kernels::@quantize_32x1_bf16_e5m2_rceil_blocked_128x64
// NOFUSE:         gpu.launch_func @mxfp8train_kernels::@quantize_1x32_bf16_e4m3_rceil_rowmajor_128x64
func.func @linear_input_casts(%x: tensor<128x64xbf16>)
    -> (tensor<128x64xf8E5M2>, tensor<512xf8E8M0FNU>,
        tensor<128x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU>) {
  %cq, %cs = mxfp8train.quantize %x axis = 0 mode = rceil layout = blocked
      : tensor<128x64xbf16> -> tensor<128x64xf8E5M2>, tensor<512xf8E8M0FNU>
  %rq, %rs = mxfp8train.quantize %x axis = 1 mode = rceil
      : tensor<128x64xbf16> -> tensor<128x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU>
  return %cq, %cs, %rq, %rs : tensor<128x64xf8E5M2>, tensor<512xf8E8M0FNU>,
                              tensor<128x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU>
}

// -----

// Different scale modes are not fused.

// CHECK-LABEL: func.func @different_modes(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@quantize_1x32_bf16_e4m3_rceil_rowmajor_64x64
// CHECK:         gpu.launch_func @mxfp8train_kernels::@quantize_32x1_bf16_e4m3_floor_rowmajor_64x64
func.func @different_modes(%x: tensor<64x64xbf16>)
    -> (tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU>,
        tensor<64x64xf8E4M3FN>, tensor<2x64xf8E8M0FNU>) {
  %rq, %rs = mxfp8train.quantize %x axis = 1 mode = rceil
      : tensor<64x64xbf16> -> tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU>
  %cq, %cs = mxfp8train.quantize %x axis = 0 mode = floor
      : tensor<64x64xbf16> -> tensor<64x64xf8E4M3FN>, tensor<2x64xf8E8M0FNU>
  return %rq, %rs, %cq, %cs : tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU>,
                              tensor<64x64xf8E4M3FN>, tensor<2x64xf8E8M0FNU>
}

// -----

// Rank 3: the last two dims; the outer dim is a batch of the (64, 96) view.

// CHECK-LABEL: func.func @rank3(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@quantize_dual_f32_e4m3_e4m3_even_rowmajor_rowmajor_3x64x96
// CHECK-SAME:      memref<3x64x3xf8E8M0FNU>
// CHECK-SAME:      memref<3x2x96xf8E8M0FNU>
func.func @rank3(%x: tensor<3x64x96xf32>)
    -> (tensor<3x64x96xf8E4M3FN>, tensor<3x64x3xf8E8M0FNU>,
        tensor<3x64x96xf8E4M3FN>, tensor<3x2x96xf8E8M0FNU>) {
  %rq, %rs = mxfp8train.quantize %x axis = 2 mode = even
      : tensor<3x64x96xf32> -> tensor<3x64x96xf8E4M3FN>, tensor<3x64x3xf8E8M0FNU>
  %cq, %cs = mxfp8train.quantize %x axis = 1 mode = even
      : tensor<3x64x96xf32> -> tensor<3x64x96xf8E4M3FN>, tensor<3x2x96xf8E8M0FNU>
  return %rq, %rs, %cq, %cs : tensor<3x64x96xf8E4M3FN>, tensor<3x64x3xf8E8M0FNU>,
                              tensor<3x64x96xf8E4M3FN>, tensor<3x2x96xf8E8M0FNU>
}
