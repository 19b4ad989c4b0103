// RUN: mxfp8-opt %s -split-input-file --mxfp8train-rewrite-matmuls=remarks=true --verify-diagnostics | FileCheck %s

// mxfp8train.grouped_mm (MoE experts, SPEC §7) under the default recipe
// mxfp8_rceil: the three grouped GEMMs, the axis each operand is quantized
// along (SPEC §7.2), roles, transposes looked through, quantize reuse and
// skips. Token-group padding has its own tests
// (mxfp8train-rewrite-matmuls-grouped-padding.mlir).

// Forward, 2d-3d with the weights stored (E, N, K): A along K (axis 1), W
// along K (axis 2, 1x32). The quantization is per token, so the groups need
// no padding: the offs are passed through.
// CHECK-LABEL: func.func @grouped_forward(
// CHECK-SAME:    %[[A:.*]]: tensor<100x256xbf16>, %[[W:.*]]: tensor<4x64x256xbf16>, %[[OFFS:.*]]: tensor<4xi32>
// CHECK:         %[[AQ:.*]], %[[AS:.*]] = mxfp8train.quantize %[[A]] axis = 1 mode = rceil : tensor<100x256xbf16> -> tensor<100x256xf8E4M3FN>, tensor<100x8xf8E8M0FNU>
// CHECK:         %[[WQ:.*]], %[[WS:.*]] = mxfp8train.quantize %[[W]] axis = 2 mode = rceil : tensor<4x64x256xbf16> -> tensor<4x64x256xf8E4M3FN>, tensor<4x64x8xf8E8M0FNU>
// CHECK:         %[[R:.*]] = mxfp8train.scaled_grouped_mm %[[AQ]][%[[AS]]], %[[WQ]][%[[WS]]] offs(%[[OFFS]]) transpose_rhs {mxfp8train.role = "forward"}
// CHECK-SAME:      -> tensor<100x64xbf16>
// CHECK-NOT:     pad_token_groups
// CHECK:         return %[[R]]
func.func @grouped_forward(%a: tensor<100x256xbf16>, %w: tensor<4x64x256xbf16>, %offs: tensor<4xi32>) -> tensor<100x64xbf16> {
  // expected-remark @below {{mxfp8train: converted (grouped 2d-3d, role forward, lhs quantized along axis 1, rhs along axis 2, recipe mxfp8_rceil)}}
  %0 = mxfp8train.grouped_mm %a, %w offs(%offs) transpose_rhs
      : tensor<100x256xbf16>, tensor<4x64x256xbf16>, tensor<4xi32> -> tensor<100x64xbf16>
  return %0 : tensor<100x64xbf16>
}

// -----

// Dgrad, 2d-3d with the weights stored (E, N, K) read as (E, K, N): dO along
// N (axis 1), W along N (axis 1: the 32x1 cast of the 3-D weight, scales
// (E, N/32, K)).
// CHECK-LABEL: func.func @grouped_dgrad(
// CHECK-SAME:    %[[DO:.*]]: tensor<100x64xf32>, %[[W:.*]]: tensor<4x64x256xbf16>, %[[OFFS:.*]]: tensor<4xi32>
// CHECK:         %[[DQ:.*]], %[[DS:.*]] = mxfp8train.quantize %[[DO]] axis = 1 mode = rceil : tensor<100x64xf32> -> tensor<100x64xf8E4M3FN>, tensor<100x2xf8E8M0FNU>
// CHECK:         %[[WQ:.*]], %[[WS:.*]] = mxfp8train.quantize %[[W]] axis = 1 mode = rceil : tensor<4x64x256xbf16> -> tensor<4x64x256xf8E4M3FN>, tensor<4x2x256xf8E8M0FNU>
// CHECK:         mxfp8train.scaled_grouped_mm %[[DQ]][%[[DS]]], %[[WQ]][%[[WS]]] offs(%[[OFFS]]) {mxfp8train.role = "dgrad"}
// CHECK-SAME:      -> tensor<100x256xbf16>
func.func @grouped_dgrad(%do: tensor<100x64xf32>, %w: tensor<4x64x256xbf16>, %offs: tensor<4xi32>) -> tensor<100x256xbf16> {
  // expected-remark @below {{mxfp8train: converted (grouped 2d-3d, role dgrad, lhs quantized along axis 1, rhs along axis 1, recipe mxfp8_rceil)}}
  %0 = mxfp8train.grouped_mm %do, %w offs(%offs)
      : tensor<100x64xf32>, tensor<4x64x256xbf16>, tensor<4xi32> -> tensor<100x256xbf16>
  return %0 : tensor<100x256xbf16>
}

