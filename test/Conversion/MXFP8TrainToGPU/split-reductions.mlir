// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu="reduction-kernels=false" --split-input-file | FileCheck %s
// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu="split-reductions=false reduction-kernels=false" --split-input-file | FileCheck %s --check-prefix=NOSPLIT
// RUN: mxfp8-opt %s --mxfp8train-lower-to-gpu="format=isa" --split-input-file | FileCheck %s --check-prefix=LOWER

// split-reductions (SplitReductions.cpp): a reduction left to the loop path
// with few parallel points P and a reduction of R >= 1024 iterations becomes
// S parallel partial results (upstream linalg::splitReduction, inner
// parallel: partial s sums elements s, s + S, ...; S the largest divisor of
// R with S <= 2^18 / P and R / S >= 16) and their combination into the
// original init, split again while it qualifies. Without it the loop path
// runs such a reduction on P threads (a scalar: one thread).

// An MSE loss over (16384, 4096) to a scalar (linalg.reduce over both
// dimensions: generalized, the two reduction loops collapsed into one of
// 2^26): 2^18 partial sums of 256 elements, then 2^14, 2^10 and 64 of 16
// each, then one thread over 64 into the loss's init (the unit loop of
// rank-0 results).
// The loop path nests loops in order: every op's parallel loops are moved
// outside its reductions (the partial op reads element (k, s) at loop
// (s, k)), so that the partial results are threads (with the reduction
// outermost it was a host loop launching a kernel per step).
// CHECK-DAG:   #[[$TRANS:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG:   #[[$OUT:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @mse(
// CHECK:         %[[INIT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1xf32>)
// CHECK:         %[[FLAT:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<16384x4096xf32> into tensor<67108864xf32>
// CHECK:         %[[S0:.*]] = tensor.expand_shape %[[FLAT]] {{\[\[}}0, 1]] output_shape [256, 262144]
// CHECK:         %[[P0:.*]] = linalg.generic {indexing_maps = [#[[$TRANS]], #[[$OUT]]], iterator_types = ["parallel", "reduction"]} ins(%[[S0]] : tensor<256x262144xf32>) outs(%{{.*}} : tensor<262144xf32>)
// CHECK:           arith.addf
// CHECK:         tensor.expand_shape %[[P0]] {{\[\[}}0, 1]] output_shape [16, 16384]
// CHECK:         linalg.generic {{.*}} outs(%{{.*}} : tensor<16384xf32>)
// CHECK:         output_shape [16, 1024]
// CHECK:         linalg.generic {{.*}} outs(%{{.*}} : tensor<1024xf32>)
// CHECK:         output_shape [16, 64]
// CHECK:         %[[P3:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<64xf32>)
// CHECK:         %[[L:.*]] = linalg.generic {{{.*}}iterator_types = ["parallel", "reduction"]} ins(%[[P3]] : tensor<64xf32>) outs(%[[INIT]] : tensor<1xf32>)
// CHECK:         tensor.collapse_shape %[[L]] [] : tensor<1xf32> into tensor<f32>
// NOSPLIT-LABEL: func.func @mse(
// NOSPLIT:         linalg.generic {{{.*}}iterator_types = ["parallel", "reduction", "reduction"]} ins(%{{.*}} : tensor<16384x4096xf32>) outs(%{{.*}} : tensor<1xf32>)
// NOSPLIT-NOT:     linalg.generic
// LOWER-LABEL: llvm.func @mse(
func.func @mse(%sq: tensor<16384x4096xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %sum = linalg.reduce ins(%sq : tensor<16384x4096xf32>) outs(%f : tensor<f32>) dimensions = [0, 1]
    (%x: f32, %acc: f32) {
      %n = arith.addf %x, %acc : f32
      linalg.yield %n : f32
    }
  return %sum : tensor<f32>
}

// -----

