// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu --split-input-file | FileCheck %s
// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu="chip=sm_100a" --split-input-file | FileCheck %s

// Per-group (offs) Float8 casts on the GPU (Float8GroupCastKernels.cpp,
// SPEC-float8 §3.3), target-neutral.

// Quantize (64, 128) bf16 in 4 groups: the (4, 128) amax words zeroed by a
// memset, the amax kernel (one CTA tile of 128 rows x 32 strips of 8
// columns: one CTA) and the cast kernel (16 rows x 8 columns: 64 items).
// Both build the group table (thread 0 clamps offs[g] into [previous end,
// 64]; rows start, end, padded start, padded end) in workgroup memory
// behind a barrier. A tile's (a row chunk's) groups come from two
// bisections (first group ending after its first row: table row 1, ends;
// first group starting after its last row: table row 0, starts). An amax
// thread loads its 16 rows at once (clamped to the last row); per group,
// max.NaN over |x| (sign bits cleared) of its rows inside the group (0
// outside), reduced over the CTA's warps in shared memory, one atomicMax
// per column.
// CHECK-LABEL: func.func @quantize_per_group(
// CHECK:         %[[IN:.*]] = bufferization.to_buffer %arg0
// CHECK:         %[[OFFS:.*]] = bufferization.to_buffer %arg1
// CHECK:         %[[Q:.*]] = memref.alloc() : memref<64x128xf8E4M3FN>
// CHECK:         %[[S:.*]] = memref.alloc() : memref<4x128xf32>
// CHECK:         %[[W:.*]] = memref.alloc() : memref<4x128xi32>
// CHECK:         gpu.memset %[[W]], %{{.*}} : memref<4x128xi32>, i32
// CHECK:         gpu.launch_func @mxfp8train_kernels::@float8_group_amax_bf16_64x128_g4 blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(%[[IN]] : memref<64x128xbf16>, %[[OFFS]] : memref<4xi32>, %[[W]] : memref<4x128xi32>)
// CHECK:         gpu.launch_func @mxfp8train_kernels::@float8_group_quantize_bf16_e4m3_pow2_64x128_g4 blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(%[[IN]] : memref<64x128xbf16>, %[[OFFS]] : memref<4xi32>, %[[W]] : memref<4x128xi32>, %[[Q]] : memref<64x128xf8E4M3FN>, %[[S]] : memref<4x128xf32>)

// CHECK-LABEL: gpu.func @float8_group_amax_bf16_64x128_g4(
// CHECK-SAME:      %[[AW:[a-z0-9]+]]: memref<4x128xi32> {llvm.noalias}) workgroup(%[[T:.*]] : memref<4x4xi32, #gpu.address_space<workgroup>>, %[[RED:.*]] : memref<2048xf32, #gpu.address_space<workgroup>>)
// CHECK:           scf.for %{{.*}} = %c0 to %c4 step %c1 iter_args
// CHECK:             %[[O:.*]] = memref.load %arg1
// CHECK:             %[[MX:.*]] = arith.maxsi %[[O]], %{{.*}} : i32
// CHECK:             arith.minsi %[[MX]], %c64_i32 : i32
// CHECK-COUNT-4:     memref.store %{{.*}}, %[[T]]
// CHECK:         gpu.barrier
// CHECK:         scf.for %{{.*}} = %block_id_x to %c1 step %grid_dim_x {
// CHECK-COUNT-16:  vector.load %arg0{{.*}} {alignment = 16 : i64} : memref<64x128xbf16>, vector<8xbf16>
// CHECK-COUNT-3:   memref.load %[[T]][%c1,
// CHECK-COUNT-3:   memref.load %[[T]][%c0,
// CHECK:           scf.for %[[G:.*]] = %{{.*}} to %{{.*}} step %c1 {
// CHECK:             %[[LO:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK:             %[[HI:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK:             %[[GE:.*]] = arith.cmpi ule, %[[LO]], %{{.*}} : index
// CHECK-NEXT:        %[[LT:.*]] = arith.cmpi ult, %{{.*}}, %[[HI]] : index
// CHECK-NEXT:        %[[IN:.*]] = arith.andi %[[GE]], %[[LT]] : i1
// CHECK-NEXT:        arith.select %[[IN]], %{{.*}}, %cst{{.*}} : vector<8xbf16>
// CHECK:             arith.extf %{{.*}} : vector<8xbf16> to vector<8xf32>
// CHECK:             vector.store %{{.*}}, %[[RED]]
// CHECK-NEXT:        gpu.barrier
// CHECK:             scf.if
// CHECK-COUNT-8:       memref.load %[[RED]]
// CHECK:               memref.atomic_rmw maxu %{{.*}}, %[[AW]][%[[G]], %{{.*}}] : (i32, memref<4x128xi32>) -> i32
// CHECK:             gpu.barrier

