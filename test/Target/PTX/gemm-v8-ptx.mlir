// REQUIRES: ptxas
// RUN: mxfp8-opt %s --mxfp8train-lower-to-gpu="format=isa" | %extract_ptx > %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: FileCheck %s --input-file=%t.ptx --check-prefix=ORDER
// RUN: FileCheck %s --input-file=%t.ptx --check-prefix=NOCP
// RUN: FileCheck %s --input-file=%t.ptx --check-prefix=STAGED
// RUN: FileCheck %s --input-file=%t.ptx --check-prefix=CLUSTER
// RUN: %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin > %t.log 2>&1
// RUN: FileCheck %s --input-file=%t.log --check-prefix=PTXAS

// v8 (the default for scaled_mm and scaled_grouped_mm) in PTX: two
// dequantization pre-passes (prmt byte placement, bf16x2 multiplies, the
// hardware e4m3 conversion only for blocks holding a NaN code), then the
// bf16 GEMM of 384 threads: the flag word read once, the mbarrier ring of
// four stages with its initialisation fenced for the async proxy,
// setmaxnreg 216 / 72, the TMA producer (tensor-map prefetch,
// mbarrier.arrive.expect_tx, two 2-D cp.async.bulk.tensor boxes completing
// on the same full barrier), wgmma m64n256k16 straight after the full wait
// (no proxy fence: TMA and wgmma are both async-proxy accesses); no
// cp.async left. ptxas: no spills in the dense, 2d-3d and 2d-2d GEMMs (168
// registers at launch; 197696 bytes of dynamic shared memory for f32
// results, 216128 with the staged epilogue of bf16 results; 1 byte static).

// CHECK: .target sm_90a
// CHECK-LABEL: .entry gemm_dequant_k_e4m3_1x256x512_pad256x512(
// CHECK-DAG: prmt.b32 {{.*}} 0x1404U;
// CHECK-DAG: prmt.b32 {{.*}} 0x3424U;
// CHECK-DAG: mul.rn.bf16x2
// CHECK-DAG: cvt.rn.f16x2.e4m3x2
// CHECK-DAG: st.global.v4.b32
// CHECK-LABEL: .entry scaled_mm_k_k_bf16_bf16_f32_biasbf16_256x384x512_b1_p1c1_v8w1s4_n256_gs(
// CHECK-DAG: .maxntid 384, 1, 1
// CHECK-DAG: .minnctapersm 1
// CHECK-DAG: ld.global.nc.b32
// CHECK-DAG: fence.mbarrier_init.release.cluster;
// CHECK-DAG: setmaxnreg.inc.sync.aligned.u32 {{[[:space:]]*}}216;
// CHECK-DAG: setmaxnreg.dec.sync.aligned.u32 {{[[:space:]]*}}72;
// CHECK-DAG: prefetch.tensormap {{[[:space:]]*}}[%rd{{[0-9]+}}];
// CHECK-DAG: mbarrier.try_wait.parity.shared.b64
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// CHECK-DAG: wgmma.wait_group.sync.aligned {{[[:space:]]*}}1;
// CHECK-LABEL: .entry scaled_mm_k_k_e4m3_e4m3_f32_biasbf16_256x384x512_b1_p2c1_v7w2s4_gu(

