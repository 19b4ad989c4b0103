// Generated inputs: normal(0, std) with --input-std and the mxfp8run.std
// argument attribute, reproducible for a seed, different for another seed,
// and read back through --input (bf16 as uint16 bits or as float32).
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: mxfp8-run %s --input-std=3 --output-dir=%t/s0 --save-inputs | FileCheck %s
// RUN: %PYTHON %S/Inputs/npytool.py stats %t/s0/inputs/0_a.npy 3 | FileCheck %s --check-prefix=STATS
// RUN: %PYTHON %S/Inputs/npytool.py stats %t/s0/inputs/1_w.npy 0.02 --bf16 | FileCheck %s --check-prefix=STATS
// RUN: %PYTHON %S/Inputs/npytool.py negated %t/s0/inputs/0_a.npy %t/s0/na.npy
// RUN: %PYTHON %S/Inputs/npytool.py negated %t/s0/inputs/1_w.npy %t/s0/nw.npy
//
// Same seed, same inputs; another seed, other inputs:
// RUN: mxfp8-run %s --input-std=3 --output-dir=%t/s0b > %t/s0b.log
// RUN: %PYTHON %S/Inputs/npytool.py same %t/s0/na.npy %t/s0b/na.npy
// RUN: %PYTHON %S/Inputs/npytool.py same %t/s0/nw.npy %t/s0b/nw.npy
// RUN: mxfp8-run %s --input-std=3 --seed=1 --output-dir=%t/s1 > %t/s1.log
// RUN: %PYTHON %S/Inputs/npytool.py differ %t/s0/na.npy %t/s1/na.npy
// RUN: %PYTHON %S/Inputs/npytool.py differ %t/s0/nw.npy %t/s1/nw.npy
//
// --input, bf16 as its bits:
// RUN: mxfp8-run %s --input=%t/s0/inputs/0_a.npy --input=%t/s0/inputs/1_w.npy --output-dir=%t/r16 | FileCheck %s --check-prefix=READ
// RUN: %PYTHON %S/Inputs/npytool.py same %t/s0/na.npy %t/r16/na.npy
// RUN: %PYTHON %S/Inputs/npytool.py same %t/s0/nw.npy %t/r16/nw.npy
//
// --input, bf16 given as float32 (exact, so the results are the same):
// RUN: mxfp8-run %s --input-std=3 --bf16-as=float32 --output-dir=%t/f32 --save-inputs > %t/f32.log
// RUN: %PYTHON %S/Inputs/npytool.py dump %t/f32/inputs/1_w.npy | FileCheck %s --check-prefix=F32
// RUN: mxfp8-run %s --input=%t/f32/inputs/0_a.npy --input=%t/f32/inputs/1_w.npy --output-dir=%t/r32 > %t/r32.log
// RUN: %PYTHON %S/Inputs/npytool.py same %t/s0/nw.npy %t/r32/nw.npy

// CHECK: inputs:
// CHECK-NEXT: #0 a : 512x512xf32  normal(0, 3)
// CHECK-NEXT: #1 w : 256x512xbf16  normal(0, 0.02)
// CHECK-NEXT: (generated with seed 0 in
// CHECK: 0  na
// CHECK: 1  nw

// STATS: stats ok

// READ: #0 a : 512x512xf32  {{.*}}0_a.npy
// READ-NEXT: #1 w : 256x512xbf16  {{.*}}1_w.npy
// READ-NEXT: (read in

// F32: descr <f4 shape 256x512

#id = affine_map<(d0, d1) -> (d0, d1)>

func.func @negate(%a: tensor<512x512xf32>,
                  %w: tensor<256x512xbf16> {mxfp8run.std = 0.02 : f64})
    -> (tensor<512x512xf32>, tensor<256x512xbf16>) {
  %ae = tensor.empty() : tensor<512x512xf32>
  %na = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<512x512xf32>) outs(%ae : tensor<512x512xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.negf %x : f32
    linalg.yield %r : f32
  } -> tensor<512x512xf32>
  %we = tensor.empty() : tensor<256x512xbf16>
  %nw = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w : tensor<256x512xbf16>) outs(%we : tensor<256x512xbf16>) {
  ^bb0(%x: bf16, %o: bf16):
    %r = arith.negf %x : bf16
    linalg.yield %r : bf16
  } -> tensor<256x512xbf16>
  return %na, %nw : tensor<512x512xf32>, tensor<256x512xbf16>
}
