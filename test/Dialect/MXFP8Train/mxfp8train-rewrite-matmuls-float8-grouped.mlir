// RUN: mxfp8-opt %s -split-input-file --mxfp8train-rewrite-matmuls="recipe=fp8_rowwise remarks=true" --verify-diagnostics | mxfp8-opt -split-input-file | FileCheck %s
// RUN: mxfp8-opt %s -split-input-file --mxfp8train-rewrite-matmuls="recipe=float8_tensorwise" 2>/dev/null | mxfp8-opt -split-input-file | FileCheck %s --check-prefix=TW
// RUN: mxfp8-opt %s -split-input-file --pass-pipeline="builtin.module(mxfp8train-rewrite-matmuls{recipe='fp8_rowwise, pad_token_groups = true' remarks=true})" 2>&1 | FileCheck %s --check-prefix=PAD-REMARK
// RUN: mxfp8-opt %s -split-input-file --pass-pipeline="builtin.module(mxfp8train-rewrite-matmuls{recipe='fp8_rowwise, pad_token_groups = true'})" 2>/dev/null | mxfp8-opt -split-input-file | FileCheck %s --check-prefix=PAD
// RUN: mxfp8-opt %s -split-input-file --pass-pipeline="builtin.module(mxfp8train-rewrite-matmuls{recipe='fp8_rowwise, float8_dtype = f8E5M2' remarks=true})" 2>&1 | FileCheck %s --check-prefix=E5M2

// The MoE grouped GEMMs under the Float8 grouped recipe (torchao
// `Float8TrainingOpConfig`, SPEC-float8 §3.3, §4.4): f8E4M3FN, rowwise,
// power-of-2 scales in every grouped GEMM, whatever the linear recipe (the
// tensorwise run casts the grouped GEMMs the same way). Forward: A per token
// (M, 1), W per (expert, out-feature) (E, N, 1); dgrad: dO per token, W per
// (expert, in-feature) (E, 1, K). The 2d-2d weight gradient casts dO and A
// token-major with scales per group and column over the group's tokens
// (quantize offs(...), (E, N) / (E, K) scales); it needs the token count to
// be a multiple of 16, so with 100 tokens it is converted only when the
// recipe pads the token groups. The output is verified by a second
// mxfp8-opt.

// CHECK-LABEL: func.func @moe_step(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<100x128xbf16>, %[[W:[^:]*]]: tensor<4x64x128xbf16>, %[[DO:[^:]*]]: tensor<100x64xbf16>, %[[OFFS:[^:]*]]: tensor<4xi32>
// CHECK:         %[[AQ:.*]], %[[AS:.*]] = mxfp8train.quantize %[[A]] axis = 1 granularity = axiswise pow2 : tensor<100x128xbf16> -> tensor<100x128xf8E4M3FN>, tensor<100x1xf32>
// CHECK:         %[[WQ:.*]], %[[WS:.*]] = mxfp8train.quantize %[[W]] axis = 2 granularity = axiswise pow2 : tensor<4x64x128xbf16> -> tensor<4x64x128xf8E4M3FN>, tensor<4x64x1xf32>
// CHECK:         %[[OUT:.*]] = mxfp8train.scaled_grouped_mm %[[AQ]][%[[AS]]], %[[WQ]][%[[WS]]] offs(%[[OFFS]]) transpose_rhs {mxfp8train.role = "forward", mxfp8train.use_fast_accum = true} : tensor<100x128xf8E4M3FN>[tensor<100x1xf32>], tensor<4x64x128xf8E4M3FN>[tensor<4x64x1xf32>], tensor<4xi32> -> tensor<100x64xbf16>
// CHECK:         %[[DOQ:.*]], %[[DOS:.*]] = mxfp8train.quantize %[[DO]] axis = 1 granularity = axiswise pow2 : tensor<100x64xbf16> -> tensor<100x64xf8E4M3FN>, tensor<100x1xf32>
// CHECK:         %[[WNQ:.*]], %[[WNS:.*]] = mxfp8train.quantize %[[W]] axis = 1 granularity = axiswise pow2 : tensor<4x64x128xbf16> -> tensor<4x64x128xf8E4M3FN>, tensor<4x1x128xf32>
// CHECK:         %[[DA:.*]] = mxfp8train.scaled_grouped_mm %[[DOQ]][%[[DOS]]], %[[WNQ]][%[[WNS]]] offs(%[[OFFS]]) {mxfp8train.role = "dgrad", mxfp8train.use_fast_accum = true} : tensor<100x64xf8E4M3FN>[tensor<100x1xf32>], tensor<4x64x128xf8E4M3FN>[tensor<4x1x128xf32>], tensor<4xi32> -> tensor<100x128xbf16>
// CHECK:         %[[DW:.*]] = mxfp8train.grouped_mm %[[DO]], %[[A]] offs(%[[OFFS]]) transpose_lhs :
// CHECK-NOT:     pad_token_groups
// CHECK-NOT:     offs(%{{.*}}) axis = 0
// CHECK:         return %[[OUT]], %[[DA]], %[[DW]]

