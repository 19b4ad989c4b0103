// f64 matmuls through the CPU pipeline: mxfp8train-cpu-prepare-matmuls
// computes in the accumulator's type (linalg.matmul casts both operands to
// it), f64 for an f64 accumulator instead of f32 (which produced an
// invalid arith.truncf f32 -> f64), and truncates an f64 operand of an f32
// matmul as linalg's body does (the mixed form used to reach an invalid
// vector.contract).
//
// RUN: mxfp8-opt %s --mxfp8train-lower-to-cpu | FileCheck %s --check-prefix=LLVM
// LLVM-DAG: llvm.func @f64_accumulator(
// LLVM-DAG: llvm.func @f64_lhs_f32_accumulator(
//
// x = 1 + 2^-40 (not an f32), w = 1, K = 8: the f64 sum is 8 + 2^-37
// = 8 + 7.27596e-12; in f32 it would be exactly 8.
// RUN: mxfp8-run %s --device=cpu --entry=f64_accumulator | FileCheck %s --check-prefix=F64
// F64: 0  d     -     4x4xf64  2.91038e-11  7.27596e-12  -
//
// The f64 operand of an f32 matmul is truncated to f32 (1.0): exactly 8.
// RUN: mxfp8-run %s --device=cpu --entry=f64_lhs_f32_accumulator | FileCheck %s --check-prefix=MIXED
// MIXED: 0  d     -     4x4xf32  0        0        -

func.func @f64_accumulator() -> tensor<4x4xf64> {
  %x = arith.constant dense<1.0000000000009095> : tensor<4x8xf64>
  %w = arith.constant dense<1.0> : tensor<8x4xbf16>
  %z = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<4x4xf64>
  %f = linalg.fill ins(%z : f64) outs(%e : tensor<4x4xf64>) -> tensor<4x4xf64>
  %r = linalg.matmul ins(%x, %w : tensor<4x8xf64>, tensor<8x4xbf16>) outs(%f : tensor<4x4xf64>) -> tensor<4x4xf64>
  %eight = arith.constant dense<8.0> : tensor<4x4xf64>
  %d = arith.subf %r, %eight : tensor<4x4xf64>
  return %d : tensor<4x4xf64>
}

func.func @f64_lhs_f32_accumulator() -> tensor<4x4xf32> {
  %x = arith.constant dense<1.0000000000009095> : tensor<4x8xf64>
  %w = arith.constant dense<1.0> : tensor<4x8xbf16>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<4x8xf64>, tensor<4x8xbf16>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  %eight = arith.constant dense<8.0> : tensor<4x4xf32>
  %d = arith.subf %r, %eight : tensor<4x4xf32>
  return %d : tensor<4x4xf32>
}
