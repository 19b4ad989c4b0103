// REQUIRES: ptxas
// RUN: mxfp8-opt %s --mxfp8train-lower-to-gpu="format=isa" | %extract_ptx > %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx --check-prefixes=CHECK,SM90
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin > %t.log 2>&1
// RUN: FileCheck %s --input-file=%t.log --check-prefix=PTXAS90
// RUN: mxfp8-opt %s --mxfp8train-lower-to-gpu="chip=sm_100a format=isa" | %extract_ptx > %t100.ptx
// RUN: FileCheck %s --input-file=%t100.ptx --check-prefixes=CHECK,SM100
// RUN: %ptxas -arch=sm_100a -v %t100.ptx -o %t100.cubin > %t100.log 2>&1
// RUN: FileCheck %s --input-file=%t100.log --check-prefix=PTXAS100

// Weight gradients dO^T @ x whose out_features (M, the rows of the MN-major
// lhs) is not a multiple of 16 (torch._scaled_mm leaves M free): the fp8
// transpose pre-pass (Gemm/Float8Transpose.cpp) reads each 16-byte chunk
// of a source row in the widest pieces the row length allows: rows of 40
// bytes in two 8-byte loads, rows of 45 bytes in 16 byte loads; its stores
// stay 16 bytes wide (K-major rows of K bytes). On sm_90a the rhs
// (x stored (T, 128)) is transposed too; on sm_100a the tcgen05 kernel
// reads it MN-major in place (`k_mn`: only the unaligned lhs is
// transposed). ptxas assembles every kernel without spills.

// CHECK-LABEL: .entry gemm_f8_transpose_e4m3_b1_k256_r45(
// CHECK-COUNT-64: ld.global.nc.b8
// CHECK-NOT:      ld.global
// CHECK:          bar.sync 0;
// CHECK-COUNT-4:  st.global.v4.b32
// SM90-LABEL: .entry gemm_f8_transpose_e4m3_b1_k256_r128(
// SM90-COUNT-4: ld.global.nc.v4.b32
// SM90-LABEL: .entry scaled_mm_k_k_e4m3_e4m3_bf16_45x128x256_
// SM100-LABEL: .entry scaled_mm_tc05_k_mn_e4m3_e4m3_bf16_45x128x256_
// CHECK-LABEL: .entry gemm_f8_transpose_e5m2_b1_k256_r40(
// CHECK-COUNT-8:  ld.global.nc.v2.b32
// CHECK-NOT:      ld.global
// CHECK:          bar.sync 0;
// CHECK-COUNT-4:  st.global.v4.b32
// SM90-LABEL: .entry scaled_mm_k_k_e5m2_e4m3_f32_40x128x256_
// SM100-LABEL: .entry scaled_mm_tc05_k_mn_e5m2_e4m3_f32_40x128x256_

// PTXAS90-NOT: error
// PTXAS90-NOT: warning
// PTXAS90-COUNT-5: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS90-NOT: Compiling entry function
// PTXAS100-NOT: error
// PTXAS100-NOT: warning
// PTXAS100-COUNT-4: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS100-NOT: Compiling entry function

func.func @wgrad_rows_40(%g: tensor<256x40xf8E5M2>, %t: tensor<f32>, %x: tensor<256x128xf8E4M3FN>, %u: tensor<f32>) -> tensor<40x128xf32> {
  %y = mxfp8train.scaled_mm %g [%t], %x [%u] transpose_lhs {mxfp8train.role = "wgrad"}
      : tensor<256x40xf8E5M2> [tensor<f32>], tensor<256x128xf8E4M3FN> [tensor<f32>] -> tensor<40x128xf32>
  return %y : tensor<40x128xf32>
}

func.func @wgrad_rows_45(%g: tensor<256x45xf8E4M3FN>, %gs: tensor<1x45xf32>, %x: tensor<256x128xf8E4M3FN>, %xs: tensor<1x128xf32>) -> tensor<45x128xbf16> {
  %y = mxfp8train.scaled_mm %g [%gs], %x [%xs] transpose_lhs {mxfp8train.role = "wgrad"}
      : tensor<256x45xf8E4M3FN> [tensor<1x45xf32>], tensor<256x128xf8E4M3FN> [tensor<1x128xf32>] -> tensor<45x128xbf16>
  return %y : tensor<45x128xbf16>
}
