// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu="simple-gemm=true" --verify-diagnostics | FileCheck %s

// The simple GEMM kernels have no Float8 form (f32 scales, SPEC-float8 §5):
// with simple-gemm a Float8 GEMM keeps its fp8 wgmma kernel and a warning
// says so, rather than the option being ignored silently; the MX and
// high-precision GEMMs of the same module take the simple kernels.

// CHECK-LABEL: func.func @float8_and_mx(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_mm_k_k_e4m3_e4m3_bf16_128x128x128
// CHECK:         gpu.launch_func @mxfp8train_kernels::@gemm_
func.func @float8_and_mx(%a: tensor<128x128xf8E4M3FN>, %as: tensor<128x1xf32>,
                         %b: tensor<128x128xf8E4M3FN>, %bs: tensor<128x1xf32>,
                         %x: tensor<128x128xf8E4M3FN>, %xs: tensor<128x4xf8E8M0FNU>)
    -> (tensor<128x128xbf16>, tensor<128x128xbf16>) {
  // expected-warning @below {{simple-gemm: no simple kernel takes Float8 (f32) scales; this GEMM keeps its fp8 kernel}}
  %f8 = mxfp8train.scaled_mm %a [%as], %b [%bs] transpose_rhs : tensor<128x128xf8E4M3FN> [tensor<128x1xf32>], tensor<128x128xf8E4M3FN> [tensor<128x1xf32>] -> tensor<128x128xbf16>
  %mx = mxfp8train.scaled_mm %x [%xs], %x [%xs] transpose_rhs : tensor<128x128xf8E4M3FN> [tensor<128x4xf8E8M0FNU>], tensor<128x128xf8E4M3FN> [tensor<128x4xf8E8M0FNU>] -> tensor<128x128xbf16>
  return %f8, %mx : tensor<128x128xbf16>, tensor<128x128xbf16>
}