// TW-LABEL: func.func @moe_step(
// TW-COUNT-4:    mxfp8train.quantize {{.*}} granularity = axiswise pow2 : {{.*}} -> tensor<{{.*}}xf8E4M3FN>
// TW-NOT:        granularity = tensorwise

// float8_dtype = f8E5M2: torchao's config takes it, torch._scaled_grouped_mm
// (and scaled_grouped_mm's verifier) only e4m3, so every grouped GEMM is
// skipped with a remark (the rewrite used to emit e5m2 scaled_grouped_mm
// that failed verification, and the report called it converted).
// E5M2-COUNT-2: remark: mxfp8train: skipped (float8_dtype = f8E5M2: torch._scaled_grouped_mm takes f8E4M3FN operands only)
// E5M2-NOT:     mxfp8train.scaled_grouped_mm

// With pad_token_groups (SPEC-float8 §6.3): A and dO padded to 16 once
// each, the GEMM on the padded offs, the 2d-3d results unpadded.
// PAD-REMARK: remark: mxfp8train: converted (grouped 2d-3d, role forward, lhs quantized along axis 1 (f8E4M3FN, axiswise, pow2), rhs along axis 2 (f8E4M3FN, axiswise, pow2), token groups padded to 16 (pad_token_groups), recipe #mxfp8train.float8_recipe<float8_rowwise, pad_token_groups = true>)
// PAD-REMARK: remark: mxfp8train: converted (grouped 2d-3d, role dgrad, lhs quantized along axis 1 (f8E4M3FN, axiswise, pow2), rhs along axis 1 (f8E4M3FN, axiswise, pow2), token groups padded to 16 (pad_token_groups), recipe #mxfp8train.float8_recipe<float8_rowwise, pad_token_groups = true>)
// PAD-REMARK: remark: mxfp8train: converted (grouped 2d-2d, role wgrad, lhs quantized along axis 0 (f8E4M3FN, axiswise, pow2) per token group, rhs along axis 0 (f8E4M3FN, axiswise, pow2) per token group, token groups padded to 16 (pad_token_groups), recipe #mxfp8train.float8_recipe<float8_rowwise, pad_token_groups = true>)

