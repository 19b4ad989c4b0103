// RUN: mxfp8-opt %s --convert-mxfp8train-to-linalg --canonicalize --cse | FileCheck %s
// RUN: mxfp8-opt %s --convert-mxfp8train-to-linalg | FileCheck %s --check-prefix=NOCAST

// NOCAST-NOT: arith.extf
// NOCAST-NOT: arith.truncf
// NOCAST-NOT: linalg.transpose
// NOCAST-NOT: mxfp8train.

// Forward 2d-3d (out = A @ W[g]^T): A is dequantized to f32 once, before the
// group loop. The loop clamps each offset into [previous end, M]; a non-empty
// group dequantizes its expert once into the canonical (K, N) orientation and
// runs static 32-, 8- and 1-row matmuls over its rows. The f32 accumulator
// starts at zero (rows past offs[-1] stay zero) and is rounded to bf16 once.
// Both operands carry the scale shifts of their rows (A per row, the expert
// per column), undone on each chunk's product.
// CHECK-LABEL: func.func @forward_2d_3d(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<64x128xf8E4M3FN>, %[[AS:[^:]*]]: tensor<64x4xf8E8M0FNU>, %[[W:[^:]*]]: tensor<4x32x128xf8E4M3FN>, %[[WS:[^:]*]]: tensor<4x32x4xf8E8M0FNU>, %[[OFFS:[^:]*]]: tensor<4xi32>
// CHECK:         %[[ASH:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %[[AS]] : tensor<64x4x32xf8E4M3FN>, tensor<64x4xf8E8M0FNU>) outs(%{{.*}} : tensor<64xi32>)
// CHECK:         linalg.generic {{.*}} ins(%{{.*}}, %[[AS]], %[[ASH]] : {{.*}}) outs(%{{.*}} : tensor<64x4x32xf32>)
// CHECK:         %[[AF:.*]] = tensor.collapse_shape %{{.*}} : tensor<64x4x32xf32> into tensor<64x128xf32>
// CHECK:         %[[ACC0:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<64x32xf32>)
// CHECK:         %[[LOOP:.*]]:2 = scf.for %[[G:.*]] = %{{.*}} iter_args(%[[PREV:.*]] = %{{.*}}, %[[ACC:.*]] = %[[ACC0]])
// CHECK:           %[[RAW:.*]] = tensor.extract %[[OFFS]][%[[G]]] : tensor<4xi32>
// CHECK:           %[[IDX:.*]] = arith.index_cast %[[RAW]] : i32 to index
// CHECK:           %[[MAX:.*]] = arith.maxsi %[[IDX]], %[[PREV]] : index
// CHECK:           %[[END:.*]] = arith.minsi %[[MAX]], %{{.*}} : index
// CHECK:           %[[NONEMPTY:.*]] = arith.cmpi ult, %[[PREV]], %[[END]] : index
// CHECK:           scf.if %[[NONEMPTY]] -> (tensor<64x32xf32>) {
// CHECK:             tensor.extract_slice %[[W]][%[[G]], 0, 0] [1, 32, 128] [1, 1, 1] : tensor<4x32x128xf8E4M3FN> to tensor<32x128xf8E4M3FN>
// CHECK:             tensor.extract_slice %[[WS]][%[[G]], 0, 0] [1, 32, 4] [1, 1, 1] : tensor<4x32x4xf8E8M0FNU> to tensor<32x4xf8E8M0FNU>
// CHECK:             %[[WSH:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<32xi32>)
// CHECK:             linalg.generic {{.*}} outs(%{{.*}} : tensor<4x32x32xf32>)
// CHECK:             %[[WF:.*]] = tensor.collapse_shape %{{.*}} : tensor<4x32x32xf32> into tensor<128x32xf32>
// CHECK:             scf.for %[[POS:.*]] = %[[PREV]] to %{{.*}} step %c32
// CHECK:               %[[P32:.*]] = linalg.matmul ins(%{{.*}}, %[[WF]] : tensor<32x128xf32>, tensor<128x32xf32>) outs(%{{.*}} : tensor<32x32xf32>)
// CHECK:               %[[RSH:.*]] = tensor.extract_slice %[[ASH]][%[[POS]]] [32] [1] : tensor<64xi32> to tensor<32xi32>
// CHECK:               linalg.generic {{.*}} ins(%[[RSH]], %[[WSH]] : tensor<32xi32>, tensor<32xi32>) outs(%[[P32]] : tensor<32x32xf32>)
// CHECK:             scf.for {{.*}} step %c8
// CHECK:               linalg.matmul ins(%{{.*}}, %[[WF]] : tensor<8x128xf32>, tensor<128x32xf32>) outs(%{{.*}} : tensor<8x32xf32>)
// CHECK:             scf.for %{{.*}} = %{{.*}} to %[[END]] step %c1
// CHECK:               linalg.matmul ins(%{{.*}}, %[[WF]] : tensor<1x128xf32>, tensor<128x32xf32>) outs(%{{.*}} : tensor<1x32xf32>)
// CHECK:           } else {
// CHECK-NEXT:        scf.yield %[[ACC]]
// CHECK:         %[[OUT:.*]] = linalg.generic {{.*}} ins(%[[LOOP]]#1 : tensor<64x32xf32>) outs(%{{.*}} : tensor<64x32xbf16>)
// CHECK:         return %[[OUT]]
func.func @forward_2d_3d(%a: tensor<64x128xf8E4M3FN>, %as: tensor<64x4xf8E8M0FNU>, %w: tensor<4x32x128xf8E4M3FN>, %ws: tensor<4x32x4xf8E8M0FNU>, %offs: tensor<4xi32>) -> tensor<64x32xbf16> {
  %0 = mxfp8train.scaled_grouped_mm %a [%as], %w [%ws] offs(%offs) transpose_rhs : tensor<64x128xf8E4M3FN> [tensor<64x4xf8E8M0FNU>], tensor<4x32x128xf8E4M3FN> [tensor<4x32x4xf8E8M0FNU>], tensor<4xi32> -> tensor<64x32xbf16>
  return %0 : tensor<64x32xbf16>
}

