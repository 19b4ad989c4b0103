// RUN: mxfp8-opt %s -split-input-file --mxfp8train-rewrite-matmuls=remarks=true --verify-diagnostics | FileCheck %s

// Default recipe (mxfp8_rceil): every transposed form of linalg.matmul and
// linalg.batch_matmul, through indexing maps and through linalg.transpose;
// inits; roles; reuse of quantized tensors; skipped matmuls. Each matmul's
// remark is checked with expected-remark.

// Forward `x @ Wᵀ` through indexing maps: both operands quantized along
// their stored last dim; the zero fill init is dropped.
// CHECK-LABEL: func.func @forward_transpose_rhs_map(
// CHECK-SAME:    %[[X:.*]]: tensor<64x128xbf16>, %[[W:.*]]: tensor<256x128xbf16>
// CHECK-NOT:     linalg.fill
// CHECK:         %[[XQ:.*]], %[[XS:.*]] = mxfp8train.quantize %[[X]] axis = 1 mode = rceil : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>
// CHECK:         %[[WQ:.*]], %[[WS:.*]] = mxfp8train.quantize %[[W]] axis = 1 mode = rceil : tensor<256x128xbf16> -> tensor<256x128xf8E4M3FN>, tensor<256x4xf8E8M0FNU>
// CHECK:         %[[R:.*]] = mxfp8train.scaled_mm %[[XQ]][%[[XS]]], %[[WQ]][%[[WS]]] transpose_rhs {mxfp8train.role = "forward"}
// CHECK-SAME:      -> tensor<64x256xbf16>
// CHECK-NOT:     linalg.matmul
// CHECK:         return %[[R]]
func.func @forward_transpose_rhs_map(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> tensor<64x256xbf16> {
  %cst = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<64x256xbf16>
  %z = linalg.fill ins(%cst : bf16) outs(%e : tensor<64x256xbf16>) -> tensor<64x256xbf16>
  // expected-remark @below {{mxfp8train: converted (role forward, lhs quantized along axis 1, rhs along axis 1, recipe mxfp8_rceil)}}
  %0 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<64x128xbf16>, tensor<256x128xbf16>)
      outs(%z : tensor<64x256xbf16>) -> tensor<64x256xbf16>
  return %0 : tensor<64x256xbf16>
}

// -----

// Dgrad `dO @ W` with default maps and an f32 result; a zero constant init is
// dropped. dO along N (axis 1), W (N, K) along N (axis 0).
// CHECK-LABEL: func.func @dgrad_default_maps_f32(
// CHECK-SAME:    %[[GO:.*]]: tensor<64x256xbf16>, %[[W:.*]]: tensor<256x128xbf16>
// CHECK-NOT:     arith.constant
// CHECK:         %[[GQ:.*]], %[[GS:.*]] = mxfp8train.quantize %[[GO]] axis = 1 mode = rceil : tensor<64x256xbf16> -> tensor<64x256xf8E4M3FN>, tensor<64x8xf8E8M0FNU>
// CHECK:         %[[WQ:.*]], %[[WS:.*]] = mxfp8train.quantize %[[W]] axis = 0 mode = rceil : tensor<256x128xbf16> -> tensor<256x128xf8E4M3FN>, tensor<8x128xf8E8M0FNU>
// CHECK:         %[[R:.*]] = mxfp8train.scaled_mm %[[GQ]][%[[GS]]], %[[WQ]][%[[WS]]] {mxfp8train.role = "dgrad"}
// CHECK-SAME:      -> tensor<64x128xf32>
// CHECK:         return %[[R]]
func.func @dgrad_default_maps_f32(%go: tensor<64x256xbf16>, %w: tensor<256x128xbf16>) -> tensor<64x128xf32> {
  %z = arith.constant dense<0.0> : tensor<64x128xf32>
  // expected-remark @below {{mxfp8train: converted (role dgrad, lhs quantized along axis 1, rhs along axis 0, recipe mxfp8_rceil)}}
  %0 = linalg.matmul ins(%go, %w : tensor<64x256xbf16>, tensor<256x128xbf16>)
                     outs(%z : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %0 : tensor<64x128xf32>
}

// -----

// Wgrad `dOᵀ @ x` through indexing maps: both operands contracted over their
// stored dim 0 (the token dim M = 64).
// CHECK-LABEL: func.func @wgrad_transpose_lhs_map(
// CHECK-SAME:    %[[GO:.*]]: tensor<64x256xbf16>, %[[X:.*]]: tensor<64x128xbf16>
// CHECK:         %[[GQ:.*]], %[[GS:.*]] = mxfp8train.quantize %[[GO]] axis = 0 mode = rceil : tensor<64x256xbf16> -> tensor<64x256xf8E4M3FN>, tensor<2x256xf8E8M0FNU>
// CHECK:         %[[XQ:.*]], %[[XS:.*]] = mxfp8train.quantize %[[X]] axis = 0 mode = rceil : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<2x128xf8E8M0FNU>
// CHECK:         %[[R:.*]] = mxfp8train.scaled_mm %[[GQ]][%[[GS]]], %[[XQ]][%[[XS]]] transpose_lhs {mxfp8train.role = "wgrad"}
// CHECK-SAME:      -> tensor<256x128xf32>
// CHECK:         return %[[R]]
func.func @wgrad_transpose_lhs_map(%go: tensor<64x256xbf16>, %x: tensor<64x128xbf16>) -> tensor<256x128xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x128xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<256x128xf32>) -> tensor<256x128xf32>
  // expected-remark @below {{mxfp8train: converted (role wgrad, lhs quantized along axis 0, rhs along axis 0, recipe mxfp8_rceil)}}
  %0 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>,
                                      affine_map<(m, n, k) -> (k, n)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%go, %x : tensor<64x256xbf16>, tensor<64x128xbf16>)
      outs(%z : tensor<256x128xf32>) -> tensor<256x128xf32>
  return %0 : tensor<256x128xf32>
}

// -----

// Both operands read transposed: lhs stored (K, M), rhs stored (N, K).
// CHECK-LABEL: func.func @both_transposed_maps(
// CHECK-SAME:    %[[A:.*]]: tensor<96x32xbf16>, %[[B:.*]]: tensor<64x96xbf16>
// CHECK:         %[[AQ:.*]], %[[AS:.*]] = mxfp8train.quantize %[[A]] axis = 0 mode = rceil : tensor<96x32xbf16> -> tensor<96x32xf8E4M3FN>, tensor<3x32xf8E8M0FNU>
// CHECK:         %[[BQ:.*]], %[[BS:.*]] = mxfp8train.quantize %[[B]] axis = 1 mode = rceil : tensor<64x96xbf16> -> tensor<64x96xf8E4M3FN>, tensor<64x3xf8E8M0FNU>
// CHECK:         mxfp8train.scaled_mm %[[AQ]][%[[AS]]], %[[BQ]][%[[BS]]] transpose_lhs transpose_rhs {mxfp8train.role = "forward"}
// CHECK-SAME:      -> tensor<32x64xbf16>
func.func @both_transposed_maps(%a: tensor<96x32xbf16>, %b: tensor<64x96xbf16>) -> tensor<32x64xbf16> {
  %cst = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<32x64xbf16>
  %z = linalg.fill ins(%cst : bf16) outs(%e : tensor<32x64xbf16>) -> tensor<32x64xbf16>
  // expected-remark @below {{mxfp8train: converted (role forward, lhs quantized along axis 0, rhs along axis 1, recipe mxfp8_rceil)}}
  %0 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : tensor<96x32xbf16>, tensor<64x96xbf16>)
      outs(%z : tensor<32x64xbf16>) -> tensor<32x64xbf16>
  return %0 : tensor<32x64xbf16>
}

// -----