// PAD-LABEL: func.func @moe_step(
// PAD-SAME:    %[[A:[^:]*]]: tensor<100x128xbf16>, %[[W:[^:]*]]: tensor<4x64x128xbf16>, %[[DO:[^:]*]]: tensor<100x64xbf16>, %[[OFFS:[^:]*]]: tensor<4xi32>
// PAD:         %[[AP:.*]], %[[POFFS:.*]] = mxfp8train.pad_token_groups %[[A]] offs(%[[OFFS]]) alignment = 16 : tensor<100x128xbf16>, tensor<4xi32> -> tensor<176x128xbf16>, tensor<4xi32>
// PAD:         %[[APQ:.*]], %[[APS:.*]] = mxfp8train.quantize %[[AP]] axis = 1 granularity = axiswise pow2 : tensor<176x128xbf16> -> tensor<176x128xf8E4M3FN>, tensor<176x1xf32>
// PAD:         %[[OUTP:.*]] = mxfp8train.scaled_grouped_mm %[[APQ]][%[[APS]]], %{{.*}}[%{{.*}}] offs(%[[POFFS]]) transpose_rhs {mxfp8train.role = "forward", mxfp8train.use_fast_accum = true} {{.*}} -> tensor<176x64xbf16>
// PAD:         %[[OUT:.*]] = mxfp8train.unpad_token_groups %[[OUTP]] offs(%[[OFFS]]) alignment = 16 : tensor<176x64xbf16>, tensor<4xi32> -> tensor<100x64xbf16>
// PAD:         %[[DOP:.*]], %[[POFFS2:.*]] = mxfp8train.pad_token_groups %[[DO]] offs(%[[OFFS]]) alignment = 16
// PAD:         %[[DAP:.*]] = mxfp8train.scaled_grouped_mm {{.*}} offs(%[[POFFS2]]) {mxfp8train.role = "dgrad", mxfp8train.use_fast_accum = true} {{.*}} -> tensor<176x128xbf16>
// PAD:         %[[DA:.*]] = mxfp8train.unpad_token_groups %[[DAP]] offs(%[[OFFS]]) alignment = 16
// The wgrad reuses both pads; each operand is cast per token group with the
// (equal) padded offs of its own pad, so that one cast serves every GEMM.
// PAD:         %[[DOG:.*]], %[[DOGS:.*]] = mxfp8train.quantize %[[DOP]] offs(%[[POFFS2]]) axis = 0 granularity = axiswise pow2 : tensor<176x64xbf16>, tensor<4xi32> -> tensor<176x64xf8E4M3FN>, tensor<4x64xf32>
// PAD:         %[[AG:.*]], %[[AGS:.*]] = mxfp8train.quantize %[[AP]] offs(%[[POFFS]]) axis = 0 granularity = axiswise pow2 : tensor<176x128xbf16>, tensor<4xi32> -> tensor<176x128xf8E4M3FN>, tensor<4x128xf32>
// PAD:         %[[DW:.*]] = mxfp8train.scaled_grouped_mm %[[DOG]][%[[DOGS]]], %[[AG]][%[[AGS]]] offs(%[[POFFS2]]) transpose_lhs {mxfp8train.role = "wgrad", mxfp8train.use_fast_accum = true} : tensor<176x64xf8E4M3FN>[tensor<4x64xf32>], tensor<176x128xf8E4M3FN>[tensor<4x128xf32>], tensor<4xi32> -> tensor<4x64x128xbf16>
// PAD-NOT:     mxfp8train.grouped_mm
// PAD:         return %[[OUT]], %[[DA]], %[[DW]]
func.func @moe_step(%a: tensor<100x128xbf16>, %w: tensor<4x64x128xbf16>, %do: tensor<100x64xbf16>, %offs: tensor<4xi32>)
    -> (tensor<100x64xbf16>, tensor<100x128xbf16>, tensor<4x64x128xbf16>) {
  // expected-remark @below {{mxfp8train: converted (grouped 2d-3d, role forward, lhs quantized along axis 1 (f8E4M3FN, axiswise, pow2), rhs along axis 2 (f8E4M3FN, axiswise, pow2), recipe float8_rowwise)}}
  %out = mxfp8train.grouped_mm %a, %w offs(%offs) transpose_rhs
      : tensor<100x128xbf16>, tensor<4x64x128xbf16>, tensor<4xi32> -> tensor<100x64xbf16>
  // expected-remark @below {{mxfp8train: converted (grouped 2d-3d, role dgrad, lhs quantized along axis 1 (f8E4M3FN, axiswise, pow2), rhs along axis 1 (f8E4M3FN, axiswise, pow2), recipe float8_rowwise)}}
  %da = mxfp8train.grouped_mm %do, %w offs(%offs)
      : tensor<100x64xbf16>, tensor<4x64x128xbf16>, tensor<4xi32> -> tensor<100x128xbf16>
  // expected-remark @below {{mxfp8train: skipped (the token count M = 100 is not a multiple of 16 (torch._scaled_grouped_mm); pad_token_groups = true pads it)}}
  %dw = mxfp8train.grouped_mm %do, %a offs(%offs) transpose_lhs
      : tensor<100x64xbf16>, tensor<100x128xbf16>, tensor<4xi32> -> tensor<4x64x128xbf16>
  return %out, %da, %dw : tensor<100x64xbf16>, tensor<100x128xbf16>, tensor<4x64x128xbf16>
}

