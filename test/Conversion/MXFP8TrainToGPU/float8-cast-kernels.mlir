// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu --split-input-file | FileCheck %s
// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu="chip=sm_100a" --split-input-file | FileCheck %s

// Float8 casts (f32 scales, SPEC-float8 §2) on the GPU: the kernels of
// Float8CastKernels.cpp, target-neutral (the same IR on both chips).

// Rowwise (axis = last): one kernel, one launch of 8 CTAs (64 rows, 8 rows
// of 32 threads per CTA: 16 chunks of 8 bf16 per row). Each thread loads
// its chunk once; the amax is max.NaN over |x| (sign bits cleared) and a
// full butterfly over the warp; the scale is computeFloat8Scale (the EPS
// compare against 0x2B8CBCCC = 730643660, the IEEE division 448 / amax, the
// EPS scale 0x57CBBA10 = 1472969232, then the pow2 R table down to
// [-1, 2] -> 0 ulps); one thread per row stores it; the data is x * s
// through the hardware RNE satfinite cast, NaN products forced to 0x7F.
// CHECK-LABEL: func.func @rowwise(
// CHECK:         %[[IN:.*]] = bufferization.to_buffer
// CHECK:         %[[Q:.*]] = memref.alloc() : memref<64x128xf8E4M3FN>
// CHECK:         %[[S:.*]] = memref.alloc() : memref<64x1xf32>
// CHECK:         %[[SV:.*]] = memref.collapse_shape %[[S]] {{\[}}[0, 1]] : memref<64x1xf32> into memref<64xf32>
// CHECK-NOT:     gpu.memset
// CHECK:         gpu.launch_func  @mxfp8train_kernels::@float8_quantize_row_bf16_e4m3_pow2_64x128 blocks in (%c8, %c1, %c1)
// CHECK-SAME:      args(%[[IN]] : memref<64x128xbf16>, %[[Q]] : memref<64x128xf8E4M3FN>, %[[SV]] : memref<64xf32>)
// CHECK:       gpu.func @float8_quantize_row_bf16_e4m3_pow2_64x128(
// CHECK-SAME:      {llvm.noalias, llvm.readonly}
// CHECK-NOT:       workgroup
// CHECK:           scf.for %{{.*}} = %block_id_x to %c8 step %grid_dim_x
// CHECK:             vector.load %{{.*}} {alignment = 16 : i64} : memref<64x128xbf16>, vector<8xbf16>
// CHECK-NOT:         vector.load
// CHECK:             arith.andi %{{.*}}, %{{.*}} : vector<8xi16>
// CHECK:             vector.reduction <maximumf>, %{{.*}} : vector<8xbf16> into bf16
// CHECK-COUNT-5:     gpu.shuffle  xor
// CHECK:             %[[AMAX:.*]] = vector.extract %{{.*}}[0] : f32 from vector<1xf32>
// CHECK:             %[[BITS:.*]] = arith.bitcast %[[AMAX]] : f32 to i32
// CHECK:             %[[EPS:.*]] = arith.cmpi ule, %[[BITS]], %c730643660_i32 : i32
// CHECK:             %[[DIV:.*]] = arith.divf %cst_{{.*}}, %[[AMAX]] : f32
// CHECK:             %[[EPSS:.*]] = arith.bitcast %c1472969232_i32 : i32 to f32
// CHECK:             arith.select %[[EPS]], %[[EPSS]], %[[DIV]] : f32
// CHECK:             arith.cmpi sge, %{{.*}}, %c-63_i32 : i32
// CHECK:             arith.cmpi sge, %{{.*}}, %c-1_i32 : i32
// CHECK:             %[[SCALE:.*]] = arith.bitcast %{{.*}} : i32 to f32
// CHECK:             scf.if
// CHECK-NEXT:          memref.store %[[SCALE]], %{{.*}} : memref<64xf32>
// CHECK:             scf.if
// CHECK:               %[[Y:.*]] = arith.mulf %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK-COUNT-4:       nvvm.convert.f32x2.to.f8x2 {{.*}} {rnd = #nvvm.fp_rnd_mode<rn>, sat = #nvvm.sat_mode<satfinite>} : i16(f8E4M3FN)
// CHECK:               %[[NAN:.*]] = arith.cmpf uno, %[[Y]], %[[Y]] : vector<8xf32>
// CHECK:               arith.select %[[NAN]], %cst, %{{.*}} : vector<8xi1>, vector<8xi8>
// CHECK:               vector.store %{{.*}} {alignment = 8 : i64} : memref<64x128xf8E4M3FN>, vector<8xf8E4M3FN>
func.func @rowwise(%x: tensor<64x128xbf16>)
    -> (tensor<64x128xf8E4M3FN>, tensor<64x1xf32>) {
  %q, %s = mxfp8train.quantize %x axis = 1 granularity = axiswise pow2
      : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<64x1xf32>
  return %q, %s : tensor<64x128xf8E4M3FN>, tensor<64x1xf32>
}

