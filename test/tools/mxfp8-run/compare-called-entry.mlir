// --compare of an entry that another function of the file calls (a test
// driver's @main, as mlir-runner files have): the per-matmul probe gives
// the entry more results, so the callers keep calling the original,
// renamed and private ("internal: the per-matmul probe module does not
// verify" before). --per-matmul=false never needed it.
//
// RUN: mxfp8-run %s --entry=linear --compare | FileCheck %s
// CHECK: matmuls (each converted alone on the original's inputs):
// CHECK: compare-called-entry.mlir:{{[0-9]+}}:8  forward  32x32xf32 {{.*}} PASS
// CHECK: bars: 1 passed, 0 failed
// The probe is built the same way for mxfp8-compile's manifests.
// RUN: mxfp8-compile %s --entry=linear --per-matmul=mxfp8_rceil -o %t.o --manifest=%t.manifest
// RUN: FileCheck %s --input-file=%t.manifest --check-prefix=MANIFEST
// MANIFEST:      func linear args=2 results=3
// MANIFEST:        result 2 compare-called-entry.mlir:{{[0-9]+}}:8 32x32xf32 role=matmul_forward bar=27

func.func @linear(%x: tensor<32x64xbf16>, %w: tensor<32x64xbf16>) -> tensor<32x32xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %y = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<32x64xbf16>, tensor<32x64xbf16>) outs(%f : tensor<32x32xf32>) -> tensor<32x32xf32>
  return %y : tensor<32x32xf32>
}

func.func @main(%x: tensor<32x64xbf16>, %w: tensor<32x64xbf16>) -> tensor<32x32xf32> {
  %y = func.call @linear(%x, %w) : (tensor<32x64xbf16>, tensor<32x64xbf16>) -> tensor<32x32xf32>
  return %y : tensor<32x32xf32>
}
