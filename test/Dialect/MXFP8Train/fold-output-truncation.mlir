// RUN: mxfp8-opt %s -split-input-file --mxfp8train-rewrite-matmuls | FileCheck %s

// mxfp8train-rewrite-matmuls folds the bf16 truncation of a scaled_mm's f32
// result into the scaled_mm (FoldOutputTruncation.cpp): a bf16 scaled_mm is
// the same f32 accumulation rounded once to bf16 (SPEC §3.1), so the bits
// are the same and the f32 tensor is never written.

// A converted bf16 matmul (f32 accumulator, then an elementwise truncf, as
// frontends write torch's bf16 matmul): one scaled_mm to bf16, its role
// kept, no truncation left.
// CHECK-LABEL: func.func @converted(
// CHECK:         %[[Y:.*]] = mxfp8train.scaled_mm {{.*}} transpose_rhs {mxfp8train.role = "forward"} : {{.*}} -> tensor<32x16xbf16>
// CHECK-NOT:     arith.truncf
// CHECK:         return %[[Y]] : tensor<32x16xbf16>
func.func @converted(%x: tensor<32x64xbf16>, %w: tensor<16x64xbf16>) -> tensor<32x16xbf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x16xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<32x16xf32>) -> tensor<32x16xf32>
  %acc = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                        affine_map<(m, n, k) -> (n, k)>,
                                        affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<32x64xbf16>, tensor<16x64xbf16>)
      outs(%z : tensor<32x16xf32>) -> tensor<32x16xf32>
  %b = tensor.empty() : tensor<32x16xbf16>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%acc : tensor<32x16xf32>) outs(%b : tensor<32x16xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %t = arith.truncf %v : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<32x16xbf16>
  return %y : tensor<32x16xbf16>
}

// -----

// `arith.truncf` of the whole tensor, and a bias: bias added in f32, then
// one rounding, either way.
// CHECK-LABEL: func.func @tensor_truncf_bias(
// CHECK:         %[[Y:.*]] = mxfp8train.scaled_mm %{{.*}}, %{{.*}} bias(%{{.*}}) transpose_rhs : {{.*}} -> tensor<32x16xbf16>
// CHECK-NEXT:    return %[[Y]]
func.func @tensor_truncf_bias(%a: tensor<32x64xf8E4M3FN>, %as: tensor<32x2xf8E8M0FNU>,
                              %b: tensor<16x64xf8E4M3FN>, %bs: tensor<16x2xf8E8M0FNU>,
                              %bias: tensor<16xf32>) -> tensor<32x16xbf16> {
  %y = mxfp8train.scaled_mm %a [%as], %b [%bs] bias(%bias) transpose_rhs
      : tensor<32x64xf8E4M3FN> [tensor<32x2xf8E8M0FNU>],
        tensor<16x64xf8E4M3FN> [tensor<16x2xf8E8M0FNU>], tensor<16xf32> -> tensor<32x16xf32>
  %t = arith.truncf %y : tensor<32x16xf32> to tensor<32x16xbf16>
  return %t : tensor<32x16xbf16>
}

// -----

