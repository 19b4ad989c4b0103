// RUN: mxfp8-opt %s -split-input-file --mxfp8train-rewrite-matmuls="recipe=float8_rowwise remarks=true min-size=16" --verify-diagnostics | mxfp8-opt -split-input-file | FileCheck %s

// Why a dense matmul is left in high precision under a Float8 recipe
// (SPEC-float8 §6.1): `torch._scaled_mm` needs K and N multiples of 16
// (K = the tokens of a weight gradient), and the filters of the MX rewrite
// apply unchanged. Shapes that MX would reject (K not a multiple of 32) but
// Float8 accepts are converted.

// CHECK-LABEL: func.func @shape_rules(
// CHECK-COUNT-4: linalg.matmul
// CHECK-NOT:     mxfp8train.{{quantize|scaled_mm}}
func.func @shape_rules(%a: tensor<8x40xbf16>, %b: tensor<16x40xbf16>, %c: tensor<8x48xbf16>, %d: tensor<24x48xbf16>, %e: tensor<16x48xbf16>, %go: tensor<40x16xbf16>, %x: tensor<40x16xbf16>) -> (tensor<8x16xf32>, tensor<8x24xf32>, tensor<8x16xf32>, tensor<16x16xf32>) {
  %z = arith.constant dense<0.0> : tensor<8x16xf32>
  %z24 = arith.constant dense<0.0> : tensor<8x24xf32>
  %zw = arith.constant dense<0.0> : tensor<16x16xf32>
  // expected-remark @below {{mxfp8train: skipped (K = 40 is not a multiple of 16 (torch._scaled_mm))}}
  %0 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : tensor<8x40xbf16>, tensor<16x40xbf16>) outs(%z : tensor<8x16xf32>) -> tensor<8x16xf32>
  // expected-remark @below {{mxfp8train: skipped (N = 24 is not a multiple of 16 (torch._scaled_mm))}}
  %1 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%c, %d : tensor<8x48xbf16>, tensor<24x48xbf16>) outs(%z24 : tensor<8x24xf32>) -> tensor<8x24xf32>
  // M = 8 is free in the forward GEMM, K = 48 is not a multiple of 32 but
  // of 16. min-size applies to M, N and K alike: M = 8 < 16 skips it.
  // expected-remark @below {{mxfp8train: skipped (M = 8 is below min-size 16)}}
  %2 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      {mxfp8train.role = "forward"}
      ins(%c, %e : tensor<8x48xbf16>, tensor<16x48xbf16>) outs(%z : tensor<8x16xf32>) -> tensor<8x16xf32>
  // The weight gradient contracts the 40 tokens: not a multiple of 16.
  // expected-remark @below {{mxfp8train: skipped (K = 40 is not a multiple of 16 (torch._scaled_mm))}}
  %3 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>,
                                      affine_map<(m, n, k) -> (k, n)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%go, %x : tensor<40x16xbf16>, tensor<40x16xbf16>) outs(%zw : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %0, %1, %2, %3 : tensor<8x16xf32>, tensor<8x24xf32>, tensor<8x16xf32>, tensor<16x16xf32>
}

// -----

// CHECK-LABEL: func.func @converted_k48(
// CHECK:         mxfp8train.scaled_mm {{.*}} : tensor<16x48xf8E4M3FN>[tensor<16x1xf32>], tensor<16x48xf8E4M3FN>[tensor<16x1xf32>] -> tensor<16x16xf32>
// CHECK-NOT:     linalg.matmul
func.func @converted_k48(%c: tensor<16x48xbf16>, %e: tensor<16x48xbf16>) -> tensor<16x16xf32> {
  %z = arith.constant dense<0.0> : tensor<16x16xf32>
  // expected-remark @below {{mxfp8train: converted (role forward, lhs quantized along axis 1 (f8E4M3FN, axiswise, pow2), rhs along axis 1 (f8E4M3FN, axiswise, pow2), recipe float8_rowwise)}}
  %0 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%c, %e : tensor<16x48xbf16>, tensor<16x48xbf16>) outs(%z : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %0 : tensor<16x16xf32>
}

// -----

// Sizes the scaled ops cannot take are skipped, never rewritten into ops
// that fail their verifiers: a dynamic size (the remark names the Float8
// scales), and tensors whose byte size overflows int64 (linalg accepts
// them; quantize and scaled_mm verify TensorByteSizesFitInt64): a result of
// 2^32 x 2^32 f32, and an operand of (2^63 - 1) x 16 bf16.

// CHECK-LABEL: func.func @unusable_sizes(
// CHECK-COUNT-3: linalg.matmul
// CHECK-NOT:     mxfp8train.{{quantize|scaled_mm}}
func.func @unusable_sizes(%da: tensor<?x32xbf16>, %db: tensor<16x32xbf16>, %dz: tensor<?x16xf32>,
                          %ba: tensor<4294967296x64xbf16>, %bb: tensor<4294967296x64xbf16>, %bz: tensor<4294967296x4294967296xf32>,
                          %ha: tensor<9223372036854775807x16xbf16>, %hb: tensor<16x16xbf16>, %hz: tensor<9223372036854775807x16xf32>) {
  // expected-remark @below {{mxfp8train: skipped (dynamic shapes; Float8 scales need static sizes)}}
  %0 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%da, %db : tensor<?x32xbf16>, tensor<16x32xbf16>) outs(%dz : tensor<?x16xf32>) -> tensor<?x16xf32>
  // expected-remark @below {{mxfp8train: skipped (the byte size of 'tensor<4294967296x4294967296xf32>' overflows int64)}}
  %1 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%ba, %bb : tensor<4294967296x64xbf16>, tensor<4294967296x64xbf16>) outs(%bz : tensor<4294967296x4294967296xf32>) -> tensor<4294967296x4294967296xf32>
  // expected-remark @below {{mxfp8train: skipped (the byte size of 'tensor<9223372036854775807x16xbf16>' overflows int64)}}
  %2 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%ha, %hb : tensor<9223372036854775807x16xbf16>, tensor<16x16xbf16>) outs(%hz : tensor<9223372036854775807x16xf32>) -> tensor<9223372036854775807x16xf32>
  return
}
