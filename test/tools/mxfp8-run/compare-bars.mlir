// Bars and exit status of compare mode: a result-level bar set with
// mxfp8run.min_sqnr that the converted matmul cannot reach fails (exit
// status 2, or 0 with --check-bars=false); a result that does not depend on a
// matmul is bit-identical (SQNR inf, max abs error 0); a result without role
// or min_sqnr has no bar; --per-matmul=false drops the per-matmul table.
// (Scalar loops: --vectorize=false, the unvectorized CPU lowering.)
//
// RUN: %PYTHON %S/Inputs/expect_rc.py 2 mxfp8-run %s --compare --vectorize=false > %t.log 2> %t.err
// RUN: FileCheck %s < %t.log
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: %PYTHON %S/Inputs/expect_rc.py 0 mxfp8-run %s --compare --vectorize=false --check-bars=false --per-matmul=false | FileCheck %s --check-prefix=NOCHECK
//
// The same with a Float8 recipe: the min_sqnr bar fails the same way (exit
// status 2) and the role bars are Float8's (SPEC-float8 §7: forward 25 dB).
// RUN: %PYTHON %S/Inputs/expect_rc.py 2 mxfp8-run %s --compare --vectorize=false --recipe=float8_rowwise > %t.f8.log 2> %t.f8.err
// RUN: FileCheck %s --check-prefix=F8 < %t.f8.log
// RUN: FileCheck %s --check-prefix=ERR < %t.f8.err

// A bar must be a number: NaN (which every comparison fails) is refused
// like a string, before anything runs.
// RUN: sed 's/min_sqnr = 200.0 : f64/min_sqnr = 0x7FF8000000000000 : f64/' %s > %t.nan.mlir
// RUN: not mxfp8-run %t.nan.mlir --compare 2>&1 | FileCheck %s --check-prefix=NAN
// NAN: mxfp8-run: error: result #0 (y) of @bars: mxfp8run.min_sqnr must be a number of dB (not NaN)

// CHECK: matmuls: 1 before, 1 scaled_mm after (forward 1), 0 kept in high precision
// CHECK: #  name  role    type        GEMMs  SQNR dB  max abs err  bar dB     result
// CHECK-NEXT: 0  y     output  32x64xbf16  1      {{[0-9]+\.[0-9]+}}    {{.*}}    >= 200.00  FAIL
// CHECK-NEXT: 1  e     output  32x32xf32   0      inf      0.000e+00    >= 27.00   PASS
// CHECK-NEXT: 2  y2    -       32x64xbf16  1      {{[0-9]+\.[0-9]+}}    {{.*}}    -          -
// CHECK-NEXT: matmuls (each converted alone on the original's inputs):
// CHECK-NEXT: matmul  role     type        SQNR dB  max abs err  bar dB    result
// CHECK-NEXT: mm      forward  32x64xf32   {{[0-9]+\.[0-9]+}}    {{.*}}  >= 27.00  PASS
// CHECK: bars: 2 passed, 1 failed
// ERR: mxfp8-run: 1 row(s) below their SQNR bar

// F8: recipe: #mxfp8train.float8_recipe<float8_rowwise>
// F8: matmuls: 1 before, 1 scaled_mm after (forward 1), 0 kept in high precision
// F8: 0  y     output  32x64xbf16  1      {{[0-9]+\.[0-9]+}}    {{.*}}    >= 200.00  FAIL
// F8-NEXT: 1  e     output  32x32xf32   0      inf      0.000e+00    >= 25.00   PASS
// F8: mm      forward  32x64xf32   {{[0-9]+\.[0-9]+}}    {{.*}}  >= 25.00  PASS
// F8: bars: 2 passed, 1 failed

// NOCHECK: 0  y     output  32x64xbf16  1      {{[0-9]+\.[0-9]+}}    {{.*}}    >= 200.00  FAIL
// NOCHECK-NOT: matmuls (each
// NOCHECK: bars: 1 passed, 1 failed

#id = affine_map<(d0, d1) -> (d0, d1)>
#mm_a = affine_map<(m, n, k) -> (m, k)>
#mm_bt = affine_map<(m, n, k) -> (n, k)>
#mm_c = affine_map<(m, n, k) -> (m, n)>

func.func @bars(%x: tensor<32x64xbf16>, %w: tensor<64x64xbf16>, %a: tensor<32x32xf32>)
    -> (tensor<32x64xbf16> {mxfp8train.role = "output", mxfp8run.min_sqnr = 200.0 : f64},
        tensor<32x32xf32> {mxfp8train.role = "output"},
        tensor<32x64xbf16>) {
  %zero = arith.constant 0.0 : f32
  %i = tensor.empty() : tensor<32x64xf32>
  %z = linalg.fill ins(%zero : f32) outs(%i : tensor<32x64xf32>) -> tensor<32x64xf32>
  %acc = linalg.matmul indexing_maps = [#mm_a, #mm_bt, #mm_c]
      ins(%x, %w : tensor<32x64xbf16>, tensor<64x64xbf16>)
      outs(%z : tensor<32x64xf32>) -> tensor<32x64xf32> loc("mm")
  %ye = tensor.empty() : tensor<32x64xbf16>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc : tensor<32x64xf32>) outs(%ye : tensor<32x64xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %t = arith.truncf %v : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<32x64xbf16>
  %ee = tensor.empty() : tensor<32x32xf32>
  %e = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<32x32xf32>) outs(%ee : tensor<32x32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = math.exp %v : f32
    linalg.yield %t : f32
  } -> tensor<32x32xf32>
  %y2e = tensor.empty() : tensor<32x64xbf16>
  %y2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<32x64xbf16>) outs(%y2e : tensor<32x64xbf16>) {
  ^bb0(%v: bf16, %o: bf16):
    %t = arith.addf %v, %v : bf16
    linalg.yield %t : bf16
  } -> tensor<32x64xbf16>
  return %y, %e, %y2 : tensor<32x64xbf16>, tensor<32x32xf32>, tensor<32x64xbf16>
}