// The weight transposed by linalg.transpose (what torch-mlir emits for
// `x @ W.t()`): W itself is quantized along K (axis 1) with transpose_rhs and
// the dead transpose and its empty are erased.
// CHECK-LABEL: func.func @forward_through_transpose_op(
// CHECK-SAME:    %[[X:.*]]: tensor<64x128xbf16>, %[[W:.*]]: tensor<256x128xbf16>
// CHECK-NOT:     linalg.transpose
// CHECK-NOT:     tensor.empty
// CHECK:         %[[XQ:.*]], %[[XS:.*]] = mxfp8train.quantize %[[X]] axis = 1 mode = rceil
// CHECK:         %[[WQ:.*]], %[[WS:.*]] = mxfp8train.quantize %[[W]] axis = 1 mode = rceil : tensor<256x128xbf16> -> tensor<256x128xf8E4M3FN>, tensor<256x4xf8E8M0FNU>
// CHECK:         mxfp8train.scaled_mm %[[XQ]][%[[XS]]], %[[WQ]][%[[WS]]] transpose_rhs {mxfp8train.role = "forward"}
// CHECK-NOT:     linalg.transpose
func.func @forward_through_transpose_op(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> tensor<64x256xbf16> {
  %e = tensor.empty() : tensor<128x256xbf16>
  %wt = linalg.transpose ins(%w : tensor<256x128xbf16>) outs(%e : tensor<128x256xbf16>) permutation = [1, 0]
  %cst = arith.constant 0.0 : bf16
  %e2 = tensor.empty() : tensor<64x256xbf16>
  %z = linalg.fill ins(%cst : bf16) outs(%e2 : tensor<64x256xbf16>) -> tensor<64x256xbf16>
  // expected-remark @below {{mxfp8train: converted (role forward, lhs quantized along axis 1, rhs via linalg.transpose along axis 1, recipe mxfp8_rceil)}}
  %0 = linalg.matmul ins(%x, %wt : tensor<64x128xbf16>, tensor<128x256xbf16>)
                     outs(%z : tensor<64x256xbf16>) -> tensor<64x256xbf16>
  return %0 : tensor<64x256xbf16>
}

// -----

// `dO.t() @ x` materialized with linalg.transpose: recognised as wgrad
// because the stored dO is contracted over its dim 0.
// CHECK-LABEL: func.func @wgrad_through_transpose_op(
// CHECK-SAME:    %[[GO:.*]]: tensor<64x256xbf16>, %[[X:.*]]: tensor<64x128xbf16>
// CHECK:         %[[GQ:.*]], %[[GS:.*]] = mxfp8train.quantize %[[GO]] axis = 0 mode = rceil : tensor<64x256xbf16> -> tensor<64x256xf8E4M3FN>, tensor<2x256xf8E8M0FNU>
// CHECK:         %[[XQ:.*]], %[[XS:.*]] = mxfp8train.quantize %[[X]] axis = 0 mode = rceil
// CHECK:         mxfp8train.scaled_mm %[[GQ]][%[[GS]]], %[[XQ]][%[[XS]]] transpose_lhs {mxfp8train.role = "wgrad"}
// CHECK-NOT:     linalg.transpose
func.func @wgrad_through_transpose_op(%go: tensor<64x256xbf16>, %x: tensor<64x128xbf16>) -> tensor<256x128xf32> {
  %e = tensor.empty() : tensor<256x64xbf16>
  %got = linalg.transpose ins(%go : tensor<64x256xbf16>) outs(%e : tensor<256x64xbf16>) permutation = [1, 0]
  %z = arith.constant dense<0.0> : tensor<256x128xf32>
  // expected-remark @below {{mxfp8train: converted (role wgrad, lhs via linalg.transpose quantized along axis 0, rhs along axis 0, recipe mxfp8_rceil)}}
  %0 = linalg.matmul ins(%got, %x : tensor<256x64xbf16>, tensor<64x128xbf16>)
                     outs(%z : tensor<256x128xf32>) -> tensor<256x128xf32>
  return %0 : tensor<256x128xf32>
}

// -----

// The same transposes written as linalg.generic ops that only move elements
// (what linalg-generalize-named-ops or older torch-mlir emit): recognised
// like linalg.transpose, so the roles are forward and wgrad (not dgrad) and
// the generics are erased.
#gen_id = affine_map<(d0, d1) -> (d0, d1)>
#gen_tr = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-LABEL: func.func @generic_transposes(
// CHECK-SAME:    %[[X:.*]]: tensor<64x128xbf16>, %[[W:.*]]: tensor<256x128xbf16>, %[[GO:.*]]: tensor<64x256xbf16>
// CHECK-NOT:     linalg.generic
// CHECK:         mxfp8train.quantize %[[W]] axis = 1
// CHECK:         mxfp8train.scaled_mm {{.*}} transpose_rhs {mxfp8train.role = "forward"}
// CHECK:         mxfp8train.quantize %[[GO]] axis = 0
// CHECK:         mxfp8train.scaled_mm {{.*}} transpose_lhs {mxfp8train.role = "wgrad"}
// CHECK-NOT:     linalg.generic
func.func @generic_transposes(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %go: tensor<64x256xbf16>) -> (tensor<64x256xf32>, tensor<256x128xf32>) {
  %ew = tensor.empty() : tensor<128x256xbf16>
  %wt = linalg.generic {indexing_maps = [#gen_tr, #gen_id], iterator_types = ["parallel", "parallel"]}
      ins(%w : tensor<256x128xbf16>) outs(%ew : tensor<128x256xbf16>) {
  ^bb0(%a: bf16, %o: bf16):
    linalg.yield %a : bf16
  } -> tensor<128x256xbf16>
  %z1 = arith.constant dense<0.0> : tensor<64x256xf32>
  // expected-remark @below {{mxfp8train: converted (role forward, lhs quantized along axis 1, rhs via linalg.generic transpose along axis 1, recipe mxfp8_rceil)}}
  %0 = linalg.matmul ins(%x, %wt : tensor<64x128xbf16>, tensor<128x256xbf16>)
                     outs(%z1 : tensor<64x256xf32>) -> tensor<64x256xf32>
  %eg = tensor.empty() : tensor<256x64xbf16>
  // The transpose written with the permutation on the output map.
  %got = linalg.generic {indexing_maps = [#gen_id, #gen_tr], iterator_types = ["parallel", "parallel"]}
      ins(%go : tensor<64x256xbf16>) outs(%eg : tensor<256x64xbf16>) {
  ^bb0(%a: bf16, %o: bf16):
    linalg.yield %a : bf16
  } -> tensor<256x64xbf16>
  %z2 = arith.constant dense<0.0> : tensor<256x128xf32>
  // expected-remark @below {{mxfp8train: converted (role wgrad, lhs via linalg.generic transpose quantized along axis 0, rhs along axis 0, recipe mxfp8_rceil)}}
  %1 = linalg.matmul ins(%got, %x : tensor<256x64xbf16>, tensor<64x128xbf16>)
                     outs(%z2 : tensor<256x128xf32>) -> tensor<256x128xf32>
  return %0, %1 : tensor<64x256xf32>, tensor<256x128xf32>
}

// -----

// A linalg.generic that also computes (here: negates) is no transpose: the
// matmul quantizes its result as stored.
#neg_id = affine_map<(d0, d1) -> (d0, d1)>
#neg_tr = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-LABEL: func.func @generic_not_a_transpose(
// CHECK:         %[[NEG:.*]] = linalg.generic
// CHECK:         mxfp8train.quantize %[[NEG]] axis = 0
func.func @generic_not_a_transpose(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> tensor<64x256xf32> {
  %ew = tensor.empty() : tensor<128x256xbf16>
  %wt = linalg.generic {indexing_maps = [#neg_tr, #neg_id], iterator_types = ["parallel", "parallel"]}
      ins(%w : tensor<256x128xbf16>) outs(%ew : tensor<128x256xbf16>) {
  ^bb0(%a: bf16, %o: bf16):
    %n = arith.negf %a : bf16
    linalg.yield %n : bf16
  } -> tensor<128x256xbf16>
  %z = arith.constant dense<0.0> : tensor<64x256xf32>
  // expected-remark @below {{mxfp8train: converted (role dgrad, lhs quantized along axis 1, rhs along axis 0, recipe mxfp8_rceil)}}
  %0 = linalg.matmul ins(%x, %wt : tensor<64x128xbf16>, tensor<128x256xbf16>)
                     outs(%z : tensor<64x256xf32>) -> tensor<64x256xf32>
  return %0 : tensor<64x256xf32>
}

// -----

// A transpose with another use stays; the matmul still quantizes its input.
// CHECK-LABEL: func.func @transpose_op_with_other_use(
// CHECK-SAME:    %[[X:.*]]: tensor<64x128xbf16>, %[[W:.*]]: tensor<256x128xbf16>
// CHECK:         %[[WT:.*]] = linalg.transpose ins(%[[W]]
// CHECK:         mxfp8train.quantize %[[W]] axis = 1
// CHECK:         mxfp8train.scaled_mm {{.*}} transpose_rhs
// CHECK:         return %{{.*}}, %[[WT]]
func.func @transpose_op_with_other_use(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> (tensor<64x256xbf16>, tensor<128x256xbf16>) {
  %e = tensor.empty() : tensor<128x256xbf16>
  %wt = linalg.transpose ins(%w : tensor<256x128xbf16>) outs(%e : tensor<128x256xbf16>) permutation = [1, 0]
  %z = arith.constant dense<0.0> : tensor<64x256xbf16>
  // expected-remark @below {{mxfp8train: converted (role forward, lhs quantized along axis 1, rhs via linalg.transpose along axis 1, recipe mxfp8_rceil)}}
  %0 = linalg.matmul ins(%x, %wt : tensor<64x128xbf16>, tensor<128x256xbf16>)
                     outs(%z : tensor<64x256xbf16>) -> tensor<64x256xbf16>
  return %0, %wt : tensor<64x256xbf16>, tensor<128x256xbf16>
}

// -----

// One linalg.transpose feeding both operands (xᵀ @ xᵀ): x is quantized along
// both axes and the transpose is erased once.
// CHECK-LABEL: func.func @one_transpose_op_both_operands(
// CHECK-SAME:    %[[X:.*]]: tensor<64x64xbf16>
// CHECK-NOT:     linalg.transpose
// CHECK:         %[[A:.*]], %[[AS:.*]] = mxfp8train.quantize %[[X]] axis = 0
// CHECK:         %[[B:.*]], %[[BS:.*]] = mxfp8train.quantize %[[X]] axis = 1
// CHECK:         mxfp8train.scaled_mm %[[A]][%[[AS]]], %[[B]][%[[BS]]] transpose_lhs transpose_rhs
// CHECK-NOT:     linalg.transpose
func.func @one_transpose_op_both_operands(%x: tensor<64x64xbf16>) -> tensor<64x64xf32> {
  %e = tensor.empty() : tensor<64x64xbf16>
  %t = linalg.transpose ins(%x : tensor<64x64xbf16>) outs(%e : tensor<64x64xbf16>) permutation = [1, 0]
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  // expected-remark @below {{mxfp8train: converted (role forward, lhs via linalg.transpose quantized along axis 0, rhs via linalg.transpose along axis 1, recipe mxfp8_rceil)}}
  %0 = linalg.matmul ins(%t, %t : tensor<64x64xbf16>, tensor<64x64xbf16>)
                     outs(%z : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

// A linalg.transpose read through a transposing map: the two cancel, W
// (K = 256, N = 128) is quantized along axis 0 without transpose_rhs.
// CHECK-LABEL: func.func @transpose_op_and_transposed_map(
// CHECK-SAME:    %[[X:.*]]: tensor<64x256xbf16>, %[[W:.*]]: tensor<256x128xbf16>
// CHECK:         %[[XQ:.*]], %[[XS:.*]] = mxfp8train.quantize %[[X]] axis = 1
// CHECK:         %[[WQ:.*]], %[[WS:.*]] = mxfp8train.quantize %[[W]] axis = 0 mode = rceil : tensor<256x128xbf16> -> tensor<256x128xf8E4M3FN>, tensor<8x128xf8E8M0FNU>
// CHECK:         mxfp8train.scaled_mm %[[XQ]][%[[XS]]], %[[WQ]][%[[WS]]] {mxfp8train.role = "dgrad"}
// CHECK-SAME:      -> tensor<64x128xbf16>
func.func @transpose_op_and_transposed_map(%x: tensor<64x256xbf16>, %w: tensor<256x128xbf16>) -> tensor<64x128xbf16> {
  %e = tensor.empty() : tensor<128x256xbf16>
  %wt = linalg.transpose ins(%w : tensor<256x128xbf16>) outs(%e : tensor<128x256xbf16>) permutation = [1, 0]
  %z = arith.constant dense<0.0> : tensor<64x128xbf16>
  // expected-remark @below {{mxfp8train: converted (role dgrad, lhs quantized along axis 1, rhs via linalg.transpose along axis 0, recipe mxfp8_rceil)}}
  %0 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %wt : tensor<64x256xbf16>, tensor<128x256xbf16>)
      outs(%z : tensor<64x128xbf16>) -> tensor<64x128xbf16>
  return %0 : tensor<64x128xbf16>
}

// -----

// batch_matmul with default maps: lhs along axis 2, rhs along axis 1.
// CHECK-LABEL: func.func @batch_matmul_default(
// CHECK-SAME:    %[[A:.*]]: tensor<4x64x128xbf16>, %[[B:.*]]: tensor<4x128x96xbf16>
// CHECK:         %[[AQ:.*]], %[[AS:.*]] = mxfp8train.quantize %[[A]] axis = 2 mode = rceil : tensor<4x64x128xbf16> -> tensor<4x64x128xf8E4M3FN>, tensor<4x64x4xf8E8M0FNU>
// CHECK:         %[[BQ:.*]], %[[BS:.*]] = mxfp8train.quantize %[[B]] axis = 1 mode = rceil : tensor<4x128x96xbf16> -> tensor<4x128x96xf8E4M3FN>, tensor<4x4x96xf8E8M0FNU>
// CHECK:         mxfp8train.scaled_mm %[[AQ]][%[[AS]]], %[[BQ]][%[[BS]]] {mxfp8train.role = "dgrad"}
// CHECK-SAME:      -> tensor<4x64x96xf32>
// CHECK-NOT:     linalg.batch_matmul
func.func @batch_matmul_default(%a: tensor<4x64x128xbf16>, %b: tensor<4x128x96xbf16>) -> tensor<4x64x96xf32> {
  %z = arith.constant dense<0.0> : tensor<4x64x96xf32>
  // expected-remark @below {{mxfp8train: converted (role dgrad, lhs quantized along axis 2, rhs along axis 1, recipe mxfp8_rceil)}}
  %0 = linalg.batch_matmul ins(%a, %b : tensor<4x64x128xbf16>, tensor<4x128x96xbf16>)
                           outs(%z : tensor<4x64x96xf32>) -> tensor<4x64x96xf32>
  return %0 : tensor<4x64x96xf32>
}

// -----

// batch_matmul transposed through maps: lhs (b, k, m), rhs (b, n, k).
// CHECK-LABEL: func.func @batch_matmul_transposed_maps(
// CHECK-SAME:    %[[A:.*]]: tensor<2x64x32xbf16>, %[[B:.*]]: tensor<2x48x64xbf16>
// CHECK:         %[[AQ:.*]], %[[AS:.*]] = mxfp8train.quantize %[[A]] axis = 1 mode = rceil : tensor<2x64x32xbf16> -> tensor<2x64x32xf8E4M3FN>, tensor<2x2x32xf8E8M0FNU>
// CHECK:         %[[BQ:.*]], %[[BS:.*]] = mxfp8train.quantize %[[B]] axis = 2 mode = rceil : tensor<2x48x64xbf16> -> tensor<2x48x64xf8E4M3FN>, tensor<2x48x2xf8E8M0FNU>
// CHECK:         mxfp8train.scaled_mm %[[AQ]][%[[AS]]], %[[BQ]][%[[BS]]] transpose_lhs transpose_rhs {mxfp8train.role = "forward"}
// CHECK-SAME:      -> tensor<2x32x48xbf16>
func.func @batch_matmul_transposed_maps(%a: tensor<2x64x32xbf16>, %b: tensor<2x48x64xbf16>) -> tensor<2x32x48xbf16> {
  %z = arith.constant dense<0.0> : tensor<2x32x48xbf16>
  // expected-remark @below {{mxfp8train: converted (role forward, lhs quantized along axis 1, rhs along axis 2, recipe mxfp8_rceil)}}
  %0 = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, k, m)>,
                                            affine_map<(b, m, n, k) -> (b, n, k)>,
                                            affine_map<(b, m, n, k) -> (b, m, n)>]
      ins(%a, %b : tensor<2x64x32xbf16>, tensor<2x48x64xbf16>)
      outs(%z : tensor<2x32x48xbf16>) -> tensor<2x32x48xbf16>
  return %0 : tensor<2x32x48xbf16>
}

// -----

// batch_matmul wgrad form: lhs (b, k, m), rhs (b, k, n).
// CHECK-LABEL: func.func @batch_matmul_wgrad_map(
// CHECK:         mxfp8train.quantize %{{.*}} axis = 1 mode = rceil : tensor<2x64x32xbf16>
// CHECK:         mxfp8train.quantize %{{.*}} axis = 1 mode = rceil : tensor<2x64x96xbf16>
// CHECK:         mxfp8train.scaled_mm {{.*}} transpose_lhs {mxfp8train.role = "wgrad"}
func.func @batch_matmul_wgrad_map(%a: tensor<2x64x32xbf16>, %b: tensor<2x64x96xbf16>) -> tensor<2x32x96xf32> {
  %z = arith.constant dense<0.0> : tensor<2x32x96xf32>
  // expected-remark @below {{mxfp8train: converted (role wgrad, lhs quantized along axis 1, rhs along axis 1, recipe mxfp8_rceil)}}
  %0 = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, k, m)>,
                                            affine_map<(b, m, n, k) -> (b, k, n)>,
                                            affine_map<(b, m, n, k) -> (b, m, n)>]
      ins(%a, %b : tensor<2x64x32xbf16>, tensor<2x64x96xbf16>)
      outs(%z : tensor<2x32x96xf32>) -> tensor<2x32x96xf32>
  return %0 : tensor<2x32x96xf32>
}

// -----

// batch_matmul through linalg.transpose: a transpose of the last two dims is
// looked through; one that moves the batch dim is not (its result is
// quantized and it stays).
// CHECK-LABEL: func.func @batch_matmul_through_transpose_op(
// CHECK-SAME:    %[[A:.*]]: tensor<2x64x128xbf16>, %[[B:.*]]: tensor<2x96x128xbf16>, %[[C:.*]]: tensor<64x2x128xbf16>
// CHECK:         %[[BQ:.*]], %[[BS:.*]] = mxfp8train.quantize %[[B]] axis = 2 mode = rceil : tensor<2x96x128xbf16>
// CHECK:         mxfp8train.scaled_mm %{{.*}}, %[[BQ]][%[[BS]]] transpose_rhs {mxfp8train.role = "forward"}
// CHECK:         %[[CT:.*]] = linalg.transpose ins(%[[C]]
// CHECK:         %[[CQ:.*]], %[[CS:.*]] = mxfp8train.quantize %[[CT]] axis = 2 mode = rceil : tensor<2x64x128xbf16>
// CHECK:         mxfp8train.scaled_mm %[[CQ]][%[[CS]]], %[[BQ]][%[[BS]]] transpose_rhs {mxfp8train.role = "forward"}
func.func @batch_matmul_through_transpose_op(%a: tensor<2x64x128xbf16>, %b: tensor<2x96x128xbf16>, %c: tensor<64x2x128xbf16>) -> (tensor<2x64x96xbf16>, tensor<2x64x96xbf16>) {
  %e = tensor.empty() : tensor<2x128x96xbf16>
  %bt = linalg.transpose ins(%b : tensor<2x96x128xbf16>) outs(%e : tensor<2x128x96xbf16>) permutation = [0, 2, 1]
  %z = arith.constant dense<0.0> : tensor<2x64x96xbf16>
  // expected-remark @below {{mxfp8train: converted (role forward, lhs quantized along axis 2, rhs via linalg.transpose along axis 2, recipe mxfp8_rceil)}}
  %0 = linalg.batch_matmul ins(%a, %bt : tensor<2x64x128xbf16>, tensor<2x128x96xbf16>)
                           outs(%z : tensor<2x64x96xbf16>) -> tensor<2x64x96xbf16>
  %e2 = tensor.empty() : tensor<2x64x128xbf16>
  %ct = linalg.transpose ins(%c : tensor<64x2x128xbf16>) outs(%e2 : tensor<2x64x128xbf16>) permutation = [1, 0, 2]
  // expected-remark @below {{mxfp8train: converted (role forward, lhs quantized along axis 2, rhs via linalg.transpose along axis 2, recipe mxfp8_rceil)}}
  %1 = linalg.batch_matmul ins(%ct, %bt : tensor<2x64x128xbf16>, tensor<2x128x96xbf16>)
                           outs(%z : tensor<2x64x96xbf16>) -> tensor<2x64x96xbf16>
  return %0, %1 : tensor<2x64x96xbf16>, tensor<2x64x96xbf16>
}

// -----

// Mixed bf16 / f32 operands: each is quantized from its own type.
// CHECK-LABEL: func.func @mixed_operand_types(
// CHECK:         mxfp8train.quantize %{{.*}} axis = 1 mode = rceil : tensor<32x64xf32> -> tensor<32x64xf8E4M3FN>, tensor<32x2xf8E8M0FNU>
// CHECK:         mxfp8train.quantize %{{.*}} axis = 0 mode = rceil : tensor<64x32xbf16> -> tensor<64x32xf8E4M3FN>, tensor<2x32xf8E8M0FNU>
// CHECK:         mxfp8train.scaled_mm {{.*}} -> tensor<32x32xbf16>
func.func @mixed_operand_types(%a: tensor<32x64xf32>, %b: tensor<64x32xbf16>) -> tensor<32x32xbf16> {
  %z = arith.constant dense<0.0> : tensor<32x32xbf16>
  // expected-remark @below {{mxfp8train: converted (role dgrad, lhs quantized along axis 1, rhs along axis 0, recipe mxfp8_rceil)}}
  %0 = linalg.matmul ins(%a, %b : tensor<32x64xf32>, tensor<64x32xbf16>)
                     outs(%z : tensor<32x32xbf16>) -> tensor<32x32xbf16>
  return %0 : tensor<32x32xbf16>
}

// -----

// A non-zero bf16 init (e.g. gradient accumulation) is kept: the product
// stays f32 and init + product is rounded to bf16 once.
// CHECK-LABEL: func.func @nonzero_init_bf16(
// CHECK-SAME:    %{{.*}}: tensor<64x256xbf16>, %{{.*}}: tensor<64x128xbf16>, %[[ACC:.*]]: tensor<256x128xbf16>
// CHECK:         %[[P:.*]] = mxfp8train.scaled_mm {{.*}} transpose_lhs {mxfp8train.role = "wgrad"} {{.*}} -> tensor<256x128xf32>
// CHECK:         %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[P]] : tensor<256x128xf32>) outs(%[[ACC]] : tensor<256x128xbf16>)
// CHECK-NEXT:    ^bb0(%[[IN:.*]]: f32, %[[OUT:.*]]: bf16):
// CHECK-NEXT:      %[[E:.*]] = arith.extf %[[OUT]] : bf16 to f32
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[E]], %[[IN]] : f32
// CHECK-NEXT:      %[[T:.*]] = arith.truncf %[[S]] : f32 to bf16
// CHECK-NEXT:      linalg.yield %[[T]] : bf16
// CHECK:         return %[[SUM]]
func.func @nonzero_init_bf16(%go: tensor<64x256xbf16>, %x: tensor<64x128xbf16>, %acc: tensor<256x128xbf16>) -> tensor<256x128xbf16> {
  // expected-remark @below {{mxfp8train: converted (role wgrad, lhs quantized along axis 0, rhs along axis 0, init added in f32, recipe mxfp8_rceil)}}
  %0 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>,
                                      affine_map<(m, n, k) -> (k, n)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%go, %x : tensor<64x256xbf16>, tensor<64x128xbf16>)
      outs(%acc : tensor<256x128xbf16>) -> tensor<256x128xbf16>
  return %0 : tensor<256x128xbf16>
}

// -----

// A non-zero f32 init: a plain f32 add after the scaled_mm. A fill with a
// non-zero value is not dropped.
// CHECK-LABEL: func.func @nonzero_fill_init_f32(
// CHECK:         %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK:         %[[FILL:.*]] = linalg.fill ins(%[[ONE]] : f32)
// CHECK:         %[[P:.*]] = mxfp8train.scaled_mm {{.*}} -> tensor<32x64xf32>
// CHECK:         linalg.generic {{.*}} ins(%[[P]] : tensor<32x64xf32>) outs(%[[FILL]] : tensor<32x64xf32>)
// CHECK-NEXT:    ^bb0(%[[IN:.*]]: f32, %[[OUT:.*]]: f32):
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[OUT]], %[[IN]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
func.func @nonzero_fill_init_f32(%a: tensor<32x64xbf16>, %b: tensor<64x64xbf16>) -> tensor<32x64xf32> {
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<32x64xf32>
  %init = linalg.fill ins(%one : f32) outs(%e : tensor<32x64xf32>) -> tensor<32x64xf32>
  // expected-remark @below {{mxfp8train: converted (role dgrad, lhs quantized along axis 1, rhs along axis 0, init added in f32, recipe mxfp8_rceil)}}
  %0 = linalg.matmul ins(%a, %b : tensor<32x64xbf16>, tensor<64x64xbf16>)
                     outs(%init : tensor<32x64xf32>) -> tensor<32x64xf32>
  return %0 : tensor<32x64xf32>
}

// -----

// An init that broadcasts a bias over the rows becomes the scaled_mm bias
// (added in high precision after the product, rounded once).
// CHECK-LABEL: func.func @broadcast_init_becomes_bias(
// CHECK-SAME:    %{{.*}}: tensor<64x128xbf16>, %{{.*}}: tensor<256x128xbf16>, %[[BIAS:.*]]: tensor<256xbf16>
// CHECK-NOT:     linalg.broadcast
// CHECK:         %[[R:.*]] = mxfp8train.scaled_mm %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}] bias(%[[BIAS]]) transpose_rhs {mxfp8train.role = "forward"} {{.*}}, tensor<256xbf16> -> tensor<64x256xbf16>
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[R]]
func.func @broadcast_init_becomes_bias(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %bias: tensor<256xbf16>) -> tensor<64x256xbf16> {
  %e = tensor.empty() : tensor<64x256xbf16>
  %init = linalg.broadcast ins(%bias : tensor<256xbf16>) outs(%e : tensor<64x256xbf16>) dimensions = [0]
  // expected-remark @below {{mxfp8train: converted (role forward, lhs quantized along axis 1, rhs along axis 1, init as bias, recipe mxfp8_rceil)}}
  %0 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<64x128xbf16>, tensor<256x128xbf16>)
      outs(%init : tensor<64x256xbf16>) -> tensor<64x256xbf16>
  return %0 : tensor<64x256xbf16>
}

// -----

// mxfp8train.role overrides the rule, and the scaled_mm records it.
// CHECK-LABEL: func.func @role_attribute_overrides_rule(
// CHECK:         mxfp8train.scaled_mm {{.*}} {mxfp8train.role = "wgrad"}
// CHECK:         mxfp8train.scaled_mm {{.*}} transpose_lhs {mxfp8train.role = "dgrad"}
func.func @role_attribute_overrides_rule(%a: tensor<64x64xbf16>, %b: tensor<64x64xbf16>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  // expected-remark @below {{mxfp8train: converted (role wgrad from mxfp8train.role, lhs quantized along axis 1, rhs along axis 0, recipe mxfp8_rceil)}}
  %0 = linalg.matmul {mxfp8train.role = "wgrad"}
      ins(%a, %b : tensor<64x64xbf16>, tensor<64x64xbf16>)
      outs(%z : tensor<64x64xf32>) -> tensor<64x64xf32>
  // expected-remark @below {{mxfp8train: converted (role dgrad from mxfp8train.role, lhs quantized along axis 0, rhs along axis 0, recipe mxfp8_rceil)}}
  %1 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>,
                                      affine_map<(m, n, k) -> (k, n)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      {mxfp8train.role = "dgrad"}
      ins(%a, %b : tensor<64x64xbf16>, tensor<64x64xbf16>)
      outs(%z : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0, %1 : tensor<64x64xf32>, tensor<64x64xf32>
}

// -----

// x used as the lhs of two forward matmuls along the same axis: quantized
// once, and both scaled_mm read the same data and scales.
// CHECK-LABEL: func.func @same_tensor_same_axis_quantized_once(
// CHECK-SAME:    %[[X:.*]]: tensor<64x128xbf16>
// CHECK:         %[[XQ:.*]], %[[XS:.*]] = mxfp8train.quantize %[[X]] axis = 1
// CHECK-NOT:     mxfp8train.quantize %[[X]]
// CHECK:         mxfp8train.scaled_mm %[[XQ]][%[[XS]]]
// CHECK-NOT:     mxfp8train.quantize %[[X]]
// CHECK:         mxfp8train.scaled_mm %[[XQ]][%[[XS]]]
func.func @same_tensor_same_axis_quantized_once(%x: tensor<64x128xbf16>, %w1: tensor<256x128xbf16>, %w2: tensor<96x128xbf16>) -> (tensor<64x256xbf16>, tensor<64x96xbf16>) {
  %z1 = arith.constant dense<0.0> : tensor<64x256xbf16>
  %z2 = arith.constant dense<0.0> : tensor<64x96xbf16>
  // expected-remark @below {{mxfp8train: converted (role forward, lhs quantized along axis 1, rhs along axis 1, recipe mxfp8_rceil)}}
  %0 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w1 : tensor<64x128xbf16>, tensor<256x128xbf16>)
      outs(%z1 : tensor<64x256xbf16>) -> tensor<64x256xbf16>
  // expected-remark @below {{mxfp8train: converted (role forward, lhs quantized along axis 1, rhs along axis 1, recipe mxfp8_rceil)}}
  %1 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w2 : tensor<64x128xbf16>, tensor<96x128xbf16>)
      outs(%z2 : tensor<64x96xbf16>) -> tensor<64x96xbf16>
  return %0, %1 : tensor<64x256xbf16>, tensor<64x96xbf16>
}

// -----

// A whole linear layer step (SPEC §6): x, W and dO are each quantized along
// two different axes, six quantizations in all, as in torchao.
// CHECK-LABEL: func.func @linear_training_step(
// CHECK-SAME:    %[[X:.*]]: tensor<64x128xbf16>, %[[W:.*]]: tensor<256x128xbf16>, %[[GO:.*]]: tensor<64x256xbf16>
// CHECK:         %[[X1:.*]], %[[X1S:.*]] = mxfp8train.quantize %[[X]] axis = 1
// CHECK-NEXT:    %[[W1:.*]], %[[W1S:.*]] = mxfp8train.quantize %[[W]] axis = 1
// CHECK-NEXT:    mxfp8train.scaled_mm %[[X1]][%[[X1S]]], %[[W1]][%[[W1S]]] transpose_rhs {mxfp8train.role = "forward"}
// CHECK-NEXT:    %[[G1:.*]], %[[G1S:.*]] = mxfp8train.quantize %[[GO]] axis = 1
// CHECK-NEXT:    %[[W0:.*]], %[[W0S:.*]] = mxfp8train.quantize %[[W]] axis = 0
// CHECK-NEXT:    mxfp8train.scaled_mm %[[G1]][%[[G1S]]], %[[W0]][%[[W0S]]] {mxfp8train.role = "dgrad"}
// CHECK-NEXT:    %[[G0:.*]], %[[G0S:.*]] = mxfp8train.quantize %[[GO]] axis = 0
// CHECK-NEXT:    %[[X0:.*]], %[[X0S:.*]] = mxfp8train.quantize %[[X]] axis = 0
// CHECK-NEXT:    mxfp8train.scaled_mm %[[G0]][%[[G0S]]], %[[X0]][%[[X0S]]] transpose_lhs {mxfp8train.role = "wgrad"}
// CHECK-NEXT:    return
func.func @linear_training_step(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %go: tensor<64x256xbf16>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xf32>) {
  %zo = arith.constant dense<0.0> : tensor<64x256xbf16>
  %zx = arith.constant dense<0.0> : tensor<64x128xbf16>
  %zw = arith.constant dense<0.0> : tensor<256x128xf32>
  // expected-remark @below {{mxfp8train: converted (role forward, lhs quantized along axis 1, rhs along axis 1, recipe mxfp8_rceil)}}
  %out = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                        affine_map<(m, n, k) -> (n, k)>,
                                        affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<64x128xbf16>, tensor<256x128xbf16>)
      outs(%zo : tensor<64x256xbf16>) -> tensor<64x256xbf16>
  // expected-remark @below {{mxfp8train: converted (role dgrad, lhs quantized along axis 1, rhs along axis 0, recipe mxfp8_rceil)}}
  %dx = linalg.matmul ins(%go, %w : tensor<64x256xbf16>, tensor<256x128xbf16>)
                      outs(%zx : tensor<64x128xbf16>) -> tensor<64x128xbf16>
  // expected-remark @below {{mxfp8train: converted (role wgrad, lhs quantized along axis 0, rhs along axis 0, recipe mxfp8_rceil)}}
  %dw = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>,
                                       affine_map<(m, n, k) -> (k, n)>,
                                       affine_map<(m, n, k) -> (m, n)>]
      ins(%go, %x : tensor<64x256xbf16>, tensor<64x128xbf16>)
      outs(%zw : tensor<256x128xf32>) -> tensor<256x128xf32>
  return %out, %dx, %dw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xf32>
}

