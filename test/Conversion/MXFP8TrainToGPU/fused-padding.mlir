// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu --canonicalize --split-input-file | FileCheck %s
// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu="fuse-padding=false" --canonicalize --split-input-file | FileCheck %s --check-prefix=NOPAD

// Token-group padding fused into the column casts (`fuse-padding`,
// FusedProducer.h isFusablePad): a 32x1 MX quantize of a pad_token_groups
// result reads the pad's input. Each 32-row block of the padded rows lies in
// one group's padded range; the kernel walks the 4 offsets (clamped into
// [start, 200] as the pad kernel does), takes the block's first token and
// its token count (clamped into [0, 32]), loads every row clamped to token
// 199 and selects zeros past the count. The pad only computes its padded
// offsets: one CTA, (offs, padded offs).

// CHECK-LABEL: func.func @pad_cast(
// CHECK:         gpu.launch_func  @mxfp8train_kernels::@pad_token_groups_bf16_a32_200x64_to_352x64_g4_offs blocks in (%c1, %c1, %c1) {{.*}} args(%{{.*}} : memref<4xi32>, %{{.*}} : memref<4xi32>)
// CHECK:         gpu.launch_func  @mxfp8train_kernels::@quantize_32x1_bf16_e4m3_rceil_rowmajor_352x64_pad4a32t200 {{.*}} args(%{{.*}} : memref<200x64xbf16>, %{{.*}} : memref<4xi32>, %{{.*}} : memref<352x64xf8E4M3FN>
// CHECK-LABEL: gpu.func @quantize_32x1_bf16_e4m3_rceil_rowmajor_352x64_pad4a32t200(
// CHECK:           scf.for %{{.*}} = %c0 to %c4 step %c1 iter_args({{.*}}) -> (i32, i32, i32, i32) {
// CHECK:             memref.load %arg1[%{{.*}}] : memref<4xi32>
// CHECK:             arith.maxsi
// CHECK:             arith.minsi %{{.*}}, %c200_i32 : i32
// CHECK:             arith.maxsi %{{.*}}, %c0_i32 : i32
// CHECK:             arith.minsi %{{.*}}, %c32_i32 : i32
// CHECK-COUNT-32:  arith.minui %{{.*}}, %c199 : index
// CHECK-COUNT-32:  vector.load %arg0[%{{.*}}, %{{.*}}] {alignment = 8 : i64} : memref<200x64xbf16>, vector<4xbf16>
// CHECK-COUNT-32:  arith.select %{{.*}}, %{{.*}}, %cst{{.*}} : vector<4xbf16>
// CHECK-LABEL: gpu.func @pad_token_groups_bf16_a32_200x64_to_352x64_g4_offs(
// CHECK-NOT:       vector.store
// CHECK:           gpu.return

// NOPAD-LABEL: func.func @pad_cast(
// NOPAD:         gpu.launch_func  @mxfp8train_kernels::@pad_token_groups_bf16_a32_200x64_to_352x64_g4 {{.*}} args(%{{.*}} : memref<200x64xbf16>, %{{.*}} : memref<4xi32>, %{{.*}} : memref<352x64xbf16>, %{{.*}} : memref<4xi32>)
// NOPAD:         gpu.launch_func  @mxfp8train_kernels::@quantize_32x1_bf16_e4m3_rceil_rowmajor_352x64 {{.*}} args(%{{.*}} : memref<352x64xbf16>,
func.func @pad_cast(%x: tensor<200x64xbf16>, %offs: tensor<4xi32>) -> (tensor<352x64xf8E4M3FN>, tensor<11x64xf8E8M0FNU>, tensor<4xi32>) {
  %xp, %po = mxfp8train.pad_token_groups %x offs(%offs) alignment = 32 : tensor<200x64xbf16>, tensor<4xi32> -> tensor<352x64xbf16>, tensor<4xi32>
  %q, %s = mxfp8train.quantize %xp axis = 0 mode = rceil : tensor<352x64xbf16> -> tensor<352x64xf8E4M3FN>, tensor<11x64xf8E8M0FNU>
  return %q, %s, %po : tensor<352x64xf8E4M3FN>, tensor<11x64xf8E8M0FNU>, tensor<4xi32>
}

// -----

