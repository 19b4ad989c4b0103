// Matmuls with a bf16 / f16 accumulator through the CPU pipeline: linalg
// multiplies and adds in the accumulator's type, rounding at every step, so
// mxfp8train-cpu-prepare-matmuls keeps them (it computed in f32 and rounded
// once) and mxfp8train-cpu-tile-and-vectorize leaves them to loops.
//
// RUN: mxfp8-opt %s --mxfp8train-cpu-prepare-matmuls | FileCheck %s --check-prefix=KEPT
// KEPT-LABEL: func.func @bf16_accumulator(
// KEPT:         linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x64xbf16>, tensor<64x4xbf16>) outs(%{{.*}} : tensor<4x4xbf16>)
// KEPT-LABEL: func.func @bf16_accumulator_rhs_nk(
// KEPT:         linalg.matmul indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}] ins(%{{.*}}, %{{.*}} : tensor<4x64xf32>, tensor<4x64xbf16>) outs(%{{.*}} : tensor<4x4xbf16>)
// KEPT-LABEL: func.func @f16_batch_accumulator(
// KEPT:         linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<2x4x64xf16>, tensor<2x64x4xf16>) outs(%{{.*}} : tensor<2x4x4xf16>)
//
// Init 1, 64 products of 2^-8 (bf16) or 2^-11 (f16): each step's 1 + eps
// rounds back to 1 (a tie, to even), so the result is exactly 1 and the
// returned difference 0 (in f32 it would be 0.25 and 0.03125). Columns:
// index, name, role, type, L2 norm, max |x|.
// RUN: mxfp8-run %s --device=cpu --entry=bf16_accumulator | FileCheck %s --check-prefix=ZERO
// RUN: mxfp8-run %s --device=cpu --entry=bf16_accumulator_rhs_nk | FileCheck %s --check-prefix=ZERO
// RUN: mxfp8-run %s --device=cpu --entry=f16_batch_accumulator | FileCheck %s --check-prefix=ZERO
// RUN: mxfp8-run %s --device=cpu --entry=bf16_accumulator --vectorize=false | FileCheck %s --check-prefix=ZERO
// ZERO: 0  d {{.*}} 0        0        -

func.func @bf16_accumulator() -> tensor<4x4xf32> {
  %a = arith.constant dense<1.0> : tensor<4x64xbf16>
  %b = arith.constant dense<0.00390625> : tensor<64x4xbf16>
  %c = arith.constant dense<1.0> : tensor<4x4xbf16>
  %r = linalg.matmul ins(%a, %b : tensor<4x64xbf16>, tensor<64x4xbf16>) outs(%c : tensor<4x4xbf16>) -> tensor<4x4xbf16>
  %e = tensor.empty() : tensor<4x4xf32>
  %d = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%r : tensor<4x4xbf16>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%x: bf16, %o: f32):
    %f = arith.extf %x : bf16 to f32
    %one = arith.constant 1.0 : f32
    %s = arith.subf %f, %one : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  return %d : tensor<4x4xf32>
}

// An f32 lhs of a bf16 matmul is rounded to bf16 first (linalg's body):
// 1 + 2^-10 becomes 1.
func.func @bf16_accumulator_rhs_nk() -> tensor<4x4xf32> {
  %a = arith.constant dense<1.0009765625> : tensor<4x64xf32>
  %b = arith.constant dense<0.00390625> : tensor<4x64xbf16>
  %c = arith.constant dense<1.0> : tensor<4x4xbf16>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : tensor<4x64xf32>, tensor<4x64xbf16>) outs(%c : tensor<4x4xbf16>) -> tensor<4x4xbf16>
  %e = tensor.empty() : tensor<4x4xf32>
  %d = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%r : tensor<4x4xbf16>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%x: bf16, %o: f32):
    %f = arith.extf %x : bf16 to f32
    %one = arith.constant 1.0 : f32
    %s = arith.subf %f, %one : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  return %d : tensor<4x4xf32>
}

func.func @f16_batch_accumulator() -> tensor<2x4x4xf32> {
  %a = arith.constant dense<1.0> : tensor<2x4x64xf16>
  %b = arith.constant dense<0.00048828125> : tensor<2x64x4xf16>
  %c = arith.constant dense<1.0> : tensor<2x4x4xf16>
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x4x64xf16>, tensor<2x64x4xf16>) outs(%c : tensor<2x4x4xf16>) -> tensor<2x4x4xf16>
  %e = tensor.empty() : tensor<2x4x4xf32>
  %d = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%r : tensor<2x4x4xf16>) outs(%e : tensor<2x4x4xf32>) {
  ^bb0(%x: f16, %o: f32):
    %f = arith.extf %x : f16 to f32
    %one = arith.constant 1.0 : f32
    %s = arith.subf %f, %one : f32
    linalg.yield %s : f32
  } -> tensor<2x4x4xf32>
  return %d : tensor<2x4x4xf32>
}
