// RUN: mxfp8-opt %s --split-input-file --mxfp8train-lower-narrow-float-arith --canonicalize | FileCheck %s
// RUN: mxfp8-opt %s --split-input-file --canonicalize | FileCheck %s --check-prefix=UPSTREAM

// Scalar arith on fp8 / e8m0 is lowered to exact integer code before any
// folding (issue 14 rows 10, 11). Upstream's extf folder alone turns the e8m0
// NaN byte 0xFF into +Inf (UPSTREAM); after this pass the same module folds
// to NaN, 0x7F to 1.0, 0x00 to 2^-127 (an f32 subnormal, 0x00400000) and
// 0xFE to 2^127.

// CHECK-LABEL: func.func @extf_e8m0
// CHECK-DAG:     %[[NAN:.*]] = arith.constant 0x7FC00000 : f32
// CHECK-DAG:     %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG:     %[[MIN:.*]] = arith.constant 5.87747175E-39 : f32
// CHECK-DAG:     %[[MAX:.*]] = arith.constant 1.70141183E+38 : f32
// CHECK-DAG:     %[[HALF:.*]] = arith.constant 5.000000e-01 : bf16
// CHECK:         return %[[NAN]], %[[ONE]], %[[MIN]], %[[MAX]], %[[HALF]]
// UPSTREAM-LABEL: func.func @extf_e8m0
// UPSTREAM:         arith.constant 0x7F800000 : f32
func.func @extf_e8m0() -> (f32, f32, f32, f32, bf16) {
  %nan = arith.constant 0xFF : f8E8M0FNU
  %one = arith.constant 0x7F : f8E8M0FNU
  %min = arith.constant 0x00 : f8E8M0FNU
  %max = arith.constant 0xFE : f8E8M0FNU
  %half = arith.constant 0x7E : f8E8M0FNU
  %0 = arith.extf %nan : f8E8M0FNU to f32
  %1 = arith.extf %one : f8E8M0FNU to f32
  %2 = arith.extf %min : f8E8M0FNU to f32
  %3 = arith.extf %max : f8E8M0FNU to f32
  %4 = arith.extf %half : f8E8M0FNU to bf16
  return %0, %1, %2, %3, %4 : f32, f32, f32, f32, bf16
}

// -----

// e4m3: -448 (0xFE), the smallest subnormal 2^-9 (0x01), NaN (0x7F); e5m2
// -Inf (0xFC); to f64.
// CHECK-LABEL: func.func @extf_fp8
// CHECK-DAG:     %[[A:.*]] = arith.constant -4.480000e+02 : f32
// CHECK-DAG:     %[[B:.*]] = arith.constant 0.001953125 : f32
// CHECK-DAG:     %[[C:.*]] = arith.constant 0x7FC00000 : f32
// CHECK-DAG:     %[[D:.*]] = arith.constant 0xFFF0000000000000 : f64
// CHECK:         return %[[A]], %[[B]], %[[C]], %[[D]]
func.func @extf_fp8() -> (f32, f32, f32, f64) {
  %a = arith.constant 0xFE : f8E4M3FN
  %b = arith.constant 0x01 : f8E4M3FN
  %c = arith.constant 0x7F : f8E4M3FN
  %d = arith.constant 0xFC : f8E5M2
  %0 = arith.extf %a : f8E4M3FN to f32
  %1 = arith.extf %b : f8E4M3FN to f32
  %2 = arith.extf %c : f8E4M3FN to f32
  %3 = arith.extf %d : f8E5M2 to f64
  return %0, %1, %2, %3 : f32, f32, f32, f64
}

// -----

// maximumf / minimumf return one operand's byte (NaN-propagating for the
// e8m0 NaN); maxnumf ignores it; cmpf compares exact values; negf / absf
// work on the sign bit.
// CHECK-LABEL: func.func @select_like
// CHECK-DAG:     %[[TWO:.*]] = arith.constant 2.000000e+00 : f8E4M3FN
// CHECK-DAG:     %[[NEGTWO:.*]] = arith.constant -2.000000e+00 : f8E4M3FN
// CHECK-DAG:     %[[SNAN:.*]] = arith.constant 0xFF : f8E8M0FNU
// CHECK-DAG:     %[[SONE:.*]] = arith.constant 1.000000e+00 : f8E8M0FNU
// CHECK-DAG:     %[[TRUE:.*]] = arith.constant true
// CHECK:         return %[[TWO]], %[[NEGTWO]], %[[SNAN]], %[[SONE]], %[[TRUE]], %[[NEGTWO]], %[[TWO]]
func.func @select_like() -> (f8E4M3FN, f8E4M3FN, f8E8M0FNU, f8E8M0FNU, i1, f8E4M3FN, f8E4M3FN) {
  %two = arith.constant 0x40 : f8E4M3FN
  %negtwo = arith.constant 0xC0 : f8E4M3FN
  %snan = arith.constant 0xFF : f8E8M0FNU
  %sone = arith.constant 0x7F : f8E8M0FNU
  %0 = arith.maximumf %two, %negtwo : f8E4M3FN
  %1 = arith.minimumf %two, %negtwo : f8E4M3FN
  %2 = arith.maximumf %sone, %snan : f8E8M0FNU
  %3 = arith.maxnumf %snan, %sone : f8E8M0FNU
  %4 = arith.cmpf olt, %negtwo, %two : f8E4M3FN
  %5 = arith.negf %two : f8E4M3FN
  %6 = math.absf %negtwo : f8E4M3FN
  return %0, %1, %2, %3, %4, %5, %6 : f8E4M3FN, f8E4M3FN, f8E8M0FNU, f8E8M0FNU, i1, f8E4M3FN, f8E4M3FN
}

