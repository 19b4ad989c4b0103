// RUN: mxfp8-opt %s --split-input-file --mxfp8train-legalize-math | FileCheck %s
// RUN: mxfp8-opt %s --split-input-file --mxfp8train-legalize-math="libm-calls=true" | FileCheck %s --check-prefix=LIBM

// The rewrites of mxfp8train-legalize-math; test/Pipelines/math-ops.mlir
// checks their values through the CPU pipeline and compiles them for the
// GPU.

// math.ipowi on i4: three exponent bits (the sign bit is not one), each a
// select of the product; a negative exponent divides 1 by the base (the
// divisor is 1 for a non-negative exponent).
// CHECK-LABEL: func.func @ipowi_i4
// CHECK-SAME: (%[[B:.*]]: i4, %[[E:.*]]: i4)
// CHECK-NOT: math.ipowi
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : i4
// CHECK-DAG: %[[NEG:.*]] = arith.cmpi slt, %[[E]], %{{.*}} : i4
// CHECK: arith.andi %[[E]], %{{.*}} : i4
// CHECK: %[[SQ:.*]] = arith.muli %[[B]], %[[B]] : i4
// CHECK: arith.constant 2 : i4
// CHECK: arith.muli %[[SQ]], %[[SQ]] : i4
// CHECK: arith.constant 4 : i4
// CHECK-NOT: arith.constant 8 : i4
// CHECK: %[[POS:.*]] = arith.select %{{.*}} : i4
// CHECK: %[[DIVISOR:.*]] = arith.select %[[NEG]], %[[B]], %[[ONE]] : i4
// CHECK: %[[INV:.*]] = arith.divsi %[[ONE]], %[[DIVISOR]] : i4
// CHECK: %[[INV2:.*]] = arith.muli %[[INV]], %[[INV]] : i4
// CHECK: %[[NEGPOW:.*]] = arith.select %{{.*}}, %[[INV]], %[[INV2]] : i4
// CHECK: %[[R:.*]] = arith.select %[[NEG]], %[[NEGPOW]], %[[POS]] : i4
// CHECK: return %[[R]]
func.func @ipowi_i4(%b: i4, %e: i4) -> i4 {
  %r = math.ipowi %b, %e : i4
  return %r : i4
}

// -----

// i1: e = 0 gives 1 (true), e = -1 gives 1 / b = b.
// CHECK-LABEL: func.func @ipowi_i1
// CHECK-SAME: (%[[B:.*]]: i1, %[[E:.*]]: i1)
// CHECK: %[[NEG:.*]] = arith.cmpi slt, %[[E]], %false
// CHECK: %[[R:.*]] = arith.select %[[NEG]], %[[B]], %true : i1
// CHECK: return %[[R]]
func.func @ipowi_i1(%b: i1, %e: i1) -> i1 {
  %r = math.ipowi %b, %e : i1
  return %r : i1
}

// -----

// Vectors: splat constants (the CPU vectorizes bodies first).
// CHECK-LABEL: func.func @ipowi_vector
// CHECK-NOT: math.ipowi
// CHECK: arith.constant dense<1073741824> : vector<4xi32>
// CHECK-NOT: arith.constant dense<-2147483648>
// CHECK: arith.divsi {{.*}} : vector<4xi32>
func.func @ipowi_vector(%b: vector<4xi32>, %e: vector<4xi32>) -> vector<4xi32> {
  %r = math.ipowi %b, %e : vector<4xi32>
  return %r : vector<4xi32>
}

// -----

// CHECK-LABEL: func.func @classify
// CHECK-SAME: (%[[X:.*]]: bf16)
// CHECK: %[[ABS:.*]] = math.absf %[[X]] : bf16
// CHECK: %[[INF:.*]] = arith.constant 0x7F80 : bf16
// CHECK: %[[ISINF:.*]] = arith.cmpf oeq, %[[ABS]], %[[INF]] : bf16
// CHECK: %[[ABS2:.*]] = math.absf %[[X]] : bf16
// CHECK: %[[MIN:.*]] = arith.constant 1.175490e-38 : bf16
// CHECK: %[[GE:.*]] = arith.cmpf oge, %[[ABS2]], %[[MIN]] : bf16
// CHECK: %[[LT:.*]] = arith.cmpf olt, %[[ABS2]], %{{.*}} : bf16
// CHECK: %[[NORMAL:.*]] = arith.andi %[[GE]], %[[LT]] : i1
// CHECK: return %[[ISINF]], %[[NORMAL]]
func.func @classify(%x: bf16) -> (i1, i1) {
  %a = math.isinf %x : bf16
  %b = math.isnormal %x : bf16
  return %a, %b : i1, i1
}

// -----

// math.clampf by its definition, maximumf(minimumf(value, min), max)
// (upstream's expansion).
// CHECK-LABEL: func.func @clampf
// CHECK-SAME: (%[[X:.*]]: f32, %[[LO:.*]]: f32, %[[HI:.*]]: f32)
// CHECK: %[[M:.*]] = arith.minimumf %[[X]], %[[LO]] : f32
// CHECK: %[[R:.*]] = arith.maximumf %[[M]], %[[HI]] : f32
// CHECK: return %[[R]]
func.func @clampf(%x: f32, %lo: f32, %hi: f32) -> f32 {
  %r = math.clampf %x to [%lo, %hi] : f32
  return %r : f32
}

