// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu --split-input-file | FileCheck %s
// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu="fuse-producers=false" --split-input-file | FileCheck %s --check-prefix=NOFUSE

// An elementwise linalg.generic whose results only feed quantizes is
// evaluated inside the quantize kernels (FusedProducer.h): SwiGLU's gating
// silu(h1) * h3 before its two casts becomes one quantize_dual launch that
// reads h1 and h3; the generic and its tensor are gone.

// CHECK-LABEL: func.func @swiglu_gate(
// CHECK-NOT:     linalg.generic
// CHECK:         gpu.launch_func @mxfp8train_kernels::@quantize_dual_bf16_e4m3_e4m3_rceil_rowmajor_rowmajor_64x128_ew[[HASH:[0-9a-f]{8}]]
// CHECK-SAME:      args(%{{.*}} : memref<64x128xbf16>, %{{.*}} : memref<64x128xbf16>, %{{.*}} : memref<64x128xf8E4M3FN>, %{{.*}} : memref<64x4xf8E8M0FNU>, %{{.*}} : memref<64x128xf8E4M3FN>, %{{.*}} : memref<2x128xf8E8M0FNU>)
// CHECK-NOT:     gpu.launch_func
// CHECK:       gpu.func @quantize_dual_bf16_e4m3_e4m3_rceil_rowmajor_rowmajor_64x128_ew[[HASH]](
// The body, lane by lane on the loaded rows (4 bf16 columns per row; a
// fused dual kernel gives each lane 8 of the 32 rows of a tile):
// CHECK-COUNT-8: math.exp %{{.*}} : vector<4xf32>
// CHECK-NOT:     math.exp
// CHECK:         arith.truncf %{{.*}} : vector<4xf32> to vector<4xbf16>
// NOFUSE-LABEL: func.func @swiglu_gate(
// NOFUSE:         gpu.launch_func @mxfp8train_kernels::@elementwise_8192_2in_1out_
// NOFUSE:         gpu.launch_func @mxfp8train_kernels::@quantize_dual_bf16_e4m3_e4m3_rceil_rowmajor_rowmajor_64x128 blocks
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @swiglu_gate(%h1: tensor<64x128xbf16>, %h3: tensor<64x128xbf16>)
    -> (tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>,
        tensor<64x128xf8E4M3FN>, tensor<2x128xf8E8M0FNU>) {
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<64x128xbf16>
  %a = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h1, %h3 : tensor<64x128xbf16>, tensor<64x128xbf16>) outs(%e : tensor<64x128xbf16>) {
  ^bb0(%p: bf16, %q: bf16, %o: bf16):
    %pf = arith.extf %p : bf16 to f32
    %qf = arith.extf %q : bf16 to f32
    %n = arith.negf %pf : f32
    %x = math.exp %n : f32
    %d = arith.addf %x, %one : f32
    %s = arith.divf %one, %d : f32
    %silu = arith.mulf %pf, %s : f32
    %g = arith.mulf %silu, %qf : f32
    %t = arith.truncf %g : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<64x128xbf16>
  %rq, %rs = mxfp8train.quantize %a axis = 1 mode = rceil
      : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>
  %cq, %cs = mxfp8train.quantize %a axis = 0 mode = rceil
      : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<2x128xf8E8M0FNU>
  return %rq, %rs, %cq, %cs : tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>,
                              tensor<64x128xf8E4M3FN>, tensor<2x128xf8E8M0FNU>
}

// -----

// A two-result generic (the SwiGLU derivative) read by one quantize per
// result: each kernel evaluates the body and keeps its own result; the
// same operand twice is one kernel argument. Different bodies get
// different kernels.

