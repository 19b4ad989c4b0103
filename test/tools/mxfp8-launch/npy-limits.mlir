// A .npy input whose dimension does not fit in uint64: mxfp8-launch's reader
// (NpyFile.h) rejects it like mxfp8-run's (Npy.h). Before the fix it wrapped
// the dimension around and reported "shape too large" instead (the .npy
// fuzzer, fuzz/npy, compares the two readers).
//
// REQUIRES: host-cxx
// RUN: rm -rf %t && mkdir -p %t
// RUN: mxfp8-compile %s -o %t/m.o --manifest=%t/m.manifest
// RUN: %host_cxx -shared -o %t/m.so %t/m.o
// RUN: %PYTHON %S/Inputs/write_wrapping_npy.py %t/wrap.npy
// RUN: %PYTHON %S/../mxfp8-run/Inputs/expect_rc.py 2 mxfp8-launch %t/m.so %t/m.manifest --input=%t/wrap.npy 2>&1 | FileCheck %s --check-prefix=LAUNCH
// RUN: not mxfp8-run %s --input=%t/wrap.npy 2>&1 | FileCheck %s --check-prefix=REFERENCE

// LAUNCH: mxfp8-launch: error: {{.*}}wrap.npy: malformed .npy header: bad dimension in shape
// REFERENCE: {{.*}}wrap.npy: malformed .npy header: bad dimension in shape
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
