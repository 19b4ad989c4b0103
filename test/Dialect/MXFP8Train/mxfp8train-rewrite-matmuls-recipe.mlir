// RUN: mxfp8-opt %s --pass-pipeline="builtin.module(mxfp8train-rewrite-matmuls{recipe='elem_type = f8E5M2, scale_calculation_mode = floor' remarks=false})" | FileCheck %s --check-prefix=BODY
// RUN: mxfp8-opt %s --pass-pipeline="builtin.module(mxfp8train-rewrite-matmuls{recipe='#mxfp8train.recipe<mxfp8_rceil_wgrad_with_hp, scale_calculation_mode = ceil>' remarks=true})" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ATTR
// RUN: mxfp8-opt %s --pass-pipeline="builtin.module(mxfp8train-rewrite-matmuls{recipe='kernel_preference = emulated, scale_calculation_mode = even' remarks=false})" | FileCheck %s --check-prefix=EMUL
// RUN: mxfp8-opt %s --mxfp8train-rewrite-matmuls="recipe=' mxfp8_rceil ' remarks=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NAMED

// The recipe option takes a torchao recipe name, the body of a
// #mxfp8train.recipe<...> attribute, or the whole attribute. Its element type
// and scale mode go to every quantize; wgrad_with_hp and kernel_preference
// choose what happens to the matmul.

// BODY-LABEL: func.func @forward_and_wgrad(
// BODY:         mxfp8train.quantize %{{.*}} axis = 1 mode = floor : tensor<64x128xbf16> -> tensor<64x128xf8E5M2>, tensor<64x4xf8E8M0FNU>
// BODY:         mxfp8train.quantize %{{.*}} axis = 1 mode = floor : tensor<256x128xbf16> -> tensor<256x128xf8E5M2>, tensor<256x4xf8E8M0FNU>
// BODY:         mxfp8train.scaled_mm {{.*}} : tensor<64x128xf8E5M2>{{ ?}}[tensor<64x4xf8E8M0FNU>], tensor<256x128xf8E5M2>{{ ?}}[tensor<256x4xf8E8M0FNU>] -> tensor<64x256xbf16>
// BODY:         mxfp8train.quantize %{{.*}} axis = 0 mode = floor : tensor<64x256xbf16> -> tensor<64x256xf8E5M2>
// BODY:         mxfp8train.quantize %{{.*}} axis = 0 mode = floor : tensor<64x128xbf16> -> tensor<64x128xf8E5M2>
// BODY:         mxfp8train.scaled_mm {{.*}} transpose_lhs {mxfp8train.role = "wgrad"}

// A recipe that is not a named one is shown in full in the remarks.
// ATTR: remark: mxfp8train: converted (role forward, lhs quantized along axis 1, rhs along axis 1, recipe #mxfp8train.recipe<scale_calculation_mode = ceil, wgrad_with_hp = true>)
// ATTR: remark: mxfp8train: kept in high precision (role wgrad, recipe wgrad_with_hp = true)

// EMUL-LABEL: func.func @forward_and_wgrad(
// EMUL:         mxfp8train.quantize %{{.*}} axis = 1 mode = even
// EMUL:         mxfp8train.dequantize
// EMUL:         linalg.matmul {{.*}}{mxfp8train.role = "forward"}
// EMUL:         mxfp8train.quantize %{{.*}} axis = 0 mode = even
// EMUL:         linalg.matmul {{.*}}{mxfp8train.role = "wgrad"}
// EMUL-NOT:     mxfp8train.scaled_mm

// NAMED: recipe mxfp8_rceil)
// NAMED: recipe mxfp8_rceil)
func.func @forward_and_wgrad(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %go: tensor<64x256xbf16>) -> (tensor<64x256xbf16>, tensor<256x128xf32>) {
  %zo = arith.constant dense<0.0> : tensor<64x256xbf16>
  %zw = arith.constant dense<0.0> : tensor<256x128xf32>
  %out = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                        affine_map<(m, n, k) -> (n, k)>,
                                        affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<64x128xbf16>, tensor<256x128xbf16>)
      outs(%zo : tensor<64x256xbf16>) -> tensor<64x256xbf16>
  %dw = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>,
                                       affine_map<(m, n, k) -> (k, n)>,
                                       affine_map<(m, n, k) -> (m, n)>]
      ins(%go, %x : tensor<64x256xbf16>, tensor<64x128xbf16>)
      outs(%zw : tensor<256x128xf32>) -> tensor<256x128xf32>
  return %out, %dw : tensor<64x256xbf16>, tensor<256x128xf32>
}