// -----

// Rows longer than kMaxRowChunksPerThread chunks per thread (20000 bf16:
// 2500 chunks over 256 threads) are read twice (amax loop, cast loop); the
// 8 warps of a row meet in workgroup memory between two barriers.
// CHECK-LABEL: func.func @rowwise_long(
// CHECK:         gpu.launch_func  @mxfp8train_kernels::@float8_quantize_row_f32_e5m2_4x20000 blocks in (%c4, %c1, %c1)
// CHECK:       gpu.func @float8_quantize_row_f32_e5m2_4x20000(
// CHECK-SAME:      workgroup(%{{.*}} : memref<8xf32, #gpu.address_space<workgroup>>)
// CHECK:           scf.for
// CHECK:             scf.for {{.*}} iter_args
// CHECK:               vector.load %{{.*}} : memref<4x20000xf32>, vector<4xf32>
// CHECK:               arith.maximumf %{{.*}}, %{{.*}} : f32
// CHECK:               scf.yield
// CHECK:             gpu.barrier
// CHECK:             gpu.barrier
// CHECK:             arith.divf %cst{{.*}}, %{{.*}} : f32
// CHECK:             scf.for
// CHECK:               vector.load %{{.*}} : memref<4x20000xf32>, vector<4xf32>
// CHECK:               nvvm.convert.f32x2.to.f8x2 {{.*}} : i16(f8E5M2)
func.func @rowwise_long(%x: tensor<4x20000xf32>)
    -> (tensor<4x20000xf8E5M2>, tensor<4x1xf32>) {
  %q, %s = mxfp8train.quantize %x axis = 1 granularity = axiswise
      : tensor<4x20000xf32> -> tensor<4x20000xf8E5M2>, tensor<4x1xf32>
  return %q, %s : tensor<4x20000xf8E5M2>, tensor<4x1xf32>
}

// -----

