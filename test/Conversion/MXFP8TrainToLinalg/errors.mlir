// RUN: mxfp8-opt %s --convert-mxfp8train-to-linalg -split-input-file -verify-diagnostics

func.func @quantize_dynamic(%x: tensor<?x64xbf16>) -> (tensor<?x64xf8E4M3FN>, tensor<?x2xf8E8M0FNU>) {
  // expected-error @+1 {{lowering of 'mxfp8train.quantize' to linalg requires static shapes, found a dynamic size}}
  %q, %s = mxfp8train.quantize %x axis = 1 mode = rceil : tensor<?x64xbf16> -> tensor<?x64xf8E4M3FN>, tensor<?x2xf8E8M0FNU>
  return %q, %s : tensor<?x64xf8E4M3FN>, tensor<?x2xf8E8M0FNU>
}

// -----

func.func @dequantize_dynamic(%q: tensor<64x?xf8E4M3FN>, %s: tensor<2x?xf8E8M0FNU>) -> tensor<64x?xf32> {
  // expected-error @+1 {{lowering of 'mxfp8train.dequantize' to linalg requires static shapes, found a dynamic size}}
  %x = mxfp8train.dequantize %q [%s] axis = 0 : tensor<64x?xf8E4M3FN> [tensor<2x?xf8E8M0FNU>] -> tensor<64x?xf32>
  return %x : tensor<64x?xf32>
}

// -----

func.func @scaled_mm_dynamic(%a: tensor<?x128xf8E4M3FN>, %as: tensor<?x4xf8E8M0FNU>, %b: tensor<128x32xf8E4M3FN>, %bs: tensor<4x32xf8E8M0FNU>) -> tensor<?x32xbf16> {
  // expected-error @+1 {{lowering of 'mxfp8train.scaled_mm' to linalg requires static shapes, found a dynamic size}}
  %0 = mxfp8train.scaled_mm %a [%as], %b [%bs] : tensor<?x128xf8E4M3FN> [tensor<?x4xf8E8M0FNU>], tensor<128x32xf8E4M3FN> [tensor<4x32xf8E8M0FNU>] -> tensor<?x32xbf16>
  return %0 : tensor<?x32xbf16>
}

// -----

func.func @grouped_mm_dynamic(%a: tensor<?x64xbf16>, %w: tensor<4x32x64xbf16>, %offs: tensor<4xi32>) -> tensor<?x32xbf16> {
  // expected-error @+1 {{lowering of 'mxfp8train.grouped_mm' to linalg requires static shapes, found a dynamic size}}
  %0 = mxfp8train.grouped_mm %a, %w offs(%offs) transpose_rhs : tensor<?x64xbf16>, tensor<4x32x64xbf16>, tensor<4xi32> -> tensor<?x32xbf16>
  return %0 : tensor<?x32xbf16>
}

// -----

func.func @scaled_grouped_mm_dynamic(%a: tensor<?x256xf8E4M3FN>, %as: tensor<?x8xf8E8M0FNU>, %w: tensor<8x64x256xf8E4M3FN>, %ws: tensor<8x64x8xf8E8M0FNU>, %offs: tensor<8xi32>) -> tensor<?x64xbf16> {
  // expected-error @+1 {{lowering of 'mxfp8train.scaled_grouped_mm' to linalg requires static shapes, found a dynamic size}}
  %0 = mxfp8train.scaled_grouped_mm %a [%as], %w [%ws] offs(%offs) transpose_rhs : tensor<?x256xf8E4M3FN> [tensor<?x8xf8E8M0FNU>], tensor<8x64x256xf8E4M3FN> [tensor<8x64x8xf8E8M0FNU>], tensor<8xi32> -> tensor<?x64xbf16>
  return %0 : tensor<?x64xbf16>
}

// -----

func.func @scaled_grouped_mm_dynamic_groups(%a: tensor<512x256xf8E4M3FN>, %as: tensor<512x8xf8E8M0FNU>, %w: tensor<?x64x256xf8E4M3FN>, %ws: tensor<?x64x8xf8E8M0FNU>, %offs: tensor<?xi32>) -> tensor<512x64xbf16> {
  // expected-error @+1 {{lowering of 'mxfp8train.scaled_grouped_mm' to linalg requires static shapes, found a dynamic size}}
  %0 = mxfp8train.scaled_grouped_mm %a [%as], %w [%ws] offs(%offs) transpose_rhs : tensor<512x256xf8E4M3FN> [tensor<512x8xf8E8M0FNU>], tensor<?x64x256xf8E4M3FN> [tensor<?x64x8xf8E8M0FNU>], tensor<?xi32> -> tensor<512x64xbf16>
  return %0 : tensor<512x64xbf16>
}

// -----

// Every unsupported op is reported, not only the first one.
func.func @two_errors(%x: tensor<?x64xf32>, %y: tensor<64x?xf32>) {
  // expected-error @+1 {{requires static shapes}}
  %q, %s = mxfp8train.quantize %x axis = 1 mode = floor : tensor<?x64xf32> -> tensor<?x64xf8E4M3FN>, tensor<?x2xf8E8M0FNU>
  // expected-error @+1 {{requires static shapes}}
  %r, %t = mxfp8train.quantize %y axis = 0 mode = floor : tensor<64x?xf32> -> tensor<64x?xf8E4M3FN>, tensor<2x?xf8E8M0FNU>
  return
}
