// fp8 / e8m0 arith in user IR runs on the CPU (issue 14 rows 10, 11): the
// e8m0 NaN byte 0xFF stays NaN (upstream folding made it +Inf), 0x00 is
// 2^-127; max picks an operand's byte; truncf to fp8 is a located error
// before any lowering, and mxfp8-run exits non-zero.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: mxfp8-run %s --entry=extf_scales --output-dir=%t/extf > %t/extf.log
// RUN: %PYTHON %S/Inputs/npytool.py dump %t/extf/0.npy | FileCheck %s --check-prefix=EXTF
// RUN: mxfp8-run %s --entry=extf_constant --output-dir=%t/const > %t/const.log
// RUN: %PYTHON %S/Inputs/npytool.py dump %t/const/0.npy | FileCheck %s --check-prefix=CONST
// RUN: mxfp8-run %s --entry=max_e4m3 --output-dir=%t/max > %t/max.log
// RUN: %PYTHON %S/Inputs/npytool.py dump %t/max/0.npy | FileCheck %s --check-prefix=MAX
// RUN: not mxfp8-run %s --entry=truncf_e8m0 2>&1 | FileCheck %s --check-prefix=TRUNC

// EXTF: descr <f4 shape 4
// EXTF-NEXT: values 1.0 nan 5.877471754111438e-39 2.0
func.func @extf_scales(%s: tensor<4xf8E8M0FNU> {mxfp8run.values = dense<"0x7FFF0080"> : tensor<4xf8E8M0FNU>}) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%s : tensor<4xf8E8M0FNU>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f8E8M0FNU, %b: f32):
    %x = arith.extf %a : f8E8M0FNU to f32
    linalg.yield %x : f32
  } -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// A constant NaN scale in the body: the pipeline's canonicalize would fold
// it to +Inf if the lowering did not come first.
// CONST: descr <f4 shape 2
// CONST-NEXT: values nan nan
func.func @extf_constant(%x: tensor<2xf32>) -> tensor<2xf32> {
  %nan = arith.constant 0xFF : f8E8M0FNU
  %e = tensor.empty() : tensor<2xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%x : tensor<2xf32>) outs(%e : tensor<2xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.extf %nan : f8E8M0FNU to f32
    %y = arith.mulf %a, %s : f32
    linalg.yield %y : f32
  } -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// 2.0 = 0x40, 1.5 = 0x3C, 0.5 = 0x30, -0.0 = 0x80 vs +0.0: maximumf gives +0.0.
// MAX: descr |u1 shape 4
// MAX-NEXT: values 0x40 0x3C 0x30 0x00
func.func @max_e4m3(%s: tensor<4xf8E4M3FN> {mxfp8run.values = dense<[1.0, 1.5, 0.5, -0.0]> : tensor<4xf8E4M3FN>},
                    %t: tensor<4xf8E4M3FN> {mxfp8run.values = dense<[2.0, 1.0, 0.5, 0.0]> : tensor<4xf8E4M3FN>}) -> tensor<4xf8E4M3FN> {
  %e = tensor.empty() : tensor<4xf8E4M3FN>
  %0 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%s, %t : tensor<4xf8E4M3FN>, tensor<4xf8E4M3FN>) outs(%e : tensor<4xf8E4M3FN>) {
  ^bb0(%a: f8E4M3FN, %b: f8E4M3FN, %c: f8E4M3FN):
    %x = arith.maximumf %a, %b : f8E4M3FN
    linalg.yield %x : f8E4M3FN
  } -> tensor<4xf8E4M3FN>
  return %0 : tensor<4xf8E4M3FN>
}

// TRUNC: mxfp8-run: error: cannot compile the input module: lowering for the CPU failed:
// TRUNC-NEXT: loc({{.*}}): 'arith.truncf' on 'f8E8M0FNU' is not supported by the mxfp8train pipelines: its rounding differs from the MX conversion (SPEC §2); use mxfp8train.quantize
// TRUNC-NOT: LLVMTranslationDialectInterface
func.func @truncf_e8m0(%x: tensor<4xf32>) -> tensor<4xf8E8M0FNU> {
  %e = tensor.empty() : tensor<4xf8E8M0FNU>
  %0 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%e : tensor<4xf8E8M0FNU>) {
  ^bb0(%a: f32, %b: f8E8M0FNU):
    %y = arith.truncf %a : f32 to f8E8M0FNU
    linalg.yield %y : f8E8M0FNU
  } -> tensor<4xf8E8M0FNU>
  return %0 : tensor<4xf8E8M0FNU>
}
