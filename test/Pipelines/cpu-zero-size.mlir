// Zero-size dimensions through the CPU pipeline and mxfp8-run (issue 14
// rows 1 and 6): the pipeline lowers every function (no tile size 0, no
// slice of a zero-size dimension); mxfp8-run runs them and returns empty
// tensors, exact values (a K = 0 matmul is its accumulator, a grouped GEMM
// with no groups or an empty contraction is zero) and, for a step with no
// tokens, exactly zero weight gradients, before and after the conversion.
//
// RUN: mxfp8-opt %s --mxfp8train-lower-to-cpu | FileCheck %s --check-prefix=LLVM
// RUN: mxfp8-opt %s --mxfp8train-lower-to-cpu=vectorize=false | FileCheck %s --check-prefix=LLVM
// LLVM-DAG: llvm.func @quantize_no_rows(
// LLVM-DAG: llvm.func @matmul_no_rows(
// LLVM-DAG: llvm.func @matmul_empty_contraction(
// LLVM-DAG: llvm.func @grouped_wgrad_no_columns(
// LLVM-DAG: llvm.func @grouped_fwd_empty_contraction(
// LLVM-DAG: llvm.func @grouped_fwd_no_groups(
// LLVM-DAG: llvm.func @pad_no_columns(
// LLVM-DAG: llvm.func @linear_step_no_tokens(
// LLVM-DAG: llvm.func @grouped_wgrad_no_tokens(
//
// RUN: mxfp8-run %s --device=cpu --entry=quantize_no_rows | FileCheck %s --check-prefix=QUANT
// QUANT:      0  q     -     0x64xf8E4M3FN  0        0        -
// QUANT-NEXT: 1  s     -     0x2xf8E8M0FNU  0        0        -
//
// RUN: mxfp8-run %s --device=cpu --entry=matmul_no_rows | FileCheck %s --check-prefix=NOROWS
// NOROWS: 0  r     -     0x32xbf16  0        0        -
//
// RUN: mxfp8-run %s --device=cpu --entry=matmul_empty_contraction | FileCheck %s --check-prefix=NOK
// RUN: mxfp8-run %s --device=cpu --entry=matmul_empty_contraction --pipeline=mxfp8train-rewrite-matmuls | FileCheck %s --check-prefix=NOK
// NOK: 0  r     -     16x32xbf16  22.6274  1        -
//
// RUN: mxfp8-run %s --device=cpu --entry=grouped_wgrad_no_columns | FileCheck %s --check-prefix=NOCOLS
// NOCOLS: 0  r     -     2x0x32xbf16  0        0        -
//
// RUN: mxfp8-run %s --device=cpu --entry=grouped_fwd_empty_contraction | FileCheck %s --check-prefix=GNOK
// GNOK: 0  r     -     64x16xbf16  0        0        -
//
// RUN: mxfp8-run %s --device=cpu --entry=grouped_fwd_no_groups | FileCheck %s --check-prefix=NOGROUPS
// RUN: mxfp8-run %s --device=cpu --entry=grouped_fwd_no_groups --pipeline=mxfp8train-rewrite-matmuls | FileCheck %s --check-prefix=NOGROUPS
// NOGROUPS: 0  r     -     64x16xbf16  0        0        -
//
// RUN: mxfp8-run %s --device=cpu --entry=pad_no_columns | FileCheck %s --check-prefix=PAD
// PAD:      0  p     -     128x0xbf16  0        0        -
// PAD-NEXT: 1  po    -     2xi32       101.193  96       -
//
// RUN: mxfp8-run %s --device=cpu --entry=linear_step_no_tokens | FileCheck %s --check-prefix=STEP
// RUN: mxfp8-run %s --device=cpu --entry=linear_step_no_tokens --pipeline=mxfp8train-rewrite-matmuls | FileCheck %s --check-prefix=STEP
// STEP:      0  y     output       0x32xbf16   0        0        -
// STEP-NEXT: 1  dx    input_grad   0x64xbf16   0        0        -
// STEP-NEXT: 2  dw    weight_grad  32x64xbf16  0        0        -
//
// RUN: mxfp8-run %s --device=cpu --entry=linear_step_no_tokens --compare | FileCheck %s --check-prefix=STEPCMP
// STEPCMP:      0  y     output       0x32xbf16   1      inf      0.000e+00    >= 27.00  PASS
// STEPCMP-NEXT: 1  dx    input_grad   0x64xbf16   1      inf      0.000e+00    >= 25.00  PASS
// STEPCMP-NEXT: 2  dw    weight_grad  32x64xbf16  1      inf      0.000e+00    >= 24.00  PASS
// STEPCMP:      bars: 6 passed, 0 failed
//
// RUN: mxfp8-run %s --device=cpu --entry=grouped_wgrad_no_tokens | FileCheck %s --check-prefix=GSTEP
// RUN: mxfp8-run %s --device=cpu --entry=grouped_wgrad_no_tokens --pipeline=mxfp8train-rewrite-matmuls | FileCheck %s --check-prefix=GSTEP
// GSTEP: 0  r     weight_grad  2x16x32xbf16  0        0        -
// RUN: mxfp8-run %s --device=cpu --entry=grouped_wgrad_no_tokens --compare | FileCheck %s --check-prefix=GSTEPCMP
// GSTEPCMP: bars: 2 passed, 0 failed