// A bias gradient's column sums, (16384, 4096) bf16 to 4096 f32 (P = 4096
// threads of 16384 each): 64 partial rows of 256 tokens each, then the 64
// summed per column.
// CHECK-LABEL: func.func @column_sums(
// CHECK:         %[[X:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2]] output_shape [256, 64, 4096] : tensor<16384x4096xbf16> into tensor<256x64x4096xbf16>
// CHECK:         %[[P:.*]] = linalg.generic {{{.*}}iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]] : tensor<256x64x4096xbf16>) outs(%{{.*}} : tensor<64x4096xf32>)
// CHECK:           arith.extf
// CHECK:           arith.addf
// CHECK:         linalg.generic {{{.*}}iterator_types = ["parallel", "reduction"]} ins(%[[P]] : tensor<64x4096xf32>) outs(%{{.*}} : tensor<4096xf32>)
// NOSPLIT-LABEL: func.func @column_sums(
// NOSPLIT:         linalg.generic {{{.*}}iterator_types = ["parallel", "reduction"]} ins(%{{.*}} : tensor<16384x4096xbf16>) outs(%{{.*}} : tensor<4096xf32>)
// LOWER-LABEL: llvm.func @column_sums(
func.func @column_sums(%g: tensor<16384x4096xbf16>) -> tensor<4096xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4096xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4096xf32>) -> tensor<4096xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>], iterator_types = ["reduction", "parallel"]}
      ins(%g : tensor<16384x4096xbf16>) outs(%f : tensor<4096xf32>) {
  ^bb0(%x: bf16, %acc: f32):
    %xf = arith.extf %x : bf16 to f32
    %n = arith.addf %xf, %acc : f32
    linalg.yield %n : f32
  } -> tensor<4096xf32>
  return %s : tensor<4096xf32>
}

// -----

// A row max of 8 rows of 4096 (P = 8): 256 partial maxima per row, filled
// with the combiner's neutral element (-inf), then the 256 per row (too few
// to split again).
// CHECK-LABEL: func.func @row_max(
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<256x8xbf16>
// CHECK-NEXT:    %[[NINF:.*]] = arith.constant 0xFF80 : bf16
// CHECK-NEXT:    %[[F:.*]] = linalg.fill ins(%[[NINF]] : bf16) outs(%[[E]] : tensor<256x8xbf16>)
// CHECK:         linalg.generic {{{.*}}iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}} : tensor<8x16x256xbf16>) outs(%[[F]] : tensor<256x8xbf16>)
// CHECK:           arith.maximumf
// CHECK:         linalg.generic {{{.*}}iterator_types = ["parallel", "reduction"]} ins(%{{.*}} : tensor<256x8xbf16>) outs(%{{.*}} : tensor<8xbf16>)
// LOWER-LABEL: llvm.func @row_max(
func.func @row_max(%x: tensor<8x4096xbf16>) -> tensor<8xbf16> {
  %ninf = arith.constant 0xFF80 : bf16
  %e = tensor.empty() : tensor<8xbf16>
  %f = linalg.fill ins(%ninf : bf16) outs(%e : tensor<8xbf16>) -> tensor<8xbf16>
  %m = linalg.reduce ins(%x : tensor<8x4096xbf16>) outs(%f : tensor<8xbf16>) dimensions = [1]
    (%v: bf16, %acc: bf16) {
      %n = arith.maximumf %v, %acc : bf16
      linalg.yield %n : bf16
    }
  return %m : tensor<8xbf16>
}

// -----

// linalg.dot of 2^20 elements (generalized; the product stays in the
// partial op's body): 2^16 partial sums of 16 products.
// CHECK-LABEL: func.func @dot(
// CHECK:         %[[A:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [16, 65536]
// CHECK:         %[[B:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [16, 65536]
// CHECK:         linalg.generic {{.*}} ins(%[[A]], %[[B]] : tensor<16x65536xf32>, tensor<16x65536xf32>) outs(%{{.*}} : tensor<65536xf32>)
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK-NOT:     linalg.dot
// LOWER-LABEL: llvm.func @dot(
func.func @dot(%a: tensor<1048576xf32>, %b: tensor<1048576xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %d = linalg.dot ins(%a, %b : tensor<1048576xf32>, tensor<1048576xf32>) outs(%f : tensor<f32>) -> tensor<f32>
  return %d : tensor<f32>
}

// -----

