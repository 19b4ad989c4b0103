// RUN: mxfp8-opt %s --mxfp8train-rewrite-matmuls=remarks=true --verify-diagnostics | FileCheck %s --check-prefix=BF16
// RUN: mxfp8-opt %s --pass-pipeline="builtin.module(mxfp8train-rewrite-matmuls{recipe='out_dtype = f32'})" 2>/dev/null | FileCheck %s --check-prefix=F32

// The recipe's `out_dtype` (torchao `MXFP8TrainingOpConfig.out_dtype`, the
// dtype the grouped GEMM returns) with the grouped_mm's result type kept:
//  - out_dtype bf16 (the default) and an f32 result: the GEMM rounds its f32
//    accumulator to bf16 (what torchao returns) and the product is extended
//    to f32 afterwards;
//  - out_dtype f32 and an f32 result: the GEMM returns f32;
//  - a bf16 result: the GEMM returns bf16 whatever out_dtype says (rounding
//    the f32 accumulator to f32 and then to bf16 is rounding it once to
//    bf16).

// BF16-LABEL: func.func @grouped_out_dtype(
// BF16:         %[[FWD:.*]] = mxfp8train.scaled_grouped_mm {{.*}} -> tensor<64x64xbf16>
// BF16:         %[[FWD32:.*]] = linalg.generic {{.*}} ins(%[[FWD]] : tensor<64x64xbf16>) outs(%{{.*}} : tensor<64x64xf32>)
// BF16:           arith.extf %{{.*}} : bf16 to f32
// BF16:         %[[WG:.*]] = mxfp8train.scaled_grouped_mm {{.*}} -> tensor<2x64x128xbf16>
// BF16:         %[[WG32:.*]] = linalg.generic {{.*}} ins(%[[WG]] : tensor<2x64x128xbf16>) outs(%{{.*}} : tensor<2x64x128xf32>)
// BF16:           arith.extf %{{.*}} : bf16 to f32
// BF16:         %[[KEPT:.*]] = mxfp8train.scaled_grouped_mm {{.*}} -> tensor<64x64xbf16>
// BF16:         return %[[FWD32]], %[[WG32]], %[[KEPT]]

// F32-LABEL: func.func @grouped_out_dtype(
// F32:         %[[FWD:.*]] = mxfp8train.scaled_grouped_mm {{.*}} -> tensor<64x64xf32>
// F32:         %[[WG:.*]] = mxfp8train.scaled_grouped_mm {{.*}} -> tensor<2x64x128xf32>
// F32:         %[[KEPT:.*]] = mxfp8train.scaled_grouped_mm {{.*}} -> tensor<64x64xbf16>
// F32-NOT:     linalg.generic
// F32:         return %[[FWD]], %[[WG]], %[[KEPT]]
func.func @grouped_out_dtype(%x: tensor<64x128xbf16>, %w: tensor<2x64x128xbf16>, %do: tensor<64x64xbf16>, %offs: tensor<2xi32>)
    -> (tensor<64x64xf32>, tensor<2x64x128xf32>, tensor<64x64xbf16>) {
  // expected-remark @below {{mxfp8train: converted (grouped 2d-3d, role forward, lhs quantized along axis 1, rhs along axis 2, out_dtype bf16 extended to f32, recipe mxfp8_rceil)}}
  %0 = mxfp8train.grouped_mm %x, %w offs(%offs) transpose_rhs
      : tensor<64x128xbf16>, tensor<2x64x128xbf16>, tensor<2xi32> -> tensor<64x64xf32>
  // expected-remark @below {{mxfp8train: converted (grouped 2d-2d, role wgrad, lhs quantized along axis 0, rhs along axis 0, token groups padded to 32 (32-token blocks must not straddle groups), out_dtype bf16 extended to f32, recipe mxfp8_rceil)}}
  %1 = mxfp8train.grouped_mm %do, %x offs(%offs) transpose_lhs
      : tensor<64x64xbf16>, tensor<64x128xbf16>, tensor<2xi32> -> tensor<2x64x128xf32>
  // expected-remark @below {{mxfp8train: converted (grouped 2d-3d, role forward, lhs quantized along axis 1, rhs along axis 2, recipe mxfp8_rceil)}}
  %2 = mxfp8train.grouped_mm %x, %w offs(%offs) transpose_rhs
      : tensor<64x128xbf16>, tensor<2x64x128xbf16>, tensor<2xi32> -> tensor<64x64xbf16>
  return %0, %1, %2 : tensor<64x64xf32>, tensor<2x64x128xf32>, tensor<64x64xbf16>
}
