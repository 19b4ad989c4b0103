// RUN: mxfp8-opt %s -split-input-file --pass-pipeline="builtin.module(mxfp8train-rewrite-matmuls{recipe='pad_token_groups = true' remarks=true})" --verify-diagnostics | FileCheck %s
// RUN: mxfp8-opt %s -split-input-file --pass-pipeline="builtin.module(mxfp8train-rewrite-matmuls{recipe='pad_token_groups = true, token_group_alignment = 128'})" 2>/dev/null | FileCheck %s --check-prefix=A128

// Recipe `pad_token_groups = true` (torchao
// `pad_token_groups_for_grouped_mm=True`, SPEC §7.3): every grouped GEMM
// pads its token-major operands to `token_group_alignment` with the original
// offs, runs on the padded offs, and a 2d-3d result is unpadded with the
// original offs. As in torchao's autograd function, A is padded once for the
// forward and the weight gradient and dO once for the dgrad and the weight
// gradient; every pad and quantize is shared.

// CHECK-LABEL: func.func @moe_step_padded(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<100x128xbf16>, %[[W:[^:]*]]: tensor<4x64x128xbf16>, %[[DO:[^:]*]]: tensor<100x64xbf16>, %[[OFFS:[^:]*]]: tensor<4xi32>
// Forward: pad A, quantize along K, GEMM on the padded offs, unpad.
// CHECK:         %[[AP:.*]], %[[POFFS:.*]] = mxfp8train.pad_token_groups %[[A]] offs(%[[OFFS]]) alignment = 32 : tensor<100x128xbf16>, tensor<4xi32> -> tensor<256x128xbf16>, tensor<4xi32>
// CHECK:         %[[APQ:.*]], %[[APS:.*]] = mxfp8train.quantize %[[AP]] axis = 1
// CHECK:         %[[WQ:.*]], %[[WS:.*]] = mxfp8train.quantize %[[W]] axis = 2
// CHECK:         %[[OUTP:.*]] = mxfp8train.scaled_grouped_mm %[[APQ]][%[[APS]]], %[[WQ]][%[[WS]]] offs(%[[POFFS]]) transpose_rhs {mxfp8train.role = "forward"} {{.*}} -> tensor<256x64xbf16>
// CHECK:         %[[OUT:.*]] = mxfp8train.unpad_token_groups %[[OUTP]] offs(%[[OFFS]]) alignment = 32 : tensor<256x64xbf16>, tensor<4xi32> -> tensor<100x64xbf16>
// Dgrad: pad dO, quantize along N, unpad.
// CHECK:         %[[DOP:.*]], %[[POFFS2:.*]] = mxfp8train.pad_token_groups %[[DO]] offs(%[[OFFS]]) alignment = 32
// CHECK:         %[[DOPQ:.*]], %[[DOPS:.*]] = mxfp8train.quantize %[[DOP]] axis = 1
// CHECK:         %[[WNQ:.*]], %[[WNS:.*]] = mxfp8train.quantize %[[W]] axis = 1
// CHECK:         %[[DAP:.*]] = mxfp8train.scaled_grouped_mm %[[DOPQ]][%[[DOPS]]], %[[WNQ]][%[[WNS]]] offs(%[[POFFS2]]) {mxfp8train.role = "dgrad"} {{.*}} -> tensor<256x128xbf16>
// CHECK:         %[[DA:.*]] = mxfp8train.unpad_token_groups %[[DAP]] offs(%[[OFFS]])
// Wgrad: the same padded dO and A, quantized along M; no new pad, no unpad.
// CHECK-NOT:     pad_token_groups
// CHECK:         %[[DOMQ:.*]], %[[DOMS:.*]] = mxfp8train.quantize %[[DOP]] axis = 0
// CHECK:         %[[AMQ:.*]], %[[AMS:.*]] = mxfp8train.quantize %[[AP]] axis = 0
// CHECK:         %[[DW:.*]] = mxfp8train.scaled_grouped_mm %[[DOMQ]][%[[DOMS]]], %[[AMQ]][%[[AMS]]] offs(%[[POFFS2]]) transpose_lhs {mxfp8train.role = "wgrad"} {{.*}} -> tensor<4x64x128xbf16>
// CHECK-NOT:     pad_token_groups
// CHECK:         return %[[OUT]], %[[DA]], %[[DW]]

