// An integer division by zero in an AOT object run by mxfp8-launch on the
// CPU is an error of the call, exit status 3 (a failed run), not SIGFPE
// (as in mxfp8-run: test/tools/mxfp8-run/division-by-zero.mlir). Integer
// inputs are zeros.
//
// REQUIRES: host-cxx
// RUN: rm -rf %t && mkdir -p %t
// RUN: mxfp8-compile %s -o %t/m.o --manifest=%t/m.manifest
// RUN: %host_cxx -shared -o %t/m.so %t/m.o -Wl,-Bsymbolic -L%mxfp8train_lib_dir -lmxfp8train_runtime
// RUN: not mxfp8-launch %t/m.so %t/m.manifest --entry=divide 2>&1 | FileCheck %s
// CHECK: @divide trapped on the host (SIGFPE): an integer division by zero or a signed division overflow (INT_MIN / -1) in arith.divsi
// CHECK-NOT: Stack dump

func.func @divide(%a: tensor<4xi64>, %b: tensor<4xi64>) -> tensor<4xi64> {
  %r = arith.remsi %a, %b : tensor<4xi64>
  return %r : tensor<4xi64>
}