// A loss summed over four micro-batches in an scf.for: each row's sum is
// split, its last step writes the rank-0 iter_arg (expanded for its unit
// loop), so the loop still updates its buffer in place.
// CHECK-LABEL: func.func @loop_loss(
// CHECK:         scf.for %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<f32>)
// CHECK:           output_shape [16, 4096]
// CHECK:           %[[U:.*]] = tensor.expand_shape %[[ACC]] [] output_shape [1] : tensor<f32> into tensor<1xf32>
// CHECK:           linalg.generic {{{.*}}iterator_types = ["parallel", "reduction"]} ins(%{{.*}} : tensor<256xf32>) outs(%[[U]] : tensor<1xf32>)
// CHECK-NOT:       linalg.copy
// CHECK:           scf.yield
// LOWER-LABEL: llvm.func @loop_loss(
func.func @loop_loss(%x: tensor<4x65536xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %f) -> tensor<f32> {
    %row = tensor.extract_slice %x[%i, 0] [1, 65536] [1, 1] : tensor<4x65536xf32> to tensor<65536xf32>
    %s = linalg.reduce ins(%row : tensor<65536xf32>) outs(%acc : tensor<f32>) dimensions = [0]
      (%v: f32, %a: f32) {
        %n = arith.addf %v, %a : f32
        linalg.yield %n : f32
      }
    scf.yield %s : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

// Kept serial (one thread per output): a prime reduction extent (4099: no
// divisor), a short one (1000 < 1024), a body reading linalg.index,
// reduction loops that the input's map does not keep contiguous (the
// tensor read transposed), and a keepdim output map `(i, j) -> (i, 0)`
// (upstream's split built an invalid op from its constant).
// CHECK-LABEL: func.func @kept(
// CHECK-NOT:     tensor.expand_shape %{{.*}} {{\[\[}}0, 1]]
// CHECK-COUNT-4: linalg.generic {{{.*}}iterator_types = ["parallel", "reduction"{{.*}}]}
// CHECK:         linalg.generic {{{.*}}iterator_types = ["parallel", "reduction"]} ins(%{{.*}} : tensor<8x4096xf32>) outs(%{{.*}} : tensor<8x1xf32>)
// CHECK-NOT:     linalg.generic
// LOWER-LABEL: llvm.func @kept(
func.func @kept(%p: tensor<4099xf32>, %q: tensor<1000xf32>, %r: tensor<4096xf32>, %t: tensor<4096x64xf32>, %k: tensor<8x4096xf32>)
    -> (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<8x1xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %s0 = linalg.reduce ins(%p : tensor<4099xf32>) outs(%f : tensor<f32>) dimensions = [0]
    (%v: f32, %a: f32) {
      %n = arith.addf %v, %a : f32
      linalg.yield %n : f32
    }
  %s1 = linalg.reduce ins(%q : tensor<1000xf32>) outs(%f : tensor<f32>) dimensions = [0]
    (%v: f32, %a: f32) {
      %n = arith.addf %v, %a : f32
      linalg.yield %n : f32
    }
  %s2 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>], iterator_types = ["reduction"]}
      ins(%r : tensor<4096xf32>) outs(%f : tensor<f32>) {
  ^bb0(%v: f32, %a: f32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i32
    %fi = arith.sitofp %ii : i32 to f32
    %w = arith.mulf %v, %fi : f32
    %n = arith.addf %w, %a : f32
    linalg.yield %n : f32
  } -> tensor<f32>
  %s3 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> ()>], iterator_types = ["reduction", "reduction"]}
      ins(%t : tensor<4096x64xf32>) outs(%f : tensor<f32>) {
  ^bb0(%v: f32, %a: f32):
    %n = arith.addf %v, %a : f32
    linalg.yield %n : f32
  } -> tensor<f32>
  %e1 = tensor.empty() : tensor<8x1xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x1xf32>) -> tensor<8x1xf32>
  %s4 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, 0)>], iterator_types = ["parallel", "reduction"]}
      ins(%k : tensor<8x4096xf32>) outs(%f1 : tensor<8x1xf32>) {
  ^bb0(%v: f32, %a: f32):
    %n = arith.addf %v, %a : f32
    linalg.yield %n : f32
  } -> tensor<8x1xf32>
  return %s0, %s1, %s2, %s3, %s4 : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<8x1xf32>
}

