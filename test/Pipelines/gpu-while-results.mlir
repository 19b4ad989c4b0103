// RUN: mxfp8-opt %s --mxfp8train-lower-to-gpu="format=isa" --mlir-print-ir-after=mxfp8train-gpu-device-buffers -o /dev/null 2>&1 | FileCheck %s
// RUN: rm -rf %t && mkdir -p %t
// RUN: %PYTHON -c "import numpy as np; np.save('%t/x.npy', np.full(64, 1.5, np.float32)); np.save('%t/y.npy', np.arange(64, dtype=np.float32))"
// RUN: mxfp8-run %s --entry=double_until --input=%t/x.npy --output-dir=%t/a > /dev/null
// RUN: mxfp8-run %s --entry=computed_in_before --input=%t/x.npy --output-dir=%t/b > /dev/null
// RUN: mxfp8-run %s --entry=exchanged --input=%t/x.npy --input=%t/y.npy --output-dir=%t/c > /dev/null
// RUN: %PYTHON -c "import numpy as np; l = lambda p: np.load('%t/' + p); print(l('a/r.npy')[:2].tolist(), l('b/r.npy')[:2].tolist(), l('c/r_0.npy')[:3].tolist(), l('c/r_1.npy')[:3].tolist())" | FileCheck %s --check-prefix=VALUES

// Tensors carried by an scf.while through the GPU pipeline: what the
// condition passes on and what the after region yields are copied into the
// region's own arguments where they are new tensors (a kernel's result), as
// for an scf.for's iter_args (RemainingOps.cpp), so that bufferization
// keeps one device buffer per carried tensor. Until session 33 each was an
// error of mxfp8train-gpu-device-buffers: "this tensor is yielded out of
// 'scf.while'". The CPU runs the same functions (values below; the GPU's
// are not checked on a device yet).
//
// double_until: x doubled while x[0] < 100 (1.5 -> 192); computed_in_before:
// the before region computes x + 1 and passes it on while it is below 10
// (1.5 + 9 = 10.5); exchanged: (x, y) -> (y, x) three times.
// VALUES: [192.0, 192.0] [10.5, 10.5] [0.0, 1.0, 2.0] [1.5, 1.5, 1.5]

// Bufferized in place, the loop carries no buffer: both regions work on
// one device buffer made before it (the kernel's new buffer copied back).
// CHECK-LABEL: func.func @double_until(
// CHECK:         %[[BUF:.*]] = gpu.alloc  () : memref<64xf32>
// CHECK:         scf.while : () -> () {
// CHECK:           memref.subview %[[BUF]][0] [1] [1]
// CHECK:           scf.condition(%{{.*}})
// CHECK:         } do {
// CHECK:           %[[NEW:.*]] = gpu.alloc  () : memref<64xf32>
// CHECK:           gpu.launch_func  @mxfp8train_kernels::@{{.*}} args(%[[BUF]] : memref<64xf32>, %[[NEW]] : memref<64xf32>)
// CHECK:           gpu.launch_func  {{.*}} args({{.*}}%[[NEW]] : memref<64xf32>, %[[BUF]] : memref<64xf32>)
// CHECK:           gpu.dealloc  %[[NEW]]
// CHECK:           scf.yield
// CHECK:         }
// CHECK:         gpu.memcpy  %{{.*}}, %[[BUF]]
func.func @double_until(%x: tensor<64xf32>) -> tensor<64xf32> {
  %c0 = arith.constant 0 : index
  %limit = arith.constant 100.0 : f32
  %r = scf.while (%a = %x) : (tensor<64xf32>) -> tensor<64xf32> {
    %v = tensor.extract %a[%c0] : tensor<64xf32>
    %go = arith.cmpf olt, %v, %limit : f32
    scf.condition(%go) %a : tensor<64xf32>
  } do {
  ^bb0(%b: tensor<64xf32>):
    %e = tensor.empty() : tensor<64xf32>
    %n = linalg.generic {indexing_maps = [affine_map<(j) -> (j)>, affine_map<(j) -> (j)>], iterator_types = ["parallel"]}
        ins(%b : tensor<64xf32>) outs(%e : tensor<64xf32>) {
    ^bb0(%p: f32, %o: f32):
      %s = arith.addf %p, %p : f32
      linalg.yield %s : f32
    } -> tensor<64xf32>
    scf.yield %n : tensor<64xf32>
  }
  return %r : tensor<64xf32>
}

