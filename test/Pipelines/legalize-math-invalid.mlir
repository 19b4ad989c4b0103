// RUN: mxfp8-opt %s --split-input-file --verify-diagnostics --mxfp8train-legalize-math="libm-calls=true"

// A module symbol of the C library function's name would take the call
// (found by a helper's tests: a private @erf returned x * 2 for math.erf).
// expected-note @below {{@erf is defined here}}
func.func private @erf(%x: f64) -> f64 {
  %two = arith.constant 2.0 : f64
  %r = arith.mulf %x, %two : f64
  return %r : f64
}
func.func @main(%x: f64) -> f64 {
  // expected-error @below {{'math.erf' is lowered to a call of the C library's 'erf', which the module's @erf would take; rename that symbol}}
  %r = math.erf %x : f64
  return %r : f64
}

// -----

// A declaration of the function itself is what the call needs.
func.func private @erff(f32) -> f32
func.func @declared(%x: f32) -> f32 {
  %r = math.erf %x : f32
  return %r : f32
}

// -----

func.func @f128(%x: f128) -> f128 {
  // expected-error @below {{'math.cbrt' on this type has no C library function (f32 and f64; bf16 and f16 compute in f32)}}
  %r = math.cbrt %x : f128
  return %r : f128
}
