// Plain mode: inputs from mxfp8run.values attributes and the documented
// defaults (integers zero, e8m0 scales byte 127), outputs checked bit for bit
// in the .npy files with an independent Python reader.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: mxfp8-run %s --entry=values --output-dir=%t/u16 | FileCheck %s
// RUN: %PYTHON %S/Inputs/npytool.py dump %t/u16/y.npy --bf16 | FileCheck %s --check-prefix=Y16
// RUN: %PYTHON %S/Inputs/npytool.py dump %t/u16/sum.npy | FileCheck %s --check-prefix=SUM
// RUN: %PYTHON %S/Inputs/npytool.py dump %t/u16/scale.npy | FileCheck %s --check-prefix=SCALE
// RUN: %PYTHON %S/Inputs/npytool.py dump %t/u16/qc.npy | FileCheck %s --check-prefix=Q
// RUN: %PYTHON %S/Inputs/npytool.py dump %t/u16/w2.npy | FileCheck %s --check-prefix=W
// RUN: %PYTHON %S/Inputs/npytool.py dump %t/u16/pair_1.npy | FileCheck %s --check-prefix=PAIR
// RUN: mxfp8-run %s --entry=values --output-dir=%t/f32 --bf16-as=float32 > %t/f32.log
// RUN: %PYTHON %S/Inputs/npytool.py dump %t/f32/y.npy | FileCheck %s --check-prefix=Y32

// CHECK: device: cpu
// CHECK-NEXT: mxfp8-run: @values from {{.*}}run-values.mlir
// CHECK-NEXT: inputs:
// CHECK-NEXT: #0 a : 2x3xf32  mxfp8run.values
// CHECK-NEXT: #1 b : 2x3xbf16  mxfp8run.values
// CHECK-NEXT: #2 n : 4xi32  mxfp8run.values
// CHECK-NEXT: #3 z : 4xi32  zeros
// CHECK-NEXT: #4 s : 2xf8E8M0FNU  scale byte 127 (1.0)
// CHECK-NEXT: #5 q : 3xf8E4M3FN  mxfp8run.values
// CHECK-NEXT: #6 w : 2x2xbf16  mxfp8run.values
// CHECK-NEXT: (generated with seed 0
// CHECK-NEXT: outputs:
// CHECK-NEXT: #  name   role    type         L2 norm  max abs  file
// CHECK-NEXT: 0  y      -       2x3xbf16     4.31683  2.5      {{.*}}u16/y.npy
// CHECK-NEXT: 1  sum    -       4xi32        5.47723  4        {{.*}}u16/sum.npy
// CHECK-NEXT: 2  scale  -       2xf8E8M0FNU  1.41421  1        {{.*}}u16/scale.npy
// CHECK-NEXT: 3  qc     output  3xf8E4M3FN   448.001  448      {{.*}}u16/qc.npy
// CHECK-NEXT: 4  w2     -       2x2xbf16     6        3        {{.*}}u16/w2.npy
// CHECK-NEXT: 5  w3     -       2x2xbf16     4.5      2.25     {{.*}}u16/w3.npy
// CHECK-NEXT: 6  pair#1 -       4xi32        18.8149  16       {{.*}}u16/pair_1.npy
// CHECK-NEXT: time: compile

// bf16(f32(a / 3) + 0.5) rounded to nearest even:
// Y16: descr <u2 shape 2x3
// Y16-NEXT: values 0x3F55 0x3F95 0x3FC0 0x3FEB 0x400B 0x4020
// Y16-NEXT: floats 0.83203125 1.1640625 1.5 1.8359375 2.171875 2.5
// Y32: descr <f4 shape 2x3
// Y32-NEXT: values 0.83203125 1.1640625 1.5 1.8359375 2.171875 2.5
// SUM: descr <i4 shape 4
// SUM-NEXT: values 1 -2 3 4
// SCALE: descr |u1 shape 2
// SCALE-NEXT: values 0x7F 0x7F
// Q: descr |u1 shape 3
// Q-NEXT: values 0x38 0xFE 0x18
// The splat 2x2 bf16 input -1.5 (0xBFC0), doubled: -3.0 (0xC040).
// W: descr <u2 shape 2x2
// W-NEXT: values 0xC040 0xC040 0xC040 0xC040
// PAIR: descr <i4 shape 4
// PAIR-NEXT: values 1 4 9 16

