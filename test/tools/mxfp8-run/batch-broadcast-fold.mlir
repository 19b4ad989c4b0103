// A linear layer on a 3-D input as torch-mlir lowers it (Wᵀ broadcast over
// the batch, batch_matmul, bias): the rewrite runs it as one 2-D GEMM over
// the 4 * 64 rows with W quantized once. The results are bit-identical to
// quantizing the broadcast tensor (Inputs/linear-3d-unfolded.mlir, where a
// tensor.cast keeps the fold from applying), under MX and both Float8
// scalings, on the same generated inputs.
//
// RUN: rm -rf %t && mkdir -p %t/a %t/b %t/c %t/d %t/e %t/f
// RUN: mxfp8-run %s --device=cpu --pipeline='mxfp8train-rewrite-matmuls{recipe=mxfp8_rceil remarks=true}' --output-dir=%t/a | FileCheck %s --check-prefix=FOLDED
// RUN: mxfp8-run %S/Inputs/linear-3d-unfolded.mlir --device=cpu --pipeline='mxfp8train-rewrite-matmuls{recipe=mxfp8_rceil remarks=true}' --output-dir=%t/b | FileCheck %s --check-prefix=UNFOLDED
// RUN: %PYTHON %S/Inputs/npytool.py same %t/a/y.npy %t/b/y.npy
// RUN: mxfp8-run %s --device=cpu --pipeline='mxfp8train-rewrite-matmuls{recipe=float8_rowwise}' --output-dir=%t/c
// RUN: mxfp8-run %S/Inputs/linear-3d-unfolded.mlir --device=cpu --pipeline='mxfp8train-rewrite-matmuls{recipe=float8_rowwise}' --output-dir=%t/d
// RUN: %PYTHON %S/Inputs/npytool.py same %t/c/y.npy %t/d/y.npy
// RUN: mxfp8-run %s --device=cpu --pipeline='mxfp8train-rewrite-matmuls{recipe=float8_tensorwise}' --output-dir=%t/e
// RUN: mxfp8-run %S/Inputs/linear-3d-unfolded.mlir --device=cpu --pipeline='mxfp8train-rewrite-matmuls{recipe=float8_tensorwise}' --output-dir=%t/f
// RUN: %PYTHON %S/Inputs/npytool.py same %t/e/y.npy %t/f/y.npy
// And the fold is not a no-op: MX differs from the bf16 result.
// RUN: mxfp8-run %s --device=cpu --output-dir=%t/a/hp
// RUN: %PYTHON %S/Inputs/npytool.py differ %t/a/y.npy %t/a/hp/y.npy

// FOLDED: remark: {{.*}}converted (role forward, {{.*}}batch of 4 folded into M (rhs broadcast over it, quantized once), init as bias
// UNFOLDED: remark: {{.*}}converted (role forward, lhs quantized along axis 2, rhs along axis 1, init as bias
func.func @linear(%x: tensor<4x64x128xbf16>, %w: tensor<256x128xbf16>, %b: tensor<256xbf16>) -> tensor<4x64x256xbf16> {
  %et = tensor.empty() : tensor<128x256xbf16>
  %wt = linalg.transpose ins(%w : tensor<256x128xbf16>) outs(%et : tensor<128x256xbf16>) permutation = [1, 0]
  %eb = tensor.empty() : tensor<4x128x256xbf16>
  %wb = linalg.broadcast ins(%wt : tensor<128x256xbf16>) outs(%eb : tensor<4x128x256xbf16>) dimensions = [0]
  %eo = tensor.empty() : tensor<4x64x256xbf16>
  %bias = linalg.broadcast ins(%b : tensor<256xbf16>) outs(%eo : tensor<4x64x256xbf16>) dimensions = [0, 1]
  %y = linalg.batch_matmul ins(%x, %wb : tensor<4x64x128xbf16>, tensor<4x128x256xbf16>) outs(%bias : tensor<4x64x256xbf16>) -> tensor<4x64x256xbf16>
  return %y : tensor<4x64x256xbf16>
}
