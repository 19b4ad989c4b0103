// Tensor element accesses on the host: the GPU pipeline keeps every tensor
// in device memory. A read (tensor.extract outside a linalg body) copies
// the element to the host: a one-element copy kernel first where the
// tensor has more elements or is a slice (convert-mxfp8train-to-gpu), then
// gpu.memcpy into a stack slot and a wait for the stream
// (mxfp8train-gpu-device-buffers). A write (tensor.insert,
// tensor.from_elements) becomes device ops: each element a one-element
// linalg.fill of the scalar, a kernel taking it as an argument, inserted
// with tensor.insert_slice. Before session 32 each was an error at the op
// (mxfp8train-verify-lowering-input device-tensors, now gone), and before
// that "'memref.load' would access device memory from the host" after
// bufferization. Inside a linalg body (a gather) the access runs in the
// kernel. The CPU pipeline runs them on the host as written.
//
// RUN: mxfp8-opt %s --split-input-file --verify-diagnostics --mxfp8train-lower-to-gpu="format=isa"
// RUN: mxfp8-opt %s --split-input-file --mxfp8train-verify-lowering-input | FileCheck %s --check-prefix=CPU
// RUN: mxfp8-opt %s --split-input-file --verify-diagnostics --mxfp8train-lower-to-gpu="format=isa" --mlir-print-ir-after=mxfp8train-gpu-device-buffers -o /dev/null 2>&1 | FileCheck %s --check-prefix=HOST
// CPU: func.func @scalar_hyper_parameter
// CPU: func.func @read_element
// CPU: func.func @read_rank0_slice
// CPU: func.func @read_reshaped_slice
// CPU: func.func @host_insert
// CPU: func.func @gather_in_kernel
// CPU: func.func @host_from_elements
// CPU: func.func @generate_in_kernel
// CPU: func.func @host_from_elements_large

// A learning rate read on the host to scale an update: copied to a stack
// slot, passed to the update's kernel as a scalar.
// HOST-LABEL: func.func @scalar_hyper_parameter(
// HOST-SAME:    %[[P:.*]]: memref<64xf32>, %[[G:.*]]: memref<64xf32>, %[[LR:.*]]: memref<f32>
// HOST:         %[[SLOT:.*]] = memref.alloca() : memref<f32>
// HOST:         gpu.memcpy %[[SLOT]], %[[LR]] : memref<f32>, memref<f32>
// HOST-NEXT:    %[[S:.*]] = memref.load %[[SLOT]][] : memref<f32>
// HOST:         gpu.launch_func {{.*}} args({{.*}}%[[S]] : f32
func.func @scalar_hyper_parameter(%p: tensor<64xf32>, %g: tensor<64xf32>, %lr: tensor<f32>) -> tensor<64xf32> {
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

// An element of a larger tensor at a run-time index, read for a branch:
// copied into a one-element device buffer by a kernel, then to the host.
// HOST-LABEL: func.func @read_element(
// HOST-SAME:    %[[X:.*]]: memref<8x16xf32>, %[[I:.*]]: index
// HOST:         %[[SLOT:.*]] = memref.alloca() : memref<1x1xf32>
// HOST:         %[[V:.*]] = memref.subview %[[X]][%[[I]], 3] [1, 1] [1, 1]
// HOST:         %[[ONE:.*]] = gpu.alloc () : memref<1x1xf32>
// HOST:         gpu.launch_func {{.*}} args({{.*}}%[[ONE]] : memref<1x1xf32>)
// HOST:         gpu.memcpy %[[SLOT]], %[[ONE]] : memref<1x1xf32>, memref<1x1xf32>
// HOST-NEXT:    %[[E:.*]] = memref.load %[[SLOT]][%{{.*}}, %{{.*}}] : memref<1x1xf32>
// HOST:         arith.cmpf ogt, %[[E]]
// HOST:         scf.if
func.func @read_element(%x: tensor<8x16xf32>, %i: index) -> tensor<8x16xf32> {
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f32
  %v = tensor.extract %x[%i, %c3] : tensor<8x16xf32>
  %pos = arith.cmpf ogt, %v, %zero : f32
  %r = scf.if %pos -> tensor<8x16xf32> {
    %e = tensor.empty() : tensor<8x16xf32>
    %d = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
        ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
    ^bb0(%a: f32, %o: f32):
      %n = arith.addf %a, %a : f32
      linalg.yield %n : f32
    } -> tensor<8x16xf32>
    scf.yield %d : tensor<8x16xf32>
  } else {
    scf.yield %x : tensor<8x16xf32>
  }
  return %r : tensor<8x16xf32>
}

