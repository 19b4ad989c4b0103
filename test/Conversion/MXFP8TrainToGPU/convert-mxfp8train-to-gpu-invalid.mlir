// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu --split-input-file --verify-diagnostics
// RUN: not mxfp8-opt %s --convert-mxfp8train-to-gpu="chip=sm_80" --split-input-file 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not mxfp8-opt %s --convert-mxfp8train-to-gpu="chip=sm_90" --split-input-file 2>&1 | FileCheck %s --check-prefix=CHIP90
// RUN: not mxfp8-opt %s --mxfp8train-lower-to-gpu="chip=sm_100" --split-input-file 2>&1 | FileCheck %s --check-prefix=CHIP100
// RUN: not mxfp8-opt %s --mxfp8train-lower-to-gpu="column-cast-lanes=3" --split-input-file 2>&1 | FileCheck %s --check-prefix=LANES

// The chip is one of the names exactly (the generic sm_90 / sm_100 have no
// wgmma / tcgen05), parsed once by the pass; anything else fails the pass.
// CHIP: convert-mxfp8train-to-gpu: unsupported chip 'sm_80' (expected sm_90a or sm_100a)
// CHIP90: convert-mxfp8train-to-gpu: unsupported chip 'sm_90' (expected sm_90a or sm_100a)
// CHIP100: convert-mxfp8train-to-gpu: unsupported chip 'sm_100' (expected sm_90a or sm_100a)
// The dual cast kernel's lanes per tile divide the 32 rows of a block.
// LANES: convert-mxfp8train-to-gpu: column-cast-lanes must be 0, 1, 2 or 4 (got 3)

func.func @dynamic(%x: tensor<?x64xbf16>) -> (tensor<?x64xf8E4M3FN>, tensor<?x2xf8E8M0FNU>) {
  // expected-error @+1 {{'mxfp8train.quantize' has no GPU lowering: it has a dynamic shape}}
  %q, %s = mxfp8train.quantize %x axis = 1 mode = rceil
      : tensor<?x64xbf16> -> tensor<?x64xf8E4M3FN>, tensor<?x2xf8E8M0FNU>
  return %q, %s : tensor<?x64xf8E4M3FN>, tensor<?x2xf8E8M0FNU>
}

// -----

// Grouped blocked scale layouts have no GPU GEMM (only row_major scales).
func.func @gemm(%a: tensor<512x256xf8E4M3FN>, %as: tensor<12288xf8E8M0FNU>,
                %w: tensor<8x64x256xf8E4M3FN>, %ws: tensor<8x1024xf8E8M0FNU>,
                %offs: tensor<8xi32>) -> tensor<512x64xbf16> {
  // expected-error @+1 {{'mxfp8train.scaled_grouped_mm' has no GPU lowering}}
  %y = mxfp8train.scaled_grouped_mm %a [%as], %w [%ws] offs(%offs) transpose_rhs
      lhs_layout = blocked_m_groups rhs_layout = blocked_per_expert
      : tensor<512x256xf8E4M3FN> [tensor<12288xf8E8M0FNU>],
        tensor<8x64x256xf8E4M3FN> [tensor<8x1024xf8E8M0FNU>], tensor<8xi32> -> tensor<512x64xbf16>
  return %y : tensor<512x64xbf16>
}

// -----

// A user symbol with the kernel module's name (issue 14 row 16) is an error
// that names the clash, not an undefined-kernel error on a launch.
// expected-error @below {{the symbol name 'mxfp8train_kernels' is reserved for the kernel module of convert-mxfp8train-to-gpu; rename this 'func.func'}}
func.func @mxfp8train_kernels(%x: tensor<64x64xbf16>) -> tensor<64x64xf8E4M3FN> {
  %q, %s = mxfp8train.quantize %x axis = 1 mode = rceil : tensor<64x64xbf16> -> tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU>
  return %q : tensor<64x64xf8E4M3FN>
}
