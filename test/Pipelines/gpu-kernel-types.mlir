// RUN: mxfp8-opt %s --split-input-file --mxfp8train-lower-to-gpu="format=isa" --verify-diagnostics -o /dev/null

// In GPU kernels, any f80 or tf32 value and arithmetic on f128 are errors
// at the input op (mxfp8train-check-kernel-types): until session 34 the
// NVPTX backend aborted the process ("LLVM ERROR: unsupported library call
// operation", "Cannot select", a segfault for an f80 constant) or the
// conversion failed at an unknown location (tf32). The ops of a named
// op's body (built at unknown locations) and of shared elementwise kernels
// (at the module's line 0) are reported at the input op. Moves of f128
// values (select, transpose) compile.

func.func @erf_f128(%x: tensor<64xf128>) -> tensor<64xf128> {
  // expected-error @+1 {{'math.erf' on 'f128' in a GPU kernel: NVPTX has no f80, f128 or tf32 arithmetic}}
  %r = math.erf %x : tensor<64xf128>
  return %r : tensor<64xf128>
}

// -----

func.func @exp_f80(%x: tensor<64xf80>) -> tensor<64xf80> {
  // expected-error @+1 {{on 'f80' in a GPU kernel: NVPTX has no f80 or tf32 values}}
  %r = math.exp %x : tensor<64xf80>
  return %r : tensor<64xf80>
}

// -----

func.func @add_tf32(%x: tensor<64xtf32>, %y: tensor<64xtf32>) -> tensor<64xtf32> {
  // expected-error @+1 {{on 'tf32' in a GPU kernel: NVPTX has no f80 or tf32 values}}
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

// f80 values cannot even be stored or passed to a kernel (a fill's value,
// a constant in a body, a tensor.pad's padding value).
func.func @fill_f80() -> tensor<8xf80> {
  %c = arith.constant 1.5 : f80
  %e = tensor.empty() : tensor<8xf80>
  // expected-error @+1 {{'memref.store' on 'f80' in a GPU kernel: NVPTX has no f80 or tf32 values}}
  %r = linalg.fill ins(%c : f80) outs(%e : tensor<8xf80>) -> tensor<8xf80>
  return %r : tensor<8xf80>
}

// -----

func.func @constant_body_f80(%a: tensor<8xf80>) -> tensor<8xf80> {
  %e = tensor.empty() : tensor<8xf80>
  // expected-error @+1 {{'arith.constant' on 'f80' in a GPU kernel}}
  %n = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%a : tensor<8xf80>) outs(%e : tensor<8xf80>) {
  ^bb0(%x: f80, %o: f80):
    %z = arith.constant 2.5 : f80
    linalg.yield %z : f80
  } -> tensor<8xf80>
  return %n : tensor<8xf80>
}

// -----

func.func @transpose_tf32(%a: tensor<8x16xtf32>) -> tensor<16x8xtf32> {
  %e = tensor.empty() : tensor<16x8xtf32>
  // expected-error @+1 {{'memref.load' on 'tf32' in a GPU kernel}}
  %r = linalg.transpose ins(%a : tensor<8x16xtf32>) outs(%e : tensor<16x8xtf32>) permutation = [1, 0]
  return %r : tensor<16x8xtf32>
}

// -----

// The body of a named op: at the matmul (once per location).
func.func @matmul_f128(%a: tensor<16x32xf128>, %b: tensor<32x8xf128>, %c: tensor<16x8xf128>) -> tensor<16x8xf128> {
  // expected-error @+1 {{'arith.mulf' on 'f128' in a GPU kernel}}
  %r = linalg.matmul ins(%a, %b : tensor<16x32xf128>, tensor<32x8xf128>) outs(%c : tensor<16x8xf128>) -> tensor<16x8xf128>
  return %r : tensor<16x8xf128>
}

// -----

func.func @moves(%c: tensor<64x32xi1>, %x: tensor<64x32xf128>, %y: tensor<64x32xf128>) -> tensor<32x64xf128> {
  %r = arith.select %c, %x, %y : tensor<64x32xi1>, tensor<64x32xf128>
  %e = tensor.empty() : tensor<32x64xf128>
  %t = linalg.transpose ins(%r : tensor<64x32xf128>) outs(%e : tensor<32x64xf128>) permutation = [1, 0]
  return %t : tensor<32x64xf128>
}
