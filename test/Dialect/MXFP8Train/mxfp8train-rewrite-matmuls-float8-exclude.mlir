// RUN: mxfp8-opt %s --mxfp8train-rewrite-matmuls="recipe=float8_rowwise remarks=true exclude=lm_head" -o /dev/null 2>&1 | FileCheck %s
// RUN: mxfp8-opt %s --mxfp8train-rewrite-matmuls="recipe=float8_rowwise exclude=lm_head" | mxfp8-opt | FileCheck %s --check-prefix=IR

// The exclude filter applies to Float8 recipes as to MX.
// CHECK: model.lm_head: remark: mxfp8train: skipped (location name 'model.lm_head' matches exclude 'lm_head')
// CHECK: remark: mxfp8train: converted (role forward, lhs quantized along axis 1 (f8E4M3FN, axiswise, pow2), rhs along axis 1 (f8E4M3FN, axiswise, pow2), recipe float8_rowwise)
// IR-LABEL: func.func @excluded(
// IR:         linalg.matmul {{.*}} ins(%{{.*}}, %{{.*}} : tensor<16x48xbf16>, tensor<16x48xbf16>)
// IR:         mxfp8train.scaled_mm
func.func @excluded(%c: tensor<16x48xbf16>, %e: tensor<16x48xbf16>) -> (tensor<16x16xf32>, tensor<16x16xf32>) {
  %z = arith.constant dense<0.0> : tensor<16x16xf32>
  %0 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%c, %e : tensor<16x48xbf16>, tensor<16x48xbf16>) outs(%z : tensor<16x16xf32>) -> tensor<16x16xf32> loc("model.lm_head")
  %1 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%c, %e : tensor<16x48xbf16>, tensor<16x48xbf16>) outs(%z : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %0, %1 : tensor<16x16xf32>, tensor<16x16xf32>
}