func.func @quantize_no_rows(%x: tensor<0x64xbf16>) -> (tensor<0x64xf8E4M3FN>, tensor<0x2xf8E8M0FNU>) {
  %q, %s = mxfp8train.quantize %x axis = 1 mode = rceil : tensor<0x64xbf16> -> tensor<0x64xf8E4M3FN>, tensor<0x2xf8E8M0FNU>
  return %q, %s : tensor<0x64xf8E4M3FN>, tensor<0x2xf8E8M0FNU>
}

func.func @matmul_no_rows(%a: tensor<0x64xbf16>, %b: tensor<64x32xbf16>) -> tensor<0x32xbf16> {
  %e = tensor.empty() : tensor<0x32xbf16>
  %c = arith.constant 0.0 : bf16
  %z = linalg.fill ins(%c : bf16) outs(%e : tensor<0x32xbf16>) -> tensor<0x32xbf16>
  %r = linalg.matmul ins(%a, %b : tensor<0x64xbf16>, tensor<64x32xbf16>) outs(%z : tensor<0x32xbf16>) -> tensor<0x32xbf16>
  return %r : tensor<0x32xbf16>
}

// K = 0: the result is the accumulator (all ones).
func.func @matmul_empty_contraction(%a: tensor<16x0xbf16>, %b: tensor<0x32xbf16>) -> tensor<16x32xbf16> {
  %e = tensor.empty() : tensor<16x32xbf16>
  %c = arith.constant 1.0 : bf16
  %z = linalg.fill ins(%c : bf16) outs(%e : tensor<16x32xbf16>) -> tensor<16x32xbf16>
  %r = linalg.matmul ins(%a, %b : tensor<16x0xbf16>, tensor<0x32xbf16>) outs(%z : tensor<16x32xbf16>) -> tensor<16x32xbf16>
  return %r : tensor<16x32xbf16>
}

func.func @grouped_wgrad_no_columns(%a: tensor<0x64xbf16>, %b: tensor<64x32xbf16>) -> tensor<2x0x32xbf16> {
  %offs = arith.constant dense<[32, 64]> : tensor<2xi32>
  %r = mxfp8train.grouped_mm %a, %b offs(%offs) : tensor<0x64xbf16>, tensor<64x32xbf16>, tensor<2xi32> -> tensor<2x0x32xbf16>
  return %r : tensor<2x0x32xbf16>
}

