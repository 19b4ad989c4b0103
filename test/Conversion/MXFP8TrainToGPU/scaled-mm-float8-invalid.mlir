// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu --split-input-file --verify-diagnostics
// RUN: not mxfp8-opt %s --convert-mxfp8train-to-gpu="chip=sm_100a" --split-input-file 2>&1 | FileCheck %s --check-prefix=SM100
// RUN: not mxfp8-opt %s --convert-mxfp8train-to-gpu="float8-promote-interval=100" --split-input-file 2>&1 | FileCheck %s --check-prefix=INTERVAL
// RUN: not mxfp8-opt %s --convert-mxfp8train-to-gpu="float8-promote-unroll=3" --split-input-file 2>&1 | FileCheck %s --check-prefix=UNROLL
// RUN: not mxfp8-opt %s --convert-mxfp8train-to-gpu="gemm-cluster-m=3" --split-input-file 2>&1 | FileCheck %s --check-prefix=CLUSTER
// RUN: not mxfp8-opt %s --convert-mxfp8train-to-gpu="float8-promote-tile-n=144" --split-input-file 2>&1 | FileCheck %s --check-prefix=TILEN
// RUN: not mxfp8-opt %s --convert-mxfp8train-to-gpu="float8-promote-tile-n=160 float8-promote-unroll=2" --split-input-file 2>&1 | FileCheck %s --check-prefix=TILEN-SETS

// The Float8 GEMMs the GPU lowering does not take (Gemm/WGMMAFloat8.cpp):
// fp8 wgmma reads K-major shared memory only, so an MN-major operand goes
// through the fp8 transpose pre-pass (any rows; K is a multiple of 16 by
// the verifier); the 2d-2d form needs both operands stored tokens first. Each is
// reported at the op with the reason and fails the pass. A promotion
// interval that is not a multiple of the 128 K of a stage is rejected, and
// so is an odd (or out of range) unroll of the pipelined promotion other
// than 1 (one set), a cluster along M other than 1 or 2, a promoted tile
// width other than 128, 160 or 192, and two accumulator sets with a tile
// wider than 128 (they do not fit the MMA warpgroups' registers).

// sm_100a (tcgen05 kind::f8f6f4, Gemm/TCGen05.cpp) reads MN-major 8-bit
// operands in place (rows 16-byte aligned; others, and 2d-2d, go through
// the same fp8 transposes as sm_90a's) and takes 2d-3d. It reports the
// 2d-2d op with a K-major operand, nothing else:
// SM100-NOT: error: 'mxfp8train.
// SM100: error: 'mxfp8train.scaled_grouped_mm' has no GPU lowering: the Float8 grouped GEMM 2d-2d needs both operands stored tokens first (lhs (T, M) with transpose_lhs, rhs (T, N)), found one stored K-major
// SM100-NOT: error: 'mxfp8train.

// INTERVAL-COUNT-5: error: convert-mxfp8train-to-gpu: float8-promote-interval must be a non-negative multiple of 128 (got 100)
// UNROLL-COUNT-5: error: convert-mxfp8train-to-gpu: float8-promote-unroll must be 0, 1, 2, 4 or 6 (got 3)
// CLUSTER-COUNT-5: error: convert-mxfp8train-to-gpu: gemm-cluster-m must be 0, 1 or 2 (got 3)
// TILEN-COUNT-5: error: convert-mxfp8train-to-gpu: float8-promote-tile-n must be 0, 128, 160 or 192 (got 144)
// TILEN-SETS-COUNT-5: error: convert-mxfp8train-to-gpu: float8-promote-tile-n 160 keeps one accumulator set: float8-promote-unroll must be 0 or 1 with it (got 2)

// MN-major rhs (rows and K multiples of 16): lowered on sm_90a through the
// transpose pre-pass, read in place on sm_100a (no diagnostic).
func.func @rhs_mn_major(%g: tensor<16x32xf8E5M2>, %t: tensor<f32>, %w: tensor<32x64xf8E4M3FN>) -> tensor<16x64xbf16> {
  %y = mxfp8train.scaled_mm %g [%t], %w [%t]
      : tensor<16x32xf8E5M2> [tensor<f32>], tensor<32x64xf8E4M3FN> [tensor<f32>] -> tensor<16x64xbf16>
  return %y : tensor<16x64xbf16>
}

// -----

// K-major operands: lowered on sm_90a and sm_100a (no diagnostic).
func.func @k_major(%x: tensor<16x64xf8E4M3FN>, %xs: tensor<16x1xf32>, %w: tensor<32x64xf8E4M3FN>, %ws: tensor<32x1xf32>) -> tensor<16x32xbf16> {
  %y = mxfp8train.scaled_mm %x [%xs], %w [%ws] transpose_rhs
      : tensor<16x64xf8E4M3FN> [tensor<16x1xf32>], tensor<32x64xf8E4M3FN> [tensor<32x1xf32>] -> tensor<16x32xbf16>
  return %y : tensor<16x32xbf16>
}

// -----

func.func @grouped_2d3d(%a: tensor<40x64xf8E4M3FN>, %as: tensor<40x1xf32>, %w: tensor<4x32x64xf8E4M3FN>, %ws: tensor<4x32x1xf32>, %offs: tensor<4xi32>) -> tensor<40x32xbf16> {
  %out = mxfp8train.scaled_grouped_mm %a [%as], %w [%ws] offs(%offs) transpose_rhs
      : tensor<40x64xf8E4M3FN> [tensor<40x1xf32>], tensor<4x32x64xf8E4M3FN> [tensor<4x32x1xf32>], tensor<4xi32> -> tensor<40x32xbf16>
  return %out : tensor<40x32xbf16>
}

// -----

// 2d-2d with both operands stored tokens first: lowered on sm_90a.
func.func @grouped_2d2d(%go: tensor<48x32xf8E4M3FN>, %gos: tensor<4x32xf32>, %x: tensor<48x64xf8E4M3FN>, %xs: tensor<4x64xf32>, %offs: tensor<4xi32>) -> tensor<4x32x64xbf16> {
  %dw = mxfp8train.scaled_grouped_mm %go [%gos], %x [%xs] offs(%offs) transpose_lhs
      : tensor<48x32xf8E4M3FN> [tensor<4x32xf32>], tensor<48x64xf8E4M3FN> [tensor<4x64xf32>], tensor<4xi32> -> tensor<4x32x64xbf16>
  return %dw : tensor<4x32x64xbf16>
}

// -----

func.func @grouped_2d2d_k_major(%go: tensor<32x48xf8E4M3FN>, %gos: tensor<4x32xf32>, %x: tensor<48x64xf8E4M3FN>, %xs: tensor<4x64xf32>, %offs: tensor<4xi32>) -> tensor<4x32x64xbf16> {
  // expected-error @+1 {{'mxfp8train.scaled_grouped_mm' has no GPU lowering: the Float8 grouped GEMM 2d-2d needs both operands stored tokens first (lhs (T, M) with transpose_lhs, rhs (T, N)), found one stored K-major}}
  %dw = mxfp8train.scaled_grouped_mm %go [%gos], %x [%xs] offs(%offs)
      : tensor<32x48xf8E4M3FN> [tensor<4x32xf32>], tensor<48x64xf8E4M3FN> [tensor<4x64xf32>], tensor<4xi32> -> tensor<4x32x64xbf16>
  return %dw : tensor<4x32x64xbf16>
}
