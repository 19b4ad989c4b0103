// RUN: mxfp8-opt %s --split-input-file --mxfp8train-strip-attributes | FileCheck %s

// mxfp8train-strip-attributes removes every attribute named mxfp8train.*
// or holding a value of the dialect under another name: the module's
// recipe, function argument and result attributes, op attributes; every
// other attribute stays.
// CHECK-LABEL: module attributes {other.keep = 1 : i64} {
// CHECK:       func.func @f(%{{.*}}: tensor<4xf32> {other.arg = 2 : i64}, %{{.*}}: tensor<4xf32>) -> (tensor<4xf32> {other.res})
// CHECK-NEXT:    arith.addf %{{.*}}, %{{.*}} {other.op} : tensor<4xf32>
// CHECK-NOT:   mxfp8train
module attributes {mxfp8train.recipe = #mxfp8train.recipe<mxfp8_rceil>, my.recipe = #mxfp8train.recipe<mxfp8_emulated_rceil>, other.keep = 1 : i64} {
  func.func @f(%a: tensor<4xf32> {mxfp8train.role = "lhs", other.arg = 2 : i64},
               %b: tensor<4xf32> {mxfp8train.grad_output = "rhs"})
      -> (tensor<4xf32> {mxfp8train.role = "output", other.res}) {
    %s = arith.addf %a, %b {mxfp8train.role = "forward", other.op} : tensor<4xf32>
    return %s : tensor<4xf32>
  }
}

// -----

// Both lowering pipelines end with it: their LLVM-dialect output of a
// converted module (which records its recipe) reads in mlir-translate,
// which has no mxfp8train dialect.
// RUN: mxfp8-opt %s --split-input-file --mxfp8train-rewrite-matmuls="recipe=mxfp8_rceil" --mxfp8train-lower-to-cpu -o %t.cpu.mlir
// RUN: mlir-translate --split-input-file --mlir-to-llvmir %t.cpu.mlir | FileCheck %s --check-prefix=TRANSLATED
// TRANSLATED: define void @_mlir_ciface_linear(
// RUN: mxfp8-opt %s --split-input-file --mxfp8train-rewrite-matmuls="recipe=mxfp8_rceil" --mxfp8train-lower-to-gpu="format=isa" -o %t.gpu.mlir
// RUN: FileCheck %s --input-file=%t.gpu.mlir --check-prefix=GPU
// GPU-NOT: mxfp8train.
// GPU: gpu.binary @mxfp8train_kernels
// GPU-NOT: mxfp8train.
// RUN: mlir-translate --split-input-file --mlir-to-llvmir %t.gpu.mlir | FileCheck %s --check-prefix=GPU-TRANSLATED
// GPU-TRANSLATED: define void @_mlir_ciface_linear(
// GPU-TRANSLATED: call ptr @mgpuModuleLoad{{(JIT)?}}(
func.func @linear(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> tensor<64x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x256xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%x, %w : tensor<64x128xbf16>, tensor<256x128xbf16>) outs(%init : tensor<64x256xf32>) -> tensor<64x256xf32>
  return %r : tensor<64x256xf32>
}
