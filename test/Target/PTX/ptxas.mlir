// REQUIRES: ptxas
// RUN: mxfp8-opt %s --mxfp8train-lower-to-gpu="format=isa" | %extract_ptx > %t.sm90a.ptx
// RUN: %ptxas -arch=sm_90a -v %t.sm90a.ptx -o %t.sm90a.cubin > %t.sm90a.log 2>&1
// RUN: FileCheck %s --input-file=%t.sm90a.log
// RUN: FileCheck %s --input-file=%t.sm90a.log --check-prefix=SPILL
// RUN: mxfp8-opt %s --mxfp8train-lower-to-gpu="chip=sm_100a format=isa" | %extract_ptx > %t.sm100a.ptx
// RUN: %ptxas -arch=sm_100a -v %t.sm100a.ptx -o %t.sm100a.cubin > %t.sm100a.log 2>&1
// RUN: FileCheck %s --input-file=%t.sm100a.log
// RUN: FileCheck %s --input-file=%t.sm100a.log --check-prefix=SPILL
// RUN: mxfp8-opt %s --mxfp8train-lower-to-gpu="format=bin toolkit=%cuda_home" | FileCheck %s --check-prefix=BIN

// ptxas of the CUDA toolkit assembles every kernel of the lowering for
// Hopper and Blackwell without register spills (Blackwell is checked only
// this way: no B200 here). gpu-module-to-binary embeds the sm_90a cubin.

// CHECK-NOT: error
// CHECK-NOT: warning
// CHECK-DAG: Compiling entry function 'quantize_1x32_bf16_e4m3_rceil_rowmajor_1024x1024'
// CHECK-DAG: Compiling entry function 'quantize_32x1_bf16_e4m3_floor_blocked_1024x1024'
// CHECK-DAG: Compiling entry function 'quantize_dual_bf16_e4m3_e4m3_rceil_rowmajor_rowmajor_512x1024'
// CHECK-DAG: Compiling entry function 'quantize_dual_f32_e5m2_e5m2_even_blocked_blocked_256x512'
// CHECK-DAG: Compiling entry function 'quantize_32x1_f32_e4m3_ceil_rowmajor_256x512'
// CHECK-DAG: Compiling entry function 'quantize_1x32_f32_e5m2_rceil_rowmajor_256x512'
// CHECK-DAG: Compiling entry function 'dequantize_1x32_e4m3_bf16_rowmajor_1024x1024'
// CHECK-DAG: Compiling entry function 'dequantize_32x1_e5m2_f32_blocked_256x512'
// CHECK-DAG: Compiling entry function 'pad_token_groups_bf16_a32_1000x512_to_1280x512_g8'
// CHECK-DAG: Compiling entry function 'unpad_token_groups_bf16_a32_1280x512_to_1000x512_g8'
// CHECK-DAG: Compiling entry function 'to_blocked_1024x32'
// CHECK-DAG: Compiling entry function 'to_blocked_m_groups_1024x32_g8'
// CHECK-DAG: Compiling entry function 'to_blocked_k_groups_1024x32_g8'
// SPILL-NOT: {{[1-9][0-9]*}} bytes spill
// SPILL-COUNT-13: 0 bytes spill stores, 0 bytes spill loads
// SPILL-NOT: {{[1-9][0-9]*}} bytes spill

// BIN: gpu.binary @mxfp8train_kernels  [#gpu.object<#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">, properties = {{.*}}, bin = "\7FELF

