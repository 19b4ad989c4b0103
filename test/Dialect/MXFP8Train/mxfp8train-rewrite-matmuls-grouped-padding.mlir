// RUN: mxfp8-opt %s -split-input-file --mxfp8train-rewrite-matmuls=remarks=true --verify-diagnostics | FileCheck %s

// Token-group padding under the default recipe (pad_token_groups = false,
// SPEC §7.3). 2d-3d GEMMs quantize per token and are never padded. A 2d-2d
// (wgrad) GEMM quantizes along the tokens in 32-token blocks of the whole
// token dimension, which must not straddle two experts: its token-major
// operands are padded unless the offs are known to be multiples of 32 (a
// constant, the padded offs of a pad_token_groups, or the frontend's
// `mxfp8train.offs_alignment`) and the token count is a multiple of 32.

// Constant offs with a group of 40 tokens (and an empty one): padded.
// CHECK-LABEL: func.func @wgrad_constant_unaligned_offs(
// CHECK:         %[[OFFS:.*]] = arith.constant dense<[40, 40, 72, 128]> : tensor<4xi32>
// CHECK:         %{{.*}}, %[[POFFS:.*]] = mxfp8train.pad_token_groups %{{.*}} offs(%[[OFFS]]) alignment = 32 : tensor<128x64xbf16>, tensor<4xi32> -> tensor<256x64xbf16>, tensor<4xi32>
// CHECK:         mxfp8train.pad_token_groups %{{.*}} offs(%[[OFFS]]) alignment = 32 : tensor<128x96xbf16>, tensor<4xi32> -> tensor<256x96xbf16>, tensor<4xi32>
// CHECK:         mxfp8train.scaled_grouped_mm {{.*}} offs(%[[POFFS]]) transpose_lhs
func.func @wgrad_constant_unaligned_offs(%do: tensor<128x64xbf16>, %a: tensor<128x96xbf16>) -> tensor<4x64x96xbf16> {
  %offs = arith.constant dense<[40, 40, 72, 128]> : tensor<4xi32>
  // expected-remark @below {{mxfp8train: converted (grouped 2d-2d, role wgrad, lhs quantized along axis 0, rhs along axis 0, token groups padded to 32 (32-token blocks must not straddle groups), recipe mxfp8_rceil)}}
  %0 = mxfp8train.grouped_mm %do, %a offs(%offs) transpose_lhs
      : tensor<128x64xbf16>, tensor<128x96xbf16>, tensor<4xi32> -> tensor<4x64x96xbf16>
  return %0 : tensor<4x64x96xbf16>
}

// -----

// Constant offs that are multiples of 32 (an empty group included) and 128
// tokens: the blocks cannot straddle groups, so nothing is padded.
// CHECK-LABEL: func.func @wgrad_constant_aligned_offs(
// CHECK-SAME:    %[[DO:.*]]: tensor<128x64xbf16>, %[[A:.*]]: tensor<128x96xbf16>
// CHECK:         %[[OFFS:.*]] = arith.constant dense<[32, 32, 96, 128]> : tensor<4xi32>
// CHECK-NOT:     pad_token_groups
// CHECK:         %[[DQ:.*]], %[[DS:.*]] = mxfp8train.quantize %[[DO]] axis = 0
// CHECK:         %[[AQ:.*]], %[[AS:.*]] = mxfp8train.quantize %[[A]] axis = 0
// CHECK:         mxfp8train.scaled_grouped_mm %[[DQ]][%[[DS]]], %[[AQ]][%[[AS]]] offs(%[[OFFS]]) transpose_lhs
func.func @wgrad_constant_aligned_offs(%do: tensor<128x64xbf16>, %a: tensor<128x96xbf16>) -> tensor<4x64x96xbf16> {
  %offs = arith.constant dense<[32, 32, 96, 128]> : tensor<4xi32>
  // expected-remark @below {{mxfp8train: converted (grouped 2d-2d, role wgrad, lhs quantized along axis 0, rhs along axis 0, token groups already aligned (constant offs), recipe mxfp8_rceil)}}
  %0 = mxfp8train.grouped_mm %do, %a offs(%offs) transpose_lhs
      : tensor<128x64xbf16>, tensor<128x96xbf16>, tensor<4xi32> -> tensor<4x64x96xbf16>
  return %0 : tensor<4x64x96xbf16>
}

