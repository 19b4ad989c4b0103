// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu="float8-promote-tile-n=160" --canonicalize | FileCheck %s
// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu="float8-promote-unroll=1" --canonicalize | FileCheck %s --check-prefix=U1
// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu="float8-promote-tile-n=192 float8-promote-unroll=1" --canonicalize | FileCheck %s --check-prefix=N192
// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu --canonicalize | FileCheck %s --check-prefix=DEFAULT

// The one-set promotion of the sm_90a Float8 gradient GEMMs (Gemm/WGMMA.cpp,
// WgmmaConsumer::emitRingTile with GemmSpec::promoteUnroll 1): one m64nN
// accumulator set next to the f32 sum, so that tiles wider than 128
// columns fit the MMA warpgroups' registers (`float8-promote-tile-n`
// 160 / 192 implies it; `float8-promote-unroll=1` asks for it at 128).
// Per contraction tile: wait for the other warpgroup's turn (`bar.sync`
// on a named barrier, skipped by warpgroup 0 for the kernel's first
// stage), the stage's four wgmma on fresh accumulators (scale-d zero),
// `bar.arrive` for the other warpgroup, wait_group 0, release the stage
// (its empty barrier), add the set into the sum. After the tile walk
// warpgroup 0 takes warpgroup 1's last arrival (barrier 3). The same sum in
// the same order as the two-set pipeline (the results are the same bits:
// bench/README.md "Session 22"); measured slower on the H200, so not the
// default.

// CHECK-LABEL: gpu.func @scaled_mm_k_k_e4m3_e4m3_bf16_256x384x1024_b1_p1c1_v9w1s5_n160_f8rr_acc128(
// CHECK:           %[[Z:.*]] = llvm.mlir.zero : !llvm.struct<(f32,
// CHECK:           scf.for %{{.*}} = %c0 to %c8 step %c1 iter_args(%[[ACC:.*]] = %[[Z]], %[[SUM:.*]] = %[[Z]])
// CHECK:             nvvm.mbarrier.try_wait.parity
// CHECK:             scf.if
// CHECK-NEXT:          nvvm.barrier id = %{{.*}} number_of_threads = %c256_i32
// CHECK-NEXT:        }
// CHECK:             nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[ACC]], <m = 64, n = 160, k = 32>, D[<f32>, <zero>]
// CHECK-COUNT-2:     nvvm.wgmma.mma_async {{.*}} <m = 64, n = 160, k = 32>, D[<f32>, <one>]
// CHECK:             %[[LAST:.*]] = nvvm.wgmma.mma_async {{.*}} <m = 64, n = 160, k = 32>, D[<f32>, <one>]
// CHECK-NEXT:        nvvm.wgmma.commit.group.sync.aligned
// CHECK:             nvvm.barrier.arrive id = %{{.*}} number_of_threads = %c256_i32
// CHECK-NEXT:        nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NOT:         arith.addf
// CHECK:             nvvm.mbarrier.arrive
// CHECK:             %[[L0:.*]] = llvm.extractvalue %[[LAST]][0]
// CHECK-NEXT:        %[[S0:.*]] = llvm.extractvalue %[[SUM]][0]
// CHECK-NEXT:        arith.addf %[[S0]], %[[L0]] : f32
// CHECK-COUNT-79:    arith.addf
// CHECK-NOT:         nvvm.wgmma
// CHECK:             scf.yield %[[LAST]], %{{.*}}
// The 160 columns' staged epilogue: two chunks of 64 columns (four
// stmatrix each) and one of 32 (two).
// CHECK-COUNT-10:  nvvm.stmatrix
// CHECK-NOT:       nvvm.stmatrix
// CHECK:             nvvm.barrier id = %c3_i32 number_of_threads = %c256_i32
// CHECK-NEXT:      }
// CHECK-NEXT:    } else {
// CHECK:           nvvm.setmaxregister decrease 72

// U1-LABEL: gpu.func @scaled_mm_k_k_e4m3_e4m3_bf16_256x384x1024_b1_p1c1_v9w1s6_f8rr_acc128u1(
// U1:             nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 32>, D[<f32>, <zero>]
// U1:             nvvm.barrier.arrive
// U1-NEXT:        nvvm.wgmma.wait.group.sync.aligned 0
// U1:             nvvm.mbarrier.arrive
// U1-COUNT-64:    arith.addf
// U1-NOT:         arith.addf
// U1:             scf.yield

// N192-LABEL: gpu.func @scaled_mm_k_k_e4m3_e4m3_bf16_256x384x1024_b1_p1c1_v9w1s5_n192_f8rr_acc128(
// N192:           nvvm.wgmma.mma_async {{.*}} <m = 64, n = 192, k = 32>, D[<f32>, <zero>]
// N192-COUNT-96:  arith.addf
// N192-NOT:       arith.addf
// N192:           scf.yield
// N192-COUNT-12:  nvvm.stmatrix
// N192-NOT:       nvvm.stmatrix

// The default: two sets on 128 x 128 tiles, no ordered issue.
// DEFAULT-LABEL: gpu.func @scaled_mm_k_k_e4m3_e4m3_bf16_256x384x1024_b1_p1c1_v9w1s6_f8rr_acc128(
// DEFAULT-NOT:     nvvm.barrier.arrive
// DEFAULT:         gpu.return
func.func @dgrad(%x: tensor<256x1024xf8E4M3FN>, %xs: tensor<256x1xf32>, %w: tensor<384x1024xf8E4M3FN>, %ws: tensor<384x1xf32>) -> tensor<256x384xbf16> {
  %y = mxfp8train.scaled_mm %x [%xs], %w [%ws] transpose_rhs {mxfp8train.role = "dgrad"}
      : tensor<256x1024xf8E4M3FN> [tensor<256x1xf32>], tensor<384x1024xf8E4M3FN> [tensor<384x1xf32>] -> tensor<256x384xbf16>
  return %y : tensor<256x384xbf16>
}
