// --compare notes a result (and a matmul) that is all zeros in both runs:
// its inf dB PASS compares nothing. Generated integer inputs
// are zeros, so generated offs put every token in empty groups.
//
// RUN: mxfp8-run %s --compare --entry=moe_fwd | FileCheck %s
// CHECK: 0  o {{.*}} inf
// CHECK-NEXT: note: result #0 (o) is all zeros in both runs: its comparison checks nothing (generated integer inputs such as offs are zeros; give them with --input)
// CHECK: note: matmul compare-zero-results.mlir:{{[0-9]+}}:8 is all zeros in both runs: its comparison checks nothing
//
// With offs that hold tokens there is no note.
// RUN: mxfp8-run %s --compare --entry=moe_fwd_offs | FileCheck %s --check-prefix=REAL
// REAL-NOT: note:
// REAL: bars: 1 passed, 0 failed

func.func @moe_fwd(%x: tensor<64x64xbf16>, %w: tensor<2x32x64xbf16>, %offs: tensor<2xi32>) -> tensor<64x32xf32> {
  %o = mxfp8train.grouped_mm %x, %w offs(%offs) transpose_rhs : tensor<64x64xbf16>, tensor<2x32x64xbf16>, tensor<2xi32> -> tensor<64x32xf32>
  return %o : tensor<64x32xf32>
}

func.func @moe_fwd_offs(%x: tensor<64x64xbf16>, %w: tensor<2x32x64xbf16>) -> tensor<64x32xf32> {
  %offs = arith.constant dense<[32, 64]> : tensor<2xi32>
  %o = mxfp8train.grouped_mm %x, %w offs(%offs) transpose_rhs : tensor<64x64xbf16>, tensor<2x32x64xbf16>, tensor<2xi32> -> tensor<64x32xf32>
  return %o : tensor<64x32xf32>
}
