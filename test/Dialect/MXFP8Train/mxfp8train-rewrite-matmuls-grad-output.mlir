// RUN: mxfp8-opt %s -split-input-file --mxfp8train-rewrite-matmuls="recipe=float8_tensorwise remarks=true" 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: mxfp8-opt %s -split-input-file --mxfp8train-rewrite-matmuls="recipe=float8_tensorwise" | mxfp8-opt -split-input-file | FileCheck %s --check-prefix=TW
// RUN: mxfp8-opt %s -split-input-file --mxfp8train-rewrite-matmuls="recipe=float8_rowwise_with_gw_hp remarks=true" 2>&1 | FileCheck %s --check-prefix=GWHP
// RUN: mxfp8-opt %s -split-input-file --mxfp8train-rewrite-matmuls="recipe=mxfp8_emulated_rceil remarks=true" 2>&1 | FileCheck %s --check-prefix=EMU

// Which operand of a backward GEMM is torchao's grad_output (cast to e5m2
// under float8_tensorwise, SPEC-float8 §4.2). A weight stored (in, out) gives
// `y = x @ W`, `dX = dO @ Wᵀ`, `dW = xᵀ @ dO`: grad_output is the wgrad's
// rhs. With the forward and dgrad roles given, the wgrad's operands follow
// from them; `mxfp8train.grad_output` says it directly.

// REMARK: remark: mxfp8train: converted (role forward from mxfp8train.role, lhs quantized along axis 1 (f8E4M3FN, tensorwise), rhs along axis 0 (f8E4M3FN, tensorwise), recipe float8_tensorwise)
// REMARK: remark: mxfp8train: converted (role dgrad from mxfp8train.role, lhs quantized along axis 1 (f8E5M2, tensorwise), rhs via linalg.transpose along axis 1 (f8E4M3FN, tensorwise), recipe float8_tensorwise)
// REMARK: remark: mxfp8train: converted (role wgrad, grad_output rhs from the roles of the matmuls reading its operands, lhs via linalg.transpose quantized along axis 0 (f8E4M3FN, tensorwise), rhs along axis 0 (f8E5M2, tensorwise), recipe float8_tensorwise)

// TW-LABEL: func.func @in_out_weight_roles_given(
// TW-SAME:    %[[X:[^:]*]]: tensor<64x128xbf16>, %[[W:[^:]*]]: tensor<128x256xbf16>, %[[GO:[^:]*]]: tensor<64x256xbf16>
// TW:         %[[XQ:.*]], %[[XS:.*]] = mxfp8train.quantize %[[X]] granularity = tensorwise : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<f32>
// TW:         %[[WQ:.*]], %[[WS:.*]] = mxfp8train.quantize %[[W]] granularity = tensorwise : tensor<128x256xbf16> -> tensor<128x256xf8E4M3FN>, tensor<f32>
// TW:         mxfp8train.scaled_mm %[[XQ]][%[[XS]]], %[[WQ]][%[[WS]]] {mxfp8train.role = "forward"
// TW:         %[[GQ:.*]], %[[GS:.*]] = mxfp8train.quantize %[[GO]] granularity = tensorwise : tensor<64x256xbf16> -> tensor<64x256xf8E5M2>, tensor<f32>
// TW:         mxfp8train.scaled_mm %[[GQ]][%[[GS]]], %[[WQ]][%[[WS]]] transpose_rhs {mxfp8train.role = "dgrad"
// TW-NOT:     mxfp8train.quantize
// TW:         mxfp8train.scaled_mm %[[XQ]][%[[XS]]], %[[GQ]][%[[GS]]] transpose_lhs {mxfp8train.grad_output = "rhs", mxfp8train.role = "wgrad", mxfp8train.use_fast_accum = false} : tensor<64x128xf8E4M3FN>[tensor<f32>], tensor<64x256xf8E5M2>[tensor<f32>] -> tensor<128x256xf32>

