// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu --canonicalize | FileCheck %s
// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu --canonicalize | FileCheck %s --check-prefix=BODY
// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu="simple-gemm=true" --canonicalize | FileCheck %s --check-prefix=SIMPLE
// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu="chip=sm_100a" --canonicalize | FileCheck %s --check-prefix=SIMPLE

// The high-precision GEMMs on sm_90a (Gemm/HighPrecisionGemm.cpp): bf16 /
// f16 linalg contractions and grouped_mm run the v8 bf16 wgmma kernel of
// the MX GEMMs (384 threads, 128x256 tiles, four 48 KiB stages: 197696
// bytes of dynamic shared memory), unguarded (no flag word, no fallback).
// K-major operands with 16-byte rows are read in place through tensor maps
// of the operand buffers (2-D, or 3-D with one batch per box for batched
// operands: `ks`); the others are packed by the pre-pass kernel without
// scales (`gemm_pack_*`) into zero-padded K-major buffers. With
// simple-gemm=true, and on sm_100a, every one keeps the simple kernel.

#mk = affine_map<(m, n, k) -> (m, k)>
#nk = affine_map<(m, n, k) -> (n, k)>
#km = affine_map<(m, n, k) -> (k, m)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>
#nm = affine_map<(m, n, k) -> (n, m)>
#bmk = affine_map<(b, m, n, k) -> (b, m, k)>
#bnk = affine_map<(b, m, n, k) -> (b, n, k)>
#bmn = affine_map<(b, m, n, k) -> (b, m, n)>