// Weight gradient 2d-2d (dW[g] = dO[g]^T @ X[g]) with an f32 result: both
// operands are dequantized once, dO^T into (N, M) and X into (M, K). Each
// group zero-fills its own slice of the result (an empty group stays exactly
// zero) and accumulates static 128-, 32-, 8- and 1-token matmuls into it,
// then undoes the scale shifts of dO's rows and X's columns in place.
// CHECK-LABEL: func.func @wgrad_2d_2d(
// CHECK:         %[[L:.*]] = tensor.collapse_shape %{{.*}} : tensor<64x8x32xf32> into tensor<64x256xf32>
// CHECK:         %[[R:.*]] = tensor.collapse_shape %{{.*}} : tensor<8x32x96xf32> into tensor<256x96xf32>
// CHECK:         %[[RES:.*]] = tensor.empty() : tensor<4x64x96xf32>
// CHECK:         %[[LOOP:.*]]:2 = scf.for %[[G:.*]] = {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[OUT:.*]] = %[[RES]])
// CHECK:           %[[SLICE:.*]] = tensor.extract_slice %[[OUT]][%[[G]], 0, 0] [1, 64, 96] [1, 1, 1] : tensor<4x64x96xf32> to tensor<64x96xf32>
// CHECK:           %[[ZERO:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[SLICE]] : tensor<64x96xf32>)
// CHECK:           %[[C128:.*]] = scf.for {{.*}} step %c128 iter_args(%{{.*}} = %[[ZERO]])
// CHECK:             tensor.extract_slice %[[L]][0, %{{.*}}] [64, 128] [1, 1]
// CHECK:             tensor.extract_slice %[[R]][%{{.*}}, 0] [128, 96] [1, 1]
// CHECK:             linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<64x128xf32>, tensor<128x96xf32>) outs(%{{.*}} : tensor<64x96xf32>)
// CHECK:           scf.for {{.*}} step %c32
// CHECK:             linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<64x32xf32>, tensor<32x96xf32>)
// CHECK:           scf.for {{.*}} step %c8
// CHECK:             linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<64x8xf32>, tensor<8x96xf32>)
// CHECK:           %[[LAST:.*]] = scf.for {{.*}} step %c1
// CHECK:             linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<64x1xf32>, tensor<1x96xf32>)
// CHECK:           %[[UNSHIFTED:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<64xi32>, tensor<96xi32>) outs(%[[LAST]] : tensor<64x96xf32>)
// CHECK:           tensor.insert_slice %[[UNSHIFTED]] into %[[OUT]][%[[G]], 0, 0] [1, 64, 96] [1, 1, 1]
// CHECK:         return %[[LOOP]]#1
func.func @wgrad_2d_2d(%go: tensor<256x64xf8E4M3FN>, %gos: tensor<8x64xf8E8M0FNU>, %x: tensor<256x96xf8E4M3FN>, %xs: tensor<8x96xf8E8M0FNU>, %offs: tensor<4xi32>) -> tensor<4x64x96xf32> {
  %0 = mxfp8train.scaled_grouped_mm %go [%gos], %x [%xs] offs(%offs) transpose_lhs : tensor<256x64xf8E4M3FN> [tensor<8x64xf8E8M0FNU>], tensor<256x96xf8E4M3FN> [tensor<8x96xf8E8M0FNU>], tensor<4xi32> -> tensor<4x64x96xf32>
  return %0 : tensor<4x64x96xf32>
}