// GWHP: remark: mxfp8train: converted (role forward from mxfp8train.role,
// GWHP: remark: mxfp8train: converted (role dgrad from mxfp8train.role, lhs quantized along axis 1 (f8E4M3FN, axiswise, pow2), rhs via linalg.transpose along axis 1 (f8E4M3FN, tensorwise, pow2), recipe float8_rowwise_with_gw_hp)
// GWHP: remark: mxfp8train: kept in high precision (role wgrad, recipe float8_rowwise_with_gw_hp keeps grad_weight in high precision)
func.func @in_out_weight_roles_given(%x: tensor<64x128xbf16>, %w: tensor<128x256xbf16>, %go: tensor<64x256xbf16>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<128x256xf32>) {
  %zero = arith.constant 0.0 : bf16
  %zf = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<64x256xbf16>
  %i0 = linalg.fill ins(%zero : bf16) outs(%e0 : tensor<64x256xbf16>) -> tensor<64x256xbf16>
  %y = linalg.matmul {mxfp8train.role = "forward"} ins(%x, %w : tensor<64x128xbf16>, tensor<128x256xbf16>) outs(%i0 : tensor<64x256xbf16>) -> tensor<64x256xbf16>
  %et = tensor.empty() : tensor<256x128xbf16>
  %wt = linalg.transpose ins(%w : tensor<128x256xbf16>) outs(%et : tensor<256x128xbf16>) permutation = [1, 0]
  %e1 = tensor.empty() : tensor<64x128xbf16>
  %i1 = linalg.fill ins(%zero : bf16) outs(%e1 : tensor<64x128xbf16>) -> tensor<64x128xbf16>
  %dx = linalg.matmul {mxfp8train.role = "dgrad"} ins(%go, %wt : tensor<64x256xbf16>, tensor<256x128xbf16>) outs(%i1 : tensor<64x128xbf16>) -> tensor<64x128xbf16>
  %ext = tensor.empty() : tensor<128x64xbf16>
  %xt = linalg.transpose ins(%x : tensor<64x128xbf16>) outs(%ext : tensor<128x64xbf16>) permutation = [1, 0]
  %e2 = tensor.empty() : tensor<128x256xf32>
  %i2 = linalg.fill ins(%zf : f32) outs(%e2 : tensor<128x256xf32>) -> tensor<128x256xf32>
  %dw = linalg.matmul ins(%xt, %go : tensor<128x64xbf16>, tensor<64x256xbf16>) outs(%i2 : tensor<128x256xf32>) -> tensor<128x256xf32>
  return %y, %dx, %dw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<128x256xf32>
}

// -----

// The attribute alone, in a graph with no other matmul to infer from; and
// "lhs" on a wgrad whose graph would say the other way round keeps torchao's
// order.

// REMARK: remark: mxfp8train: converted (role wgrad, grad_output rhs from mxfp8train.grad_output, lhs via linalg.transpose quantized along axis 0 (f8E4M3FN, tensorwise), rhs along axis 0 (f8E5M2, tensorwise), recipe float8_tensorwise)
// REMARK: remark: mxfp8train: converted (role wgrad, grad_output lhs from mxfp8train.grad_output, lhs via linalg.transpose quantized along axis 0 (f8E5M2, tensorwise), rhs along axis 0 (f8E4M3FN, tensorwise), recipe float8_tensorwise)

// TW-LABEL: func.func @attribute_only(
// TW:         mxfp8train.scaled_mm {{.*}} : tensor<64x128xf8E4M3FN>[tensor<f32>], tensor<64x256xf8E5M2>[tensor<f32>] -> tensor<128x256xf32>
// TW:         mxfp8train.scaled_mm {{.*}} : tensor<64x128xf8E5M2>[tensor<f32>], tensor<64x256xf8E4M3FN>[tensor<f32>] -> tensor<128x256xf32>
func.func @attribute_only(%x: tensor<64x128xbf16>, %go: tensor<64x256xbf16>, %x2: tensor<64x128xbf16>, %go2: tensor<64x256xbf16>) -> (tensor<128x256xf32>, tensor<128x256xf32>) {
  %zf = arith.constant 0.0 : f32
  %ext = tensor.empty() : tensor<128x64xbf16>
  %xt = linalg.transpose ins(%x : tensor<64x128xbf16>) outs(%ext : tensor<128x64xbf16>) permutation = [1, 0]
  %e2 = tensor.empty() : tensor<128x256xf32>
  %i2 = linalg.fill ins(%zf : f32) outs(%e2 : tensor<128x256xf32>) -> tensor<128x256xf32>
  %dw = linalg.matmul {mxfp8train.grad_output = "rhs"} ins(%xt, %go : tensor<128x64xbf16>, tensor<64x256xbf16>) outs(%i2 : tensor<128x256xf32>) -> tensor<128x256xf32>
  %xt2 = linalg.transpose ins(%x2 : tensor<64x128xbf16>) outs(%ext : tensor<128x64xbf16>) permutation = [1, 0]
  %dw2 = linalg.matmul {mxfp8train.grad_output = "lhs"} ins(%xt2, %go2 : tensor<128x64xbf16>, tensor<64x256xbf16>) outs(%i2 : tensor<128x256xf32>) -> tensor<128x256xf32>
  return %dw, %dw2 : tensor<128x256xf32>, tensor<128x256xf32>
}

