// Every GEMM form the GPU lowering has a kernel for, one function per form,
// for scripts/gemm-variants.py: it lowers each function for a chip,
// assembles every kernel the lowering emits with `ptxas -v` and tables
// registers, spills and shared memory per kernel (the lit test
// test/Target/PTX/gemm-variants.mlir, the table in docs/gemm-variants.md).
// A new kernel the lowering emits for one of these forms is covered without
// a change here; a new op form gets a function here.
//
// Forms: scaled_mm with the four operand layouts (lhs (M, K) or stored
// transposed (K, M), rhs (N, K) or (K, N)), bf16/f32 results, a bias of
// either type, e5m2 and mixed elements, rank 3, blocked scales, an edge
// shape (M, N not multiples of the tiles); scaled_grouped_mm 2d-3d (both
// rhs layouts) and 2d-2d (both operand layouts); the 2-CTA tcgen05 kernel
// of these forms (gemm_config cta_group = 2); the high-precision GEMMs of
// the training steps (linalg.matmul bf16 -> f32 and -> bf16, batch_matmul,
// grouped_mm 2d-3d and 2d-2d).

#mk = affine_map<(m, n, k) -> (m, k)>
#nk = affine_map<(m, n, k) -> (n, k)>
#km = affine_map<(m, n, k) -> (k, m)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>

// --- scaled_mm, rank 2, row-major scales ----------------------------------

// Forward: x (M, K) times W stored (N, K).
func.func @mm_nt_bf16(%a: tensor<256x512xf8E4M3FN>, %as: tensor<256x16xf8E8M0FNU>,
                      %b: tensor<384x512xf8E4M3FN>, %bs: tensor<384x16xf8E8M0FNU>)
    -> tensor<256x384xbf16> {
  %r = mxfp8train.scaled_mm %a [%as], %b [%bs] transpose_rhs
      : tensor<256x512xf8E4M3FN> [tensor<256x16xf8E8M0FNU>],
        tensor<384x512xf8E4M3FN> [tensor<384x16xf8E8M0FNU>] -> tensor<256x384xbf16>
  return %r : tensor<256x384xbf16>
}

func.func @mm_nt_f32(%a: tensor<256x512xf8E4M3FN>, %as: tensor<256x16xf8E8M0FNU>,
                     %b: tensor<384x512xf8E4M3FN>, %bs: tensor<384x16xf8E8M0FNU>)
    -> tensor<256x384xf32> {
  %r = mxfp8train.scaled_mm %a [%as], %b [%bs] transpose_rhs
      : tensor<256x512xf8E4M3FN> [tensor<256x16xf8E8M0FNU>],
        tensor<384x512xf8E4M3FN> [tensor<384x16xf8E8M0FNU>] -> tensor<256x384xf32>
  return %r : tensor<256x384xf32>
}

// Dgrad: dO (M, N) times W stored (N, K) as it is: rhs (K, N) MN-major.
func.func @mm_nn_bf16(%a: tensor<256x512xf8E4M3FN>, %as: tensor<256x16xf8E8M0FNU>,
                      %b: tensor<512x384xf8E4M3FN>, %bs: tensor<16x384xf8E8M0FNU>)
    -> tensor<256x384xbf16> {
  %r = mxfp8train.scaled_mm %a [%as], %b [%bs]
      : tensor<256x512xf8E4M3FN> [tensor<256x16xf8E8M0FNU>],
        tensor<512x384xf8E4M3FN> [tensor<16x384xf8E8M0FNU>] -> tensor<256x384xbf16>
  return %r : tensor<256x384xbf16>
}

