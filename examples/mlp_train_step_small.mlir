// A small SwiGLU MLP block with the structure of
// llama3_8b_mlp_train_step.mlir (T = 32 tokens, D = 256, F = 512), for fast
// tests. One training step (forward and backward) in linalg on bf16 tensors.
//
//   forward:  h1 = x @ w1^T    h3 = x @ w3^T    a = silu(h1) * h3    out = a @ w2^T
//   backward: dA = dO @ w2     dW2 = dO^T @ a
//             dh3 = dA * silu(h1)                dh1 = dA * h3 * silu'(h1)
//             dX = dh1 @ w1 + dh3 @ w3           dW1 = dh1^T @ x    dW3 = dh3^T @ x
//
// Shapes: x, dO (T, D); w1, w3 (F, D); w2 (D, F) with D = 256 (model dim)
// and F = 512 (hidden dim). Every matmul is a `linalg.matmul` on bf16
// operands with a zero-filled f32 accumulator, truncated to bf16 afterwards
// (PyTorch bf16 linear semantics). Transposed operands are written both
// ways: through `indexing_maps` (w1, w2 forward, dW1) and through a
// `linalg.transpose` feeding a plain matmul (w3 forward, dW2, dW3).
// Elementwise math runs in f32 inside `linalg.generic`.
//
// Run it (compare the MXFP8 conversion against this bf16 module):
//   mxfp8-run examples/mlp_train_step_small.mlir --entry=mlp_train_step \
//     --compare --recipe=mxfp8_rceil
//
// The argument attributes `mxfp8run.std` set the standard deviation of the
// generated inputs (weights 0.02, activations and gradients 1.0); the result
// attributes `mxfp8train.role` select the SQNR bars of SPEC §8.

#id = affine_map<(d0, d1) -> (d0, d1)>
#mm_a = affine_map<(m, n, k) -> (m, k)>
#mm_b = affine_map<(m, n, k) -> (k, n)>
#mm_bt = affine_map<(m, n, k) -> (n, k)>
#mm_at = affine_map<(m, n, k) -> (k, m)>
#mm_c = affine_map<(m, n, k) -> (m, n)>

