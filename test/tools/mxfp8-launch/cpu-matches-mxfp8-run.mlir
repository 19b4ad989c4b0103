// The AOT path on the CPU gives the bytes of the JIT path: mxfp8-compile an
// object, link it into a shared library with the host compiler, run it with
// mxfp8-launch, and compare every input (--save-inputs) and every result
// with mxfp8-run on the same module and seed, byte for byte (.npy headers
// included). The inputs cover every generated kind: bf16 and f32 normals,
// fp8 normals saturated at the format's maximum (std far above it) and in the
// subnormal range, e8m0 scale bytes, integer zeros and mxfp8run.values
// (dense and splat).
//
// REQUIRES: host-cxx
// RUN: rm -rf %t && mkdir -p %t
// RUN: mxfp8-compile %s -o %t/m.o --manifest=%t/m.manifest
// RUN: %host_cxx -shared -o %t/m.so %t/m.o -Wl,-Bsymbolic -L%mxfp8train_lib_dir -lmxfp8train_runtime
//
// RUN: mxfp8-launch %t/m.so %t/m.manifest --entry=quantize --output-dir=%t/l1 --save-inputs | FileCheck %s --check-prefix=QUANTIZE
// RUN: mxfp8-run %s --entry=quantize --output-dir=%t/r1 --save-inputs > %t/r1.log
// RUN: cmp %t/l1/q.npy %t/r1/q.npy
// RUN: cmp %t/l1/s.npy %t/r1/s.npy
// RUN: cmp %t/l1/inputs/0_x.npy %t/r1/inputs/0_x.npy
//
// Another seed and default std, bf16 written as float32:
// RUN: mxfp8-launch %t/m.so %t/m.manifest --entry=matmul --seed=7 --input-std=2.5 --bf16-as=float32 --output-dir=%t/l2 --save-inputs > %t/l2.log
// RUN: mxfp8-run %s --entry=matmul --seed=7 --input-std=2.5 --bf16-as=float32 --output-dir=%t/r2 --save-inputs > %t/r2.log
// RUN: cmp %t/l2/c.npy %t/r2/c.npy
// RUN: cmp %t/l2/inputs/0_a.npy %t/r2/inputs/0_a.npy
// RUN: cmp %t/l2/inputs/1_b.npy %t/r2/inputs/1_b.npy
// RUN: %PYTHON %S/../mxfp8-run/Inputs/npytool.py differ %t/l1/inputs/0_x.npy %t/l2/inputs/0_a.npy
//
// Every input kind:
// RUN: mxfp8-launch %t/m.so %t/m.manifest --entry=kinds --output-dir=%t/l3 --save-inputs | FileCheck %s --check-prefix=KINDS
// RUN: mxfp8-run %s --entry=kinds --output-dir=%t/r3 --save-inputs > %t/r3.log
// RUN: cmp %t/l3/inputs/0_big.npy %t/r3/inputs/0_big.npy
// RUN: cmp %t/l3/inputs/1_tiny.npy %t/r3/inputs/1_tiny.npy
// RUN: cmp %t/l3/inputs/2_e5.npy %t/r3/inputs/2_e5.npy
// RUN: cmp %t/l3/inputs/3_s.npy %t/r3/inputs/3_s.npy
// RUN: cmp %t/l3/inputs/4_n.npy %t/r3/inputs/4_n.npy
// RUN: cmp %t/l3/inputs/5_v.npy %t/r3/inputs/5_v.npy
// RUN: cmp %t/l3/inputs/6_sv.npy %t/r3/inputs/6_sv.npy
// RUN: cmp %t/l3/inputs/7_w.npy %t/r3/inputs/7_w.npy
// RUN: cmp %t/l3/d.npy %t/r3/d.npy
// RUN: cmp %t/l3/d2.npy %t/r3/d2.npy
// RUN: %PYTHON %S/../mxfp8-run/Inputs/npytool.py dump %t/l3/inputs/0_big.npy | FileCheck %s --check-prefix=BIG
// RUN: %PYTHON %S/../mxfp8-run/Inputs/npytool.py dump %t/l3/inputs/1_tiny.npy | FileCheck %s --check-prefix=TINY
//
// f16, i1, i8 and i16 (session 34), and fp8 of std 0: signed zeros (mxfp8-launch
// gave 0x28, 0.25, for an exact zero until session 34, while mxfp8-run's
// APFloat rounding gave 0; both now use Support/Float.h's encoder, checked
// against APFloat by mxfp8train-support-tests):
// RUN: mxfp8-launch %t/m.so %t/m.manifest --entry=narrow --output-dir=%t/l5 --save-inputs | FileCheck %s --check-prefix=NARROW
// RUN: mxfp8-run %s --entry=narrow --output-dir=%t/r5 --save-inputs > %t/r5.log
// RUN: for f in inputs/0_h inputs/1_b inputs/2_c inputs/3_s inputs/4_z sel pos c2 s2 w; do cmp %t/l5/$f.npy %t/r5/$f.npy || exit 1; done
// RUN: %PYTHON -c "import numpy as np; z = np.load('%t/l5/inputs/4_z.npy'); print('fp8 zeros', z.dtype, bool(((z & 0x7F) == 0).all()))" | FileCheck %s --check-prefix=ZEROS
//
// .npy inputs go through the same reader rules (bf16 from float32 here):
// RUN: mxfp8-launch %t/m.so %t/m.manifest --entry=matmul --input=%t/l2/inputs/0_a.npy --input=%t/l2/inputs/1_b.npy --output-dir=%t/l4 | FileCheck %s --check-prefix=READ
// RUN: cmp %t/l4/c.npy %t/l2/c.npy

