// REQUIRES: ptxas
// RUN: mxfp8-opt %s --mxfp8train-lower-to-gpu="format=isa" | %extract_ptx > %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: FileCheck %s --input-file=%t.ptx --check-prefix=RING
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin > %t.log 2>&1
// RUN: FileCheck %s --input-file=%t.log --check-prefix=PTXAS
// RUN: mxfp8-opt %s --mxfp8train-lower-to-gpu="format=isa float8-promote-tile-n=160" | %extract_ptx > %t.n160.ptx
// RUN: FileCheck %s --input-file=%t.n160.ptx --check-prefix=N160
// RUN: %ptxas -arch=sm_90a -v %t.n160.ptx -o %t.n160.cubin > %t.n160.log 2>&1
// RUN: FileCheck %s --input-file=%t.n160.log --check-prefix=PTXAS
// RUN: mxfp8-opt %s --mxfp8train-lower-to-gpu="format=isa float8-promote-tile-n=192" | %extract_ptx > %t.n192.ptx
// RUN: %ptxas -arch=sm_90a -v %t.n192.ptx -o %t.n192.cubin > %t.n192.log 2>&1
// RUN: FileCheck %s --input-file=%t.n192.log --check-prefix=PTXAS

// The promoting sm_90a Float8 GEMM (torchao's gradient GEMMs,
// use_fast_accum=False; Gemm/WGMMA.cpp emitPipelinedPromotion) in PTX: two
// m64n128 accumulator sets of four wgmma each per loop iteration, the f32
// sum updated with add.rn.f32 (never fma). ptxas keeps the sets and the sum
// (192 registers) in the MMA warpgroups' 216 without spills, and without
// serializing the wgmma (its C7514 "wgmma.mma_async instructions are
// serialized" note; C7519, an injected warpgroup.arrive): one set is read
// while the other runs, never across the loop's back edge. K = 1536: 12
// tiles; K = 1664: 13, the last in the loop of single tiles.

// CHECK: .target sm_90a
// CHECK-DAG: .entry scaled_mm_k_k_e4m3_e4m3_bf16_256x384x1536_b1_p1c1_v9w1s6_f8rr_acc128(
// CHECK-DAG: .entry scaled_mm_k_k_e4m3_e4m3_f32_256x384x1664_b1_p1c1_v9w1s6_f8rr_acc128(
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// CHECK-DAG: wgmma.wait_group.sync.aligned 1;
// CHECK-DAG: add.rn.f32
// CHECK-NOT: fma.rn.f32

// The one-set kernels on 128 x 160 / 128 x 192 tiles
// (float8-promote-tile-n; Gemm/WGMMA.cpp, usesOrderedIssue): one
// accumulator set and the sum (160 / 192 registers) without spills or
// serialized wgmma, the two warpgroups' issue ordered by named barriers
// whose id is the warpgroup's (a register).
// N160-DAG: .entry scaled_mm_k_k_e4m3_e4m3_bf16_256x384x1536_b1_p1c1_v9w1s5_n160_f8rr_acc128(
// N160-DAG: wgmma.mma_async.sync.aligned.m64n160k32.f32.e4m3.e4m3
// N160-DAG: bar.arrive {{%r[0-9]+}}, 256;
// N160-DAG: bar.sync {{[[:space:]]*}}{{%r[0-9]+}}, 256;
// N160-DAG: wgmma.wait_group.sync.aligned 0;

// No division or remainder anywhere, nor the multiply-high that LLVM makes
// of a division by a constant (the ring's slot and parity are advanced with
// the counter: six stages are not a power of two), and the MMA role's
// warpgroup index comes from lane 0 (shfl), once per kernel.
// RING-NOT: {{(div|rem)\.[us](32|64)|mul\.hi}}
// RING: shfl.sync.idx.b32
// RING-NOT: {{(div|rem)\.[us](32|64)|mul\.hi}}

// PTXAS-NOT: C7514
// PTXAS-NOT: C7519
// PTXAS-NOT: error
// PTXAS-NOT: warning
// PTXAS-COUNT-2: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: Compiling entry function

func.func @dgrad_even(%x: tensor<256x1536xf8E4M3FN>, %xs: tensor<256x1xf32>, %w: tensor<384x1536xf8E4M3FN>, %ws: tensor<384x1xf32>) -> tensor<256x384xbf16> {
  %y = mxfp8train.scaled_mm %x [%xs], %w [%ws] transpose_rhs {mxfp8train.role = "dgrad", mxfp8train.use_fast_accum = false}
      : tensor<256x1536xf8E4M3FN> [tensor<256x1xf32>], tensor<384x1536xf8E4M3FN> [tensor<384x1xf32>] -> tensor<256x384xbf16>
  return %y : tensor<256x384xbf16>
}

func.func @wgrad_odd(%x: tensor<256x1664xf8E4M3FN>, %xs: tensor<256x1xf32>, %w: tensor<384x1664xf8E4M3FN>, %ws: tensor<384x1xf32>) -> tensor<256x384xf32> {
  %y = mxfp8train.scaled_mm %x [%xs], %w [%ws] transpose_rhs {mxfp8train.role = "wgrad", mxfp8train.use_fast_accum = false}
      : tensor<256x1664xf8E4M3FN> [tensor<256x1xf32>], tensor<384x1664xf8E4M3FN> [tensor<384x1xf32>] -> tensor<256x384xf32>
  return %y : tensor<256x384xf32>
}