// Colwise along the -2 axis of 3-D weights: amax words (one per scale)
// zeroed in-stream, an amax kernel over CTA tiles of 128 rows x 32 strips
// (one per batch here: 3 CTAs) whose threads load their 16 rows at once,
// reduce over the CTA's warps in shared memory and atomicMax the u32 bits
// of each column's f32 |x| (the words argument is read and written: no
// llvm.writeonly), and a cast kernel that reads the words (read-only),
// computes the 4 column scales (e5m2: 57344 / amax, EPS scale 0x5B4BBA10 =
// 1531689488), stores them from the first row chunk, and casts.
// CHECK-LABEL: func.func @colwise_3d(
// CHECK:         %[[IN:.*]] = bufferization.to_buffer
// CHECK:         %[[SV:.*]] = memref.collapse_shape %{{.*}} {{\[}}[0], [1, 2]] : memref<3x1x40xf32> into memref<3x40xf32>
// CHECK:         %[[W:.*]] = memref.alloc() : memref<3x40xi32>
// CHECK:         gpu.memset  %[[W]], %c0_i32 : memref<3x40xi32>, i32
// CHECK:         gpu.launch_func  @mxfp8train_kernels::@float8_amax_col_f32_3x64x40
// CHECK-SAME:      args(%[[IN]] : memref<3x64x40xf32>, %[[W]] : memref<3x40xi32>)
// CHECK:         gpu.launch_func  @mxfp8train_kernels::@float8_cast_col_f32_e5m2_3x64x40
// CHECK-SAME:      args(%[[IN]] : memref<3x64x40xf32>, %[[W]] : memref<3x40xi32>, %{{.*}} : memref<3x64x40xf8E5M2>, %[[SV]] : memref<3x40xf32>)
// CHECK:       gpu.func @float8_amax_col_f32_3x64x40(%{{.*}}: memref<3x64x40xf32> {llvm.noalias, llvm.readonly}, %{{.*}}: memref<3x40xi32> {llvm.noalias}) workgroup(%[[RED:.*]] : memref<2048xf32, #gpu.address_space<workgroup>>)
// CHECK:           scf.for %{{.*}} = %block_id_x to %c3 step %grid_dim_x {
// CHECK-COUNT-16:    vector.load %{{.*}} : memref<3x64x40xf32>, vector<4xf32>
// CHECK:             arith.maximumf %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK:             vector.store %{{.*}}, %[[RED]]
// CHECK-NEXT:        gpu.barrier
// CHECK:             scf.if
// CHECK-COUNT-8:       memref.load %[[RED]]
// CHECK:               memref.atomic_rmw maxu %{{.*}}, %{{.*}} : (i32, memref<3x40xi32>) -> i32
// CHECK:             gpu.barrier
// CHECK:       gpu.func @float8_cast_col_f32_e5m2_3x64x40(%{{.*}}: memref<3x64x40xf32> {llvm.noalias, llvm.readonly}, %{{.*}}: memref<3x40xi32> {llvm.noalias, llvm.readonly}, %{{.*}}: memref<3x64x40xf8E5M2> {llvm.noalias, llvm.writeonly}, %{{.*}}: memref<3x40xf32> {llvm.noalias, llvm.writeonly})
// CHECK-DAG:       %[[MAX:.*]] = arith.constant 5.734400e+04 : f32
// CHECK-DAG:       %c1531689488_i32 = arith.constant 1531689488 : i32
// CHECK:           vector.load %{{.*}} {alignment = 16 : i64} : memref<3x40xi32>, vector<4xi32>
// CHECK-COUNT-4:   arith.divf %[[MAX]], %{{.*}} : f32
// CHECK:           scf.if
// CHECK-NEXT:        vector.store %{{.*}} {alignment = 16 : i64} : memref<3x40xf32>, vector<4xf32>
// CHECK-COUNT-16:  vector.store %{{.*}} : memref<3x64x40xf8E5M2>, vector<4xf8E5M2>
func.func @colwise_3d(%w: tensor<3x64x40xf32>)
    -> (tensor<3x64x40xf8E5M2>, tensor<3x1x40xf32>) {
  %q, %s = mxfp8train.quantize %w axis = 1 granularity = axiswise
      : tensor<3x64x40xf32> -> tensor<3x64x40xf8E5M2>, tensor<3x1x40xf32>
  return %q, %s : tensor<3x64x40xf8E5M2>, tensor<3x1x40xf32>
}

// -----

// Tensorwise: one amax word zeroed in-stream; the amax kernel reduces each
// CTA through shuffles and workgroup memory and thread 0 atomicMaxes the
// word; the cast kernel reads the word once per thread, thread 0 of the
// grid writes the rank-0 scale.
// CHECK-LABEL: func.func @tensorwise(
// CHECK:         %[[W:.*]] = memref.alloc() : memref<1xi32>
// CHECK:         gpu.memset  %[[W]], %c0_i32 : memref<1xi32>, i32
// CHECK:         gpu.launch_func  @mxfp8train_kernels::@float8_amax_tensor_bf16_8192 blocks in (%c1, %c1, %c1)
// CHECK:         gpu.launch_func  @mxfp8train_kernels::@float8_cast_tensor_bf16_e5m2_pow2_8192 blocks in (%c4, %c1, %c1)
// CHECK-SAME:      %[[W]] : memref<1xi32>, %{{.*}} : memref<8192xf8E5M2>, %{{.*}} : memref<f32>)
// CHECK:       gpu.func @float8_amax_tensor_bf16_8192(
// CHECK-SAME:      workgroup(%[[WG:.*]] : memref<8xf32, #gpu.address_space<workgroup>>)
// CHECK:           scf.for {{.*}} iter_args
// CHECK-COUNT-4:     vector.load %{{.*}} : memref<8192xbf16>, vector<8xbf16>
// CHECK:           vector.reduction <maximumf>
// CHECK-COUNT-5:   gpu.shuffle  xor
// CHECK:           memref.store %{{.*}}, %[[WG]]
// CHECK:           gpu.barrier
// CHECK-COUNT-8:   memref.load %[[WG]]
// CHECK:           gpu.barrier
// CHECK:           scf.if
// CHECK:             %[[B:.*]] = arith.bitcast %{{.*}} : f32 to i32
// CHECK-NEXT:        memref.atomic_rmw maxu %[[B]], %{{.*}}[%c0] : (i32, memref<1xi32>) -> i32
// CHECK:       gpu.func @float8_cast_tensor_bf16_e5m2_pow2_8192(
// CHECK:           %[[WORD:.*]] = memref.load %{{.*}}[%c0] : memref<1xi32>
// CHECK:           %[[AMAX:.*]] = arith.bitcast %[[WORD]] : i32 to f32
// CHECK:           arith.divf %{{.*}}, %[[AMAX]] : f32
// CHECK:           scf.if
// CHECK-NEXT:        memref.store %{{.*}}, %{{.*}}[] : memref<f32>
// CHECK:           scf.for
// CHECK:             vector.load %{{.*}} : memref<8192xbf16>, vector<8xbf16>
// CHECK:             nvvm.convert.f32x2.to.f8x2 {{.*}} : i16(f8E5M2)
// CHECK:             vector.store %{{.*}} : memref<8192xf8E5M2>, vector<8xf8E5M2>
func.func @tensorwise(%x: tensor<64x128xbf16>)
    -> (tensor<64x128xf8E5M2>, tensor<f32>) {
  %q, %s = mxfp8train.quantize %x granularity = tensorwise pow2
      : tensor<64x128xbf16> -> tensor<64x128xf8E5M2>, tensor<f32>
  return %q, %s : tensor<64x128xf8E5M2>, tensor<f32>
}