// -----

// Reuse respects dominance: a quantize inside an scf.if branch is not
// reused after the scf.if, while one before a region is reused inside it.
// CHECK-LABEL: func.func @quantize_reuse_respects_dominance(
// CHECK-SAME:    %[[X:.*]]: tensor<64x128xbf16>, %[[W:.*]]: tensor<256x128xbf16>
// CHECK:         scf.if
// CHECK:           mxfp8train.quantize %[[X]] axis = 1
// CHECK:         %[[XQ:.*]], %[[XS:.*]] = mxfp8train.quantize %[[X]] axis = 1
// CHECK:         mxfp8train.scaled_mm %[[XQ]][%[[XS]]]
// CHECK:         scf.if
// CHECK-NOT:       mxfp8train.quantize %[[X]]
// CHECK:           mxfp8train.scaled_mm %[[XQ]][%[[XS]]]
func.func @quantize_reuse_respects_dominance(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %c: i1) -> (tensor<64x256xbf16>, tensor<64x256xbf16>, tensor<64x256xbf16>) {
  %z = arith.constant dense<0.0> : tensor<64x256xbf16>
  %0 = scf.if %c -> tensor<64x256xbf16> {
    // expected-remark @below {{mxfp8train: converted (role forward, lhs quantized along axis 1, rhs along axis 1, recipe mxfp8_rceil)}}
    %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                        affine_map<(m, n, k) -> (n, k)>,
                                        affine_map<(m, n, k) -> (m, n)>]
        ins(%x, %w : tensor<64x128xbf16>, tensor<256x128xbf16>)
        outs(%z : tensor<64x256xbf16>) -> tensor<64x256xbf16>
    scf.yield %r : tensor<64x256xbf16>
  } else {
    scf.yield %z : tensor<64x256xbf16>
  }
  // expected-remark @below {{mxfp8train: converted (role forward, lhs quantized along axis 1, rhs along axis 1, recipe mxfp8_rceil)}}
  %1 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<64x128xbf16>, tensor<256x128xbf16>)
      outs(%z : tensor<64x256xbf16>) -> tensor<64x256xbf16>
  %2 = scf.if %c -> tensor<64x256xbf16> {
    // expected-remark @below {{mxfp8train: converted (role forward, lhs quantized along axis 1, rhs along axis 1, recipe mxfp8_rceil)}}
    %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                        affine_map<(m, n, k) -> (n, k)>,
                                        affine_map<(m, n, k) -> (m, n)>]
        ins(%x, %w : tensor<64x128xbf16>, tensor<256x128xbf16>)
        outs(%z : tensor<64x256xbf16>) -> tensor<64x256xbf16>
    scf.yield %r : tensor<64x256xbf16>
  } else {
    scf.yield %z : tensor<64x256xbf16>
  }
  return %0, %1, %2 : tensor<64x256xbf16>, tensor<64x256xbf16>, tensor<64x256xbf16>
}

