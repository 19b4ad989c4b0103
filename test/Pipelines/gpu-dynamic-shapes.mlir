// The GPU pipeline lowers static shapes only: after its canonicalization,
// just before convert-mxfp8train-to-gpu, mxfp8train-verify-lowering-input
// static-shapes=true names each op with a dynamically shaped tensor,
// instead of the conversion to NVVM failing with "failed to legalize
// operation 'gpu.func'". Shapes the canonicalization makes static pass.
// The CPU pipeline does not set the option.
//
// RUN: mxfp8-opt %s --split-input-file --verify-diagnostics --mxfp8train-lower-to-gpu="format=isa"
// RUN: mxfp8-opt %s --split-input-file --mxfp8train-verify-lowering-input | FileCheck %s --check-prefix=CPU
// CPU: func.func @dynamic_matmul
// CPU: func.func @dynamic_elementwise

func.func @dynamic_matmul(%a: tensor<?x64xf32>, %b: tensor<64x32xf32>, %c: tensor<?x32xf32>) -> tensor<?x32xf32> {
  // expected-error @+1 {{'linalg.matmul' has a dynamically shaped operand #0 of type 'tensor<?x64xf32>'; the GPU pipeline lowers static shapes only}}
  %r = linalg.matmul ins(%a, %b : tensor<?x64xf32>, tensor<64x32xf32>) outs(%c : tensor<?x32xf32>) -> tensor<?x32xf32>
  // expected-error @+1 {{'func.return' has a dynamically shaped operand #0 of type 'tensor<?x32xf32>'}}
  return %r : tensor<?x32xf32>
}

// -----

func.func @dynamic_elementwise(%a: tensor<4x?xf32>) -> tensor<4x?xf32> {
  // Tensor arith is a linalg.generic by then (convert-elementwise-to-linalg).
  // expected-error @+1 {{'linalg.generic' has a dynamically shaped operand #0 of type 'tensor<4x?xf32>'}}
  %r = arith.addf %a, %a : tensor<4x?xf32>
  // expected-error @+1 {{'func.return' has a dynamically shaped operand #0}}
  return %r : tensor<4x?xf32>
}

// -----

// A cast to a dynamic shape and back folds away: lowered (no error).
func.func @folds_static(%x: tensor<64x64xbf16>) -> tensor<64x64xf8E4M3FN> {
  %d = tensor.cast %x : tensor<64x64xbf16> to tensor<?x64xbf16>
  %s = tensor.cast %d : tensor<?x64xbf16> to tensor<64x64xbf16>
  %q, %sc = mxfp8train.quantize %s axis = 1 mode = rceil : tensor<64x64xbf16> -> tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU>
  return %q : tensor<64x64xf8E4M3FN>
}

// -----

// Unranked tensors and dynamic memrefs too (they reached "failed to
// legalize operation 'gpu.func'", or an unranked result came back by value).
func.func @unranked_arg(%x: tensor<*xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{'tensor.cast' has a dynamically shaped operand #0 of type 'tensor<*xf32>'}}
  %s = tensor.cast %x : tensor<*xf32> to tensor<64x64xf32>
  %e = tensor.empty() : tensor<64x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) {
  ^bb0(%a: f32, %b: f32):
    %m = arith.mulf %a, %a : f32
    linalg.yield %m : f32
  } -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// -----

func.func @memref_dynamic(%x: memref<?x64xf32>, %y: memref<?x64xf32>) {
  // expected-error @+1 {{'linalg.generic' has a dynamically shaped operand #0 of type 'memref<?x64xf32>'}}
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<?x64xf32>) outs(%y : memref<?x64xf32>) {
  ^bb0(%a: f32, %b: f32):
    %m = arith.addf %a, %a : f32
    linalg.yield %m : f32
  }
  return
}