// The grouped blocked layouts are read back into row-major scales first:
// blocked_m_groups by a group loop of per-group gathers, blocked_per_expert
// per expert inside the group loop.
// CHECK-LABEL: func.func @forward_blocked(
// CHECK-SAME:    %[[AS:[^:]*]]: tensor<2304xf8E8M0FNU>
// CHECK-SAME:    %[[WS:[^:]*]]: tensor<4x512xf8E8M0FNU>
// CHECK:         %[[ROWS:.*]]:3 = scf.for
// CHECK:           linalg.generic {{.*}} outs(%{{.*}} : tensor<?x4xf8E8M0FNU>)
// CHECK:             tensor.extract %[[AS]][%{{.*}}] : tensor<2304xf8E8M0FNU>
// CHECK:         linalg.generic {{.*}} ins(%{{.*}}, %[[ROWS]]#2, %{{.*}} : tensor<64x4x32xf8E4M3FN>, tensor<64x4xf8E8M0FNU>, tensor<64xi32>)
// CHECK:         scf.for
// CHECK:           scf.if
// CHECK:             tensor.extract_slice %[[WS]][%{{.*}}, 0] [1, 512] [1, 1] : tensor<4x512xf8E8M0FNU> to tensor<512xf8E8M0FNU>
// CHECK:             linalg.generic {{.*}} outs(%{{.*}} : tensor<32x4xf8E8M0FNU>)
// CHECK:             linalg.matmul
func.func @forward_blocked(%a: tensor<64x128xf8E4M3FN>, %as: tensor<2304xf8E8M0FNU>, %w: tensor<4x32x128xf8E4M3FN>, %ws: tensor<4x512xf8E8M0FNU>, %offs: tensor<4xi32>) -> tensor<64x32xf32> {
  %0 = mxfp8train.scaled_grouped_mm %a [%as], %w [%ws] offs(%offs) transpose_rhs lhs_layout = blocked_m_groups rhs_layout = blocked_per_expert : tensor<64x128xf8E4M3FN> [tensor<2304xf8E8M0FNU>], tensor<4x32x128xf8E4M3FN> [tensor<4x512xf8E8M0FNU>], tensor<4xi32> -> tensor<64x32xf32>
  return %0 : tensor<64x32xf32>
}

