// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu="float8-promote-unroll=2" --canonicalize --split-input-file | FileCheck %s
// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu --canonicalize --split-input-file | FileCheck %s --check-prefix=U4
// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu="float8-promote-interval=512" --canonicalize --split-input-file | FileCheck %s --check-prefix=I512
// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu="float8-promote-interval=0" --canonicalize --split-input-file | FileCheck %s --check-prefix=FAST

// Accumulator promotion of the sm_90a Float8 GEMM (Gemm/WGMMA.cpp,
// WgmmaConsumer::emitRingTile): torchao runs the dense gradient GEMMs with
// use_fast_accum=False, so every dense Float8 GEMM whose role is not
// `forward` (or whose `mxfp8train.use_fast_accum` is false) adds its m64n128
// wgmma accumulators into an f32 sum every `float8-promote-interval`
// contraction elements (64 adds per thread: 128 x 128 tiles,
// `_acc<interval>`); the forward GEMM and interval 0 keep the fast
// accumulation (one accumulator over K, 128 x 256 tiles). K = 1024: eight
// contraction tiles.
//
// The default interval, one tile (128), is pipelined
// (emitPipelinedPromotion): two accumulator sets X and Y, a pair of stages
// per iteration, each stage's first wgmma overwriting its set (scale-d
// zero). After X is issued, the previous iteration's Y (complete, carried
// unadded across the back edge; zero at first) is added into the sum while
// X runs; after Y's wait_group 1 (which completes X) X is added while Y
// runs; the iteration ends with wait_group 0 (nothing in flight across the
// back edge) and the last Y is added after the loop. An even tile count:
// the loop of the last odd tile folds away. (These checks pin
// `float8-promote-unroll=2`, kernel names `_acc128u2`.)
//
// By default a dense GEMM with a bf16 result runs four tiles per iteration
// (X, Y, X, Y: half the drains), the same sum in the same order.
// U4-LABEL: gpu.func @scaled_mm_k_k_e4m3_e4m3_bf16_256x384x1024_b1_p1c1_v9w1s6_f8rr_acc128(
// U4:           %[[R:.*]]:3 = scf.for %{{.*}} = %c0 to %c8 step %c4 iter_args(%{{.*}} = %{{.*}}, %[[X:.*]] = %{{.*}}, %[[Y:.*]] = %{{.*}})
// U4:             nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[X]], <m = 64, n = 128, k = 32>, D[<f32>, <zero>]
// U4:             nvvm.wgmma.wait.group.sync.aligned 1
// U4-COUNT-64:    arith.addf
// U4:             nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[Y]], <m = 64, n = 128, k = 32>, D[<f32>, <zero>]
// U4:             nvvm.wgmma.wait.group.sync.aligned 1
// U4-COUNT-64:    arith.addf
// U4:             nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 32>, D[<f32>, <zero>]
// U4:             nvvm.wgmma.wait.group.sync.aligned 1
// U4-COUNT-64:    arith.addf
// U4:             nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 32>, D[<f32>, <zero>]
// U4:             nvvm.wgmma.wait.group.sync.aligned 1
// U4-COUNT-64:    arith.addf
// U4-NOT:         nvvm.wgmma.mma_async
// U4:             nvvm.wgmma.wait.group.sync.aligned 0
// U4-NEXT:        scf.yield
// U4-NEXT:      }
// U4-NEXT:      llvm.extractvalue %[[R]]#2[0]