// Padded data read by something else (here returned): the pad kernel writes
// it and the cast reads it.
// CHECK-LABEL: func.func @pad_returned(
// CHECK:         gpu.launch_func  @mxfp8train_kernels::@pad_token_groups_bf16_a32_200x64_to_352x64_g4 {{.*}} args(%{{.*}} : memref<200x64xbf16>,
// CHECK:         gpu.launch_func  @mxfp8train_kernels::@quantize_32x1_bf16_e4m3_rceil_rowmajor_352x64 {{.*}} args(%{{.*}} : memref<352x64xbf16>,
func.func @pad_returned(%x: tensor<200x64xbf16>, %offs: tensor<4xi32>) -> (tensor<352x64xf8E4M3FN>, tensor<11x64xf8E8M0FNU>, tensor<352x64xbf16>) {
  %xp, %po = mxfp8train.pad_token_groups %x offs(%offs) alignment = 32 : tensor<200x64xbf16>, tensor<4xi32> -> tensor<352x64xbf16>, tensor<4xi32>
  %q, %s = mxfp8train.quantize %xp axis = 0 mode = rceil : tensor<352x64xbf16> -> tensor<352x64xf8E4M3FN>, tensor<11x64xf8E8M0FNU>
  return %q, %s, %xp : tensor<352x64xf8E4M3FN>, tensor<11x64xf8E8M0FNU>, tensor<352x64xbf16>
}

// -----

// An elementwise producer read by a 1x32 cast and by a fused pad with
// alignment 128 (whole blocks of zeros in a group's padding): the producer
// keeps its kernel (isFusableProducer: a result feeding a pad is not
// fused), the 32x1 cast reads its result through the pad's offsets. The
// padded offsets are not used: no pad kernel at all.
// CHECK-LABEL: func.func @producer_pad(
// CHECK-NOT:     pad_token_groups
// CHECK:         gpu.launch_func  @mxfp8train_kernels::@elementwise_
// CHECK:         gpu.launch_func  @mxfp8train_kernels::@quantize_1x32_bf16_e4m3_rceil_rowmajor_200x64 {{.*}} args(%{{.*}} : memref<200x64xbf16>, %{{.*}} : memref<200x64xf8E4M3FN>,
// CHECK-NOT:     pad_token_groups
// CHECK:         gpu.launch_func  @mxfp8train_kernels::@quantize_32x1_bf16_e4m3_rceil_rowmajor_768x64_pad4a128t200 {{.*}} args(%{{.*}} : memref<200x64xbf16>, %{{.*}} : memref<4xi32>, %{{.*}} : memref<768x64xf8E4M3FN>,
// CHECK:         return

// NOPAD-LABEL: func.func @producer_pad(
// NOPAD:         gpu.launch_func  @mxfp8train_kernels::@elementwise_
// NOPAD:         gpu.launch_func  @mxfp8train_kernels::@quantize_1x32_bf16_e4m3_rceil_rowmajor_200x64 {{.*}} args(%{{.*}} : memref<200x64xbf16>, %{{.*}} : memref<200x64xf8E4M3FN>,
// NOPAD:         gpu.launch_func  @mxfp8train_kernels::@pad_token_groups_bf16_a128_200x64_to_768x64_g4
// NOPAD:         gpu.launch_func  @mxfp8train_kernels::@quantize_32x1_bf16_e4m3_rceil_rowmajor_768x64 {{.*}} args(%{{.*}} : memref<768x64xbf16>,
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @producer_pad(%a: tensor<200x64xbf16>, %b: tensor<200x64xbf16>, %offs: tensor<4xi32>) -> (tensor<200x64xf8E4M3FN>, tensor<200x2xf8E8M0FNU>, tensor<768x64xf8E4M3FN>, tensor<24x64xf8E8M0FNU>) {
  %e = tensor.empty() : tensor<200x64xbf16>
  %g = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%a, %b : tensor<200x64xbf16>, tensor<200x64xbf16>) outs(%e : tensor<200x64xbf16>) {
  ^bb0(%x: bf16, %y: bf16, %o: bf16):
    %xf = arith.extf %x : bf16 to f32
    %yf = arith.extf %y : bf16 to f32
    %p = arith.mulf %xf, %yf : f32
    %t = arith.truncf %p : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<200x64xbf16>
  %r, %rs = mxfp8train.quantize %g axis = 1 mode = rceil : tensor<200x64xbf16> -> tensor<200x64xf8E4M3FN>, tensor<200x2xf8E8M0FNU>
  %gp, %po = mxfp8train.pad_token_groups %g offs(%offs) alignment = 128 : tensor<200x64xbf16>, tensor<4xi32> -> tensor<768x64xbf16>, tensor<4xi32>
  %c, %cs = mxfp8train.quantize %gp axis = 0 mode = rceil : tensor<768x64xbf16> -> tensor<768x64xf8E4M3FN>, tensor<24x64xf8E8M0FNU>
  return %r, %rs, %c, %cs : tensor<200x64xf8E4M3FN>, tensor<200x2xf8E8M0FNU>, tensor<768x64xf8E4M3FN>, tensor<24x64xf8E8M0FNU>
}