// CHECK-LABEL: func.func @two_results(
// CHECK-NOT:     linalg.generic
// CHECK:         gpu.launch_func @mxfp8train_kernels::@quantize_1x32_bf16_e4m3_floor_rowmajor_64x128_ew[[H0:[0-9a-f]{8}]]
// CHECK-SAME:      args(%{{.*}} : memref<64x128xbf16>, %{{.*}} : memref<64x128xbf16>, %{{.*}} : memref<64x128xf8E4M3FN>, %{{.*}} : memref<64x4xf8E8M0FNU>)
// CHECK:         gpu.launch_func @mxfp8train_kernels::@quantize_1x32_bf16_e4m3_floor_rowmajor_64x128_ew[[H1:[0-9a-f]{8}]]
// CHECK-SAME:      args(%{{.*}} : memref<64x128xbf16>, %{{.*}} : memref<64x128xbf16>, %{{.*}} : memref<64x128xf8E4M3FN>, %{{.*}} : memref<64x4xf8E8M0FNU>)
// CHECK-NOT:     gpu.launch_func
// CHECK-DAG:   gpu.func @quantize_1x32_bf16_e4m3_floor_rowmajor_64x128_ew[[H0]](
// CHECK-DAG:   gpu.func @quantize_1x32_bf16_e4m3_floor_rowmajor_64x128_ew[[H1]](
// CHECK-DAG:     arith.mulf %{{.*}} : vector<16xf32>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @two_results(%a: tensor<64x128xbf16>, %b: tensor<64x128xbf16>)
    -> (tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>,
        tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>) {
  %e = tensor.empty() : tensor<64x128xbf16>
  %r:2 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b, %a : tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<64x128xbf16>)
      outs(%e, %e : tensor<64x128xbf16>, tensor<64x128xbf16>) {
  ^bb0(%p: bf16, %q: bf16, %p2: bf16, %o: bf16, %o2: bf16):
    %pf = arith.extf %p : bf16 to f32
    %qf = arith.extf %q : bf16 to f32
    %p2f = arith.extf %p2 : bf16 to f32
    %m = arith.mulf %pf, %qf : f32
    %s = arith.addf %m, %p2f : f32
    %t0 = arith.truncf %m : f32 to bf16
    %t1 = arith.truncf %s : f32 to bf16
    linalg.yield %t0, %t1 : bf16, bf16
  } -> (tensor<64x128xbf16>, tensor<64x128xbf16>)
  %q0, %s0 = mxfp8train.quantize %r#0 axis = 1 mode = floor
      : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>
  %q1, %s1 = mxfp8train.quantize %r#1 axis = 1 mode = floor
      : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>
  return %q0, %s0, %q1, %s1 : tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>,
                              tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>
}

// -----

// Not fused: a result the function also returns (it is written anyway), a
// transposing indexing map, and a producer whose inputs would be read more
// often than the separate kernel moves bytes (four inputs, two readers:
// 8 tensor reads against 4 + 1 + 2).

