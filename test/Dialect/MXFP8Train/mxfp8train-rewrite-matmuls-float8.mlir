// RUN: mxfp8-opt %s -split-input-file --mxfp8train-rewrite-matmuls="recipe=float8_rowwise remarks=true" 2>&1 | FileCheck %s --check-prefixes=REMARK-ROW
// RUN: mxfp8-opt %s -split-input-file --mxfp8train-rewrite-matmuls="recipe=float8_rowwise" | mxfp8-opt -split-input-file | FileCheck %s --check-prefix=ROW
// RUN: mxfp8-opt %s -split-input-file --mxfp8train-rewrite-matmuls="recipe=float8_tensorwise remarks=true" 2>&1 | FileCheck %s --check-prefixes=REMARK-TW
// RUN: mxfp8-opt %s -split-input-file --mxfp8train-rewrite-matmuls="recipe=float8_tensorwise" | mxfp8-opt -split-input-file | FileCheck %s --check-prefix=TW
// RUN: mxfp8-opt %s -split-input-file --mxfp8train-rewrite-matmuls="recipe=float8_rowwise_with_gw_hp remarks=true" 2>&1 | FileCheck %s --check-prefixes=REMARK-GWHP
// RUN: mxfp8-opt %s -split-input-file --mxfp8train-rewrite-matmuls="recipe=float8_rowwise_with_gw_hp" | mxfp8-opt -split-input-file | FileCheck %s --check-prefix=GWHP
// RUN: mxfp8-opt %s -split-input-file --pass-pipeline="builtin.module(mxfp8train-rewrite-matmuls{recipe='float8_tensorwise, round_scales_to_power_of_2 = true'})" | mxfp8-opt -split-input-file | FileCheck %s --check-prefix=TWPOW2

// The dense linear training step (output, grad_input, grad_weight) under the
// three Float8 linear recipes, per SPEC-float8 §4.2 / §3.1: every operand is
// quantized along the contraction of its GEMM, e5m2 only for the tensorwise
// grad_output, the tensorwise weight in rowwise_with_gw_hp's grad_input and
// its grad_weight in high precision; the bias is never scaled. The converted
// IR is parsed and verified again by a second mxfp8-opt.

// REMARK-ROW: remark: mxfp8train: converted (role forward, lhs quantized along axis 1 (f8E4M3FN, axiswise, pow2), rhs along axis 1 (f8E4M3FN, axiswise, pow2), init as bias, recipe float8_rowwise)
// REMARK-ROW: remark: mxfp8train: converted (role dgrad, lhs quantized along axis 1 (f8E4M3FN, axiswise, pow2), rhs along axis 0 (f8E4M3FN, axiswise, pow2), recipe float8_rowwise)
// REMARK-ROW: remark: mxfp8train: converted (role wgrad, lhs quantized along axis 0 (f8E4M3FN, axiswise, pow2), rhs along axis 0 (f8E4M3FN, axiswise, pow2), recipe float8_rowwise)

// REMARK-TW: remark: mxfp8train: converted (role forward, lhs quantized along axis 1 (f8E4M3FN, tensorwise), rhs along axis 1 (f8E4M3FN, tensorwise), init as bias, recipe float8_tensorwise)
// REMARK-TW: remark: mxfp8train: converted (role dgrad, lhs quantized along axis 1 (f8E5M2, tensorwise), rhs along axis 0 (f8E4M3FN, tensorwise), recipe float8_tensorwise)
// REMARK-TW: remark: mxfp8train: converted (role wgrad, lhs quantized along axis 0 (f8E5M2, tensorwise), rhs along axis 0 (f8E4M3FN, tensorwise), recipe float8_tensorwise)

// REMARK-GWHP: remark: mxfp8train: converted (role forward, lhs quantized along axis 1 (f8E4M3FN, axiswise, pow2), rhs along axis 1 (f8E4M3FN, axiswise, pow2), init as bias, recipe float8_rowwise_with_gw_hp)
// REMARK-GWHP: remark: mxfp8train: converted (role dgrad, lhs quantized along axis 1 (f8E4M3FN, axiswise, pow2), rhs along axis 0 (f8E4M3FN, tensorwise, pow2), recipe float8_rowwise_with_gw_hp)
// REMARK-GWHP: remark: mxfp8train: kept in high precision (role wgrad, recipe float8_rowwise_with_gw_hp keeps grad_weight in high precision)