// -----

// A rank-0 slice read on the host: copied too (bufferized, the slice is a
// strided view, which the host copy cannot read in place).
// HOST-LABEL: func.func @read_rank0_slice(
// HOST:         gpu.launch_func
// HOST:         gpu.memcpy %{{.*}}, %{{.*}} : memref<f32>, memref<f32>
func.func @read_rank0_slice(%x: tensor<8x16xf32>, %i: index) -> f32 {
  %s = tensor.extract_slice %x[%i, 2] [1, 1] [1, 1] : tensor<8x16xf32> to tensor<f32>
  %v = tensor.extract %s[] : tensor<f32>
  return %v : f32
}

// -----

// A one-element slice behind a reshape (found by a helper's tests: it was
// read in place, an error): copied too.
// HOST-LABEL: func.func @read_reshaped_slice(
// HOST:         gpu.launch_func
// HOST:         gpu.memcpy %{{.*}}, %{{.*}} : memref<f32>, memref<f32>
func.func @read_reshaped_slice(%x: tensor<4xf32>) -> f32 {
  %s = tensor.extract_slice %x[2] [1] [1] : tensor<4xf32> to tensor<1xf32>
  %c = tensor.collapse_shape %s [] : tensor<1xf32> into tensor<f32>
  %v = tensor.extract %c[] : tensor<f32>
  return %v : f32
}

// -----

// A scalar written at index 1: filled into a one-element buffer by a
// kernel that takes it as an argument, then copied into the view.
// HOST-LABEL: func.func @host_insert(
// HOST-SAME:    %[[T:.*]]: memref<4xf32>, %[[V:.*]]: f32, %[[R:.*]]: memref<4xf32>
// HOST:         %[[ONE:.*]] = gpu.alloc () : memref<1xf32>
// HOST:         gpu.launch_func {{.*}} args({{.*}}%[[V]] : f32, %[[ONE]] : memref<1xf32>)
// HOST:         gpu.memcpy %[[R]], %[[T]]
// HOST:         %[[AT:.*]] = memref.subview %[[R]][1] [1] [1]
// HOST:         gpu.launch_func {{.*}} args({{.*}}%[[ONE]] : memref<1xf32>, %[[AT]] : memref<1xf32, strided<[1], offset: 1>>)
// HOST-NOT:     memref.store
// HOST:         return
func.func @host_insert(%t: tensor<4xf32>, %v: f32) -> tensor<4xf32> {
  %c1 = arith.constant 1 : index
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

// Four elements in row-major order: a fill and a copy each, into the
// views at (0, 0), (0, 1), (1, 0), (1, 1).
// HOST-LABEL: func.func @host_from_elements(
// HOST-SAME:    %[[V:.*]]: f32, %[[W:.*]]: f32, %[[R:.*]]: memref<2x2xf32>
// HOST:         gpu.launch_func {{.*}} args({{.*}}%[[V]] : f32
// HOST:         memref.subview %[[R]][0, 0] [1, 1] [1, 1]
// HOST:         gpu.launch_func {{.*}} args({{.*}}%[[W]] : f32
// HOST:         memref.subview %[[R]][0, 1] [1, 1] [1, 1]
// HOST:         gpu.launch_func {{.*}} args({{.*}}%[[W]] : f32
// HOST:         memref.subview %[[R]][1, 0] [1, 1] [1, 1]
// HOST:         gpu.launch_func {{.*}} args({{.*}}%[[V]] : f32
// HOST:         memref.subview %[[R]][1, 1] [1, 1] [1, 1]
// HOST-NOT:     memref.store
// HOST:         return
func.func @host_from_elements(%v: f32, %w: f32) -> tensor<2x2xf32> {
  %r = tensor.from_elements %v, %w, %w, %v : tensor<2x2xf32>
  return %r : tensor<2x2xf32>
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

// -----

// More than 64 host-written elements: an error at the op (one kernel each
// would take long to compile and run: one-shot bufferization analyses the
// chain of insert_slice ops in quadratic time, 52 s for 256 elements).
func.func @host_from_elements_large(%v: f32) -> tensor<65xf32> {
  // expected-error @+1 {{'tensor.from_elements' of 65 elements on the host: the GPU pipeline writes host elements one kernel each, up to 64; compute the tensor with a linalg op}}
  %r = tensor.from_elements %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v, %v : tensor<65xf32>
  return %r : tensor<65xf32>
}