func.func @grouped_fwd_empty_contraction(%a: tensor<64x0xbf16>, %b: tensor<2x0x16xbf16>) -> tensor<64x16xbf16> {
  %offs = arith.constant dense<[32, 64]> : tensor<2xi32>
  %r = mxfp8train.grouped_mm %a, %b offs(%offs) : tensor<64x0xbf16>, tensor<2x0x16xbf16>, tensor<2xi32> -> tensor<64x16xbf16>
  return %r : tensor<64x16xbf16>
}

func.func @grouped_fwd_no_groups(%a: tensor<64x32xbf16>, %b: tensor<0x32x16xbf16>) -> tensor<64x16xbf16> {
  %offs = arith.constant dense<> : tensor<0xi32>
  %r = mxfp8train.grouped_mm %a, %b offs(%offs) : tensor<64x32xbf16>, tensor<0x32x16xbf16>, tensor<0xi32> -> tensor<64x16xbf16>
  return %r : tensor<64x16xbf16>
}

// Groups of 10 and 54 tokens pad to 32 and 64 rows: padded ends 32, 96.
func.func @pad_no_columns(%x: tensor<64x0xbf16>) -> (tensor<128x0xbf16>, tensor<2xi32>) {
  %offs = arith.constant dense<[10, 64]> : tensor<2xi32>
  %p, %po = mxfp8train.pad_token_groups %x offs(%offs) alignment = 32 : tensor<64x0xbf16>, tensor<2xi32> -> tensor<128x0xbf16>, tensor<2xi32>
  return %p, %po : tensor<128x0xbf16>, tensor<2xi32>
}

// One linear layer's training step with no tokens: empty activations and
// gradients, an exactly zero weight gradient.
func.func @linear_step_no_tokens(%x: tensor<0x64xbf16>, %w: tensor<32x64xbf16>, %dy: tensor<0x32xbf16>)
    -> (tensor<0x32xbf16> {mxfp8train.role = "output"}, tensor<0x64xbf16> {mxfp8train.role = "input_grad"}, tensor<32x64xbf16> {mxfp8train.role = "weight_grad"}) {
  %c = arith.constant 0.0 : bf16
  %e0 = tensor.empty() : tensor<0x32xbf16>
  %z0 = linalg.fill ins(%c : bf16) outs(%e0 : tensor<0x32xbf16>) -> tensor<0x32xbf16>
  %y = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<0x64xbf16>, tensor<32x64xbf16>) outs(%z0 : tensor<0x32xbf16>) -> tensor<0x32xbf16>
  %e1 = tensor.empty() : tensor<0x64xbf16>
  %z1 = linalg.fill ins(%c : bf16) outs(%e1 : tensor<0x64xbf16>) -> tensor<0x64xbf16>
  %dx = linalg.matmul ins(%dy, %w : tensor<0x32xbf16>, tensor<32x64xbf16>) outs(%z1 : tensor<0x64xbf16>) -> tensor<0x64xbf16>
  %e2 = tensor.empty() : tensor<32x64xbf16>
  %z2 = linalg.fill ins(%c : bf16) outs(%e2 : tensor<32x64xbf16>) -> tensor<32x64xbf16>
  %dw = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%dy, %x : tensor<0x32xbf16>, tensor<0x64xbf16>) outs(%z2 : tensor<32x64xbf16>) -> tensor<32x64xbf16>
  return %y, %dx, %dw : tensor<0x32xbf16>, tensor<0x64xbf16>, tensor<32x64xbf16>
}

// A grouped weight gradient with no tokens: every expert's gradient is
// exactly zero.
func.func @grouped_wgrad_no_tokens(%dy: tensor<0x16xbf16>, %x: tensor<0x32xbf16>)
    -> (tensor<2x16x32xbf16> {mxfp8train.role = "weight_grad"}) {
  %offs = arith.constant dense<[0, 0]> : tensor<2xi32>
  %r = mxfp8train.grouped_mm %dy, %x offs(%offs) transpose_lhs : tensor<0x16xbf16>, tensor<0x32xbf16>, tensor<2xi32> -> tensor<2x16x32xbf16>
  return %r : tensor<2x16x32xbf16>
}