// CHECK-LABEL: func.func @computed_in_before(
// CHECK:         %[[BUF:.*]] = gpu.alloc  () : memref<64xf32>
// CHECK:         scf.while : () -> () {
// CHECK:           %[[NEW:.*]] = gpu.alloc  () : memref<64xf32>
// CHECK:           gpu.launch_func  @mxfp8train_kernels::@{{.*}} args(%[[BUF]] : memref<64xf32>, %[[NEW]] : memref<64xf32>)
// CHECK:           gpu.launch_func  {{.*}} args({{.*}}%[[NEW]] : memref<64xf32>, %[[BUF]] : memref<64xf32>)
// CHECK:           scf.condition(%{{.*}})
// CHECK:         } do {
// CHECK-NEXT:      scf.yield
func.func @computed_in_before(%x: tensor<64xf32>) -> tensor<64xf32> {
  %c0 = arith.constant 0 : index
  %limit = arith.constant 10.0 : f32
  %r = scf.while (%a = %x) : (tensor<64xf32>) -> tensor<64xf32> {
    %e = tensor.empty() : tensor<64xf32>
    %n = linalg.generic {indexing_maps = [affine_map<(j) -> (j)>, affine_map<(j) -> (j)>], iterator_types = ["parallel"]}
        ins(%a : tensor<64xf32>) outs(%e : tensor<64xf32>) {
    ^bb0(%p: f32, %o: f32):
      %one = arith.constant 1.0 : f32
      %s = arith.addf %p, %one : f32
      linalg.yield %s : f32
    } -> tensor<64xf32>
    %v = tensor.extract %n[%c0] : tensor<64xf32>
    %go = arith.cmpf olt, %v, %limit : f32
    scf.condition(%go) %n : tensor<64xf32>
  } do {
  ^bb0(%b: tensor<64xf32>):
    scf.yield %b : tensor<64xf32>
  }
  return %r : tensor<64xf32>
}

// Exchanged arguments: each yielded value is first copied into a new
// buffer (bufferization.alloc_tensor), so that neither copy back
// overwrites what the other reads.
// CHECK-LABEL: func.func @exchanged(
// CHECK:         %[[X:.*]] = gpu.alloc  () : memref<64xf32>
// CHECK:         %[[Y:.*]] = gpu.alloc  () : memref<64xf32>
// CHECK:         scf.while (%{{.*}} = %{{.*}}) : (i32) -> i32 {
// CHECK:         } do {
// CHECK:           %[[TY:.*]] = gpu.alloc  () : memref<64xf32>
// CHECK:           gpu.memcpy  %[[TY]], %[[Y]]
// CHECK:           %[[TX:.*]] = gpu.alloc  () : memref<64xf32>
// CHECK:           gpu.memcpy  %[[TX]], %[[X]]
// CHECK:           gpu.launch_func  {{.*}} args({{.*}}%[[TY]] : memref<64xf32>, %[[X]] : memref<64xf32>)
// CHECK:           gpu.launch_func  {{.*}} args({{.*}}%[[TX]] : memref<64xf32>, %[[Y]] : memref<64xf32>)
func.func @exchanged(%x: tensor<64xf32>, %y: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c3 = arith.constant 3 : i32
  %r:3 = scf.while (%a = %x, %b = %y, %i = %c0) : (tensor<64xf32>, tensor<64xf32>, i32) -> (tensor<64xf32>, tensor<64xf32>, i32) {
    %go = arith.cmpi slt, %i, %c3 : i32
    scf.condition(%go) %a, %b, %i : tensor<64xf32>, tensor<64xf32>, i32
  } do {
  ^bb0(%u: tensor<64xf32>, %v: tensor<64xf32>, %j: i32):
    %next = arith.addi %j, %c1 : i32
    scf.yield %v, %u, %next : tensor<64xf32>, tensor<64xf32>, i32
  }
  return %r#0, %r#1 : tensor<64xf32>, tensor<64xf32>
}
