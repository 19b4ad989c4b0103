// RUN: mxfp8-opt %s --verify-roundtrip | FileCheck %s
// RUN: mxfp8-opt %s --mlir-print-op-generic | mxfp8-opt | FileCheck %s

// #mxfp8train.gemm_config on scaled_mm and scaled_grouped_mm: fields in any
// order, printed in declaration order; fields at their default (`kernel =
// dequant_bf16`, `rebalance = true`) and absent ones are not printed.

// CHECK-LABEL: func.func @gemm_configs(
// CHECK:         mxfp8train.scaled_mm {{.*}} {mxfp8train.gemm_config = #mxfp8train.gemm_config<>}
// CHECK:         mxfp8train.scaled_mm {{.*}} {mxfp8train.gemm_config = #mxfp8train.gemm_config<stages = 6, tile_n = 128, dequant_ctas = 0>}
// CHECK:         mxfp8train.scaled_mm {{.*}} {mxfp8train.gemm_config = #mxfp8train.gemm_config<kernel = fused_upcast_ws, stages = 2, prefetch = 4, ctas_per_sm = 1, rebalance = false, converters = 1>}
// CHECK:         mxfp8train.scaled_mm {{.*}} {mxfp8train.gemm_config = #mxfp8train.gemm_config<kernel = fused_upcast, prefetch = 1, ctas_per_sm = 2>}
// CHECK:         mxfp8train.scaled_grouped_mm {{.*}} {mxfp8train.gemm_config = #mxfp8train.gemm_config<stages = 3, prefetch = 2>, mxfp8train.role = "forward"}
// CHECK:         mxfp8train.scaled_mm {{.*}} {mxfp8train.gemm_config = #mxfp8train.gemm_config<cta_group = 2>}
// CHECK:         mxfp8train.scaled_mm {{.*}} {mxfp8train.gemm_config = #mxfp8train.gemm_config<stages = 3, cta_group = 1>}
func.func @gemm_configs(%a: tensor<256x512xf8E4M3FN>, %as: tensor<256x16xf8E8M0FNU>,
                        %w: tensor<384x512xf8E4M3FN>, %ws: tensor<384x16xf8E8M0FNU>,
                        %e: tensor<8x384x512xf8E4M3FN>, %es: tensor<8x384x16xf8E8M0FNU>,
                        %offs: tensor<8xi32>) {
  %0 = mxfp8train.scaled_mm %a [%as], %w [%ws] transpose_rhs
      {mxfp8train.gemm_config = #mxfp8train.gemm_config<kernel = dequant_bf16, rebalance = true>}
      : tensor<256x512xf8E4M3FN> [tensor<256x16xf8E8M0FNU>],
        tensor<384x512xf8E4M3FN> [tensor<384x16xf8E8M0FNU>] -> tensor<256x384xbf16>
  %1 = mxfp8train.scaled_mm %a [%as], %w [%ws] transpose_rhs
      {mxfp8train.gemm_config = #mxfp8train.gemm_config<dequant_ctas = 0, tile_n = 128, stages = 6>}
      : tensor<256x512xf8E4M3FN> [tensor<256x16xf8E8M0FNU>],
        tensor<384x512xf8E4M3FN> [tensor<384x16xf8E8M0FNU>] -> tensor<256x384xbf16>
  %2 = mxfp8train.scaled_mm %a [%as], %w [%ws] transpose_rhs
      {mxfp8train.gemm_config = #mxfp8train.gemm_config<converters = 1, rebalance = false, ctas_per_sm = 1, prefetch = 4, stages = 2, kernel = fused_upcast_ws>}
      : tensor<256x512xf8E4M3FN> [tensor<256x16xf8E8M0FNU>],
        tensor<384x512xf8E4M3FN> [tensor<384x16xf8E8M0FNU>] -> tensor<256x384xbf16>
  %3 = mxfp8train.scaled_mm %a [%as], %w [%ws] transpose_rhs
      {mxfp8train.gemm_config = #mxfp8train.gemm_config<kernel = fused_upcast, prefetch = 1, ctas_per_sm = 2>}
      : tensor<256x512xf8E4M3FN> [tensor<256x16xf8E8M0FNU>],
        tensor<384x512xf8E4M3FN> [tensor<384x16xf8E8M0FNU>] -> tensor<256x384xbf16>
  %4 = mxfp8train.scaled_grouped_mm %a [%as], %e [%es] offs(%offs) transpose_rhs
      {mxfp8train.gemm_config = #mxfp8train.gemm_config<prefetch = 2, stages = 3>, mxfp8train.role = "forward"}
      : tensor<256x512xf8E4M3FN> [tensor<256x16xf8E8M0FNU>],
        tensor<8x384x512xf8E4M3FN> [tensor<8x384x16xf8E8M0FNU>], tensor<8xi32> -> tensor<256x384xbf16>
  %5 = mxfp8train.scaled_mm %a [%as], %w [%ws] transpose_rhs
      {mxfp8train.gemm_config = #mxfp8train.gemm_config<cta_group = 2>}
      : tensor<256x512xf8E4M3FN> [tensor<256x16xf8E8M0FNU>],
        tensor<384x512xf8E4M3FN> [tensor<384x16xf8E8M0FNU>] -> tensor<256x384xbf16>
  %6 = mxfp8train.scaled_mm %a [%as], %w [%ws] transpose_rhs
      {mxfp8train.gemm_config = #mxfp8train.gemm_config<cta_group = 1, stages = 3>}
      : tensor<256x512xf8E4M3FN> [tensor<256x16xf8E8M0FNU>],
        tensor<384x512xf8E4M3FN> [tensor<384x16xf8E8M0FNU>] -> tensor<256x384xbf16>
  return
}
