// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu --canonicalize --split-input-file | FileCheck %s
// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu --canonicalize --split-input-file | FileCheck %s --check-prefix=NOSHFL

// v7 (`kernel = fused_upcast_ws` of #mxfp8train.gemm_config): the
// warp-specialised kernel (512 threads, four stages, 132416 bytes;
// scaled-mm.mlir @fwd_ring) with the shorter converter: the warp maxima of the
// rebalancing by `redux.sync umax` (no shuffles), e4m3 bytes placed into
// bf16 pairs by `prmt` (selectors 0x1404 = 5124 and 0x3424 = 13348: b1 << 24
// | b0 << 8 and b3 << 24 | b2 << 8), and one uniform branch per stage: when
// every rebalanced tile maximum is <= 134 one multiply per chunk by the
// scale factor with the 2^120 folded in (shift + 120), else the 2^120
// restore (2^120 = 1.329230e+36) and the scale multiply.
// CHECK-LABEL: func.func @fwd_v7(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_mm_k_k_e4m3_e4m3_bf16_256x384x512_b1_p2c1_v7w2s4 blocks in (%c6, %c1, %c1) threads in (%c512, %c1, %c1) dynamic_shared_memory_size %c132416_i32
// CHECK:       gpu.func @scaled_mm_k_k_e4m3_e4m3_bf16_256x384x512_b1_p2c1_v7w2s4(
// CHECK-SAME:    nvvm.maxntid = array<i32: 512, 1, 1>
// CHECK-DAG:     %[[C134:.*]] = arith.constant 134 : i32
// CHECK-DAG:     %[[C120:.*]] = arith.constant 120 : i32
// CHECK-DAG:     %[[SEL01:.*]] = arith.constant 5124 : i32
// CHECK-DAG:     %[[SEL23:.*]] = arith.constant 13348 : i32
// CHECK-DAG:     %[[POW120:.*]] = arith.constant dense<1.329230e+36> : vector<16xbf16>
// The converters: the maxima of the first stage before the loop.
// CHECK:         } else {
// CHECK-COUNT-4:   nvvm.redux.sync umax {{.*}}, %c-1_i32 : i32 -> i32
// CHECK:           scf.for
// CHECK:             nvvm.barrier id = %c1_i32 number_of_threads = %c256_i32
// CHECK:             nvvm.mbarrier.try_wait.parity
// CHECK-COUNT-4:     nvvm.redux.sync umax
// CHECK:             arith.cmpi sle, {{.*}}, %[[C134]] : i32
// CHECK:             arith.cmpi sle, {{.*}}, %[[C134]] : i32
// CHECK:             arith.cmpi sle, {{.*}}, %[[C134]] : i32
// CHECK:             arith.cmpi sle, {{.*}}, %[[C134]] : i32
// CHECK:             scf.if
// Fused: prmt placement, shift + 120, one multiply.
// CHECK:               %[[W:.*]] = vector.extract {{.*}}[0] : i32 from vector<4xi32>
// CHECK-NEXT:          nvvm.prmt <default> %[[SEL01]], %[[W]], %c0_i32 : i32
// CHECK-NEXT:          nvvm.prmt <default> %[[SEL23]], %[[W]], %c0_i32 : i32
// CHECK-NOT:           arith.mulf
// CHECK:               arith.addi {{.*}}, %[[C120]] : i32
// CHECK-NOT:           arith.mulf
// CHECK:               arith.mulf {{.*}} : vector<16xbf16>
// CHECK-NOT:           arith.mulf
// CHECK:               vector.store {{.*}} : memref<65536xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
// The two-multiply path.
// CHECK:             } else {
// CHECK:               nvvm.prmt <default> %[[SEL01]]
// CHECK:               arith.mulf {{.*}}, %[[POW120]] : vector<16xbf16>
// CHECK-NOT:           arith.addi {{.*}}, %[[C120]] : i32
// CHECK:               arith.mulf {{.*}} : vector<16xbf16>
// CHECK:             nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK:             nvvm.mbarrier.arrive
// NOSHFL-LABEL: gpu.func @scaled_mm_k_k_e4m3_e4m3_bf16_256x384x512_b1_p2c1_v7w2s4(
// NOSHFL-NOT:   gpu.shuffle
// NOSHFL:       gpu.return
func.func @fwd_v7(%a: tensor<256x512xf8E4M3FN>, %as: tensor<256x16xf8E8M0FNU>,
                  %w: tensor<384x512xf8E4M3FN>, %ws: tensor<384x16xf8E8M0FNU>)
    -> tensor<256x384xbf16> {
  %y = mxfp8train.scaled_mm %a [%as], %w [%ws] transpose_rhs
      {mxfp8train.gemm_config = #mxfp8train.gemm_config<kernel = fused_upcast_ws>}
      : tensor<256x512xf8E4M3FN> [tensor<256x16xf8E8M0FNU>],
        tensor<384x512xf8E4M3FN> [tensor<384x16xf8E8M0FNU>] -> tensor<256x384xbf16>
  return %y : tensor<256x384xbf16>
}

// -----

// v7 asked for (the fused-upcast kernel and v8's fallback for K-major
// operands with row-major scales; the default is v8, scaled-mm-v8.mlir), v5
// for the 2d-2d wgrad (v7 was not faster there; scaled-mm.mlir @grouped_2d2d)
// and on request.
// CHECK-LABEL: func.func @fwd_default(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_mm_k_k_e4m3_e4m3_f32_biasbf16_256x384x512_b1_p2c1_v7w2s4 blocks in (%c6, %c1, %c1) threads in (%c512, %c1, %c1)
func.func @fwd_default(%a: tensor<256x512xf8E4M3FN>, %as: tensor<256x16xf8E8M0FNU>,
                       %w: tensor<384x512xf8E4M3FN>, %ws: tensor<384x16xf8E8M0FNU>,
                       %bias: tensor<384xbf16>) -> tensor<256x384xf32> {
  %y = mxfp8train.scaled_mm %a [%as], %w [%ws] bias(%bias) transpose_rhs
      {mxfp8train.gemm_config = #mxfp8train.gemm_config<kernel = fused_upcast_ws>}
      : tensor<256x512xf8E4M3FN> [tensor<256x16xf8E8M0FNU>],
        tensor<384x512xf8E4M3FN> [tensor<384x16xf8E8M0FNU>], tensor<384xbf16> -> tensor<256x384xf32>
  return %y : tensor<256x384xf32>
}

// -----

// CHECK-LABEL: func.func @fwd_asks_v5(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_mm_k_k_e4m3_e4m3_bf16_256x384x512_b1_p1c2 blocks in (%c6, %c1, %c1) threads in (%c256, %c1, %c1)
func.func @fwd_asks_v5(%a: tensor<256x512xf8E4M3FN>, %as: tensor<256x16xf8E8M0FNU>,
                       %w: tensor<384x512xf8E4M3FN>, %ws: tensor<384x16xf8E8M0FNU>)
    -> tensor<256x384xbf16> {
  %y = mxfp8train.scaled_mm %a [%as], %w [%ws] transpose_rhs
      {mxfp8train.gemm_config = #mxfp8train.gemm_config<kernel = fused_upcast>}
      : tensor<256x512xf8E4M3FN> [tensor<256x16xf8E8M0FNU>],
        tensor<384x512xf8E4M3FN> [tensor<384x16xf8E8M0FNU>] -> tensor<256x384xbf16>
  return %y : tensor<256x384xbf16>
}

// -----

// CHECK-LABEL: func.func @grouped_2d3d_default(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_gmm_2d3d_k_k_e4m3_e4m3_bf16_1024x384x512_b8_p2c1_v7w2s4 {{.*}} threads in (%c512, %c1, %c1)
func.func @grouped_2d3d_default(%a: tensor<1024x512xf8E4M3FN>, %as: tensor<1024x16xf8E8M0FNU>,
                                %w: tensor<8x384x512xf8E4M3FN>, %ws: tensor<8x384x16xf8E8M0FNU>,
                                %offs: tensor<8xi32>) -> tensor<1024x384xbf16> {
  %y = mxfp8train.scaled_grouped_mm %a [%as], %w [%ws] offs(%offs) transpose_rhs
      {mxfp8train.gemm_config = #mxfp8train.gemm_config<kernel = fused_upcast_ws>}
      : tensor<1024x512xf8E4M3FN> [tensor<1024x16xf8E8M0FNU>],
        tensor<8x384x512xf8E4M3FN> [tensor<8x384x16xf8E8M0FNU>], tensor<8xi32>
        -> tensor<1024x384xbf16>
  return %y : tensor<1024x384xbf16>
}
