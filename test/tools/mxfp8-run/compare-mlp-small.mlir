// The main job's structure at a small size (examples/mlp_train_step_small.mlir,
// T = 32, D = 256, F = 512): nine matmuls converted with their roles, every
// matmul meets torchao's per-linear bar when converted alone, and the whole
// block's results (behind 3 to 5 quantized GEMMs) are reported with the
// per-linear bar for reference only. SQNR of `out` and `dw2` checked against
// Python.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: mxfp8-run %mxfp8train_src_root/examples/mlp_train_step_small.mlir --entry=mlp_train_step --compare --recipe=mxfp8_rceil --output-dir=%t > %t/log
// RUN: %PYTHON %S/Inputs/npytool.py sqnr %t/out.original.npy %t/out.converted.npy --bf16 >> %t/log
// RUN: %PYTHON %S/Inputs/npytool.py sqnr %t/dw2.original.npy %t/dw2.converted.npy --bf16 >> %t/log
// RUN: FileCheck %s < %t/log

// CHECK: device: cpu
// CHECK-NEXT: mxfp8-run: @mlp_train_step from {{.*}}mlp_train_step_small.mlir
// CHECK-NEXT: recipe: #mxfp8train.recipe<mxfp8_rceil>
// CHECK: matmuls: 9 before, 9 scaled_mm after (dgrad 3, forward 3, wgrad 3), 0 kept in high precision
// CHECK-NEXT: remark: mlp.w1.fwd: mxfp8train: converted (role forward
// CHECK-NEXT: remark: mlp.w3.fwd: mxfp8train: converted (role forward
// CHECK-NEXT: remark: mlp.w2.fwd: mxfp8train: converted (role forward
// CHECK-NEXT: remark: mlp.w2.dgrad: mxfp8train: converted (role dgrad
// CHECK-NEXT: remark: mlp.w2.wgrad: mxfp8train: converted (role wgrad
// CHECK-NEXT: remark: mlp.w1.dgrad: mxfp8train: converted (role dgrad
// CHECK-NEXT: remark: mlp.w3.dgrad: mxfp8train: converted (role dgrad
// CHECK-NEXT: remark: mlp.w1.wgrad: mxfp8train: converted (role wgrad
// CHECK-NEXT: remark: mlp.w3.wgrad: mxfp8train: converted (role wgrad
// CHECK-NEXT: inputs:
// CHECK-NEXT: #0 x : 32x256xbf16  normal(0, 1)
// CHECK-NEXT: #1 w1 : 512x256xbf16  normal(0, 0.02)
// CHECK-NEXT: #2 w3 : 512x256xbf16  normal(0, 0.02)
// CHECK-NEXT: #3 w2 : 256x512xbf16  normal(0, 0.02)
// CHECK-NEXT: #4 dO : 32x256xbf16  normal(0, 1)
// CHECK: results (converted vs original):
// CHECK-NEXT: #  name  role         type          GEMMs  SQNR dB  max abs err  bar dB   result
// CHECK-NEXT: 0  out   output       32x256xbf16   3      [[OUT:2[0-9]\.[0-9]+]]    [[OUTE:[0-9.e+-]+]]    (27.00)  ({{above|below}})
// CHECK-NEXT: 1  dx    input_grad   32x256xbf16   5      2{{[0-9]\.[0-9]+}}
// CHECK-NEXT: 2  dw1   weight_grad  512x256xbf16  4      2{{[0-9]\.[0-9]+}}
// CHECK-NEXT: 3  dw3   weight_grad  512x256xbf16  4      2{{[0-9]\.[0-9]+}}
// CHECK-NEXT: 4  dw2   weight_grad  256x512xbf16  3      [[DW2:2[0-9]\.[0-9]+]]    [[DW2E:[0-9.e+-]+]]    (24.00)
// CHECK-NEXT: note: {{.*}}
// CHECK-NEXT: matmuls (each converted alone on the original's inputs):
// CHECK-NEXT: matmul        role     type         SQNR dB  max abs err  bar dB    result
// CHECK-NEXT: mlp.w1.fwd    forward  32x512xf32   {{.*}}  >= 27.00  PASS
// CHECK-NEXT: mlp.w3.fwd    forward  32x512xf32   {{.*}}  >= 27.00  PASS
// CHECK-NEXT: mlp.w2.fwd    forward  32x256xf32   {{.*}}  >= 27.00  PASS
// CHECK-NEXT: mlp.w2.dgrad  dgrad    32x512xf32   {{.*}}  >= 25.00  PASS
// CHECK-NEXT: mlp.w2.wgrad  wgrad    256x512xf32  {{.*}}  >= 24.00  PASS
// CHECK-NEXT: mlp.w1.dgrad  dgrad    32x256xf32   {{.*}}  >= 25.00  PASS
// CHECK-NEXT: mlp.w3.dgrad  dgrad    32x256xf32   {{.*}}  >= 25.00  PASS
// CHECK-NEXT: mlp.w1.wgrad  wgrad    512x256xf32  {{.*}}  >= 24.00  PASS
// CHECK-NEXT: mlp.w3.wgrad  wgrad    512x256xf32  {{.*}}  >= 24.00  PASS
// CHECK-NEXT: time: compile
// CHECK-NEXT: bars: 9 passed, 0 failed
// CHECK-NEXT: python sqnr [[OUT]] max abs err [[OUTE]]
// CHECK-NEXT: python sqnr [[DW2]] max abs err [[DW2E]]