func.func @all(%x: tensor<1024x1024xbf16>, %y: tensor<512x1024xbf16>,
               %f: tensor<256x512xf32>, %q: tensor<1024x1024xf8E4M3FN>,
               %s: tensor<1024x32xf8E8M0FNU>, %q5: tensor<256x512xf8E5M2>,
               %s5: tensor<4096xf8E8M0FNU>, %t: tensor<1000x512xbf16>,
               %offs: tensor<8xi32>)
    -> (tensor<1024x1024xf8E4M3FN>, tensor<1024x32xf8E8M0FNU>,
        tensor<1024x1024xf8E4M3FN>, tensor<32768xf8E8M0FNU>,
        tensor<512x1024xf8E4M3FN>, tensor<512x32xf8E8M0FNU>,
        tensor<512x1024xf8E4M3FN>, tensor<16x1024xf8E8M0FNU>,
        tensor<256x512xf8E5M2>, tensor<4096xf8E8M0FNU>,
        tensor<256x512xf8E5M2>, tensor<4096xf8E8M0FNU>,
        tensor<256x512xf8E4M3FN>, tensor<8x512xf8E8M0FNU>,
        tensor<256x512xf8E5M2>, tensor<256x16xf8E8M0FNU>,
        tensor<1024x1024xbf16>, tensor<256x512xf32>,
        tensor<1280x512xbf16>, tensor<8xi32>, tensor<1000x512xbf16>,
        tensor<32768xf8E8M0FNU>, tensor<65536xf8E8M0FNU>,
        tensor<65536xf8E8M0FNU>) {
  %a, %b = mxfp8train.quantize %x axis = 1 mode = rceil
      : tensor<1024x1024xbf16> -> tensor<1024x1024xf8E4M3FN>, tensor<1024x32xf8E8M0FNU>
  %c, %d = mxfp8train.quantize %x axis = 0 mode = floor layout = blocked
      : tensor<1024x1024xbf16> -> tensor<1024x1024xf8E4M3FN>, tensor<32768xf8E8M0FNU>
  %e, %f1, %g, %h = mxfp8train.quantize_dual %y mode = rceil
      : tensor<512x1024xbf16> -> tensor<512x1024xf8E4M3FN>, tensor<512x32xf8E8M0FNU>,
                                 tensor<512x1024xf8E4M3FN>, tensor<16x1024xf8E8M0FNU>
  %i, %j, %k, %l = mxfp8train.quantize_dual %f mode = even
      rowwise_layout = blocked colwise_layout = blocked
      : tensor<256x512xf32> -> tensor<256x512xf8E5M2>, tensor<4096xf8E8M0FNU>,
                               tensor<256x512xf8E5M2>, tensor<4096xf8E8M0FNU>
  %m, %n = mxfp8train.quantize %f axis = 0 mode = ceil
      : tensor<256x512xf32> -> tensor<256x512xf8E4M3FN>, tensor<8x512xf8E8M0FNU>
  %o, %p = mxfp8train.quantize %f axis = 1 mode = rceil
      : tensor<256x512xf32> -> tensor<256x512xf8E5M2>, tensor<256x16xf8E8M0FNU>
  %r = mxfp8train.dequantize %q [%s] axis = 1
      : tensor<1024x1024xf8E4M3FN> [tensor<1024x32xf8E8M0FNU>] -> tensor<1024x1024xbf16>
  %u = mxfp8train.dequantize %q5 [%s5] axis = 0 layout = blocked
      : tensor<256x512xf8E5M2> [tensor<4096xf8E8M0FNU>] -> tensor<256x512xf32>
  %tp, %po = mxfp8train.pad_token_groups %t offs(%offs) alignment = 32
      : tensor<1000x512xbf16>, tensor<8xi32> -> tensor<1280x512xbf16>, tensor<8xi32>
  %tu = mxfp8train.unpad_token_groups %tp offs(%offs) alignment = 32
      : tensor<1280x512xbf16>, tensor<8xi32> -> tensor<1000x512xbf16>
  %bl = mxfp8train.to_blocked %b layout = blocked
      : tensor<1024x32xf8E8M0FNU> -> tensor<32768xf8E8M0FNU>
  %bm = mxfp8train.to_blocked %b offs(%offs) layout = blocked_m_groups
      : tensor<1024x32xf8E8M0FNU>, tensor<8xi32> -> tensor<65536xf8E8M0FNU>
  %bk = mxfp8train.to_blocked %b offs(%offs) layout = blocked_k_groups
      : tensor<1024x32xf8E8M0FNU>, tensor<8xi32> -> tensor<65536xf8E8M0FNU>
  return %a, %b, %c, %d, %e, %f1, %g, %h, %i, %j, %k, %l, %m, %n, %o, %p, %r, %u, %tp, %po, %tu, %bl, %bm, %bk
      : tensor<1024x1024xf8E4M3FN>, tensor<1024x32xf8E8M0FNU>,
        tensor<1024x1024xf8E4M3FN>, tensor<32768xf8E8M0FNU>,
        tensor<512x1024xf8E4M3FN>, tensor<512x32xf8E8M0FNU>,
        tensor<512x1024xf8E4M3FN>, tensor<16x1024xf8E8M0FNU>,
        tensor<256x512xf8E5M2>, tensor<4096xf8E8M0FNU>,
        tensor<256x512xf8E5M2>, tensor<4096xf8E8M0FNU>,
        tensor<256x512xf8E4M3FN>, tensor<8x512xf8E8M0FNU>,
        tensor<256x512xf8E5M2>, tensor<256x16xf8E8M0FNU>,
        tensor<1024x1024xbf16>, tensor<256x512xf32>,
        tensor<1280x512xbf16>, tensor<8xi32>, tensor<1000x512xbf16>,
        tensor<32768xf8E8M0FNU>, tensor<65536xf8E8M0FNU>,
        tensor<65536xf8E8M0FNU>
}