func.func @mlp_train_step(
    %x: tensor<32x256xbf16> {mxfp8run.std = 1.0 : f64},
    %w1: tensor<512x256xbf16> {mxfp8run.std = 0.02 : f64},
    %w3: tensor<512x256xbf16> {mxfp8run.std = 0.02 : f64},
    %w2: tensor<256x512xbf16> {mxfp8run.std = 0.02 : f64},
    %dO: tensor<32x256xbf16> {mxfp8run.std = 1.0 : f64})
    -> (tensor<32x256xbf16> {mxfp8train.role = "output"},
        tensor<32x256xbf16> {mxfp8train.role = "input_grad"},
        tensor<512x256xbf16> {mxfp8train.role = "weight_grad"},
        tensor<512x256xbf16> {mxfp8train.role = "weight_grad"},
        tensor<256x512xbf16> {mxfp8train.role = "weight_grad"}) {
  %zero = arith.constant 0.0 : f32

  // ---- forward ----------------------------------------------------------
  // h1 = x @ w1^T (transpose through indexing_maps)
  %h1_init = tensor.empty() : tensor<32x512xf32>
  %h1_zero = linalg.fill ins(%zero : f32) outs(%h1_init : tensor<32x512xf32>) -> tensor<32x512xf32>
  %h1_acc = linalg.matmul indexing_maps = [#mm_a, #mm_bt, #mm_c]
      ins(%x, %w1 : tensor<32x256xbf16>, tensor<512x256xbf16>)
      outs(%h1_zero : tensor<32x512xf32>) -> tensor<32x512xf32> loc("mlp.w1.fwd")
  %h1_e = tensor.empty() : tensor<32x512xbf16>
  %h1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h1_acc : tensor<32x512xf32>) outs(%h1_e : tensor<32x512xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %t = arith.truncf %v : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<32x512xbf16>

  // h3 = x @ w3^T (transpose through linalg.transpose)
  %w3t_e = tensor.empty() : tensor<256x512xbf16>
  %w3t = linalg.transpose ins(%w3 : tensor<512x256xbf16>) outs(%w3t_e : tensor<256x512xbf16>) permutation = [1, 0]
  %h3_init = tensor.empty() : tensor<32x512xf32>
  %h3_zero = linalg.fill ins(%zero : f32) outs(%h3_init : tensor<32x512xf32>) -> tensor<32x512xf32>
  %h3_acc = linalg.matmul ins(%x, %w3t : tensor<32x256xbf16>, tensor<256x512xbf16>)
      outs(%h3_zero : tensor<32x512xf32>) -> tensor<32x512xf32> loc("mlp.w3.fwd")
  %h3_e = tensor.empty() : tensor<32x512xbf16>
  %h3 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h3_acc : tensor<32x512xf32>) outs(%h3_e : tensor<32x512xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %t = arith.truncf %v : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<32x512xbf16>

  // a = silu(h1) * h3, silu(h) = h * sigmoid(h)
  %a_e = tensor.empty() : tensor<32x512xbf16>
  %a = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h1, %h3 : tensor<32x512xbf16>, tensor<32x512xbf16>) outs(%a_e : tensor<32x512xbf16>) {
  ^bb0(%p: bf16, %q: bf16, %o: bf16):
    %one = arith.constant 1.0 : f32
    %pf = arith.extf %p : bf16 to f32
    %qf = arith.extf %q : bf16 to f32
    %neg = arith.negf %pf : f32
    %exp = math.exp %neg : f32
    %den = arith.addf %exp, %one : f32
    %sig = arith.divf %one, %den : f32
    %silu = arith.mulf %pf, %sig : f32
    %r = arith.mulf %silu, %qf : f32
    %t = arith.truncf %r : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<32x512xbf16>

  // out = a @ w2^T (transpose through indexing_maps)
  %out_init = tensor.empty() : tensor<32x256xf32>
  %out_zero = linalg.fill ins(%zero : f32) outs(%out_init : tensor<32x256xf32>) -> tensor<32x256xf32>
  %out_acc = linalg.matmul indexing_maps = [#mm_a, #mm_bt, #mm_c]
      ins(%a, %w2 : tensor<32x512xbf16>, tensor<256x512xbf16>)
      outs(%out_zero : tensor<32x256xf32>) -> tensor<32x256xf32> loc("mlp.w2.fwd")
  %out_e = tensor.empty() : tensor<32x256xbf16>
  %out = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%out_acc : tensor<32x256xf32>) outs(%out_e : tensor<32x256xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %t = arith.truncf %v : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<32x256xbf16>

  // ---- backward ---------------------------------------------------------
  // dA = dO @ w2
  %dA_init = tensor.empty() : tensor<32x512xf32>
  %dA_zero = linalg.fill ins(%zero : f32) outs(%dA_init : tensor<32x512xf32>) -> tensor<32x512xf32>
  %dA_acc = linalg.matmul ins(%dO, %w2 : tensor<32x256xbf16>, tensor<256x512xbf16>)
      outs(%dA_zero : tensor<32x512xf32>) -> tensor<32x512xf32> loc("mlp.w2.dgrad")
  %dA_e = tensor.empty() : tensor<32x512xbf16>
  %dA = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%dA_acc : tensor<32x512xf32>) outs(%dA_e : tensor<32x512xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %t = arith.truncf %v : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<32x512xbf16>

  // dW2 = dO^T @ a (transpose through linalg.transpose)
  %dOt_e = tensor.empty() : tensor<256x32xbf16>
  %dOt = linalg.transpose ins(%dO : tensor<32x256xbf16>) outs(%dOt_e : tensor<256x32xbf16>) permutation = [1, 0]
  %dw2_init = tensor.empty() : tensor<256x512xf32>
  %dw2_zero = linalg.fill ins(%zero : f32) outs(%dw2_init : tensor<256x512xf32>) -> tensor<256x512xf32>
  %dw2_acc = linalg.matmul ins(%dOt, %a : tensor<256x32xbf16>, tensor<32x512xbf16>)
      outs(%dw2_zero : tensor<256x512xf32>) -> tensor<256x512xf32> loc("mlp.w2.wgrad")
  %dw2_e = tensor.empty() : tensor<256x512xbf16>
  %dw2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%dw2_acc : tensor<256x512xf32>) outs(%dw2_e : tensor<256x512xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %t = arith.truncf %v : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<256x512xbf16>

  // dh3 = dA * silu(h1); dh1 = dA * h3 * silu'(h1),
  // silu'(h) = sigmoid(h) * (1 + h * (1 - sigmoid(h)))
  %dh_e = tensor.empty() : tensor<32x512xbf16>
  %dh1, %dh3 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%dA, %h1, %h3 : tensor<32x512xbf16>, tensor<32x512xbf16>, tensor<32x512xbf16>)
      outs(%dh_e, %dh_e : tensor<32x512xbf16>, tensor<32x512xbf16>) {
  ^bb0(%g: bf16, %p: bf16, %q: bf16, %o1: bf16, %o3: bf16):
    %one = arith.constant 1.0 : f32
    %gf = arith.extf %g : bf16 to f32
    %pf = arith.extf %p : bf16 to f32
    %qf = arith.extf %q : bf16 to f32
    %neg = arith.negf %pf : f32
    %exp = math.exp %neg : f32
    %den = arith.addf %exp, %one : f32
    %sig = arith.divf %one, %den : f32
    %silu = arith.mulf %pf, %sig : f32
    %dh3f = arith.mulf %gf, %silu : f32
    %oms = arith.subf %one, %sig : f32
    %homs = arith.mulf %pf, %oms : f32
    %inner = arith.addf %homs, %one : f32
    %dsilu = arith.mulf %sig, %inner : f32
    %gq = arith.mulf %gf, %qf : f32
    %dh1f = arith.mulf %gq, %dsilu : f32
    %dh1t = arith.truncf %dh1f : f32 to bf16
    %dh3t = arith.truncf %dh3f : f32 to bf16
    linalg.yield %dh1t, %dh3t : bf16, bf16
  } -> (tensor<32x512xbf16>, tensor<32x512xbf16>)

  // dX = dh1 @ w1 + dh3 @ w3 (each matmul rounded to bf16, then summed in
  // f32 and rounded again, as autograd accumulates bf16 gradients)
  %dx1_init = tensor.empty() : tensor<32x256xf32>
  %dx1_zero = linalg.fill ins(%zero : f32) outs(%dx1_init : tensor<32x256xf32>) -> tensor<32x256xf32>
  %dx1_acc = linalg.matmul ins(%dh1, %w1 : tensor<32x512xbf16>, tensor<512x256xbf16>)
      outs(%dx1_zero : tensor<32x256xf32>) -> tensor<32x256xf32> loc("mlp.w1.dgrad")
  %dx3_init = tensor.empty() : tensor<32x256xf32>
  %dx3_zero = linalg.fill ins(%zero : f32) outs(%dx3_init : tensor<32x256xf32>) -> tensor<32x256xf32>
  %dx3_acc = linalg.matmul ins(%dh3, %w3 : tensor<32x512xbf16>, tensor<512x256xbf16>)
      outs(%dx3_zero : tensor<32x256xf32>) -> tensor<32x256xf32> loc("mlp.w3.dgrad")
  %dx1_e = tensor.empty() : tensor<32x256xbf16>
  %dx1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%dx1_acc : tensor<32x256xf32>) outs(%dx1_e : tensor<32x256xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %t = arith.truncf %v : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<32x256xbf16>
  %dx3_e = tensor.empty() : tensor<32x256xbf16>
  %dx3 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%dx3_acc : tensor<32x256xf32>) outs(%dx3_e : tensor<32x256xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %t = arith.truncf %v : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<32x256xbf16>
  %dx_e = tensor.empty() : tensor<32x256xbf16>
  %dx = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%dx1, %dx3 : tensor<32x256xbf16>, tensor<32x256xbf16>) outs(%dx_e : tensor<32x256xbf16>) {
  ^bb0(%u: bf16, %v: bf16, %o: bf16):
    %uf = arith.extf %u : bf16 to f32
    %vf = arith.extf %v : bf16 to f32
    %s = arith.addf %uf, %vf : f32
    %t = arith.truncf %s : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<32x256xbf16>

  // dW1 = dh1^T @ x (transpose through indexing_maps)
  %dw1_init = tensor.empty() : tensor<512x256xf32>
  %dw1_zero = linalg.fill ins(%zero : f32) outs(%dw1_init : tensor<512x256xf32>) -> tensor<512x256xf32>
  %dw1_acc = linalg.matmul indexing_maps = [#mm_at, #mm_b, #mm_c]
      ins(%dh1, %x : tensor<32x512xbf16>, tensor<32x256xbf16>)
      outs(%dw1_zero : tensor<512x256xf32>) -> tensor<512x256xf32> loc("mlp.w1.wgrad")
  %dw1_e = tensor.empty() : tensor<512x256xbf16>
  %dw1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%dw1_acc : tensor<512x256xf32>) outs(%dw1_e : tensor<512x256xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %t = arith.truncf %v : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<512x256xbf16>

  // dW3 = dh3^T @ x (transpose through linalg.transpose)
  %dh3t_e = tensor.empty() : tensor<512x32xbf16>
  %dh3t = linalg.transpose ins(%dh3 : tensor<32x512xbf16>) outs(%dh3t_e : tensor<512x32xbf16>) permutation = [1, 0]
  %dw3_init = tensor.empty() : tensor<512x256xf32>
  %dw3_zero = linalg.fill ins(%zero : f32) outs(%dw3_init : tensor<512x256xf32>) -> tensor<512x256xf32>
  %dw3_acc = linalg.matmul ins(%dh3t, %x : tensor<512x32xbf16>, tensor<32x256xbf16>)
      outs(%dw3_zero : tensor<512x256xf32>) -> tensor<512x256xf32> loc("mlp.w3.wgrad")
  %dw3_e = tensor.empty() : tensor<512x256xbf16>
  %dw3 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%dw3_acc : tensor<512x256xf32>) outs(%dw3_e : tensor<512x256xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %t = arith.truncf %v : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<512x256xbf16>

  return %out, %dx, %dw1, %dw3, %dw2
      : tensor<32x256xbf16>, tensor<32x256xbf16>, tensor<512x256xbf16>,
        tensor<512x256xbf16>, tensor<256x512xbf16>
}