// Wgrad: both operands stored token-major (lhs (K, M), rhs (K, N)).
func.func @mm_tn_f32(%a: tensor<512x256xf8E4M3FN>, %as: tensor<16x256xf8E8M0FNU>,
                     %b: tensor<512x384xf8E4M3FN>, %bs: tensor<16x384xf8E8M0FNU>)
    -> tensor<256x384xf32> {
  %r = mxfp8train.scaled_mm %a [%as], %b [%bs] transpose_lhs
      : tensor<512x256xf8E4M3FN> [tensor<16x256xf8E8M0FNU>],
        tensor<512x384xf8E4M3FN> [tensor<16x384xf8E8M0FNU>] -> tensor<256x384xf32>
  return %r : tensor<256x384xf32>
}

func.func @mm_tt_bf16(%a: tensor<512x256xf8E4M3FN>, %as: tensor<16x256xf8E8M0FNU>,
                      %b: tensor<384x512xf8E4M3FN>, %bs: tensor<384x16xf8E8M0FNU>)
    -> tensor<256x384xbf16> {
  %r = mxfp8train.scaled_mm %a [%as], %b [%bs] transpose_lhs transpose_rhs
      : tensor<512x256xf8E4M3FN> [tensor<16x256xf8E8M0FNU>],
        tensor<384x512xf8E4M3FN> [tensor<384x16xf8E8M0FNU>] -> tensor<256x384xbf16>
  return %r : tensor<256x384xbf16>
}

func.func @mm_nt_bias_bf16(%a: tensor<256x512xf8E4M3FN>, %as: tensor<256x16xf8E8M0FNU>,
                           %b: tensor<384x512xf8E4M3FN>, %bs: tensor<384x16xf8E8M0FNU>,
                           %bias: tensor<384xbf16>) -> tensor<256x384xbf16> {
  %r = mxfp8train.scaled_mm %a [%as], %b [%bs] bias(%bias) transpose_rhs
      : tensor<256x512xf8E4M3FN> [tensor<256x16xf8E8M0FNU>],
        tensor<384x512xf8E4M3FN> [tensor<384x16xf8E8M0FNU>], tensor<384xbf16> -> tensor<256x384xbf16>
  return %r : tensor<256x384xbf16>
}

func.func @mm_nt_bias_f32(%a: tensor<256x512xf8E4M3FN>, %as: tensor<256x16xf8E8M0FNU>,
                          %b: tensor<384x512xf8E4M3FN>, %bs: tensor<384x16xf8E8M0FNU>,
                          %bias: tensor<384xf32>) -> tensor<256x384xf32> {
  %r = mxfp8train.scaled_mm %a [%as], %b [%bs] bias(%bias) transpose_rhs
      : tensor<256x512xf8E4M3FN> [tensor<256x16xf8E8M0FNU>],
        tensor<384x512xf8E4M3FN> [tensor<384x16xf8E8M0FNU>], tensor<384xf32> -> tensor<256x384xf32>
  return %r : tensor<256x384xf32>
}

// A bias of the other type than the result (f32 bias, bf16 result).
func.func @mm_nt_f32bias_bf16(%a: tensor<256x512xf8E4M3FN>, %as: tensor<256x16xf8E8M0FNU>,
                              %b: tensor<384x512xf8E4M3FN>, %bs: tensor<384x16xf8E8M0FNU>,
                              %bias: tensor<384xf32>) -> tensor<256x384xbf16> {
  %r = mxfp8train.scaled_mm %a [%as], %b [%bs] bias(%bias) transpose_rhs
      : tensor<256x512xf8E4M3FN> [tensor<256x16xf8E8M0FNU>],
        tensor<384x512xf8E4M3FN> [tensor<384x16xf8E8M0FNU>], tensor<384xf32> -> tensor<256x384xbf16>
  return %r : tensor<256x384xbf16>
}

