// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu --split-input-file --verify-diagnostics
// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu="chip=sm_100a" --split-input-file --verify-diagnostics

// Float8 casts (f32 scales) have no GPU kernel yet: the MX quantize and
// dequantize kernels must not take them (their scales are not e8m0 bytes),
// so each is reported at the op and the pass fails.

func.func @quantize_rowwise(%x: tensor<64x128xbf16>) -> (tensor<64x128xf8E4M3FN>, tensor<64x1xf32>) {
  // expected-error @+1 {{'mxfp8train.quantize' has no GPU lowering: Float8 casts (f32 scales) have no GPU kernel yet; they run on the CPU path (SPEC-float8 section 2)}}
  %q, %s = mxfp8train.quantize %x axis = 1 granularity = axiswise pow2
      : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<64x1xf32>
  return %q, %s : tensor<64x128xf8E4M3FN>, tensor<64x1xf32>
}

// -----

func.func @quantize_tensorwise(%x: tensor<64x128xbf16>) -> (tensor<64x128xf8E5M2>, tensor<f32>) {
  // expected-error @+1 {{'mxfp8train.quantize' has no GPU lowering: Float8 casts (f32 scales) have no GPU kernel yet}}
  %q, %s = mxfp8train.quantize %x granularity = tensorwise
      : tensor<64x128xbf16> -> tensor<64x128xf8E5M2>, tensor<f32>
  return %q, %s : tensor<64x128xf8E5M2>, tensor<f32>
}

// -----

func.func @dequantize_tensorwise(%q: tensor<64x128xf8E4M3FN>, %s: tensor<f32>) -> tensor<64x128xbf16> {
  // expected-error @+1 {{'mxfp8train.dequantize' has no GPU lowering: Float8 casts (f32 scales) have no GPU kernel yet}}
  %x = mxfp8train.dequantize %q [%s] granularity = tensorwise
      : tensor<64x128xf8E4M3FN> [tensor<f32>] -> tensor<64x128xbf16>
  return %x : tensor<64x128xbf16>
}

// -----

// Per-group (offs) Float8 casts are rejected before any cast pattern runs,
// so no dense cast kernel can take them.
func.func @quantize_per_group(%x: tensor<64x128xbf16>, %offs: tensor<4xi32>) -> (tensor<64x128xf8E4M3FN>, tensor<4x128xf32>) {
  // expected-error @+1 {{'mxfp8train.quantize' with per-group Float8 scales (offs) has no GPU lowering yet; it runs on the CPU path}}
  %q, %s = mxfp8train.quantize %x offs(%offs) axis = 0 granularity = axiswise pow2
      : tensor<64x128xbf16>, tensor<4xi32> -> tensor<64x128xf8E4M3FN>, tensor<4x128xf32>
  return %q, %s : tensor<64x128xf8E4M3FN>, tensor<4x128xf32>
}
