// REQUIRES: ptxas
// RUN: rm -rf %t.d
// RUN: mxfp8-opt %s --mxfp8train-rewrite-matmuls=recipe=float8_rowwise_with_gw_hp --mxfp8train-lower-to-gpu="format=isa" -o %t.mlir
// RUN: %extract_ptx --split %t.d %t.mlir
// RUN: ls %t.d | FileCheck %s
// RUN: %ptxas -arch=sm_90a %t.d/mxfp8train_kernels.ptx -o %t.0.cubin
// RUN: %ptxas -arch=sm_90a %t.d/linear_train_step_kernel.ptx -o %t.1.cubin

// A step whose lowering has several gpu modules (the mxfp8train kernels
// and upstream's outlined loops, here the bias gradient's reduction):
// extract-ptx.py --split writes each module's PTX to its own file, which
// ptxas takes (their concatenation, the default output, has one .version
// per module and does not assemble). The step: builders.linear_text(1, 32,
// 32) of the Python package.
// CHECK-DAG: linear_train_step_kernel.ptx
// CHECK-DAG: mxfp8train_kernels.ptx

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#mm_a = affine_map<(m, n, k) -> (m, k)>
#mm_b = affine_map<(m, n, k) -> (k, n)>
#mm_bt = affine_map<(m, n, k) -> (n, k)>
#mm_at = affine_map<(m, n, k) -> (k, m)>
#mm_c = affine_map<(m, n, k) -> (m, n)>

func.func @linear_train_step(
    %x: tensor<1x32xbf16> {mxfp8run.std = 1.0 : f64},
    %w: tensor<32x32xbf16> {mxfp8run.std = 0.02 : f64},
    %b: tensor<32xbf16> {mxfp8run.std = 0.02 : f64},
    %dY: tensor<1x32xbf16> {mxfp8run.std = 1.0 : f64})
    -> (tensor<1x32xbf16> {mxfp8train.role = "output"},
        tensor<1x32xbf16> {mxfp8train.role = "input_grad"},
        tensor<32x32xbf16> {mxfp8train.role = "weight_grad"},
        tensor<32xbf16> {mxfp8train.role = "weight_grad"}) {
  %zero = arith.constant 0.0 : f32

  %y_init = tensor.empty() : tensor<1x32xf32>
  %y_zero = linalg.fill ins(%zero : f32) outs(%y_init : tensor<1x32xf32>) -> tensor<1x32xf32>
  %y_acc = linalg.matmul indexing_maps = [#mm_a, #mm_bt, #mm_c]
      ins(%x, %w : tensor<1x32xbf16>, tensor<32x32xbf16>)
      outs(%y_zero : tensor<1x32xf32>) -> tensor<1x32xf32> loc("linear.fwd")
  %y_e = tensor.empty() : tensor<1x32xbf16>
  %y_mm = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y_acc : tensor<1x32xf32>) outs(%y_e : tensor<1x32xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %t = arith.truncf %v : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<1x32xbf16>

  %y_b = tensor.empty() : tensor<1x32xbf16>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y_mm, %b : tensor<1x32xbf16>, tensor<32xbf16>) outs(%y_b : tensor<1x32xbf16>) {
  ^bb0(%u: bf16, %c: bf16, %o: bf16):
    %uf = arith.extf %u : bf16 to f32
    %cf = arith.extf %c : bf16 to f32
    %s = arith.addf %uf, %cf : f32
    %t = arith.truncf %s : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<1x32xbf16> loc("linear.bias")

  %dx_init = tensor.empty() : tensor<1x32xf32>
  %dx_zero = linalg.fill ins(%zero : f32) outs(%dx_init : tensor<1x32xf32>) -> tensor<1x32xf32>
  %dx_acc = linalg.matmul ins(%dY, %w : tensor<1x32xbf16>, tensor<32x32xbf16>)
      outs(%dx_zero : tensor<1x32xf32>) -> tensor<1x32xf32> loc("linear.dgrad")
  %dx_e = tensor.empty() : tensor<1x32xbf16>
  %dx = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%dx_acc : tensor<1x32xf32>) outs(%dx_e : tensor<1x32xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %t = arith.truncf %v : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<1x32xbf16>

  %dw_init = tensor.empty() : tensor<32x32xf32>
  %dw_zero = linalg.fill ins(%zero : f32) outs(%dw_init : tensor<32x32xf32>) -> tensor<32x32xf32>
  %dw_acc = linalg.matmul indexing_maps = [#mm_at, #mm_b, #mm_c]
      ins(%dY, %x : tensor<1x32xbf16>, tensor<1x32xbf16>)
      outs(%dw_zero : tensor<32x32xf32>) -> tensor<32x32xf32> loc("linear.wgrad")
  %dw_e = tensor.empty() : tensor<32x32xbf16>
  %dw = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%dw_acc : tensor<32x32xf32>) outs(%dw_e : tensor<32x32xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %t = arith.truncf %v : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<32x32xbf16>

  %db_init = tensor.empty() : tensor<32xf32>
  %db_zero = linalg.fill ins(%zero : f32) outs(%db_init : tensor<32xf32>) -> tensor<32xf32>
  %db_acc = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["reduction", "parallel"]}
      ins(%dY : tensor<1x32xbf16>) outs(%db_zero : tensor<32xf32>) {
  ^bb0(%g: bf16, %acc: f32):
    %gf = arith.extf %g : bf16 to f32
    %s = arith.addf %acc, %gf : f32
    linalg.yield %s : f32
  } -> tensor<32xf32> loc("linear.bias.grad")
  %db_e = tensor.empty() : tensor<32xbf16>
  %db = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%db_acc : tensor<32xf32>) outs(%db_e : tensor<32xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %t = arith.truncf %v : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<32xbf16>

  return %y, %dx, %dw, %db : tensor<1x32xbf16>, tensor<1x32xbf16>, tensor<32x32xbf16>, tensor<32xbf16>
}