func.func @mm_nt_e5m2(%a: tensor<256x512xf8E5M2>, %as: tensor<256x16xf8E8M0FNU>,
                      %b: tensor<384x512xf8E5M2>, %bs: tensor<384x16xf8E8M0FNU>)
    -> tensor<256x384xbf16> {
  %r = mxfp8train.scaled_mm %a [%as], %b [%bs] transpose_rhs
      : tensor<256x512xf8E5M2> [tensor<256x16xf8E8M0FNU>],
        tensor<384x512xf8E5M2> [tensor<384x16xf8E8M0FNU>] -> tensor<256x384xbf16>
  return %r : tensor<256x384xbf16>
}

// e5m2 gradients times e4m3 weights (the dgrad of an e5m2 recipe).
func.func @mm_nn_e5m2_e4m3(%a: tensor<256x512xf8E5M2>, %as: tensor<256x16xf8E8M0FNU>,
                           %b: tensor<512x384xf8E4M3FN>, %bs: tensor<16x384xf8E8M0FNU>)
    -> tensor<256x384xf32> {
  %r = mxfp8train.scaled_mm %a [%as], %b [%bs]
      : tensor<256x512xf8E5M2> [tensor<256x16xf8E8M0FNU>],
        tensor<512x384xf8E4M3FN> [tensor<16x384xf8E8M0FNU>] -> tensor<256x384xf32>
  return %r : tensor<256x384xf32>
}

// M and N not multiples of any tile, K of 32 only.
func.func @mm_nt_edge_f32(%a: tensor<133x544xf8E4M3FN>, %as: tensor<133x17xf8E8M0FNU>,
                          %b: tensor<200x544xf8E4M3FN>, %bs: tensor<200x17xf8E8M0FNU>)
    -> tensor<133x200xf32> {
  %r = mxfp8train.scaled_mm %a [%as], %b [%bs] transpose_rhs
      : tensor<133x544xf8E4M3FN> [tensor<133x17xf8E8M0FNU>],
        tensor<200x544xf8E4M3FN> [tensor<200x17xf8E8M0FNU>] -> tensor<133x200xf32>
  return %r : tensor<133x200xf32>
}

// --- scaled_mm, rank 3 and blocked scales ----------------------------------

func.func @bmm_nt_bf16(%a: tensor<3x256x512xf8E4M3FN>, %as: tensor<3x256x16xf8E8M0FNU>,
                       %b: tensor<3x384x512xf8E4M3FN>, %bs: tensor<3x384x16xf8E8M0FNU>)
    -> tensor<3x256x384xbf16> {
  %r = mxfp8train.scaled_mm %a [%as], %b [%bs] transpose_rhs
      : tensor<3x256x512xf8E4M3FN> [tensor<3x256x16xf8E8M0FNU>],
        tensor<3x384x512xf8E4M3FN> [tensor<3x384x16xf8E8M0FNU>] -> tensor<3x256x384xbf16>
  return %r : tensor<3x256x384xbf16>
}

// SPEC §4.1 blocked scales: ceil(rows / 128) * 128 x ceil(K / 128) * 4 bytes.
func.func @mm_nt_blocked_bf16(%a: tensor<256x512xf8E4M3FN>, %as: tensor<4096xf8E8M0FNU>,
                              %b: tensor<384x512xf8E4M3FN>, %bs: tensor<6144xf8E8M0FNU>)
    -> tensor<256x384xbf16> {
  %r = mxfp8train.scaled_mm %a [%as], %b [%bs] transpose_rhs lhs_layout = blocked rhs_layout = blocked
      : tensor<256x512xf8E4M3FN> [tensor<4096xf8E8M0FNU>],
        tensor<384x512xf8E4M3FN> [tensor<6144xf8E8M0FNU>] -> tensor<256x384xbf16>
  return %r : tensor<256x384xbf16>
}

// --- scaled_grouped_mm -----------------------------------------------------

