// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu --canonicalize --split-input-file | FileCheck %s
// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu="float8-promote-interval=512" --canonicalize --split-input-file | FileCheck %s --check-prefix=I512
// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu="float8-promote-interval=0" --canonicalize --split-input-file | FileCheck %s --check-prefix=FAST

// Accumulator promotion of the sm_90a Float8 GEMM (Gemm/WGMMA.cpp,
// WgmmaConsumer::emitRingTile): torchao runs the gradient GEMMs with
// use_fast_accum=False, so every Float8 GEMM whose role is not `forward`
// runs its consumer loop per interval of `float8-promote-interval`
// contraction elements (default 128: one stage) on fresh m64n128
// accumulators and adds them into an f32 sum after `wait_group 0` (64 adds
// per thread: 128 x 128 tiles, `_acc<interval>`); the forward GEMM and
// interval 0 keep the fast accumulation (one accumulator over K, 128 x 256
// tiles). K = 1024: eight contraction tiles.

// CHECK-LABEL: func.func @dgrad(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_mm_k_k_e4m3_e4m3_bf16_256x384x1024_b1_p1c1_v9w1s4_f8rr_acc128 blocks in (%c6, %c1, %c1)
// CHECK-LABEL: gpu.func @scaled_mm_k_k_e4m3_e4m3_bf16_256x384x1024_b1_p1c1_v9w1s4_f8rr_acc128(
// CHECK:           %[[Z:.*]] = llvm.mlir.zero : !llvm.struct<(f32,
// CHECK:           %[[SUM:.*]] = scf.for %[[I:.*]] = %c0 to %c8 step %c1 iter_args(%[[S:.*]] = %[[Z]])
// CHECK-NEXT:        %[[E0:.*]] = arith.addi %[[I]], %c1 : index
// CHECK-NEXT:        %[[E:.*]] = arith.minui %[[E0]], %c8 : index
// CHECK-NEXT:        %[[ACC:.*]] = scf.for %{{.*}} = %[[I]] to %[[E]] step %c1 iter_args(%[[A:.*]] = %[[Z]])
// CHECK:             nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[A]], <m = 64, n = 128, k = 32>
// CHECK-COUNT-3:     nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 32>
// CHECK:             nvvm.wgmma.wait.group.sync.aligned 1
// CHECK:           nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NEXT:      %[[A0:.*]] = llvm.extractvalue %[[ACC]][0]
// CHECK-NEXT:      %[[S0:.*]] = llvm.extractvalue %[[S]][0]
// CHECK-NEXT:      %[[T0:.*]] = arith.addf %[[S0]], %[[A0]] : f32
// CHECK-NEXT:      %[[N0:.*]] = llvm.insertvalue %[[T0]], %[[S]][0]
// CHECK-NEXT:      %[[A1:.*]] = llvm.extractvalue %[[ACC]][1]
// CHECK-NEXT:      %[[S1:.*]] = llvm.extractvalue %[[S]][1]
// CHECK-NEXT:      %[[T1:.*]] = arith.addf %[[S1]], %[[A1]] : f32
// CHECK-NEXT:      llvm.insertvalue %[[T1]], %[[N0]][1]
// CHECK-COUNT-62:  arith.addf
// CHECK-NEXT:      %[[LAST:.*]] = llvm.insertvalue %{{.*}}[63]
// CHECK-NEXT:      scf.yield %[[LAST]]
// CHECK-NEXT:    }
// CHECK-NEXT:    nvvm.wgmma.wait.group.sync.aligned 0
// The epilogue reads the sum.
// CHECK:         llvm.extractvalue %[[SUM]][0]

