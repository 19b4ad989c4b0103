// RUN: mxfp8-opt %s --mxfp8train-lower-narrow-float-arith --verify-diagnostics

// Ops on fp8 / e8m0 with no exact lowering are errors at the op (issue 14
// row 11), never "missing LLVMTranslationDialectInterface" later.
// Rounding conversions and arithmetic are errors at the op.
func.func @unsupported(%x: f32, %q: f8E4M3FN, %s: f8E8M0FNU, %t: tensor<4xf8E8M0FNU>, %f4: f4E2M1FN) {
  // expected-error @below {{'arith.truncf' on 'f8E8M0FNU' is not supported by the mxfp8train pipelines: its rounding differs from the MX conversion (SPEC §2); use mxfp8train.quantize}}
  %0 = arith.truncf %x : f32 to f8E8M0FNU
  // expected-error @below {{'arith.truncf' on 'f8E4M3FN' is not supported by the mxfp8train pipelines: its rounding differs}}
  %1 = arith.truncf %x : f32 to f8E4M3FN
  // expected-error @below {{'arith.addf' on 'f8E4M3FN' is not supported by the mxfp8train pipelines: there is no fp8 or e8m0 arithmetic; widen the operands with arith.extf first}}
  %2 = arith.addf %q, %q : f8E4M3FN
  // expected-error @below {{'arith.negf' on 'f8E8M0FNU' is not supported by the mxfp8train pipelines: e8m0 values have no sign}}
  %3 = arith.negf %s : f8E8M0FNU
  // expected-error @below {{'arith.extf' on 'f8E8M0FNU' is not supported by the mxfp8train pipelines: it applies to vectors or tensors; apply it to scalars in a linalg.generic body}}
  %4 = arith.extf %t : tensor<4xf8E8M0FNU> to tensor<4xf32>
  // expected-error @below {{'math.exp' on 'f8E4M3FN' is not supported}}
  %5 = math.exp %q : f8E4M3FN
  // expected-error @below {{'arith.extf' on 'f4E2M1FN' is not supported by the mxfp8train pipelines: only f8E4M3FN, f8E5M2 and f8E8M0FNU scalars are lowered}}
  %6 = arith.extf %f4 : f4E2M1FN to f32
  // An op with no scalar lowering either is rejected for what it is, not
  // for its shape (found by a helper's tests: the message sent users to
  // scalars, where it is rejected too).
  // expected-error @below {{'math.exp' on 'f8E8M0FNU' is not supported by the mxfp8train pipelines: there is no fp8 or e8m0 arithmetic; widen the operands with arith.extf first}}
  %7 = math.exp %t : tensor<4xf8E8M0FNU>
  return
}