// -----

// A short reduction outside a parallel loop, its body reading the reduction
// index: interchanged (parallel first), the old index 0 is now loop 1
// (upstream's interchange reads it through the permutation); not split
// (64 < 1024).
// CHECK-DAG:   #[[$SECOND:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @weighted_column_sums(
// CHECK:         linalg.generic {{{.*}}iterator_types = ["parallel", "reduction"]} ins(%{{.*}} : tensor<64x32xf32>) outs(%{{.*}} : tensor<32xf32>)
// CHECK:           %[[I0:.*]] = linalg.index 0 : index
// CHECK-NEXT:      %[[I1:.*]] = linalg.index 1 : index
// CHECK-NEXT:      %[[I:.*]] = affine.apply #[[$SECOND]](%[[I0]], %[[I1]])
// CHECK-NEXT:      arith.index_cast %[[I]] : index to i32
// LOWER-LABEL: llvm.func @weighted_column_sums(
func.func @weighted_column_sums(%x: tensor<64x32xf32>) -> tensor<32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<32xf32>) -> tensor<32xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<64x32xf32>) outs(%f : tensor<32xf32>) {
  ^bb0(%v: f32, %a: f32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i32
    %fi = arith.sitofp %ii : i32 to f32
    %w = arith.mulf %v, %fi : f32
    %n = arith.addf %w, %a : f32
    linalg.yield %n : f32
  } -> tensor<32xf32>
  return %s : tensor<32xf32>
}

// -----

// A float sum's partials start from -0.0 (addf's identity; upstream fills
// +0.0, which turned a sum of -0.0 into +0.0): the split and sequential
// sums have the same bits for every input.
// CHECK-LABEL: func.func @signed_zero_sum(
// CHECK:         %[[NZ:.*]] = arith.constant -0.000000e+00 : f32
// CHECK:         %[[P:.*]] = linalg.fill ins(%[[NZ]] : f32) outs(%{{.*}} : tensor<256xf32>)
// CHECK:         linalg.generic {{.*}} outs(%[[P]] : tensor<256xf32>)
// LOWER-LABEL: llvm.func @signed_zero_sum(
func.func @signed_zero_sum(%x: tensor<4096xf32>, %init: tensor<f32>) -> tensor<f32> {
  %s = linalg.reduce ins(%x : tensor<4096xf32>) outs(%init : tensor<f32>) dimensions = [0]
    (%v: f32, %a: f32) {
      %n = arith.addf %v, %a : f32
      linalg.yield %n : f32
    }
  return %s : tensor<f32>
}

// -----

// Not split (found in review): a reduction loop in the init map (a running
// sum along k: upstream's split built an op that does not verify), and a
// named matmul (an f64 one, which no GPU GEMM kernel takes: both devices
// keep the GEMMs' order, the CPU's tiled matmul and the GPU's one thread
// per output).
// CHECK-LABEL: func.func @not_split(
// CHECK-NOT:     tensor.expand_shape
// CHECK:         linalg.generic {{.*}} ins(%{{.*}} : tensor<4x4096xf32>) outs(%{{.*}} : tensor<4x4096xf32>)
// CHECK-NOT:     tensor.expand_shape
// LOWER-LABEL: llvm.func @not_split(
func.func @not_split(%x: tensor<4x4096xf32>, %init: tensor<4x4096xf32>, %a: tensor<2x8192xf64>, %b: tensor<8192x2xf64>, %c: tensor<2x2xf64>)
    -> (tensor<4x4096xf32>, tensor<2x2xf64>) {
  %r = linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i, k)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x4096xf32>) outs(%init : tensor<4x4096xf32>) {
  ^bb0(%v: f32, %o: f32):
    %n = arith.addf %v, %o : f32
    linalg.yield %n : f32
  } -> tensor<4x4096xf32>
  %m = linalg.matmul ins(%a, %b : tensor<2x8192xf64>, tensor<8192x2xf64>) outs(%c : tensor<2x2xf64>) -> tensor<2x2xf64>
  return %r, %m : tensor<4x4096xf32>, tensor<2x2xf64>
}