// x w^T (the forward GEMM): both operands K-major, read in place. The maps
// of the operands' own buffers: rank 2 (2), BFLOAT16 (9), 128B swizzle (3),
// L2 promotion 128B (2), zero fill (0); the descriptor {ptr, ptr, 0, rows,
// 512, 512, 1}; boxes of 128 (A) and 256 (B) rows x 64 K. No pre-pass,
// 2 x 2 tiles; the maps freed after the launch.
// CHECK-LABEL: func.func @nt(
// CHECK-SAME:      %[[X:.*]]: tensor<256x512xbf16>, %[[W:.*]]: tensor<384x512xbf16>)
// CHECK-DAG:     %[[RANK:.*]] = llvm.mlir.constant(2 : i64) : i64
// CHECK-DAG:     %[[BF16:.*]] = llvm.mlir.constant(9 : i64) : i64
// CHECK-DAG:     %[[SW128:.*]] = llvm.mlir.constant(3 : i64) : i64
// CHECK-DAG:     %[[L0:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK-DAG:     %[[L1:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK-DAG:     %[[L64:.*]] = llvm.mlir.constant(64 : i64) : i64
// CHECK-DAG:     %[[L128:.*]] = llvm.mlir.constant(128 : i64) : i64
// CHECK-DAG:     %[[L256:.*]] = llvm.mlir.constant(256 : i64) : i64
// CHECK-DAG:     %[[L384:.*]] = llvm.mlir.constant(384 : i64) : i64
// CHECK-DAG:     %[[L512:.*]] = llvm.mlir.constant(512 : i64) : i64
// CHECK:         %[[XBUF:.*]] = bufferization.to_buffer %[[X]] read_only : tensor<256x512xbf16> to memref<256x512xbf16>
// CHECK-NEXT:    %[[XPTR:.*]] = memref.extract_aligned_pointer_as_index %[[XBUF]]
// CHECK-NEXT:    %[[XADDR:.*]] = arith.index_castui %[[XPTR]] : index to i64
// CHECK-NEXT:    %[[XD:.*]] = llvm.alloca %{{.*}} x !llvm.array<7 x i64>
// CHECK-NEXT:    %[[XD0:.*]] = llvm.getelementptr %[[XD]][0, 0]
// CHECK-NEXT:    llvm.store %[[XADDR]], %[[XD0]]
// CHECK-NEXT:    %[[XD1:.*]] = llvm.getelementptr %[[XD]][0, 1]
// CHECK-NEXT:    llvm.store %[[XADDR]], %[[XD1]]
// CHECK-NEXT:    %[[XD2:.*]] = llvm.getelementptr %[[XD]][0, 2]
// CHECK-NEXT:    llvm.store %[[L0]], %[[XD2]]
// CHECK-NEXT:    %[[XD3:.*]] = llvm.getelementptr %[[XD]][0, 3]
// CHECK-NEXT:    llvm.store %[[L256]], %[[XD3]]
// CHECK-NEXT:    %[[XD4:.*]] = llvm.getelementptr %[[XD]][0, 4]
// CHECK-NEXT:    llvm.store %[[L512]], %[[XD4]]
// CHECK-NEXT:    %[[XD5:.*]] = llvm.getelementptr %[[XD]][0, 5]
// CHECK-NEXT:    llvm.store %[[L512]], %[[XD5]]
// CHECK-NEXT:    %[[XD6:.*]] = llvm.getelementptr %[[XD]][0, 6]
// CHECK-NEXT:    llvm.store %[[L1]], %[[XD6]]
// CHECK-NEXT:    %[[XBOX:.*]] = llvm.alloca %{{.*}} x !llvm.array<2 x i64>
// CHECK-NEXT:    %[[XB0:.*]] = llvm.getelementptr %[[XBOX]][0, 0]
// CHECK-NEXT:    llvm.store %[[L128]], %[[XB0]]
// CHECK-NEXT:    %[[XB1:.*]] = llvm.getelementptr %[[XBOX]][0, 1]
// CHECK-NEXT:    llvm.store %[[L64]], %[[XB1]]
// CHECK-NEXT:    %[[XMAP:.*]] = llvm.call @mgpuTensorMapEncodeTiledMemref(%[[RANK]], %[[XD]], %[[BF16]], %[[L0]], %[[SW128]], %[[RANK]], %[[L0]], %[[XBOX]])
// CHECK-NEXT:    %[[WBUF:.*]] = bufferization.to_buffer %[[W]] read_only : tensor<384x512xbf16> to memref<384x512xbf16>
// CHECK:         llvm.store %[[L384]], %{{.*}}
// CHECK:         %[[WBOX:.*]] = llvm.alloca %{{.*}} x !llvm.array<2 x i64>
// CHECK-NEXT:    %[[WB0:.*]] = llvm.getelementptr %[[WBOX]][0, 0]
// CHECK-NEXT:    llvm.store %[[L256]], %[[WB0]]
// CHECK-NEXT:    %[[WB1:.*]] = llvm.getelementptr %[[WBOX]][0, 1]
// CHECK-NEXT:    llvm.store %[[L64]], %[[WB1]]
// CHECK-NEXT:    %[[WMAP:.*]] = llvm.call @mgpuTensorMapEncodeTiledMemref(%[[RANK]], %{{.*}}, %[[BF16]], %[[L0]], %[[SW128]], %[[RANK]], %[[L0]], %[[WBOX]])
// CHECK-NEXT:    %[[OUT:.*]] = memref.alloc() : memref<256x384xf32>
// CHECK-NEXT:    %[[FLAT:.*]] = memref.collapse_shape %[[OUT]]
// CHECK-NEXT:    gpu.launch_func @mxfp8train_kernels::@hp_mm_k_k_bf16_bf16_f32_256x384x512_b1_p1c1_v8w1s4_n256 blocks in (%c4, %c1, %c1) threads in (%c384, %c1, %c1) dynamic_shared_memory_size %c197696_i32 args(%[[XMAP]] : !llvm.ptr, %[[WMAP]] : !llvm.ptr, %[[FLAT]] : memref<98304xf32>)
// CHECK-NEXT:    %[[Y:.*]] = bufferization.to_tensor %[[OUT]] restrict writable
// CHECK-NEXT:    llvm.call @mgpuMemFree(%[[XMAP]], %{{.*}})
// CHECK-NEXT:    llvm.call @mgpuMemFree(%[[WMAP]], %{{.*}})
// CHECK-NEXT:    return %[[Y]]
// SIMPLE-LABEL: func.func @nt(
// SIMPLE-NOT:     hp_mm
// SIMPLE:         gpu.launch_func @mxfp8train_kernels::@gemm_mkbf16_nkbf16_mnf32_1x256x384x512
func.func @nt(%x: tensor<256x512xbf16>, %w: tensor<384x512xbf16>) -> tensor<256x384xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x384xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x384xf32>) -> tensor<256x384xf32>
  %y = linalg.matmul indexing_maps = [#mk, #nk, #mn]
      ins(%x, %w : tensor<256x512xbf16>, tensor<384x512xbf16>) outs(%f : tensor<256x384xf32>) -> tensor<256x384xf32>
  return %y : tensor<256x384xf32>
}

