// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu=chip=sm_90a --split-input-file | FileCheck %s
// RUN: mxfp8-opt %s --mxfp8train-lower-to-gpu="chip=sm_90a format=isa" --split-input-file | FileCheck %s --check-prefix=LOWER

// Which linalg.generic contractions the GEMM kernels take: a body that is
// exactly out + x * y (operands at most widened by arith.extf, either
// operand order). linalg::isaContractionOpInterface also accepts bodies
// with other unary ops on the operands; the GEMM kernels used to take
// those too and drop the op (|x| @ y computed as x @ y on the GPU, a
// silent wrong answer). They now run as reduction kernels
// (ReductionKernels.cpp: one thread per output, the body as written).

#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>

// CHECK-LABEL: func.func @widened_swapped(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@hp_mm_
// CHECK-NOT:     linalg.generic
// LOWER-LABEL: llvm.func @widened_swapped(
func.func @widened_swapped(%a: tensor<128x256xbf16>, %b: tensor<256x128xbf16>, %c: tensor<128x128xf32>) -> tensor<128x128xf32> {
  %r = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<128x256xbf16>, tensor<256x128xbf16>) outs(%c : tensor<128x128xf32>) {
  ^bb0(%x: bf16, %y: bf16, %o: f32):
    %xf = arith.extf %x : bf16 to f32
    %yf = arith.extf %y : bf16 to f32
    %m = arith.mulf %yf, %xf : f32
    %s = arith.addf %m, %o : f32
    linalg.yield %s : f32
  } -> tensor<128x128xf32>
  return %r : tensor<128x128xf32>
}

// -----

#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>

// CHECK-LABEL: func.func @abs_lhs(
// CHECK-NOT:     @hp_mm_
// CHECK:         gpu.launch_func @mxfp8train_kernels::@[[K:reduction_128x128_1r_[0-9a-f]+]]
// CHECK:       gpu.func @[[K]](
// CHECK:         math.absf
// LOWER-LABEL: llvm.func @abs_lhs(
func.func @abs_lhs(%a: tensor<128x256xf32>, %b: tensor<256x128xf32>, %c: tensor<128x128xf32>) -> tensor<128x128xf32> {
  %r = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<128x256xf32>, tensor<256x128xf32>) outs(%c : tensor<128x128xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %ax = math.absf %x : f32
    %m = arith.mulf %ax, %y : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<128x128xf32>
  return %r : tensor<128x128xf32>
}

// -----

#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>

// CHECK-LABEL: func.func @negated_rhs(
// CHECK-NOT:     @hp_mm_
// CHECK:         gpu.launch_func @mxfp8train_kernels::@[[K:reduction_64x64_1r_[0-9a-f]+]]
// CHECK:       gpu.func @[[K]](
// CHECK:         arith.negf
// LOWER-LABEL: llvm.func @negated_rhs(
func.func @negated_rhs(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %r = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %ny = arith.negf %y : f32
    %m = arith.mulf %x, %ny : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// -----

#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>

// An f32 operand rounded to bf16 in the body: the kernels would read it
// as f32.
// CHECK-LABEL: func.func @truncated_lhs(
// CHECK-NOT:     @hp_mm_
// CHECK:         gpu.launch_func @mxfp8train_kernels::@[[K:reduction_64x64_1r_[0-9a-f]+]]
// CHECK:       gpu.func @[[K]](
// CHECK:         arith.truncf
// LOWER-LABEL: llvm.func @truncated_lhs(
func.func @truncated_lhs(%a: tensor<64x64xf32>, %b: tensor<64x64xbf16>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %r = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<64x64xf32>, tensor<64x64xbf16>) outs(%c : tensor<64x64xf32>) {
  ^bb0(%x: f32, %y: bf16, %o: f32):
    %xt = arith.truncf %x : f32 to bf16
    %xe = arith.extf %xt : bf16 to f32
    %ye = arith.extf %y : bf16 to f32
    %m = arith.mulf %xe, %ye : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}