// -----

// Matmuls that are not converted stay as they are, each with its reason.
// CHECK-LABEL: func.func @skipped_element_types(
// CHECK-COUNT-4: linalg.matmul
// CHECK-NOT:     = mxfp8train.
func.func @skipped_element_types(%i: tensor<32x64xi8>, %j: tensor<64x32xi8>, %zi: tensor<32x32xi32>,
                                 %h: tensor<32x64xf16>, %g: tensor<64x32xf16>, %zh: tensor<32x32xf16>,
                                 %d: tensor<32x64xf64>, %e: tensor<64x32xf64>, %zd: tensor<32x32xf64>,
                                 %a: tensor<32x64xf32>, %b: tensor<64x32xf32>) {
  // expected-remark @below {{mxfp8train: skipped (lhs element type i8 is not bf16 or f32)}}
  %0 = linalg.matmul ins(%i, %j : tensor<32x64xi8>, tensor<64x32xi8>) outs(%zi : tensor<32x32xi32>) -> tensor<32x32xi32>
  // expected-remark @below {{mxfp8train: skipped (lhs element type f16 is not bf16 or f32)}}
  %1 = linalg.matmul ins(%h, %g : tensor<32x64xf16>, tensor<64x32xf16>) outs(%zh : tensor<32x32xf16>) -> tensor<32x32xf16>
  // expected-remark @below {{mxfp8train: skipped (lhs element type f64 is not bf16 or f32)}}
  %2 = linalg.matmul ins(%d, %e : tensor<32x64xf64>, tensor<64x32xf64>) outs(%zd : tensor<32x32xf64>) -> tensor<32x32xf64>
  // expected-remark @below {{mxfp8train: skipped (result element type f16 is not bf16 or f32)}}
  %3 = linalg.matmul ins(%a, %b : tensor<32x64xf32>, tensor<64x32xf32>) outs(%zh : tensor<32x32xf16>) -> tensor<32x32xf16>
  return
}

