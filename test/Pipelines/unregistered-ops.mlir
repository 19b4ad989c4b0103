// RUN: mxfp8-opt %s --allow-unregistered-dialect --convert-mxfp8train-to-linalg | FileCheck %s --check-prefix=PASS
// RUN: mxfp8-opt %s --allow-unregistered-dialect --convert-mxfp8train-to-gpu | FileCheck %s --check-prefix=PASS
// RUN: mxfp8-opt %s --allow-unregistered-dialect --mxfp8train-lower-to-cpu --verify-diagnostics -o /dev/null
// RUN: mxfp8-opt %s --allow-unregistered-dialect --mxfp8train-lower-to-gpu="format=isa" --verify-diagnostics -o /dev/null

// An op of an unregistered dialect (issue 14 row 2): the conversions leave
// it alone (they crashed asking it for its dialect) and still lower our ops;
// the pipelines reject it at its location before any lowering.

// PASS-LABEL: func.func @unregistered(
// PASS:         "foo.bar"(%{{.*}}) : (tensor<64x64xbf16>) -> tensor<64x64xbf16>
// PASS-NOT:     mxfp8train.quantize
func.func @unregistered(%x: tensor<64x64xbf16>) -> (tensor<64x64xbf16>, tensor<64x64xf8E4M3FN>) {
  // expected-error @below {{'foo.bar' is an op of an unregistered dialect; the mxfp8train pipelines lower registered ops only}}
  %0 = "foo.bar"(%x) : (tensor<64x64xbf16>) -> tensor<64x64xbf16>
  %q, %s = mxfp8train.quantize %0 axis = 1 mode = rceil : tensor<64x64xbf16> -> tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU>
  return %0, %q : tensor<64x64xbf16>, tensor<64x64xf8E4M3FN>
}
