// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu --canonicalize --split-input-file | FileCheck %s

// Float8 scaled_mm on sm_90a (Gemm/WGMMAFloat8.cpp): the v8 ring (two wgmma
// warpgroups + one TMA producer warpgroup = 384 threads, 128x256 tiles,
// four 48 KiB stages, their mbarriers, the staged epilogue's 18 KiB and the
// tile's 384 scale reciprocals: 217664 bytes of dynamic shared memory) on the fp8
// operands as stored, without pre-passes. The tensor maps are over the
// operands themselves: rank 2, UINT8 (0), 128B swizzle (3), boxes of 128
// (A) or 256 (B) rows x 128 fp8 (128 bytes). Four wgmma m64n256k32 per
// stage; the epilogue multiplies each accumulator by RN_f32(1/sa[m]) and
// then by RN_f32(1/sb[n]) (f32 divisions of 1.0, computed once per tile
// into shared memory), adds the bias in f32 and
// rounds once to bf16 (SPEC-float8 §5.4). Every op here has the role
// `forward`, whose GEMM accumulates fast (one wgmma accumulator over K, as
// torchao's output GEMM); promotion: scaled-mm-float8-promote.mlir.

// CHECK-LABEL: func.func @rowwise(
// CHECK-DAG:     %[[RANK:.*]] = llvm.mlir.constant(2 : i64) : i64
// CHECK-DAG:     %[[SW128:.*]] = llvm.mlir.constant(3 : i64) : i64
// CHECK-DAG:     %[[L0:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK-DAG:     %[[L128:.*]] = llvm.mlir.constant(128 : i64) : i64
// CHECK-DAG:     %[[L256:.*]] = llvm.mlir.constant(256 : i64) : i64
// CHECK-NOT:     memref.alloc
// CHECK:         %[[ABOX:.*]] = llvm.alloca %{{.*}} x !llvm.array<2 x i64>
// CHECK-NEXT:    %[[AB0:.*]] = llvm.getelementptr %[[ABOX]][0, 0]
// CHECK-NEXT:    llvm.store %[[L128]], %[[AB0]]
// CHECK-NEXT:    %[[AB1:.*]] = llvm.getelementptr %[[ABOX]][0, 1]
// CHECK-NEXT:    llvm.store %[[L128]], %[[AB1]]
// CHECK-NEXT:    %[[AMAP:.*]] = llvm.call @mgpuTensorMapEncodeTiledMemref(%[[RANK]], %{{.*}}, %[[L0]], %[[L0]], %[[SW128]], %[[RANK]], %[[L0]], %[[ABOX]])
// CHECK:         %[[BBOX:.*]] = llvm.alloca %{{.*}} x !llvm.array<2 x i64>
// CHECK-NEXT:    %[[BB0:.*]] = llvm.getelementptr %[[BBOX]][0, 0]
// CHECK-NEXT:    llvm.store %[[L256]], %[[BB0]]
// CHECK-NEXT:    %[[BB1:.*]] = llvm.getelementptr %[[BBOX]][0, 1]
// CHECK-NEXT:    llvm.store %[[L128]], %[[BB1]]
// CHECK-NEXT:    %[[BMAP:.*]] = llvm.call @mgpuTensorMapEncodeTiledMemref(%[[RANK]], %{{.*}}, %[[L0]], %[[L0]], %[[SW128]], %[[RANK]], %[[L0]], %[[BBOX]])
// CHECK:         %[[SA:.*]] = memref.collapse_shape %{{.*}} {{\[\[}}0, 1]] : memref<256x1xf32> into memref<256xf32>
// CHECK:         %[[SB:.*]] = memref.collapse_shape %{{.*}} {{\[\[}}0, 1]] : memref<384x1xf32> into memref<384xf32>
// CHECK:         %[[BIAS:.*]] = bufferization.to_buffer %{{.*}} : tensor<384xbf16> to memref<384xbf16>
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_mm_k_k_e4m3_e4m3_bf16_biasbf16_256x384x512_b1_p1c1_v9w1s4_n256_f8rr blocks in (%c4, %c1, %c1) threads in (%c384, %c1, %c1) dynamic_shared_memory_size %c217664_i32 args(%[[AMAP]] : !llvm.ptr, %[[SA]] : memref<256xf32>, %[[BMAP]] : !llvm.ptr, %[[SB]] : memref<384xf32>, %[[BIAS]] : memref<384xbf16>, %{{.*}} : memref<98304xbf16>)
// CHECK:         llvm.call @mgpuMemFree(%[[AMAP]]
// CHECK:         llvm.call @mgpuMemFree(%[[BMAP]]

