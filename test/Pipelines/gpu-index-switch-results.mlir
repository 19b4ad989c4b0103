// RUN: mxfp8-opt %s --mxfp8train-lower-to-gpu="format=isa" --mlir-print-ir-after=mxfp8train-gpu-device-buffers -o /dev/null 2>&1 | FileCheck %s
// RUN: rm -rf %t && mkdir -p %t
// RUN: %PYTHON -c "import numpy as np; np.save('%t/x.npy', np.arange(16, dtype=np.float32)); [np.save('%t/k%d.npy' % k, np.array(k, np.int32)) for k in (0, 1, 5)]"
// RUN: mxfp8-run %s --input=%t/x.npy --input=%t/k0.npy --output-dir=%t/o0 > /dev/null
// RUN: mxfp8-run %s --input=%t/x.npy --input=%t/k1.npy --output-dir=%t/o1 > /dev/null
// RUN: mxfp8-run %s --input=%t/x.npy --input=%t/k5.npy --output-dir=%t/o5 > /dev/null
// RUN: %PYTHON -c "import numpy as np; print([np.load('%t/o' + str(d) + '/r.npy')[:3].tolist() for d in (0, 1, 5)])" | FileCheck %s --check-prefix=VALUES

// Kernel results yielded by the cases of an scf.index_switch (on a host
// value): each case copies its result into one destination allocated
// before the switch, as for scf.if (RemainingOps.cpp). Until session 33:
// "this tensor is yielded out of 'scf.index_switch'" (found by a sweep of
// tensor-level ops). The CPU's values (the GPU's are not checked on a
// device yet): case 0 doubles, case 1 squares, the default returns x.
// VALUES: {{\[}}[0.0, 2.0, 4.0], [0.0, 1.0, 4.0], [0.0, 1.0, 2.0]]

// CHECK-LABEL: func.func @switch(
// CHECK:         %[[DEST:.*]] = gpu.alloc  () : memref<16xf32>
// CHECK:         scf.index_switch
// CHECK:         case 0 {
// CHECK:           gpu.launch_func  {{.*}}%[[DEST]] : memref<16xf32>)
// CHECK:         case 1 {
// CHECK:           gpu.launch_func  {{.*}}%[[DEST]] : memref<16xf32>)
// CHECK:         default {
// CHECK:           gpu.launch_func  {{.*}}%[[DEST]] : memref<16xf32>)
func.func @switch(%x: tensor<16xf32>, %k: tensor<i32>) -> tensor<16xf32> {
  %kv = tensor.extract %k[] : tensor<i32>
  %ki = arith.index_cast %kv : i32 to index
  %r = scf.index_switch %ki -> tensor<16xf32>
  case 0 {
    %y = arith.addf %x, %x : tensor<16xf32>
    scf.yield %y : tensor<16xf32>
  }
  case 1 {
    %y = arith.mulf %x, %x : tensor<16xf32>
    scf.yield %y : tensor<16xf32>
  }
  default {
    scf.yield %x : tensor<16xf32>
  }
  return %r : tensor<16xf32>
}
