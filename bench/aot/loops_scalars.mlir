// Functions checked on the GPU against the CPU path by
// bench/make-aot-artifacts.sh and bench/device/run-aot-checks.sh: the forms
// the GPU pipeline hands to upstream's loop path after its kernels
// (lib/Conversion/MXFP8TrainToGPU/RemainingOps.cpp): ops on rank-0 tensors
// (a loss reduced to a scalar, scalar arithmetic) and kernel results an
// scf.for carries (gradient accumulation over micro-batches, high precision
// and after the MXFP8 rewrite; an optimizer update reading scalars of the
// loop; the squares and products of a gradient clipping; scalars read on
// the host for a branch: a clipping by norm, an element; elements written
// on the host). The scalar ops
// are exact; the reductions and GEMMs sum f32 in another order on the GPU
// (SQNR bars in the script).

#mk = affine_map<(m, n, k) -> (m, k)>
#km = affine_map<(m, n, k) -> (k, m)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>

// Scalar arithmetic on rank-0 tensors: (a * b + a) / b.
func.func @scalar_ops(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %m = arith.mulf %a, %b : tensor<f32>
  %s = arith.addf %m, %a : tensor<f32>
  %r = arith.divf %s, %b : tensor<f32>
  return %r : tensor<f32>
}

// A mean squared error: sum((y - t)^2) / N over (64, 96), a scalar.
func.func @mse_loss(%y: tensor<64x96xf32>, %t: tensor<64x96xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %inv = arith.constant dense<1.62760422E-4> : tensor<f32>
  %d = arith.subf %y, %t : tensor<64x96xf32>
  %sq = arith.mulf %d, %d : tensor<64x96xf32>
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %sum = linalg.reduce ins(%sq : tensor<64x96xf32>) outs(%f : tensor<f32>) dimensions = [0, 1]
    (%x: f32, %acc: f32) {
      %n = arith.addf %x, %acc : f32
      linalg.yield %n : f32
    }
  %mean = arith.mulf %sum, %inv : tensor<f32>
  return %mean : tensor<f32>
}

// The weight gradient accumulated over 4 micro-batches of 256 tokens:
// dW += dO_i^T x_i, dW an scf.for iter_arg (f32), from dW0.
func.func @grad_accum(%x: tensor<4x256x512xbf16>, %dout: tensor<4x256x384xbf16>,
                      %dw0: tensor<384x512xf32>) -> tensor<384x512xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %dw = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %dw0) -> tensor<384x512xf32> {
    %xi = tensor.extract_slice %x[%i, 0, 0] [1, 256, 512] [1, 1, 1]
        : tensor<4x256x512xbf16> to tensor<256x512xbf16>
    %di = tensor.extract_slice %dout[%i, 0, 0] [1, 256, 384] [1, 1, 1]
        : tensor<4x256x384xbf16> to tensor<256x384xbf16>
    %g = linalg.matmul indexing_maps = [#km, #kn, #mn]
        ins(%di, %xi : tensor<256x384xbf16>, tensor<256x512xbf16>)
        outs(%acc : tensor<384x512xf32>) -> tensor<384x512xf32>
    scf.yield %g : tensor<384x512xf32>
  }
  return %dw : tensor<384x512xf32>
}

