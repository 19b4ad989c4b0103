// RUN: mxfp8-opt %s --split-input-file --mxfp8train-lower-to-gpu="format=isa" --verify-diagnostics -o /dev/null

// Arithmetic on f80, f128 and tf32 in GPU kernels is an error at each op
// (mxfp8train-check-kernel-types): until session 34 the NVPTX backend
// aborted the process ("LLVM ERROR: unsupported library call operation",
// f80 / f128) or the conversion failed at an unknown location (tf32).
// Moves of such values (select, transpose) compile.

func.func @erf_f128(%x: tensor<64xf128>) -> tensor<64xf128> {
  // expected-error @+1 {{'math.erf' on 'f128' in a GPU kernel: NVPTX has no f80, f128 or tf32 arithmetic}}
  %r = math.erf %x : tensor<64xf128>
  return %r : tensor<64xf128>
}

// -----

func.func @exp_f80(%x: tensor<64xf80>) -> tensor<64xf80> {
  // expected-error @+1 {{'math.exp' on 'f80' in a GPU kernel}}
  %r = math.exp %x : tensor<64xf80>
  return %r : tensor<64xf80>
}

// -----

func.func @add_tf32(%x: tensor<64xtf32>, %y: tensor<64xtf32>) -> tensor<64xtf32> {
  // expected-error @+1 {{'arith.addf' on 'tf32' in a GPU kernel}}
  %r = arith.addf %x, %y : tensor<64xtf32>
  return %r : tensor<64xtf32>
}

// -----

// Every op of a fused kernel that computes on f128 is named.
func.func @quad_chain(%x: tensor<64xf64>) -> tensor<64xf64> {
  // expected-error @+1 {{'arith.extf' on 'f128' in a GPU kernel}}
  %e = arith.extf %x : tensor<64xf64> to tensor<64xf128>
  // expected-error @+1 {{'arith.mulf' on 'f128' in a GPU kernel}}
  %m = arith.mulf %e, %e : tensor<64xf128>
  // expected-error @+1 {{'math.sqrt' on 'f128' in a GPU kernel}}
  %s = math.sqrt %m : tensor<64xf128>
  // expected-error @+1 {{'arith.truncf' on 'f128' in a GPU kernel}}
  %t = arith.truncf %s : tensor<64xf128> to tensor<64xf64>
  return %t : tensor<64xf64>
}

// -----

func.func @moves(%c: tensor<64x32xi1>, %x: tensor<64x32xf128>, %y: tensor<64x32xf128>) -> tensor<32x64xf128> {
  %r = arith.select %c, %x, %y : tensor<64x32xi1>, tensor<64x32xf128>
  %e = tensor.empty() : tensor<32x64xf128>
  %t = linalg.transpose ins(%r : tensor<64x32xf128>) outs(%e : tensor<32x64xf128>) permutation = [1, 0]
  return %t : tensor<32x64xf128>
}
