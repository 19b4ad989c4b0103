// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu --split-input-file | FileCheck %s
// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu="elementwise-kernels=false" --split-input-file | FileCheck %s --check-prefix=OFF

// An elementwise linalg.generic that no quantize absorbs becomes one
// vectorized kernel over the flattened tensors (ElementwiseKernels.cpp):
// 8 elements of every input per thread and iteration (16-byte bf16
// accesses), the body lane by lane, 8 elements of every result stored.

// CHECK-LABEL: func.func @add(
// CHECK-NOT:     linalg.generic
// CHECK:         %[[A:.*]] = bufferization.to_buffer %arg0
// CHECK:         %[[FA:.*]] = memref.collapse_shape %[[A]] {{\[\[}}0, 1]] : memref<64x256xbf16> into memref<16384xbf16>
// CHECK:         gpu.launch_func @mxfp8train_kernels::@elementwise_16384_2in_1out_[[H:[0-9a-f]{8}]] blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in (%{{.*}}, %{{.*}}, %{{.*}}) args(%[[FA]] : memref<16384xbf16>, %{{.*}} : memref<16384xbf16>, %{{.*}} : memref<16384xbf16>)
// CHECK:       gpu.func @elementwise_16384_2in_1out_[[H]](%{{.*}}: memref<16384xbf16> {llvm.noalias, llvm.readonly}
// CHECK:         scf.for
// CHECK:           vector.load %{{.*}} {alignment = 16 : i64} : memref<16384xbf16>, vector<8xbf16>
// CHECK:           vector.load %{{.*}} {alignment = 16 : i64} : memref<16384xbf16>, vector<8xbf16>
// CHECK:           arith.extf %{{.*}} : vector<8xbf16> to vector<8xf32>
// CHECK:           arith.addf %{{.*}} : vector<8xf32>
// CHECK:           arith.truncf %{{.*}} : vector<8xf32> to vector<8xbf16>
// CHECK:           vector.store %{{.*}} {alignment = 16 : i64} : memref<16384xbf16>, vector<8xbf16>
// OFF-LABEL: func.func @add(
// OFF:         linalg.generic
// OFF-NOT:     gpu.launch_func @mxfp8train_kernels::@elementwise_
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @add(%a: tensor<64x256xbf16>, %b: tensor<64x256xbf16>) -> tensor<64x256xbf16> {
  %e = tensor.empty() : tensor<64x256xbf16>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<64x256xbf16>, tensor<64x256xbf16>) outs(%e : tensor<64x256xbf16>) {
  ^bb0(%x: bf16, %y: bf16, %o: bf16):
    %xf = arith.extf %x : bf16 to f32
    %yf = arith.extf %y : bf16 to f32
    %s = arith.addf %xf, %yf : f32
    %t = arith.truncf %s : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<64x256xbf16>
  return %r : tensor<64x256xbf16>
}

// -----

// Two results, a captured constant, f32 in (16-byte accesses of 8 f32 are
// two, alignment 16) and bf16 out; the same input twice is one argument.

// CHECK-LABEL: func.func @two_results(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@elementwise_4096_3in_2out_{{[0-9a-f]+}} {{.*}} args(%{{.*}} : memref<4096xf32>, %{{.*}} : memref<4096xbf16>, %{{.*}} : memref<4096xbf16>, %{{.*}} : memref<4096xbf16>)
// CHECK-DAG:     arith.constant dense<2.000000e+00> : vector<8xf32>
// CHECK-DAG:     vector.load %{{.*}} {alignment = 16 : i64} : memref<4096xf32>, vector<8xf32>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @two_results(%a: tensor<64x64xf32>, %b: tensor<64x64xbf16>)
    -> (tensor<64x64xbf16>, tensor<64x64xbf16>) {
  %two = arith.constant 2.0 : f32
  %e = tensor.empty() : tensor<64x64xbf16>
  %r:2 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b, %a : tensor<64x64xf32>, tensor<64x64xbf16>, tensor<64x64xf32>) outs(%e, %e : tensor<64x64xbf16>, tensor<64x64xbf16>) {
  ^bb0(%x: f32, %y: bf16, %x2: f32, %o: bf16, %o2: bf16):
    %yf = arith.extf %y : bf16 to f32
    %m = arith.mulf %x, %two : f32
    %s = arith.addf %m, %yf : f32
    %p = arith.mulf %s, %x2 : f32
    %t0 = arith.truncf %s : f32 to bf16
    %t1 = arith.truncf %p : f32 to bf16
    linalg.yield %t0, %t1 : bf16, bf16
  } -> (tensor<64x64xbf16>, tensor<64x64xbf16>)
  return %r#0, %r#1 : tensor<64x64xbf16>, tensor<64x64xbf16>
}

