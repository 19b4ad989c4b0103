// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu="chip=sm_100a" --split-input-file --verify-diagnostics

// On sm_100a, blocked scales are lowered only by the tcgen05 kernel (rank 2;
// TMA needs 16-byte aligned rows: an MN-major lhs needs M a multiple of 16);
// the simple kernels read row-major scales.
func.func @mn_major_unaligned_blocked(%a: tensor<64x40xf8E4M3FN>, %as: tensor<512xf8E8M0FNU>,
                                      %w: tensor<64x64xf8E4M3FN>, %ws: tensor<512xf8E8M0FNU>) -> tensor<40x64xbf16> {
  // expected-error @+1 {{'mxfp8train.scaled_mm' has no GPU lowering for this form (scaled_grouped_mm needs row_major scales; scaled_mm blocked scales need rank 2 on sm_90a, and rank 2 with 16-byte aligned operand rows on sm_100a)}}
  %y = mxfp8train.scaled_mm %a [%as], %w [%ws] transpose_lhs lhs_layout = blocked rhs_layout = blocked
      : tensor<64x40xf8E4M3FN> [tensor<512xf8E8M0FNU>],
        tensor<64x64xf8E4M3FN> [tensor<512xf8E8M0FNU>] -> tensor<40x64xbf16>
  return %y : tensor<40x64xbf16>
}