// -----

// K must be a static multiple of 32 (the verifier of quantize / scaled_mm
// rejects anything else); M and N need not be.
// CHECK-LABEL: func.func @skipped_shapes(
// CHECK:         linalg.matmul
// CHECK:         linalg.matmul
// CHECK:         mxfp8train.scaled_mm {{.*}} -> tensor<5x7xf32>
func.func @skipped_shapes(%a: tensor<32x48xbf16>, %b: tensor<48x32xbf16>, %z: tensor<32x32xf32>,
                          %da: tensor<?x64xbf16>, %db: tensor<64x32xbf16>, %dz: tensor<?x32xf32>,
                          %sa: tensor<5x32xbf16>, %sb: tensor<32x7xbf16>, %sz: tensor<5x7xf32>) {
  // expected-remark @below {{mxfp8train: skipped (K = 48 is not a multiple of 32)}}
  %0 = linalg.matmul ins(%a, %b : tensor<32x48xbf16>, tensor<48x32xbf16>) outs(%z : tensor<32x32xf32>) -> tensor<32x32xf32>
  // expected-remark @below {{mxfp8train: skipped (dynamic shapes; MX blocks need static sizes)}}
  %1 = linalg.matmul ins(%da, %db : tensor<?x64xbf16>, tensor<64x32xbf16>) outs(%dz : tensor<?x32xf32>) -> tensor<?x32xf32>
  // expected-remark @below {{mxfp8train: converted (role dgrad, lhs quantized along axis 1, rhs along axis 0, init added in f32, recipe mxfp8_rceil)}}
  %2 = linalg.matmul ins(%sa, %sb : tensor<5x32xbf16>, tensor<32x7xbf16>) outs(%sz : tensor<5x7xf32>) -> tensor<5x7xf32>
  return
}