// -----

// Two 32x1 casts (f32, two element types) of one padded tensor: both read
// the pad's input; the padded offsets are unused, so no pad kernel.
// CHECK-LABEL: func.func @two_casts(
// CHECK-NOT:     pad_token_groups
// CHECK:         gpu.launch_func  @mxfp8train_kernels::@quantize_32x1_f32_e4m3_floor_rowmajor_352x64_pad4a32t200 {{.*}} args(%{{.*}} : memref<200x64xf32>, %{{.*}} : memref<4xi32>,
// CHECK-NOT:     pad_token_groups
// CHECK:         gpu.launch_func  @mxfp8train_kernels::@quantize_32x1_f32_e5m2_rceil_rowmajor_352x64_pad4a32t200 {{.*}} args(%{{.*}} : memref<200x64xf32>, %{{.*}} : memref<4xi32>,
func.func @two_casts(%x: tensor<200x64xf32>, %offs: tensor<4xi32>) -> (tensor<352x64xf8E4M3FN>, tensor<11x64xf8E8M0FNU>, tensor<352x64xf8E5M2>, tensor<11x64xf8E8M0FNU>) {
  %xp, %po = mxfp8train.pad_token_groups %x offs(%offs) alignment = 32 : tensor<200x64xf32>, tensor<4xi32> -> tensor<352x64xf32>, tensor<4xi32>
  %q, %s = mxfp8train.quantize %xp axis = 0 mode = floor : tensor<352x64xf32> -> tensor<352x64xf8E4M3FN>, tensor<11x64xf8E8M0FNU>
  %q2, %s2 = mxfp8train.quantize %xp axis = 0 mode = rceil : tensor<352x64xf32> -> tensor<352x64xf8E5M2>, tensor<11x64xf8E8M0FNU>
  return %q, %s, %q2, %s2 : tensor<352x64xf8E4M3FN>, tensor<11x64xf8E8M0FNU>, tensor<352x64xf8E5M2>, tensor<11x64xf8E8M0FNU>
}

// -----

// No tokens: nothing to read through the offsets; the pad kernel writes the
// zero rows (and the offsets) and the cast reads them.
// CHECK-LABEL: func.func @zero_tokens(
// CHECK:         gpu.launch_func  @mxfp8train_kernels::@pad_token_groups_bf16_a32_0x64_to_64x64_g2 {{.*}} args(%{{.*}} : memref<2xi32>, %{{.*}} : memref<64x64xbf16>, %{{.*}} : memref<2xi32>)
// CHECK:         gpu.launch_func  @mxfp8train_kernels::@quantize_32x1_bf16_e4m3_rceil_rowmajor_64x64 {{.*}} args(%{{.*}} : memref<64x64xbf16>,
func.func @zero_tokens(%x: tensor<0x64xbf16>, %offs: tensor<2xi32>) -> (tensor<64x64xf8E4M3FN>, tensor<2x64xf8E8M0FNU>, tensor<2xi32>) {
  %xp, %po = mxfp8train.pad_token_groups %x offs(%offs) alignment = 32 : tensor<0x64xbf16>, tensor<2xi32> -> tensor<64x64xbf16>, tensor<2xi32>
  %q, %s = mxfp8train.quantize %xp axis = 0 mode = rceil : tensor<64x64xbf16> -> tensor<64x64xf8E4M3FN>, tensor<2x64xf8E8M0FNU>
  return %q, %s, %po : tensor<64x64xf8E4M3FN>, tensor<2x64xf8E8M0FNU>, tensor<2xi32>
}