// -----

// Aligned constant offs but 100 tokens: M must hold whole 32-token blocks,
// so the operands are padded anyway.
// CHECK-LABEL: func.func @wgrad_aligned_offs_ragged_tokens(
// CHECK:         mxfp8train.pad_token_groups {{.*}} -> tensor<256x64xbf16>, tensor<4xi32>
func.func @wgrad_aligned_offs_ragged_tokens(%do: tensor<100x64xbf16>, %a: tensor<100x96xbf16>) -> tensor<4x64x96xbf16> {
  %offs = arith.constant dense<[32, 32, 64, 96]> : tensor<4xi32>
  // expected-remark @below {{token groups padded to 32 (32-token blocks must not straddle groups)}}
  %0 = mxfp8train.grouped_mm %do, %a offs(%offs) transpose_lhs
      : tensor<100x64xbf16>, tensor<100x96xbf16>, tensor<4xi32> -> tensor<4x64x96xbf16>
  return %0 : tensor<4x64x96xbf16>
}

// -----

// The frontend states the alignment on the op: 64 (a multiple of 32) skips
// the padding, 16 does not.
// CHECK-LABEL: func.func @wgrad_offs_alignment_attribute(
// CHECK-SAME:    %{{.*}}: tensor<128x64xbf16>, %{{.*}}: tensor<128x96xbf16>, %[[OFFS:.*]]: tensor<4xi32>
// CHECK:         mxfp8train.scaled_grouped_mm {{.*}} offs(%[[OFFS]]) transpose_lhs
// CHECK:         %{{.*}}, %[[POFFS:.*]] = mxfp8train.pad_token_groups
// CHECK:         mxfp8train.scaled_grouped_mm {{.*}} offs(%[[POFFS]]) transpose_lhs
func.func @wgrad_offs_alignment_attribute(%do: tensor<128x64xbf16>, %a: tensor<128x96xbf16>, %offs: tensor<4xi32>) -> (tensor<4x64x96xbf16>, tensor<4x64x96xbf16>) {
  // expected-remark @below {{mxfp8train: converted (grouped 2d-2d, role wgrad, lhs quantized along axis 0, rhs along axis 0, token groups already aligned (mxfp8train.offs_alignment = 64), recipe mxfp8_rceil)}}
  %0 = mxfp8train.grouped_mm %do, %a offs(%offs) transpose_lhs {mxfp8train.offs_alignment = 64 : i64}
      : tensor<128x64xbf16>, tensor<128x96xbf16>, tensor<4xi32> -> tensor<4x64x96xbf16>
  // expected-remark @below {{token groups padded to 32 (32-token blocks must not straddle groups)}}
  %1 = mxfp8train.grouped_mm %do, %a offs(%offs) transpose_lhs {mxfp8train.offs_alignment = 16 : i64}
      : tensor<128x64xbf16>, tensor<128x96xbf16>, tensor<4xi32> -> tensor<4x64x96xbf16>
  return %0, %1 : tensor<4x64x96xbf16>, tensor<4x64x96xbf16>
}

// -----

