// An argument or result too large for the host is an error with a non-zero
// exit before anything is allocated, not an abort in the allocator (issue 14
// row 14). 2^61 bf16 elements are 2^62 bytes, more than any address space
// maps; 2^62 x 4 f32 elements overflow int64 bytes.
//
// RUN: not mxfp8-run %s --entry=huge 2>&1 | FileCheck %s --check-prefix=HUGE
// HUGE: mxfp8-run: error: cannot allocate 4611686018427387904 bytes for argument #0 (x) of @huge (2305843009213693952xbf16)
//
// RUN: not mxfp8-run %s --entry=overflow 2>&1 | FileCheck %s --check-prefix=OVERFLOW
// OVERFLOW: mxfp8-run: error: cannot allocate 2^63 or more bytes for argument #0 (x) of @overflow (4611686018427387904x4xf32)
//
// RUN: not mxfp8-run %s --entry=huge_result 2>&1 | FileCheck %s --check-prefix=RESULT
// RESULT: mxfp8-run: error: cannot allocate 4611686018427387904 bytes for result #0 (e) of @huge_result (2305843009213693952xbf16)
//
// RUN: not mxfp8-run %s --entry=huge --compare 2>&1 | FileCheck %s --check-prefix=HUGE

func.func @huge(%x: tensor<2305843009213693952xbf16>) -> tensor<2305843009213693952xbf16> {
  return %x : tensor<2305843009213693952xbf16>
}

func.func @overflow(%x: tensor<4611686018427387904x4xf32>) -> tensor<4611686018427387904x4xf32> {
  return %x : tensor<4611686018427387904x4xf32>
}

func.func @huge_result() -> tensor<2305843009213693952xbf16> {
  %e = tensor.empty() : tensor<2305843009213693952xbf16>
  return %e : tensor<2305843009213693952xbf16>
}