// The cast: the item of row chunk rc writes the scales of groups rc,
// rc + 4, ... (every (group, column) once) from their words
// (computeFloat8Scale: the EPS compare, 448 / amax, the pow2 R table);
// then each group segment's scales and its rows cast 8 at a time (RN_f32(x
// * s), the hardware satfinite cast, NaN products 0x7F), and the rows from
// the last group end (table row 1, group 3) written as 0x00.
// CHECK-LABEL: gpu.func @float8_group_quantize_bf16_e4m3_pow2_64x128_g4(
// CHECK-SAME:      %arg2: memref<4x128xi32> {llvm.noalias, llvm.readonly}, %[[D:[a-z0-9]+]]: memref<64x128xf8E4M3FN> {llvm.noalias, llvm.writeonly}, %[[SC:[a-z0-9]+]]: memref<4x128xf32> {llvm.noalias, llvm.writeonly}) workgroup(%[[T:.*]] : memref<4x4xi32, #gpu.address_space<workgroup>>)
// CHECK:         gpu.barrier
// CHECK:         scf.for %{{.*}} to %c64 step
// CHECK:           scf.for %[[SG:.*]] = %{{.*}} to %c4 step %c4 {
// CHECK:             vector.load %arg2[%[[SG]], %{{.*}}] {alignment = 32 : i64} : memref<4x128xi32>, vector<8xi32>
// CHECK:             arith.cmpi ule, %{{.*}}, %c730643660_i32 : i32
// CHECK:             arith.divf %cst_{{.*}}, %{{.*}} : f32
// CHECK:             vector.store %{{.*}}, %[[SC]][%[[SG]], %{{.*}}] {alignment = 32 : i64} : memref<4x128xf32>, vector<8xf32>
// CHECK:           scf.for %[[G:.*]] = %{{.*}} to %{{.*}} step %c1 {
// CHECK:             vector.load %arg2[%[[G]], %{{.*}}] {alignment = 32 : i64} : memref<4x128xi32>, vector<8xi32>
// CHECK:             scf.for %{{.*}} step %c8 {
// CHECK:               %[[Y:.*]] = arith.mulf %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK:               nvvm.convert.f32x2.to.f8x2 {{.*}} {rnd = #nvvm.fp_rnd_mode<rn>, sat = #nvvm.sat_mode<satfinite>} : i16(f8E4M3FN)
// CHECK:               arith.cmpf uno, %[[Y]], %[[Y]] : vector<8xf32>
// CHECK-COUNT-8:       vector.store %{{.*}}, %[[D]][%{{.*}}, %{{.*}}] {alignment = 8 : i64} : memref<64x128xf8E4M3FN>, vector<8xf8E4M3FN>
// CHECK:           %[[END:.*]] = memref.load %[[T]][%c1, %c3]
// CHECK:           %[[ENDI:.*]] = arith.index_cast %[[END]] : i32 to index
// CHECK:           %[[TAIL:.*]] = arith.maxui %[[ENDI]], %{{.*}} : index
// CHECK:           %[[ZERO:.*]] = arith.bitcast %{{.*}} : vector<8xi8> to vector<8xf8E4M3FN>
// CHECK:           scf.for %[[R:.*]] = %[[TAIL]] to %{{.*}} step %c1 {
// CHECK-NEXT:        vector.store %[[ZERO]], %[[D]][%[[R]], %{{.*}}] {alignment = 8 : i64}
func.func @quantize_per_group(%x: tensor<64x128xbf16>, %offs: tensor<4xi32>)
    -> (tensor<64x128xf8E4M3FN>, tensor<4x128xf32>) {
  %q, %s = mxfp8train.quantize %x offs(%offs) axis = 0 granularity = axiswise pow2
      : tensor<64x128xbf16>, tensor<4xi32> -> tensor<64x128xf8E4M3FN>, tensor<4x128xf32>
  return %q, %s : tensor<64x128xf8E4M3FN>, tensor<4x128xf32>
}

// -----