// A128: %{{.*}}, %{{.*}} = mxfp8train.pad_token_groups %{{.*}} offs(%{{.*}}) alignment = 128 : tensor<100x128xbf16>, tensor<4xi32> -> tensor<640x128xbf16>, tensor<4xi32>
// A128: mxfp8train.unpad_token_groups %{{.*}} offs(%{{.*}}) alignment = 128 : tensor<640x64xbf16>, tensor<4xi32> -> tensor<100x64xbf16>
func.func @moe_step_padded(%a: tensor<100x128xbf16>, %w: tensor<4x64x128xbf16>, %do: tensor<100x64xbf16>, %offs: tensor<4xi32>)
    -> (tensor<100x64xbf16>, tensor<100x128xbf16>, tensor<4x64x128xbf16>) {
  // expected-remark @below {{mxfp8train: converted (grouped 2d-3d, role forward, lhs quantized along axis 1, rhs along axis 2, token groups padded to 32 (pad_token_groups), recipe #mxfp8train.recipe<pad_token_groups = true>)}}
  %out = mxfp8train.grouped_mm %a, %w offs(%offs) transpose_rhs
      : tensor<100x128xbf16>, tensor<4x64x128xbf16>, tensor<4xi32> -> tensor<100x64xbf16>
  // expected-remark @below {{mxfp8train: converted (grouped 2d-3d, role dgrad, lhs quantized along axis 1, rhs along axis 1, token groups padded to 32 (pad_token_groups), recipe #mxfp8train.recipe<pad_token_groups = true>)}}
  %da = mxfp8train.grouped_mm %do, %w offs(%offs)
      : tensor<100x64xbf16>, tensor<4x64x128xbf16>, tensor<4xi32> -> tensor<100x128xbf16>
  // expected-remark @below {{mxfp8train: converted (grouped 2d-2d, role wgrad, lhs quantized along axis 0, rhs along axis 0, token groups padded to 32 (pad_token_groups), recipe #mxfp8train.recipe<pad_token_groups = true>)}}
  %dw = mxfp8train.grouped_mm %do, %a offs(%offs) transpose_lhs
      : tensor<100x64xbf16>, tensor<100x128xbf16>, tensor<4xi32> -> tensor<4x64x128xbf16>
  return %out, %da, %dw : tensor<100x64xbf16>, tensor<100x128xbf16>, tensor<4x64x128xbf16>
}

// -----

// Offs known to be multiples of the alignment are not padded again, even
// for 2d-3d; with alignment 128 the same 32-aligned offs are padded.
// CHECK-LABEL: func.func @aligned_offs_not_padded(
// CHECK-NOT:     pad_token_groups
// CHECK:         mxfp8train.scaled_grouped_mm {{.*}} transpose_rhs
// CHECK-NOT:     unpad_token_groups
// A128-LABEL: func.func @aligned_offs_not_padded(
// A128:         mxfp8train.pad_token_groups {{.*}} alignment = 128
// A128:         mxfp8train.unpad_token_groups {{.*}} alignment = 128
func.func @aligned_offs_not_padded(%a: tensor<128x128xbf16>, %w: tensor<4x64x128xbf16>) -> tensor<128x64xbf16> {
  %offs = arith.constant dense<[32, 32, 64, 128]> : tensor<4xi32>
  // expected-remark @below {{mxfp8train: converted (grouped 2d-3d, role forward, lhs quantized along axis 1, rhs along axis 2, token groups already aligned (constant offs), recipe #mxfp8train.recipe<pad_token_groups = true>)}}
  %out = mxfp8train.grouped_mm %a, %w offs(%offs) transpose_rhs
      : tensor<128x128xbf16>, tensor<4x64x128xbf16>, tensor<4xi32> -> tensor<128x64xbf16>
  return %out : tensor<128x64xbf16>
}
