// RUN: mxfp8-opt %s -split-input-file --mxfp8train-check-buffer-sizes="max-bytes=4096" --verify-diagnostics | FileCheck %s
// RUN: not mxfp8-opt %s -split-input-file --mxfp8train-lower-to-cpu="max-buffer-bytes=-5" 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// NEGATIVE: error: mxfp8train-check-buffer-sizes: max-bytes must be >= 0 (0: no limit), got -5
// RUN: mxfp8-opt %s -split-input-file --mxfp8train-check-buffer-sizes | FileCheck %s --check-prefix=OFF

// Static buffers above max-bytes are errors at the op; at the limit, of
// dynamic size, or with max-bytes = 0 (the default) they pass.

// CHECK-LABEL: func.func @within
// CHECK: memref.alloc() : memref<32x32xf32>
// CHECK: memref.alloca() : memref<4096xi8>
// CHECK: memref.alloc(%{{.*}}) : memref<?x1048576xf32>
func.func @within(%n: index) {
  %a = memref.alloc() : memref<32x32xf32>
  %b = memref.alloca() : memref<4096xi8>
  %c = memref.alloc(%n) : memref<?x1048576xf32>
  memref.dealloc %a : memref<32x32xf32>
  memref.dealloc %c : memref<?x1048576xf32>
  return
}

// -----

// OFF-LABEL: func.func @beyond
func.func @beyond() {
  // expected-error @below {{a buffer of 4100 bytes ('memref<4100xi8>') exceeds the limit of 4096 bytes (max-bytes)}}
  %a = memref.alloc() : memref<4100xi8>
  // A bf16 element counts 2 bytes.
  // expected-error @below {{a buffer of 8192 bytes ('memref<4096xbf16>') exceeds the limit of 4096 bytes (max-bytes)}}
  %b = memref.alloca() : memref<4096xbf16>
  // expected-error @below {{a buffer of 2^63 or more bytes ('memref<4294967296x4294967296xf32>') exceeds the limit of 4096 bytes (max-bytes)}}
  %c = memref.alloc() : memref<4294967296x4294967296xf32>
  memref.dealloc %a : memref<4100xi8>
  memref.dealloc %c : memref<4294967296x4294967296xf32>
  return
}
