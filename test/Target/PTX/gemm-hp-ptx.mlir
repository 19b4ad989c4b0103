// REQUIRES: ptxas
// RUN: mxfp8-opt %s --mxfp8train-lower-to-gpu="format=isa" | %extract_ptx > %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin > %t.log 2>&1
// RUN: FileCheck %s --input-file=%t.log --check-prefix=PTXAS

// The high-precision GEMMs on sm_90a (Gemm/HighPrecisionGemm.cpp) in PTX:
// the v8 kernel without the flag word, the TMA producer
// with 2-D boxes for operands read in place or packed and 3-D boxes (K,
// row, batch) for batched operands read in place, bf16 and f16 wgmma
// m64n256k16 with f32 accumulators, the initial output read and added in
// the epilogue; the pack kernels' 16-byte loads (element loads at the end
// of K) and stores. ptxas assembles all nine kernels (five GEMMs, four
// packs) without spills.

// CHECK: .target sm_90a
// CHECK-LABEL: .entry gemm_pack_mn_bf16_1x384x1000_pad384x1280_g4(
// CHECK: st.global.v4.b32
// CHECK-LABEL: .entry hp_gmm_2d2d_k_k_bf16_bf16_f32_384x512x1000_b4_p1c1_v8w1s4_n256_c2(
// CHECK: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// CHECK: cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// CHECK-LABEL: .entry hp_gmm_2d3d_k_ks_bf16_bf16_bf16_1000x384x512_b4_p1c1_v8w1s4_n256_c2(
// CHECK: cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes [{{%rd[0-9]+}}], [[[A:%rd[0-9]+]], {[[K:%r[0-9]+]], {{%r[0-9]+}}}]
// The cluster along M: this CTA's half of the B tile, multicast to the pair.
// CHECK: cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [{{%rd[0-9]+}}], [{{%rd[0-9]+}}, {[[K]], {{%r[0-9]+}}, {{%r[0-9]+}}}], [{{%rd[0-9]+.*}}], {{%rs[0-9]+}};
// CHECK-LABEL: .entry hp_mm_k_k_f16_f16_f32_256x384x512_b1_p1c1_v8w1s4_n256(
// CHECK: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
// CHECK-LABEL: .entry hp_mm_ks_ks_bf16_bf16_f32_256x384x512_b3_p1c1_v8w1s4_n256(
// CHECK: cp.async.bulk.tensor.3d
// CHECK-NEXT: cp.async.bulk.tensor.3d
// CHECK-LABEL: .entry gemm_pack_k_bf16_1x200x100_pad256x128(
// CHECK-DAG: ld.global.nc.v4.b32
// CHECK-DAG: ld.global.nc.b16
// CHECK-DAG: st.global.v4.b32
// CHECK-LABEL: .entry hp_mm_k_k_bf16_bf16_f32_initf32_200x300x100_b1_p1c1_v8w1s4_n256(
// CHECK: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// CHECK: ld.global.nc.b32
// CHECK: add.rn.f32

// PTXAS-NOT: error
// PTXAS-NOT: warning
// PTXAS-NOT: {{[1-9][0-9]*}} bytes spill
// PTXAS-COUNT-9: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: Compiling entry function

#mk = affine_map<(m, n, k) -> (m, k)>
#nk = affine_map<(m, n, k) -> (n, k)>
#mn = affine_map<(m, n, k) -> (m, n)>
#bmk = affine_map<(b, m, n, k) -> (b, m, k)>
#bnk = affine_map<(b, m, n, k) -> (b, n, k)>
#bmn = affine_map<(b, m, n, k) -> (b, m, n)>

func.func @nn_init(%a: tensor<200x100xbf16>, %b: tensor<100x300xbf16>, %c: tensor<200x300xf32>) -> tensor<200x300xf32> {
  %y = linalg.matmul ins(%a, %b : tensor<200x100xbf16>, tensor<100x300xbf16>)
      outs(%c : tensor<200x300xf32>) -> tensor<200x300xf32>
  return %y : tensor<200x300xf32>
}

func.func @bmm_nt(%a: tensor<3x256x512xbf16>, %b: tensor<3x384x512xbf16>) -> tensor<3x256x384xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x256x384xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<3x256x384xf32>) -> tensor<3x256x384xf32>
  %y = linalg.batch_matmul indexing_maps = [#bmk, #bnk, #bmn]
      ins(%a, %b : tensor<3x256x512xbf16>, tensor<3x384x512xbf16>)
      outs(%f : tensor<3x256x384xf32>) -> tensor<3x256x384xf32>
  return %y : tensor<3x256x384xf32>
}

func.func @nt_f16(%x: tensor<256x512xf16>, %w: tensor<384x512xf16>) -> tensor<256x384xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x384xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x384xf32>) -> tensor<256x384xf32>
  %y = linalg.matmul indexing_maps = [#mk, #nk, #mn]
      ins(%x, %w : tensor<256x512xf16>, tensor<384x512xf16>) outs(%f : tensor<256x384xf32>) -> tensor<256x384xf32>
  return %y : tensor<256x384xf32>
}

func.func @gmm_2d3d(%x: tensor<1000x512xbf16>, %w: tensor<4x384x512xbf16>, %offs: tensor<4xi32>) -> tensor<1000x384xbf16> {
  %y = mxfp8train.grouped_mm %x, %w offs(%offs) transpose_rhs
      : tensor<1000x512xbf16>, tensor<4x384x512xbf16>, tensor<4xi32> -> tensor<1000x384xbf16>
  return %y : tensor<1000x384xbf16>
}

func.func @gmm_2d2d(%dy: tensor<1000x384xbf16>, %x: tensor<1000x512xbf16>, %offs: tensor<4xi32>) -> tensor<4x384x512xf32> {
  %y = mxfp8train.grouped_mm %dy, %x offs(%offs) transpose_lhs
      : tensor<1000x384xbf16>, tensor<1000x512xbf16>, tensor<4xi32> -> tensor<4x384x512xf32>
  return %y : tensor<4x384x512xf32>
}
