// Tensor element accesses on the host: the GPU pipeline keeps every tensor
// in device memory, so mxfp8train-verify-lowering-input device-tensors=true
// (the GPU pipeline's second run) names a tensor.extract / tensor.insert
// outside a linalg body at the op, saying what to do instead; it used to
// fail after bufferization with "'memref.load' would access device memory
// from the host", naming an op the user never wrote. Inside a linalg body
// (a gather) the access runs in the kernel and lowers. The CPU pipeline
// does not set the option.
//
// RUN: mxfp8-opt %s --split-input-file --verify-diagnostics --mxfp8train-lower-to-gpu="format=isa"
// RUN: mxfp8-opt %s --split-input-file --mxfp8train-verify-lowering-input | FileCheck %s --check-prefix=CPU
// CPU: func.func @scalar_hyper_parameter
// CPU: func.func @host_insert
// CPU: func.func @gather_in_kernel
// CPU: func.func @host_from_elements
// CPU: func.func @generate_in_kernel

// A learning rate read on the host to scale an update.
func.func @scalar_hyper_parameter(%p: tensor<64xf32>, %g: tensor<64xf32>, %lr: tensor<f32>) -> tensor<64xf32> {
  // expected-error @+1 {{'tensor.extract' reads an element of a tensor on the host, but the GPU pipeline keeps every tensor in device memory; use the value inside a linalg op (a rank-0 tensor operand of a linalg.generic is read in its kernel), or lower this function with mxfp8train-lower-to-cpu}}
  %s = tensor.extract %lr[] : tensor<f32>
  %e = tensor.empty() : tensor<64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%p, %g : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %b, %s : f32
    %d = arith.subf %a, %m : f32
    linalg.yield %d : f32
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}

// -----

func.func @host_insert(%t: tensor<4xf32>, %v: f32) -> tensor<4xf32> {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'tensor.insert' writes an element of a tensor on the host}}
  %r = tensor.insert %v into %t[%c1] : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// A gather by labels inside a linalg body: read in the kernel.
func.func @gather_in_kernel(%logits: tensor<8x16xf32>, %labels: tensor<8xindex>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%labels : tensor<8xindex>) outs(%e : tensor<8xf32>) {
  ^bb0(%l: index, %o: f32):
    %i = linalg.index 0 : index
    %v = tensor.extract %logits[%i, %l] : tensor<8x16xf32>
    linalg.yield %v : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

func.func @host_from_elements(%v: f32) -> tensor<2xf32> {
  // expected-error @+1 {{'tensor.from_elements' writes the elements of a tensor on the host}}
  %r = tensor.from_elements %v, %v : tensor<2xf32>
  return %r : tensor<2xf32>
}

// -----

// A read in a tensor.generate body runs in its kernel.
func.func @generate_in_kernel(%x: tensor<8xf32>) -> tensor<8xf32> {
  %r = tensor.generate {
  ^bb0(%i: index):
    %v = tensor.extract %x[%i] : tensor<8xf32>
    %d = arith.addf %v, %v : f32
    tensor.yield %d : f32
  } : tensor<8xf32>
  return %r : tensor<8xf32>
}