// No groups (E = 0): every row is past the last group end, so the data is
// all 0x00; no words to zero, no amax kernel, no table; the empty scale
// buffer is no kernel parameter.
// CHECK-LABEL: func.func @quantize_no_groups(
// CHECK-NOT:     gpu.memset
// CHECK-NOT:     float8_group_amax
// CHECK:         gpu.launch_func @mxfp8train_kernels::@float8_group_quantize_f32_e5m2_40x16_g0 blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(%{{.*}} : memref<40x16xf32>, %{{.*}} : memref<40x16xf8E5M2>)
// CHECK:       gpu.func @float8_group_quantize_f32_e5m2_40x16_g0(
// CHECK-NOT:       workgroup
// CHECK-NOT:       gpu.barrier
// CHECK:           scf.for %{{.*}} = %{{.*}} to %c12 step
// CHECK:             scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %c1 {
// CHECK-NEXT:          vector.store %{{.*}}, %arg1[%[[R]], %{{.*}}] {alignment = 4 : i64} : memref<40x16xf8E5M2>, vector<4xf8E5M2>
func.func @quantize_no_groups(%x: tensor<40x16xf32>, %offs: tensor<0xi32>)
    -> (tensor<40x16xf8E5M2>, tensor<0x16xf32>) {
  %q, %s = mxfp8train.quantize %x offs(%offs) axis = 0 granularity = axiswise
      : tensor<40x16xf32>, tensor<0xi32> -> tensor<40x16xf8E5M2>, tensor<0x16xf32>
  return %q, %s : tensor<40x16xf8E5M2>, tensor<0x16xf32>
}

// -----

// No rows: every scale is that of amax 0 (2^48 for e4m3 with pow2), filled
// (EmptyShapes.h); no cast kernel.
// CHECK-LABEL: func.func @quantize_no_rows(
// CHECK-NOT:     float8_group_
// CHECK:         %[[S:.*]] = arith.constant 2.81474977E+14 : f32
// CHECK:         linalg.fill ins(%[[S]] : f32) outs(%{{.*}} : tensor<2x16xf32>)
// CHECK-NOT:     float8_group_amax
func.func @quantize_no_rows(%x: tensor<0x16xbf16>, %offs: tensor<2xi32>)
    -> (tensor<0x16xf8E4M3FN>, tensor<2x16xf32>) {
  %q, %s = mxfp8train.quantize %x offs(%offs) axis = 0 granularity = axiswise pow2
      : tensor<0x16xbf16>, tensor<2xi32> -> tensor<0x16xf8E4M3FN>, tensor<2x16xf32>
  return %q, %s : tensor<0x16xf8E4M3FN>, tensor<2x16xf32>
}

// -----

// Dequantize (96, 40) e4m3 -> bf16 in 3 groups: one launch, 8 columns per
// item (480 items, 2 CTAs). The row's group by bisection of the ends, its
// scales (clamped to the last group), the exact fp8 widening, the IEEE
// division, +0 past the last group end, RNE to bf16.
// CHECK-LABEL: func.func @dequantize_per_group(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@float8_group_dequantize_e4m3_bf16_96x40_g3 blocks in (%c2, %c1, %c1) threads in (%c256, %c1, %c1) args(%{{.*}} : memref<96x40xf8E4M3FN>, %{{.*}} : memref<3x40xf32>, %{{.*}} : memref<3xi32>, %{{.*}} : memref<96x40xbf16>)
// CHECK:       gpu.func @float8_group_dequantize_e4m3_bf16_96x40_g3(
// CHECK-SAME:      workgroup(%[[T:.*]] : memref<4x3xi32, #gpu.address_space<workgroup>>)
// CHECK:         gpu.barrier
// CHECK:         scf.for %{{.*}} to %c480 step
// CHECK-COUNT-2:   memref.load %[[T]][%c1,
// CHECK:           %[[IN:.*]] = arith.cmpi ult, %[[G:.*]], %c3 : index
// CHECK:           %[[GC:.*]] = arith.minui %[[G]], %c2 : index
// CHECK:           vector.load %arg1[%[[GC]], %{{.*}}] {alignment = 32 : i64} : memref<3x40xf32>, vector<8xf32>
// CHECK:           nvvm.convert.f8x2.to.f16x2
// CHECK:           %[[P:.*]] = arith.divf %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK:           %[[SEL:.*]] = arith.select %[[IN]], %[[P]], %{{.*}} : vector<8xf32>
// CHECK:           arith.truncf %[[SEL]] : vector<8xf32> to vector<8xbf16>
// CHECK:           vector.store %{{.*}}, %arg3[%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<96x40xbf16>, vector<8xbf16>
func.func @dequantize_per_group(%q: tensor<96x40xf8E4M3FN>, %s: tensor<3x40xf32>, %offs: tensor<3xi32>) -> tensor<96x40xbf16> {
  %x = mxfp8train.dequantize %q [%s] offs(%offs) axis = 0 granularity = axiswise
      : tensor<96x40xf8E4M3FN> [tensor<3x40xf32>], tensor<3xi32> -> tensor<96x40xbf16>
  return %x : tensor<96x40xbf16>
}