// -----

// PyTorch's (out, in) weight: the graph agrees with torchao's operand order,
// so nothing changes (no grad_output in the remark).

// REMARK: remark: mxfp8train: converted (role forward, lhs quantized along axis 1 (f8E4M3FN, tensorwise), rhs via linalg.transpose along axis 1 (f8E4M3FN, tensorwise), recipe float8_tensorwise)
// REMARK: remark: mxfp8train: converted (role dgrad, lhs quantized along axis 1 (f8E5M2, tensorwise), rhs along axis 0 (f8E4M3FN, tensorwise), recipe float8_tensorwise)
// REMARK: remark: mxfp8train: converted (role wgrad, lhs via linalg.transpose quantized along axis 0 (f8E5M2, tensorwise), rhs along axis 0 (f8E4M3FN, tensorwise), recipe float8_tensorwise)
func.func @out_in_weight(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %go: tensor<64x256xbf16>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xf32>) {
  %zero = arith.constant 0.0 : bf16
  %zf = arith.constant 0.0 : f32
  %et = tensor.empty() : tensor<128x256xbf16>
  %wt = linalg.transpose ins(%w : tensor<256x128xbf16>) outs(%et : tensor<128x256xbf16>) permutation = [1, 0]
  %e0 = tensor.empty() : tensor<64x256xbf16>
  %i0 = linalg.fill ins(%zero : bf16) outs(%e0 : tensor<64x256xbf16>) -> tensor<64x256xbf16>
  %y = linalg.matmul ins(%x, %wt : tensor<64x128xbf16>, tensor<128x256xbf16>) outs(%i0 : tensor<64x256xbf16>) -> tensor<64x256xbf16>
  %e1 = tensor.empty() : tensor<64x128xbf16>
  %i1 = linalg.fill ins(%zero : bf16) outs(%e1 : tensor<64x128xbf16>) -> tensor<64x128xbf16>
  %dx = linalg.matmul ins(%go, %w : tensor<64x256xbf16>, tensor<256x128xbf16>) outs(%i1 : tensor<64x128xbf16>) -> tensor<64x128xbf16>
  %egt = tensor.empty() : tensor<256x64xbf16>
  %got = linalg.transpose ins(%go : tensor<64x256xbf16>) outs(%egt : tensor<256x64xbf16>) permutation = [1, 0]
  %e2 = tensor.empty() : tensor<256x128xf32>
  %i2 = linalg.fill ins(%zf : f32) outs(%e2 : tensor<256x128xf32>) -> tensor<256x128xf32>
  %dw = linalg.matmul ins(%got, %x : tensor<256x64xbf16>, tensor<64x128xbf16>) outs(%i2 : tensor<256x128xf32>) -> tensor<256x128xf32>
  return %y, %dx, %dw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<256x128xf32>
}

// -----

// 3-D activations: the forward and dgrad are batch_matmuls on the broadcast
// (in, out) weight, the wgrad reads tensor.collapse_shape views of x and dO
// (as AOTAutograd writes it). The views are looked through.