// a b + c with K = 100 (200-byte rows: not read in place) and b stored
// (K, N): both packed. The padded buffers lead the block (A: 256 rows x
// 128 K, B: 512 x 128); A's 25000 items of 8 elements, B's 16 x 128 items
// of 32 (one CTA per 256 items); the initial output is the GEMM's fourth
// argument (`_initf32`), the maps the first two.
// CHECK-LABEL: func.func @nn_init(
// CHECK-SAME:      %[[C:[^:]*]]: tensor<200x300xf32>)
// CHECK:         %[[APAD:.*]] = memref.alloc() : memref<32768xbf16>
// CHECK-NEXT:    %[[BPAD:.*]] = memref.alloc() : memref<65536xbf16>
// CHECK:         %[[AMAP:.*]] = llvm.call @mgpuTensorMapEncodeTiledMemref(
// CHECK:         %[[BMAP:.*]] = llvm.call @mgpuTensorMapEncodeTiledMemref(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@gemm_pack_k_bf16_1x200x100_pad256x128 blocks in (%c16, %c1, %c1) threads in (%c256, %c1, %c1) args(%{{.*}} : memref<20000xbf16>, %[[APAD]] : memref<32768xbf16>)
// CHECK:         gpu.launch_func @mxfp8train_kernels::@gemm_pack_mn_bf16_1x300x100_pad512x128 blocks in (%c8, %c1, %c1) threads in (%c256, %c1, %c1) args(%{{.*}} : memref<30000xbf16>, %[[BPAD]] : memref<65536xbf16>)
// CHECK:         %[[CBUF:.*]] = bufferization.to_buffer %[[C]] read_only
// CHECK-NEXT:    %[[CFLAT:.*]] = memref.collapse_shape %[[CBUF]]
// CHECK:         gpu.launch_func @mxfp8train_kernels::@hp_mm_k_k_bf16_bf16_f32_initf32_200x300x100_b1_p1c1_v8w1s4_n256 blocks in (%c4, %c1, %c1) threads in (%c384, %c1, %c1) dynamic_shared_memory_size %c197696_i32 args(%[[AMAP]] : !llvm.ptr, %[[BMAP]] : !llvm.ptr, %[[CFLAT]] : memref<60000xf32>, %{{.*}} : memref<60000xf32>)
// SIMPLE-LABEL: func.func @nn_init(
// SIMPLE-NOT:     gemm_pack
// SIMPLE:         gpu.launch_func @mxfp8train_kernels::@gemm_mkbf16_knbf16_mnf32_initf32_1x200x300x100
func.func @nn_init(%a: tensor<200x100xbf16>, %b: tensor<100x300xbf16>, %c: tensor<200x300xf32>) -> tensor<200x300xf32> {
  %y = linalg.matmul ins(%a, %b : tensor<200x100xbf16>, tensor<100x300xbf16>)
      outs(%c : tensor<200x300xf32>) -> tensor<200x300xf32>
  return %y : tensor<200x300xf32>
}

