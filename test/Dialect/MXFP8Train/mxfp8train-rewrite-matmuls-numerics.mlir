// RUN: mxfp8-run %s --compare --recipe=mxfp8_rceil --check-bars | FileCheck %s --check-prefixes=AUTO,MX,ALL
// RUN: mxfp8-run %s --compare --recipe=mxfp8_emulated_rceil --check-bars | FileCheck %s --check-prefixes=MX,ALL
// RUN: mxfp8-run %s --compare --recipe=mxfp8_rceil_wgrad_with_hp --check-bars | FileCheck %s --check-prefixes=HP,ALL

// End-to-end numerics of the rewrite: the module as written (bf16 operands,
// f32 accumulation) and the module after mxfp8train-rewrite-matmuls run on
// the CPU on the same seeded normal(0, 1) inputs; mxfp8-run reports the SQNR
// of each converted result against the high-precision one. Every GEMM form
// must meet torchao's bars (SPEC §0 fact 14: forward >= 27 dB, dX >= 25 dB,
// dW >= 24 dB); here every result is held to 27 dB (mxfp8run.min_sqnr). An
// operand quantized along the wrong axis, or a lost transpose, gives about
// 0 dB. With wgrad_with_hp the wgrad matmuls are untouched, so those results
// are bit-identical (SQNR inf) while the others still convert.

// ALL:      matmuls: 7 before
// AUTO-SAME: 0 kept in high precision
// HP-SAME:  2 kept in high precision
// ALL:      results
// ALL:      out_maps {{.*}} [[#]].{{[0-9]+}} {{.*}} >= 27.00 {{.*}}PASS
// ALL:      out_transpose {{.*}} [[#]].{{[0-9]+}} {{.*}} >= 27.00 {{.*}}PASS
// ALL:      out_bias {{.*}} [[#]].{{[0-9]+}} {{.*}} >= 27.00 {{.*}}PASS
// ALL:      out_batched {{.*}} [[#]].{{[0-9]+}} {{.*}} >= 27.00 {{.*}}PASS
// ALL:      dx {{.*}} [[#]].{{[0-9]+}} {{.*}} >= 27.00 {{.*}}PASS
// MX:       dw_maps {{.*}} [[#]].{{[0-9]+}} {{.*}} >= 27.00 {{.*}}PASS
// MX:       dw_acc {{.*}} [[#]].{{[0-9]+}} {{.*}} >= 27.00 {{.*}}PASS
// HP:       dw_maps {{.*}} inf {{.*}}PASS
// HP:       dw_acc {{.*}} inf {{.*}}PASS
// ALL:      bars: {{[0-9]+}} passed, 0 failed

#mk = affine_map<(m, n, k) -> (m, k)>
#nk = affine_map<(m, n, k) -> (n, k)>
#km = affine_map<(m, n, k) -> (k, m)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(a, b) -> (a, b)>

