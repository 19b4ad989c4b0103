// The .npy reader against files written by an independent Python writer:
// version 1.0 with 16-byte alignment (older NumPy), version 2.0, a 1-d shape
// written as "(6,)", and the errors for unsupported or broken files.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %PYTHON %S/Inputs/npytool.py write %t/v1.npy '<f4' 6 1.5 -2 0.25 8 -0 3e-5 --align 16
// RUN: %PYTHON %S/Inputs/npytool.py write %t/v2.npy '<f4' 6 1.5 -2 0.25 8 -0 3e-5 --version 2
// RUN: mxfp8-run %s --input=%t/v1.npy --output-dir=%t/o1 > %t/o1.log
// RUN: %PYTHON %S/Inputs/npytool.py dump %t/o1/r.npy | FileCheck %s
// RUN: mxfp8-run %s --input=%t/v2.npy --output-dir=%t/o2 > %t/o2.log
// RUN: %PYTHON %S/Inputs/npytool.py dump %t/o2/r.npy | FileCheck %s
// CHECK: descr <f4 shape 6
// CHECK-NEXT: values -1.5 2.0 -0.25 -8.0 0.0 -2.9999999242136255e-05

// RUN: %PYTHON %S/Inputs/npytool.py write %t/fortran.npy '<f4' 6 1 2 3 4 5 6 --fortran
// RUN: not mxfp8-run %s --input=%t/fortran.npy 2>&1 | FileCheck %s --check-prefix=FORTRAN
// FORTRAN: mxfp8-run: error: {{.*}}fortran.npy: Fortran-ordered .npy arrays are not supported

// RUN: %PYTHON %S/Inputs/npytool.py write %t/big.npy '>f4' 6 1 2 3 4 5 6
// RUN: not mxfp8-run %s --input=%t/big.npy 2>&1 | FileCheck %s --check-prefix=BIG
// BIG: mxfp8-run: error: {{.*}}big.npy: unsupported .npy dtype '>f4'

// RUN: %PYTHON %S/Inputs/npytool.py write %t/short.npy '<f4' 6 1 2 3 4 5 6 --truncate 3
// RUN: not mxfp8-run %s --input=%t/short.npy 2>&1 | FileCheck %s --check-prefix=SHORT
// SHORT: mxfp8-run: error: {{.*}}short.npy: data size 21 bytes does not match the header (24 bytes expected)

// RUN: %PYTHON %S/Inputs/npytool.py write %t/magic.npy '<f4' 6 1 2 3 4 5 6 --magic NOTNPY
// RUN: not mxfp8-run %s --input=%t/magic.npy 2>&1 | FileCheck %s --check-prefix=MAGIC
// MAGIC: mxfp8-run: error: {{.*}}magic.npy: not a .npy file (bad magic string)

// RUN: %PYTHON %S/Inputs/npytool.py write %t/f64.npy '<f8' 6 1 2 3 4 5 6
// RUN: not mxfp8-run %s --input=%t/f64.npy 2>&1 | FileCheck %s --check-prefix=DTYPE
// DTYPE: mxfp8-run: error: --input #0 ('{{.*}}f64.npy') for argument a: dtype '<f8' does not match 6xf32 (expected '<f4')

// RUN: %PYTHON %S/Inputs/npytool.py write %t/shape.npy '<f4' 2,3 1 2 3 4 5 6
// RUN: not mxfp8-run %s --input=%t/shape.npy 2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: mxfp8-run: error: --input #0 ('{{.*}}shape.npy') for argument a: shape (2x3) does not match 6xf32

// RUN: not mxfp8-run %s --input=%t/missing.npy 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: mxfp8-run: error: cannot open '{{.*}}missing.npy': {{[Nn]}}o such file or directory

#id = affine_map<(d0) -> (d0)>

func.func @negate(%a: tensor<6xf32>) -> tensor<6xf32> {
  %e = tensor.empty() : tensor<6xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<6xf32>) outs(%e : tensor<6xf32>) {
  ^bb0(%x: f32, %o: f32):
    %n = arith.negf %x : f32
    linalg.yield %n : f32
  } -> tensor<6xf32>
  return %r : tensor<6xf32>
}