// a^T b (the weight gradient) with a bf16 result: both MN-major, packed.
// CHECK-LABEL: func.func @tn_bf16(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@gemm_pack_mn_bf16_1x256x512_pad256x512 blocks in (%c16, %c1, %c1)
// CHECK:         gpu.launch_func @mxfp8train_kernels::@gemm_pack_mn_bf16_1x384x512_pad512x512 blocks in (%c32, %c1, %c1)
// CHECK:         gpu.launch_func @mxfp8train_kernels::@hp_mm_k_k_bf16_bf16_bf16_256x384x512_b1_p1c1_v8w1s4_n256 blocks in (%c4, %c1, %c1) {{.*}} : memref<98304xbf16>)
func.func @tn_bf16(%a: tensor<512x256xbf16>, %b: tensor<512x384xbf16>) -> tensor<256x384xbf16> {
  %zero = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<256x384xbf16>
  %f = linalg.fill ins(%zero : bf16) outs(%e : tensor<256x384xbf16>) -> tensor<256x384xbf16>
  %y = linalg.matmul indexing_maps = [#km, #kn, #mn]
      ins(%a, %b : tensor<512x256xbf16>, tensor<512x384xbf16>) outs(%f : tensor<256x384xbf16>) -> tensor<256x384xbf16>
  return %y : tensor<256x384xbf16>
}

// The output stored (N, M): the GEMM of w x^T, operands swapped (M = 384:
// three row tiles of one column tile), both still read in place.
// CHECK-LABEL: func.func @out_nm(
// CHECK-SAME:      %[[X:.*]]: tensor<256x512xbf16>, %[[W:.*]]: tensor<384x512xbf16>)
// CHECK:         bufferization.to_buffer %[[W]]
// CHECK:         %[[WMAP:.*]] = llvm.call @mgpuTensorMapEncodeTiledMemref(
// CHECK:         bufferization.to_buffer %[[X]]
// CHECK:         %[[XMAP:.*]] = llvm.call @mgpuTensorMapEncodeTiledMemref(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@hp_mm_k_k_bf16_bf16_f32_384x256x512_b1_p1c1_v8w1s4_n256 blocks in (%c3, %c1, %c1) {{.*}} args(%[[WMAP]] : !llvm.ptr, %[[XMAP]] : !llvm.ptr, %{{.*}} : memref<98304xf32>)
func.func @out_nm(%x: tensor<256x512xbf16>, %w: tensor<384x512xbf16>) -> tensor<384x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<384x256xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<384x256xf32>) -> tensor<384x256xf32>
  %y = linalg.matmul indexing_maps = [#mk, #nk, #nm]
      ins(%x, %w : tensor<256x512xbf16>, tensor<384x512xbf16>) outs(%f : tensor<384x256xf32>) -> tensor<384x256xf32>
  return %y : tensor<384x256xf32>
}

