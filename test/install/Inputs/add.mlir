// c = a + b on the CPU: the AOT function downstream-launch calls.
#id = affine_map<(d0) -> (d0)>
func.func @add(%a: tensor<256xf32>, %b: tensor<256xf32> {mxfp8run.std = 0.5 : f64})
    -> tensor<256xf32> {
  %e = tensor.empty() : tensor<256xf32>
  %c = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<256xf32>, tensor<256xf32>) outs(%e : tensor<256xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<256xf32>
  return %c : tensor<256xf32>
}

// Same signature, different values: c = a - b.
func.func @sub(%a: tensor<256xf32>, %b: tensor<256xf32> {mxfp8run.std = 0.5 : f64})
    -> tensor<256xf32> {
  %e = tensor.empty() : tensor<256xf32>
  %c = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<256xf32>, tensor<256xf32>) outs(%e : tensor<256xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.subf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<256xf32>
  return %c : tensor<256xf32>
}
