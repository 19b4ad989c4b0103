// RUN: mxfp8-opt %s -split-input-file --mxfp8train-rewrite-matmuls="recipe=mxfp8_emulated_rceil remarks=true" --verify-diagnostics | FileCheck %s

// Recipe mxfp8_emulated_rceil (torchao EMULATED, SPEC §3.1): each operand is
// quantized along its contraction axis and dequantized back to its own type;
// the matmul stays in high precision on the dequantized operands, with its
// init, and records its role.

// CHECK-DAG:   #[[$MK:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG:   #[[$NK:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG:   #[[$MN:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @emulated_forward(
// CHECK-SAME:    %[[X:.*]]: tensor<64x128xbf16>, %[[W:.*]]: tensor<256x128xbf16>, %[[INIT:.*]]: tensor<64x256xbf16>
// CHECK:         %[[XQ:.*]], %[[XS:.*]] = mxfp8train.quantize %[[X]] axis = 1 mode = rceil
// CHECK:         %[[WQ:.*]], %[[WS:.*]] = mxfp8train.quantize %[[W]] axis = 1 mode = rceil
// CHECK:         %[[XD:.*]] = mxfp8train.dequantize %[[XQ]][%[[XS]]] axis = 1 : {{.*}} -> tensor<64x128xbf16>
// CHECK:         %[[WD:.*]] = mxfp8train.dequantize %[[WQ]][%[[WS]]] axis = 1 : {{.*}} -> tensor<256x128xbf16>
// CHECK:         %[[R:.*]] = linalg.matmul indexing_maps = [#[[$MK]], #[[$NK]], #[[$MN]]] {mxfp8train.role = "forward"} ins(%[[XD]], %[[WD]] : tensor<64x128xbf16>, tensor<256x128xbf16>) outs(%[[INIT]] : tensor<64x256xbf16>)
// CHECK-NOT:     mxfp8train.scaled_mm
// CHECK:         return %[[R]]
func.func @emulated_forward(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %init: tensor<64x256xbf16>) -> tensor<64x256xbf16> {
  // expected-remark @below {{mxfp8train: converted to emulated MX (role forward, lhs quantized along axis 1, rhs along axis 1, recipe mxfp8_emulated_rceil)}}
  %0 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<64x128xbf16>, tensor<256x128xbf16>)
      outs(%init : tensor<64x256xbf16>) -> tensor<64x256xbf16>
  return %0 : tensor<64x256xbf16>
}

// -----

// Through linalg.transpose: the transpose's input is quantized and
// dequantized, the matmul reads it through the composed (transposing) map,
// and the transpose is erased. An f32 operand is dequantized to f32.
// CHECK-DAG:   #[[$KM:.*]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG:   #[[$KN:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG:   #[[$MN:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @emulated_wgrad_through_transpose_op(
// CHECK-SAME:    %[[GO:.*]]: tensor<64x256xbf16>, %[[X:.*]]: tensor<64x128xf32>
// CHECK-NOT:     linalg.transpose
// CHECK:         %[[GQ:.*]], %[[GS:.*]] = mxfp8train.quantize %[[GO]] axis = 0 mode = rceil
// CHECK:         %[[XQ:.*]], %[[XS:.*]] = mxfp8train.quantize %[[X]] axis = 0 mode = rceil : tensor<64x128xf32>
// CHECK:         %[[GD:.*]] = mxfp8train.dequantize %[[GQ]][%[[GS]]] axis = 0 : {{.*}} -> tensor<64x256xbf16>
// CHECK:         %[[XD:.*]] = mxfp8train.dequantize %[[XQ]][%[[XS]]] axis = 0 : {{.*}} -> tensor<64x128xf32>
// CHECK:         linalg.matmul indexing_maps = [#[[$KM]], #[[$KN]], #[[$MN]]] {mxfp8train.role = "wgrad"} ins(%[[GD]], %[[XD]] : tensor<64x256xbf16>, tensor<64x128xf32>)
// CHECK-NOT:     linalg.transpose
func.func @emulated_wgrad_through_transpose_op(%go: tensor<64x256xbf16>, %x: tensor<64x128xf32>) -> tensor<256x128xf32> {
  %e = tensor.empty() : tensor<256x64xbf16>
  %got = linalg.transpose ins(%go : tensor<64x256xbf16>) outs(%e : tensor<256x64xbf16>) permutation = [1, 0]
  %z = arith.constant dense<0.0> : tensor<256x128xf32>
  // expected-remark @below {{mxfp8train: converted to emulated MX (role wgrad, lhs via linalg.transpose quantized along axis 0, rhs along axis 0, recipe mxfp8_emulated_rceil)}}
  %0 = linalg.matmul ins(%got, %x : tensor<256x64xbf16>, tensor<64x128xf32>)
                     outs(%z : tensor<256x128xf32>) -> tensor<256x128xf32>
  return %0 : tensor<256x128xf32>
}