// blocked_k_groups scales of both wgrad operands are read back by group
// loops over the 32-token column groups offs / 32.
// CHECK-LABEL: func.func @wgrad_k_groups(
// CHECK:         scf.for
// CHECK:           arith.divui %{{.*}}, %c32 : index
// CHECK:           linalg.generic {{.*}} outs(%{{.*}} : tensor<?x64xf8E8M0FNU>)
// CHECK:         scf.for
// CHECK:           linalg.generic {{.*}} outs(%{{.*}} : tensor<?x96xf8E8M0FNU>)
// CHECK:         linalg.matmul
func.func @wgrad_k_groups(%go: tensor<256x64xf8E4M3FN>, %gos: tensor<3072xf8E8M0FNU>, %x: tensor<256x96xf8E4M3FN>, %xs: tensor<3072xf8E8M0FNU>, %offs: tensor<4xi32>) -> tensor<4x64x96xbf16> {
  %0 = mxfp8train.scaled_grouped_mm %go [%gos], %x [%xs] offs(%offs) transpose_lhs lhs_layout = blocked_k_groups rhs_layout = blocked_k_groups : tensor<256x64xf8E4M3FN> [tensor<3072xf8E8M0FNU>], tensor<256x96xf8E4M3FN> [tensor<3072xf8E8M0FNU>], tensor<4xi32> -> tensor<4x64x96xbf16>
  return %0 : tensor<4x64x96xbf16>
}

// grouped_mm: bf16 operands widen exactly (a bit shift, no extf) into f32;
// the dgrad form (no transpose_rhs) converts each expert as stored.
// CHECK-LABEL: func.func @hp_dgrad(
// CHECK:         linalg.generic {{.*}} ins(%{{.*}} : tensor<64x96xbf16>) outs(%{{.*}} : tensor<64x96xf32>)
// CHECK:           arith.shli
// CHECK:         scf.for
// CHECK:           scf.if
// CHECK:             %[[WB:.*]] = tensor.extract_slice %{{.*}} : tensor<4x96x48xbf16> to tensor<96x48xbf16>
// CHECK:             linalg.generic {{.*}} ins(%[[WB]] : tensor<96x48xbf16>) outs(%{{.*}} : tensor<96x48xf32>)
// CHECK:             linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<32x96xf32>, tensor<96x48xf32>)
func.func @hp_dgrad(%do: tensor<64x96xbf16>, %w: tensor<4x96x48xbf16>, %offs: tensor<4xi32>) -> tensor<64x48xbf16> {
  %0 = mxfp8train.grouped_mm %do, %w offs(%offs) : tensor<64x96xbf16>, tensor<4x96x48xbf16>, tensor<4xi32> -> tensor<64x48xbf16>
  return %0 : tensor<64x48xbf16>
}

// f32 operands in the canonical orientation are used as they are.
// CHECK-LABEL: func.func @hp_wgrad_f32(
// CHECK-SAME:    %[[L:[^:]*]]: tensor<48x40xf32>, %[[R:[^:]*]]: tensor<40x24xf32>
// CHECK-NOT:     linalg.generic
// CHECK:         scf.for
// CHECK:           linalg.fill
// CHECK:           scf.for
// CHECK:             tensor.extract_slice %[[L]][0, %{{.*}}] [48, 128] [1, 1]
// CHECK:             tensor.extract_slice %[[R]][%{{.*}}, 0] [128, 24] [1, 1]
// CHECK:             linalg.matmul
func.func @hp_wgrad_f32(%l: tensor<48x40xf32>, %r: tensor<40x24xf32>, %offs: tensor<3xi32>) -> tensor<3x48x24xf32> {
  %0 = mxfp8train.grouped_mm %l, %r offs(%offs) : tensor<48x40xf32>, tensor<40x24xf32>, tensor<3xi32> -> tensor<3x48x24xf32>
  return %0 : tensor<3x48x24xf32>
}
