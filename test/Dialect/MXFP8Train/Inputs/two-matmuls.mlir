// Two linear layers: K = 64 (MX and Float8 convert it), K = 48 (only
// Float8: MX needs K % 32 == 0). Used by mxfp8train-rewrite-matmuls-invalid.mlir.
func.func @two(%a: tensor<64x64xbf16>, %b: tensor<64x64xbf16>, %c: tensor<64x48xbf16>, %d: tensor<48x64xbf16>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<64x64xbf16>, tensor<64x64xbf16>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  %1 = linalg.matmul ins(%c, %d : tensor<64x48xbf16>, tensor<48x64xbf16>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0, %1 : tensor<64x64xf32>, tensor<64x64xf32>
}