// -----

// Two matmuls reading W along the same axis share its quantize and its
// dequantize.
// CHECK-LABEL: func.func @emulated_reuses_quantize_and_dequantize(
// CHECK-SAME:    %{{.*}}: tensor<64x128xbf16>, %{{.*}}: tensor<32x128xbf16>, %[[W:.*]]: tensor<256x128xbf16>
// CHECK:         %[[WQ:.*]], %[[WS:.*]] = mxfp8train.quantize %[[W]] axis = 1
// CHECK:         %[[WD:.*]] = mxfp8train.dequantize %[[WQ]][%[[WS]]]
// CHECK:         linalg.matmul {{.*}} ins(%{{.*}}, %[[WD]] :
// CHECK-NOT:     mxfp8train.quantize %[[W]]
// CHECK-NOT:     mxfp8train.dequantize %[[WQ]]
// CHECK:         linalg.matmul {{.*}} ins(%{{.*}}, %[[WD]] :
func.func @emulated_reuses_quantize_and_dequantize(%x: tensor<64x128xbf16>, %y: tensor<32x128xbf16>, %w: tensor<256x128xbf16>) -> (tensor<64x256xf32>, tensor<32x256xf32>) {
  %z1 = arith.constant dense<0.0> : tensor<64x256xf32>
  %z2 = arith.constant dense<0.0> : tensor<32x256xf32>
  // expected-remark @below {{mxfp8train: converted to emulated MX}}
  %0 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<64x128xbf16>, tensor<256x128xbf16>)
      outs(%z1 : tensor<64x256xf32>) -> tensor<64x256xf32>
  // expected-remark @below {{mxfp8train: converted to emulated MX}}
  %1 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%y, %w : tensor<32x128xbf16>, tensor<256x128xbf16>)
      outs(%z2 : tensor<32x256xf32>) -> tensor<32x256xf32>
  return %0, %1 : tensor<64x256xf32>, tensor<32x256xf32>
}

// -----

// batch_matmul in the emulated form keeps its (transposed) maps.
// CHECK-DAG:   #[[$A:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d1)>
// CHECK-DAG:   #[[$B:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-DAG:   #[[$C:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @emulated_batch_matmul(
// CHECK:         mxfp8train.quantize %{{.*}} axis = 1
// CHECK:         mxfp8train.quantize %{{.*}} axis = 2
// CHECK:         mxfp8train.dequantize {{.*}} axis = 1
// CHECK:         mxfp8train.dequantize {{.*}} axis = 2
// CHECK:         linalg.batch_matmul indexing_maps = [#[[$A]], #[[$B]], #[[$C]]] {mxfp8train.role = "forward"}
func.func @emulated_batch_matmul(%a: tensor<2x64x32xbf16>, %b: tensor<2x48x64xbf16>, %c: tensor<2x32x48xf32>) -> tensor<2x32x48xf32> {
  // expected-remark @below {{mxfp8train: converted to emulated MX (role forward, lhs quantized along axis 1, rhs along axis 2, recipe mxfp8_emulated_rceil)}}
  %0 = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, k, m)>,
                                            affine_map<(b, m, n, k) -> (b, n, k)>,
                                            affine_map<(b, m, n, k) -> (b, m, n)>]
      ins(%a, %b : tensor<2x64x32xbf16>, tensor<2x48x64xbf16>)
      outs(%c : tensor<2x32x48xf32>) -> tensor<2x32x48xf32>
  return %0 : tensor<2x32x48xf32>
}

// -----

