// RUN: mxfp8-opt %s -split-input-file --mxfp8train-rewrite-matmuls="recipe=mxfp8_rceil_wgrad_with_hp remarks=true" --verify-diagnostics | FileCheck %s

// Recipe mxfp8_rceil_wgrad_with_hp: weight-gradient matmuls stay in high
// precision (torchao `wgrad_with_hp=True`: `dW = dO_hpᵀ @ x_hp`); forward
// and dgrad are converted.

// CHECK-LABEL: func.func @linear_step_keeps_wgrad(
// CHECK-SAME:    %[[X:.*]]: tensor<64x128xbf16>, %[[W:.*]]: tensor<256x128xbf16>, %[[GO:.*]]: tensor<64x256xbf16>
// CHECK:         mxfp8train.scaled_mm {{.*}} transpose_rhs {mxfp8train.role = "forward"}
// CHECK:         mxfp8train.scaled_mm {{.*}} {mxfp8train.role = "dgrad"}
// CHECK:         %[[DW:.*]] = linalg.matmul indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}] ins(%[[GO]], %[[X]] : tensor<64x256xbf16>, tensor<64x128xbf16>)
// CHECK-NOT:     mxfp8train.quantize %[[GO]] axis = 0
// CHECK-NOT:     mxfp8train.quantize %[[X]] axis = 0
// CHECK:         return %{{.*}}, %{{.*}}, %[[DW]]
func.func @linear_step_keeps_wgrad(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %go: tensor<64x256xbf16>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xf32>) {
  %zo = arith.constant dense<0.0> : tensor<64x256xbf16>
  %zx = arith.constant dense<0.0> : tensor<64x128xbf16>
  %zw = arith.constant dense<0.0> : tensor<256x128xf32>
  // expected-remark @below {{mxfp8train: converted (role forward, lhs quantized along axis 1, rhs along axis 1, recipe mxfp8_rceil_wgrad_with_hp)}}
  %out = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                        affine_map<(m, n, k) -> (n, k)>,
                                        affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<64x128xbf16>, tensor<256x128xbf16>)
      outs(%zo : tensor<64x256xbf16>) -> tensor<64x256xbf16>
  // expected-remark @below {{mxfp8train: converted (role dgrad, lhs quantized along axis 1, rhs along axis 0, recipe mxfp8_rceil_wgrad_with_hp)}}
  %dx = linalg.matmul ins(%go, %w : tensor<64x256xbf16>, tensor<256x128xbf16>)
                      outs(%zx : tensor<64x128xbf16>) -> tensor<64x128xbf16>
  // expected-remark @below {{mxfp8train: kept in high precision (role wgrad, recipe wgrad_with_hp = true)}}
  %dw = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>,
                                       affine_map<(m, n, k) -> (k, n)>,
                                       affine_map<(m, n, k) -> (m, n)>]
      ins(%go, %x : tensor<64x256xbf16>, tensor<64x128xbf16>)
      outs(%zw : tensor<256x128xf32>) -> tensor<256x128xf32>
  return %out, %dx, %dw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xf32>
}

// -----

// A wgrad through linalg.transpose is recognised and kept, transpose and all.
// CHECK-LABEL: func.func @wgrad_through_transpose_op_kept(
// CHECK:         %[[T:.*]] = linalg.transpose
// CHECK:         linalg.matmul ins(%[[T]], %{{.*}} : tensor<256x64xbf16>, tensor<64x128xbf16>)
// CHECK-NOT:     = mxfp8train.
func.func @wgrad_through_transpose_op_kept(%go: tensor<64x256xbf16>, %x: tensor<64x128xbf16>, %acc: tensor<256x128xf32>) -> tensor<256x128xf32> {
  %e = tensor.empty() : tensor<256x64xbf16>
  %got = linalg.transpose ins(%go : tensor<64x256xbf16>) outs(%e : tensor<256x64xbf16>) permutation = [1, 0]
  // expected-remark @below {{mxfp8train: kept in high precision (role wgrad, recipe wgrad_with_hp = true)}}
  %0 = linalg.matmul ins(%got, %x : tensor<256x64xbf16>, tensor<64x128xbf16>)
                     outs(%acc : tensor<256x128xf32>) -> tensor<256x128xf32>
  return %0 : tensor<256x128xf32>
}

// -----

