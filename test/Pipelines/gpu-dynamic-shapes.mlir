// The GPU pipeline lowers static shapes only: its first pass
// (mxfp8train-verify-lowering-input static-shapes=true) names each op with
// a dynamically shaped tensor, instead of the conversion to NVVM
// failing with "failed to legalize operation 'gpu.func'". The CPU pipeline
// does not set the option.
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
  // expected-error @+1 {{'arith.addf' has a dynamically shaped operand #0 of type 'tensor<4x?xf32>'}}
  %r = arith.addf %a, %a : tensor<4x?xf32>
  // expected-error @+1 {{'func.return' has a dynamically shaped operand #0}}
  return %r : tensor<4x?xf32>
}