// -----

// Broadcast operands, transposed results and buffers are left alone.
// CHECK-LABEL: func.func @skipped_forms(
// CHECK-COUNT-3: linalg.matmul
// CHECK-NOT:     = mxfp8train.
func.func @skipped_forms(%v: tensor<64xbf16>, %b: tensor<64x32xbf16>, %z: tensor<32x32xf32>,
                         %a: tensor<32x64xbf16>, %zt: tensor<32x32xf32>,
                         %ma: memref<32x64xbf16>, %mb: memref<64x32xbf16>, %mz: memref<32x32xf32>) {
  // expected-remark @below {{mxfp8train: skipped (broadcast operand: lhs rank 1, rhs rank 2, expected 2)}}
  %0 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k)>,
                                      affine_map<(m, n, k) -> (k, n)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%v, %b : tensor<64xbf16>, tensor<64x32xbf16>) outs(%z : tensor<32x32xf32>) -> tensor<32x32xf32>
  // expected-remark @below {{mxfp8train: skipped (indexing maps are not a matmul with a leading batch dimension and transposed operands only (transposed result?))}}
  %1 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (k, n)>,
                                      affine_map<(m, n, k) -> (n, m)>]
      ins(%a, %b : tensor<32x64xbf16>, tensor<64x32xbf16>) outs(%zt : tensor<32x32xf32>) -> tensor<32x32xf32>
  // expected-remark @below {{mxfp8train: skipped (buffer semantics; only tensors are rewritten)}}
  linalg.matmul ins(%ma, %mb : memref<32x64xbf16>, memref<64x32xbf16>) outs(%mz : memref<32x32xf32>)
  return
}

// -----

// Operands that are already dequantized MX data (the emulated form) are not
// converted again, so the pass is idempotent.
// CHECK-LABEL: func.func @skipped_already_dequantized(
// CHECK:         linalg.matmul
// CHECK-NOT:     mxfp8train.scaled_mm
func.func @skipped_already_dequantized(%q: tensor<32x64xf8E4M3FN>, %s: tensor<32x2xf8E8M0FNU>, %b: tensor<64x32xbf16>, %z: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %a = mxfp8train.dequantize %q [%s] axis = 1 : tensor<32x64xf8E4M3FN> [tensor<32x2xf8E8M0FNU>] -> tensor<32x64xbf16>
  // expected-remark @below {{mxfp8train: skipped (an operand is already dequantized MX data)}}
  %0 = linalg.matmul ins(%a, %b : tensor<32x64xbf16>, tensor<64x32xbf16>) outs(%z : tensor<32x32xf32>) -> tensor<32x32xf32>
  return %0 : tensor<32x32xf32>
}

// -----