// -----

// Empty token groups (offs 0, 32, 32, 100: groups 0 and 2 are empty) need
// nothing special in 2d-3d; with padding, an empty group pads to 0 rows.
// CHECK-LABEL: func.func @empty_groups(
// CHECK:         mxfp8train.scaled_grouped_mm {{.*}} transpose_rhs {mxfp8train.role = "forward", mxfp8train.use_fast_accum = true}
// PAD-LABEL: func.func @empty_groups(
// PAD:         mxfp8train.pad_token_groups %{{.*}} offs(%{{.*}}) alignment = 16 : tensor<100x128xbf16>, tensor<4xi32> -> tensor<176x128xbf16>, tensor<4xi32>
// PAD:         mxfp8train.scaled_grouped_mm
// PAD:         mxfp8train.unpad_token_groups
func.func @empty_groups(%a: tensor<100x128xbf16>, %w: tensor<4x64x128xbf16>) -> tensor<100x64xbf16> {
  %offs = arith.constant dense<[0, 32, 32, 100]> : tensor<4xi32>
  // expected-remark @below {{mxfp8train: converted (grouped 2d-3d, role forward, lhs quantized along axis 1 (f8E4M3FN, axiswise, pow2), rhs along axis 2 (f8E4M3FN, axiswise, pow2), recipe float8_rowwise)}}
  %out = mxfp8train.grouped_mm %a, %w offs(%offs) transpose_rhs
      : tensor<100x128xbf16>, tensor<4x64x128xbf16>, tensor<4xi32> -> tensor<100x64xbf16>
  return %out : tensor<100x64xbf16>
}

// -----

// Offs known to be multiples of 16 need no padding even when the recipe asks.
// PAD-REMARK: remark: mxfp8train: converted (grouped 2d-3d, role forward, {{.*}}, token groups already aligned (constant offs), recipe
// PAD-LABEL: func.func @aligned_offs(
// PAD-NOT:     pad_token_groups
// PAD:         mxfp8train.scaled_grouped_mm
// PAD-NOT:     unpad_token_groups
func.func @aligned_offs(%a: tensor<96x128xbf16>, %w: tensor<4x64x128xbf16>) -> tensor<96x64xbf16> {
  %offs = arith.constant dense<[16, 16, 48, 96]> : tensor<4xi32>
  // expected-remark @below {{mxfp8train: converted (grouped 2d-3d, role forward, lhs quantized along axis 1 (f8E4M3FN, axiswise, pow2), rhs along axis 2 (f8E4M3FN, axiswise, pow2), recipe float8_rowwise)}}
  %out = mxfp8train.grouped_mm %a, %w offs(%offs) transpose_rhs
      : tensor<96x128xbf16>, tensor<4x64x128xbf16>, tensor<4xi32> -> tensor<96x64xbf16>
  return %out : tensor<96x64xbf16>
}

// -----

// Shape rules (SPEC-float8 §6.2): K and N multiples of 16; M is free.
func.func @unaligned(%a: tensor<100x40xbf16>, %w: tensor<4x64x40xbf16>, %b: tensor<100x128xbf16>, %v: tensor<4x40x128xbf16>, %offs: tensor<4xi32>) -> (tensor<100x64xbf16>, tensor<100x40xbf16>) {
  // expected-remark @below {{mxfp8train: skipped (K = 40 is not a multiple of 16 (torch._scaled_grouped_mm))}}
  %0 = mxfp8train.grouped_mm %a, %w offs(%offs) transpose_rhs
      : tensor<100x40xbf16>, tensor<4x64x40xbf16>, tensor<4xi32> -> tensor<100x64xbf16>
  // expected-remark @below {{mxfp8train: skipped (N = 40 is not a multiple of 16 (torch._scaled_grouped_mm))}}
  %1 = mxfp8train.grouped_mm %b, %v offs(%offs) transpose_rhs
      : tensor<100x128xbf16>, tensor<4x40x128xbf16>, tensor<4xi32> -> tensor<100x40xbf16>
  return %0, %1 : tensor<100x64xbf16>, tensor<100x40xbf16>
}

