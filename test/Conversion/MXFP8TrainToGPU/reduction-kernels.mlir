// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu --split-input-file | FileCheck %s
// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu="reduction-kernels=false" --split-input-file | FileCheck %s --check-prefix=OFF
// RUN: mxfp8-opt %s --mxfp8train-lower-to-gpu="format=isa" --split-input-file | FileCheck %s --check-prefix=LOWER

// Linalg reductions the other kernels leave run as reduction kernels
// (ReductionKernels.cpp): a thread per parallel point (grid-stride), the
// accumulator an scf.for iter_arg starting from the init element or the
// init's fill constant (whose own kernel goes away), the reduction loops
// in order with the innermost one's loads of 8 iterations issued before
// the body runs on them in turn, and one store per output. Without
// reduction-kernels they take the loop path (OFF): the linalg op stays.

// A row max of 8 rows of 4096, split into 256 partial maxima per row
// (Conversion/Utils/SplitReductions.h), then combined: two kernels, the
// partial buffer's -inf fill folded into the first, the output's init
// (also -inf) into the second. Consecutive threads take consecutive
// partials (innermost in the input view): coalesced loads.
// CHECK-LABEL: func.func @row_max(
// CHECK-NOT:     linalg.
// CHECK:         %[[XT:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2]] output_shape [8, 16, 256]
// CHECK:         %[[X:.*]] = bufferization.to_buffer %[[XT]]
// CHECK:         %[[P:.*]] = memref.alloc() : memref<256x8xbf16>
// CHECK:         gpu.launch_func @mxfp8train_kernels::@[[K1:reduction_256x8_1r_[0-9a-f]+]] {{.*}} args(%[[X]] : memref<8x16x256xbf16>, %[[P]] : memref<256x8xbf16>)
// CHECK:         gpu.launch_func @mxfp8train_kernels::@[[K2:reduction_8_1r_[0-9a-f]+]] {{.*}} args(%{{.*}} : memref<256x8xbf16>, %{{.*}} : memref<8xbf16>)
// CHECK-NOT:     gpu.launch_func
// CHECK:       gpu.func @[[K1]](%[[IN:.*]]: memref<8x16x256xbf16> {llvm.noalias, llvm.readonly}, %[[OUT:.*]]: memref<256x8xbf16> {llvm.noalias, llvm.writeonly})
// CHECK:         %[[C2048:.*]] = arith.constant 2048 : index
// CHECK:         scf.for %[[T:.*]] = %{{.*}} to %[[C2048]] step
// CHECK:           %[[S:.*]] = arith.remui %[[T]], %{{.*}} : index
// CHECK:           %[[ROW:.*]] = arith.divui %[[T]], %{{.*}} : index
// CHECK:           %[[NINF:.*]] = arith.constant 0xFF80 : bf16
// CHECK:           %[[ACC:.*]] = scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A:.*]] = %[[NINF]]) -> (bf16)
// CHECK-COUNT-8:     memref.load %[[IN]][%[[ROW]], %{{.*}}, %[[S]]] : memref<8x16x256xbf16>
// CHECK:             %[[M0:.*]] = arith.maximumf %{{.*}}, %[[A]] : bf16
// CHECK-COUNT-7:     arith.maximumf
// CHECK-NEXT:        scf.yield
// CHECK:           memref.store %[[ACC]], %[[OUT]][%[[S]], %[[ROW]]] : memref<256x8xbf16>
// CHECK:       gpu.func @[[K2]](
// CHECK:         scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (bf16)
// CHECK-COUNT-8:   memref.load
// OFF-LABEL: func.func @row_max(
// OFF:         linalg.fill
// OFF:         linalg.generic
// OFF-NOT:     @reduction_
// LOWER-LABEL: llvm.func @row_max(
// LOWER-COUNT-2: gpu.launch_func
// LOWER-NOT:     gpu.launch_func
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

