// RUN: mxfp8-opt %s --convert-elementwise-to-linalg --convert-mxfp8train-to-gpu="reduction-kernels=false" --split-input-file | FileCheck %s
// RUN: mxfp8-opt %s --mxfp8train-lower-to-gpu="chip=sm_90a format=isa" --split-input-file | FileCheck %s --check-prefix=LOWER

// What convert-mxfp8train-to-gpu leaves to upstream's loop path
// (RemainingOps.cpp). Linalg ops without a parallel loop (rank-0 results) get a unit parallel
// loop, so that convert-linalg-to-parallel-loops gives them a kernel (they
// failed with "'memref.load' would access device memory from the host").
// A kernel result that an scf.for yields is copied into the loop's
// iter_arg, so that the loop updates its buffer in place (it failed with
// "this tensor is yielded out of 'scf.for'"). The whole pipeline lowers
// each function to LLVM (mxfp8-opt verifies after every pass).

// CHECK-DAG:   #[[$SCALAR:.*]] = affine_map<(d0) -> ()>
// CHECK-DAG:   #[[$UNIT:.*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @scalar_mul(
// CHECK-SAME:    %[[A:.*]]: tensor<f32>, %[[B:.*]]: tensor<f32>
// CHECK:         %[[U:.*]] = tensor.expand_shape %[[A]] [] output_shape [1] : tensor<f32> into tensor<1xf32>
// CHECK:         %[[G:.*]] = linalg.generic {indexing_maps = [#[[$SCALAR]], #[[$SCALAR]], #[[$UNIT]]], iterator_types = ["parallel"]} ins(%[[A]], %[[B]] : tensor<f32>, tensor<f32>) outs(%[[U]] : tensor<1xf32>)
// CHECK:           arith.mulf
// CHECK:         %[[R:.*]] = tensor.collapse_shape %[[G]] [] : tensor<1xf32> into tensor<f32>
// CHECK:         return %[[R]]
// LOWER-LABEL: llvm.func @scalar_mul(
func.func @scalar_mul(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %r = arith.mulf %a, %b : tensor<f32>
  return %r : tensor<f32>
}

// -----

// A fill of a scalar and a reduction into it (a loss); the reduction keeps
// its loops inside the unit one, linalg.index renumbered; the fill's
// collapse and the reduction's expand fold away.
// CHECK-DAG:   #[[$IN:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG:   #[[$OUT:.*]] = affine_map<(d0, d1, d2) -> (d0)>
// CHECK-LABEL: func.func @loss(
// CHECK:         %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1xf32>) -> tensor<1xf32>
// CHECK:         linalg.generic {indexing_maps = [#[[$IN]], #[[$OUT]]], iterator_types = ["parallel", "reduction", "reduction"]} ins(%{{.*}} : tensor<64x96xf32>) outs(%[[F]] : tensor<1xf32>)
// CHECK:           linalg.index 2 : index
// CHECK:         tensor.collapse_shape
// LOWER-LABEL: llvm.func @loss(
func.func @loss(%x: tensor<64x96xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>],
                       iterator_types = ["reduction", "reduction"]}
      ins(%x : tensor<64x96xf32>) outs(%f : tensor<f32>) {
  ^bb0(%v: f32, %acc: f32):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i32
    %jf = arith.sitofp %ji : i32 to f32
    %w = arith.mulf %v, %jf : f32
    %s = arith.addf %w, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// A named op with a rank-0 result (linalg.dot; 128 elements, too short to
// split: split-reductions.mlir) is generalized first.
// CHECK-LABEL: func.func @dot(
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK-SAME:      outs(%{{.*}} : tensor<1xf32>)
// CHECK-NOT:     linalg.dot
// LOWER-LABEL: llvm.func @dot(
func.func @dot(%a: tensor<128xf32>, %b: tensor<128xf32>, %c: tensor<f32>) -> tensor<f32> {
  %r = linalg.dot ins(%a, %b : tensor<128xf32>, tensor<128xf32>) outs(%c : tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// Gradient accumulation: the GEMM's result (a new buffer) is copied into
// the iter_arg; the GEMM reads the iter_arg as its init.
// CHECK-LABEL: func.func @grad_accum(
// CHECK:         scf.for %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<256x256xf32>)
// CHECK:           bufferization.to_buffer %[[ACC]] read_only
// CHECK:           gpu.launch_func @mxfp8train_kernels::@hp_mm_
// CHECK:           %[[G:.*]] = bufferization.to_tensor %{{.*}} restrict writable
// CHECK:           %[[C:.*]] = linalg.copy ins(%[[G]] : tensor<256x256xf32>) outs(%[[ACC]] : tensor<256x256xf32>)
// CHECK:           scf.yield %[[C]]
// LOWER-LABEL: llvm.func @grad_accum(
func.func @grad_accum(%x: tensor<256x256xbf16>, %w: tensor<256x256xbf16>, %init: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %init) -> tensor<256x256xf32> {
    %m = linalg.matmul ins(%x, %w : tensor<256x256xbf16>, tensor<256x256xbf16>) outs(%acc : tensor<256x256xf32>) -> tensor<256x256xf32>
    scf.yield %m : tensor<256x256xf32>
  }
  return %r : tensor<256x256xf32>
}

// -----

// A yielded quantize result, reshaped after the kernel: copied too.
// CHECK-LABEL: func.func @quantize_loop(
// CHECK:           %[[Q:.*]] = tensor.collapse_shape
// CHECK:           %[[C:.*]] = linalg.copy ins(%[[Q]] : tensor<2048xf8E4M3FN>) outs(%{{.*}} : tensor<2048xf8E4M3FN>)
// CHECK:           scf.yield %[[C]]
// LOWER-LABEL: llvm.func @quantize_loop(
func.func @quantize_loop(%x: tensor<64x32xbf16>, %init: tensor<2048xf8E4M3FN>) -> tensor<2048xf8E4M3FN> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %init) -> tensor<2048xf8E4M3FN> {
    %q, %s = mxfp8train.quantize %x axis = 1 mode = rceil : tensor<64x32xbf16> -> tensor<64x32xf8E4M3FN>, tensor<64x1xf8E8M0FNU>
    %f = tensor.collapse_shape %q [[0, 1]] : tensor<64x32xf8E4M3FN> into tensor<2048xf8E4M3FN>
    scf.yield %f : tensor<2048xf8E4M3FN>
  }
  return %r : tensor<2048xf8E4M3FN>
}

