// --compare-with: the second function (in the same or another library, with
// its own manifest) runs on the same inputs and is the reference. Per result:
// bit-exact, differing bytes and elements (an element NaN on both sides is
// equal whatever the payloads), SQNR and max abs error, checked against an
// independent Python computation on the written .npy files. --expect-exact
// turns a difference into exit status 1.
//
// REQUIRES: host-cxx
// RUN: rm -rf %t && mkdir -p %t
// RUN: mxfp8-compile %s -o %t/m.o --manifest=%t/m.manifest
// RUN: %host_cxx -shared -o %t/m.so %t/m.o
//
// RUN: mxfp8-launch %t/m.so %t/m.manifest --entry=times3 --compare-with=:times3 --expect-exact | FileCheck %s --check-prefix=SAME
//
// RUN: %PYTHON %S/../mxfp8-run/Inputs/expect_rc.py 1 mxfp8-launch %t/m.so %t/m.manifest --entry=times3_bf16 --compare-with=:times3 --expect-exact --output-dir=%t/bf16 > %t/bf16.log 2> %t/bf16.err
// RUN: %PYTHON %S/../mxfp8-run/Inputs/npytool.py sqnr %t/bf16/c.compare.npy %t/bf16/c.npy >> %t/bf16.log
// RUN: FileCheck %s --check-prefix=BF16 < %t/bf16.log
// RUN: FileCheck %s --check-prefix=BF16-ERR < %t/bf16.err
//
// RUN: mxfp8-launch %t/m.so %t/m.manifest --entry=nan_a --compare-with=:nan_b --expect-exact --output-dir=%t/nan | FileCheck %s --check-prefix=NAN
// RUN: %PYTHON %S/../mxfp8-run/Inputs/npytool.py differ %t/nan/c.npy %t/nan/c.compare.npy
// RUN: mxfp8-launch %t/m.so %t/m.manifest --entry=nan_a --compare-with=:times3 | FileCheck %s --check-prefix=ONE-NAN
//
// Another library built differently (scalar loops, baseline x86-64) with
// its own manifest gives the same bytes:
// RUN: mxfp8-compile %s -o %t/scalar.o --manifest=%t/scalar.manifest --vectorize=false --mcpu=x86-64
// RUN: %host_cxx -shared -o %t/scalar.so %t/scalar.o
// RUN: mxfp8-launch %t/m.so %t/m.manifest --entry=quantize --compare-with=%t/scalar.so:quantize --compare-manifest=%t/scalar.manifest --expect-exact | FileCheck %s --check-prefix=SCALAR
// RUN: mxfp8-compile %s -o %t/base.o --manifest=%t/base.manifest --mcpu=x86-64
// RUN: %host_cxx -shared -o %t/base.so %t/base.o
// RUN: mxfp8-launch %t/m.so %t/m.manifest --entry=matmul --compare-with=%t/base.so:matmul --compare-manifest=%t/base.manifest --expect-exact | FileCheck %s --check-prefix=BASE

// SAME: compare with @times3 from {{.*}}m.so (cpu) as the reference:
// SAME-NEXT: #  name  type     bit-exact  differing bytes  differing elements  SQNR dB  max abs err
// SAME-NEXT: 0  c     256xf32  yes        0                0                   inf      0.000e+00
// SAME: bit-exact: 1 of 1 results
// SAME-NEXT: summary: entry=times3 device=cpu results=1 exact=1 min_sqnr_db=inf max_abs_err=0.000e+00 time_ms={{[0-9.e+-]+}} reference_device=cpu reference_time_ms={{[0-9.e+-]+}}

// bf16 rounding of x * 3: about 2^-9 relative error, ~50 dB.
// BF16: 0  c     256xf32  no {{[0-9]+}} 256 [[DB:5[0-9]\.[0-9][0-9]]] [[ERR:[0-9]\.[0-9]+e-0[0-9]]]
// BF16: bit-exact: 0 of 1 results
// BF16-NEXT: summary: entry=times3_bf16 device=cpu results=1 exact=0 min_sqnr_db=[[DB]] max_abs_err=[[ERR]]
// BF16: python sqnr [[DB]] max abs err [[ERR]]
// BF16-ERR: mxfp8-launch: 1 result(s) differ from the reference

// NAN: 0  c     256xf32  yes        0                0                   inf      0.000e+00
// ONE-NAN: 0  c     256xf32  no {{[0-9]+}} 256 nan nan

// SCALAR: compare with @quantize from {{.*}}scalar.so (cpu) as the reference:
// SCALAR: 0  q     64x128xf8E4M3FN  yes
// SCALAR: 1  s     64x4xf8E8M0FNU   yes
// SCALAR: bit-exact: 2 of 2 results

// BASE: 0  c     64x96xf32  yes

#id = affine_map<(d0) -> (d0)>

func.func @times3(%x: tensor<256xf32>) -> tensor<256xf32> {
  %three = arith.constant 3.0 : f32
  %e = tensor.empty() : tensor<256xf32>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<256xf32>) outs(%e : tensor<256xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.mulf %a, %three : f32
    linalg.yield %y : f32
  } -> tensor<256xf32>
  return %c : tensor<256xf32>
}

// x * 3 rounded to bf16 and widened back.
func.func @times3_bf16(%x: tensor<256xf32>) -> tensor<256xf32> {
  %three = arith.constant 3.0 : f32
  %e = tensor.empty() : tensor<256xf32>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<256xf32>) outs(%e : tensor<256xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.mulf %a, %three : f32
    %t = arith.truncf %y : f32 to bf16
    %w = arith.extf %t : bf16 to f32
    linalg.yield %w : f32
  } -> tensor<256xf32>
  return %c : tensor<256xf32>
}

// NaN everywhere, with different payloads (0x7FC00001, 0x7FC00002).
func.func @nan_a(%x: tensor<256xf32>) -> tensor<256xf32> {
  %nan = arith.constant 0x7FC00001 : f32
  %e = tensor.empty() : tensor<256xf32>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<256xf32>) outs(%e : tensor<256xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.addf %nan, %a : f32
    linalg.yield %y : f32
  } -> tensor<256xf32>
  return %c : tensor<256xf32>
}

func.func @nan_b(%x: tensor<256xf32>) -> tensor<256xf32> {
  %nan = arith.constant 0x7FC00002 : f32
  %e = tensor.empty() : tensor<256xf32>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<256xf32>) outs(%e : tensor<256xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = arith.addf %nan, %a : f32
    linalg.yield %y : f32
  } -> tensor<256xf32>
  return %c : tensor<256xf32>
}

func.func @quantize(%x: tensor<64x128xbf16> {mxfp8run.std = 100.0 : f64})
    -> (tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>) {
  %q, %s = mxfp8train.quantize %x axis = 1 mode = rceil
      : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>
  return %q, %s : tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>
}

func.func @matmul(%a: tensor<64x256xbf16>, %b: tensor<256x96xbf16> {mxfp8run.std = 0.05 : f64})
    -> tensor<64x96xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x96xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x96xf32>) -> tensor<64x96xf32>
  %c = linalg.matmul ins(%a, %b : tensor<64x256xbf16>, tensor<256x96xbf16>)
                     outs(%f : tensor<64x96xf32>) -> tensor<64x96xf32>
  return %c : tensor<64x96xf32>
}