// -----

// Wgrad, 2d-2d: dOᵀ (stored (M, N)) @ A (M, K), both quantized along the
// tokens M (axis 0). The offs are not known to be multiples of 32, so both
// token-major operands are padded (token_group_alignment 32) and the GEMM
// reads the padded offs. 100 tokens in 4 groups pad to 256 rows.
// CHECK-LABEL: func.func @grouped_wgrad(
// CHECK-SAME:    %[[DO:.*]]: tensor<100x64xbf16>, %[[A:.*]]: tensor<100x256xbf16>, %[[OFFS:.*]]: tensor<4xi32>
// CHECK:         %[[DOP:.*]], %[[POFFS:.*]] = mxfp8train.pad_token_groups %[[DO]] offs(%[[OFFS]]) alignment = 32 : tensor<100x64xbf16>, tensor<4xi32> -> tensor<256x64xbf16>, tensor<4xi32>
// CHECK:         %[[AP:.*]], %{{.*}} = mxfp8train.pad_token_groups %[[A]] offs(%[[OFFS]]) alignment = 32 : tensor<100x256xbf16>, tensor<4xi32> -> tensor<256x256xbf16>, tensor<4xi32>
// CHECK:         %[[DQ:.*]], %[[DS:.*]] = mxfp8train.quantize %[[DOP]] axis = 0 mode = rceil : tensor<256x64xbf16> -> tensor<256x64xf8E4M3FN>, tensor<8x64xf8E8M0FNU>
// CHECK:         %[[AQ:.*]], %[[AS:.*]] = mxfp8train.quantize %[[AP]] axis = 0 mode = rceil : tensor<256x256xbf16> -> tensor<256x256xf8E4M3FN>, tensor<8x256xf8E8M0FNU>
// CHECK:         %[[R:.*]] = mxfp8train.scaled_grouped_mm %[[DQ]][%[[DS]]], %[[AQ]][%[[AS]]] offs(%[[POFFS]]) transpose_lhs {mxfp8train.role = "wgrad"}
// CHECK-SAME:      -> tensor<4x64x256xbf16>
// CHECK-NOT:     unpad_token_groups
// CHECK:         return %[[R]]
func.func @grouped_wgrad(%do: tensor<100x64xbf16>, %a: tensor<100x256xbf16>, %offs: tensor<4xi32>) -> tensor<4x64x256xbf16> {
  // expected-remark @below {{mxfp8train: converted (grouped 2d-2d, role wgrad, lhs quantized along axis 0, rhs along axis 0, token groups padded to 32 (32-token blocks must not straddle groups), recipe mxfp8_rceil)}}
  %0 = mxfp8train.grouped_mm %do, %a offs(%offs) transpose_lhs
      : tensor<100x64xbf16>, tensor<100x256xbf16>, tensor<4xi32> -> tensor<4x64x256xbf16>
  return %0 : tensor<4x64x256xbf16>
}

// -----

