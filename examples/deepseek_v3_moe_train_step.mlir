// One training step (forward and backward) of a DeepSeek-V3-shaped routed
// MoE expert layer: the experts of one expert-parallel rank, each a SwiGLU
// MLP, applied to tokens already sorted by expert (torchao MoE training,
// SPEC §7). The expert GEMMs are `mxfp8train.grouped_mm` ops with the
// `torch._grouped_mm` contract; `mxfp8train-rewrite-matmuls` converts them
// with the same recipe as dense linears.
//
//   forward:  h1 = x @ w1[g]^T    h3 = x @ w3[g]^T    a = silu(h1) * h3
//             out = a @ w2[g]^T                                  (2d-3d)
//   backward: dA = dO @ w2[g]                                    (2d-3d)
//             dW2[g] = dO[group g]^T @ a[group g]                (2d-2d)
//             dh3 = dA * silu(h1)    dh1 = dA * h3 * silu'(h1)
//             dX = dh1 @ w1[g] + dh3 @ w3[g]                     (2d-3d)
//             dW1[g] = dh1[group g]^T @ x[group g]               (2d-2d)
//             dW3[g] = dh3[group g]^T @ x[group g]               (2d-2d)
//
// Shapes (DeepSeek-V3: dim 7168, moe_inter_dim 2048): x, dO (T, 7168);
// w1, w3 (8, 2048, 7168) and w2 (8, 7168, 2048), stored (E, out, in) like
// the PyTorch parameters; T = 384 tokens (reduced for the CPU) in 8 local
// experts with 48, 0, 77, 32, 64, 41, 96 and 26 tokens: expert 1 receives
// no token (its weight gradients are exactly zero) and most counts are not
// multiples of 32. `offs` holds the cumulative group ends (i32), as
// torch._grouped_mm takes them. Tensors are bf16 (grouped GEMMs return
// bf16 like torch._grouped_mm); elementwise math runs in f32.
//
// Run it (the bf16 module against its MXFP8 conversion, on the CPU):
//   mxfp8-run examples/deepseek_v3_moe_train_step.mlir --compare \
//     --recipe=mxfp8_rceil
//
// The conversion quantizes every operand along its contraction dimension
// (forward: x, a and the weights along the model/hidden dim; dgrad: dO, dh
// and the weights along the output dim, 32x1 of the 3-D weights; wgrad: the
// gradient and the activation along the tokens) and, for the 2d-2d weight
// gradients, pads each token group to a multiple of 32 first so that no
// 32-token block straddles two experts (docs/rewrite.md). Each grouped_mm
// carries a NameLoc (experts.w1.fwd, ...) that names it in the per-matmul
// table, where each GEMM is held to torchao's grouped bars (SPEC §8:
// forward >= 27 dB, dgrad >= 25 dB, wgrad >= 24 dB). Weights are drawn with
// std 0.02 (`mxfp8run.std`), activations and gradients with std 1.

