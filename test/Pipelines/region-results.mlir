// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: mxfp8-run %s --entry=loop --output-dir=%t/loop --seed=3 > %t/loop.log
// RUN: mxfp8-run %s --entry=direct --output-dir=%t/direct --seed=3 > %t/direct.log
// RUN: cmp %t/loop/r.npy %t/direct/q.npy
// RUN: mxfp8-run %s --entry=branch --output-dir=%t/branch --seed=3 > %t/branch.log
// RUN: cmp %t/branch/r.npy %t/direct/q.npy
// RUN: mxfp8-opt %s --mxfp8train-lower-to-gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=GPU --allow-empty

// Tensors yielded out of scf.for / scf.if regions (issue 14 row 17). The CPU
// pipeline runs them (a loop may yield a new tensor each iteration): the
// loop's and the branch's quantized data equal a plain quantize of the same
// input, byte for byte. The GPU pipeline copies a kernel result an scf.for
// yields into the loop's iter_arg, and those of an scf.if into one
// destination (RemainingOps.cpp; gpu-branch-results.mlir): the loop and
// the branches lower. @branch reads its condition with tensor.extract on
// the host: the GPU pipeline copies that element to the host (it was an
// error at the op before session 32; gpu-host-element-access.mlir), so the
// whole module lowers.

// GPU-NOT: error
// GPU-NOT: buffer-results-to-out-params
// GPU-NOT: not equivalent

func.func @direct(%x: tensor<64x64xbf16>) -> tensor<64x64xf8E4M3FN> {
  %q, %s = mxfp8train.quantize %x axis = 1 mode = rceil : tensor<64x64xbf16> -> tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU>
  return %q : tensor<64x64xf8E4M3FN>
}

func.func @loop(%x: tensor<64x64xbf16>) -> tensor<64x64xf8E4M3FN> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %init = tensor.empty() : tensor<64x64xf8E4M3FN>
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %init) -> tensor<64x64xf8E4M3FN> {
    %q, %s = mxfp8train.quantize %x axis = 1 mode = rceil : tensor<64x64xbf16> -> tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU>
    scf.yield %q : tensor<64x64xf8E4M3FN>
  }
  return %r : tensor<64x64xf8E4M3FN>
}

func.func @branch(%x: tensor<64x64xbf16>, %flag: tensor<1xi32>) -> tensor<64x64xf8E4M3FN> {
  // %flag is zero (mxfp8-run's default for integers): the then branch runs.
  %c0 = arith.constant 0 : index
  %c0_i32 = arith.constant 0 : i32
  %f = tensor.extract %flag[%c0] : tensor<1xi32>
  %cond = arith.cmpi eq, %f, %c0_i32 : i32
  %r = scf.if %cond -> tensor<64x64xf8E4M3FN> {
    %q, %s = mxfp8train.quantize %x axis = 1 mode = rceil : tensor<64x64xbf16> -> tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU>
    scf.yield %q : tensor<64x64xf8E4M3FN>
  } else {
    %q, %s = mxfp8train.quantize %x axis = 0 mode = rceil : tensor<64x64xbf16> -> tensor<64x64xf8E4M3FN>, tensor<2x64xf8E8M0FNU>
    scf.yield %q : tensor<64x64xf8E4M3FN>
  }
  return %r : tensor<64x64xf8E4M3FN>
}
