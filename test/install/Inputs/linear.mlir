// A linear layer's forward matmul, converted and lowered by the downstream
// project's tools (install.test).
func.func @linear(%x: tensor<2x64xbf16>, %w: tensor<4x64xbf16>) -> tensor<2x4xf32> {
  %z = arith.constant dense<0.0> : tensor<2x4xf32>
  %0 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<2x64xbf16>, tensor<4x64xbf16>)
      outs(%z : tensor<2x4xf32>) -> tensor<2x4xf32> loc("model.fc.fwd")
  return %0 : tensor<2x4xf32>
}