// -----

// An update that reads a scalar of the loop (w * float(k + 1), as Adam's
// bias correction) stays for the loop path and writes into a tensor.empty:
// copied into the iter_arg too (it was rejected). An update that writes
// its iter_arg in place is left alone.
// CHECK-LABEL: func.func @captured_scalar_update(
// CHECK:         scf.for %{{.*}} iter_args(%[[W:.*]] = %{{.*}}, %[[V:.*]] = %{{.*}}) -> (tensor<32x64xf32>, tensor<32x64xf32>)
// CHECK:           %[[U:.*]] = linalg.generic {{.*}} ins(%[[W]] : tensor<32x64xf32>) outs(%{{.*}} : tensor<32x64xf32>)
// CHECK:           %[[IN:.*]] = linalg.generic {{.*}} ins(%[[V]] : tensor<32x64xf32>) outs(%[[V]] : tensor<32x64xf32>)
// CHECK:           %[[C:.*]] = linalg.copy ins(%[[U]] : tensor<32x64xf32>) outs(%[[W]] : tensor<32x64xf32>)
// CHECK-NOT:       linalg.copy
// CHECK:           scf.yield %[[C]], %[[IN]]
// LOWER-LABEL: llvm.func @captured_scalar_update(
#id = affine_map<(i, j) -> (i, j)>
func.func @captured_scalar_update(%w0: tensor<32x64xf32>, %v0: tensor<32x64xf32>) -> (tensor<32x64xf32>, tensor<32x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %e = tensor.empty() : tensor<32x64xf32>
  %r:2 = scf.for %k = %c0 to %c3 step %c1 iter_args(%w = %w0, %v = %v0) -> (tensor<32x64xf32>, tensor<32x64xf32>) {
    %k1 = arith.addi %k, %c1 : index
    %ki = arith.index_cast %k1 : index to i32
    %t = arith.sitofp %ki : i32 to f32
    %u = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%w : tensor<32x64xf32>) outs(%e : tensor<32x64xf32>) {
    ^bb0(%a: f32, %o: f32):
      %m = arith.mulf %a, %t : f32
      linalg.yield %m : f32
    } -> tensor<32x64xf32>
    %in = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%v : tensor<32x64xf32>) outs(%v : tensor<32x64xf32>) {
    ^bb0(%a: f32, %o: f32):
      %m = arith.mulf %a, %t : f32
      linalg.yield %m : f32
    } -> tensor<32x64xf32>
    scf.yield %u, %in : tensor<32x64xf32>, tensor<32x64xf32>
  }
  return %r#0, %r#1 : tensor<32x64xf32>, tensor<32x64xf32>
}

