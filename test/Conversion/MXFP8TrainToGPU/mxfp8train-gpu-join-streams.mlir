// RUN: mxfp8-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(gpu-async-region,mxfp8train-gpu-join-streams))' | FileCheck %s
// RUN: mxfp8-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(gpu-async-region))' | FileCheck %s --check-prefix=ASYNC

// gpu-async-region ends the region of the first launch before the host
// code that encodes the second launch's tensor map (a host wait), and starts
// a new stream after it. The encoding touches stack arrays only, so the
// pass joins the regions: one stream, one wait at the end, the map's free
// after it.

// ASYNC-LABEL: func.func @tensor_map_between
// ASYNC-COUNT-2: gpu.wait async
// ASYNC-NOT:     gpu.wait async

// CHECK-LABEL: func.func @tensor_map_between(
// CHECK:         %[[S:.*]] = gpu.wait async
// CHECK-NOT:     gpu.wait
// CHECK:         %[[L1:.*]] = gpu.launch_func async [%[[S]]] @kernels::@first
// CHECK-NOT:     gpu.wait
// CHECK:         %[[MAP:.*]] = llvm.call @mgpuTensorMapEncodeTiledMemref(
// CHECK-NOT:     gpu.wait
// CHECK:         %[[L2:.*]] = gpu.launch_func async [%[[L1]]] @kernels::@second
// CHECK-NOT:     gpu.wait
// CHECK:         gpu.wait [%[[L2]]]
// CHECK-NEXT:    llvm.call @mgpuMemFree(%[[MAP]],
// CHECK-NEXT:    return
module attributes {gpu.container_module} {
  llvm.func @mgpuTensorMapEncodeTiledMemref(i64, !llvm.ptr, i64, i64, i64, i64, i64, !llvm.ptr) -> !llvm.ptr
  llvm.func @mgpuMemFree(!llvm.ptr, !llvm.ptr)
  gpu.module @kernels {
    gpu.func @first(%a: memref<64xf32>) kernel { gpu.return }
    gpu.func @second(%a: memref<64xf32>, %m: !llvm.ptr) kernel { gpu.return }
  }
  func.func @tensor_map_between(%a: memref<64xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@first blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<64xf32>)
    %one = llvm.mlir.constant(1 : i64) : i64
    %desc = llvm.alloca %one x !llvm.array<2 x i64> : (i64) -> !llvm.ptr
    %slot = llvm.getelementptr %desc[0, 1] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<2 x i64>
    llvm.store %one, %slot : i64, !llvm.ptr
    %map = llvm.call @mgpuTensorMapEncodeTiledMemref(%one, %desc, %one, %one, %one, %one, %one, %desc) : (i64, !llvm.ptr, i64, i64, i64, i64, i64, !llvm.ptr) -> !llvm.ptr
    gpu.launch_func @kernels::@second blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<64xf32>, %map : !llvm.ptr)
    %null = llvm.mlir.zero : !llvm.ptr
    llvm.call @mgpuMemFree(%map, %null) : (!llvm.ptr, !llvm.ptr) -> ()
    return
  }
}

// -----

// A map freed between two launches: the free moves after the final wait
// (the first kernel could still read the map), and the regions join.

// ASYNC-LABEL: func.func @free_between(
// CHECK-LABEL: func.func @free_between(
// CHECK:         gpu.wait async
// CHECK-NOT:     gpu.wait
// CHECK:         gpu.launch_func async {{.*}} @kernels::@second
// CHECK-NOT:     mgpuMemFree
// CHECK:         gpu.launch_func async {{.*}} @kernels::@first
// CHECK-NEXT:    gpu.wait [
// CHECK-NEXT:    llvm.call @mgpuMemFree
// CHECK-NEXT:    return
module attributes {gpu.container_module} {
  llvm.func @mgpuTensorMapEncodeTiledMemref(i64, !llvm.ptr, i64, i64, i64, i64, i64, !llvm.ptr) -> !llvm.ptr
  llvm.func @mgpuMemFree(!llvm.ptr, !llvm.ptr)
  gpu.module @kernels {
    gpu.func @first(%a: memref<64xf32>) kernel { gpu.return }
    gpu.func @second(%a: memref<64xf32>, %m: !llvm.ptr) kernel { gpu.return }
  }
  func.func @free_between(%a: memref<64xf32>) {
    %c1 = arith.constant 1 : index
    %one = llvm.mlir.constant(1 : i64) : i64
    %desc = llvm.alloca %one x !llvm.array<2 x i64> : (i64) -> !llvm.ptr
    %map = llvm.call @mgpuTensorMapEncodeTiledMemref(%one, %desc, %one, %one, %one, %one, %one, %desc) : (i64, !llvm.ptr, i64, i64, i64, i64, i64, !llvm.ptr) -> !llvm.ptr
    gpu.launch_func @kernels::@second blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<64xf32>, %map : !llvm.ptr)
    %null = llvm.mlir.zero : !llvm.ptr
    llvm.call @mgpuMemFree(%map, %null) : (!llvm.ptr, !llvm.ptr) -> ()
    gpu.launch_func @kernels::@first blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<64xf32>)
    return
  }
}

// -----

// Host code that may touch device-visible memory keeps the wait: a call of
// another function (which may launch kernels of its own), a store through
// a pointer that is not on the stack, an encoding that reads such a
// pointer, and the free of a buffer that is not a tensor map.

// CHECK-LABEL: func.func @kept(
// CHECK-COUNT-5: gpu.wait async
// CHECK-NOT:     gpu.wait async
// CHECK:         return
module attributes {gpu.container_module} {
  llvm.func @mgpuTensorMapEncodeTiledMemref(i64, !llvm.ptr, i64, i64, i64, i64, i64, !llvm.ptr) -> !llvm.ptr
  llvm.func @mgpuMemFree(!llvm.ptr, !llvm.ptr)
  func.func private @other()
  gpu.module @kernels {
    gpu.func @first(%a: memref<64xf32>) kernel { gpu.return }
  }
  func.func @kept(%a: memref<64xf32>, %p: !llvm.ptr, %buffer: !llvm.ptr) {
    %c1 = arith.constant 1 : index
    %one = llvm.mlir.constant(1 : i64) : i64
    %null = llvm.mlir.zero : !llvm.ptr
    gpu.launch_func @kernels::@first blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<64xf32>)
    func.call @other() : () -> ()
    gpu.launch_func @kernels::@first blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<64xf32>)
    llvm.store %one, %p : i64, !llvm.ptr
    gpu.launch_func @kernels::@first blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<64xf32>)
    %map = llvm.call @mgpuTensorMapEncodeTiledMemref(%one, %p, %one, %one, %one, %one, %one, %p) : (i64, !llvm.ptr, i64, i64, i64, i64, i64, !llvm.ptr) -> !llvm.ptr
    gpu.launch_func @kernels::@first blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<64xf32>)
    llvm.call @mgpuMemFree(%buffer, %null) : (!llvm.ptr, !llvm.ptr) -> ()
    gpu.launch_func @kernels::@first blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<64xf32>)
    return
  }
}