// 2d-3d forward: tokens (M, K) times experts stored (E, N, K).
func.func @gmm_2d3d_nt_bf16(%a: tensor<1024x512xf8E4M3FN>, %as: tensor<1024x16xf8E8M0FNU>,
                            %b: tensor<8x384x512xf8E4M3FN>, %bs: tensor<8x384x16xf8E8M0FNU>,
                            %offs: tensor<8xi32>) -> tensor<1024x384xbf16> {
  %r = mxfp8train.scaled_grouped_mm %a [%as], %b [%bs] offs(%offs) transpose_rhs
      : tensor<1024x512xf8E4M3FN> [tensor<1024x16xf8E8M0FNU>],
        tensor<8x384x512xf8E4M3FN> [tensor<8x384x16xf8E8M0FNU>], tensor<8xi32> -> tensor<1024x384xbf16>
  return %r : tensor<1024x384xbf16>
}

// 2d-3d dgrad: experts stored (E, K, N) as they are.
func.func @gmm_2d3d_nn_f32(%a: tensor<1024x512xf8E4M3FN>, %as: tensor<1024x16xf8E8M0FNU>,
                           %b: tensor<8x512x384xf8E4M3FN>, %bs: tensor<8x16x384xf8E8M0FNU>,
                           %offs: tensor<8xi32>) -> tensor<1024x384xf32> {
  %r = mxfp8train.scaled_grouped_mm %a [%as], %b [%bs] offs(%offs)
      : tensor<1024x512xf8E4M3FN> [tensor<1024x16xf8E8M0FNU>],
        tensor<8x512x384xf8E4M3FN> [tensor<8x16x384xf8E8M0FNU>], tensor<8xi32> -> tensor<1024x384xf32>
  return %r : tensor<1024x384xf32>
}

// 2d-2d wgrad: dO stored (tokens, N) and x stored (tokens, K), contracted
// over each group's tokens.
func.func @gmm_2d2d_tn_bf16(%a: tensor<1024x256xf8E4M3FN>, %as: tensor<32x256xf8E8M0FNU>,
                            %b: tensor<1024x384xf8E4M3FN>, %bs: tensor<32x384xf8E8M0FNU>,
                            %offs: tensor<4xi32>) -> tensor<4x256x384xbf16> {
  %r = mxfp8train.scaled_grouped_mm %a [%as], %b [%bs] offs(%offs) transpose_lhs
      : tensor<1024x256xf8E4M3FN> [tensor<32x256xf8E8M0FNU>],
        tensor<1024x384xf8E4M3FN> [tensor<32x384xf8E8M0FNU>], tensor<4xi32> -> tensor<4x256x384xbf16>
  return %r : tensor<4x256x384xbf16>
}

// 2d-2d with both operands stored token-minor: lhs (N, tokens), rhs (K, tokens).
func.func @gmm_2d2d_nt_f32(%a: tensor<256x1024xf8E4M3FN>, %as: tensor<256x32xf8E8M0FNU>,
                           %b: tensor<384x1024xf8E4M3FN>, %bs: tensor<384x32xf8E8M0FNU>,
                           %offs: tensor<4xi32>) -> tensor<4x256x384xf32> {
  %r = mxfp8train.scaled_grouped_mm %a [%as], %b [%bs] offs(%offs) transpose_rhs
      : tensor<256x1024xf8E4M3FN> [tensor<256x32xf8E8M0FNU>],
        tensor<384x1024xf8E4M3FN> [tensor<384x32xf8E8M0FNU>], tensor<4xi32> -> tensor<4x256x384xf32>
  return %r : tensor<4x256x384xf32>
}

// --- 2-CTA tcgen05 kernel (#mxfp8train.gemm_config<cta_group = 2>) --------