// The kernel: the producer's expect_tx of a whole 48 KiB stage and its two
// boxes (A at stage offset 0, B at 16384); per stage four wgmma k32 on e4m3
// operands, the descriptors 32 bytes (2 units of 16) apart along K.
// CHECK-LABEL: gpu.func @scaled_mm_k_k_e4m3_e4m3_bf16_biasbf16_256x384x512_b1_p1c1_v9w1s4_n256_f8rr(
// CHECK-SAME:      %[[KA:.*]]: !llvm.ptr {{{.*}}}, %[[KSA:.*]]: memref<256xf32> {{{.*}}}, %[[KB:.*]]: !llvm.ptr {{{.*}}}, %[[KSB:.*]]: memref<384xf32> {{{.*}}}, %[[KBIAS:.*]]: memref<384xbf16> {{{.*}}}, %[[KOUT:.*]]: memref<98304xbf16> {{{.*}}})
// CHECK-SAME:      known_block_size = array<i32: 384, 1, 1>
// CHECK:           nvvm.wgmma.fence.aligned
// CHECK:           %[[W0:.*]] = nvvm.wgmma.mma_async %[[DA:[^,]*]], %[[DB:[^,]*]], %{{.*}}, <m = 64, n = 256, k = 32>, D[<f32>, <one>], A[<e4m3>, <one>, <row>], B[<e4m3>, <one>, <col>]
// CHECK:           %[[W1:.*]] = nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[W0]], <m = 64, n = 256, k = 32>, D[<f32>, <one>], A[<e4m3>, <one>, <row>], B[<e4m3>, <one>, <col>]
// CHECK:           %[[W2:.*]] = nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[W1]], <m = 64, n = 256, k = 32>
// CHECK:           %[[W3:.*]] = nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[W2]], <m = 64, n = 256, k = 32>
// CHECK-NOT:       nvvm.wgmma.mma_async
// CHECK:           nvvm.wgmma.commit.group.sync.aligned
// CHECK:           nvvm.wgmma.wait.group.sync.aligned 1
// The tile's scale reciprocals, staged in shared memory while the last
// stage's wgmma run (Float8EpilogueScales::stageFactors): between two named
// barriers of the 256 MMA threads, threads 0-127 compute the tile's 128 row
// factors (rows clamped to m - 1 = 255) at 215104 (after the stages, the
// mbarriers and the staging slots), every thread one of its 256 column
// factors (clamped to n - 1 = 383) at 215616.
// CHECK:           %[[FROWS:.*]] = arith.addi %{{.*}}, %c215104 : index
// CHECK-NEXT:      nvvm.barrier id = %[[C1:.*]] number_of_threads = %[[C256:.*]]
// CHECK-NEXT:      %[[FCOLS:.*]] = arith.addi %{{.*}}, %c215616 : index
// CHECK-NEXT:      %[[LOW:.*]] = arith.cmpi ult, %thread_id_x, %c128 : index
// CHECK-NEXT:      scf.if %[[LOW]] {
// CHECK:             arith.minui %{{.*}}, %c255 : index
// CHECK-NEXT:        %[[SA:.*]] = memref.load %[[KSA]][%{{.*}}] : memref<256xf32>
// CHECK-NEXT:        %[[IA:.*]] = arith.divf %[[ONE:.*]], %[[SA]] : f32
// CHECK:             llvm.store %[[IA]], %{{.*}} : f32, !llvm.ptr<3>
// CHECK-NEXT:      }
// CHECK:           arith.minui %{{.*}}, %c383 : index
// CHECK-NEXT:      %[[SB:.*]] = memref.load %[[KSB]][%{{.*}}] : memref<384xf32>
// CHECK-NEXT:      %[[IB:.*]] = arith.divf %[[ONE]], %[[SB]] : f32
// CHECK:           llvm.store %[[IB]], %{{.*}} : f32, !llvm.ptr<3>
// CHECK-NEXT:      nvvm.barrier id = %[[C1]] number_of_threads = %[[C256]]
// CHECK-NEXT:      nvvm.wgmma.wait.group.sync.aligned 0
// The epilogue: the thread's two row factors, then per column pair its
// factors, each one shared load; each value (acc * ia) * ib, + bias, one
// truncation. No division and no scale load past the staging.
// CHECK-NOT:       arith.divf
// CHECK:           %[[IA0:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
// CHECK-NOT:       arith.divf
// CHECK:           %[[IA1:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
// CHECK-NOT:       arith.divf
// CHECK:           %[[IB0:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
// CHECK-NOT:       arith.divf
// CHECK:           %[[IB1:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
// CHECK-NEXT:      %[[ACC0:.*]] = llvm.extractvalue %{{.*}}[0]
// CHECK-NEXT:      %[[P0:.*]] = arith.mulf %[[ACC0]], %[[IA0]] : f32
// CHECK-NEXT:      %[[Q0:.*]] = arith.mulf %[[P0]], %[[IB0]] : f32
// CHECK:           %[[BV0:.*]] = memref.load %[[KBIAS]]
// CHECK-NEXT:      %[[BF0:.*]] = arith.extf %[[BV0]] : bf16 to f32
// CHECK-NEXT:      %[[R0:.*]] = arith.addf %[[Q0]], %[[BF0]] : f32
// CHECK-NEXT:      arith.truncf %[[R0]] : f32 to bf16
// CHECK-NEXT:      %[[ACC1:.*]] = llvm.extractvalue %{{.*}}[1]
// CHECK-NEXT:      %[[P1:.*]] = arith.mulf %[[ACC1]], %[[IA0]] : f32
// CHECK-NEXT:      arith.mulf %[[P1]], %[[IB1]] : f32
// Registers 2 and 3 are row + 8: the second row factor, the same columns.
// CHECK:           %[[ACC2:.*]] = llvm.extractvalue %{{.*}}[2]
// CHECK-NEXT:      %[[P2:.*]] = arith.mulf %[[ACC2]], %[[IA1]] : f32
// CHECK-NEXT:      arith.mulf %[[P2]], %[[IB0]] : f32
// CHECK:           llvm.extractvalue %{{.*}}[4]
// The TMA producer: one 49152-byte transaction and two boxes per stage.
// CHECK:           nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c49152_i32
// CHECK:           nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[KA]], %[[K0:[^,]*]], box[%[[KC:.*]], %{{.*}}]
// CHECK-NEXT:      %{{.*}} = arith.addi %{{.*}}, %c16384
// CHECK:           nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[KB]], %[[K0]], box[%[[KC]], %{{.*}}]
func.func @rowwise(%x: tensor<256x512xf8E4M3FN>, %xs: tensor<256x1xf32>, %w: tensor<384x512xf8E4M3FN>, %ws: tensor<384x1xf32>, %b: tensor<384xbf16>) -> tensor<256x384xbf16> {
  %y = mxfp8train.scaled_mm %x [%xs], %w [%ws] bias(%b) transpose_rhs {mxfp8train.role = "forward"}
      : tensor<256x512xf8E4M3FN> [tensor<256x1xf32>], tensor<384x512xf8E4M3FN> [tensor<384x1xf32>], tensor<384xbf16> -> tensor<256x384xbf16>
  return %y : tensor<256x384xbf16>
}