// What a frontend emits for torch._grouped_mm(x, w.transpose(-2, -1), offs)
// and torch._grouped_mm(dO.t(), x, offs): the transposes are looked through
// (the stored weight quantized along K, dO padded token-major) and erased.
// CHECK-LABEL: func.func @grouped_through_linalg_transpose(
// CHECK-SAME:    %[[X:.*]]: tensor<64x128xbf16>, %[[W:.*]]: tensor<2x96x128xbf16>, %[[DO:.*]]: tensor<64x96xbf16>, %[[OFFS:.*]]: tensor<2xi32>
// CHECK-NOT:     linalg.transpose
// CHECK:         mxfp8train.quantize %[[X]] axis = 1
// CHECK:         mxfp8train.quantize %[[W]] axis = 2
// CHECK:         mxfp8train.scaled_grouped_mm {{.*}} transpose_rhs {mxfp8train.role = "forward"}
// CHECK:         mxfp8train.pad_token_groups %[[DO]] offs(%[[OFFS]])
// CHECK:         mxfp8train.pad_token_groups %[[X]] offs(%[[OFFS]])
// CHECK:         mxfp8train.scaled_grouped_mm {{.*}} transpose_lhs {mxfp8train.role = "wgrad"}
// CHECK-NOT:     linalg.transpose
func.func @grouped_through_linalg_transpose(%x: tensor<64x128xbf16>, %w: tensor<2x96x128xbf16>, %do: tensor<64x96xbf16>, %offs: tensor<2xi32>) -> (tensor<64x96xbf16>, tensor<2x96x128xbf16>) {
  %e = tensor.empty() : tensor<2x128x96xbf16>
  %wt = linalg.transpose ins(%w : tensor<2x96x128xbf16>) outs(%e : tensor<2x128x96xbf16>) permutation = [0, 2, 1]
  // expected-remark @below {{mxfp8train: converted (grouped 2d-3d, role forward, lhs quantized along axis 1, rhs via linalg.transpose along axis 2, recipe mxfp8_rceil)}}
  %out = mxfp8train.grouped_mm %x, %wt offs(%offs)
      : tensor<64x128xbf16>, tensor<2x128x96xbf16>, tensor<2xi32> -> tensor<64x96xbf16>
  %e2 = tensor.empty() : tensor<96x64xbf16>
  %dot = linalg.transpose ins(%do : tensor<64x96xbf16>) outs(%e2 : tensor<96x64xbf16>) permutation = [1, 0]
  // expected-remark @below {{mxfp8train: converted (grouped 2d-2d, role wgrad, lhs via linalg.transpose quantized along axis 0, rhs along axis 0, token groups padded to 32 (32-token blocks must not straddle groups), recipe mxfp8_rceil)}}
  %dw = mxfp8train.grouped_mm %dot, %x offs(%offs)
      : tensor<96x64xbf16>, tensor<64x128xbf16>, tensor<2xi32> -> tensor<2x96x128xbf16>
  return %out, %dw : tensor<64x96xbf16>, tensor<2x96x128xbf16>
}

// -----

// A 2d-2d GEMM whose operands are stored feature-major (lhs (N, M) without
// transpose_lhs, rhs (K, M) with transpose_rhs): padding works on token-major
// tensors, so each operand is transposed first; the GEMM then reads both
// token-major (transpose_lhs, no transpose_rhs).
// CHECK-LABEL: func.func @grouped_wgrad_feature_major(
// CHECK-SAME:    %[[L:.*]]: tensor<64x100xbf16>, %[[R:.*]]: tensor<128x100xbf16>, %[[OFFS:.*]]: tensor<4xi32>
// CHECK:         %[[LT:.*]] = linalg.transpose ins(%[[L]] : tensor<64x100xbf16>) outs(%{{.*}} : tensor<100x64xbf16>) permutation = [1, 0]
// CHECK:         %[[RT:.*]] = linalg.transpose ins(%[[R]] : tensor<128x100xbf16>) outs(%{{.*}} : tensor<100x128xbf16>) permutation = [1, 0]
// CHECK:         %[[LP:.*]], %[[POFFS:.*]] = mxfp8train.pad_token_groups %[[LT]] offs(%[[OFFS]])
// CHECK:         %[[RP:.*]], %{{.*}} = mxfp8train.pad_token_groups %[[RT]] offs(%[[OFFS]])
// CHECK:         mxfp8train.quantize %[[LP]] axis = 0
// CHECK:         mxfp8train.quantize %[[RP]] axis = 0
// CHECK:         mxfp8train.scaled_grouped_mm {{.*}} offs(%[[POFFS]]) transpose_lhs {mxfp8train.role = "wgrad"}
// CHECK-SAME:      -> tensor<4x64x128xbf16>
func.func @grouped_wgrad_feature_major(%l: tensor<64x100xbf16>, %r: tensor<128x100xbf16>, %offs: tensor<4xi32>) -> tensor<4x64x128xbf16> {
  // expected-remark @below {{mxfp8train: converted (grouped 2d-2d, role wgrad, lhs made token-major quantized along axis 0, rhs made token-major along axis 0, token groups padded to 32 (32-token blocks must not straddle groups), recipe mxfp8_rceil)}}
  %0 = mxfp8train.grouped_mm %l, %r offs(%offs) transpose_rhs
      : tensor<64x100xbf16>, tensor<128x100xbf16>, tensor<4xi32> -> tensor<4x64x128xbf16>
  return %0 : tensor<4x64x128xbf16>
}

