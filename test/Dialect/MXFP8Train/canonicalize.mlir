// RUN: mxfp8-opt %s --canonicalize --split-input-file | FileCheck %s

// to_blocked <blocked> of the row-major scales of a rank-2 quantize along
// axis 1, their only use, folds into the quantize: `layout = blocked` and
// the blocked scale type; the data keeps its uses.

// CHECK-LABEL: func.func @quantize_then_to_blocked_folds(
// CHECK-SAME:    %[[X:.*]]: tensor<200x96xbf16>
// CHECK-NEXT:    %[[Q:.*]], %[[S:.*]] = mxfp8train.quantize %[[X]] axis = 1 mode = rceil layout = blocked
// CHECK-SAME:      : tensor<200x96xbf16> -> tensor<200x96xf8E4M3FN>, tensor<1024xf8E8M0FNU>
// CHECK-NEXT:    return %[[Q]], %[[S]]
func.func @quantize_then_to_blocked_folds(%x: tensor<200x96xbf16>)
    -> (tensor<200x96xf8E4M3FN>, tensor<1024xf8E8M0FNU>) {
  %q, %s = mxfp8train.quantize %x axis = 1 mode = rceil
      : tensor<200x96xbf16> -> tensor<200x96xf8E4M3FN>, tensor<200x3xf8E8M0FNU>
  %b = mxfp8train.to_blocked %s layout = blocked
      : tensor<200x3xf8E8M0FNU> -> tensor<1024xf8E8M0FNU>
  return %q, %b : tensor<200x96xf8E4M3FN>, tensor<1024xf8E8M0FNU>
}

// -----

// The same for the rowwise scales of quantize_dual; the colwise cast, its
// layout and the mode are kept.

// CHECK-LABEL: func.func @quantize_dual_rowwise_folds(
// CHECK-SAME:    %[[X:.*]]: tensor<64x128xf32>
// CHECK-NEXT:    %[[RQ:.*]], %[[RS:.*]], %[[CQ:.*]], %[[CS:.*]] = mxfp8train.quantize_dual %[[X]] mode = floor rowwise_layout = blocked colwise_layout = blocked
// CHECK-SAME:      : tensor<64x128xf32> -> tensor<64x128xf8E4M3FN>, tensor<512xf8E8M0FNU>, tensor<64x128xf8E5M2>, tensor<512xf8E8M0FNU>
// CHECK-NEXT:    return %[[RQ]], %[[RS]], %[[CQ]], %[[CS]]
func.func @quantize_dual_rowwise_folds(%x: tensor<64x128xf32>)
    -> (tensor<64x128xf8E4M3FN>, tensor<512xf8E8M0FNU>, tensor<64x128xf8E5M2>, tensor<512xf8E8M0FNU>) {
  %rq, %rs, %cq, %cs = mxfp8train.quantize_dual %x mode = floor colwise_layout = blocked
      : tensor<64x128xf32> -> tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>,
                              tensor<64x128xf8E5M2>, tensor<512xf8E8M0FNU>
  %b = mxfp8train.to_blocked %rs layout = blocked
      : tensor<64x4xf8E8M0FNU> -> tensor<512xf8E8M0FNU>
  return %rq, %b, %cq, %cs : tensor<64x128xf8E4M3FN>, tensor<512xf8E8M0FNU>, tensor<64x128xf8E5M2>, tensor<512xf8E8M0FNU>
}

// -----

// The row-major scales are also returned: no fold (the quantize would have
// to write both layouts).

// CHECK-LABEL: func.func @scales_with_another_use_stay(
// CHECK:         mxfp8train.quantize %{{.*}} axis = 1 mode = rceil :
// CHECK:         mxfp8train.to_blocked
func.func @scales_with_another_use_stay(%x: tensor<128x64xbf16>)
    -> (tensor<128x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU>, tensor<512xf8E8M0FNU>) {
  %q, %s = mxfp8train.quantize %x axis = 1 mode = rceil
      : tensor<128x64xbf16> -> tensor<128x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU>
  %b = mxfp8train.to_blocked %s layout = blocked
      : tensor<128x2xf8E8M0FNU> -> tensor<512xf8E8M0FNU>
  return %q, %s, %b : tensor<128x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU>, tensor<512xf8E8M0FNU>
}

// -----

// 32x1 scales (axis 0) are the (K/32, N) matrix: to_blocked of it (8192
// bytes here) is not the blocked layout of the quantize, which blocks the
// transposed (N, K/32) matrix (512 bytes). No fold; neither for the colwise
// scales of quantize_dual.

// CHECK-LABEL: func.func @colwise_scales_stay(
// CHECK:         mxfp8train.quantize %{{.*}} axis = 0 mode = rceil :
// CHECK:         mxfp8train.to_blocked
// CHECK:         mxfp8train.quantize_dual %{{.*}} mode = rceil :
// CHECK:         mxfp8train.to_blocked
func.func @colwise_scales_stay(%x: tensor<128x64xbf16>)
    -> (tensor<128x64xf8E4M3FN>, tensor<8192xf8E8M0FNU>, tensor<128x64xf8E4M3FN>,
        tensor<128x2xf8E8M0FNU>, tensor<128x64xf8E4M3FN>, tensor<8192xf8E8M0FNU>) {
  %q, %s = mxfp8train.quantize %x axis = 0 mode = rceil
      : tensor<128x64xbf16> -> tensor<128x64xf8E4M3FN>, tensor<4x64xf8E8M0FNU>
  %b = mxfp8train.to_blocked %s layout = blocked
      : tensor<4x64xf8E8M0FNU> -> tensor<8192xf8E8M0FNU>
  %rq, %rs, %cq, %cs = mxfp8train.quantize_dual %x mode = rceil
      : tensor<128x64xbf16> -> tensor<128x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU>,
                               tensor<128x64xf8E4M3FN>, tensor<4x64xf8E8M0FNU>
  %cb = mxfp8train.to_blocked %cs layout = blocked
      : tensor<4x64xf8E8M0FNU> -> tensor<8192xf8E8M0FNU>
  return %q, %b, %rq, %rs, %cq, %cb : tensor<128x64xf8E4M3FN>, tensor<8192xf8E8M0FNU>,
      tensor<128x64xf8E4M3FN>, tensor<128x2xf8E8M0FNU>, tensor<128x64xf8E4M3FN>, tensor<8192xf8E8M0FNU>
}

// -----

// The grouped layouts are not a quantize layout: no fold.

// CHECK-LABEL: func.func @grouped_layout_stays(
// CHECK:         mxfp8train.quantize %{{.*}} axis = 1 mode = rceil :
// CHECK:         mxfp8train.to_blocked %{{.*}} offs(%{{.*}}) layout = blocked_m_groups
func.func @grouped_layout_stays(%x: tensor<256x64xbf16>, %offs: tensor<2xi32>)
    -> (tensor<256x64xf8E4M3FN>, tensor<2048xf8E8M0FNU>) {
  %q, %s = mxfp8train.quantize %x axis = 1 mode = rceil
      : tensor<256x64xbf16> -> tensor<256x64xf8E4M3FN>, tensor<256x2xf8E8M0FNU>
  %b = mxfp8train.to_blocked %s offs(%offs) layout = blocked_m_groups
      : tensor<256x2xf8E8M0FNU>, tensor<2xi32> -> tensor<2048xf8E8M0FNU>
  return %q, %b : tensor<256x64xf8E4M3FN>, tensor<2048xf8E8M0FNU>
}
