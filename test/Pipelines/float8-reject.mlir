// RUN: mxfp8-opt %s --mxfp8train-verify-lowering-input="reject-float8" -split-input-file --verify-diagnostics -o /dev/null
// RUN: mxfp8-opt %s --mxfp8train-verify-lowering-input -split-input-file | FileCheck %s

// The GPU lowering has no Float8 kernels yet: with reject-float8 every Float8
// op is an error at its location; without it (the CPU pipeline) they pass.

// CHECK-LABEL: func.func @float8_quantize
// CHECK: mxfp8train.quantize %{{.*}} axis = 1 granularity = axiswise pow2
func.func @float8_quantize(%x: tensor<64x128xbf16>) -> (tensor<64x128xf8E4M3FN>, tensor<64x1xf32>) {
  // expected-error @below {{'mxfp8train.quantize' with Float8 (f32) scales has no GPU lowering yet; lower it with the CPU pipeline}}
  %q, %s = mxfp8train.quantize %x axis = 1 granularity = axiswise pow2 : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<64x1xf32>
  return %q, %s : tensor<64x128xf8E4M3FN>, tensor<64x1xf32>
}

// -----

// CHECK-LABEL: func.func @float8_dequantize_and_mm
func.func @float8_dequantize_and_mm(%q: tensor<16x64xf8E4M3FN>, %t: tensor<f32>, %w: tensor<32x64xf8E4M3FN>, %ws: tensor<32x1xf32>) -> (tensor<16x64xbf16>, tensor<16x32xbf16>) {
  // expected-error @below {{'mxfp8train.dequantize' with Float8 (f32) scales has no GPU lowering yet; lower it with the CPU pipeline}}
  %x = mxfp8train.dequantize %q [%t] granularity = tensorwise : tensor<16x64xf8E4M3FN> [tensor<f32>] -> tensor<16x64xbf16>
  // expected-error @below {{'mxfp8train.scaled_mm' with Float8 (f32) scales has no GPU lowering yet; lower it with the CPU pipeline}}
  %y = mxfp8train.scaled_mm %q [%t], %w [%ws] transpose_rhs : tensor<16x64xf8E4M3FN> [tensor<f32>], tensor<32x64xf8E4M3FN> [tensor<32x1xf32>] -> tensor<16x32xbf16>
  return %x, %y : tensor<16x64xbf16>, tensor<16x32xbf16>
}

// -----

// MX ops pass either way.
// CHECK-LABEL: func.func @mx_quantize
func.func @mx_quantize(%x: tensor<64x128xbf16>) -> (tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>) {
  %q, %s = mxfp8train.quantize %x axis = 1 mode = rceil : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>
  return %q, %s : tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>
}