// The role attribute overrides the rule both ways: a wgrad-shaped matmul
// marked forward is converted; a forward-shaped one marked wgrad is kept.
// A wgrad kept in high precision is kept whatever its shape.
// CHECK-LABEL: func.func @role_attribute_decides(
// CHECK:         mxfp8train.scaled_mm {{.*}} transpose_lhs {mxfp8train.role = "forward"}
// CHECK:         linalg.matmul {{.*}}{mxfp8train.role = "wgrad"}
// CHECK:         linalg.matmul
// CHECK-NOT:     mxfp8train.scaled_mm
func.func @role_attribute_decides(%a: tensor<64x64xbf16>, %b: tensor<64x64xbf16>, %c: tensor<48x64xbf16>, %d: tensor<48x64xbf16>) -> (tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>) {
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  // expected-remark @below {{mxfp8train: converted (role forward from mxfp8train.role, lhs quantized along axis 0, rhs along axis 0, recipe mxfp8_rceil_wgrad_with_hp)}}
  %0 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>,
                                      affine_map<(m, n, k) -> (k, n)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      {mxfp8train.role = "forward"}
      ins(%a, %b : tensor<64x64xbf16>, tensor<64x64xbf16>)
      outs(%z : tensor<64x64xf32>) -> tensor<64x64xf32>
  // expected-remark @below {{mxfp8train: kept in high precision (role wgrad from mxfp8train.role, recipe wgrad_with_hp = true)}}
  %1 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      {mxfp8train.role = "wgrad"}
      ins(%a, %b : tensor<64x64xbf16>, tensor<64x64xbf16>)
      outs(%z : tensor<64x64xf32>) -> tensor<64x64xf32>
  // expected-remark @below {{mxfp8train: kept in high precision (role wgrad, recipe wgrad_with_hp = true)}}
  %2 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>,
                                      affine_map<(m, n, k) -> (k, n)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%c, %d : tensor<48x64xbf16>, tensor<48x64xbf16>)
      outs(%z : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0, %1, %2 : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>
}

// -----

// batch_matmul wgrad form is kept too.
// CHECK-LABEL: func.func @batch_matmul_wgrad_kept(
// CHECK:         linalg.batch_matmul
// CHECK-NOT:     = mxfp8train.
func.func @batch_matmul_wgrad_kept(%a: tensor<2x64x32xbf16>, %b: tensor<2x64x96xbf16>, %z: tensor<2x32x96xf32>) -> tensor<2x32x96xf32> {
  // expected-remark @below {{mxfp8train: kept in high precision (role wgrad, recipe wgrad_with_hp = true)}}
  %0 = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, k, m)>,
                                            affine_map<(b, m, n, k) -> (b, k, n)>,
                                            affine_map<(b, m, n, k) -> (b, m, n)>]
      ins(%a, %b : tensor<2x64x32xbf16>, tensor<2x64x96xbf16>)
      outs(%z : tensor<2x32x96xf32>) -> tensor<2x32x96xf32>
  return %0 : tensor<2x32x96xf32>
}

// -----

// Grouped GEMMs under the same recipe: the 2d-2d weight gradient stays a
// high-precision grouped_mm on the original operands and offs (torchao
// `torch._grouped_mm(dOᵀ, A, offs)`), unpadded; forward and dgrad convert.
// CHECK-LABEL: func.func @grouped_keeps_wgrad(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<100x128xbf16>, %[[W:[^:]*]]: tensor<4x64x128xbf16>, %[[DO:[^:]*]]: tensor<100x64xbf16>, %[[OFFS:[^:]*]]: tensor<4xi32>
// CHECK:         mxfp8train.scaled_grouped_mm {{.*}} {mxfp8train.role = "forward"}
// CHECK:         mxfp8train.scaled_grouped_mm {{.*}} {mxfp8train.role = "dgrad"}
// CHECK:         %[[DW:.*]] = mxfp8train.grouped_mm %[[DO]], %[[X]] offs(%[[OFFS]]) transpose_lhs :
// CHECK-NOT:     pad_token_groups
// CHECK:         return %{{.*}}, %{{.*}}, %[[DW]]
func.func @grouped_keeps_wgrad(%x: tensor<100x128xbf16>, %w: tensor<4x64x128xbf16>, %do: tensor<100x64xbf16>, %offs: tensor<4xi32>)
    -> (tensor<100x64xbf16>, tensor<100x128xbf16>, tensor<4x64x128xbf16>) {
  // expected-remark @below {{mxfp8train: converted (grouped 2d-3d, role forward, lhs quantized along axis 1, rhs along axis 2, recipe mxfp8_rceil_wgrad_with_hp)}}
  %out = mxfp8train.grouped_mm %x, %w offs(%offs) transpose_rhs
      : tensor<100x128xbf16>, tensor<4x64x128xbf16>, tensor<4xi32> -> tensor<100x64xbf16>
  // expected-remark @below {{mxfp8train: converted (grouped 2d-3d, role dgrad, lhs quantized along axis 1, rhs along axis 1, recipe mxfp8_rceil_wgrad_with_hp)}}
  %dx = mxfp8train.grouped_mm %do, %w offs(%offs)
      : tensor<100x64xbf16>, tensor<4x64x128xbf16>, tensor<4xi32> -> tensor<100x128xbf16>
  // expected-remark @below {{mxfp8train: kept in high precision (role wgrad, recipe wgrad_with_hp = true)}}
  %dw = mxfp8train.grouped_mm %do, %x offs(%offs) transpose_lhs
      : tensor<100x64xbf16>, tensor<100x128xbf16>, tensor<4xi32> -> tensor<4x64x128xbf16>
  return %out, %dx, %dw : tensor<100x64xbf16>, tensor<100x128xbf16>, tensor<4x64x128xbf16>
}
