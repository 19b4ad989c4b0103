// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu --split-input-file --verify-diagnostics
// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu="chip=sm_100a" --split-input-file --verify-diagnostics

// Float8 casts (f32 scales) lower to the kernels of Float8CastKernels.cpp
// for every static shape; a dynamic one is reported at the op and the pass
// fails (the MX kernels never take a Float8 cast: its scales are not e8m0
// bytes).

func.func @quantize_rowwise_dynamic(%x: tensor<?x128xbf16>) -> (tensor<?x128xf8E4M3FN>, tensor<?x1xf32>) {
  // expected-error @+1 {{'mxfp8train.quantize' has no GPU lowering: it has a dynamic shape}}
  %q, %s = mxfp8train.quantize %x axis = 1 granularity = axiswise pow2
      : tensor<?x128xbf16> -> tensor<?x128xf8E4M3FN>, tensor<?x1xf32>
  return %q, %s : tensor<?x128xf8E4M3FN>, tensor<?x1xf32>
}

// -----

func.func @quantize_tensorwise_dynamic(%x: tensor<64x?xbf16>) -> (tensor<64x?xf8E5M2>, tensor<f32>) {
  // expected-error @+1 {{'mxfp8train.quantize' has no GPU lowering: it has a dynamic shape}}
  %q, %s = mxfp8train.quantize %x granularity = tensorwise
      : tensor<64x?xbf16> -> tensor<64x?xf8E5M2>, tensor<f32>
  return %q, %s : tensor<64x?xf8E5M2>, tensor<f32>
}

// -----

func.func @dequantize_colwise_dynamic(%q: tensor<?x128xf8E4M3FN>, %s: tensor<1x128xf32>) -> tensor<?x128xbf16> {
  // expected-error @+1 {{'mxfp8train.dequantize' has no GPU lowering: it has a dynamic shape}}
  %x = mxfp8train.dequantize %q [%s] axis = 0 granularity = axiswise
      : tensor<?x128xf8E4M3FN> [tensor<1x128xf32>] -> tensor<?x128xbf16>
  return %x : tensor<?x128xbf16>
}

// -----

// Per-group (offs) Float8 casts lower to Float8GroupCastKernels.cpp for
// static shapes; a dynamic token count is reported like the dense forms.
func.func @quantize_per_group_dynamic(%x: tensor<?x128xbf16>, %offs: tensor<4xi32>) -> (tensor<?x128xf8E4M3FN>, tensor<4x128xf32>) {
  // expected-error @+1 {{'mxfp8train.quantize' has no GPU lowering: it has a dynamic shape}}
  %q, %s = mxfp8train.quantize %x offs(%offs) axis = 0 granularity = axiswise pow2
      : tensor<?x128xbf16>, tensor<4xi32> -> tensor<?x128xf8E4M3FN>, tensor<4x128xf32>
  return %q, %s : tensor<?x128xf8E4M3FN>, tensor<4x128xf32>
}

// -----

func.func @dequantize_per_group_dynamic(%q: tensor<?x128xf8E4M3FN>, %s: tensor<4x128xf32>, %offs: tensor<4xi32>) -> tensor<?x128xf32> {
  // expected-error @+1 {{'mxfp8train.dequantize' has no GPU lowering: it has a dynamic shape}}
  %x = mxfp8train.dequantize %q [%s] offs(%offs) axis = 0 granularity = axiswise
      : tensor<?x128xf8E4M3FN> [tensor<4x128xf32>], tensor<4xi32> -> tensor<?x128xf32>
  return %x : tensor<?x128xf32>
}