// ROW-LABEL: func.func @linear_step(
// ROW-SAME:    %[[X:[^:]*]]: tensor<64x128xbf16>, %[[W:[^:]*]]: tensor<256x128xbf16>, %[[B:[^:]*]]: tensor<256xbf16>, %[[GO:[^:]*]]: tensor<64x256xbf16>
// ROW:         %[[XQ:.*]], %[[XS:.*]] = mxfp8train.quantize %[[X]] axis = 1 granularity = axiswise pow2 : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<64x1xf32>
// ROW:         %[[WQ:.*]], %[[WS:.*]] = mxfp8train.quantize %[[W]] axis = 1 granularity = axiswise pow2 : tensor<256x128xbf16> -> tensor<256x128xf8E4M3FN>, tensor<256x1xf32>
// ROW:         %[[Y:.*]] = mxfp8train.scaled_mm %[[XQ]][%[[XS]]], %[[WQ]][%[[WS]]] bias(%[[B]]) transpose_rhs {mxfp8train.role = "forward", mxfp8train.use_fast_accum = true} : tensor<64x128xf8E4M3FN>[tensor<64x1xf32>], tensor<256x128xf8E4M3FN>[tensor<256x1xf32>], tensor<256xbf16> -> tensor<64x256xbf16>
// ROW:         %[[GQ:.*]], %[[GS:.*]] = mxfp8train.quantize %[[GO]] axis = 1 granularity = axiswise pow2 : tensor<64x256xbf16> -> tensor<64x256xf8E4M3FN>, tensor<64x1xf32>
// ROW:         %[[WQ0:.*]], %[[WS0:.*]] = mxfp8train.quantize %[[W]] axis = 0 granularity = axiswise pow2 : tensor<256x128xbf16> -> tensor<256x128xf8E4M3FN>, tensor<1x128xf32>
// ROW:         %[[DX:.*]] = mxfp8train.scaled_mm %[[GQ]][%[[GS]]], %[[WQ0]][%[[WS0]]] {mxfp8train.role = "dgrad", mxfp8train.use_fast_accum = false} : tensor<64x256xf8E4M3FN>[tensor<64x1xf32>], tensor<256x128xf8E4M3FN>[tensor<1x128xf32>] -> tensor<64x128xbf16>
// ROW:         %[[GQ0:.*]], %[[GS0:.*]] = mxfp8train.quantize %[[GO]] axis = 0 granularity = axiswise pow2 : tensor<64x256xbf16> -> tensor<64x256xf8E4M3FN>, tensor<1x256xf32>
// ROW:         %[[XQ0:.*]], %[[XS0:.*]] = mxfp8train.quantize %[[X]] axis = 0 granularity = axiswise pow2 : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<1x128xf32>
// ROW:         %[[DW:.*]] = mxfp8train.scaled_mm %[[GQ0]][%[[GS0]]], %[[XQ0]][%[[XS0]]] transpose_lhs {mxfp8train.role = "wgrad", mxfp8train.use_fast_accum = false} : tensor<64x256xf8E4M3FN>[tensor<1x256xf32>], tensor<64x128xf8E4M3FN>[tensor<1x128xf32>] -> tensor<256x128xf32>
// ROW:         return %[[Y]], %[[DX]], %[[DW]]

// TW-LABEL: func.func @linear_step(
// TW-SAME:    %[[X:[^:]*]]: tensor<64x128xbf16>, %[[W:[^:]*]]: tensor<256x128xbf16>, %[[B:[^:]*]]: tensor<256xbf16>, %[[GO:[^:]*]]: tensor<64x256xbf16>
// TW:         %[[XQ:.*]], %[[XS:.*]] = mxfp8train.quantize %[[X]] granularity = tensorwise : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<f32>
// TW:         %[[WQ:.*]], %[[WS:.*]] = mxfp8train.quantize %[[W]] granularity = tensorwise : tensor<256x128xbf16> -> tensor<256x128xf8E4M3FN>, tensor<f32>
// TW:         %[[Y:.*]] = mxfp8train.scaled_mm %[[XQ]][%[[XS]]], %[[WQ]][%[[WS]]] bias(%[[B]]) transpose_rhs {mxfp8train.role = "forward", mxfp8train.use_fast_accum = true} : tensor<64x128xf8E4M3FN>[tensor<f32>], tensor<256x128xf8E4M3FN>[tensor<f32>], tensor<256xbf16> -> tensor<64x256xbf16>
// TW:         %[[GQ:.*]], %[[GS:.*]] = mxfp8train.quantize %[[GO]] granularity = tensorwise : tensor<64x256xbf16> -> tensor<64x256xf8E5M2>, tensor<f32>
// The tensorwise casts of W, x and gO are each made once and shared by the
// GEMMs that read them (SPEC-float8 §3.1: the recomputed casts are equal).
// TW-NOT:     mxfp8train.quantize
// TW:         %[[DX:.*]] = mxfp8train.scaled_mm %[[GQ]][%[[GS]]], %[[WQ]][%[[WS]]] {mxfp8train.role = "dgrad", mxfp8train.use_fast_accum = false} : tensor<64x256xf8E5M2>[tensor<f32>], tensor<256x128xf8E4M3FN>[tensor<f32>] -> tensor<64x128xbf16>
// TW-NOT:     mxfp8train.quantize
// TW:         %[[DW:.*]] = mxfp8train.scaled_mm %[[GQ]][%[[GS]]], %[[XQ]][%[[XS]]] transpose_lhs {mxfp8train.role = "wgrad", mxfp8train.use_fast_accum = false} : tensor<64x256xf8E5M2>[tensor<f32>], tensor<64x128xf8E4M3FN>[tensor<f32>] -> tensor<256x128xf32>
// TW:         return %[[Y]], %[[DX]], %[[DW]]