// -----

// math.sincos: sin and cos (fastmath flags kept).
// CHECK-LABEL: func.func @sincos
// CHECK-SAME: (%[[X:.*]]: vector<4x16xf32>)
// CHECK: %[[S:.*]] = math.sin %[[X]] fastmath<afn> : vector<4x16xf32>
// CHECK: %[[C:.*]] = math.cos %[[X]] fastmath<afn> : vector<4x16xf32>
// CHECK: return %[[S]], %[[C]]
func.func @sincos(%x: vector<4x16xf32>) -> (vector<4x16xf32>, vector<4x16xf32>) {
  %s, %c = math.sincos %x fastmath<afn> : vector<4x16xf32>
  return %s, %c : vector<4x16xf32>, vector<4x16xf32>
}

// -----

// libm-calls: the functions LLVM has no intrinsic of; bf16 computes in f32
// and rounds once; vectors are unrolled; math.exp (an LLVM intrinsic) stays.
// CHECK-LABEL: func.func @libm
// CHECK: math.erf
// CHECK: math.acosh
// CHECK: math.cbrt
// LIBM-DAG: func.func private @erff(f32) -> f32
// LIBM-DAG: func.func private @acoshf(f32) -> f32
// LIBM-DAG: func.func private @cbrt(f64) -> f64
// LIBM-LABEL: func.func @libm
// LIBM-SAME: (%[[X:.*]]: f32, %[[Y:.*]]: bf16, %[[V:.*]]: vector<2xf64>)
// LIBM: %[[ERF:.*]] = call @erff(%[[X]]) : (f32) -> f32
// LIBM: %[[WIDE:.*]] = arith.extf %[[Y]] : bf16 to f32
// LIBM: %[[ACOSH:.*]] = call @acoshf(%[[WIDE]]) : (f32) -> f32
// LIBM: %[[NARROW:.*]] = arith.truncf %[[ACOSH]] : f32 to bf16
// LIBM: vector.extract %[[V]][0]
// LIBM: call @cbrt
// LIBM: vector.extract %[[V]][1]
// LIBM: call @cbrt
// LIBM: math.exp %[[X]]
// LIBM-NOT: math.erf
func.func @libm(%x: f32, %y: bf16, %v: vector<2xf64>) -> (f32, bf16, vector<2xf64>, f32) {
  %a = math.erf %x : f32
  %b = math.acosh %y : bf16
  %c = math.cbrt %v : vector<2xf64>
  %d = math.exp %x : f32
  return %a, %b, %c, %d : f32, bf16, vector<2xf64>, f32
}

// -----

// index (64 bits, as the pipelines lower it) and widths past 64 bits: the
// exponent masks are APInts (bit 64 of an i128 is 2^64, not 1).
// CHECK-LABEL: func.func @ipowi_wide
// CHECK-NOT: math.ipowi
// CHECK-DAG: arith.constant 4611686018427387904 : index
// CHECK-DAG: arith.constant 18446744073709551616 : i128
// CHECK-DAG: arith.constant 85070591730234615865843651857942052864 : i128
func.func @ipowi_wide(%b: index, %e: index, %c: i128, %f: i128) -> (index, i128) {
  %r = math.ipowi %b, %e : index
  %s = math.ipowi %c, %f : i128
  return %r, %s : index, i128
}

// -----

// Tensors are left to the pipelines' elementwise-to-linalg first (a
// dynamic shape has no splat constant).
// CHECK-LABEL: func.func @tensors_left
// CHECK: math.ipowi %{{.*}} : tensor<?xi32>
// CHECK: math.isinf %{{.*}} : tensor<?xf32>
func.func @tensors_left(%b: tensor<?xi32>, %x: tensor<?xf32>) -> (tensor<?xi32>, tensor<?xi1>) {
  %r = math.ipowi %b, %b : tensor<?xi32>
  %i = math.isinf %x : tensor<?xf32>
  return %r, %i : tensor<?xi32>, tensor<?xi1>
}

// -----

// libm-calls: host code only; a kernel's math.erf stays for libdevice;
// expm1 and log1p are C library calls too (LLVM would compute exp(x) - 1).
// LIBM-LABEL: gpu.module @kernels
// LIBM: math.erf
// LIBM-LABEL: func.func @host_and_kernel
// LIBM: call @erff
// LIBM: call @expm1
// LIBM: call @log1pf
gpu.module @kernels {
  gpu.func @k(%x: f32) kernel {
    %e = math.erf %x : f32
    gpu.return
  }
}
func.func @host_and_kernel(%x: f32, %y: f64) -> (f32, f64, f32) {
  %a = math.erf %x : f32
  %b = math.expm1 %y : f64
  %c = math.log1p %x : f32
  return %a, %b, %c : f32, f64, f32
}