// -----

// The 2d-2d weight gradient with 96 tokens needs no padding: dO stored
// feature-major (N, M) is transposed to token-major first, x is token-major
// already; both cast per token group with the GEMM's offs. Groups 0 and 2
// are empty (SPEC-float8 decisions: an exactly zero gradient).
// CHECK-LABEL: func.func @wgrad_per_group(
// CHECK-SAME:    %[[DOT:[^:]*]]: tensor<64x96xbf16>, %[[X:[^:]*]]: tensor<96x128xbf16>
// CHECK:         %[[OFFS:.*]] = arith.constant dense<[0, 32, 32, 96]> : tensor<4xi32>
// CHECK:         %[[DO:.*]] = linalg.transpose ins(%[[DOT]] : tensor<64x96xbf16>) outs(%{{.*}} : tensor<96x64xbf16>) permutation = [1, 0]
// CHECK:         %[[DOQ:.*]], %[[DOS:.*]] = mxfp8train.quantize %[[DO]] offs(%[[OFFS]]) axis = 0 granularity = axiswise pow2 : tensor<96x64xbf16>, tensor<4xi32> -> tensor<96x64xf8E4M3FN>, tensor<4x64xf32>
// CHECK:         %[[XQ:.*]], %[[XS:.*]] = mxfp8train.quantize %[[X]] offs(%[[OFFS]]) axis = 0 granularity = axiswise pow2 : tensor<96x128xbf16>, tensor<4xi32> -> tensor<96x128xf8E4M3FN>, tensor<4x128xf32>
// CHECK:         %[[DW:.*]] = mxfp8train.scaled_grouped_mm %[[DOQ]][%[[DOS]]], %[[XQ]][%[[XS]]] offs(%[[OFFS]]) transpose_lhs {mxfp8train.role = "wgrad", mxfp8train.use_fast_accum = true} : tensor<96x64xf8E4M3FN>[tensor<4x64xf32>], tensor<96x128xf8E4M3FN>[tensor<4x128xf32>], tensor<4xi32> -> tensor<4x64x128xbf16>
// CHECK:         return %[[DW]]
// PAD-REMARK: remark: mxfp8train: converted (grouped 2d-2d, role wgrad, lhs made token-major quantized along axis 0 (f8E4M3FN, axiswise, pow2) per token group, rhs along axis 0 (f8E4M3FN, axiswise, pow2) per token group, token groups already aligned (constant offs), recipe
func.func @wgrad_per_group(%dot: tensor<64x96xbf16>, %x: tensor<96x128xbf16>) -> tensor<4x64x128xbf16> {
  %offs = arith.constant dense<[0, 32, 32, 96]> : tensor<4xi32>
  // expected-remark @below {{mxfp8train: converted (grouped 2d-2d, role wgrad, lhs made token-major quantized along axis 0 (f8E4M3FN, axiswise, pow2) per token group, rhs along axis 0 (f8E4M3FN, axiswise, pow2) per token group, recipe float8_rowwise)}}
  %dw = mxfp8train.grouped_mm %dot, %x offs(%offs)
      : tensor<64x96xbf16>, tensor<96x128xbf16>, tensor<4xi32> -> tensor<4x64x128xbf16>
  return %dw : tensor<4x64x128xbf16>
}

// -----

// 2d-2d shape rules (SPEC-float8 §6.2): N and K multiples of 16.
func.func @wgrad_unaligned(%do: tensor<96x40xbf16>, %x: tensor<96x128xbf16>, %offs: tensor<4xi32>) -> tensor<4x40x128xbf16> {
  // expected-remark @below {{mxfp8train: skipped (N = 40 is not a multiple of 16 (torch._scaled_grouped_mm))}}
  %dw = mxfp8train.grouped_mm %do, %x offs(%offs) transpose_lhs
      : tensor<96x40xbf16>, tensor<96x128xbf16>, tensor<4xi32> -> tensor<4x40x128xbf16>
  return %dw : tensor<4x40x128xbf16>
}
