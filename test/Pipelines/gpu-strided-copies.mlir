// REQUIRES: ptxas
// RUN: mxfp8-opt %s --split-input-file --mxfp8train-lower-to-gpu --mlir-print-ir-after=gpu-kernel-outlining -o %t.mlir 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=FINAL < %t.mlir
// RUN: mxfp8-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(mxfp8train-strided-copies))" | FileCheck %s --check-prefix=PASS
// RUN: mxfp8-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(mxfp8train-strided-copies{gpu-memcpy=true}))" | FileCheck %s --check-prefix=MEMCPY
// RUN: mxfp8-opt %s --split-input-file --mxfp8train-gpu-device-buffers --verify-diagnostics -o /dev/null

// A strided tensor.extract_slice feeding quantize (issue 14 row 12):
// bufferization copies the view into a contiguous buffer, a copy gpu.memcpy
// cannot do. It becomes a kernel (linalg.copy) reading the view with its
// strides; mxfp8-opt used to exit 0 with an unconverted gpu.memcpy.

// CHECK-LABEL: func.func @slice_quantize(
// CHECK:         %[[VIEW:.*]] = memref.subview %arg0[0, 0] [64, 64] [2, 2] : memref<128x128xbf16> to memref<64x64xbf16, strided<[256, 2]>>
// CHECK:         %[[BUF:.*]] = memref.alloc() {{.*}} : memref<64x64xbf16>
// CHECK:         gpu.launch_func @[[K:.*]]::@{{.*}} args({{.*}}%[[VIEW]] : memref<64x64xbf16, strided<[256, 2]>>, %[[BUF]] : memref<64x64xbf16>)
// CHECK:         gpu.launch_func @mxfp8train_kernels::@quantize_{{.*}} args(%[[BUF]] : memref<64x64xbf16>,
// CHECK:       gpu.func @{{.*}}(%{{.*}}, %[[SRC:.*]]: memref<64x64xbf16, strided<[256, 2]>>, %[[DST:.*]]: memref<64x64xbf16>) kernel
// CHECK:         %[[V:.*]] = memref.load %[[SRC]][%[[I:.*]], %[[J:.*]]] : memref<64x64xbf16, strided<[256, 2]>>
// CHECK:         memref.store %[[V]], %[[DST]][%[[I]], %[[J]]] : memref<64x64xbf16>

// FINAL-NOT: gpu.memcpy
// FINAL: llvm.func @slice_quantize(

func.func @slice_quantize(%x: tensor<128x128xbf16>) -> (tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU>) {
  %v = tensor.extract_slice %x[0, 0] [64, 64] [2, 2] : tensor<128x128xbf16> to tensor<64x64xbf16>
  %q, %s = mxfp8train.quantize %v axis = 1 mode = rceil : tensor<64x64xbf16> -> tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU>
  return %q, %s : tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU>
}

// -----