// -----

// Iter_args exchanged every iteration: each is first copied into a new
// buffer (bufferization.alloc_tensor copy), so that the copy into one does not overwrite what the other
// still reads; an iter_arg read after its in-place update is copied too
// (bufferization puts that update in a new buffer). Both were rejected.
// CHECK-LABEL: func.func @swap_and_read_after_update(
// CHECK:         scf.for %{{.*}} iter_args(%[[P:.*]] = %{{.*}}, %[[Q:.*]] = %{{.*}}, %[[R:.*]] = %{{.*}}) -> (tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>)
// CHECK:           %[[U:.*]] = linalg.generic {{.*}} outs(%[[R]] : tensor<8x8xf32>)
// CHECK:           gpu.launch_func  @mxfp8train_kernels::@elementwise_64_2in_1out_
// CHECK:           %[[S:.*]] = bufferization.to_tensor
// CHECK:           %[[TQ:.*]] = bufferization.alloc_tensor() copy(%[[Q]]) : tensor<8x8xf32>
// CHECK:           %[[TP:.*]] = bufferization.alloc_tensor() copy(%[[P]]) : tensor<8x8xf32>
// CHECK:           %[[CP:.*]] = linalg.copy ins(%[[TQ]] : tensor<8x8xf32>) outs(%[[P]] : tensor<8x8xf32>)
// CHECK:           %[[CQ:.*]] = linalg.copy ins(%[[TP]] : tensor<8x8xf32>) outs(%[[Q]] : tensor<8x8xf32>)
// CHECK:           %[[CR:.*]] = linalg.copy ins(%[[S]] : tensor<8x8xf32>) outs(%[[R]] : tensor<8x8xf32>)
// CHECK:           scf.yield %[[CP]], %[[CQ]], %[[CR]]
// LOWER-LABEL: llvm.func @swap_and_read_after_update(
#id3 = affine_map<(i, j) -> (i, j)>
func.func @swap_and_read_after_update(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>)
    -> (tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r:3 = scf.for %i = %c0 to %c3 step %c1 iter_args(%p = %a, %q = %b, %r = %c)
      -> (tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) {
    %u = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel"]}
        ins(%p : tensor<8x8xf32>) outs(%r : tensor<8x8xf32>) {
    ^bb0(%x: f32, %o: f32):
      %m = arith.addf %x, %o : f32
      linalg.yield %m : f32
    } -> tensor<8x8xf32>
    %e = tensor.empty() : tensor<8x8xf32>
    %s = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel"]}
        ins(%r, %u : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
    ^bb0(%x: f32, %y: f32, %o: f32):
      %m = arith.mulf %x, %y : f32
      linalg.yield %m : f32
    } -> tensor<8x8xf32>
    scf.yield %q, %p, %s : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
  }
  return %r#0, %r#1, %r#2 : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

// A scalar loss summed over micro-batches, carried as a rank-0 iter_arg
// (the sum written into the batch's own scalar, then copied into the
// iter_arg): the copy is rank 0 too and gets its unit loop (it failed with
// the host-access error).
// CHECK-LABEL: func.func @loss_over_batches(
// CHECK:         scf.for %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<f32>)
// CHECK:           %[[UNIT:.*]] = tensor.expand_shape %[[ACC]] [] output_shape [1] : tensor<f32> into tensor<1xf32>
// CHECK:           %[[COPY:.*]] = linalg.generic {{.*}} iterator_types = ["parallel"]} ins(%{{.*}} : tensor<f32>) outs(%[[UNIT]] : tensor<1xf32>)
// CHECK:           %[[R:.*]] = tensor.collapse_shape %[[COPY]] [] : tensor<1xf32> into tensor<f32>
// CHECK:           scf.yield %[[R]]
// LOWER-LABEL: llvm.func @loss_over_batches(
func.func @loss_over_batches(%x: tensor<4x64xf32>, %l0: tensor<f32>) -> tensor<f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %l0) -> tensor<f32> {
    %row = tensor.extract_slice %x[%i, 0] [1, 64] [1, 1] : tensor<4x64xf32> to tensor<64xf32>
    %e = tensor.empty() : tensor<f32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
    %s = linalg.reduce ins(%row : tensor<64xf32>) outs(%f : tensor<f32>) dimensions = [0]
      (%v: f32, %a: f32) {
        %n = arith.addf %v, %a : f32
        linalg.yield %n : f32
      }
    %t = arith.addf %s, %acc : tensor<f32>
    scf.yield %t : tensor<f32>
  }
  return %r : tensor<f32>
}