// Operands the frontend already padded: the offs are the padded offs of a
// pad_token_groups, so the rewrite does not pad again.
// CHECK-LABEL: func.func @wgrad_offs_from_pad_token_groups(
// CHECK:         %[[DP:.*]], %[[POFFS:.*]] = mxfp8train.pad_token_groups
// CHECK:         %[[AP:.*]], %{{.*}} = mxfp8train.pad_token_groups
// CHECK-NOT:     pad_token_groups
// CHECK:         mxfp8train.quantize %[[DP]] axis = 0
// CHECK:         mxfp8train.quantize %[[AP]] axis = 0
// CHECK:         mxfp8train.scaled_grouped_mm {{.*}} offs(%[[POFFS]]) transpose_lhs
func.func @wgrad_offs_from_pad_token_groups(%do: tensor<100x64xbf16>, %a: tensor<100x96xbf16>, %offs: tensor<4xi32>) -> tensor<4x64x96xbf16> {
  %dp, %poffs = mxfp8train.pad_token_groups %do offs(%offs) alignment = 32 : tensor<100x64xbf16>, tensor<4xi32> -> tensor<256x64xbf16>, tensor<4xi32>
  %ap, %poffs2 = mxfp8train.pad_token_groups %a offs(%offs) alignment = 32 : tensor<100x96xbf16>, tensor<4xi32> -> tensor<256x96xbf16>, tensor<4xi32>
  // expected-remark @below {{token groups already aligned (offs of pad_token_groups alignment = 32)}}
  %0 = mxfp8train.grouped_mm %dp, %ap offs(%poffs) transpose_lhs
      : tensor<256x64xbf16>, tensor<256x96xbf16>, tensor<4xi32> -> tensor<4x64x96xbf16>
  return %0 : tensor<4x64x96xbf16>
}

// -----

// A MoE layer step (one expert weight): A is padded once for dW (the
// forward reads it unpadded), dO once for dW (the dgrad reads it unpadded).
// CHECK-LABEL: func.func @moe_step_pads_only_wgrad(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<100x128xbf16>, %[[W:[^:]*]]: tensor<4x64x128xbf16>, %[[DO:[^:]*]]: tensor<100x64xbf16>, %[[OFFS:[^:]*]]: tensor<4xi32>
// CHECK:         mxfp8train.scaled_grouped_mm {{.*}} offs(%[[OFFS]]) transpose_rhs {mxfp8train.role = "forward"}
// CHECK:         mxfp8train.scaled_grouped_mm {{.*}} offs(%[[OFFS]]) {mxfp8train.role = "dgrad"}
// CHECK:         %[[DOP:.*]], %[[POFFS:.*]] = mxfp8train.pad_token_groups %[[DO]] offs(%[[OFFS]])
// CHECK:         %[[AP:.*]], %{{.*}} = mxfp8train.pad_token_groups %[[A]] offs(%[[OFFS]])
// CHECK:         mxfp8train.scaled_grouped_mm {{.*}} offs(%[[POFFS]]) transpose_lhs {mxfp8train.role = "wgrad"}
// CHECK-NOT:     pad_token_groups
// CHECK-NOT:     unpad_token_groups
func.func @moe_step_pads_only_wgrad(%a: tensor<100x128xbf16>, %w: tensor<4x64x128xbf16>, %do: tensor<100x64xbf16>, %offs: tensor<4xi32>)
    -> (tensor<100x64xbf16>, tensor<100x128xbf16>, tensor<4x64x128xbf16>) {
  // expected-remark @below {{role forward}}
  %out = mxfp8train.grouped_mm %a, %w offs(%offs) transpose_rhs
      : tensor<100x128xbf16>, tensor<4x64x128xbf16>, tensor<4xi32> -> tensor<100x64xbf16>
  // expected-remark @below {{role dgrad}}
  %da = mxfp8train.grouped_mm %do, %w offs(%offs)
      : tensor<100x64xbf16>, tensor<4x64x128xbf16>, tensor<4xi32> -> tensor<100x128xbf16>
  // expected-remark @below {{role wgrad}}
  %dw = mxfp8train.grouped_mm %do, %a offs(%offs) transpose_lhs
      : tensor<100x64xbf16>, tensor<100x128xbf16>, tensor<4xi32> -> tensor<4x64x128xbf16>
  return %out, %da, %dw : tensor<100x64xbf16>, tensor<100x128xbf16>, tensor<4x64x128xbf16>
}