// Three SGD steps with a step-dependent factor (as Adam's bias correction)
// and a rank-0 learning rate: w <- w - lr * (k + 1) * g. The update writes
// a tensor.empty and is copied into the loop's iter_arg.
#id2 = affine_map<(i, j) -> (i, j)>
#scalar2 = affine_map<(i, j) -> ()>
func.func @sgd_steps(%w0: tensor<64x128xf32>, %g: tensor<64x128xf32>, %lr: tensor<f32>) -> tensor<64x128xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %e = tensor.empty() : tensor<64x128xf32>
  %w = scf.for %k = %c0 to %c3 step %c1 iter_args(%acc = %w0) -> tensor<64x128xf32> {
    %k1 = arith.addi %k, %c1 : index
    %ki = arith.index_cast %k1 : index to i32
    %t = arith.sitofp %ki : i32 to f32
    %u = linalg.generic {indexing_maps = [#id2, #id2, #scalar2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%acc, %g, %lr : tensor<64x128xf32>, tensor<64x128xf32>, tensor<f32>) outs(%e : tensor<64x128xf32>) {
    ^bb0(%a: f32, %b: f32, %l: f32, %o: f32):
      %s = arith.mulf %l, %t : f32
      %d = arith.mulf %s, %b : f32
      %n = arith.subf %a, %d : f32
      linalg.yield %n : f32
    } -> tensor<64x128xf32>
    scf.yield %u : tensor<64x128xf32>
  }
  return %w : tensor<64x128xf32>
}

// The squares and products of a gradient clipping, x * x next to x * y
// (one kernel each), and the squares' sum as a scalar.
func.func @square_and_product(%x: tensor<64x128xf32>, %y: tensor<64x128xf32>) -> (tensor<64x128xf32>, tensor<f32>) {
  %zero = arith.constant 0.0 : f32
  %sq = arith.mulf %x, %x : tensor<64x128xf32>
  %pr = arith.mulf %x, %y : tensor<64x128xf32>
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %sum = linalg.reduce ins(%sq : tensor<64x128xf32>) outs(%f : tensor<f32>) dimensions = [0, 1]
    (%v: f32, %acc: f32) {
      %n = arith.addf %v, %acc : f32
      linalg.yield %n : f32
    }
  return %pr, %sum : tensor<64x128xf32>, tensor<f32>
}

// Rows written at offsets: a tensor.concat, and a loop that scales each
// block of 16 rows of x into the same rows of its iter_arg
// (tensor.insert_slice at the loop index). Copies into views at an offset
// are kernels (a gpu.memcpy wrote them at the buffer's start).
func.func @concat_rows(%a: tensor<16x64xf32>, %b: tensor<16x64xf32>) -> tensor<32x64xf32> {
  %r = tensor.concat dim(0) %a, %b : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<32x64xf32>
  return %r : tensor<32x64xf32>
}

func.func @insert_rows(%x: tensor<64x64xf32>, %init: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %init) -> tensor<64x64xf32> {
    %row = arith.muli %i, %c16 : index
    %blk = tensor.extract_slice %x[%row, 0] [16, 64] [1, 1] : tensor<64x64xf32> to tensor<16x64xf32>
    %two = arith.addf %blk, %blk : tensor<16x64xf32>
    %u = tensor.insert_slice %two into %acc[%row, 0] [16, 64] [1, 1] : tensor<16x64xf32> into tensor<64x64xf32>
    scf.yield %u : tensor<64x64xf32>
  }
  return %r : tensor<64x64xf32>
}

// Gradient clipping by norm with the decision on the host: the squared
// norm (a split reduction) read with tensor.extract (a device-to-host copy
// and a wait on the GPU), compared with max^2, and the gradient scaled by
// max / norm in an scf.if or returned as it is. The CPU and the GPU add
// the squares in one order, so they take the same branch: exact.
func.func @clip_by_norm(%g: tensor<64x96xf32>, %max: tensor<f32>) -> tensor<64x96xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %n2 = linalg.reduce ins(%g : tensor<64x96xf32>) outs(%f : tensor<f32>) dimensions = [0, 1]
    (%x: f32, %acc: f32) {
      %s = arith.mulf %x, %x : f32
      %a = arith.addf %s, %acc : f32
      linalg.yield %a : f32
    }
  %nv = tensor.extract %n2[] : tensor<f32>
  %mv = tensor.extract %max[] : tensor<f32>
  %m2 = arith.mulf %mv, %mv : f32
  %clip = arith.cmpf ogt, %nv, %m2 : f32
  %r = scf.if %clip -> tensor<64x96xf32> {
    %norm = math.sqrt %nv : f32
    %scale = arith.divf %mv, %norm : f32
    %eg = tensor.empty() : tensor<64x96xf32>
    %c = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
        ins(%g : tensor<64x96xf32>) outs(%eg : tensor<64x96xf32>) {
    ^bb0(%a: f32, %o: f32):
      %m = arith.mulf %a, %scale : f32
      linalg.yield %m : f32
    } -> tensor<64x96xf32>
    scf.yield %c : tensor<64x96xf32>
  } else {
    scf.yield %g : tensor<64x96xf32>
  }
  return %r : tensor<64x96xf32>
}