// Not folded: the f32 result has another use; the truncation has fast-math
// flags or a rounding mode; the body does more than truncate; the target
// type is f16.
// CHECK-LABEL: func.func @kept(
// CHECK-COUNT-4: -> tensor<32x16xf32>
// CHECK:         arith.truncf %{{.*}} : tensor<32x16xf32> to tensor<32x16xbf16>
// CHECK:         arith.truncf %{{.*}} fastmath<fast> : tensor<32x16xf32> to tensor<32x16xbf16>
// CHECK:         arith.truncf %{{.*}} to_nearest_away : tensor<32x16xf32> to tensor<32x16xbf16>
// CHECK:         arith.negf
// CHECK:         arith.truncf %{{.*}} : f32 to f16
func.func @kept(%a: tensor<32x64xf8E4M3FN>, %as: tensor<32x2xf8E8M0FNU>,
                %b: tensor<16x64xf8E4M3FN>, %bs: tensor<16x2xf8E8M0FNU>)
    -> (tensor<32x16xbf16>, tensor<32x16xf32>, tensor<32x16xbf16>, tensor<32x16xbf16>,
        tensor<32x16xbf16>, tensor<32x16xf16>) {
  %y0 = mxfp8train.scaled_mm %a [%as], %b [%bs] transpose_rhs
      : tensor<32x64xf8E4M3FN> [tensor<32x2xf8E8M0FNU>], tensor<16x64xf8E4M3FN> [tensor<16x2xf8E8M0FNU>] -> tensor<32x16xf32>
  %y1 = mxfp8train.scaled_mm %a [%as], %b [%bs] transpose_rhs
      : tensor<32x64xf8E4M3FN> [tensor<32x2xf8E8M0FNU>], tensor<16x64xf8E4M3FN> [tensor<16x2xf8E8M0FNU>] -> tensor<32x16xf32>
  %y2 = mxfp8train.scaled_mm %a [%as], %b [%bs] transpose_rhs
      : tensor<32x64xf8E4M3FN> [tensor<32x2xf8E8M0FNU>], tensor<16x64xf8E4M3FN> [tensor<16x2xf8E8M0FNU>] -> tensor<32x16xf32>
  %y3 = mxfp8train.scaled_mm %a [%as], %b [%bs] transpose_rhs
      : tensor<32x64xf8E4M3FN> [tensor<32x2xf8E8M0FNU>], tensor<16x64xf8E4M3FN> [tensor<16x2xf8E8M0FNU>] -> tensor<32x16xf32>
  %t0 = arith.truncf %y0 : tensor<32x16xf32> to tensor<32x16xbf16>
  %t1 = arith.truncf %y1 fastmath<fast> : tensor<32x16xf32> to tensor<32x16xbf16>
  %t2 = arith.truncf %y2 to_nearest_away : tensor<32x16xf32> to tensor<32x16xbf16>
  %eb = tensor.empty() : tensor<32x16xbf16>
  %t3 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                        iterator_types = ["parallel", "parallel"]}
      ins(%y3 : tensor<32x16xf32>) outs(%eb : tensor<32x16xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %n = arith.negf %v : f32
    %t = arith.truncf %n : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<32x16xbf16>
  %y4 = mxfp8train.scaled_mm %a [%as], %b [%bs] transpose_rhs
      : tensor<32x64xf8E4M3FN> [tensor<32x2xf8E8M0FNU>], tensor<16x64xf8E4M3FN> [tensor<16x2xf8E8M0FNU>] -> tensor<32x16xf32>
  %eh = tensor.empty() : tensor<32x16xf16>
  %t4 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                        iterator_types = ["parallel", "parallel"]}
      ins(%y4 : tensor<32x16xf32>) outs(%eh : tensor<32x16xf16>) {
  ^bb0(%v: f32, %o: f16):
    %t = arith.truncf %v : f32 to f16
    linalg.yield %t : f16
  } -> tensor<32x16xf16>
  return %t0, %y0, %t1, %t2, %t3, %t4 : tensor<32x16xbf16>, tensor<32x16xf32>, tensor<32x16xbf16>,
      tensor<32x16xbf16>, tensor<32x16xbf16>, tensor<32x16xf16>
}

// -----

// A linear on a 3-D input (the batch folded into M): the truncation of the
// expanded f32 product folds the same way, the expand_shape now on bf16
// (it used to leave an f32 scaled_mm, the expand and a truncf).
// CHECK-LABEL: func.func @folded_batch(
// CHECK:         %[[Y:.*]] = mxfp8train.scaled_mm {{.*}} -> tensor<64x48xbf16>
// CHECK-NEXT:    %[[E:.*]] = tensor.expand_shape %[[Y]] {{\[\[}}0, 1], [2]] output_shape [2, 32, 48] : tensor<64x48xbf16> into tensor<2x32x48xbf16>
// CHECK-NEXT:    return %[[E]]
func.func @folded_batch(%x: tensor<2x32x64xbf16>, %w: tensor<48x64xbf16>) -> tensor<2x32x48xbf16> {
  %z = arith.constant 0.0 : f32
  %et = tensor.empty() : tensor<64x48xbf16>
  %wt = linalg.transpose ins(%w : tensor<48x64xbf16>) outs(%et : tensor<64x48xbf16>) permutation = [1, 0]
  %eb = tensor.empty() : tensor<2x64x48xbf16>
  %wb = linalg.broadcast ins(%wt : tensor<64x48xbf16>) outs(%eb : tensor<2x64x48xbf16>) dimensions = [0]
  %e = tensor.empty() : tensor<2x32x48xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x32x48xf32>) -> tensor<2x32x48xf32>
  %y = linalg.batch_matmul ins(%x, %wb : tensor<2x32x64xbf16>, tensor<2x64x48xbf16>) outs(%f : tensor<2x32x48xf32>) -> tensor<2x32x48xf32>
  %t = arith.truncf %y : tensor<2x32x48xf32> to tensor<2x32x48xbf16>
  return %t : tensor<2x32x48xbf16>
}