// A bias gradient's column sums into an accumulator the caller passes (the
// init is read, not a fill): 300 rows (below the split), consecutive threads
// on consecutive columns (innermost in the input), the init element loaded
// first; 300 = 4 * 75 iterations per step.
// CHECK-LABEL: func.func @accumulate_column_sums(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@[[K:reduction_512_1r_[0-9a-f]+]] {{.*}} args(%{{.*}} : memref<300x512xbf16>, %{{.*}} : memref<512xf32>, %{{.*}} : memref<512xf32>)
// CHECK:       gpu.func @[[K]](%[[G:.*]]: memref<300x512xbf16> {{.*}}, %[[INIT:.*]]: memref<512xf32> {llvm.noalias, llvm.readonly}, %[[OUT:.*]]: memref<512xf32> {llvm.noalias, llvm.writeonly})
// CHECK:         scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step
// CHECK-NOT:       arith.remui
// CHECK:           %[[I:.*]] = memref.load %[[INIT]][%[[J]]] : memref<512xf32>
// CHECK:           %[[C300:.*]] = arith.constant 300 : index
// CHECK:           %[[C4:.*]] = arith.constant 4 : index
// CHECK:           %[[S:.*]] = scf.for %[[R:.*]] = %{{.*}} to %[[C300]] step %[[C4]] iter_args(%[[A:.*]] = %[[I]]) -> (f32)
// CHECK:             memref.load %[[G]][%[[R]], %[[J]]] : memref<300x512xbf16>
// CHECK-COUNT-3:     memref.load %[[G]][%{{.*}}, %[[J]]] : memref<300x512xbf16>
// CHECK:             arith.extf
// CHECK:             arith.addf %{{.*}}, %[[A]] : f32
// CHECK-COUNT-3:     arith.addf
// CHECK:           memref.store %[[S]], %[[OUT]][%[[J]]] : memref<512xf32>
// OFF-LABEL: func.func @accumulate_column_sums(
// OFF:         linalg.generic
// LOWER-LABEL: llvm.func @accumulate_column_sums(
func.func @accumulate_column_sums(%g: tensor<300x512xbf16>, %acc: tensor<512xf32>) -> tensor<512xf32> {
  %s = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>], iterator_types = ["reduction", "parallel"]}
      ins(%g : tensor<300x512xbf16>) outs(%acc : tensor<512xf32>) {
  ^bb0(%x: bf16, %a: f32):
    %xf = arith.extf %x : bf16 to f32
    %n = arith.addf %xf, %a : f32
    linalg.yield %n : f32
  } -> tensor<512xf32>
  return %s : tensor<512xf32>
}

// -----