// I512-LABEL: gpu.func @scaled_mm_k_k_e4m3_e4m3_bf16_256x384x1024_b1_p1c1_v9w1s4_f8rr_acc512(
// I512:           %[[SUM:.*]] = scf.for %[[I:.*]] = %c0 to %c8 step %c4 iter_args(
// I512-NEXT:        %[[E0:.*]] = arith.addi %[[I]], %c4 : index
// I512-NEXT:        %[[E:.*]] = arith.minui %[[E0]], %c8 : index
// I512-NEXT:        scf.for %{{.*}} = %[[I]] to %[[E]] step %c1
// I512:             nvvm.wgmma.wait.group.sync.aligned 1
// I512:           nvvm.wgmma.wait.group.sync.aligned 0
// I512-COUNT-64:  arith.addf

// FAST-LABEL: gpu.func @scaled_mm_k_k_e4m3_e4m3_bf16_256x384x1024_b1_p1c1_v9w1s4_n256_f8rr(
// FAST-NOT:       arith.addf
// FAST:           nvvm.wgmma.mma_async {{.*}} <m = 64, n = 256, k = 32>
// FAST-NOT:       arith.addf
// FAST:           gpu.return
func.func @dgrad(%x: tensor<256x1024xf8E4M3FN>, %xs: tensor<256x1xf32>, %w: tensor<384x1024xf8E4M3FN>, %ws: tensor<384x1xf32>) -> tensor<256x384xbf16> {
  %y = mxfp8train.scaled_mm %x [%xs], %w [%ws] transpose_rhs {mxfp8train.role = "dgrad"}
      : tensor<256x1024xf8E4M3FN> [tensor<256x1xf32>], tensor<384x1024xf8E4M3FN> [tensor<384x1xf32>] -> tensor<256x384xbf16>
  return %y : tensor<256x384xbf16>
}

// -----

// The forward GEMM accumulates fast whatever the interval (torchao's
// output GEMM: use_fast_accum=True); a gemm_config's tile_n = 256 is kept.
// CHECK-LABEL: gpu.func @scaled_mm_k_k_e4m3_e4m3_bf16_256x384x1024_b1_p1c1_v9w1s4_n256_f8rr(
// CHECK-NOT:       arith.addf
// CHECK:           gpu.return
// I512-LABEL: gpu.func @scaled_mm_k_k_e4m3_e4m3_bf16_256x384x1024_b1_p1c1_v9w1s4_n256_f8rr(
func.func @forward(%x: tensor<256x1024xf8E4M3FN>, %xs: tensor<256x1xf32>, %w: tensor<384x1024xf8E4M3FN>, %ws: tensor<384x1xf32>) -> tensor<256x384xbf16> {
  %y = mxfp8train.scaled_mm %x [%xs], %w [%ws] transpose_rhs {mxfp8train.role = "forward"}
      : tensor<256x1024xf8E4M3FN> [tensor<256x1xf32>], tensor<384x1024xf8E4M3FN> [tensor<384x1xf32>] -> tensor<256x384xbf16>
  return %y : tensor<256x384xbf16>
}

// -----

// Promotion needs 128 x 128 tiles (two m64n256 accumulator sets do not fit
// 216 registers): a gemm_config's tile_n = 256 is overridden; its stages
// are kept.
// CHECK-LABEL: gpu.func @scaled_mm_k_k_e4m3_e4m3_bf16_256x384x1024_b1_p1c1_v9w1s3_f8rr_acc128(
// FAST-LABEL: gpu.func @scaled_mm_k_k_e4m3_e4m3_bf16_256x384x1024_b1_p1c1_v9w1s3_n256_f8rr(
func.func @wgrad_config(%x: tensor<256x1024xf8E4M3FN>, %xs: tensor<256x1xf32>, %w: tensor<384x1024xf8E4M3FN>, %ws: tensor<384x1xf32>) -> tensor<256x384xbf16> {
  %y = mxfp8train.scaled_mm %x [%xs], %w [%ws] transpose_rhs {mxfp8train.role = "wgrad", mxfp8train.gemm_config = #mxfp8train.gemm_config<tile_n = 256, stages = 3>}
      : tensor<256x1024xf8E4M3FN> [tensor<256x1xf32>], tensor<384x1024xf8E4M3FN> [tensor<384x1xf32>] -> tensor<256x384xbf16>
  return %y : tensor<256x384xbf16>
}
