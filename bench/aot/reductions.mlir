// Reductions the GPU pipeline leaves to the loop path, checked on the GPU
// against the CPU path by bench/make-aot-artifacts.sh and
// bench/device/run-aot-checks.sh, and timed there with split-reductions
// (default: parallel partial results; both pipelines use one schedule,
// Conversion/Utils/SplitReductions.h, so the sums are the same bits) and
// without (`_serial`: the loop path's one thread per output element,
// sequential sums). bench/device/reduction_peer.py times torch on the same
// shapes.

// The MSE loss of a (4096, 4096) output: sum((y - t)^2), a scalar.
func.func @mse_loss(%y: tensor<4096x4096xf32>, %t: tensor<4096x4096xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<4096x4096xf32>
  %sq = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                        iterator_types = ["parallel", "parallel"]}
      ins(%y, %t : tensor<4096x4096xf32>, tensor<4096x4096xf32>) outs(%e0 : tensor<4096x4096xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    %s = arith.mulf %d, %d : f32
    linalg.yield %s : f32
  } -> tensor<4096x4096xf32>
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %sum = linalg.reduce ins(%sq : tensor<4096x4096xf32>) outs(%f : tensor<f32>) dimensions = [0, 1]
    (%x: f32, %acc: f32) {
      %n = arith.addf %x, %acc : f32
      linalg.yield %n : f32
    }
  return %sum : tensor<f32>
}

// A gradient's squared norm (for clipping): linalg.dot of 2^24 f32 with
// itself.
func.func @norm_sq(%g: tensor<16777216xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %d = linalg.dot ins(%g, %g : tensor<16777216xf32>, tensor<16777216xf32>) outs(%f : tensor<f32>) -> tensor<f32>
  return %d : tensor<f32>
}

// A bias gradient: the column sums of a (16384, 4096) bf16 output gradient
// in f32.
func.func @column_sums(%g: tensor<16384x4096xbf16>) -> tensor<4096xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4096xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4096xf32>) -> tensor<4096xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>], iterator_types = ["reduction", "parallel"]}
      ins(%g : tensor<16384x4096xbf16>) outs(%f : tensor<4096xf32>) {
  ^bb0(%x: bf16, %acc: f32):
    %xf = arith.extf %x : bf16 to f32
    %n = arith.addf %xf, %acc : f32
    linalg.yield %n : f32
  } -> tensor<4096xf32>
  return %s : tensor<4096xf32>
}

// The max of each of 8 rows of 2^16 bf16 (exact in any order).
func.func @row_max(%x: tensor<8x65536xbf16>) -> tensor<8xbf16> {
  %ninf = arith.constant 0xFF80 : bf16
  %e = tensor.empty() : tensor<8xbf16>
  %f = linalg.fill ins(%ninf : bf16) outs(%e : tensor<8xbf16>) -> tensor<8xbf16>
  %m = linalg.reduce ins(%x : tensor<8x65536xbf16>) outs(%f : tensor<8xbf16>) dimensions = [1]
    (%v: bf16, %acc: bf16) {
      %n = arith.maximumf %v, %acc : bf16
      linalg.yield %n : bf16
    }
  return %m : tensor<8xbf16>
}
