// An integer division by zero in the user's module (undefined in MLIR's
// arith; SIGFPE on x86) is an error of the call naming the function, exit
// status 1, not a crash with LLVM's stack dump (`not` fails on a signal).
// Before session 33 mxfp8-run ended in SIGFPE (status 136). Integer inputs
// are zeros unless given; mxfp8run.values gives the second call its
// operands (arith.divsi rounds toward zero).
//
// RUN: not mxfp8-run %s --entry=divide 2>&1 | FileCheck %s --check-prefix=TRAP
// TRAP: mxfp8-run: error: running the input module: 'divide' trapped on the CPU (SIGFPE): an integer division by zero or a signed division overflow (INT_MIN / -1) in arith.divsi, divui, remsi, remui, ceildivsi or floordivsi (undefined behaviour in MLIR's arith); no result was written
// TRAP-NOT: Stack dump
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: mxfp8-run %s --entry=divide_nonzero --output-dir=%t > /dev/null
// RUN: %PYTHON -c "import numpy as np; print(np.load('%t/r.npy').tolist())" | FileCheck %s --check-prefix=VALUES
// VALUES: [7, -4, -3, 2]

func.func @divide(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %r = arith.divsi %a, %b : tensor<4xi32>
  return %r : tensor<4xi32>
}

func.func @divide_nonzero(
    %a: tensor<4xi32> {mxfp8run.values = dense<[7, 9, -10, 20]> : tensor<4xi32>},
    %b: tensor<4xi32> {mxfp8run.values = dense<[1, -2, 3, 7]> : tensor<4xi32>})
    -> tensor<4xi32> {
  %r = arith.divsi %a, %b : tensor<4xi32>
  return %r : tensor<4xi32>
}
