// RUN: mxfp8-opt %s --mxfp8train-rewrite-matmuls="min-size=64 exclude=attention,experts.w2" 2>/dev/null | FileCheck %s
// RUN: mxfp8-opt %s --mxfp8train-rewrite-matmuls="min-size=64 exclude=attention,experts.w2 remarks=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: mxfp8-opt %s --mxfp8train-rewrite-matmuls="min-size=64 exclude=attention,experts.w2 remarks=false" -o /dev/null 2>&1 | FileCheck %s --check-prefix=QUIET --allow-empty
// RUN: mxfp8-opt %s --mxfp8train-rewrite-matmuls="min-size=64 exclude=attention,experts.w2" -o /dev/null 2>&1 | FileCheck %s --check-prefix=QUIET --allow-empty
// RUN: mxfp8-opt %s --mxfp8train-rewrite-matmuls 2>/dev/null | FileCheck %s --check-prefix=NOFILTER

// Filters: `min-size` skips matmuls with M, N or K below it; `exclude` skips
// matmuls whose location holds a NameLoc (also inside FusedLoc and
// CallSiteLoc) containing one of the strings (torchao's module-FQN filter).
// Remarks (asked for with `remarks=true`; off by default) are checked on
// stderr: at a bare NameLoc they print at its name (the tools'
// NameLocDiagnostics handler), at a NameLoc around a file position at the
// position.

// CHECK-LABEL: func.func @filters(
// CHECK-SAME:    %[[X:.*]]: tensor<64x128xbf16>
// CHECK:         %[[A:.*]] = linalg.matmul {{.*}} -> tensor<64x256xf32>
// CHECK:         %[[B:.*]] = linalg.matmul {{.*}} -> tensor<64x256xf32>
// CHECK:         %[[C:.*]] = linalg.matmul {{.*}} -> tensor<64x256xf32>
// CHECK:         mxfp8train.scaled_mm {{.*}} -> tensor<64x256xf32>
// CHECK:         %[[D:.*]] = linalg.generic
// CHECK:         %[[E:.*]] = linalg.matmul {{.*}} -> tensor<32x256xf32>
// CHECK:         %[[F:.*]] = linalg.matmul {{.*}} -> tensor<64x32xf32>
// CHECK:         mxfp8train.scaled_mm {{.*}} -> tensor<64x64xf32>
// CHECK:         %[[G:.*]] = linalg.generic
// CHECK:         return %[[A]], %[[B]], %[[C]], %[[D]], %[[E]], %[[F]], %[[G]]

// REMARK: {{^}}layers.0.attention.wq: remark: mxfp8train: skipped (location name 'layers.0.attention.wq' matches exclude 'attention')
// REMARK: {{^}}model.py:3:4: remark: mxfp8train: skipped (location name 'layers.1.experts.w2' matches exclude 'experts.w2')
// REMARK: {{^}}outer(layers.2.attention.wo): remark: mxfp8train: skipped (location name 'layers.2.attention.wo' matches exclude 'attention')
// REMARK: {{^}}layers.1.experts.w1: remark: mxfp8train: converted (role forward
// REMARK: mxfp8train: skipped (M = 32 is below min-size 64)
// REMARK: mxfp8train: skipped (N = 32 is below min-size 64)
// REMARK: mxfp8train: converted (role dgrad

// QUIET-NOT: remark

// NOFILTER-LABEL: func.func @filters(
// NOFILTER-COUNT-7: mxfp8train.scaled_mm
// NOFILTER-NOT:     linalg.matmul
func.func @filters(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %z: tensor<64x256xf32>,
                   %s: tensor<32x128xbf16>, %zs: tensor<32x256xf32>,
                   %n: tensor<32x128xbf16>, %zn: tensor<64x32xf32>,
                   %k: tensor<128x64xbf16>, %zk: tensor<64x64xf32>) -> (tensor<64x256xf32>, tensor<64x256xf32>, tensor<64x256xf32>, tensor<64x256xf32>, tensor<32x256xf32>, tensor<64x32xf32>, tensor<64x64xf32>) {
  %a = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<64x128xbf16>, tensor<256x128xbf16>)
      outs(%z : tensor<64x256xf32>) -> tensor<64x256xf32> loc("layers.0.attention.wq")
  %b = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<64x128xbf16>, tensor<256x128xbf16>)
      outs(%z : tensor<64x256xf32>) -> tensor<64x256xf32> loc(fused["tok", callsite("layers.1.experts.w2" at "model.py":3:4)])
  %c = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<64x128xbf16>, tensor<256x128xbf16>)
      outs(%z : tensor<64x256xf32>) -> tensor<64x256xf32> loc("outer"("layers.2.attention.wo"))
  %d = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<64x128xbf16>, tensor<256x128xbf16>)
      outs(%z : tensor<64x256xf32>) -> tensor<64x256xf32> loc("layers.1.experts.w1")
  %e = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%s, %w : tensor<32x128xbf16>, tensor<256x128xbf16>)
      outs(%zs : tensor<32x256xf32>) -> tensor<32x256xf32>
  %f = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %n : tensor<64x128xbf16>, tensor<32x128xbf16>)
      outs(%zn : tensor<64x32xf32>) -> tensor<64x32xf32>
  %g = linalg.matmul ins(%x, %k : tensor<64x128xbf16>, tensor<128x64xbf16>)
      outs(%zk : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %a, %b, %c, %d, %e, %f, %g : tensor<64x256xf32>, tensor<64x256xf32>, tensor<64x256xf32>, tensor<64x256xf32>, tensor<32x256xf32>, tensor<64x32xf32>, tensor<64x64xf32>
}

