// RUN: mxfp8-opt %s --pass-pipeline='builtin.module(func.func(convert-linalg-to-parallel-loops,mxfp8train-gpu-tile-parallel-loops,gpu-map-parallel-loops{mapping-policy=innermost-first},convert-parallel-loops-to-gpu),canonicalize)' | FileCheck %s

// The linalg ops without a kernel of their own reach the GPU through
// upstream passes; mxfp8train-gpu-tile-parallel-loops picks CTAs of 256
// threads, innermost dimension first (threadIdx.x runs along the contiguous
// dimension), the next dimensions only when the innermost is shorter.

// (32, 512): 256 threads along the columns, grid (2, 32).
// CHECK-LABEL: func.func @elementwise(
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG:     %[[C256:.*]] = arith.constant 256 : index
// CHECK:         gpu.launch blocks(%[[BX:.*]], %[[BY:.*]], %{{.*}}) in (%{{.*}} = %[[C2]], %{{.*}} = %[[C32]], %{{.*}} = %[[C1]]) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C256]], %{{.*}} = %[[C1]], %{{.*}} = %[[C1]])
// CHECK:           %[[COL0:.*]] = affine.apply #{{.*}}()[%[[BX]]]
// CHECK:           %[[COL:.*]] = arith.addi %[[TX]], %[[COL0]] : index
// CHECK:           memref.load %{{.*}}[%[[BY]], %[[COL]]] : memref<32x512xbf16>
// CHECK:           arith.extf
func.func @elementwise(%a: memref<32x512xbf16>, %b: memref<32x512xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<32x512xbf16>) outs(%b : memref<32x512xf32>) {
  ^bb0(%x: bf16, %o: f32):
    %e = arith.extf %x : bf16 to f32
    linalg.yield %e : f32
  }
  return
}

// (16, 4, 8): 8 x 4 x 8 threads, grid (1, 1, 2).
// CHECK-LABEL: func.func @transpose(
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG:     %[[C8:.*]] = arith.constant 8 : index
// CHECK:         gpu.launch blocks({{.*}}) in (%{{.*}} = %[[C1]], %{{.*}} = %[[C1]], %{{.*}} = %[[C2]]) threads({{.*}}) in (%{{.*}} = %[[C8]], %{{.*}} = %[[C4]], %{{.*}} = %[[C8]])
func.func @transpose(%t: memref<8x4x16xf32>, %u: memref<16x4x8xf32>) {
  linalg.transpose ins(%t : memref<8x4x16xf32>) outs(%u : memref<16x4x8xf32>) permutation = [2, 1, 0]
  return
}

// A row sum of (100, 70): one thread per row, 128 threads (the next power
// of two), the last ones guarded; the reduction over the 70 columns stays a
// sequential loop in each thread.
// CHECK-LABEL: func.func @reduce_rows(
// CHECK-DAG:     %[[C100:.*]] = arith.constant 100 : index
// CHECK-DAG:     %[[C128:.*]] = arith.constant 128 : index
// CHECK:         gpu.launch blocks({{.*}}) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C128]],
// CHECK:           %[[IN:.*]] = arith.cmpi ult, %[[TX]], %[[C100]] : index
// CHECK:           scf.if %[[IN]] {
// CHECK:             scf.for
// CHECK:               arith.addf
func.func @reduce_rows(%a: memref<100x70xf32>, %r: memref<100xf32>) {
  linalg.reduce ins(%a : memref<100x70xf32>) outs(%r : memref<100xf32>) dimensions = [1]
    (%x: f32, %acc: f32) {
      %s = arith.addf %x, %acc : f32
      linalg.yield %s : f32
    }
  return
}
