// RUN: mxfp8-opt %s --pass-pipeline='builtin.module(func.func(mxfp8train-gpu-launch-view-args))' | FileCheck %s
// RUN: mxfp8-opt %s --pass-pipeline='builtin.module(func.func(mxfp8train-gpu-launch-view-args),gpu-kernel-outlining)' | FileCheck %s --check-prefix=OUTLINED

// A view at a dynamic offset (one micro-batch of a loop) read in a launch
// body: the launch captures its base buffer and offset, and the body
// rebuilds the view, so that bare-pointer kernel arguments suffice. A view
// with a static layout is captured as it is.

// CHECK-LABEL: func.func @slice_copy(
// CHECK-SAME:    %[[X:.*]]: memref<4x8x16xf32>, %[[I:.*]]: index, %[[OUT:.*]]: memref<8x16xf32>
// CHECK:         %[[V:.*]] = memref.subview %[[X]][%[[I]], 0, 0]
// CHECK:         %[[BASE:.*]], %[[OFF:.*]], %{{.*}}:2, %{{.*}}:2 = memref.extract_strided_metadata %[[V]]
// CHECK:         gpu.launch
// CHECK-NEXT:      %[[R:.*]] = memref.reinterpret_cast %[[BASE]] to offset: [%[[OFF]]], sizes: [8, 16], strides: [16, 1] : memref<f32> to memref<8x16xf32, strided<[16, 1], offset: ?>>
// CHECK:           memref.load %[[R]][%{{.*}}, %{{.*}}] : memref<8x16xf32, strided<[16, 1], offset: ?>>
// CHECK:           memref.load %[[S:.*]][%{{.*}}, %{{.*}}] : memref<8x16xf32, strided<[64, 2]>>
// CHECK:           gpu.terminator

// OUTLINED: gpu.launch_func  @slice_copy_kernel::@slice_copy_kernel {{.*}} args(%{{.*}} : memref<f32>, %{{.*}} : index, %{{.*}} : memref<8x16xf32, strided<[64, 2]>>, %{{.*}} : memref<8x16xf32>)
// OUTLINED: gpu.func @slice_copy_kernel(%{{.*}}: memref<f32>, %{{.*}}: index, %{{.*}}: memref<8x16xf32, strided<[64, 2]>>, %{{.*}}: memref<8x16xf32>) kernel
func.func @slice_copy(%x: memref<4x8x16xf32>, %i: index, %out: memref<8x16xf32>, %y: memref<16x32xf32>) {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %v = memref.subview %x[%i, 0, 0] [1, 8, 16] [1, 1, 1] : memref<4x8x16xf32> to memref<8x16xf32, strided<[16, 1], offset: ?>>
  %s = memref.subview %y[0, 0] [8, 16] [2, 2] : memref<16x32xf32> to memref<8x16xf32, strided<[64, 2]>>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c8, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c1, %sz = %c1) {
    %a = memref.load %v[%bx, %tx] : memref<8x16xf32, strided<[16, 1], offset: ?>>
    %b = memref.load %s[%bx, %tx] : memref<8x16xf32, strided<[64, 2]>>
    %c = arith.addf %a, %b : f32
    memref.store %c, %out[%bx, %tx] : memref<8x16xf32>
    gpu.terminator
  }
  return
}
