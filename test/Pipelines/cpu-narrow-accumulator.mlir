// Matmuls with a bf16 / f16 accumulator through the CPU pipeline:
// mxfp8train-cpu-prepare-matmuls sums them in f32 and rounds to the
// accumulator's type once, as torch's bf16 matmul and the GPU kernels do
// (Passes.td, docs/robustness.md), not at every step as linalg's body
// reads.
//
// RUN: mxfp8-opt %s --mxfp8train-cpu-prepare-matmuls | FileCheck %s --check-prefix=F32
// F32-LABEL: func.func @bf16_accumulator(
// F32:         linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x64xf32>, tensor<64x4xf32>) outs(%{{.*}} : tensor<4x4xf32>)
// F32:         arith.truncf %{{.*}} : f32 to bf16
// F32-LABEL: func.func @bf16_accumulator_rhs_nk(
// F32:         linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x64xf32>, tensor<64x4xf32>) outs(%{{.*}} : tensor<4x4xf32>)
// F32-LABEL: func.func @f16_batch_accumulator(
// F32:         linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<2x4x64xf32>, tensor<2x64x4xf32>) outs(%{{.*}} : tensor<2x4x4xf32>)
// F32:         arith.truncf %{{.*}} : f32 to f16
// F32-LABEL: func.func @bf16_accumulator_generic(
// F32:         linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x64xf32>, tensor<64x4xf32>) outs(%{{.*}} : tensor<4x4xf32>)
// F32:         arith.truncf %{{.*}} : f32 to bf16
// F32-LABEL: func.func @generic_negated_operand(
// F32-NOT:     linalg.matmul
// F32:         arith.negf
//
// Init 1 plus 64 products of 2^-8 (bf16) or 2^-11 (f16): 1.25 and
// 1.03125 in f32, exact in the accumulator's type too, so the returned
// difference from 1 is 0.25 (max |x| 0.25; L2 norm of 16 of them 1) and
// 0.03125 (L2 norm of 32: 0.176777). Rounding at every step would give 1
// (each 1 + eps is a tie, to even) and a difference of 0. An f32 lhs of a
// bf16 matmul is used as f32 (1 + 2^-10): 1.25024 rounds to 1.25 in bf16.
// Columns: index, name, role, type, L2 norm, max |x|.
// RUN: mxfp8-run %s --device=cpu --entry=bf16_accumulator | FileCheck %s --check-prefix=BF16
// RUN: mxfp8-run %s --device=cpu --entry=bf16_accumulator --vectorize=false | FileCheck %s --check-prefix=BF16
// RUN: mxfp8-run %s --device=cpu --entry=bf16_accumulator_rhs_nk | FileCheck %s --check-prefix=BF16
// A linalg.generic written as out + x * y in bf16 is the same contraction
// (the GPU kernels take it too: Contraction.h), so it sums the same way.
// RUN: mxfp8-run %s --device=cpu --entry=bf16_accumulator_generic | FileCheck %s --check-prefix=BF16
// BF16: 0  d {{.*}} 4x4xf32  1        0.25     -
// RUN: mxfp8-run %s --device=cpu --entry=f16_batch_accumulator | FileCheck %s --check-prefix=F16
// F16: 0  d {{.*}} 2x4x4xf32  0.176777  0.03125  -

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

func.func @bf16_accumulator_generic() -> tensor<4x4xf32> {
  %a = arith.constant dense<1.0> : tensor<4x64xbf16>
  %b = arith.constant dense<0.00390625> : tensor<64x4xbf16>
  %c = arith.constant dense<1.0> : tensor<4x4xbf16>
  %r = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<4x64xbf16>, tensor<64x4xbf16>) outs(%c : tensor<4x4xbf16>) {
  ^bb0(%x: bf16, %y: bf16, %o: bf16):
    %m = arith.mulf %x, %y : bf16
    %s = arith.addf %o, %m : bf16
    linalg.yield %s : bf16
  } -> tensor<4x4xbf16>
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

// Not a multiply-accumulate body (a negated operand): left as written.
func.func @generic_negated_operand(%a: tensor<4x64xf32>, %b: tensor<64x4xf32>, %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<4x64xf32>, tensor<64x4xf32>) outs(%c : tensor<4x4xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %n = arith.negf %y : f32
    %m = arith.mulf %x, %n : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}