// A dot of 128 elements to a scalar (rank-0 init and result, viewed as one
// element), the same tensor twice (one kernel argument), and two reduction
// loops of a (4, 6, 5) tensor summed over its first and last dimensions
// with a keepdim output `(i, j, k) -> (0, j)`: loops nested in order, the
// innermost (5) unrolled by 1, the constant index kept.
// CHECK-LABEL: func.func @scalar_and_keepdim(
// CHECK:         %[[UNIT:.*]] = memref.expand_shape %{{.*}} [] output_shape [1] : memref<f32> into memref<1xf32>
// CHECK:         gpu.launch_func @mxfp8train_kernels::@[[DOT:reduction_scalar_1r_[0-9a-f]+]] {{.*}} args(%{{.*}} : memref<128xf32>, %[[UNIT]] : memref<1xf32>)
// CHECK:         gpu.launch_func @mxfp8train_kernels::@[[KEEP:reduction_1x6_2r_[0-9a-f]+]]
// CHECK:       gpu.func @[[DOT]](%[[V:.*]]: memref<128xf32> {{.*}}, %[[O:.*]]: memref<1xf32> {{.*}})
// CHECK:           scf.for %{{.*}} iter_args
// CHECK:             memref.load %[[V]][%[[K:.*]]] : memref<128xf32>
// CHECK-NEXT:        memref.load %[[V]][%[[K]]] : memref<128xf32>
// CHECK:             arith.mulf
// CHECK:           memref.store %{{.*}}, %[[O]][%{{.*}}] : memref<1xf32>
// CHECK:       gpu.func @[[KEEP]](%[[T:.*]]: memref<4x6x5xf32> {{.*}}, %[[KO:.*]]: memref<1x6xf32> {{.*}})
// CHECK:         scf.for %[[J:.*]] =
// CHECK:           scf.for %[[I:.*]] = {{.*}} iter_args
// CHECK:             scf.for %[[K:.*]] = {{.*}} iter_args
// CHECK-NEXT:          memref.load %[[T]][%[[I]], %[[J]], %[[K]]] : memref<4x6x5xf32>
// CHECK:           memref.store %{{.*}}, %[[KO]][%{{.*}}, %[[J]]] : memref<1x6xf32>
// LOWER-LABEL: llvm.func @scalar_and_keepdim(
// LOWER-COUNT-2: gpu.launch_func
func.func @scalar_and_keepdim(%v: tensor<128xf32>, %t: tensor<4x6x5xf32>) -> (tensor<f32>, tensor<1x6xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %d = linalg.dot ins(%v, %v : tensor<128xf32>, tensor<128xf32>) outs(%f : tensor<f32>) -> tensor<f32>
  %e2 = tensor.empty() : tensor<1x6xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x6xf32>) -> tensor<1x6xf32>
  %k = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, j, k)>, affine_map<(i, j, k) -> (0, j)>], iterator_types = ["reduction", "parallel", "reduction"]}
      ins(%t : tensor<4x6x5xf32>) outs(%f2 : tensor<1x6xf32>) {
  ^bb0(%x: f32, %a: f32):
    %n = arith.addf %x, %a : f32
    linalg.yield %n : f32
  } -> tensor<1x6xf32>
  return %d, %k : tensor<f32>, tensor<1x6xf32>
}

// -----

// Kept on the loop path: a body reading linalg.index, and an i1 operand.
// CHECK-LABEL: func.func @kept(
// CHECK-COUNT-2: linalg.generic
// CHECK-NOT:     @reduction_
// LOWER-LABEL: llvm.func @kept(
func.func @kept(%x: tensor<64x32xf32>, %b: tensor<64x32xi1>) -> (tensor<32xf32>, tensor<32xi32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<32xf32>) -> tensor<32xf32>
  %w = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<64x32xf32>) outs(%f : tensor<32xf32>) {
  ^bb0(%v: f32, %a: f32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i32
    %fi = arith.sitofp %ii : i32 to f32
    %m = arith.mulf %v, %fi : f32
    %n = arith.addf %m, %a : f32
    linalg.yield %n : f32
  } -> tensor<32xf32>
  %z = arith.constant 0 : i32
  %e2 = tensor.empty() : tensor<32xi32>
  %f2 = linalg.fill ins(%z : i32) outs(%e2 : tensor<32xi32>) -> tensor<32xi32>
  %c = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>], iterator_types = ["reduction", "parallel"]}
      ins(%b : tensor<64x32xi1>) outs(%f2 : tensor<32xi32>) {
  ^bb0(%v: i1, %a: i32):
    %vi = arith.extui %v : i1 to i32
    %n = arith.addi %vi, %a : i32
    linalg.yield %n : i32
  } -> tensor<32xi32>
  return %w, %c : tensor<32xf32>, tensor<32xi32>
}

// -----