// The returned and the four-input generics get kernels of their own
// (ElementwiseKernels.cpp), the transposing one the parallel-loop path.
// CHECK-LABEL: func.func @not_fused(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@elementwise_4096_1in_1out_
// CHECK:         gpu.launch_func @mxfp8train_kernels::@quantize_1x32_bf16_e4m3_rceil_rowmajor_64x64 blocks
// CHECK:         linalg.generic
// CHECK:         gpu.launch_func @mxfp8train_kernels::@quantize_1x32_bf16_e4m3_rceil_rowmajor_64x64 blocks
// CHECK:         gpu.launch_func @mxfp8train_kernels::@elementwise_4096_4in_1out_
// CHECK:         gpu.launch_func @mxfp8train_kernels::@quantize_1x32_bf16_e4m3_rceil_rowmajor_64x64 blocks
// CHECK:         gpu.launch_func @mxfp8train_kernels::@quantize_1x32_bf16_e4m3_floor_rowmajor_64x64 blocks
// CHECK-NOT:     _ew
#id = affine_map<(d0, d1) -> (d0, d1)>
#t = affine_map<(d0, d1) -> (d1, d0)>
func.func @not_fused(%a: tensor<64x64xbf16>, %b: tensor<64x64xbf16>,
                     %c: tensor<64x64xbf16>, %d: tensor<64x64xbf16>)
    -> (tensor<64x64xbf16>, tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU>,
        tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU>,
        tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU>,
        tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU>) {
  %e = tensor.empty() : tensor<64x64xbf16>
  %returned = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<64x64xbf16>) outs(%e : tensor<64x64xbf16>) {
  ^bb0(%p: bf16, %o: bf16):
    %n = arith.negf %p : bf16
    linalg.yield %n : bf16
  } -> tensor<64x64xbf16>
  %q0, %s0 = mxfp8train.quantize %returned axis = 1 mode = rceil
      : tensor<64x64xbf16> -> tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU>
  %transposed = linalg.generic {indexing_maps = [#t, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<64x64xbf16>) outs(%e : tensor<64x64xbf16>) {
  ^bb0(%p: bf16, %o: bf16):
    %n = arith.negf %p : bf16
    linalg.yield %n : bf16
  } -> tensor<64x64xbf16>
  %q1, %s1 = mxfp8train.quantize %transposed axis = 1 mode = rceil
      : tensor<64x64xbf16> -> tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU>
  %sum = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b, %c, %d : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xbf16>)
      outs(%e : tensor<64x64xbf16>) {
  ^bb0(%p: bf16, %q: bf16, %r: bf16, %s: bf16, %o: bf16):
    %x = arith.addf %p, %q : bf16
    %y = arith.addf %r, %s : bf16
    %z = arith.addf %x, %y : bf16
    linalg.yield %z : bf16
  } -> tensor<64x64xbf16>
  %q2, %s2 = mxfp8train.quantize %sum axis = 1 mode = rceil
      : tensor<64x64xbf16> -> tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU>
  %q3, %s3 = mxfp8train.quantize %sum axis = 1 mode = floor
      : tensor<64x64xbf16> -> tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU>
  return %returned, %q0, %s0, %q1, %s1, %q2, %s2, %q3, %s3
      : tensor<64x64xbf16>, tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU>,
        tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU>,
        tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU>,
        tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU>
}

// -----

// An f32 producer of a quantize_dual: a lane's tile holds 2 columns (8
// bytes of f32 per row), so it is shared by 2 lanes of 16 rows, not the 4
// of a bf16 producer (the amax reductions halve the lane's 2 column maxima
// once per doubling of the lanes): 8 x 192 tiles of 32 x 2, 2 lanes each,
// 3072 threads in 12 CTAs.
// CHECK-LABEL: func.func @f32_producer(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@quantize_dual_f32_e4m3_e4m3_rceil_rowmajor_rowmajor_256x384_ew{{[0-9a-f]*}} blocks in (%c12, %c1, %c1) threads in (%c256, %c1, %c1)
// CHECK-NOT:     linalg.generic
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @f32_producer(%a: tensor<256x384xf32>, %b: tensor<256x384xf32>) -> (tensor<256x384xf8E4M3FN>, tensor<256x12xf8E8M0FNU>, tensor<256x384xf8E4M3FN>, tensor<8x384xf8E8M0FNU>) {
  %e = tensor.empty() : tensor<256x384xf32>
  %g = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%a, %b : tensor<256x384xf32>, tensor<256x384xf32>) outs(%e : tensor<256x384xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    linalg.yield %p : f32
  } -> tensor<256x384xf32>
  %dr, %drs, %dc, %dcs = mxfp8train.quantize_dual %g mode = rceil : tensor<256x384xf32> -> tensor<256x384xf8E4M3FN>, tensor<256x12xf8E8M0FNU>, tensor<256x384xf8E4M3FN>, tensor<8x384xf8E8M0FNU>
  return %dr, %drs, %dc, %dcs : tensor<256x384xf8E4M3FN>, tensor<256x12xf8E8M0FNU>, tensor<256x384xf8E4M3FN>, tensor<8x384xf8E8M0FNU>
}
