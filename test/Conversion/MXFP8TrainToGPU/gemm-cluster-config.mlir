// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu --canonicalize | FileCheck %s
// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu="gemm-cluster-m=1" --canonicalize | FileCheck %s
// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu="gemm-cluster-m=2" --canonicalize | FileCheck %s

// Who chooses the cluster along M (gpu_lowering::chooseClusterM; docs/gpu.md
// "The 2-CTA cluster along M"): an op's gemm_config cluster_m wins over the
// lowering's gemm-cluster-m, whatever its value, and over the form's
// default (dense: one CTA; grouped: the pair).

// Dense in pairs: 3 row tiles make 2 pair rows (the second pair's second
// tile starts past M: an empty partner), x 2 column tiles = 4 pairs, 8 CTAs.
// CHECK-LABEL: func.func @dense_pair(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_mm_k_k_bf16_bf16_bf16_384x384x512_b1_p1c1_v8w1s4_n256_c2_gs clusters in (%c2, %c1, %c1) blocks in (%c8, %c1, %c1) threads in (%c384, %c1, %c1)
func.func @dense_pair(%a: tensor<384x512xf8E4M3FN>, %as: tensor<384x16xf8E8M0FNU>,
                      %w: tensor<384x512xf8E4M3FN>, %ws: tensor<384x16xf8E8M0FNU>) -> tensor<384x384xbf16> {
  %y = mxfp8train.scaled_mm %a [%as], %w [%ws] transpose_rhs {mxfp8train.gemm_config = #mxfp8train.gemm_config<cluster_m = 2>}
      : tensor<384x512xf8E4M3FN> [tensor<384x16xf8E8M0FNU>], tensor<384x512xf8E4M3FN> [tensor<384x16xf8E8M0FNU>] -> tensor<384x384xbf16>
  return %y : tensor<384x384xbf16>
}

// Grouped on one CTA: (8 row tiles + 8 experts) x 2 column tiles = 32 CTAs,
// no cluster.
// CHECK-LABEL: func.func @grouped_one(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_gmm_2d3d_k_k_bf16_bf16_bf16_1024x384x512_b8_p1c1_v8w1s4_n256_gs blocks in (%c32, %c1, %c1) threads in (%c384, %c1, %c1)
func.func @grouped_one(%a: tensor<1024x512xf8E4M3FN>, %as: tensor<1024x16xf8E8M0FNU>,
                       %w: tensor<8x384x512xf8E4M3FN>, %ws: tensor<8x384x16xf8E8M0FNU>,
                       %offs: tensor<8xi32>) -> tensor<1024x384xbf16> {
  %y = mxfp8train.scaled_grouped_mm %a [%as], %w [%ws] offs(%offs) transpose_rhs {mxfp8train.gemm_config = #mxfp8train.gemm_config<cluster_m = 1>}
      : tensor<1024x512xf8E4M3FN> [tensor<1024x16xf8E8M0FNU>],
        tensor<8x384x512xf8E4M3FN> [tensor<8x384x16xf8E8M0FNU>], tensor<8xi32>
        -> tensor<1024x384xbf16>
  return %y : tensor<1024x384xbf16>
}