// Also kept: init maps under which a thread would not own its result
// elements (found in review): a constant index into a dimension wider than
// one (the other column would stay unwritten), a reduction loop in the init
// map, a diagonal, a parallel loop missing from it (threads would race).
// CHECK-LABEL: func.func @init_maps_kept(
// CHECK-COUNT-4: linalg.generic
// CHECK-NOT:     @reduction_
// LOWER-LABEL: llvm.func @init_maps_kept(
func.func @init_maps_kept(%x: tensor<4x8xf32>, %w: tensor<4x2xf32>, %s: tensor<4x8xf32>, %d: tensor<4x4xf32>,
                          %y: tensor<4x3x8xf32>, %v: tensor<4xf32>)
    -> (tensor<4x2xf32>, tensor<4x8xf32>, tensor<4x4xf32>, tensor<4xf32>) {
  %wide = linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i, 0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%w : tensor<4x2xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.addf %a, %o : f32
    linalg.yield %n : f32
  } -> tensor<4x2xf32>
  %scan = linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i, k)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%s : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.addf %a, %o : f32
    linalg.yield %n : f32
  } -> tensor<4x8xf32>
  %diag = linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i, i)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%d : tensor<4x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.addf %a, %o : f32
    linalg.yield %n : f32
  } -> tensor<4x4xf32>
  %race = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, j, k)>, affine_map<(i, j, k) -> (i)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%y : tensor<4x3x8xf32>) outs(%v : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.addf %a, %o : f32
    linalg.yield %n : f32
  } -> tensor<4xf32>
  return %wide, %scan, %diag, %race : tensor<4x2xf32>, tensor<4x8xf32>, tensor<4x4xf32>, tensor<4xf32>
}

// -----

// An MSE loss: the squares' elementwise generic, read only by the sum, is
// fused into it (upstream linalg::fuseElementwiseOps): no elementwise
// kernel, the squares never written; the split's first level reads y and t
// and evaluates the subtraction and the square, then adds. The squares of
// %u also feed a second reduction: not fused, their own kernel.
// CHECK-LABEL: func.func @mse(
// CHECK-NOT:     @elementwise_
// CHECK:         gpu.launch_func @mxfp8train_kernels::@[[L1:reduction_8192_1r_[0-9a-f]+]] {{.*}} args(%{{.*}} : memref<16x8192xf32>, %{{.*}} : memref<16x8192xf32>, %{{.*}} : memref<8192xf32>)
// CHECK:         gpu.launch_func @mxfp8train_kernels::@elementwise_
// CHECK:       gpu.func @[[L1]](%[[Y:.*]]: memref<16x8192xf32> {{.*}}, %[[T:.*]]: memref<16x8192xf32> {{.*}}, %{{.*}}: memref<8192xf32> {{.*}})
// CHECK:           scf.for
// CHECK:             memref.load %[[Y]]
// CHECK-NEXT:        memref.load %[[T]]
// CHECK:             %[[D:.*]] = arith.subf
// CHECK-NEXT:        %[[S:.*]] = arith.mulf %[[D]], %[[D]] : f32
// CHECK-NEXT:        arith.addf %[[S]], %{{.*}} : f32
// OFF-LABEL: func.func @mse(
// OFF:         gpu.launch_func @mxfp8train_kernels::@elementwise_
// LOWER-LABEL: llvm.func @mse(
func.func @mse(%y: tensor<131072xf32>, %t: tensor<131072xf32>, %u: tensor<64x64xf32>)
    -> (tensor<f32>, tensor<f32>, tensor<64xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<131072xf32>
  %sq = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%y, %t : tensor<131072xf32>, tensor<131072xf32>) outs(%e : tensor<131072xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    %s = arith.mulf %d, %d : f32
    linalg.yield %s : f32
  } -> tensor<131072xf32>
  %es = tensor.empty() : tensor<f32>
  %fs = linalg.fill ins(%zero : f32) outs(%es : tensor<f32>) -> tensor<f32>
  %loss = linalg.reduce ins(%sq : tensor<131072xf32>) outs(%fs : tensor<f32>) dimensions = [0]
    (%x: f32, %acc: f32) {
      %n = arith.addf %x, %acc : f32
      linalg.yield %n : f32
    }
  %eu = tensor.empty() : tensor<64x64xf32>
  %squ = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%u : tensor<64x64xf32>) outs(%eu : tensor<64x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.mulf %a, %a : f32
    linalg.yield %s : f32
  } -> tensor<64x64xf32>
  %total = linalg.reduce ins(%squ : tensor<64x64xf32>) outs(%fs : tensor<f32>) dimensions = [0, 1]
    (%x: f32, %acc: f32) {
      %n = arith.addf %x, %acc : f32
      linalg.yield %n : f32
    }
  %e64 = tensor.empty() : tensor<64xf32>
  %f64 = linalg.fill ins(%zero : f32) outs(%e64 : tensor<64xf32>) -> tensor<64xf32>
  %rows = linalg.reduce ins(%squ : tensor<64x64xf32>) outs(%f64 : tensor<64xf32>) dimensions = [1]
    (%x: f32, %acc: f32) {
      %n = arith.addf %x, %acc : f32
      linalg.yield %n : f32
    }
  return %loss, %total, %rows : tensor<f32>, tensor<f32>, tensor<64xf32>
}

