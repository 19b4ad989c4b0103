// A small MoE expert layer with the structure of
// deepseek_v3_moe_train_step.mlir, for fast tests: 4 experts, model dim
// D = 256, expert hidden dim F = 512, T = 100 tokens sorted by expert in
// groups of 37, 0, 32 and 31 tokens (an empty expert, and groups that are
// not multiples of 32). One training step, forward and backward:
//
//   forward:  h1 = x @ w1[g]^T    h3 = x @ w3[g]^T    a = silu(h1) * h3
//             out = a @ w2[g]^T                                  (2d-3d)
//   backward: dA = dO @ w2[g]     dW2[g] = dO[g]^T @ a[g]        (2d-3d, 2d-2d)
//             dh3 = dA * silu(h1)    dh1 = dA * h3 * silu'(h1)
//             dX = dh1 @ w1[g] + dh3 @ w3[g]                     (2d-3d)
//             dW1[g] = dh1[g]^T @ x[g]    dW3[g] = dh3[g]^T @ x[g]  (2d-2d)
//
// Shapes: x, dO (T, D); w1, w3 (E, F, D); w2 (E, D, F), bf16. Run it:
//   mxfp8-run examples/moe_train_step_small.mlir --compare --recipe=mxfp8_rceil

#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @moe_train_step(
    %x: tensor<100x256xbf16> {mxfp8run.std = 1.0 : f64},
    %w1: tensor<4x512x256xbf16> {mxfp8run.std = 0.02 : f64},
    %w3: tensor<4x512x256xbf16> {mxfp8run.std = 0.02 : f64},
    %w2: tensor<4x256x512xbf16> {mxfp8run.std = 0.02 : f64},
    %dO: tensor<100x256xbf16> {mxfp8run.std = 1.0 : f64})
    -> (tensor<100x256xbf16> {mxfp8train.role = "output"},
        tensor<100x256xbf16> {mxfp8train.role = "input_grad"},
        tensor<4x512x256xbf16> {mxfp8train.role = "weight_grad"},
        tensor<4x512x256xbf16> {mxfp8train.role = "weight_grad"},
        tensor<4x256x512xbf16> {mxfp8train.role = "weight_grad"}) {
  // Token-group ends: expert sizes 37, 0, 32, 31.
  %offs = arith.constant dense<[37, 37, 69, 100]> : tensor<4xi32>

  // ---- forward ----------------------------------------------------------
  // h1 = x @ w1[g]^T, h3 = x @ w3[g]^T (weights stored (E, F, D): transpose_rhs)
  %h1 = mxfp8train.grouped_mm %x, %w1 offs(%offs) transpose_rhs
      : tensor<100x256xbf16>, tensor<4x512x256xbf16>, tensor<4xi32> -> tensor<100x512xbf16> loc("experts.w1.fwd")
  %h3 = mxfp8train.grouped_mm %x, %w3 offs(%offs) transpose_rhs
      : tensor<100x256xbf16>, tensor<4x512x256xbf16>, tensor<4xi32> -> tensor<100x512xbf16> loc("experts.w3.fwd")

  // a = silu(h1) * h3, silu(h) = h * sigmoid(h), in f32
  %a_e = tensor.empty() : tensor<100x512xbf16>
  %a = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h1, %h3 : tensor<100x512xbf16>, tensor<100x512xbf16>) outs(%a_e : tensor<100x512xbf16>) {
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
  } -> tensor<100x512xbf16>

  // out = a @ w2[g]^T (w2 stored (E, D, F): transpose_rhs)
  %out = mxfp8train.grouped_mm %a, %w2 offs(%offs) transpose_rhs
      : tensor<100x512xbf16>, tensor<4x256x512xbf16>, tensor<4xi32> -> tensor<100x256xbf16> loc("experts.w2.fwd")

  // ---- backward ---------------------------------------------------------
  // dA = dO @ w2[g] (2d-3d without transpose: dgrad)
  %dA = mxfp8train.grouped_mm %dO, %w2 offs(%offs)
      : tensor<100x256xbf16>, tensor<4x256x512xbf16>, tensor<4xi32> -> tensor<100x512xbf16> loc("experts.w2.dgrad")

  // dW2[g] = dO[group g]^T @ a[group g] (2d-2d: wgrad)
  %dw2 = mxfp8train.grouped_mm %dO, %a offs(%offs) transpose_lhs
      : tensor<100x256xbf16>, tensor<100x512xbf16>, tensor<4xi32> -> tensor<4x256x512xbf16> loc("experts.w2.wgrad")

  // dh3 = dA * silu(h1); dh1 = dA * h3 * silu'(h1),
  // silu'(h) = sigmoid(h) * (1 + h * (1 - sigmoid(h)))
  %dh_e = tensor.empty() : tensor<100x512xbf16>
  %dh1, %dh3 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%dA, %h1, %h3 : tensor<100x512xbf16>, tensor<100x512xbf16>, tensor<100x512xbf16>)
      outs(%dh_e, %dh_e : tensor<100x512xbf16>, tensor<100x512xbf16>) {
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
  } -> (tensor<100x512xbf16>, tensor<100x512xbf16>)

  // dX = dh1 @ w1[g] + dh3 @ w3[g] (each rounded to bf16, summed in f32)
  %dx1 = mxfp8train.grouped_mm %dh1, %w1 offs(%offs)
      : tensor<100x512xbf16>, tensor<4x512x256xbf16>, tensor<4xi32> -> tensor<100x256xbf16> loc("experts.w1.dgrad")
  %dx3 = mxfp8train.grouped_mm %dh3, %w3 offs(%offs)
      : tensor<100x512xbf16>, tensor<4x512x256xbf16>, tensor<4xi32> -> tensor<100x256xbf16> loc("experts.w3.dgrad")
  %dx_e = tensor.empty() : tensor<100x256xbf16>
  %dx = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%dx1, %dx3 : tensor<100x256xbf16>, tensor<100x256xbf16>) outs(%dx_e : tensor<100x256xbf16>) {
  ^bb0(%u: bf16, %v: bf16, %o: bf16):
    %uf = arith.extf %u : bf16 to f32
    %vf = arith.extf %v : bf16 to f32
    %s = arith.addf %uf, %vf : f32
    %t = arith.truncf %s : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<100x256xbf16>

  // dW1[g] = dh1[group g]^T @ x[group g], dW3[g] = dh3[group g]^T @ x[group g]
  %dw1 = mxfp8train.grouped_mm %dh1, %x offs(%offs) transpose_lhs
      : tensor<100x512xbf16>, tensor<100x256xbf16>, tensor<4xi32> -> tensor<4x512x256xbf16> loc("experts.w1.wgrad")
  %dw3 = mxfp8train.grouped_mm %dh3, %x offs(%offs) transpose_lhs
      : tensor<100x512xbf16>, tensor<100x256xbf16>, tensor<4xi32> -> tensor<4x512x256xbf16> loc("experts.w3.wgrad")

  return %out, %dx, %dw1, %dw3, %dw2
      : tensor<100x256xbf16>, tensor<100x256xbf16>, tensor<4x512x256xbf16>, tensor<4x512x256xbf16>, tensor<4x256x512xbf16>
}
