// RUN: rm -rf %t && mkdir -p %t
// RUN: %PYTHON -c "import numpy as np; r = np.random.default_rng(34); [np.save('%t/' + n + '.npy', (r.integers(-8, 9, s) / 4).astype(np.float32)) for n, s in (('a3', (3, 40, 64)), ('a2', (40, 64)), ('b2', (64, 48)), ('b3', (3, 64, 48)), ('x', (32, 64)), ('y', (64, 32)))]; [np.save('%t/' + n + '.npy', r.integers(-128, 128, s).astype(np.int8)) for n, s in (('i', (32, 64)), ('j', (64, 32)))]"
// RUN: mxfp8-run %s --entry=bmm_broadcast_rhs --input=%t/a3.npy --input=%t/b2.npy --output-dir=%t/r > /dev/null
// RUN: mxfp8-run %s --entry=bmm_broadcast_lhs --input=%t/a2.npy --input=%t/b3.npy --output-dir=%t/l > /dev/null
// RUN: mxfp8-run %s --entry=int8_to_f32 --input=%t/i.npy --input=%t/j.npy --output-dir=%t/i8 > /dev/null
// RUN: mxfp8-run %s --entry=bf16_to_i32 --input=%t/x.npy --input=%t/y.npy --output-dir=%t/b > /dev/null
// RUN: %PYTHON -c "import numpy as np; L = lambda n: np.load('%t/' + n + '.npy').astype(np.float64); a3, a2, b2, b3, x, y, i, j = (L(n) for n in ('a3', 'a2', 'b2', 'b3', 'x', 'y', 'i', 'j')); print('rhs', bool((np.load('%t/r/r.npy') == a3 @ b2).all()), 'lhs', bool((np.load('%t/l/r.npy') == a2 @ b3).all()), 'i8', bool((np.load('%t/i8/r.npy') == i @ j).all()), 'i32', bool((np.load('%t/b/r.npy') == np.trunc(x) @ np.trunc(y)).all()))" | FileCheck %s

// Named matmuls the CPU's vector contraction lowering does not take run as
// scalar loops (mxfp8train-cpu-tile-and-vectorize): a batch_matmul with a
// broadcast operand (indexing maps other than the default ones) left a
// vector.contract unlowered, so the JIT failed in its translation
// ("unrealized_conversion_cast"), and matmuls whose operands are not all
// floats or all integers were cast wrongly (i8 x i8 -> f32: "'arith.extf'
// op operand #0 must be floating-point-like"), until session 34 (found by a
// helper's sweep of the rewrite). Values exact against numpy: inputs are
// multiples of 1/4 (or i8), so every product and sum is exact in f32; the
// bf16 -> i32 matmul converts each operand to i32 (toward zero) first, as
// linalg.matmul's body does.
// CHECK: rhs True lhs True i8 True i32 True

func.func @bmm_broadcast_rhs(%a: tensor<3x40x64xbf16>, %b: tensor<64x48xbf16>) -> tensor<3x40x48xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x40x48xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<3x40x48xf32>) -> tensor<3x40x48xf32>
  %r = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (k, n)>, affine_map<(b, m, n, k) -> (b, m, n)>]
      ins(%a, %b : tensor<3x40x64xbf16>, tensor<64x48xbf16>) outs(%c : tensor<3x40x48xf32>) -> tensor<3x40x48xf32>
  return %r : tensor<3x40x48xf32>
}

func.func @bmm_broadcast_lhs(%a: tensor<40x64xbf16>, %b: tensor<3x64x48xbf16>) -> tensor<3x40x48xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x40x48xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<3x40x48xf32>) -> tensor<3x40x48xf32>
  %r = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (m, k)>, affine_map<(b, m, n, k) -> (b, k, n)>, affine_map<(b, m, n, k) -> (b, m, n)>]
      ins(%a, %b : tensor<40x64xbf16>, tensor<3x64x48xbf16>) outs(%c : tensor<3x40x48xf32>) -> tensor<3x40x48xf32>
  return %r : tensor<3x40x48xf32>
}

func.func @int8_to_f32(%a: tensor<32x64xi8>, %b: tensor<64x32xi8>) -> tensor<32x32xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %r = linalg.matmul ins(%a, %b : tensor<32x64xi8>, tensor<64x32xi8>) outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}

func.func @bf16_to_i32(%a: tensor<32x64xbf16>, %b: tensor<64x32xbf16>) -> tensor<32x32xi32> {
  %z = arith.constant 0 : i32
  %e = tensor.empty() : tensor<32x32xi32>
  %c = linalg.fill ins(%z : i32) outs(%e : tensor<32x32xi32>) -> tensor<32x32xi32>
  %r = linalg.matmul ins(%a, %b : tensor<32x64xbf16>, tensor<64x32xbf16>) outs(%c : tensor<32x32xi32>) -> tensor<32x32xi32>
  return %r : tensor<32x32xi32>
}