// -----

// Dequantize: exact fp8 -> f32 in hardware, the IEEE division by the
// scale (loaded once), NaN made the CPU path's quiet NaN, RNE to bf16.
// CHECK-LABEL: func.func @dequantize_tensorwise(
// CHECK:         gpu.launch_func  @mxfp8train_kernels::@float8_dequantize_tensor_e4m3_bf16_8192 blocks in (%c4, %c1, %c1)
// CHECK:       gpu.func @float8_dequantize_tensor_e4m3_bf16_8192(
// CHECK:           %[[S:.*]] = memref.load %{{.*}}[] : memref<f32>
// CHECK:           scf.for
// CHECK:             %[[SB:.*]] = vector.broadcast %[[S]] : f32 to vector<8xf32>
// CHECK:             nvvm.convert.f8x2.to.f16x2
// CHECK:             %[[P:.*]] = arith.divf %{{.*}}, %[[SB]] : vector<8xf32>
// CHECK:             arith.cmpf uno, %[[P]], %[[P]] : vector<8xf32>
// CHECK:             arith.truncf %[[P]] : vector<8xf32> to vector<8xbf16>
// CHECK:             vector.store %{{.*}} {alignment = 16 : i64} : memref<8192xbf16>, vector<8xbf16>
func.func @dequantize_tensorwise(%q: tensor<64x128xf8E4M3FN>, %s: tensor<f32>)
    -> tensor<64x128xbf16> {
  %a = mxfp8train.dequantize %q [%s] granularity = tensorwise
      : tensor<64x128xf8E4M3FN> [tensor<f32>] -> tensor<64x128xbf16>
  return %a : tensor<64x128xbf16>
}

// -----

// Colwise dequantize: the 4 column scales of each chunk in one load.
// CHECK-LABEL: func.func @dequantize_colwise(
// CHECK:         gpu.launch_func  @mxfp8train_kernels::@float8_dequantize_col_e4m3_f32_1x64x128 blocks in (%c8, %c1, %c1)
// CHECK:       gpu.func @float8_dequantize_col_e4m3_f32_1x64x128(
// CHECK:             %[[CS:.*]] = vector.load %{{.*}} {alignment = 16 : i64} : memref<1x128xf32>, vector<4xf32>
// CHECK:             arith.divf %{{.*}}, %[[CS]] : vector<4xf32>
// CHECK:             vector.store %{{.*}} {alignment = 16 : i64} : memref<1x64x128xf32>, vector<4xf32>
func.func @dequantize_colwise(%q: tensor<64x128xf8E4M3FN>, %c: tensor<1x128xf32>)
    -> tensor<64x128xf32> {
  %b = mxfp8train.dequantize %q [%c] axis = 0 granularity = axiswise
      : tensor<64x128xf8E4M3FN> [tensor<1x128xf32>] -> tensor<64x128xf32>
  return %b : tensor<64x128xf32>
}