// -----

// Tensorwise e5m2 grad_output x e4m3 weight (the tensorwise recipe's
// grad_input), f32 out, 128x128 tiles (gemm_config tile_n = 128, six 32 KiB
// stages): the scales stay 0-d buffers, one reciprocal each per tile, no
// rounding to bf16. K = 96 is less than one stage (TMA zero-fills the rest).
// CHECK-LABEL: func.func @tensorwise(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_mm_k_k_e5m2_e4m3_f32_200x304x96_b1_p1c1_v9w1s6_f8tt blocks in (%c6, %c1, %c1) threads in (%c384, %c1, %c1) dynamic_shared_memory_size %c197728_i32 args(%{{.*}} : !llvm.ptr, %{{.*}} : memref<f32>, %{{.*}} : !llvm.ptr, %{{.*}} : memref<f32>, %{{.*}} : memref<60800xf32>)
// CHECK-LABEL: gpu.func @scaled_mm_k_k_e5m2_e4m3_f32_200x304x96_b1_p1c1_v9w1s6_f8tt(
// CHECK-SAME:      %{{.*}}: !llvm.ptr {{{.*}}}, %[[TA:.*]]: memref<f32> {{{.*}}}, %{{.*}}: !llvm.ptr {{{.*}}}, %[[TB:.*]]: memref<f32> {{{.*}}}, %{{.*}}: memref<60800xf32>
// CHECK:           nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 32>, D[<f32>, <one>], A[<e5m2>, <one>, <row>], B[<e4m3>, <one>, <col>]
// CHECK:           %[[S:.*]] = memref.load %[[TA]][] : memref<f32>
// CHECK-NEXT:      %[[IA:.*]] = arith.divf %{{.*}}, %[[S]] : f32
// CHECK-NEXT:      %[[T:.*]] = memref.load %[[TB]][] : memref<f32>
// CHECK-NEXT:      %[[IB:.*]] = arith.divf %{{.*}}, %[[T]] : f32
// CHECK-NOT:       arith.divf
// CHECK:           %[[P:.*]] = arith.mulf %{{.*}}, %[[IA]] : f32
// CHECK-NEXT:      arith.mulf %[[P]], %[[IB]] : f32
// CHECK-NOT:       arith.truncf
// CHECK:           gpu.return
func.func @tensorwise(%g: tensor<200x96xf8E5M2>, %t: tensor<f32>, %w: tensor<304x96xf8E4M3FN>, %u: tensor<f32>) -> tensor<200x304xf32> {
  %y = mxfp8train.scaled_mm %g [%t], %w [%u] transpose_rhs {mxfp8train.gemm_config = #mxfp8train.gemm_config<tile_n = 128, stages = 6>, mxfp8train.role = "forward"}
      : tensor<200x96xf8E5M2> [tensor<f32>], tensor<304x96xf8E4M3FN> [tensor<f32>] -> tensor<200x304xf32>
  return %y : tensor<200x304xf32>
}

// -----

// Rank 3: 3-D tensor maps over the operands as stored (one batch per box,
// tag `ks`), 3 x 2 x 1 tiles; the row scale of batch b, row r is read at
// b * M + min(r, M - 1).
// CHECK-LABEL: func.func @batched(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_mm_ks_ks_e4m3_e4m3_bf16_200x144x256_b3_p1c1_v9w1s4_n256_f8rr blocks in (%c6, %c1, %c1) threads in (%c384, %c1, %c1)
// CHECK-LABEL: gpu.func @scaled_mm_ks_ks_e4m3_e4m3_bf16_200x144x256_b3_p1c1_v9w1s4_n256_f8rr(
// CHECK-SAME:      %{{.*}}: !llvm.ptr {{{.*}}}, %[[SA:.*]]: memref<600xf32> {{{.*}}}, %{{.*}}: !llvm.ptr {{{.*}}}, %{{.*}}: memref<432xf32>
// CHECK:           %[[R:.*]] = arith.minui %{{.*}}, %c199 : index
// CHECK-NEXT:      %[[B:.*]] = arith.muli %[[BATCH:.*]], %c200 : index
// CHECK-NEXT:      %[[I:.*]] = arith.addi %[[B]], %[[R]] : index
// CHECK-NEXT:      memref.load %[[SA]][%[[I]]] : memref<600xf32>
// CHECK:           nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, box[%{{.*}}, %{{.*}}, %{{.*}}]
// CHECK-NEXT:      arith.addi
// CHECK-NEXT:      arith.index_castui
// CHECK-NEXT:      llvm.inttoptr
// CHECK-NEXT:      nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, box[%{{.*}}, %{{.*}}, %{{.*}}]
func.func @batched(%x: tensor<3x200x256xf8E4M3FN>, %xs: tensor<3x200x1xf32>, %w: tensor<3x144x256xf8E4M3FN>, %ws: tensor<3x144x1xf32>) -> tensor<3x200x144xbf16> {
  %y = mxfp8train.scaled_mm %x [%xs], %w [%ws] transpose_rhs {mxfp8train.role = "forward"}
      : tensor<3x200x256xf8E4M3FN> [tensor<3x200x1xf32>], tensor<3x144x256xf8E4M3FN> [tensor<3x144x1xf32>] -> tensor<3x200x144xbf16>
  return %y : tensor<3x200x144xbf16>
}

// -----

// scaled_grouped_mm 2d-3d: A (tokens, K) through a 2-D map, the experts
// (E, N, K) through a 3-D one; the walk of the groups in pairs of row
// tiles (the cluster along M: (ceil(8 / 2) + 4 groups) x 2 column tiles =
// 16 pairs, 32 CTAs), the offsets after the scales, the expert's column
// scales at e * N + min(n, N - 1).
// CHECK-LABEL: func.func @grouped(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_gmm_2d3d_k_ks_e4m3_e4m3_bf16_1000x384x512_b4_p1c1_v9w1s4_n256_c2_f8rr clusters in (%c2, %c1, %c1) blocks in (%c32, %c1, %c1) threads in (%c384, %c1, %c1) dynamic_shared_memory_size %c217664_i32 args(%{{.*}} : !llvm.ptr, %{{.*}} : memref<1000xf32>, %{{.*}} : !llvm.ptr, %{{.*}} : memref<1536xf32>, %{{.*}} : memref<4xi32>, %{{.*}} : memref<384000xbf16>)
// CHECK-LABEL: gpu.func @scaled_gmm_2d3d_k_ks_e4m3_e4m3_bf16_1000x384x512_b4_p1c1_v9w1s4_n256_c2_f8rr(
// CHECK-SAME:      %{{.*}}: !llvm.ptr {{{.*}}}, %{{.*}}: memref<1000xf32> {{{.*}}}, %{{.*}}: !llvm.ptr {{{.*}}}, %[[SB:.*]]: memref<1536xf32> {{{.*}}}, %{{.*}}: memref<4xi32>
// CHECK:           nvvm.wgmma.mma_async {{.*}} <m = 64, n = 256, k = 32>, D[<f32>, <one>], A[<e4m3>, <one>, <row>], B[<e4m3>, <one>, <col>]
// CHECK:           %[[C:.*]] = arith.minui %{{.*}}, %c383 : index
// CHECK-NEXT:      %[[E:.*]] = arith.muli %{{.*}}, %c384 : index
// CHECK-NEXT:      %[[I:.*]] = arith.addi %[[E]], %[[C]] : index
// CHECK-NEXT:      memref.load %[[SB]][%[[I]]] : memref<1536xf32>
func.func @grouped(%a: tensor<1000x512xf8E4M3FN>, %as: tensor<1000x1xf32>, %w: tensor<4x384x512xf8E4M3FN>, %ws: tensor<4x384x1xf32>, %offs: tensor<4xi32>) -> tensor<1000x384xbf16> {
  %out = mxfp8train.scaled_grouped_mm %a [%as], %w [%ws] offs(%offs) transpose_rhs {mxfp8train.role = "forward"}
      : tensor<1000x512xf8E4M3FN> [tensor<1000x1xf32>], tensor<4x384x512xf8E4M3FN> [tensor<4x384x1xf32>], tensor<4xi32> -> tensor<1000x384xbf16>
  return %out : tensor<1000x384xbf16>
}