// An element of a larger tensor read on the host (a one-element copy
// kernel, then the device-to-host copy) to choose a branch.
func.func @branch_on_element(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %zero = arith.constant 0.0 : f32
  %v = tensor.extract %x[%c5, %c3] : tensor<8x16xf32>
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
    %e = tensor.empty() : tensor<8x16xf32>
    %d = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
        ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
    ^bb0(%a: f32, %o: f32):
      %n = arith.negf %a : f32
      linalg.yield %n : f32
    } -> tensor<8x16xf32>
    scf.yield %d : tensor<8x16xf32>
  }
  return %r : tensor<8x16xf32>
}

// Element writes on the host: a scalar (read from a rank-0 tensor on the
// host and squared there) inserted at (2, 3), and a 2 x 2 tensor built from
// scalars; on the GPU each element a one-element fill kernel and a copy
// into its view.
func.func @host_writes(%t: tensor<8x16xf32>, %s: tensor<f32>) -> (tensor<8x16xf32>, tensor<2x2xf32>) {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %v = tensor.extract %s[] : tensor<f32>
  %w = arith.mulf %v, %v : f32
  %r = tensor.insert %w into %t[%c2, %c3] : tensor<8x16xf32>
  %m = tensor.from_elements %v, %w, %w, %v : tensor<2x2xf32>
  return %r, %m : tensor<8x16xf32>, tensor<2x2xf32>
}

// Tensors an scf.while carries (RemainingOps.cpp copies the after region's
// kernel result into its argument): x doubled while x[0] < 100, with a
// counter of the iterations; and two tensors exchanged three times.
func.func @while_double(%x: tensor<64x96xf32> {mxfp8run.values = dense<1.5> : tensor<64x96xf32>},
                        %y: tensor<64x96xf32>) -> (tensor<64x96xf32>, tensor<64x96xf32>, tensor<64x96xf32>) {
  %c0 = arith.constant 0 : index
  %i0 = arith.constant 0 : i32
  %i1 = arith.constant 1 : i32
  %i3 = arith.constant 3 : i32
  %limit = arith.constant 100.0 : f32
  %d = scf.while (%a = %x) : (tensor<64x96xf32>) -> tensor<64x96xf32> {
    %v = tensor.extract %a[%c0, %c0] : tensor<64x96xf32>
    %go = arith.cmpf olt, %v, %limit : f32
    scf.condition(%go) %a : tensor<64x96xf32>
  } do {
  ^bb0(%b: tensor<64x96xf32>):
    %n = arith.addf %b, %b : tensor<64x96xf32>
    scf.yield %n : tensor<64x96xf32>
  }
  %r:3 = scf.while (%a = %d, %b = %y, %i = %i0) : (tensor<64x96xf32>, tensor<64x96xf32>, i32) -> (tensor<64x96xf32>, tensor<64x96xf32>, i32) {
    %go = arith.cmpi slt, %i, %i3 : i32
    scf.condition(%go) %a, %b, %i : tensor<64x96xf32>, tensor<64x96xf32>, i32
  } do {
  ^bb0(%u: tensor<64x96xf32>, %v: tensor<64x96xf32>, %j: i32):
    %next = arith.addi %j, %i1 : i32
    scf.yield %v, %u, %next : tensor<64x96xf32>, tensor<64x96xf32>, i32
  }
  return %d, %r#0, %r#1 : tensor<64x96xf32>, tensor<64x96xf32>, tensor<64x96xf32>
}
