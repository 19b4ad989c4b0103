// RUN: mxfp8-opt %s --mxfp8train-gpu-device-buffers --split-input-file --verify-diagnostics | FileCheck %s

// Buffers the host function allocates itself are device memory, freed at
// the end of their block; copies between buffers are device copies.

// CHECK-LABEL: func.func @intermediate(
// CHECK-SAME:    %[[X:.*]]: memref<64xf32>, %[[OUT:.*]]: memref<64xf32>
// CHECK:         %[[T:.*]] = gpu.alloc  () : memref<64xf32>
// CHECK-NOT:     memref.alloc
// CHECK:         gpu.memcpy  %[[T]], %[[X]] : memref<64xf32>, memref<64xf32>
// CHECK:         gpu.memcpy  %[[OUT]], %[[T]] : memref<64xf32>, memref<64xf32>
// CHECK:         gpu.dealloc  %[[T]] : memref<64xf32>
// CHECK-NEXT:    return
func.func @intermediate(%x: memref<64xf32>, %out: memref<64xf32>) {
  %t = memref.alloc() : memref<64xf32>
  memref.copy %x, %t : memref<64xf32> to memref<64xf32>
  memref.copy %t, %out : memref<64xf32> to memref<64xf32>
  return
}

// -----

// A buffer the function frees itself is freed once, where it says.

// CHECK-LABEL: func.func @freed_by_user(
// CHECK:         %[[T:.*]] = gpu.alloc  () : memref<2x32xi8>
// CHECK:         gpu.dealloc  %[[T]] : memref<2x32xi8>
// CHECK-NOT:     gpu.dealloc
// CHECK:         return
func.func @freed_by_user() {
  %t = memref.alloc() : memref<2x32xi8>
  memref.dealloc %t : memref<2x32xi8>
  return
}

// -----

func.func @host_access(%x: memref<64xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'memref.load' would access device memory from the host; the GPU pipeline lowers only the mxfp8train ops that convert-mxfp8train-to-gpu supports}}
  %v = memref.load %x[%c0] : memref<64xf32>
  return %v : f32
}

// -----

func.func @escapes() -> memref<64xf32> {
  // expected-error @+1 {{buffer escapes its block through 'func.return'; run buffer-results-to-out-params before mxfp8train-gpu-device-buffers}}
  %t = memref.alloc() : memref<64xf32>
  return %t : memref<64xf32>
}

// -----

// A constant (a host global after bufferization) is read by kernels through
// a device copy made where it is used and freed at the end of the block.

// CHECK-LABEL: func.func @constant(
// CHECK-SAME:    %[[OUT:.*]]: memref<4xi32>
// CHECK:         %[[G:.*]] = memref.get_global @offs : memref<4xi32>
// CHECK-NEXT:    %[[D:.*]] = gpu.alloc  () : memref<4xi32>
// CHECK-NEXT:    gpu.memcpy  %[[D]], %[[G]] : memref<4xi32>, memref<4xi32>
// CHECK-NEXT:    gpu.memcpy  %[[OUT]], %[[D]] : memref<4xi32>, memref<4xi32>
// CHECK-NEXT:    gpu.dealloc  %[[D]] : memref<4xi32>
// CHECK-NEXT:    return
memref.global "private" constant @offs : memref<4xi32> = dense<[3, 3, 7, 9]>
func.func @constant(%out: memref<4xi32>) {
  %g = memref.get_global @offs : memref<4xi32>
  memref.copy %g, %out : memref<4xi32> to memref<4xi32>
  return
}

// -----

// A host read of a one-element buffer (a tensor.extract of a scalar) reads
// a host copy: a stack slot made at the entry (not in the loop's body),
// gpu.memcpy into it before each read.
// CHECK-LABEL: func.func @host_scalar_read(
// CHECK-SAME:    %[[S:.*]]: memref<f32>, %[[T:.*]]: memref<1x1xi32>
// CHECK-DAG:     %[[SLOT1:.*]] = memref.alloca() : memref<f32>
// CHECK-DAG:     %[[SLOT2:.*]] = memref.alloca() : memref<1x1xi32>
// CHECK:         scf.for
// CHECK:           gpu.memcpy %[[SLOT2]], %[[T]] : memref<1x1xi32>, memref<1x1xi32>
// CHECK-NEXT:      memref.load %[[SLOT2]][%{{.*}}, %{{.*}}] : memref<1x1xi32>
// CHECK:         gpu.memcpy %[[SLOT1]], %[[S]] : memref<f32>, memref<f32>
// CHECK-NEXT:    memref.load %[[SLOT1]][] : memref<f32>
func.func @host_scalar_read(%s: memref<f32>, %t: memref<1x1xi32>) -> (f32, i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %z = arith.constant 0 : i32
  %sum = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %z) -> (i32) {
    %v = memref.load %t[%c0, %c0] : memref<1x1xi32>
    %n = arith.addi %a, %v : i32
    scf.yield %n : i32
  }
  %f = memref.load %s[] : memref<f32>
  return %f, %sum : f32, i32
}