// -----

// A producer read through a broadcast (each of its elements by every row
// of the reduction) is not fused: its body would run once per read.
// CHECK-LABEL: func.func @broadcast_read(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@elementwise_64_1in_1out_
// CHECK:         gpu.launch_func @mxfp8train_kernels::@reduction_32_1r_
// CHECK:       gpu.func @reduction_32_1r_
// CHECK-NOT:     math.exp
// CHECK:         gpu.return
// LOWER-LABEL: llvm.func @broadcast_read(
func.func @broadcast_read(%x: tensor<64xf32>, %w: tensor<32x64xf32>) -> tensor<32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %ex = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.exp %a : f32
    linalg.yield %v : f32
  } -> tensor<64xf32>
  %e2 = tensor.empty() : tensor<32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e2 : tensor<32xf32>) -> tensor<32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%ex, %w : tensor<64xf32>, tensor<32x64xf32>) outs(%f : tensor<32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.maximumf %a, %b : f32
    %n = arith.addf %m, %o : f32
    linalg.yield %n : f32
  } -> tensor<32xf32>
  return %r : tensor<32xf32>
}

// -----

// In an scf.while a reduction is a reduction kernel too, its new buffer
// copied into the after region's argument as for an scf.for's iter_args
// (RemainingOps.cpp). Until session 33 it kept the loop path there (the
// while loop could not carry the kernel's buffer: "this tensor is yielded
// out of 'scf.while'", found by a helper's tests in session 32).
// CHECK-LABEL: func.func @in_while(
// CHECK:         scf.while
// CHECK:         ^bb0(%{{.*}}: index, %[[ACC:.*]]: tensor<4xf32>):
// CHECK:           %[[S:.*]] = bufferization.to_tensor
// CHECK:           %[[COPY:.*]] = linalg.copy ins(%[[S]] : tensor<4xf32>) outs(%[[ACC]] : tensor<4xf32>)
// CHECK:           scf.yield %{{.*}}, %[[COPY]]
// LOWER-LABEL: llvm.func @in_while(
func.func @in_while(%x: tensor<4x16xf32>, %a0: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r:2 = scf.while (%n = %c0, %acc = %a0) : (index, tensor<4xf32>) -> (index, tensor<4xf32>) {
    %c = arith.cmpi slt, %n, %c3 : index
    scf.condition(%c) %n, %acc : index, tensor<4xf32>
  } do {
  ^bb0(%n2: index, %acc2: tensor<4xf32>):
    %s = linalg.reduce ins(%x : tensor<4x16xf32>) outs(%acc2 : tensor<4xf32>) dimensions = [1]
      (%a: f32, %b: f32) {
        %t = arith.addf %a, %b : f32
        linalg.yield %t : f32
      }
    %nn = arith.addi %n2, %c1 : index
    scf.yield %nn, %s : index, tensor<4xf32>
  }
  return %r#1 : tensor<4xf32>
}