// The producer: the stage's bytes expected on full[s], then the A and the
// B box of the two tensor maps at (K, row), both completing on full[s].
// The MMA warpgroups: wgmma right after the full wait.
// ORDER-LABEL: .entry scaled_mm_k_k_bf16_bf16_f32_biasbf16_256x384x512_b1_p1c1_v8w1s4_n256_gs(
// ORDER: mbarrier.try_wait.parity.shared.b64
// ORDER-NOT: fence.proxy.async
// ORDER: wgmma.fence.sync.aligned;
// ORDER: prefetch.tensormap {{[[:space:]]*}}[[[AMAP:%rd[0-9]+]]];
// ORDER-NEXT: prefetch.tensormap {{[[:space:]]*}}[[[BMAP:%rd[0-9]+]]];
// ORDER: mbarrier.try_wait.parity.shared.b64
// ORDER: mbarrier.arrive.expect_tx.shared.b64 {{.*}}, [[[FULL:%rd[0-9]+]]], {{%r[0-9]+}};
// ORDER: cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes [{{%rd[0-9]+}}], [[[AMAP]], {[[K:%r[0-9]+]], {{%r[0-9]+}}}], [[[FULL]]];
// ORDER-NEXT: cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes [{{%rd[0-9]+}}], [[[BMAP]], {[[K]], {{%r[0-9]+}}}], [[[FULL]]];

// The staged epilogue of a bf16 result (GemmSpec::usesStagedEpilogue): per
// 64 columns, four stmatrix .x4 of the warp's 16 rows into its slot, a warp
// barrier, then 16-byte shared loads and 16-byte global stores of row
// chunks; f32 results keep the direct stores.
// STAGED-LABEL: .entry scaled_gmm_2d2d_k_k_bf16_bf16_f32_256x384x1024_b4_p1c1_v8w1s4_n256_c2_gs(
// STAGED-NOT: stmatrix
// STAGED-LABEL: .entry scaled_gmm_2d3d_k_k_bf16_bf16_bf16_1024x384x512_b8_p1c1_v8w1s4_n256_c2_gs(
// STAGED-COUNT-4: stmatrix.sync.aligned.m8n8.x4.shared.b16 [{{%rd[0-9]+}}], {{{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}, {{%r[0-9]+}}};
// STAGED-NEXT: bar.warp.sync {{[[:space:]]*}}-1;
// STAGED: ld.shared.v4.b32
// STAGED: st.global.v4.b32
// STAGED-LABEL: .entry scaled_gmm_2d3d_k_k_e4m3_e4m3_bf16_1024x384x512_b8_p2c1_v7w2s4_gu(
// STAGED-LABEL: .entry scaled_mm_k_k_bf16_bf16_f32_biasbf16_256x384x512_b1_p1c1_v8w1s4_n256_gs(
// STAGED-NOT: stmatrix

// NOCP-NOT: cp.async.cg
// NOCP-NOT: cp.async.mbarrier.arrive

// The grouped kernels run the 2-CTA cluster along M (docs/gpu.md, "The
// 2-CTA cluster along M"): a cluster barrier after the barrier
// initialisation, the release of a stage on the peer's empty[s] through
// mapa, this CTA's half of the B tile multicast to both CTAs, a cluster
// barrier before the exit.
// CLUSTER-LABEL: .entry scaled_gmm_2d2d_k_k_bf16_bf16_f32_256x384x1024_b4_p1c1_v8w1s4_n256_c2_gs(
// CLUSTER: .reqnctapercluster 2, 1, 1
// CLUSTER: fence.mbarrier_init.release.cluster;
// CLUSTER: barrier.cluster.arrive;
// CLUSTER-NEXT: barrier.cluster.wait;
// CLUSTER: mapa.shared::cluster.u64 [[REMOTE:%rd[0-9]+]], {{%rd[0-9]+}}, {{%r[0-9]+}};
// CLUSTER: @{{%p[0-9]+}} mbarrier.arrive.release.cta.shared::cluster.b64 _, [[[REMOTE]]];
// CLUSTER: mbarrier.arrive.expect_tx.shared.b64 {{.*}}, {{%r[0-9]+}};
// CLUSTER: cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// CLUSTER: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [{{%rd[0-9]+}}], [{{%rd[0-9]+}}, {{{%r[0-9]+}}, {{%r[0-9]+}}}], [{{%rd[0-9]+.*}}], {{%rs[0-9]+}};
// CLUSTER: barrier.cluster.arrive;
// CLUSTER-NEXT: barrier.cluster.wait;
// CLUSTER-LABEL: .entry scaled_gmm_2d3d_k_k_bf16_bf16_bf16_1024x384x512_b8_p1c1_v8w1s4_n256_c2_gs(
// CLUSTER: .reqnctapercluster 2, 1, 1
// CLUSTER: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster

// PTXAS-NOT: error
// PTXAS-NOT: warning
// PTXAS: Compiling entry function 'scaled_mm_k_k_bf16_bf16_f32_biasbf16_256x384x512_b1_p1c1_v8w1s4_n256_gs' for 'sm_90a'
// PTXAS-NEXT: Function properties
// PTXAS-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NEXT: Used 168 registers, used 1 barriers, 1 bytes smem
// PTXAS: Compiling entry function 'gemm_dequant_k_e4m3_1x384x512_pad512x512' for 'sm_90a'
// PTXAS-NEXT: Function properties
// PTXAS-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Compiling entry function 'scaled_gmm_2d3d_k_k_bf16_bf16_bf16_1024x384x512_b8_p1c1_v8w1s4_n256_c2_gs' for 'sm_90a'
// PTXAS-NEXT: Function properties
// PTXAS-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NEXT: Used 168 registers, used 0 barriers, 1 bytes smem
// PTXAS: Compiling entry function 'scaled_gmm_2d2d_k_k_bf16_bf16_f32_256x384x1024_b4_p1c1_v8w1s4_n256_c2_gs' for 'sm_90a'
// PTXAS-NEXT: Function properties
// PTXAS-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NEXT: Used 168 registers, used 0 barriers, 1 bytes smem

func.func @fwd(%a: tensor<256x512xf8E4M3FN>, %as: tensor<256x16xf8E8M0FNU>,
               %w: tensor<384x512xf8E4M3FN>, %ws: tensor<384x16xf8E8M0FNU>,
               %bias: tensor<384xbf16>) -> tensor<256x384xf32> {
  %y = mxfp8train.scaled_mm %a [%as], %w [%ws] bias(%bias) transpose_rhs
      : tensor<256x512xf8E4M3FN> [tensor<256x16xf8E8M0FNU>],
        tensor<384x512xf8E4M3FN> [tensor<384x16xf8E8M0FNU>], tensor<384xbf16> -> tensor<256x384xf32>
  return %y : tensor<256x384xf32>
}

func.func @grouped_2d3d(%a: tensor<1024x512xf8E4M3FN>, %as: tensor<1024x16xf8E8M0FNU>,
                        %w: tensor<8x384x512xf8E4M3FN>, %ws: tensor<8x384x16xf8E8M0FNU>,
                        %offs: tensor<8xi32>) -> tensor<1024x384xbf16> {
  %y = mxfp8train.scaled_grouped_mm %a [%as], %w [%ws] offs(%offs) transpose_rhs
      : tensor<1024x512xf8E4M3FN> [tensor<1024x16xf8E8M0FNU>],
        tensor<8x384x512xf8E4M3FN> [tensor<8x384x16xf8E8M0FNU>], tensor<8xi32>
        -> tensor<1024x384xbf16>
  return %y : tensor<1024x384xbf16>
}

func.func @grouped_2d2d(%dot: tensor<256x1024xf8E4M3FN>, %ds: tensor<256x32xf8E8M0FNU>,
                        %xt: tensor<384x1024xf8E4M3FN>, %xs: tensor<384x32xf8E8M0FNU>,
                        %offs: tensor<4xi32>) -> tensor<4x256x384xf32> {
  %dw = mxfp8train.scaled_grouped_mm %dot [%ds], %xt [%xs] offs(%offs) transpose_rhs
      : tensor<256x1024xf8E4M3FN> [tensor<256x32xf8E8M0FNU>],
        tensor<384x1024xf8E4M3FN> [tensor<384x32xf8E8M0FNU>], tensor<4xi32>
        -> tensor<4x256x384xf32>
  return %dw : tensor<4x256x384xf32>
}
