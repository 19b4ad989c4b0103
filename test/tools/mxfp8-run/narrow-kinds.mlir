// Host tensors of f16, i1, i8 and i16 (session 34; before, "element type
// ... is not supported on the host side" for each): generated, given as
// mxfp8run.values (dense i1 data, stored one bit per element, expanded to
// a byte each) and read from .npy files (float16, bool, int8, int16), and
// results written with numpy's dtypes. Values against numpy: a select by an
// i1 mask, an f16 comparison, i8 / i16 arithmetic that wraps, f16 -> f32.
// Generated f16 inputs are the f64 normal stream rounded once to nearest
// even (numpy's float16() of the same stream), overflowing to infinity.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: mxfp8-run %s --entry=narrow --output-dir=%t/g --save-inputs | FileCheck %s
// RUN: %PYTHON %S/Inputs/narrow_kinds.py check %t/g/inputs %t/g | FileCheck %s --check-prefix=VALUES
// RUN: %PYTHON %S/Inputs/narrow_kinds.py write %t/in
// RUN: mxfp8-run %s --entry=narrow --input=%t/in/h.npy --input=%t/in/b.npy --input=%t/in/c.npy --input=%t/in/s.npy --output-dir=%t/r > /dev/null
// RUN: %PYTHON %S/Inputs/narrow_kinds.py check %t/in %t/r | FileCheck %s --check-prefix=VALUES
//
// bool bytes other than 0 and 1 are true, as in numpy (until session 34 they
// reached the compiled code, which reads an i1 byte's lowest bit):
// RUN: %PYTHON %S/Inputs/narrow_kinds.py write %t/odd --odd-bools
// RUN: mxfp8-run %s --entry=narrow --input=%t/odd/h.npy --input=%t/odd/b.npy --input=%t/odd/c.npy --input=%t/odd/s.npy --output-dir=%t/o > /dev/null
// RUN: %PYTHON %S/Inputs/narrow_kinds.py check %t/odd %t/o | FileCheck %s --check-prefix=VALUES
//
// The generated f16 stream against numpy's rounding of the f64 one:
// RUN: mxfp8-run %s --entry=stream_f16 --output-dir=%t/h > /dev/null
// RUN: mxfp8-run %s --entry=stream_f64 --output-dir=%t/d > /dev/null
// RUN: %PYTHON -c "import numpy as np; same = lambda n: bool((np.load('%t/h/' + n).view(np.uint16) == np.load('%t/d/' + n).astype(np.float16).view(np.uint16)).all()); h = np.load('%t/h/x.npy'); t = np.load('%t/h/t.npy'); print(h.dtype, same('x.npy'), same('t.npy'), int(np.isinf(h).sum()) > 0, int((t == 0).sum()) > 0, int((t != 0).sum()) > 0)" | FileCheck %s --check-prefix=STREAM
//
// A .npy of another dtype is an error naming the expected one:
// RUN: not mxfp8-run %s --entry=narrow --input=%t/in/s.npy --input=%t/in/b.npy --input=%t/in/c.npy --input=%t/in/s.npy 2>&1 | FileCheck %s --check-prefix=DTYPE

// CHECK:      #0 h : 4x8xf16  normal(0, 1)
// CHECK-NEXT: #1 b : 4x8xi1  mxfp8run.values
// CHECK-NEXT: #2 c : 4x8xi8  mxfp8run.values
// CHECK-NEXT: #3 s : 4x8xi16  zeros
// CHECK:      0  sel   -     4x8xf16
// CHECK-NEXT: 1  pos   -     4x8xi1
// CHECK-NEXT: 2  c2    -     4x8xi8
// CHECK-NEXT: 3  s2x   -     4x8xi16
// CHECK-NEXT: 4  w     -     4x8xf32

// VALUES: dtypes float16 bool int8 int16 -> float16 bool int8 int16 float32
// VALUES-NEXT: sel True pos True c2 True s2x True w True

// STREAM: float16 True True True True True

// DTYPE: --input #0 ('{{.*}}s.npy') for argument h: dtype '<i2' does not match 4x8xf16 (expected '<f2')

func.func @narrow(%h: tensor<4x8xf16>,
                  %b: tensor<4x8xi1> {mxfp8run.values = dense<[[true, false, true, true, false, false, true, false], [false, false, false, false, true, true, true, true], [true, true, true, true, true, true, true, true], [false, false, false, false, false, false, false, true]]> : tensor<4x8xi1>},
                  %c: tensor<4x8xi8> {mxfp8run.values = dense<-70> : tensor<4x8xi8>},
                  %s: tensor<4x8xi16>)
    -> (tensor<4x8xf16>, tensor<4x8xi1>, tensor<4x8xi8>, tensor<4x8xi16>, tensor<4x8xf32>) {
  %z = arith.constant dense<0.0> : tensor<4x8xf16>
  %sel = arith.select %b, %h, %z : tensor<4x8xi1>, tensor<4x8xf16>
  %pos = arith.cmpf ogt, %h, %z : tensor<4x8xf16>
  %c2 = arith.addi %c, %c : tensor<4x8xi8>
  %k = arith.constant dense<30000> : tensor<4x8xi16>
  %s2 = arith.subi %s, %k : tensor<4x8xi16>
  %s2x = arith.subi %s2, %k : tensor<4x8xi16>
  %w = arith.extf %h : tensor<4x8xf16> to tensor<4x8xf32>
  return %sel, %pos, %c2, %s2x, %w : tensor<4x8xf16>, tensor<4x8xi1>, tensor<4x8xi8>, tensor<4x8xi16>, tensor<4x8xf32>
}

// std 30000: about 3 % of the samples overflow f16 (|x| >= 65520); std
// 1e-7: every sample is an f16 subnormal (below 2^-14) or rounds to zero.
func.func @stream_f16(%x: tensor<65536xf16> {mxfp8run.std = 30000.0 : f64},
                      %t: tensor<65536xf16> {mxfp8run.std = 1.0e-7 : f64})
    -> (tensor<65536xf16>, tensor<65536xf16>) {
  return %x, %t : tensor<65536xf16>, tensor<65536xf16>
}

func.func @stream_f64(%x: tensor<65536xf64> {mxfp8run.std = 30000.0 : f64},
                      %t: tensor<65536xf64> {mxfp8run.std = 1.0e-7 : f64})
    -> (tensor<65536xf64>, tensor<65536xf64>) {
  return %x, %t : tensor<65536xf64>, tensor<65536xf64>
}