// -----

// The role attribute replaces the rule (it only labels here: the axes follow
// from the contraction).
// CHECK-LABEL: func.func @grouped_role_attribute(
// CHECK:         mxfp8train.scaled_grouped_mm {{.*}} transpose_rhs {mxfp8train.role = "dgrad"}
func.func @grouped_role_attribute(%a: tensor<64x128xbf16>, %w: tensor<2x32x128xbf16>, %offs: tensor<2xi32>) -> tensor<64x32xbf16> {
  // expected-remark @below {{mxfp8train: converted (grouped 2d-3d, role dgrad from mxfp8train.role, lhs quantized along axis 1, rhs along axis 2, recipe mxfp8_rceil)}}
  %0 = mxfp8train.grouped_mm %a, %w offs(%offs) transpose_rhs {mxfp8train.role = "dgrad"}
      : tensor<64x128xbf16>, tensor<2x32x128xbf16>, tensor<2xi32> -> tensor<64x32xbf16>
  return %0 : tensor<64x32xbf16>
}

// -----

// Quantize reuse as in the dense path: x feeds the w1 and w3 forward GEMMs
// (one quantize along K) and the dW1 and dW3 weight gradients (one pad, one
// quantize along M); the weights are quantized along K for the forward and
// along N for the dgrad (two quantizes each, as torchao).
// CHECK-LABEL: func.func @grouped_quantize_reuse(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<64x128xbf16>, %[[W1:[^:]*]]: tensor<2x64x128xbf16>, %[[W3:[^:]*]]: tensor<2x64x128xbf16>
// CHECK-COUNT-1: mxfp8train.quantize %[[X]] axis = 1
// CHECK-NOT:     mxfp8train.quantize %[[X]]
// CHECK-COUNT-1: mxfp8train.pad_token_groups %[[X]]
// CHECK-NOT:     mxfp8train.pad_token_groups %[[X]]
// CHECK:         return
func.func @grouped_quantize_reuse(%x: tensor<64x128xbf16>, %w1: tensor<2x64x128xbf16>, %w3: tensor<2x64x128xbf16>,
                                  %dh1: tensor<64x64xbf16>, %dh3: tensor<64x64xbf16>, %offs: tensor<2xi32>)
    -> (tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<2x64x128xbf16>, tensor<2x64x128xbf16>, tensor<64x128xbf16>) {
  // expected-remark @below {{role forward}}
  %h1 = mxfp8train.grouped_mm %x, %w1 offs(%offs) transpose_rhs
      : tensor<64x128xbf16>, tensor<2x64x128xbf16>, tensor<2xi32> -> tensor<64x64xbf16>
  // expected-remark @below {{role forward}}
  %h3 = mxfp8train.grouped_mm %x, %w3 offs(%offs) transpose_rhs
      : tensor<64x128xbf16>, tensor<2x64x128xbf16>, tensor<2xi32> -> tensor<64x64xbf16>
  // expected-remark @below {{role wgrad}}
  %dw1 = mxfp8train.grouped_mm %dh1, %x offs(%offs) transpose_lhs
      : tensor<64x64xbf16>, tensor<64x128xbf16>, tensor<2xi32> -> tensor<2x64x128xbf16>
  // expected-remark @below {{role wgrad}}
  %dw3 = mxfp8train.grouped_mm %dh3, %x offs(%offs) transpose_lhs
      : tensor<64x64xbf16>, tensor<64x128xbf16>, tensor<2xi32> -> tensor<2x64x128xbf16>
  // expected-remark @below {{role dgrad}}
  %dx = mxfp8train.grouped_mm %dh1, %w1 offs(%offs)
      : tensor<64x64xbf16>, tensor<2x64x128xbf16>, tensor<2xi32> -> tensor<64x128xbf16>
  return %h1, %h3, %dw1, %dw3, %dx : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<2x64x128xbf16>, tensor<2x64x128xbf16>, tensor<64x128xbf16>
}

