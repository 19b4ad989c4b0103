// Long reductions in the CPU pipeline. mxfp8train-cpu-split-reductions
// splits one with few outputs into partial sums with the GPU pipeline's
// schedule (Conversion/Utils/SplitReductions.h); what it leaves (here a
// tensor read transposed: its reduction loops are not contiguous in the
// map) mxfp8train-cpu-tile-and-vectorize tiles along the innermost
// reduction loop to vectors of 16 with the running value carried through
// the output, for every combiner (it was for max only: a sum kept whole
// vectorized to one vector of the whole extent, which LLVM unrolls; a sum
// over 64 x 96 took 4 s to compile, over 4096 x 64 it did not finish in 10
// minutes). The results are, bit for bit, the split schedule's sum and the
// sequential sum in the loops' order (Inputs/reduction_order.py
// emulates both in numpy).
//
// RUN: mxfp8-opt %s --mxfp8train-cpu-split-reductions --mxfp8train-cpu-tile-and-vectorize | FileCheck %s
// RUN: rm -rf %t && mkdir -p %t
// RUN: %PYTHON %S/Inputs/reduction_order.py make %t/rows.npy 64 96 3
// RUN: %PYTHON %S/Inputs/reduction_order.py make %t/cols.npy 4096 64 5
// RUN: mxfp8-run %s --entry=sum_rows --input=%t/rows.npy --output-dir=%t/r > /dev/null
// RUN: %PYTHON %S/Inputs/reduction_order.py check %t/rows.npy %t/r/s.npy split | FileCheck %s --check-prefix=ORDER
// RUN: mxfp8-run %s --entry=sum_transposed --input=%t/cols.npy --output-dir=%t/c > /dev/null
// RUN: %PYTHON %S/Inputs/reduction_order.py check %t/cols.npy %t/c/s.npy cols | FileCheck %s --check-prefix=ORDER
// ORDER: OK

// 6144 elements: 384 partial sums of 16 (vectors of 4 partials, 16
// elements each: at most 64 elements per straight-line block), then the
// 384 in order (too few to split again), 16 at a time.
// CHECK-LABEL: func.func @sum_rows(
// CHECK:         scf.for %{{.*}} = %c0 to %c384 step %c4
// CHECK:           vector.multi_reduction <add>, %{{.*}}, %{{.*}} [0] : vector<16x4xf32> to vector<4xf32>
// CHECK:         scf.for %{{.*}} = %c0 to %c384 step %c16
// CHECK:           vector.multi_reduction <add>, %{{.*}}, %{{.*}} [0] : vector<16xf32> to f32
// CHECK-NOT:     vector<64x96xf32>
func.func @sum_rows(%x: tensor<64x96xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %s = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>], iterator_types = ["reduction", "reduction"]}
      ins(%x : tensor<64x96xf32>) outs(%f : tensor<f32>) {
  ^bb0(%v: f32, %acc: f32):
    %n = arith.addf %v, %acc : f32
    linalg.yield %n : f32
  } -> tensor<f32>
  return %s : tensor<f32>
}

// The tensor read transposed (loop i over its 64 columns, j over its 4096
// rows; not split): the sum runs down each column in turn.
// CHECK-LABEL: func.func @sum_transposed(
// CHECK:         scf.for %{{.*}} = %c0 to %c64 step %c1
// CHECK:           scf.for %{{.*}} = %c0 to %c4096 step %c16
// CHECK-NOT:     vector<4096x64xf32>
func.func @sum_transposed(%x: tensor<4096x64xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %s = linalg.generic {indexing_maps = [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> ()>], iterator_types = ["reduction", "reduction"]}
      ins(%x : tensor<4096x64xf32>) outs(%f : tensor<f32>) {
  ^bb0(%v: f32, %acc: f32):
    %n = arith.addf %v, %acc : f32
    linalg.yield %n : f32
  } -> tensor<f32>
  return %s : tensor<f32>
}

// Column sums over 4096 rows with 4 outputs (the tiling alone, without the
// split pass): a long reduction
// whose innermost loop is parallel steps its reduction by one with a vector
// along the columns (it was kept whole: a vector<4096x4> per op, which made
// the Llama CPU step's lowering 40 s and 410 MB of IR).
// RUN: mxfp8-opt %s --mxfp8train-cpu-tile-and-vectorize | FileCheck %s --check-prefix=COLS
// COLS-LABEL: func.func @column_sums(
// COLS:         scf.for %{{.*}} = %c0 to %c4096 step %c1
// COLS:           vector.multi_reduction <add>, %{{.*}}, %{{.*}} [0] : vector<1x4xf32> to vector<4xf32>
// COLS-NOT:     vector<4096x4xf32>
func.func @column_sums(%x: tensor<4096x4xf32>) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<4096x4xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %n = arith.addf %v, %acc : f32
    linalg.yield %n : f32
  } -> tensor<4xf32>
  return %s : tensor<4xf32>
}
