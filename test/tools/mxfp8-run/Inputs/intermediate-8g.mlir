// Small argument and result, an 8 GiB intermediate (errors.mlir, RLIMIT).
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<2048x1048576xf32>
  %f = linalg.fill ins(%c : f32) outs(%e : tensor<2048x1048576xf32>) -> tensor<2048x1048576xf32>
  %s = tensor.extract_slice %f[5, 7] [1, 4] [1, 1] : tensor<2048x1048576xf32> to tensor<4xf32>
  %r = arith.addf %s, %x : tensor<4xf32>
  return %r : tensor<4xf32>
}
