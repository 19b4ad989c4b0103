// The host code of a high-precision GEMM on sm_90a (Gemm/HighPrecisionGemm.cpp)
// ahead of time against the runtime's fake driver (FAKE_CUDA_SM=90,
// FAKE_CUDA_TRACE prints tensor-map encodes, launches and frees), as
// gemm-tma-fake-driver.mlir does for the MX GEMM. batch_matmul of a
// (3, 200, 520) bf16 operand read in place and a (3, 520, 300) one packed:
// the in-place map is encoded over the operand's own buffer, rank 3, K
// innermost (520 x 200 x 3), rows of 1040 bytes and batches of 208000,
// boxes of 64 K x 128 rows x 1 batch, 16-byte aligned; the packed operand's
// map is the 2-D padded buffer (3 x 512 rows of 576 K, boxes of 256 rows).
// The pack runs before the GEMM, whose first two arguments are the maps;
// both maps are freed after the launches.
//
// REQUIRES: host-cxx, ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: mxfp8-compile %s -o %t/gemm.o --device=cuda --chip=sm_90a --manifest=%t/gemm.manifest \
// RUN:   --lowering='mxfp8train-lower-to-gpu{chip=sm_90a format=isa}'
// RUN: %host_cxx -shared -o %t/gemm.so %t/gemm.o -Wl,-Bsymbolic -L%mxfp8train_lib_dir -lmxfp8train_runtime
// RUN: env FAKE_CUDA_SM=90 FAKE_CUDA_TRACE=1 MXFP8RT_CUDA_LIBRARY=%mxfp8train_lib_dir/libmxfp8rt_fake_cuda.so \
// RUN:   mxfp8-launch %t/gemm.so %t/gemm.manifest --entry=bmm --repeat=1 --warmup=0 --output-dir=%t/out \
// RUN:   > %t/aot.log 2>&1
// RUN: FileCheck %s < %t/aot.log

// CHECK:      gpu: 0 Fake CUDA Device 0 (sm_90)
// CHECK-DAG:  fake-cuda: cuTensorMapEncodeTiled type 9 rank 2 dims 576x1536 strides 1152 box 64x256 elementStrides 1x1 interleave 0 swizzle 3 l2 2 oob 0 aligned16 1
// CHECK-DAG:  fake-cuda: cuTensorMapEncodeTiled type 9 rank 3 dims 520x200x3 strides 1040x208000 box 64x128x1 elementStrides 1x1x1 interleave 0 swizzle 3 l2 2 oob 0 aligned16 1
// CHECK:      fake-cuda: launch gemm_pack_mn_bf16_3x300x520_pad512x576 grid {{[0-9]+}}x1x1 block 256x1x1 shared 0
// CHECK-NEXT: fake-cuda: launch hp_mm_ks_k_bf16_bf16_f32_200x300x520_b3_p1c1_v8w1s4_n256 grid 12x1x1 block 384x1x1 shared 197696 arg0=tensormap
// The maps' device copies stay cached (docs/runtime.md): no free.
// CHECK-NOT:  fake-cuda: free tensormap
// CHECK:      summary: entry=bmm device=cuda results=1

#bmk = affine_map<(b, m, n, k) -> (b, m, k)>
#bkn = affine_map<(b, m, n, k) -> (b, k, n)>
#bmn = affine_map<(b, m, n, k) -> (b, m, n)>

func.func @bmm(%a: tensor<3x200x520xbf16>, %b: tensor<3x520x300xbf16>) -> tensor<3x200x300xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x200x300xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<3x200x300xf32>) -> tensor<3x200x300xf32>
  %y = linalg.batch_matmul indexing_maps = [#bmk, #bkn, #bmn]
      ins(%a, %b : tensor<3x200x520xbf16>, tensor<3x520x300xbf16>)
      outs(%f : tensor<3x200x300xf32>) -> tensor<3x200x300xf32>
  return %y : tensor<3x200x300xf32>
}