// QUANTIZE:      mxfp8-launch: @quantize from {{.*}}m.so
// QUANTIZE-NEXT: device: cpu
// QUANTIZE-NEXT: inputs:
// QUANTIZE-NEXT:   #0 x : 64x128xbf16  normal(0, 3)
// QUANTIZE-NEXT:   (generated with seed 0 in
// QUANTIZE-NEXT: outputs:
// QUANTIZE-NEXT:   #  name  role    type             L2 norm  max abs  file
// QUANTIZE-NEXT:   0  q     output  64x128xf8E4M3FN  {{[0-9.e+]+}} 448 {{.*}}l1/q.npy
// QUANTIZE-NEXT:   1  s     -       64x4xf8E8M0FNU
// QUANTIZE-NEXT: time: load {{.*}}; run host {{.*}} over 1 run(s) after 0 warmup
// QUANTIZE-NEXT: summary: entry=quantize device=cpu results=2 time_ms={{[0-9.e+-]+}}

// KINDS:      #0 big : 4096xf8E4M3FN  normal(0, 2000)
// KINDS-NEXT: #1 tiny : 4096xf8E4M3FN  normal(0, 0.002)
// KINDS-NEXT: #2 e5 : 4096xf8E5M2  normal(0, 30000)
// KINDS-NEXT: #3 s : 128xf8E8M0FNU  scale byte 127 (1.0)
// KINDS-NEXT: #4 n : 4xi32  zeros
// KINDS-NEXT: #5 v : 2x3xf32  mxfp8run.values
// KINDS-NEXT: #6 sv : 4xbf16  mxfp8run.values
// KINDS-NEXT: #7 w : 3xf64  normal(0, 1)

// Saturated fp8 (0x7E / 0xFE = +-448) among the values:
// BIG: descr |u1 shape 4096
// BIG: {{ 0x(7E|FE) }}
// Subnormal fp8 (exponent field 0, mantissa 1..7) among the values:
// TINY: descr |u1 shape 4096
// TINY: {{ 0x(0[1-7]|8[1-7]) }}

// NARROW:      #0 h : 64x32xf16  normal(0, 1000)
// NARROW-NEXT: #1 b : 64x32xi1  mxfp8run.values
// NARROW-NEXT: #2 c : 64x32xi8  mxfp8run.values
// NARROW-NEXT: #3 s : 64x32xi16  zeros
// NARROW-NEXT: #4 z : 64x32xf8E4M3FN  normal(0, 0)
// NARROW:      0  sel   -     64x32xf16
// NARROW-NEXT: 1  pos   -     64x32xi1
// NARROW-NEXT: 2  c2    -     64x32xi8
// NARROW-NEXT: 3  s2    -     64x32xi16
// NARROW-NEXT: 4  w     -     64x32xf32