// The pass alone: only non-contiguous copies change (on the CPU a
// contiguous copy from or to a view at an offset stays a memcpy); with
// gpu-memcpy, a copy from or to a view at an offset too (upstream's
// gpu.memcpy lowering takes identity-layout sources only: such a copy of
// one micro-batch slice left an unrealized_conversion_cast behind; and it
// writes to the target's aligned pointer without its offset: a copy into
// a tensor.insert_slice destination landed at the buffer's start). Without
// the pass, the device buffer pass reports these copies instead of
// emitting a gpu.memcpy.
// PASS-LABEL: func.func @copies(
// PASS:         linalg.copy ins(%{{.*}} : memref<64x64xbf16, strided<[256, 2]>>) outs(%{{.*}} : memref<64x64xbf16>)
// PASS:         memref.copy %{{.*}}, %{{.*}} : memref<64x64xbf16> to memref<64x64xbf16>
// PASS:         memref.copy %{{.*}}, %{{.*}} : memref<64x64xbf16, strided<[64, 1], offset: ?>> to memref<64x64xbf16>
// PASS:         memref.copy %{{.*}}, %{{.*}} : memref<64x64xbf16> to memref<64x64xbf16, strided<[64, 1], offset: ?>>
// MEMCPY-LABEL: func.func @copies(
// MEMCPY:         linalg.copy ins(%{{.*}} : memref<64x64xbf16, strided<[256, 2]>>) outs(%{{.*}} : memref<64x64xbf16>)
// MEMCPY:         memref.copy %{{.*}}, %{{.*}} : memref<64x64xbf16> to memref<64x64xbf16>
// MEMCPY:         linalg.copy ins(%{{.*}} : memref<64x64xbf16, strided<[64, 1], offset: ?>>) outs(%{{.*}} : memref<64x64xbf16>)
// MEMCPY:         linalg.copy ins(%{{.*}} : memref<64x64xbf16>) outs(%{{.*}} : memref<64x64xbf16, strided<[64, 1], offset: ?>>)
func.func @copies(%x: memref<128x128xbf16>, %y: memref<64x64xbf16>, %z: memref<64x64xbf16>, %b: memref<4x64x64xbf16>, %i: index) {
  %v = memref.subview %x[0, 0] [64, 64] [2, 2] : memref<128x128xbf16> to memref<64x64xbf16, strided<[256, 2]>>
  // expected-error @below {{copy between 'memref<64x64xbf16, strided<[256, 2]>>' and 'memref<64x64xbf16>' is not between contiguous identity-layout buffers, which gpu.memcpy requires; run mxfp8train-strided-copies{gpu-memcpy=true} first}}
  memref.copy %v, %y : memref<64x64xbf16, strided<[256, 2]>> to memref<64x64xbf16>
  memref.copy %y, %z : memref<64x64xbf16> to memref<64x64xbf16>
  %s = memref.subview %b[%i, 0, 0] [1, 64, 64] [1, 1, 1] : memref<4x64x64xbf16> to memref<64x64xbf16, strided<[64, 1], offset: ?>>
  // expected-error @below {{copy between 'memref<64x64xbf16, strided<[64, 1], offset: ?>>' and 'memref<64x64xbf16>' is not between contiguous identity-layout buffers}}
  memref.copy %s, %y : memref<64x64xbf16, strided<[64, 1], offset: ?>> to memref<64x64xbf16>
  // expected-error @below {{copy between 'memref<64x64xbf16>' and 'memref<64x64xbf16, strided<[64, 1], offset: ?>>' is not between contiguous identity-layout buffers}}
  memref.copy %z, %s : memref<64x64xbf16> to memref<64x64xbf16, strided<[64, 1], offset: ?>>
  return
}

// -----

// Copies into views at an offset (a tensor.concat's second half): kernels
// writing through the view, not gpu.memcpy, whose lowering writes to the
// target's aligned pointer without the offset (the rows landed at the
// start of the result).
// CHECK-LABEL: func.func @concat_rows(
// CHECK:         %[[LOW:.*]] = memref.subview %{{.*}}[0, 0] [8, 16] [1, 1] : memref<16x16xf32> to memref<8x16xf32, strided<[16, 1]>>
// CHECK:         gpu.launch_func {{.*}}, %[[LOW]] : memref<8x16xf32, strided<[16, 1]>>)
// CHECK:         %[[HIGH:.*]] = memref.subview %{{.*}}[8, 0] [8, 16] [1, 1] : memref<16x16xf32> to memref<8x16xf32, strided<[16, 1], offset: 128>>
// CHECK:         gpu.launch_func {{.*}}, %[[HIGH]] : memref<8x16xf32, strided<[16, 1], offset: 128>>)
// CHECK-NOT:     memref.copy
// CHECK:         return
func.func @concat_rows(%a: tensor<8x16xf32>, %b: tensor<8x16xf32>) -> tensor<16x16xf32> {
  %r = tensor.concat dim(0) %a, %b : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}
