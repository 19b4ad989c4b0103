// A call of a declaration that nothing defines (errors.mlir, UNDEF); a
// declaration nothing calls is not reported.
func.func private @not_defined(tensor<4xf32>) -> tensor<4xf32>
func.func private @never_called(tensor<4xf32>) -> tensor<4xf32>

func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = func.call @not_defined(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