// -----

// Not whole vectors (15 x 3 elements) and a transposing map keep the
// parallel-loop path; a reduction gets its reduction kernel.

// CHECK-LABEL: func.func @not_vectorized(
// CHECK-COUNT-2: linalg.generic
// CHECK-NOT:     gpu.launch_func @mxfp8train_kernels::@elementwise_
// CHECK:         gpu.launch_func @mxfp8train_kernels::@reduction_16_1r_
// CHECK-NOT:     gpu.launch_func
#id = affine_map<(d0, d1) -> (d0, d1)>
#t = affine_map<(d0, d1) -> (d1, d0)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @not_vectorized(%a: tensor<15x3xbf16>, %b: tensor<16x16xbf16>)
    -> (tensor<15x3xbf16>, tensor<16x16xbf16>, tensor<16xf32>) {
  %e = tensor.empty() : tensor<15x3xbf16>
  %odd = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<15x3xbf16>) outs(%e : tensor<15x3xbf16>) {
  ^bb0(%x: bf16, %o: bf16):
    %n = arith.negf %x : bf16
    linalg.yield %n : bf16
  } -> tensor<15x3xbf16>
  %e2 = tensor.empty() : tensor<16x16xbf16>
  %tr = linalg.generic {indexing_maps = [#t, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b : tensor<16x16xbf16>) outs(%e2 : tensor<16x16xbf16>) {
  ^bb0(%x: bf16, %o: bf16):
    %n = arith.negf %x : bf16
    linalg.yield %n : bf16
  } -> tensor<16x16xbf16>
  %zero = arith.constant 0.0 : f32
  %e3 = tensor.empty() : tensor<16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e3 : tensor<16xf32>) -> tensor<16xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%b : tensor<16x16xbf16>) outs(%f : tensor<16xf32>) {
  ^bb0(%x: bf16, %o: f32):
    %xf = arith.extf %x : bf16 to f32
    %s = arith.addf %xf, %o : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  return %odd, %tr, %sum : tensor<15x3xbf16>, tensor<16x16xbf16>, tensor<16xf32>
}

// -----

// A comparison's i1 inside the body (a ReLU as select): vectorized, the
// i1 lanes stay in registers (only i1 tensors, packed bits in memory, keep
// the parallel-loop path: test/Pipelines/i1-tensors.mlir).
// CHECK-LABEL: func.func @relu_select(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@elementwise_16384_1in_1out_
// CHECK:       gpu.func @elementwise_16384_1in_1out_
// CHECK:         arith.cmpf ogt, %{{.*}}, %{{.*}} : vector<8xbf16>
// CHECK:         arith.select %{{.*}}, %{{.*}}, %{{.*}} : vector<8xi1>, vector<8xbf16>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @relu_select(%a: tensor<64x256xbf16>) -> tensor<64x256xbf16> {
  %e = tensor.empty() : tensor<64x256xbf16>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<64x256xbf16>) outs(%e : tensor<64x256xbf16>) {
  ^bb0(%x: bf16, %o: bf16):
    %zero = arith.constant 0.0 : bf16
    %pos = arith.cmpf ogt, %x, %zero : bf16
    %y = arith.select %pos, %x, %zero : bf16
    linalg.yield %y : bf16
  } -> tensor<64x256xbf16>
  return %r : tensor<64x256xbf16>
}
