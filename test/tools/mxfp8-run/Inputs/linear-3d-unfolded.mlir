// batch-broadcast-fold.mlir's linear with a tensor.cast between the
// broadcast and the batch_matmul: the role still sees the (out, in) weight
// (forward), but the batch is not folded: the broadcast tensor is quantized.
func.func @linear(%x: tensor<4x64x128xbf16>, %w: tensor<256x128xbf16>, %b: tensor<256xbf16>) -> tensor<4x64x256xbf16> {
  %et = tensor.empty() : tensor<128x256xbf16>
  %wt = linalg.transpose ins(%w : tensor<256x128xbf16>) outs(%et : tensor<128x256xbf16>) permutation = [1, 0]
  %eb = tensor.empty() : tensor<4x128x256xbf16>
  %wb = linalg.broadcast ins(%wt : tensor<128x256xbf16>) outs(%eb : tensor<4x128x256xbf16>) dimensions = [0]
  %wd = tensor.cast %wb : tensor<4x128x256xbf16> to tensor<?x128x256xbf16>
  %ws = tensor.cast %wd : tensor<?x128x256xbf16> to tensor<4x128x256xbf16>
  %eo = tensor.empty() : tensor<4x64x256xbf16>
  %bias = linalg.broadcast ins(%b : tensor<256xbf16>) outs(%eo : tensor<4x64x256xbf16>) dimensions = [0, 1]
  %y = linalg.batch_matmul ins(%x, %ws : tensor<4x64x128xbf16>, tensor<4x128x256xbf16>) outs(%bias : tensor<4x64x256xbf16>) -> tensor<4x64x256xbf16>
  return %y : tensor<4x64x256xbf16>
}