#id = affine_map<(d0, d1) -> (d0, d1)>
#id1 = affine_map<(d0) -> (d0)>

func.func @values(
    %a: tensor<2x3xf32> {mxfp8run.values = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>},
    %b: tensor<2x3xbf16> {mxfp8run.values = dense<0.5> : tensor<2x3xbf16>},
    %n: tensor<4xi32> {mxfp8run.values = dense<[1, -2, 3, 4]> : tensor<4xi32>},
    %z: tensor<4xi32>,
    %s: tensor<2xf8E8M0FNU>,
    %q: tensor<3xf8E4M3FN> {mxfp8run.values = dense<[1.0, -448.0, 0.0625]> : tensor<3xf8E4M3FN>},
    %w: tensor<2x2xbf16> {mxfp8run.values = dense<-1.5> : tensor<2x2xbf16>})
    -> (tensor<2x3xbf16>, tensor<4xi32> {mxfp8run.name = "sum"},
        tensor<2xf8E8M0FNU> {mxfp8run.name = "scale"},
        tensor<3xf8E4M3FN> {mxfp8train.role = "output"}, tensor<2x2xbf16>,
        tensor<2x2xbf16>, tensor<4xi32>) {
  %ye = tensor.empty() : tensor<2x3xbf16>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<2x3xf32>, tensor<2x3xbf16>) outs(%ye : tensor<2x3xbf16>) {
  ^bb0(%x: f32, %h: bf16, %o: bf16):
    %three = arith.constant 3.0 : f32
    %d = arith.divf %x, %three : f32
    %hf = arith.extf %h : bf16 to f32
    %r = arith.addf %d, %hf : f32
    %t = arith.truncf %r : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<2x3xbf16>
  %se = tensor.empty() : tensor<4xi32>
  %sum = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]}
      ins(%n, %z : tensor<4xi32>, tensor<4xi32>) outs(%se : tensor<4xi32>) {
  ^bb0(%x: i32, %y0: i32, %o: i32):
    %r = arith.addi %x, %y0 : i32
    linalg.yield %r : i32
  } -> tensor<4xi32>
  %ce = tensor.empty() : tensor<2xf8E8M0FNU>
  %scale = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%s : tensor<2xf8E8M0FNU>) outs(%ce : tensor<2xf8E8M0FNU>) {
  ^bb0(%x: f8E8M0FNU, %o: f8E8M0FNU):
    linalg.yield %x : f8E8M0FNU
  } -> tensor<2xf8E8M0FNU>
  %qe = tensor.empty() : tensor<3xf8E4M3FN>
  %qc = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%q : tensor<3xf8E4M3FN>) outs(%qe : tensor<3xf8E4M3FN>) {
  ^bb0(%x: f8E4M3FN, %o: f8E4M3FN):
    linalg.yield %x : f8E4M3FN
  } -> tensor<3xf8E4M3FN>
  %we = tensor.empty() : tensor<2x2xbf16>
  %w2, %w3 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w : tensor<2x2xbf16>) outs(%we, %we : tensor<2x2xbf16>, tensor<2x2xbf16>) {
  ^bb0(%x: bf16, %o: bf16, %o2: bf16):
    %r = arith.addf %x, %x : bf16
    %m = arith.mulf %x, %x : bf16
    linalg.yield %r, %m : bf16, bf16
  } -> (tensor<2x2xbf16>, tensor<2x2xbf16>)
  %pair:2 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]}
      ins(%n : tensor<4xi32>) outs(%se, %se : tensor<4xi32>, tensor<4xi32>) {
  ^bb0(%x: i32, %o: i32, %o2: i32):
    %r = arith.muli %x, %x : i32
    linalg.yield %x, %r : i32, i32
  } -> (tensor<4xi32>, tensor<4xi32>)
  return %y, %sum, %scale, %qc, %w2, %w3, %pair#1 : tensor<2x3xbf16>, tensor<4xi32>, tensor<2xf8E8M0FNU>, tensor<3xf8E4M3FN>, tensor<2x2xbf16>, tensor<2x2xbf16>, tensor<4xi32>
}