// CHECK-LABEL: func.func @dgrad(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_mm_k_k_e4m3_e4m3_bf16_256x384x1024_b1_p1c1_v9w1s6_f8rr_acc128u2 blocks in (%c6, %c1, %c1)
// CHECK-LABEL: gpu.func @scaled_mm_k_k_e4m3_e4m3_bf16_256x384x1024_b1_p1c1_v9w1s6_f8rr_acc128u2(
// CHECK:           %[[Z:.*]] = llvm.mlir.zero : !llvm.struct<(f32,
// CHECK:           %[[R:.*]]:3 = scf.for %[[I:.*]] = %c0 to %c8 step %c2 iter_args(%[[S:.*]] = %[[Z]], %[[X:.*]] = %[[Z]], %[[Y:.*]] = %[[Z]])
// CHECK:             nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[X]], <m = 64, n = 128, k = 32>, D[<f32>, <zero>]
// CHECK-COUNT-2:     nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 32>, D[<f32>, <one>]
// CHECK:             %[[XN:.*]] = nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 32>, D[<f32>, <one>]
// CHECK:             nvvm.wgmma.wait.group.sync.aligned 1
// CHECK-NEXT:        %[[Y0:.*]] = llvm.extractvalue %[[Y]][0]
// CHECK-NEXT:        %[[S0:.*]] = llvm.extractvalue %[[S]][0]
// CHECK-NEXT:        %[[A0:.*]] = arith.addf %[[S0]], %[[Y0]] : f32
// CHECK-COUNT-63:    arith.addf
// CHECK:             nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[Y]], <m = 64, n = 128, k = 32>, D[<f32>, <zero>]
// CHECK-COUNT-2:     nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 32>, D[<f32>, <one>]
// CHECK:             %[[YN:.*]] = nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 32>, D[<f32>, <one>]
// CHECK-NEXT:        nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT:        nvvm.wgmma.wait.group.sync.aligned 1
// CHECK-NEXT:        %[[X0:.*]] = llvm.extractvalue %[[XN]][0]
// CHECK-NEXT:        arith.addf %[[A0]], %[[X0]] : f32
// CHECK-COUNT-63:    arith.addf
// CHECK:             nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NOT:         arith.addf
// CHECK:             scf.yield %{{.*}}, %[[XN]], %[[YN]]
// CHECK-NEXT:      }
// The last Y, after the loop.
// CHECK-NEXT:      %[[LY0:.*]] = llvm.extractvalue %[[R]]#2[0]
// CHECK-NEXT:      %[[LS0:.*]] = llvm.extractvalue %[[R]]#0[0]
// CHECK-NEXT:      %[[F0:.*]] = arith.addf %[[LS0]], %[[LY0]] : f32
// CHECK-COUNT-63:  arith.addf
// The tile's scale reciprocals are staged (scaled-mm-float8-wgmma.mlir),
// then the epilogue reads the sum.
// CHECK:           nvvm.barrier id
// CHECK:           nvvm.barrier id
// CHECK-NEXT:      nvvm.wgmma.wait.group.sync.aligned 0
// CHECK:           arith.mulf %[[F0]], %{{.*}} : f32

