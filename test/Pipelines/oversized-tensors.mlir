// RUN: mxfp8-opt %s --split-input-file --verify-diagnostics --mxfp8train-lower-to-cpu
// RUN: mxfp8-opt %s --split-input-file --verify-diagnostics --mxfp8train-lower-to-gpu="format=isa"

// Tensors whose byte size overflows int64 in ops of other dialects (linalg's
// verifiers accept them): mxfp8train-verify-lowering-input, the first pass
// of both pipelines, names the op. 2^80 elements used to compile into
// kernels of no elements (the sizes wrapped; found by a helper's tests).
// The mxfp8train ops check the same in their verifiers
// (test/Dialect/MXFP8Train/invalid-sizes.mlir).

func.func @reduce(%x: tensor<4x1099511627776x1099511627776xf32>, %init: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'linalg.reduce' op expects operand #0 ('tensor<4x1099511627776x1099511627776xf32>') to fit in int64 bytes, found a byte size that overflows}}
  %r = linalg.reduce ins(%x : tensor<4x1099511627776x1099511627776xf32>) outs(%init : tensor<4xf32>) dimensions = [1, 2]
    (%a: f32, %b: f32) {
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    }
  return %r : tensor<4xf32>
}

// -----

func.func @empty() -> tensor<1099511627776x1099511627776xf32> {
  // expected-error @+1 {{'tensor.empty' op expects result #0 ('tensor<1099511627776x1099511627776xf32>') to fit in int64 bytes}}
  %e = tensor.empty() : tensor<1099511627776x1099511627776xf32>
  // expected-error @+1 {{'func.return' op expects operand #0 ('tensor<1099511627776x1099511627776xf32>') to fit in int64 bytes}}
  return %e : tensor<1099511627776x1099511627776xf32>
}