// batch_matmul with K-major operands: 3-D maps over (batch, rows, K), boxes
// of one batch (rank 3, descriptor {ptr, ptr, 0, 3, rows, 512, rows x 512,
// 512, 1}, box {1, 128 or 256, 64}); 3 x 2 x 2 tiles.
// CHECK-LABEL: func.func @bmm_nt(
// CHECK-DAG:     %[[RANK3:.*]] = llvm.mlir.constant(3 : i64) : i64
// CHECK-DAG:     %[[L1:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK-DAG:     %[[L64:.*]] = llvm.mlir.constant(64 : i64) : i64
// CHECK-DAG:     %[[L128:.*]] = llvm.mlir.constant(128 : i64) : i64
// CHECK-DAG:     %[[L131072:.*]] = llvm.mlir.constant(131072 : i64) : i64
// CHECK:         %[[AD:.*]] = llvm.alloca %{{.*}} x !llvm.array<9 x i64>
// CHECK-COUNT-3: llvm.store
// CHECK-NEXT:    %[[AD3:.*]] = llvm.getelementptr %[[AD]][0, 3]
// CHECK-NEXT:    llvm.store %[[RANK3]], %[[AD3]]
// CHECK-COUNT-2: llvm.store
// CHECK-NEXT:    %[[AD6:.*]] = llvm.getelementptr %[[AD]][0, 6]
// CHECK-NEXT:    llvm.store %[[L131072]], %[[AD6]]
// CHECK:         %[[ABOX:.*]] = llvm.alloca %{{.*}} x !llvm.array<3 x i64>
// CHECK-NEXT:    %[[AB0:.*]] = llvm.getelementptr %[[ABOX]][0, 0]
// CHECK-NEXT:    llvm.store %[[L1]], %[[AB0]]
// CHECK-NEXT:    %[[AB1:.*]] = llvm.getelementptr %[[ABOX]][0, 1]
// CHECK-NEXT:    llvm.store %[[L128]], %[[AB1]]
// CHECK-NEXT:    %[[AB2:.*]] = llvm.getelementptr %[[ABOX]][0, 2]
// CHECK-NEXT:    llvm.store %[[L64]], %[[AB2]]
// CHECK-NEXT:    llvm.call @mgpuTensorMapEncodeTiledMemref(%[[RANK3]], %[[AD]], {{.*}}, %[[ABOX]])
// CHECK-NOT:     gemm_pack
// CHECK:         gpu.launch_func @mxfp8train_kernels::@hp_mm_ks_ks_bf16_bf16_f32_256x384x512_b3_p1c1_v8w1s4_n256 blocks in (%c12, %c1, %c1)
func.func @bmm_nt(%a: tensor<3x256x512xbf16>, %b: tensor<3x384x512xbf16>) -> tensor<3x256x384xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x256x384xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<3x256x384xf32>) -> tensor<3x256x384xf32>
  %y = linalg.batch_matmul indexing_maps = [#bmk, #bnk, #bmn]
      ins(%a, %b : tensor<3x256x512xbf16>, tensor<3x384x512xbf16>)
      outs(%f : tensor<3x256x384xf32>) -> tensor<3x256x384xf32>
  return %y : tensor<3x256x384xf32>
}

// batch_matmul with b stored (batch, K, N): A in place (3-D), B packed with
// its batches' padded rows stacked (3 x 512 rows).
// CHECK-LABEL: func.func @bmm_nn(
// CHECK:         %[[BPAD:.*]] = memref.alloc() : memref<786432xbf16>
// CHECK:         gpu.launch_func @mxfp8train_kernels::@gemm_pack_mn_bf16_3x384x512_pad512x512 blocks in (%c96, %c1, %c1) threads in (%c256, %c1, %c1) args(%{{.*}} : memref<589824xbf16>, %[[BPAD]] : memref<786432xbf16>)
// CHECK:         gpu.launch_func @mxfp8train_kernels::@hp_mm_ks_k_bf16_bf16_f32_256x384x512_b3_p1c1_v8w1s4_n256
func.func @bmm_nn(%a: tensor<3x256x512xbf16>, %b: tensor<3x512x384xbf16>) -> tensor<3x256x384xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x256x384xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<3x256x384xf32>) -> tensor<3x256x384xf32>
  %y = linalg.batch_matmul ins(%a, %b : tensor<3x256x512xbf16>, tensor<3x512x384xbf16>)
      outs(%f : tensor<3x256x384xf32>) -> tensor<3x256x384xf32>
  return %y : tensor<3x256x384xf32>
}

