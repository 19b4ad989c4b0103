// Copies of strided views on the CPU (found by a new-user trial): a 2d-2d
// scaled_grouped_mm with one group and blocked_k_groups scales on both
// operands (N == K) bufferized into memref.copy of strided views, which
// lowered to a call of the memrefCopy runtime function and failed to JIT
// ("Symbols not found: [ memrefCopy ]"). mxfp8train-strided-copies makes
// them linalg.copy loops.
//
// RUN: mxfp8-opt %s --mxfp8train-lower-to-cpu | FileCheck %s --check-prefix=LLVM
// LLVM-NOT: memrefCopy
// LLVM: llvm.func @one_group_k_groups(
// LLVM-NOT: memrefCopy
//
// lhs (N = 64, 32 tokens), rhs stored (K = 64, 32 tokens); all elements 1.0
// and all scales 2^0: every output is the sum over the group's 32 tokens,
// 32 (L2 norm 32 * 64 = 2048).
// RUN: mxfp8-run %s --device=cpu | FileCheck %s --check-prefix=VALUES
// VALUES: 0  r  -  1x64x64xf32  2048  32  -

func.func @one_group_k_groups(%a: tensor<64x32xf8E4M3FN> {mxfp8run.values = dense<1.0> : tensor<64x32xf8E4M3FN>},
                              %as: tensor<640xf8E8M0FNU> {mxfp8run.values = dense<1.0> : tensor<640xf8E8M0FNU>},
                              %b: tensor<64x32xf8E4M3FN> {mxfp8run.values = dense<1.0> : tensor<64x32xf8E4M3FN>},
                              %bs: tensor<640xf8E8M0FNU> {mxfp8run.values = dense<1.0> : tensor<640xf8E8M0FNU>},
                              %offs: tensor<1xi32> {mxfp8run.values = dense<32> : tensor<1xi32>})
    -> (tensor<1x64x64xf32> {mxfp8run.name = "r"}) {
  %r = mxfp8train.scaled_grouped_mm %a [%as], %b [%bs] offs(%offs) transpose_rhs
      lhs_layout = blocked_k_groups rhs_layout = blocked_k_groups
      : tensor<64x32xf8E4M3FN> [tensor<640xf8E8M0FNU>], tensor<64x32xf8E4M3FN> [tensor<640xf8E8M0FNU>], tensor<1xi32> -> tensor<1x64x64xf32>
  return %r : tensor<1x64x64xf32>
}
