// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu --canonicalize --split-input-file | FileCheck %s
// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu="fuse-gemm-sums=false" --canonicalize --split-input-file | FileCheck %s --check-prefix=NOFUSE

// fuse-gemm-sums (Gemm/GemmSumFusion.h): the bf16 sum of two GEMM results
// (a SwiGLU MLP's input gradient, dh1 W1 + dh3 W3) is written by the
// epilogue of the later GEMM, which reads the earlier one's output and adds
// it to its own rounded result in f32 (`_sum`); no elementwise kernel runs.
// Bit-identical results: step-bench.sh compares the main-job steps lowered
// with and without the fusion on the GPU.

// CHECK-LABEL: func.func @dgrad_sum(
// CHECK:         %[[OUT1:.*]] = memref.alloc() : memref<256x384xbf16>
// CHECK:         %[[FLAT1:.*]] = memref.collapse_shape %[[OUT1]]
// CHECK:         gpu.launch_func  @mxfp8train_kernels::@scaled_gmm_2d3d_k_ks_e4m3_e4m3_bf16_256x384x512_{{.*}}, %[[FLAT1]] : memref<98304xbf16>)
// CHECK:         %[[TERM:.*]] = memref.collapse_shape %[[OUT1]]
// CHECK:         %[[OUT3:.*]] = memref.alloc() : memref<256x384xbf16>
// CHECK:         %[[FLAT3:.*]] = memref.collapse_shape %[[OUT3]]
// CHECK:         gpu.launch_func  @mxfp8train_kernels::@scaled_gmm_2d3d_k_ks_e4m3_e4m3_bf16_sum_256x384x512_{{.*}}, %[[TERM]] : memref<98304xbf16>, %[[FLAT3]] : memref<98304xbf16>)
// CHECK-NOT:     linalg.generic
// CHECK-NOT:     elementwise
// CHECK:         %[[SUM:.*]] = bufferization.to_tensor %[[OUT3]]
// CHECK:         return %[[SUM]]
// The staged epilogue: 16-byte row chunks of the rounded result, the
// other term's chunk at the same offset, both extended, added, rounded.
// CHECK-LABEL: gpu.func @scaled_gmm_2d3d_k_ks_e4m3_e4m3_bf16_sum_256x384x512_
// CHECK-SAME:      %[[ADDEND:[a-z0-9]+]]: memref<98304xbf16> {llvm.noalias, llvm.readonly}, %[[OUT:[a-z0-9]+]]: memref<98304xbf16> {llvm.noalias, llvm.writeonly}
// CHECK:           nvvm.stmatrix
// CHECK:           %[[V0:.*]] = vector.bitcast %{{.*}} : vector<4xi32> to vector<8xbf16>
// CHECK-NEXT:      %[[T:.*]] = vector.load %[[ADDEND]][%[[OFF:.*]]] {alignment = 16 : i64} : memref<98304xbf16>, vector<8xbf16>
// CHECK-NEXT:      %[[W:.*]] = arith.extf %[[T]] : vector<8xbf16> to vector<8xf32>
// CHECK-NEXT:      %[[V:.*]] = arith.extf %[[V0]] : vector<8xbf16> to vector<8xf32>
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[V]], %[[W]] : vector<8xf32>
// CHECK-NEXT:      %[[R:.*]] = arith.truncf %[[S]] : vector<8xf32> to vector<8xbf16>
// CHECK-NEXT:      vector.store %[[R]], %[[OUT]][%[[OFF]]]
// NOFUSE-LABEL: func.func @dgrad_sum(
// NOFUSE:         @scaled_gmm_2d3d_k_ks_e4m3_e4m3_bf16_256x384x512_
// NOFUSE:         @scaled_gmm_2d3d_k_ks_e4m3_e4m3_bf16_256x384x512_
// NOFUSE:         @elementwise_98304_2in_1out_
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @dgrad_sum(%a1: tensor<256x512xf8E4M3FN>, %sa1: tensor<256x1xf32>, %b1: tensor<2x384x512xf8E4M3FN>, %sb1: tensor<2x384x1xf32>, %offs: tensor<2xi32>,
                     %a3: tensor<256x512xf8E4M3FN>, %sa3: tensor<256x1xf32>, %b3: tensor<2x384x512xf8E4M3FN>, %sb3: tensor<2x384x1xf32>) -> tensor<256x384xbf16> {
  %r1 = mxfp8train.scaled_grouped_mm %a1 [%sa1], %b1 [%sb1] offs(%offs) transpose_rhs {mxfp8train.role = "dgrad", mxfp8train.use_fast_accum = true} : tensor<256x512xf8E4M3FN> [tensor<256x1xf32>], tensor<2x384x512xf8E4M3FN> [tensor<2x384x1xf32>], tensor<2xi32> -> tensor<256x384xbf16>
  %r3 = mxfp8train.scaled_grouped_mm %a3 [%sa3], %b3 [%sb3] offs(%offs) transpose_rhs {mxfp8train.role = "dgrad", mxfp8train.use_fast_accum = true} : tensor<256x512xf8E4M3FN> [tensor<256x1xf32>], tensor<2x384x512xf8E4M3FN> [tensor<2x384x1xf32>], tensor<2xi32> -> tensor<256x384xbf16>
  %e = tensor.empty() : tensor<256x384xbf16>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%r1, %r3 : tensor<256x384xbf16>, tensor<256x384xbf16>) outs(%e : tensor<256x384xbf16>) {
  ^bb0(%x: bf16, %y: bf16, %o: bf16):
    %xf = arith.extf %x : bf16 to f32
    %yf = arith.extf %y : bf16 to f32
    %z = arith.addf %yf, %xf : f32
    %zt = arith.truncf %z : f32 to bf16
    linalg.yield %zt : bf16
  } -> tensor<256x384xbf16>
  return %s : tensor<256x384xbf16>
}

// -----

// A GEMM result read by something else too is not fused (the GEMM writes
// its result; the sum stays an elementwise kernel), nor is a sum whose
// other term is defined after the GEMM.
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @kept(%a: tensor<256x512xf8E4M3FN>, %sa: tensor<256x1xf32>, %b: tensor<2x384x512xf8E4M3FN>, %sb: tensor<2x384x1xf32>, %offs: tensor<2xi32>, %x: tensor<256x384xbf16>) -> (tensor<256x384xbf16>, tensor<256x384xbf16>) {
  %r = mxfp8train.scaled_grouped_mm %a [%sa], %b [%sb] offs(%offs) transpose_rhs {mxfp8train.role = "dgrad", mxfp8train.use_fast_accum = true} : tensor<256x512xf8E4M3FN> [tensor<256x1xf32>], tensor<2x384x512xf8E4M3FN> [tensor<2x384x1xf32>], tensor<2xi32> -> tensor<256x384xbf16>
  %e = tensor.empty() : tensor<256x384xbf16>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%r, %x : tensor<256x384xbf16>, tensor<256x384xbf16>) outs(%e : tensor<256x384xbf16>) {
  ^bb0(%p: bf16, %q: bf16, %o: bf16):
    %pf = arith.extf %p : bf16 to f32
    %qf = arith.extf %q : bf16 to f32
    %z = arith.addf %pf, %qf : f32
    %zt = arith.truncf %z : f32 to bf16
    linalg.yield %zt : bf16
  } -> tensor<256x384xbf16>
  return %s, %r : tensor<256x384xbf16>, tensor<256x384xbf16>
}

// CHECK-LABEL: func.func @kept(
// CHECK-NOT:     _sum_
// CHECK:         @elementwise_98304_2in_1out_
