// RUN: mxfp8-opt %s --split-input-file --mxfp8train-lower-to-cpu --verify-diagnostics -o /dev/null
// RUN: mxfp8-opt %s --split-input-file --mxfp8train-lower-to-cpu="vectorize=false" --verify-diagnostics -o /dev/null

// Integer divisions and remainders by a constant zero are errors at the op
// on the CPU (mxfp8train-check-constant-divisors): until session 34 LLVM
// folded them (undefined behaviour) into silent zeros, where a divisor
// that is zero only at run time ends the call with an error (SIGFPE;
// test/tools/mxfp8-run/division-by-zero.mlir). Found by a helper's tests of
// the Python API.

func.func @linalg_div(%a: tensor<2xi32>) -> tensor<2xi32> {
  %z = arith.constant dense<0> : tensor<2xi32>
  %e = tensor.empty() : tensor<2xi32>
  // expected-error @+1 {{an integer division or remainder by a constant zero ('arith.divsi')}}
  %r = linalg.div ins(%a, %z : tensor<2xi32>, tensor<2xi32>) outs(%e : tensor<2xi32>) -> tensor<2xi32>
  return %r : tensor<2xi32>
}

// -----

func.func @remui_splat(%a: tensor<64xi32>) -> tensor<64xi32> {
  %z = arith.constant dense<0> : tensor<64xi32>
  // expected-error @+1 {{by a constant zero ('arith.remui')}}
  %r = arith.remui %a, %z : tensor<64xi32>
  return %r : tensor<64xi32>
}

// -----

// One zero among the divisors.
func.func @one_zero_lane(%a: tensor<4xi64>) -> tensor<4xi64> {
  %d = arith.constant dense<[3, 1, 0, 7]> : tensor<4xi64>
  // expected-error @+1 {{by a constant zero ('arith.floordivsi')}}
  %r = arith.floordivsi %a, %d : tensor<4xi64>
  return %r : tensor<4xi64>
}

// -----

func.func @scalar_in_body(%a: tensor<16xi8>) -> tensor<16xi8> {
  %e = tensor.empty() : tensor<16xi8>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%a : tensor<16xi8>) outs(%e : tensor<16xi8>) {
  ^bb0(%x: i8, %o: i8):
    %z = arith.constant 0 : i8
    // expected-error @+1 {{by a constant zero ('arith.divui')}}
    %q = arith.divui %x, %z : i8
    linalg.yield %q : i8
  } -> tensor<16xi8>
  return %r : tensor<16xi8>
}

// -----

// Non-zero constant divisors and divisors known at run time compile.
func.func @fine(%a: tensor<64xi32>, %b: tensor<64xi32>) -> (tensor<64xi32>, tensor<64xi32>) {
  %d = arith.constant dense<3> : tensor<64xi32>
  %q = arith.divsi %a, %d : tensor<64xi32>
  %r = arith.remsi %a, %b : tensor<64xi32>
  return %q, %r : tensor<64xi32>, tensor<64xi32>
}