// Contractions in other forms are reported as skipped, not silently kept.
#con_a = affine_map<(m, n, k) -> (m, k)>
#con_b = affine_map<(m, n, k) -> (n, k)>
#con_c = affine_map<(m, n, k) -> (m, n)>
// CHECK-LABEL: func.func @other_contractions(
// CHECK-NOT:     mxfp8train.
// CHECK:         return
func.func @other_contractions(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> (tensor<64x256xf32>, tensor<64x256xf32>) {
  %z = arith.constant dense<0.0> : tensor<64x256xf32>
  // expected-remark @below {{mxfp8train: skipped (a contraction written as linalg.generic; only linalg.matmul and linalg.batch_matmul (and mxfp8train.grouped_mm) are rewritten (upstream linalg-specialize-generic-ops turns a matmul-shaped linalg.generic with (m, k) x (k, n) maps into linalg.matmul; in MLIR 22 it builds an invalid one from a transposed operand))}}
  %0 = linalg.generic {indexing_maps = [#con_a, #con_b, #con_c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<64x128xbf16>, tensor<256x128xbf16>) outs(%z : tensor<64x256xf32>) {
  ^bb0(%a: bf16, %b: bf16, %o: f32):
    %ae = arith.extf %a : bf16 to f32
    %be = arith.extf %b : bf16 to f32
    %p = arith.mulf %ae, %be : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<64x256xf32>
  // expected-remark @below {{mxfp8train: skipped (a contraction written as linalg.contract;}}
  %1 = linalg.contract indexing_maps = [#con_a, #con_b, #con_c]
      ins(%x, %w : tensor<64x128xbf16>, tensor<256x128xbf16>) outs(%z : tensor<64x256xf32>) -> tensor<64x256xf32>
  return %0, %1 : tensor<64x256xf32>, tensor<64x256xf32>
}

// -----

// A linear layer on a 3-D input as torch-mlir lowers it: Wᵀ by
// linalg.transpose, broadcast over the batch, batch_matmul. For the role the
// weight counts as stored (out, in), so this is the forward (rule 3 alone
// would say dgrad, and float8_tensorwise would cast x to e5m2). It runs as
// one 2-D GEMM over the 4 * 64 rows with W quantized once, as stored
// (quantizing the broadcast would quantize 4 equal copies); the broadcast
// and the transpose are erased.
// CHECK-LABEL: func.func @linear_3d_broadcast_weight(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4x64x128xbf16>, %[[W:[^:]*]]: tensor<256x128xbf16>
// CHECK-NOT:     linalg.broadcast
// CHECK-NOT:     linalg.transpose
// CHECK:         %[[XC:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1], [2]] : tensor<4x64x128xbf16> into tensor<256x128xbf16>
// CHECK:         %[[XQ:.*]], %[[XS:.*]] = mxfp8train.quantize %[[XC]] axis = 1
// CHECK:         %[[WQ:.*]], %[[WS:.*]] = mxfp8train.quantize %[[W]] axis = 1 {{.*}} : tensor<256x128xbf16> -> tensor<256x128xf8E4M3FN>, tensor<256x4xf8E8M0FNU>
// CHECK:         %[[Y:.*]] = mxfp8train.scaled_mm %[[XQ]][%[[XS]]], %[[WQ]][%[[WS]]] transpose_rhs {mxfp8train.role = "forward"} {{.*}} -> tensor<256x256xf32>
// CHECK:         %[[E:.*]] = tensor.expand_shape %[[Y]] {{\[\[}}0, 1], [2]] output_shape [4, 64, 256] : tensor<256x256xf32> into tensor<4x64x256xf32>
// CHECK:         return %[[E]]
func.func @linear_3d_broadcast_weight(%x: tensor<4x64x128xbf16>, %w: tensor<256x128xbf16>) -> tensor<4x64x256xf32> {
  %et = tensor.empty() : tensor<128x256xbf16>
  %wt = linalg.transpose ins(%w : tensor<256x128xbf16>) outs(%et : tensor<128x256xbf16>) permutation = [1, 0]
  %eb = tensor.empty() : tensor<4x128x256xbf16>
  %wb = linalg.broadcast ins(%wt : tensor<128x256xbf16>) outs(%eb : tensor<4x128x256xbf16>) dimensions = [0]
  %z = arith.constant dense<0.0> : tensor<4x64x256xf32>
  // expected-remark @below {{mxfp8train: converted (role forward, lhs quantized along axis 2, rhs via linalg.transpose along axis 1, batch of 4 folded into M (rhs broadcast over it, quantized once), recipe mxfp8_rceil)}}
  %0 = linalg.batch_matmul ins(%x, %wb : tensor<4x64x128xbf16>, tensor<4x128x256xbf16>)
                           outs(%z : tensor<4x64x256xf32>) -> tensor<4x64x256xf32>
  return %0 : tensor<4x64x256xf32>
}

// -----

// The role rule looks through every view of the weight, not only
// linalg.transpose + linalg.broadcast: a broadcast written as linalg.generic
// (linalg-generalize-named-ops), torch-mlir's 4-D form (broadcast over two
// batch dims, collapse_shape of them), and tensor.cast. Each is the forward
// x @ Wᵀ of a weight stored (out, in); reading only the operand as given
// would say dgrad.
// CHECK-LABEL: func.func @linear_weight_views(
// CHECK-COUNT-3: mxfp8train.scaled_mm {{.*}} {mxfp8train.role = "forward"}
#bcast = affine_map<(d0, d1, d2) -> (d1, d2)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @linear_weight_views(%x: tensor<2x64x128xbf16>, %x4: tensor<2x2x64x128xbf16>, %x2: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> (tensor<2x64x256xf32>, tensor<4x64x256xf32>, tensor<64x256xf32>) {
  %et = tensor.empty() : tensor<128x256xbf16>
  %wt = linalg.transpose ins(%w : tensor<256x128xbf16>) outs(%et : tensor<128x256xbf16>) permutation = [1, 0]
  %eg = tensor.empty() : tensor<2x128x256xbf16>
  %wg = linalg.generic {indexing_maps = [#bcast, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%wt : tensor<128x256xbf16>) outs(%eg : tensor<2x128x256xbf16>) {
  ^bb0(%a: bf16, %o: bf16):
    linalg.yield %a : bf16
  } -> tensor<2x128x256xbf16>
  %z3 = arith.constant dense<0.0> : tensor<2x64x256xf32>
  // expected-remark @below {{mxfp8train: converted (role forward, lhs quantized along axis 2, rhs via linalg.transpose along axis 1, batch of 2 folded into M (rhs broadcast over it, quantized once), recipe mxfp8_rceil)}}
  %0 = linalg.batch_matmul ins(%x, %wg : tensor<2x64x128xbf16>, tensor<2x128x256xbf16>)
                           outs(%z3 : tensor<2x64x256xf32>) -> tensor<2x64x256xf32>
  %e4 = tensor.empty() : tensor<2x2x128x256xbf16>
  %wb4 = linalg.broadcast ins(%wt : tensor<128x256xbf16>) outs(%e4 : tensor<2x2x128x256xbf16>) dimensions = [0, 1]
  %xc = tensor.collapse_shape %x4 [[0, 1], [2], [3]] : tensor<2x2x64x128xbf16> into tensor<4x64x128xbf16>
  %wc = tensor.collapse_shape %wb4 [[0, 1], [2], [3]] : tensor<2x2x128x256xbf16> into tensor<4x128x256xbf16>
  %z4 = arith.constant dense<0.0> : tensor<4x64x256xf32>
  // expected-remark @below {{mxfp8train: converted (role forward, lhs quantized along axis 2, rhs along axis 1, recipe mxfp8_rceil)}}
  %1 = linalg.batch_matmul ins(%xc, %wc : tensor<4x64x128xbf16>, tensor<4x128x256xbf16>)
                           outs(%z4 : tensor<4x64x256xf32>) -> tensor<4x64x256xf32>
  %wd = tensor.cast %wt : tensor<128x256xbf16> to tensor<?x?xbf16>
  %ws = tensor.cast %wd : tensor<?x?xbf16> to tensor<128x256xbf16>
  %z2 = arith.constant dense<0.0> : tensor<64x256xf32>
  // expected-remark @below {{mxfp8train: converted (role forward, lhs quantized along axis 1, rhs along axis 0, recipe mxfp8_rceil)}}
  %2 = linalg.matmul ins(%x2, %ws : tensor<64x128xbf16>, tensor<128x256xbf16>)
                     outs(%z2 : tensor<64x256xf32>) -> tensor<64x256xf32>
  return %0, %1, %2 : tensor<2x64x256xf32>, tensor<4x64x256xf32>, tensor<64x256xf32>
}

// -----

// Two linear layers on the same 3-D input (the W1 and W3 of a SwiGLU MLP):
// both fold their batch into M over one collapse of x, so x is cast once.
// CHECK-LABEL: func.func @two_linears_one_input(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x64x128xbf16>
// CHECK:         %[[XC:.*]] = tensor.collapse_shape %[[X]]
// CHECK:         %[[XQ:.*]], %[[XS:.*]] = mxfp8train.quantize %[[XC]] axis = 1
// CHECK-NOT:     tensor.collapse_shape
// CHECK-NOT:     mxfp8train.quantize %[[XC]]
// CHECK:         mxfp8train.scaled_mm %[[XQ]][%[[XS]]]
// CHECK:         mxfp8train.scaled_mm %[[XQ]][%[[XS]]]
func.func @two_linears_one_input(%x: tensor<2x64x128xbf16>, %w1: tensor<256x128xbf16>, %w3: tensor<256x128xbf16>) -> (tensor<2x64x256xf32>, tensor<2x64x256xf32>) {
  %et = tensor.empty() : tensor<128x256xbf16>
  %eb = tensor.empty() : tensor<2x128x256xbf16>
  %z = arith.constant dense<0.0> : tensor<2x64x256xf32>
  %w1t = linalg.transpose ins(%w1 : tensor<256x128xbf16>) outs(%et : tensor<128x256xbf16>) permutation = [1, 0]
  %w1b = linalg.broadcast ins(%w1t : tensor<128x256xbf16>) outs(%eb : tensor<2x128x256xbf16>) dimensions = [0]
  // expected-remark @below {{mxfp8train: converted (role forward, lhs quantized along axis 2, rhs via linalg.transpose along axis 1, batch of 2 folded into M (rhs broadcast over it, quantized once), recipe mxfp8_rceil)}}
  %0 = linalg.batch_matmul ins(%x, %w1b : tensor<2x64x128xbf16>, tensor<2x128x256xbf16>)
                           outs(%z : tensor<2x64x256xf32>) -> tensor<2x64x256xf32>
  %w3t = linalg.transpose ins(%w3 : tensor<256x128xbf16>) outs(%et : tensor<128x256xbf16>) permutation = [1, 0]
  %w3b = linalg.broadcast ins(%w3t : tensor<128x256xbf16>) outs(%eb : tensor<2x128x256xbf16>) dimensions = [0]
  // expected-remark @below {{mxfp8train: converted (role forward, lhs quantized along axis 2, rhs via linalg.transpose along axis 1, batch of 2 folded into M (rhs broadcast over it, quantized once), recipe mxfp8_rceil)}}
  %1 = linalg.batch_matmul ins(%x, %w3b : tensor<2x64x128xbf16>, tensor<2x128x256xbf16>)
                           outs(%z : tensor<2x64x256xf32>) -> tensor<2x64x256xf32>
  return %0, %1 : tensor<2x64x256xf32>, tensor<2x64x256xf32>
}

// -----

// Views that merge or split the contraction dimension, followed to where it
// sits in the stored tensor (they used to stop the trace, and each of these
// read as dgrad): an einsum-style weight gradient (dO transposed to
// (N, B, S), tokens collapsed), a weight stored (N, H, D) read as
// (H * D, N), and a broadcast from a 1 x K x N weight read at 0.
// CHECK-LABEL: func.func @merged_contraction_views(
#unit = affine_map<(d0, d1, d2) -> (0, d1, d2)>
#id3u = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @merged_contraction_views(%dO: tensor<2x16x32xbf16>, %x: tensor<2x16x64xbf16>,
                                    %x2: tensor<32x64xbf16>, %w3: tensor<48x2x32xbf16>,
                                    %w: tensor<48x64xbf16>) -> (tensor<32x64xf32>, tensor<32x48xf32>, tensor<2x16x48xf32>) {
  %z = arith.constant 0.0 : f32
  %et = tensor.empty() : tensor<32x2x16xbf16>
  %dt = linalg.transpose ins(%dO : tensor<2x16x32xbf16>) outs(%et : tensor<32x2x16xbf16>) permutation = [2, 0, 1]
  %dtc = tensor.collapse_shape %dt [[0], [1, 2]] : tensor<32x2x16xbf16> into tensor<32x32xbf16>
  %xc = tensor.collapse_shape %x [[0, 1], [2]] : tensor<2x16x64xbf16> into tensor<32x64xbf16>
  %e0 = tensor.empty() : tensor<32x64xf32>
  %f0 = linalg.fill ins(%z : f32) outs(%e0 : tensor<32x64xf32>) -> tensor<32x64xf32>
  // expected-remark @below {{mxfp8train: converted (role wgrad, lhs quantized along axis 1, rhs along axis 0, recipe mxfp8_rceil)}}
  %dw = linalg.matmul ins(%dtc, %xc : tensor<32x32xbf16>, tensor<32x64xbf16>) outs(%f0 : tensor<32x64xf32>) -> tensor<32x64xf32>
  %e1 = tensor.empty() : tensor<2x32x48xbf16>
  %wt3 = linalg.transpose ins(%w3 : tensor<48x2x32xbf16>) outs(%e1 : tensor<2x32x48xbf16>) permutation = [1, 2, 0]
  %wc = tensor.collapse_shape %wt3 [[0, 1], [2]] : tensor<2x32x48xbf16> into tensor<64x48xbf16>
  %e2 = tensor.empty() : tensor<32x48xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<32x48xf32>) -> tensor<32x48xf32>
  // expected-remark @below {{mxfp8train: converted (role forward, lhs quantized along axis 1, rhs along axis 0, recipe mxfp8_rceil)}}
  %y1 = linalg.matmul ins(%x2, %wc : tensor<32x64xbf16>, tensor<64x48xbf16>) outs(%f2 : tensor<32x48xf32>) -> tensor<32x48xf32>
  %e3 = tensor.empty() : tensor<64x48xbf16>
  %wt = linalg.transpose ins(%w : tensor<48x64xbf16>) outs(%e3 : tensor<64x48xbf16>) permutation = [1, 0]
  %wu = tensor.expand_shape %wt [[0, 1], [2]] output_shape [1, 64, 48] : tensor<64x48xbf16> into tensor<1x64x48xbf16>
  %e4 = tensor.empty() : tensor<2x64x48xbf16>
  %wb = linalg.generic {indexing_maps = [#unit, #id3u], iterator_types = ["parallel", "parallel", "parallel"]} ins(%wu : tensor<1x64x48xbf16>) outs(%e4 : tensor<2x64x48xbf16>) {
  ^bb0(%a: bf16, %b: bf16):
    linalg.yield %a : bf16
  } -> tensor<2x64x48xbf16>
  %e5 = tensor.empty() : tensor<2x16x48xf32>
  %f5 = linalg.fill ins(%z : f32) outs(%e5 : tensor<2x16x48xf32>) -> tensor<2x16x48xf32>
  // expected-remark @below {{mxfp8train: converted (role forward, lhs quantized along axis 2, rhs along axis 1, recipe mxfp8_rceil)}}
  %y2 = linalg.batch_matmul ins(%x, %wb : tensor<2x16x64xbf16>, tensor<2x64x48xbf16>) outs(%f5 : tensor<2x16x48xf32>) -> tensor<2x16x48xf32>
  return %dw, %y1, %y2 : tensor<32x64xf32>, tensor<32x48xf32>, tensor<2x16x48xf32>
}

// -----

// Dynamic shapes behind a view: a generic transpose of a tensor<?x64> is not
// looked through (the casts need static shapes; it used to be quantized as
// stored, dynamic, and failed to lower), nor is a broadcast of one folded
// (it made a quantize of invalid type): the static operand is quantized.
// CHECK-LABEL: func.func @dynamic_behind_views(
// CHECK:         %[[WT:.*]] = linalg.generic
// CHECK:         mxfp8train.quantize %[[WT]] axis = 0 {{.*}} : tensor<64x48xbf16>
// CHECK:         %[[VB:.*]] = linalg.generic
// CHECK-NOT:     tensor.collapse_shape
// CHECK:         mxfp8train.quantize %[[VB]] axis = 1 {{.*}} : tensor<2x64x48xbf16>
// CHECK:         return
#tr = affine_map<(d0, d1) -> (d1, d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#drop = affine_map<(d0, d1, d2) -> (d1, d2)>
#id3d = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @dynamic_behind_views(%x: tensor<32x64xbf16>, %wd: tensor<?x64xbf16>, %x3: tensor<2x16x64xbf16>, %vd: tensor<?x48xbf16>) -> (tensor<32x48xf32>, tensor<2x16x48xf32>) {
  %z = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<64x48xbf16>
  %wt = linalg.generic {indexing_maps = [#tr, #id2], iterator_types = ["parallel", "parallel"]} ins(%wd : tensor<?x64xbf16>) outs(%e0 : tensor<64x48xbf16>) {
  ^bb0(%a: bf16, %b: bf16):
    linalg.yield %a : bf16
  } -> tensor<64x48xbf16>
  %e1 = tensor.empty() : tensor<32x48xf32>
  %f1 = linalg.fill ins(%z : f32) outs(%e1 : tensor<32x48xf32>) -> tensor<32x48xf32>
  // expected-remark @below {{mxfp8train: converted (role forward, lhs quantized along axis 1, rhs along axis 0, recipe mxfp8_rceil)}}
  %y = linalg.matmul ins(%x, %wt : tensor<32x64xbf16>, tensor<64x48xbf16>) outs(%f1 : tensor<32x48xf32>) -> tensor<32x48xf32>
  %e2 = tensor.empty() : tensor<2x64x48xbf16>
  %vb = linalg.generic {indexing_maps = [#drop, #id3d], iterator_types = ["parallel", "parallel", "parallel"]} ins(%vd : tensor<?x48xbf16>) outs(%e2 : tensor<2x64x48xbf16>) {
  ^bb0(%a: bf16, %b: bf16):
    linalg.yield %a : bf16
  } -> tensor<2x64x48xbf16>
  %e3 = tensor.empty() : tensor<2x16x48xf32>
  %f3 = linalg.fill ins(%z : f32) outs(%e3 : tensor<2x16x48xf32>) -> tensor<2x16x48xf32>
  // expected-remark @below {{mxfp8train: converted (role dgrad, lhs quantized along axis 2, rhs along axis 1, recipe mxfp8_rceil)}}
  %y3 = linalg.batch_matmul ins(%x3, %vb : tensor<2x16x64xbf16>, tensor<2x64x48xbf16>) outs(%f3 : tensor<2x16x48xf32>) -> tensor<2x16x48xf32>
  return %y, %y3 : tensor<32x48xf32>, tensor<2x16x48xf32>
}