#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @moe_train_step(
    %x: tensor<384x7168xbf16> {mxfp8run.std = 1.0 : f64},
    %w1: tensor<8x2048x7168xbf16> {mxfp8run.std = 0.02 : f64},
    %w3: tensor<8x2048x7168xbf16> {mxfp8run.std = 0.02 : f64},
    %w2: tensor<8x7168x2048xbf16> {mxfp8run.std = 0.02 : f64},
    %dO: tensor<384x7168xbf16> {mxfp8run.std = 1.0 : f64})
    -> (tensor<384x7168xbf16> {mxfp8train.role = "output"},
        tensor<384x7168xbf16> {mxfp8train.role = "input_grad"},
        tensor<8x2048x7168xbf16> {mxfp8train.role = "weight_grad"},
        tensor<8x2048x7168xbf16> {mxfp8train.role = "weight_grad"},
        tensor<8x7168x2048xbf16> {mxfp8train.role = "weight_grad"}) {
  // Token-group ends: expert sizes 48, 0, 77, 32, 64, 41, 96, 26.
  %offs = arith.constant dense<[48, 48, 125, 157, 221, 262, 358, 384]> : tensor<8xi32>

  // ---- forward ----------------------------------------------------------
  // h1 = x @ w1[g]^T, h3 = x @ w3[g]^T (weights stored (E, F, D): transpose_rhs)
  %h1 = mxfp8train.grouped_mm %x, %w1 offs(%offs) transpose_rhs
      : tensor<384x7168xbf16>, tensor<8x2048x7168xbf16>, tensor<8xi32> -> tensor<384x2048xbf16> loc("experts.w1.fwd")
  %h3 = mxfp8train.grouped_mm %x, %w3 offs(%offs) transpose_rhs
      : tensor<384x7168xbf16>, tensor<8x2048x7168xbf16>, tensor<8xi32> -> tensor<384x2048xbf16> loc("experts.w3.fwd")

  // a = silu(h1) * h3, silu(h) = h * sigmoid(h), in f32
  %a_e = tensor.empty() : tensor<384x2048xbf16>
  %a = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h1, %h3 : tensor<384x2048xbf16>, tensor<384x2048xbf16>) outs(%a_e : tensor<384x2048xbf16>) {
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
  } -> tensor<384x2048xbf16>

  // out = a @ w2[g]^T (w2 stored (E, D, F): transpose_rhs)
  %out = mxfp8train.grouped_mm %a, %w2 offs(%offs) transpose_rhs
      : tensor<384x2048xbf16>, tensor<8x7168x2048xbf16>, tensor<8xi32> -> tensor<384x7168xbf16> loc("experts.w2.fwd")

  // ---- backward ---------------------------------------------------------
  // dA = dO @ w2[g] (2d-3d without transpose: dgrad)
  %dA = mxfp8train.grouped_mm %dO, %w2 offs(%offs)
      : tensor<384x7168xbf16>, tensor<8x7168x2048xbf16>, tensor<8xi32> -> tensor<384x2048xbf16> loc("experts.w2.dgrad")

  // dW2[g] = dO[group g]^T @ a[group g] (2d-2d: wgrad)
  %dw2 = mxfp8train.grouped_mm %dO, %a offs(%offs) transpose_lhs
      : tensor<384x7168xbf16>, tensor<384x2048xbf16>, tensor<8xi32> -> tensor<8x7168x2048xbf16> loc("experts.w2.wgrad")

  // dh3 = dA * silu(h1); dh1 = dA * h3 * silu'(h1),
  // silu'(h) = sigmoid(h) * (1 + h * (1 - sigmoid(h)))
  %dh_e = tensor.empty() : tensor<384x2048xbf16>
  %dh1, %dh3 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%dA, %h1, %h3 : tensor<384x2048xbf16>, tensor<384x2048xbf16>, tensor<384x2048xbf16>)
      outs(%dh_e, %dh_e : tensor<384x2048xbf16>, tensor<384x2048xbf16>) {
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
  } -> (tensor<384x2048xbf16>, tensor<384x2048xbf16>)

  // dX = dh1 @ w1[g] + dh3 @ w3[g] (each rounded to bf16, summed in f32)
  %dx1 = mxfp8train.grouped_mm %dh1, %w1 offs(%offs)
      : tensor<384x2048xbf16>, tensor<8x2048x7168xbf16>, tensor<8xi32> -> tensor<384x7168xbf16> loc("experts.w1.dgrad")
  %dx3 = mxfp8train.grouped_mm %dh3, %w3 offs(%offs)
      : tensor<384x2048xbf16>, tensor<8x2048x7168xbf16>, tensor<8xi32> -> tensor<384x7168xbf16> loc("experts.w3.dgrad")
  %dx_e = tensor.empty() : tensor<384x7168xbf16>
  %dx = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%dx1, %dx3 : tensor<384x7168xbf16>, tensor<384x7168xbf16>) outs(%dx_e : tensor<384x7168xbf16>) {
  ^bb0(%u: bf16, %v: bf16, %o: bf16):
    %uf = arith.extf %u : bf16 to f32
    %vf = arith.extf %v : bf16 to f32
    %s = arith.addf %uf, %vf : f32
    %t = arith.truncf %s : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<384x7168xbf16>

  // dW1[g] = dh1[group g]^T @ x[group g], dW3[g] = dh3[group g]^T @ x[group g]
  %dw1 = mxfp8train.grouped_mm %dh1, %x offs(%offs) transpose_lhs
      : tensor<384x2048xbf16>, tensor<384x7168xbf16>, tensor<8xi32> -> tensor<8x2048x7168xbf16> loc("experts.w1.wgrad")
  %dw3 = mxfp8train.grouped_mm %dh3, %x offs(%offs) transpose_lhs
      : tensor<384x2048xbf16>, tensor<384x7168xbf16>, tensor<8xi32> -> tensor<8x2048x7168xbf16> loc("experts.w3.wgrad")

  return %out, %dx, %dw1, %dw3, %dw2
      : tensor<384x7168xbf16>, tensor<384x7168xbf16>, tensor<8x2048x7168xbf16>, tensor<8x2048x7168xbf16>, tensor<8x7168x2048xbf16>
}
