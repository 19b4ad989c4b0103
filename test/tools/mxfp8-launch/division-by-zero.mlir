// An integer division by zero in an AOT object run by mxfp8-launch on the
// CPU is an error of the call, exit status 3 (a failed run), not SIGFPE
// (as in mxfp8-run: test/tools/mxfp8-run/division-by-zero.mlir). Integer
// inputs are zeros.
//
// REQUIRES: host-cxx
// RUN: rm -rf %t && mkdir -p %t
// RUN: mxfp8-compile %s --entry=divide -o %t/m.o --manifest=%t/m.manifest
// RUN: %host_cxx -shared -o %t/m.so %t/m.o -Wl,-Bsymbolic -L%mxfp8train_lib_dir -lmxfp8train_runtime
// RUN: not mxfp8-launch %t/m.so %t/m.manifest --entry=divide 2>&1 | FileCheck %s
// CHECK: @divide trapped on the host (SIGFPE): an integer division by zero or a signed division overflow (INT_MIN / -1) in arith.divsi
// CHECK-NOT: Stack dump
//
// On --comm=ranks:2 rank 0 divides by its rank and traps while rank 1
// waits for it in the all_reduce: the failed rank ends the run at once
// (before session 33 mxfp8-launch waited for rank 1 forever; found by a
// helper's tests). `timeout` turns a hang back into a failure.
// RUN: mxfp8-compile %s --entry=divide_by_rank -o %t/r.o --manifest=%t/r.manifest
// RUN: %host_cxx -shared -o %t/r.so %t/r.o -Wl,-Bsymbolic -L%mxfp8train_lib_dir -lmxfp8train_runtime
// RUN: not timeout 60 mxfp8-launch %t/r.so %t/r.manifest --comm=ranks:2 > %t/ranks.log 2>&1
// RUN: FileCheck %s --check-prefix=RANKS < %t/ranks.log
// RANKS: mxfp8-launch: error: rank 0: @divide_by_rank trapped on the host (SIGFPE)

func.func @divide(%a: tensor<4xi64>, %b: tensor<4xi64>) -> tensor<4xi64> {
  %r = arith.remsi %a, %b : tensor<4xi64>
  return %r : tensor<4xi64>
}

shard.grid @g(shape = 2)
func.func @divide_by_rank(%x: tensor<4xf32>) -> tensor<4xf32> {
  %rank = shard.process_linear_index on @g : index
  %r32 = arith.index_cast %rank : index to i32
  %c0 = arith.constant 0 : index
  %seven = arith.constant 7 : i32
  %q = arith.divsi %seven, %r32 : i32
  %qf = arith.sitofp %q : i32 to f32
  %y = tensor.insert %qf into %x[%c0] : tensor<4xf32>
  %s = shard.all_reduce %y on @g grid_axes = [0] reduction = sum : tensor<4xf32> -> tensor<4xf32>
  return %s : tensor<4xf32>
}
