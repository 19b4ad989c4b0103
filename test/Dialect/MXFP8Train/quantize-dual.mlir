// RUN: mxfp8-opt %s --split-input-file --verify-diagnostics --verify-roundtrip | FileCheck %s

// CHECK-LABEL: func.func @quantize_dual_roundtrip(
// CHECK:         mxfp8train.quantize_dual %{{.*}} mode = rceil : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>, tensor<64x128xf8E4M3FN>, tensor<2x128xf8E8M0FNU>
// CHECK:         mxfp8train.quantize_dual %{{.*}} mode = floor rowwise_layout = blocked colwise_layout = blocked : tensor<64x128xf32> -> tensor<64x128xf8E5M2>, tensor<512xf8E8M0FNU>, tensor<64x128xf8E4M3FN>, tensor<512xf8E8M0FNU>
// CHECK:         mxfp8train.quantize_dual %{{.*}} mode = even : tensor<3x32x64xbf16>
func.func @quantize_dual_roundtrip(%x: tensor<64x128xbf16>, %f: tensor<64x128xf32>,
                                   %b: tensor<3x32x64xbf16>) {
  %a0, %a1, %a2, %a3 = mxfp8train.quantize_dual %x mode = rceil
      : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>,
                               tensor<64x128xf8E4M3FN>, tensor<2x128xf8E8M0FNU>
  %b0, %b1, %b2, %b3 = mxfp8train.quantize_dual %f mode = floor
      rowwise_layout = blocked colwise_layout = blocked
      : tensor<64x128xf32> -> tensor<64x128xf8E5M2>, tensor<512xf8E8M0FNU>,
                              tensor<64x128xf8E4M3FN>, tensor<512xf8E8M0FNU>
  %c0, %c1, %c2, %c3 = mxfp8train.quantize_dual %b mode = even
      : tensor<3x32x64xbf16> -> tensor<3x32x64xf8E4M3FN>, tensor<3x32x2xf8E8M0FNU>,
                                tensor<3x32x64xf8E4M3FN>, tensor<3x1x64xf8E8M0FNU>
  return
}

// -----

func.func @quantize_dual_rank1(%x: tensor<64xbf16>) {
  // expected-error @+1 {{'mxfp8train.quantize_dual' op expects a tensor of rank >= 2, found rank 1}}
  %a0, %a1, %a2, %a3 = mxfp8train.quantize_dual %x mode = rceil
      : tensor<64xbf16> -> tensor<64xf8E4M3FN>, tensor<2xf8E8M0FNU>,
                           tensor<64xf8E4M3FN>, tensor<2xf8E8M0FNU>
  return
}

// -----

func.func @quantize_dual_rows_not_multiple(%x: tensor<48x64xbf16>) {
  // expected-error @+1 {{'mxfp8train.quantize_dual' op expects the blocked dimension 0 of the input to be a multiple of 32, found 48}}
  %a0, %a1, %a2, %a3 = mxfp8train.quantize_dual %x mode = rceil
      : tensor<48x64xbf16> -> tensor<48x64xf8E4M3FN>, tensor<48x2xf8E8M0FNU>,
                              tensor<48x64xf8E4M3FN>, tensor<1x64xf8E8M0FNU>
  return
}

// -----

func.func @quantize_dual_colwise_scale_shape(%x: tensor<64x64xbf16>) {
  // expected-error @+1 {{'mxfp8train.quantize_dual' op expects the colwise scales of shape 2x64 (the data shape with dimension 0 divided by 32), found 64x2}}
  %a0, %a1, %a2, %a3 = mxfp8train.quantize_dual %x mode = rceil
      : tensor<64x64xbf16> -> tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU>,
                              tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU>
  return
}

// -----

func.func @quantize_dual_data_shape(%x: tensor<64x64xbf16>) {
  // expected-error @+1 {{'mxfp8train.quantize_dual' op expects the rowwise data shape to equal the input shape 64x64, found 64x32}}
  %a0, %a1, %a2, %a3 = mxfp8train.quantize_dual %x mode = rceil
      : tensor<64x64xbf16> -> tensor<64x32xf8E4M3FN>, tensor<64x2xf8E8M0FNU>,
                              tensor<64x64xf8E4M3FN>, tensor<2x64xf8E8M0FNU>
  return
}

// -----

func.func @quantize_dual_blocked_rank3(%x: tensor<2x64x64xbf16>) {
  // expected-error @+1 {{'mxfp8train.quantize_dual' op expects rank-2 data for the blocked layout of the rowwise scales, found rank 3}}
  %a0, %a1, %a2, %a3 = mxfp8train.quantize_dual %x mode = rceil rowwise_layout = blocked
      : tensor<2x64x64xbf16> -> tensor<2x64x64xf8E4M3FN>, tensor<512xf8E8M0FNU>,
                                tensor<2x64x64xf8E4M3FN>, tensor<2x2x64xf8E8M0FNU>
  return
}