// -----

// No parallel loop, but a result of rank 1 beside the rank-0 one (a running
// sum): every init gets the leading unit dimension (it failed with the
// host-access error).
// CHECK-LABEL: func.func @running_sum(
// CHECK:         %[[U1:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0, 1]] output_shape [1, 6] : tensor<6xf32> into tensor<1x6xf32>
// CHECK:         %[[G:.*]]:2 = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%{{.*}} : tensor<6xf32>) outs(%{{.*}}, %[[U1]] : tensor<1xf32>, tensor<1x6xf32>)
// CHECK:         tensor.collapse_shape %[[G]]#1 {{\[}}[0, 1]] : tensor<1x6xf32> into tensor<6xf32>
// LOWER-LABEL: llvm.func @running_sum(
func.func @running_sum(%x: tensor<6xf32>) -> (tensor<f32>, tensor<6xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %e2 = tensor.empty() : tensor<6xf32>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>, affine_map<(i) -> (i)>], iterator_types = ["reduction"]}
      ins(%x : tensor<6xf32>) outs(%f, %e2 : tensor<f32>, tensor<6xf32>) {
  ^bb0(%v: f32, %acc: f32, %o: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s, %s : f32, f32
  } -> (tensor<f32>, tensor<6xf32>)
  return %r#0, %r#1 : tensor<f32>, tensor<6xf32>
}

// -----

// Not in place although the chain leads back to the iter_arg: an inner
// loop reading the outer iter_arg while it updates it, and an update
// reading its iter_arg through another map (a transpose). Both are copied
// (they were left alone and rejected after bufferization).
// CHECK-LABEL: func.func @nested_read_and_transpose(
// CHECK:         scf.for %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[T:.*]] = %{{.*}})
// CHECK:           %[[IN:.*]] = scf.for
// CHECK:           %[[U:.*]] = linalg.generic {{.*}} ins(%[[T]] : tensor<8x8xf32>) outs(%[[T]] : tensor<8x8xf32>)
// CHECK:           linalg.copy ins(%[[IN]] : tensor<8x8xf32>) outs(%[[ACC]] : tensor<8x8xf32>)
// CHECK:           linalg.copy ins(%[[U]] : tensor<8x8xf32>) outs(%[[T]] : tensor<8x8xf32>)
// LOWER-LABEL: llvm.func @nested_read_and_transpose(
#id4 = affine_map<(i, j) -> (i, j)>
#tr4 = affine_map<(i, j) -> (j, i)>
func.func @nested_read_and_transpose(%a: tensor<8x8xf32>, %t0: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r:2 = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %a, %t = %t0) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
    %in = scf.for %j = %c0 to %c3 step %c1 iter_args(%b = %acc) -> tensor<8x8xf32> {
      %u = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel"]}
          ins(%acc : tensor<8x8xf32>) outs(%b : tensor<8x8xf32>) {
      ^bb0(%x: f32, %o: f32):
        %m = arith.addf %x, %o : f32
        linalg.yield %m : f32
      } -> tensor<8x8xf32>
      scf.yield %u : tensor<8x8xf32>
    }
    %tu = linalg.generic {indexing_maps = [#tr4, #id4], iterator_types = ["parallel", "parallel"]}
        ins(%t : tensor<8x8xf32>) outs(%t : tensor<8x8xf32>) {
    ^bb0(%x: f32, %o: f32):
      linalg.yield %x : f32
    } -> tensor<8x8xf32>
    scf.yield %in, %tu : tensor<8x8xf32>, tensor<8x8xf32>
  }
  return %r#0, %r#1 : tensor<8x8xf32>, tensor<8x8xf32>
}