// I512-LABEL: gpu.func @scaled_mm_k_k_e4m3_e4m3_bf16_256x384x1024_b1_p1c1_v9w1s6_f8rr_acc512(
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
// CHECK-LABEL: gpu.func @scaled_mm_k_k_e4m3_e4m3_bf16_256x384x1024_b1_p1c1_v9w1s3_f8rr_acc128u2(
// FAST-LABEL: gpu.func @scaled_mm_k_k_e4m3_e4m3_bf16_256x384x1024_b1_p1c1_v9w1s3_n256_f8rr(
func.func @wgrad_config(%x: tensor<256x1024xf8E4M3FN>, %xs: tensor<256x1xf32>, %w: tensor<384x1024xf8E4M3FN>, %ws: tensor<384x1xf32>) -> tensor<256x384xbf16> {
  %y = mxfp8train.scaled_mm %x [%xs], %w [%ws] transpose_rhs {mxfp8train.role = "wgrad", mxfp8train.gemm_config = #mxfp8train.gemm_config<tile_n = 256, stages = 3>}
      : tensor<256x1024xf8E4M3FN> [tensor<256x1xf32>], tensor<384x1024xf8E4M3FN> [tensor<384x1xf32>] -> tensor<256x384xbf16>
  return %y : tensor<256x384xbf16>
}

// -----

// `mxfp8train.use_fast_accum` (set by the rewrite) decides over the role:
// a dgrad with fast accumulation keeps one accumulator and 128 x 256 tiles.
// CHECK-LABEL: gpu.func @scaled_mm_k_k_e4m3_e4m3_bf16_256x384x1024_b1_p1c1_v9w1s4_n256_f8rr(
// CHECK-NOT:       arith.addf
// CHECK:           gpu.return
func.func @dgrad_fast_accum(%x: tensor<256x1024xf8E4M3FN>, %xs: tensor<256x1xf32>, %w: tensor<384x1024xf8E4M3FN>, %ws: tensor<384x1xf32>) -> tensor<256x384xbf16> {
  %y = mxfp8train.scaled_mm %x [%xs], %w [%ws] transpose_rhs {mxfp8train.role = "dgrad", mxfp8train.use_fast_accum = true}
      : tensor<256x1024xf8E4M3FN> [tensor<256x1xf32>], tensor<384x1024xf8E4M3FN> [tensor<384x1xf32>] -> tensor<256x384xbf16>
  return %y : tensor<256x384xbf16>
}

// -----

// ... and a forward GEMM without it is promoted.
// CHECK-LABEL: gpu.func @scaled_mm_k_k_e4m3_e4m3_bf16_256x384x1024_b1_p1c1_v9w1s6_f8rr_acc128u2(
// CHECK-COUNT-64:  arith.addf
func.func @forward_promoted(%x: tensor<256x1024xf8E4M3FN>, %xs: tensor<256x1xf32>, %w: tensor<384x1024xf8E4M3FN>, %ws: tensor<384x1xf32>) -> tensor<256x384xbf16> {
  %y = mxfp8train.scaled_mm %x [%xs], %w [%ws] transpose_rhs {mxfp8train.role = "forward", mxfp8train.use_fast_accum = false}
      : tensor<256x1024xf8E4M3FN> [tensor<256x1xf32>], tensor<384x1024xf8E4M3FN> [tensor<384x1xf32>] -> tensor<256x384xbf16>
  return %y : tensor<256x384xbf16>
}

// -----

// Grouped GEMMs accumulate fast by default (torchao's fp8_grouped_mm passes
// use_fast_accum=True in all three GEMMs, SPEC-float8 §4.4), whatever the
// role.
// CHECK-LABEL: gpu.func @scaled_gmm_2d3d_k_ks_e4m3_e4m3_bf16_1000x384x512_b4_p1c1_v9w1s4_n256_c2_f8rr(
// CHECK-NOT:       arith.addf
// CHECK:           gpu.return
func.func @grouped_dgrad(%a: tensor<1000x512xf8E4M3FN>, %as: tensor<1000x1xf32>, %w: tensor<4x384x512xf8E4M3FN>, %ws: tensor<4x384x1xf32>, %offs: tensor<4xi32>) -> tensor<1000x384xbf16> {
  %out = mxfp8train.scaled_grouped_mm %a [%as], %w [%ws] offs(%offs) transpose_rhs {mxfp8train.role = "dgrad"}
      : tensor<1000x512xf8E4M3FN> [tensor<1000x1xf32>], tensor<4x384x512xf8E4M3FN> [tensor<4x384x1xf32>], tensor<4xi32> -> tensor<1000x384xbf16>
  return %out : tensor<1000x384xbf16>
}

// -----

// An odd tile count (K = 640, five tiles): two pairs, the last pair's Y
// added after the loop, then the last tile on its own (a loop of one
// iteration, folded), added after its wait_group 0.
// CHECK-LABEL: gpu.func @scaled_mm_k_k_e4m3_e4m3_bf16_256x384x640_b1_p1c1_v9w1s6_f8rr_acc128u2(
// CHECK:           %[[R:.*]]:3 = scf.for %{{.*}} = %c0 to %c4 step %c2 iter_args(
// CHECK:             scf.yield
// CHECK-NEXT:      }
// CHECK-NEXT:      llvm.extractvalue %[[R]]#2[0]
// CHECK-NEXT:      llvm.extractvalue %[[R]]#0[0]
// CHECK-COUNT-64:  arith.addf
// CHECK:           nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 32>, D[<f32>, <zero>]
// CHECK-COUNT-3:   nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 32>, D[<f32>, <one>]
// CHECK:           nvvm.wgmma.wait.group.sync.aligned 1
// CHECK:           nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-COUNT-64:  arith.addf
func.func @wgrad_odd(%x: tensor<256x640xf8E4M3FN>, %xs: tensor<256x1xf32>, %w: tensor<384x640xf8E4M3FN>, %ws: tensor<384x1xf32>) -> tensor<256x384xbf16> {
  %y = mxfp8train.scaled_mm %x [%xs], %w [%ws] transpose_rhs {mxfp8train.role = "wgrad"}
      : tensor<256x640xf8E4M3FN> [tensor<256x1xf32>], tensor<384x640xf8E4M3FN> [tensor<384x1xf32>] -> tensor<256x384xbf16>
  return %y : tensor<256x384xbf16>
}