// TWPOW2-LABEL: func.func @linear_step(
// TWPOW2-COUNT-3: mxfp8train.quantize %{{.*}} granularity = tensorwise pow2 :
// TWPOW2-NOT:     mxfp8train.quantize

// GWHP-LABEL: func.func @linear_step(
// GWHP-SAME:    %[[X:[^:]*]]: tensor<64x128xbf16>, %[[W:[^:]*]]: tensor<256x128xbf16>, %[[B:[^:]*]]: tensor<256xbf16>, %[[GO:[^:]*]]: tensor<64x256xbf16>
// GWHP:         mxfp8train.quantize %[[X]] axis = 1 granularity = axiswise pow2 : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<64x1xf32>
// GWHP:         mxfp8train.quantize %[[W]] axis = 1 granularity = axiswise pow2 : tensor<256x128xbf16> -> tensor<256x128xf8E4M3FN>, tensor<256x1xf32>
// GWHP:         mxfp8train.scaled_mm {{.*}} {mxfp8train.role = "forward", mxfp8train.use_fast_accum = true}
// GWHP:         %[[GQ:.*]], %[[GS:.*]] = mxfp8train.quantize %[[GO]] axis = 1 granularity = axiswise pow2 : tensor<64x256xbf16> -> tensor<64x256xf8E4M3FN>, tensor<64x1xf32>
// GWHP:         %[[WQ:.*]], %[[WS:.*]] = mxfp8train.quantize %[[W]] granularity = tensorwise pow2 : tensor<256x128xbf16> -> tensor<256x128xf8E4M3FN>, tensor<f32>
// GWHP:         %[[DX:.*]] = mxfp8train.scaled_mm %[[GQ]][%[[GS]]], %[[WQ]][%[[WS]]] {mxfp8train.role = "dgrad", mxfp8train.use_fast_accum = false} : tensor<64x256xf8E4M3FN>[tensor<64x1xf32>], tensor<256x128xf8E4M3FN>[tensor<f32>] -> tensor<64x128xbf16>
// GWHP-NOT:     mxfp8train.quantize
// GWHP:         %[[DW:.*]] = linalg.matmul {{.*}} ins(%[[GO]], %[[X]] : tensor<64x256xbf16>, tensor<64x128xbf16>)
// GWHP:         return %{{.*}}, %[[DX]], %[[DW]]
func.func @linear_step(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %b: tensor<256xbf16>, %go: tensor<64x256xbf16>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xf32>) {
  %eo = tensor.empty() : tensor<64x256xbf16>
  %bias = linalg.broadcast ins(%b : tensor<256xbf16>) outs(%eo : tensor<64x256xbf16>) dimensions = [0]
  %zx = arith.constant dense<0.0> : tensor<64x128xbf16>
  %zw = arith.constant dense<0.0> : tensor<256x128xf32>
  %out = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                        affine_map<(m, n, k) -> (n, k)>,
                                        affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<64x128xbf16>, tensor<256x128xbf16>)
      outs(%bias : tensor<64x256xbf16>) -> tensor<64x256xbf16>
  %dx = linalg.matmul ins(%go, %w : tensor<64x256xbf16>, tensor<256x128xbf16>)
                      outs(%zx : tensor<64x128xbf16>) -> tensor<64x128xbf16>
  %dw = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>,
                                       affine_map<(m, n, k) -> (k, n)>,
                                       affine_map<(m, n, k) -> (m, n)>]
      ins(%go, %x : tensor<64x256xbf16>, tensor<64x128xbf16>)
      outs(%zw : tensor<256x128xf32>) -> tensor<256x128xf32>
  return %out, %dx, %dw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xf32>
}