// -----

// Skips, each with its reason: the contraction of a 2d-3d GEMM must hold
// whole blocks (K = 48; a 2d-2d contraction over tokens is padded instead),
// an operand already dequantized, dynamic shapes.
// CHECK-LABEL: func.func @grouped_skips(
// CHECK-COUNT-3: mxfp8train.grouped_mm
// CHECK-NOT:     scaled_grouped_mm
func.func @grouped_skips(%a: tensor<64x48xbf16>, %w: tensor<2x64x48xbf16>, %offs: tensor<2xi32>,
                         %q: tensor<64x64xf8E4M3FN>, %s: tensor<64x2xf8E8M0FNU>, %w2: tensor<2x64x64xbf16>,
                         %d: tensor<?x64xbf16>) -> (tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<?x64xbf16>) {
  // expected-remark @below {{mxfp8train: skipped (K = 48 is not a multiple of 32)}}
  %0 = mxfp8train.grouped_mm %a, %w offs(%offs) transpose_rhs
      : tensor<64x48xbf16>, tensor<2x64x48xbf16>, tensor<2xi32> -> tensor<64x64xbf16>
  %dq = mxfp8train.dequantize %q [%s] axis = 1 : tensor<64x64xf8E4M3FN> [tensor<64x2xf8E8M0FNU>] -> tensor<64x64xbf16>
  // expected-remark @below {{mxfp8train: skipped (an operand is already dequantized MX data)}}
  %1 = mxfp8train.grouped_mm %dq, %w2 offs(%offs) transpose_rhs
      : tensor<64x64xbf16>, tensor<2x64x64xbf16>, tensor<2xi32> -> tensor<64x64xbf16>
  // expected-remark @below {{mxfp8train: skipped (dynamic shapes; MX blocks need static sizes)}}
  %2 = mxfp8train.grouped_mm %d, %w2 offs(%offs) transpose_rhs
      : tensor<?x64xbf16>, tensor<2x64x64xbf16>, tensor<2xi32> -> tensor<?x64xbf16>
  return %0, %1, %2 : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<?x64xbf16>
}

// -----

// Dense matmuls and grouped GEMMs in one module, one recipe: both converted.
// CHECK-LABEL: func.func @dense_and_grouped(
// CHECK:         mxfp8train.scaled_mm {{.*}} {mxfp8train.role = "forward"}
// CHECK:         mxfp8train.scaled_grouped_mm {{.*}} {mxfp8train.role = "forward"}
func.func @dense_and_grouped(%x: tensor<64x128xbf16>, %wr: tensor<4x128xbf16>, %we: tensor<2x64x128xbf16>, %offs: tensor<2xi32>) -> (tensor<64x4xf32>, tensor<64x64xbf16>) {
  %z = arith.constant dense<0.0> : tensor<64x4xf32>
  // expected-remark @below {{mxfp8train: converted (role forward, lhs quantized along axis 1, rhs along axis 1, recipe mxfp8_rceil)}}
  %router = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                           affine_map<(m, n, k) -> (n, k)>,
                                           affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %wr : tensor<64x128xbf16>, tensor<4x128xbf16>)
      outs(%z : tensor<64x4xf32>) -> tensor<64x4xf32>
  // expected-remark @below {{mxfp8train: converted (grouped 2d-3d, role forward}}
  %e = mxfp8train.grouped_mm %x, %we offs(%offs) transpose_rhs
      : tensor<64x128xbf16>, tensor<2x64x128xbf16>, tensor<2xi32> -> tensor<64x64xbf16>
  return %router, %e : tensor<64x4xf32>, tensor<64x64xbf16>
}