// f16 operands: the same kernel with f16 maps (FLOAT16 = 6) and f16 wgmma.
// CHECK-LABEL: func.func @nt_f16(
// CHECK:         %[[F16:.*]] = llvm.mlir.constant(6 : i64) : i64
// CHECK:         llvm.call @mgpuTensorMapEncodeTiledMemref(%{{.*}}, %{{.*}}, %[[F16]],
// CHECK:         gpu.launch_func @mxfp8train_kernels::@hp_mm_k_k_f16_f16_f32_256x384x512_b1_p1c1_v8w1s4_n256
func.func @nt_f16(%x: tensor<256x512xf16>, %w: tensor<384x512xf16>) -> tensor<256x384xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x384xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x384xf32>) -> tensor<256x384xf32>
  %y = linalg.matmul indexing_maps = [#mk, #nk, #mn]
      ins(%x, %w : tensor<256x512xf16>, tensor<384x512xf16>) outs(%f : tensor<256x384xf32>) -> tensor<256x384xf32>
  return %y : tensor<256x384xf32>
}

// Below 128 x 128 x 256 multiply-adds, f32 operands and mixed types keep
// the simple kernel.
// CHECK-LABEL: func.func @small(
// CHECK-NOT:     hp_mm
// CHECK:         gpu.launch_func @mxfp8train_kernels::@gemm_mkbf16_nkbf16_mnf32_1x64x80x96
func.func @small(%x: tensor<64x96xbf16>, %w: tensor<80x96xbf16>) -> tensor<64x80xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x80xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x80xf32>) -> tensor<64x80xf32>
  %y = linalg.matmul indexing_maps = [#mk, #nk, #mn]
      ins(%x, %w : tensor<64x96xbf16>, tensor<80x96xbf16>) outs(%f : tensor<64x80xf32>) -> tensor<64x80xf32>
  return %y : tensor<64x80xf32>
}

// CHECK-LABEL: func.func @mixed(
// CHECK-NOT:     hp_mm
// CHECK:         gpu.launch_func @mxfp8train_kernels::@gemm_mkbf16_nkf32_mnf32_1x256x384x512
func.func @mixed(%x: tensor<256x512xbf16>, %w: tensor<384x512xf32>) -> tensor<256x384xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x384xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x384xf32>) -> tensor<256x384xf32>
  %y = linalg.matmul indexing_maps = [#mk, #nk, #mn]
      ins(%x, %w : tensor<256x512xbf16>, tensor<384x512xf32>) outs(%f : tensor<256x384xf32>) -> tensor<256x384xf32>
  return %y : tensor<256x384xf32>
}

// grouped_mm 2d-3d with the weights stored (E, N, K): tokens in place (2-D
// map; a tile may start at any group start, TMA zero-fills past the last
// row), weights in place (3-D). (1000 / 128 + 4) x 2 tiles at most.
// CHECK-LABEL: func.func @gmm_2d3d(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@hp_gmm_2d3d_k_ks_bf16_bf16_bf16_1000x384x512_b4_p1c1_v8w1s4_n256_c2 clusters in (%c2, %c1, %c1) blocks in (%c32, %c1, %c1) threads in (%c384, %c1, %c1) dynamic_shared_memory_size %c216128_i32 args(%{{.*}} : !llvm.ptr, %{{.*}} : !llvm.ptr, %{{.*}} : memref<4xi32>, %{{.*}} : memref<384000xbf16>)
// SIMPLE-LABEL: func.func @gmm_2d3d(
// SIMPLE:         gpu.launch_func @mxfp8train_kernels::@grouped_gemm_2d3d_
func.func @gmm_2d3d(%x: tensor<1000x512xbf16>, %w: tensor<4x384x512xbf16>, %offs: tensor<4xi32>) -> tensor<1000x384xbf16> {
  %y = mxfp8train.grouped_mm %x, %w offs(%offs) transpose_rhs
      : tensor<1000x512xbf16>, tensor<4x384x512xbf16>, tensor<4xi32> -> tensor<1000x384xbf16>
  return %y : tensor<1000x384xbf16>
}