func.func @linear_gemm_forms(%x: tensor<64x256xbf16>, %w: tensor<128x256xbf16>,
                             %go: tensor<64x128xbf16>, %acc: tensor<128x256xf32>,
                             %bias: tensor<128xf32>, %xb: tensor<2x64x256xbf16>,
                             %wb: tensor<2x128x256xbf16>)
    -> (tensor<64x128xf32> {mxfp8train.role = "output", mxfp8run.min_sqnr = 27.0},
        tensor<64x128xbf16> {mxfp8train.role = "output", mxfp8run.min_sqnr = 27.0},
        tensor<64x128xf32> {mxfp8train.role = "output", mxfp8run.min_sqnr = 27.0},
        tensor<2x64x128xf32> {mxfp8train.role = "output", mxfp8run.min_sqnr = 27.0},
        tensor<64x256xf32> {mxfp8train.role = "input_grad", mxfp8run.min_sqnr = 27.0},
        tensor<128x256xf32> {mxfp8train.role = "weight_grad", mxfp8run.min_sqnr = 27.0},
        tensor<128x256xf32> {mxfp8train.role = "weight_grad", mxfp8run.min_sqnr = 27.0}) {
  %c0 = arith.constant 0.0 : f32
  // Forward through indexing maps: x @ Wᵀ.
  %e0 = tensor.empty() : tensor<64x128xf32>
  %z0 = linalg.fill ins(%c0 : f32) outs(%e0 : tensor<64x128xf32>) -> tensor<64x128xf32>
  %out_maps = linalg.matmul indexing_maps = [#mk, #nk, #mn]
      ins(%x, %w : tensor<64x256xbf16>, tensor<128x256xbf16>)
      outs(%z0 : tensor<64x128xf32>) -> tensor<64x128xf32>
  // Forward through linalg.transpose, f32 accumulation truncated to bf16.
  %et = tensor.empty() : tensor<256x128xbf16>
  %wt = linalg.transpose ins(%w : tensor<128x256xbf16>) outs(%et : tensor<256x128xbf16>) permutation = [1, 0]
  %t32 = linalg.matmul ins(%x, %wt : tensor<64x256xbf16>, tensor<256x128xbf16>)
      outs(%z0 : tensor<64x128xf32>) -> tensor<64x128xf32>
  %e1 = tensor.empty() : tensor<64x128xbf16>
  %out_transpose = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t32 : tensor<64x128xf32>) outs(%e1 : tensor<64x128xbf16>) {
  ^bb0(%a: f32, %b: bf16):
    %t = arith.truncf %a : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<64x128xbf16>
  // Forward with a bias broadcast into the init (becomes the scaled_mm bias).
  %bb = linalg.broadcast ins(%bias : tensor<128xf32>) outs(%e0 : tensor<64x128xf32>) dimensions = [0]
  %out_bias = linalg.matmul indexing_maps = [#mk, #nk, #mn]
      ins(%x, %w : tensor<64x256xbf16>, tensor<128x256xbf16>)
      outs(%bb : tensor<64x128xf32>) -> tensor<64x128xf32>
  // Batched forward with the weight read transposed through the maps.
  %eb = tensor.empty() : tensor<2x64x128xf32>
  %zb = linalg.fill ins(%c0 : f32) outs(%eb : tensor<2x64x128xf32>) -> tensor<2x64x128xf32>
  %out_batched = linalg.batch_matmul
      indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>,
                       affine_map<(b, m, n, k) -> (b, n, k)>,
                       affine_map<(b, m, n, k) -> (b, m, n)>]
      ins(%xb, %wb : tensor<2x64x256xbf16>, tensor<2x128x256xbf16>)
      outs(%zb : tensor<2x64x128xf32>) -> tensor<2x64x128xf32>
  // dgrad: dO @ W.
  %e2 = tensor.empty() : tensor<64x256xf32>
  %z2 = linalg.fill ins(%c0 : f32) outs(%e2 : tensor<64x256xf32>) -> tensor<64x256xf32>
  %dx = linalg.matmul ins(%go, %w : tensor<64x128xbf16>, tensor<128x256xbf16>)
      outs(%z2 : tensor<64x256xf32>) -> tensor<64x256xf32>
  // wgrad through maps: dOᵀ @ x.
  %e3 = tensor.empty() : tensor<128x256xf32>
  %z3 = linalg.fill ins(%c0 : f32) outs(%e3 : tensor<128x256xf32>) -> tensor<128x256xf32>
  %dw_maps = linalg.matmul indexing_maps = [#km, #kn, #mn]
      ins(%go, %x : tensor<64x128xbf16>, tensor<64x256xbf16>)
      outs(%z3 : tensor<128x256xf32>) -> tensor<128x256xf32>
  // wgrad through linalg.transpose, accumulated into an existing gradient.
  %eg = tensor.empty() : tensor<128x64xbf16>
  %got = linalg.transpose ins(%go : tensor<64x128xbf16>) outs(%eg : tensor<128x64xbf16>) permutation = [1, 0]
  %dw_acc = linalg.matmul ins(%got, %x : tensor<128x64xbf16>, tensor<64x256xbf16>)
      outs(%acc : tensor<128x256xf32>) -> tensor<128x256xf32>
  return %out_maps, %out_transpose, %out_bias, %out_batched, %dx, %dw_maps, %dw_acc
      : tensor<64x128xf32>, tensor<64x128xbf16>, tensor<64x128xf32>, tensor<2x64x128xf32>,
        tensor<64x256xf32>, tensor<128x256xf32>, tensor<128x256xf32>
}