// Grouped GEMMs in the emulated form (torchao `_emulated_mxfp8_scaled_grouped_mm`):
// the same padding and quantization as the AUTO path, each operand
// dequantized back to its type, and a high-precision grouped_mm on the
// (padded) offs carrying the role.
// CHECK-LABEL: func.func @emulated_grouped(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<100x128xbf16>, %[[W:[^:]*]]: tensor<4x64x128xbf16>, %[[DO:[^:]*]]: tensor<100x64xbf16>, %[[OFFS:[^:]*]]: tensor<4xi32>
// CHECK:         %[[XQ:.*]], %[[XS:.*]] = mxfp8train.quantize %[[X]] axis = 1
// CHECK:         %[[WQ:.*]], %[[WS:.*]] = mxfp8train.quantize %[[W]] axis = 2
// CHECK:         %[[XD:.*]] = mxfp8train.dequantize %[[XQ]][%[[XS]]] axis = 1 : {{.*}} -> tensor<100x128xbf16>
// CHECK:         %[[WD:.*]] = mxfp8train.dequantize %[[WQ]][%[[WS]]] axis = 2 : {{.*}} -> tensor<4x64x128xbf16>
// CHECK:         %[[OUT:.*]] = mxfp8train.grouped_mm %[[XD]], %[[WD]] offs(%[[OFFS]]) transpose_rhs {mxfp8train.role = "forward"}
// CHECK:         %[[DOP:.*]], %[[POFFS:.*]] = mxfp8train.pad_token_groups %[[DO]] offs(%[[OFFS]]) alignment = 32
// CHECK:         %[[XP:.*]], %{{.*}} = mxfp8train.pad_token_groups %[[X]] offs(%[[OFFS]]) alignment = 32
// CHECK:         %[[DOQ:.*]], %[[DOS:.*]] = mxfp8train.quantize %[[DOP]] axis = 0
// CHECK:         %[[XPQ:.*]], %[[XPS:.*]] = mxfp8train.quantize %[[XP]] axis = 0
// CHECK:         %[[DOD:.*]] = mxfp8train.dequantize %[[DOQ]][%[[DOS]]] axis = 0
// CHECK:         %[[XPD:.*]] = mxfp8train.dequantize %[[XPQ]][%[[XPS]]] axis = 0
// CHECK:         %[[DW:.*]] = mxfp8train.grouped_mm %[[DOD]], %[[XPD]] offs(%[[POFFS]]) transpose_lhs {mxfp8train.role = "wgrad"}
// CHECK:         return %[[OUT]], %[[DW]]
func.func @emulated_grouped(%x: tensor<100x128xbf16>, %w: tensor<4x64x128xbf16>, %do: tensor<100x64xbf16>, %offs: tensor<4xi32>)
    -> (tensor<100x64xbf16>, tensor<4x64x128xbf16>) {
  // expected-remark @below {{mxfp8train: converted to emulated MX (grouped 2d-3d, role forward, lhs quantized along axis 1, rhs along axis 2, recipe mxfp8_emulated_rceil)}}
  %out = mxfp8train.grouped_mm %x, %w offs(%offs) transpose_rhs
      : tensor<100x128xbf16>, tensor<4x64x128xbf16>, tensor<4xi32> -> tensor<100x64xbf16>
  // expected-remark @below {{mxfp8train: converted to emulated MX (grouped 2d-2d, role wgrad, lhs quantized along axis 0, rhs along axis 0, token groups padded to 32 (32-token blocks must not straddle groups), recipe mxfp8_emulated_rceil)}}
  %dw = mxfp8train.grouped_mm %do, %x offs(%offs) transpose_lhs
      : tensor<100x64xbf16>, tensor<100x128xbf16>, tensor<4xi32> -> tensor<4x64x128xbf16>
  return %out, %dw : tensor<100x64xbf16>, tensor<4x64x128xbf16>
}

// -----

// The emulated grouped_mm reads dequantized operands: a second run of the
// pass leaves it alone (with a remark).
// CHECK-LABEL: func.func @emulated_grouped_idempotent(
// CHECK:         mxfp8train.grouped_mm
// CHECK-NOT:     mxfp8train.quantize
func.func @emulated_grouped_idempotent(%xq: tensor<64x128xf8E4M3FN>, %xs: tensor<64x4xf8E8M0FNU>, %w: tensor<2x64x128xbf16>, %offs: tensor<2xi32>) -> tensor<64x64xbf16> {
  %x = mxfp8train.dequantize %xq [%xs] axis = 1 : tensor<64x128xf8E4M3FN> [tensor<64x4xf8E8M0FNU>] -> tensor<64x128xbf16>
  // expected-remark @below {{mxfp8train: skipped (an operand is already dequantized MX data)}}
  %0 = mxfp8train.grouped_mm %x, %w offs(%offs) transpose_rhs {mxfp8train.role = "forward"}
      : tensor<64x128xbf16>, tensor<2x64x128xbf16>, tensor<2xi32> -> tensor<64x64xbf16>
  return %0 : tensor<64x64xbf16>
}