// sm_100a: clusters of two CTAs per 256 x 256 tile (cta_group::2); the
// sm_90a lowering ignores the field (its default kernels). One function per
// form: K-major and MN-major operands, an edge shape, rank 3, 2d-3d, 2d-2d.
func.func @mm_nt_bf16_cta2(%a: tensor<256x512xf8E4M3FN>, %as: tensor<256x16xf8E8M0FNU>,
                           %b: tensor<384x512xf8E4M3FN>, %bs: tensor<384x16xf8E8M0FNU>)
    -> tensor<256x384xbf16> {
  %r = mxfp8train.scaled_mm %a [%as], %b [%bs] transpose_rhs
      {mxfp8train.gemm_config = #mxfp8train.gemm_config<cta_group = 2>}
      : tensor<256x512xf8E4M3FN> [tensor<256x16xf8E8M0FNU>],
        tensor<384x512xf8E4M3FN> [tensor<384x16xf8E8M0FNU>] -> tensor<256x384xbf16>
  return %r : tensor<256x384xbf16>
}

func.func @mm_tn_f32_cta2(%a: tensor<512x256xf8E4M3FN>, %as: tensor<16x256xf8E8M0FNU>,
                          %b: tensor<512x384xf8E4M3FN>, %bs: tensor<16x384xf8E8M0FNU>)
    -> tensor<256x384xf32> {
  %r = mxfp8train.scaled_mm %a [%as], %b [%bs] transpose_lhs
      {mxfp8train.gemm_config = #mxfp8train.gemm_config<cta_group = 2>}
      : tensor<512x256xf8E4M3FN> [tensor<16x256xf8E8M0FNU>],
        tensor<512x384xf8E4M3FN> [tensor<16x384xf8E8M0FNU>] -> tensor<256x384xf32>
  return %r : tensor<256x384xf32>
}

func.func @mm_nt_edge_f32_cta2(%a: tensor<133x544xf8E4M3FN>, %as: tensor<133x17xf8E8M0FNU>,
                               %b: tensor<200x544xf8E4M3FN>, %bs: tensor<200x17xf8E8M0FNU>,
                               %bias: tensor<200xf32>) -> tensor<133x200xf32> {
  %r = mxfp8train.scaled_mm %a [%as], %b [%bs] bias(%bias) transpose_rhs
      {mxfp8train.gemm_config = #mxfp8train.gemm_config<cta_group = 2>}
      : tensor<133x544xf8E4M3FN> [tensor<133x17xf8E8M0FNU>],
        tensor<200x544xf8E4M3FN> [tensor<200x17xf8E8M0FNU>], tensor<200xf32> -> tensor<133x200xf32>
  return %r : tensor<133x200xf32>
}

func.func @bmm_nt_bf16_cta2(%a: tensor<3x256x512xf8E4M3FN>, %as: tensor<3x256x16xf8E8M0FNU>,
                            %b: tensor<3x384x512xf8E4M3FN>, %bs: tensor<3x384x16xf8E8M0FNU>)
    -> tensor<3x256x384xbf16> {
  %r = mxfp8train.scaled_mm %a [%as], %b [%bs] transpose_rhs
      {mxfp8train.gemm_config = #mxfp8train.gemm_config<cta_group = 2>}
      : tensor<3x256x512xf8E4M3FN> [tensor<3x256x16xf8E8M0FNU>],
        tensor<3x384x512xf8E4M3FN> [tensor<3x384x16xf8E8M0FNU>] -> tensor<3x256x384xbf16>
  return %r : tensor<3x256x384xbf16>
}

func.func @gmm_2d3d_nt_bf16_cta2(%a: tensor<1024x512xf8E4M3FN>, %as: tensor<1024x16xf8E8M0FNU>,
                                 %b: tensor<8x384x512xf8E4M3FN>, %bs: tensor<8x384x16xf8E8M0FNU>,
                                 %offs: tensor<8xi32>) -> tensor<1024x384xbf16> {
  %r = mxfp8train.scaled_grouped_mm %a [%as], %b [%bs] offs(%offs) transpose_rhs
      {mxfp8train.gemm_config = #mxfp8train.gemm_config<cta_group = 2>}
      : tensor<1024x512xf8E4M3FN> [tensor<1024x16xf8E8M0FNU>],
        tensor<8x384x512xf8E4M3FN> [tensor<8x384x16xf8E8M0FNU>], tensor<8xi32> -> tensor<1024x384xbf16>
  return %r : tensor<1024x384xbf16>
}

func.func @gmm_2d2d_tn_bf16_cta2(%a: tensor<1024x256xf8E4M3FN>, %as: tensor<32x256xf8E8M0FNU>,
                                 %b: tensor<1024x384xf8E4M3FN>, %bs: tensor<32x384xf8E8M0FNU>,
                                 %offs: tensor<4xi32>) -> tensor<4x256x384xbf16> {
  %r = mxfp8train.scaled_grouped_mm %a [%as], %b [%bs] offs(%offs) transpose_lhs
      {mxfp8train.gemm_config = #mxfp8train.gemm_config<cta_group = 2>}
      : tensor<1024x256xf8E4M3FN> [tensor<32x256xf8E8M0FNU>],
        tensor<1024x384xf8E4M3FN> [tensor<32x384xf8E8M0FNU>], tensor<4xi32> -> tensor<4x256x384xbf16>
  return %r : tensor<4x256x384xbf16>
}

// --- high precision (the GEMMs of the unconverted training steps) ---------

func.func @matmul_bf16_f32(%x: tensor<256x512xbf16>, %w: tensor<384x512xbf16>) -> tensor<256x384xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x384xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x384xf32>) -> tensor<256x384xf32>
  %y = linalg.matmul indexing_maps = [#mk, #nk, #mn]
      ins(%x, %w : tensor<256x512xbf16>, tensor<384x512xbf16>) outs(%f : tensor<256x384xf32>) -> tensor<256x384xf32>
  return %y : tensor<256x384xf32>
}

func.func @matmul_tn_bf16(%a: tensor<512x256xbf16>, %b: tensor<512x384xbf16>) -> tensor<256x384xbf16> {
  %zero = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<256x384xbf16>
  %f = linalg.fill ins(%zero : bf16) outs(%e : tensor<256x384xbf16>) -> tensor<256x384xbf16>
  %y = linalg.matmul indexing_maps = [#km, #kn, #mn]
      ins(%a, %b : tensor<512x256xbf16>, tensor<512x384xbf16>) outs(%f : tensor<256x384xbf16>) -> tensor<256x384xbf16>
  return %y : tensor<256x384xbf16>
}

func.func @batch_matmul_f32(%a: tensor<3x256x512xf32>, %b: tensor<3x512x384xf32>) -> tensor<3x256x384xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x256x384xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<3x256x384xf32>) -> tensor<3x256x384xf32>
  %y = linalg.batch_matmul ins(%a, %b : tensor<3x256x512xf32>, tensor<3x512x384xf32>)
      outs(%f : tensor<3x256x384xf32>) -> tensor<3x256x384xf32>
  return %y : tensor<3x256x384xf32>
}

func.func @grouped_2d3d_bf16(%x: tensor<1024x512xbf16>, %w: tensor<8x384x512xbf16>, %offs: tensor<8xi32>)
    -> tensor<1024x384xbf16> {
  %y = mxfp8train.grouped_mm %x, %w offs(%offs) transpose_rhs
      : tensor<1024x512xbf16>, tensor<8x384x512xbf16>, tensor<8xi32> -> tensor<1024x384xbf16>
  return %y : tensor<1024x384xbf16>
}

func.func @grouped_2d2d_bf16(%dy: tensor<1024x256xbf16>, %x: tensor<1024x384xbf16>, %offs: tensor<4xi32>)
    -> tensor<4x256x384xbf16> {
  %y = mxfp8train.grouped_mm %dy, %x offs(%offs) transpose_lhs
      : tensor<1024x256xbf16>, tensor<1024x384xbf16>, tensor<4xi32> -> tensor<4x256x384xbf16>
  return %y : tensor<4x256x384xbf16>
}