// grouped_mm 2d-2d: both operands packed with the token groups laid out
// from multiples of 64 of the padded K (1000 + 4 x 64 -> 1280; the group
// table in 96 bytes of dynamic shared memory).
// CHECK-LABEL: func.func @gmm_2d2d(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@gemm_pack_mn_bf16_1x384x1000_pad384x1280_g4 blocks in (%c60, %c1, %c1) threads in (%c256, %c1, %c1) dynamic_shared_memory_size %c96_i32 args(%{{.*}} : memref<384000xbf16>, %[[OFFS:.*]] : memref<4xi32>, %{{.*}} : memref<491520xbf16>)
// CHECK:         gpu.launch_func @mxfp8train_kernels::@gemm_pack_mn_bf16_1x512x1000_pad512x1280_g4 blocks in (%c80, %c1, %c1) threads in (%c256, %c1, %c1) dynamic_shared_memory_size %c96_i32 args(%{{.*}} : memref<512000xbf16>, %[[OFFS]] : memref<4xi32>, %{{.*}} : memref<655360xbf16>)
// CHECK:         gpu.launch_func @mxfp8train_kernels::@hp_gmm_2d2d_k_k_bf16_bf16_f32_384x512x1000_b4_p1c1_v8w1s4_n256_c2 clusters in (%c2, %c1, %c1) blocks in (%c32, %c1, %c1) {{.*}}, %[[OFFS]] : memref<4xi32>, %{{.*}} : memref<786432xf32>)
func.func @gmm_2d2d(%dy: tensor<1000x384xbf16>, %x: tensor<1000x512xbf16>, %offs: tensor<4xi32>) -> tensor<4x384x512xf32> {
  %y = mxfp8train.grouped_mm %dy, %x offs(%offs) transpose_lhs
      : tensor<1000x384xbf16>, tensor<1000x512xbf16>, tensor<4xi32> -> tensor<4x384x512xf32>
  return %y : tensor<4x384x512xf32>
}

// The kernels (created in reverse order of the functions). The f16 GEMM
// multiplies f16.
// BODY-LABEL: gpu.func @hp_mm_k_k_f16_f16_f32_256x384x512_b1_p1c1_v8w1s4_n256(
// BODY:         nvvm.wgmma.mma_async {{.*}} A[<f16>, <one>, <row>], B[<f16>, <one>, <col>]

// The K-major pack: an item of 8 elements inside the operand
// and 16-byte aligned is one vector load, else 8 element loads (zero where
// past K, 100 here, or past the rows); one 16-byte store.
// BODY-LABEL: gpu.func @gemm_pack_k_bf16_1x200x100_pad256x128(
// BODY-SAME:      %[[DATA:.*]]: memref<20000xbf16>{{.*}}, %[[PAD:.*]]: memref<32768xbf16>
// BODY-DAG:     %[[ZERO:.*]] = arith.constant 0.000000e+00 : bf16
// BODY:         scf.if %{{.*}} -> (vector<8xbf16>) {
// BODY-NEXT:      vector.load %[[DATA]][%{{.*}}] {alignment = 16 : i64} : memref<20000xbf16>, vector<8xbf16>
// BODY:         } else {
// BODY-COUNT-8:   memref.load %[[DATA]]
// BODY:           vector.from_elements
// BODY:         vector.store %{{.*}}, %[[PAD]][%{{.*}}] {alignment = 16 : i64} : memref<32768xbf16>, vector<8xbf16>

// The GEMM with an initial output: per accumulator the initial value read
// (clamped index) and added in fp32 before the store.
// BODY-LABEL: gpu.func @hp_mm_k_k_bf16_bf16_f32_initf32_200x300x100_b1_p1c1_v8w1s4_n256(
// BODY-SAME:      %[[INIT:[^:]*]]: memref<60000xf32>
// BODY:         nvvm.wgmma.mma_async {{.*}} A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// BODY:         %[[IV:.*]] = memref.load %[[INIT]][%{{.*}}] : memref<60000xf32>
// BODY-NEXT:    arith.addf %[[IV]], %{{.*}} : f32