// Grouped GEMMs go through the same filters: `exclude` on their NameLoc,
// `min-size` on M (tokens), N and K of a 2d-3d GEMM and on N, K and the
// tokens of a 2d-2d one.
// CHECK-LABEL: func.func @grouped_filters(
// CHECK:         mxfp8train.grouped_mm {{.*}} -> tensor<64x64xbf16>
// CHECK:         mxfp8train.scaled_grouped_mm {{.*}} -> tensor<64x64xbf16>
// CHECK:         mxfp8train.grouped_mm {{.*}} -> tensor<32x64xbf16>
// CHECK:         mxfp8train.grouped_mm {{.*}} -> tensor<2x64x64xbf16>
// REMARK: {{^}}layers.3.experts.w2.fwd: remark: mxfp8train: skipped (location name 'layers.3.experts.w2.fwd' matches exclude 'experts.w2')
// REMARK: {{^}}layers.3.experts.w1.fwd: remark: mxfp8train: converted (grouped 2d-3d, role forward
// REMARK: mxfp8train: skipped (M = 32 is below min-size 64)
// REMARK: mxfp8train: skipped (tokens = 32 is below min-size 64)
// NOFILTER-LABEL: func.func @grouped_filters(
// NOFILTER-COUNT-4: mxfp8train.scaled_grouped_mm
// NOFILTER-NOT:     mxfp8train.grouped_mm
func.func @grouped_filters(%x: tensor<64x128xbf16>, %w: tensor<2x64x128xbf16>, %s: tensor<32x128xbf16>,
                           %do: tensor<32x64xbf16>, %offs: tensor<2xi32>)
    -> (tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<32x64xbf16>, tensor<2x64x64xbf16>) {
  %a = mxfp8train.grouped_mm %x, %w offs(%offs) transpose_rhs
      : tensor<64x128xbf16>, tensor<2x64x128xbf16>, tensor<2xi32> -> tensor<64x64xbf16> loc("layers.3.experts.w2.fwd")
  %b = mxfp8train.grouped_mm %x, %w offs(%offs) transpose_rhs
      : tensor<64x128xbf16>, tensor<2x64x128xbf16>, tensor<2xi32> -> tensor<64x64xbf16> loc("layers.3.experts.w1.fwd")
  %c = mxfp8train.grouped_mm %s, %w offs(%offs) transpose_rhs
      : tensor<32x128xbf16>, tensor<2x64x128xbf16>, tensor<2xi32> -> tensor<32x64xbf16>
  %d = mxfp8train.grouped_mm %do, %do offs(%offs) transpose_lhs
      : tensor<32x64xbf16>, tensor<32x64xbf16>, tensor<2xi32> -> tensor<2x64x64xbf16>
  return %a, %b, %c, %d : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<32x64xbf16>, tensor<2x64x64xbf16>
}

// K below min-size (K = 32 < 64) is skipped as well.
// CHECK-LABEL: func.func @min_size_k(
// CHECK:         linalg.matmul
// CHECK-NOT:     mxfp8train.scaled_mm
// REMARK: remark: mxfp8train: skipped (K = 32 is below min-size 64)
// REMARK-NOT: remark
func.func @min_size_k(%a: tensor<64x32xbf16>, %b: tensor<32x64xbf16>, %z: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<64x32xbf16>, tensor<32x64xbf16>)
      outs(%z : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}