// ZEROS: fp8 zeros uint8 True

// READ:      #0 a : 32x64xbf16  {{.*}}0_a.npy
// READ-NEXT: #1 b : 64x48xbf16  {{.*}}1_b.npy
// READ-NEXT: (read in

func.func @quantize(%x: tensor<64x128xbf16> {mxfp8run.std = 3.0 : f64})
    -> (tensor<64x128xf8E4M3FN> {mxfp8train.role = "output"},
        tensor<64x4xf8E8M0FNU>) {
  %q, %s = mxfp8train.quantize %x axis = 1 mode = rceil
      : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>
  return %q, %s : tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>
}

func.func @matmul(%a: tensor<32x64xbf16>,
                  %b: tensor<64x48xbf16> {mxfp8run.std = 0.02 : f64})
    -> tensor<32x48xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x48xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<32x48xf32>) -> tensor<32x48xf32>
  %c = linalg.matmul ins(%a, %b : tensor<32x64xbf16>, tensor<64x48xbf16>)
                     outs(%f : tensor<32x48xf32>) -> tensor<32x48xf32>
  return %c : tensor<32x48xf32>
}

func.func @kinds(%big: tensor<4096xf8E4M3FN> {mxfp8run.std = 2000.0 : f64},
                 %tiny: tensor<4096xf8E4M3FN> {mxfp8run.std = 0.002 : f64},
                 %e5: tensor<4096xf8E5M2> {mxfp8run.std = 30000.0 : f64},
                 %s: tensor<128xf8E8M0FNU>,
                 %n: tensor<4xi32>,
                 %v: tensor<2x3xf32> {mxfp8run.values = dense<[[1.0, -2.5, 3.0], [0.0, 7.0, -0.125]]> : tensor<2x3xf32>},
                 %sv: tensor<4xbf16> {mxfp8run.values = dense<1.5> : tensor<4xbf16>},
                 %w: tensor<3xf64>)
    -> (tensor<4096xf32>, tensor<4096xf32>) {
  %d = mxfp8train.dequantize %big [%s] axis = 0
      : tensor<4096xf8E4M3FN> [tensor<128xf8E8M0FNU>] -> tensor<4096xf32>
  %d2 = mxfp8train.dequantize %tiny [%s] axis = 0
      : tensor<4096xf8E4M3FN> [tensor<128xf8E8M0FNU>] -> tensor<4096xf32>
  return %d, %d2 : tensor<4096xf32>, tensor<4096xf32>
}

func.func @narrow(%h: tensor<64x32xf16> {mxfp8run.std = 1000.0 : f64},
                  %b: tensor<64x32xi1> {mxfp8run.values = dense<true> : tensor<64x32xi1>},
                  %c: tensor<64x32xi8> {mxfp8run.values = dense<-70> : tensor<64x32xi8>},
                  %s: tensor<64x32xi16>,
                  %z: tensor<64x32xf8E4M3FN> {mxfp8run.std = 0.0 : f64})
    -> (tensor<64x32xf16>, tensor<64x32xi1>, tensor<64x32xi8>, tensor<64x32xi16>, tensor<64x32xf32>) {
  %zero = arith.constant dense<0.0> : tensor<64x32xf16>
  %pos = arith.cmpf ogt, %h, %zero : tensor<64x32xf16>
  %m = arith.xori %pos, %b : tensor<64x32xi1>
  %sel = arith.select %m, %h, %zero : tensor<64x32xi1>, tensor<64x32xf16>
  %c2 = arith.addi %c, %c : tensor<64x32xi8>
  %k = arith.constant dense<30000> : tensor<64x32xi16>
  %s2 = arith.subi %s, %k : tensor<64x32xi16>
  %w = arith.extf %h : tensor<64x32xf16> to tensor<64x32xf32>
  return %sel, %pos, %c2, %s2, %w : tensor<64x32xf16>, tensor<64x32xi1>, tensor<64x32xi8>, tensor<64x32xi16>, tensor<64x32xf32>
}