// REMARK: remark: mxfp8train: converted (role forward from mxfp8train.role, lhs quantized along axis 2 (f8E4M3FN, tensorwise), rhs along axis 0 (f8E4M3FN, tensorwise), batch of 2 folded into M (rhs broadcast over it, quantized once), recipe float8_tensorwise)
// REMARK: remark: mxfp8train: converted (role dgrad from mxfp8train.role, lhs quantized along axis 2 (f8E5M2, tensorwise), rhs along axis 1 (f8E4M3FN, tensorwise), batch of 2 folded into M (rhs broadcast over it, quantized once), recipe float8_tensorwise)
// REMARK: remark: mxfp8train: converted (role wgrad, grad_output rhs from the roles of the matmuls reading its operands, lhs quantized along axis 0 (f8E4M3FN, tensorwise), rhs along axis 0 (f8E5M2, tensorwise), recipe float8_tensorwise)
func.func @in_out_weight_3d(%x: tensor<2x16x64xbf16>, %w: tensor<64x48xbf16>, %dO: tensor<2x16x48xbf16>) -> (tensor<2x16x48xf32>, tensor<2x16x64xf32>, tensor<64x48xf32>) {
  %z = arith.constant 0.0 : f32
  %wb_e = tensor.empty() : tensor<2x64x48xbf16>
  %wb = linalg.broadcast ins(%w : tensor<64x48xbf16>) outs(%wb_e : tensor<2x64x48xbf16>) dimensions = [0]
  %e1 = tensor.empty() : tensor<2x16x48xf32>
  %f1 = linalg.fill ins(%z : f32) outs(%e1 : tensor<2x16x48xf32>) -> tensor<2x16x48xf32>
  %y = linalg.batch_matmul {mxfp8train.role = "forward"} ins(%x, %wb : tensor<2x16x64xbf16>, tensor<2x64x48xbf16>) outs(%f1 : tensor<2x16x48xf32>) -> tensor<2x16x48xf32>
  %e2 = tensor.empty() : tensor<2x16x64xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<2x16x64xf32>) -> tensor<2x16x64xf32>
  %dx = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>] {mxfp8train.role = "dgrad"} ins(%dO, %wb : tensor<2x16x48xbf16>, tensor<2x64x48xbf16>) outs(%f2 : tensor<2x16x64xf32>) -> tensor<2x16x64xf32>
  %x2 = tensor.collapse_shape %x [[0, 1], [2]] : tensor<2x16x64xbf16> into tensor<32x64xbf16>
  %d2 = tensor.collapse_shape %dO [[0, 1], [2]] : tensor<2x16x48xbf16> into tensor<32x48xbf16>
  %e3 = tensor.empty() : tensor<64x48xf32>
  %f3 = linalg.fill ins(%z : f32) outs(%e3 : tensor<64x48xf32>) -> tensor<64x48xf32>
  %dw = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>] ins(%x2, %d2 : tensor<32x64xbf16>, tensor<32x48xbf16>) outs(%f3 : tensor<64x48xf32>) -> tensor<64x48xf32>
  return %y, %dx, %dw : tensor<2x16x48xf32>, tensor<2x16x64xf32>, tensor<64x48xf32>
}

// -----

// Under an EMULATED recipe the GEMMs converted before the wgrad read
// dequantized data (which the analysis skips): their recorded roles count,
// so the inference does not depend on the order of the GEMMs.
// EMU: remark: mxfp8train: converted to emulated MX (role forward from mxfp8train.role,
// EMU: remark: mxfp8train: converted to emulated MX (role dgrad from mxfp8train.role,
// EMU: remark: mxfp8train: converted to emulated MX (role wgrad, grad_output rhs from the roles of the matmuls reading its operands,
func.func @emulated_wgrad_last(%x: tensor<64x128xbf16>, %w: tensor<128x256xbf16>, %go: tensor<64x256xbf16>) -> (tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<128x256xf32>) {
  %zero = arith.constant 0.0 : bf16
  %zf = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<64x256xbf16>
  %i0 = linalg.fill ins(%zero : bf16) outs(%e0 : tensor<64x256xbf16>) -> tensor<64x256xbf16>
  %y = linalg.matmul {mxfp8train.role = "forward"} ins(%x, %w : tensor<64x128xbf16>, tensor<128x256xbf16>) outs(%i0 : tensor<64x256xbf16>) -> tensor<64x256xbf16>
  %et = tensor.empty() : tensor<256x128xbf16>
  %wt = linalg.transpose ins(%w : tensor<128x256xbf16>) outs(%et : tensor<256x128xbf16>) permutation = [1, 0]
  %e1 = tensor.empty() : tensor<64x128xbf16>
  %i1 = linalg.fill ins(%zero : bf16) outs(%e1 : tensor<64x128xbf16>) -> tensor<64x128xbf16>
  %dx = linalg.matmul {mxfp8train.role = "dgrad"} ins(%go, %wt : tensor<64x256xbf16>, tensor<256x128xbf16>) outs(%i1 : tensor<64x128xbf16>) -> tensor<64x128xbf16>
  %ext = tensor.empty() : tensor<128x64xbf16>
  %xt = linalg.transpose ins(%x : tensor<64x128xbf16>) outs(%ext : tensor<128x64xbf16>) permutation = [1, 0]
  %e2 = tensor.empty() : tensor<128x256xf32>
  %i2 = linalg.fill ins(%zf : f32) outs(%e2 : tensor<128x256xf32>) -> tensor<128x256xf32>
  %dw = linalg.matmul ins(%xt, %go : tensor<128x64xbf16>, tensor<64x256xbf16>) outs(%i2 : tensor<128x256xf32>) -> tensor<128x256xf32>
  return %y, %dx, %dw : tensor<64x256xbf16>, tensor<64x128xbf16>, tensor<128x256xf32>
}
