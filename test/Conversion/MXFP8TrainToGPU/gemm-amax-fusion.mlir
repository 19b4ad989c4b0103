// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu="fuse-gemm-amax=true" --canonicalize --split-input-file | FileCheck %s
// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu --canonicalize --split-input-file | FileCheck %s --check-prefix=NOFUSE
// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu="fuse-gemm-amax=true fuse-sibling-casts=false" --canonicalize --split-input-file | FileCheck %s --check-prefix=NOSIB
// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu="fuse-gemm-amax=true gemm-amax-warps=3" --canonicalize --split-input-file | FileCheck %s --check-prefix=WARPS
// RUN: not mxfp8-opt %s --convert-mxfp8train-to-gpu="fuse-gemm-amax=true gemm-amax-warps=4" --split-input-file 2>&1 | FileCheck %s --check-prefix=BADWARPS
// BADWARPS: gemm-amax-warps must be 0, 1, 2 or 3 (got 4)
// BADWARPS-NOT: see current operation
// RUN: not mxfp8-opt %s --convert-mxfp8train-to-gpu="gemm-amax-warps=2" --split-input-file 2>&1 | FileCheck %s --check-prefix=WARPS-ALONE
// WARPS-ALONE: error: convert-mxfp8train-to-gpu: gemm-amax-warps=2 chooses where fuse-gemm-amax takes its amaxes: it needs fuse-gemm-amax=true
// sm_100a: not planned (the tcgen05 kernel's epilogue takes no amax yet);
// the casts keep their amax kernels.
// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu="chip=sm_100a fuse-gemm-amax=true" --canonicalize --split-input-file | FileCheck %s --check-prefix=SM100
// SM100-LABEL: func.func @swiglu_forward(
// SM100:         @scaled_mm_tc05_k_k_e4m3_e4m3_bf16_256x384x128_f8tt_s{{[0-9]+}} blocks
// SM100:         @scaled_mm_tc05_k_k_e4m3_e4m3_bf16_256x384x128_f8tt_s{{[0-9]+}} blocks
// SM100:         @float8_amax_tensor_bf16_98304_ew
// SM100-LABEL: func.func @swiglu_backward(
// SM100:         @float8_amax_tensor_bf16_98304_ew
// SM100-NOT:     _amax{{[0-9a-f]}}

// fuse-gemm-amax (Gemm/GemmAmaxFusion.h): the tensorwise amaxes of the
// casts of an elementwise producer of a Float8 GEMM's result are taken in
// that GEMM's staged epilogue, which loads the producer's other operands
// at the chunk it stores, evaluates the body and atomicMaxes each result's
// |x| into words zeroed before its launch (`_amax<hash>`); the casts launch
// no amax kernel and read those words.

// SwiGLU forward: h = silu(h1) * h3 over the two forward GEMMs' results;
// the later GEMM (h3) takes the amax and reads h1.
// CHECK-LABEL: func.func @swiglu_forward(
// CHECK:         %[[H1:.*]] = memref.alloc() : memref<256x384xbf16>
// CHECK:         gpu.launch_func  @mxfp8train_kernels::@scaled_mm_k_k_e4m3_e4m3_bf16_256x384x128_b1_p1c1_v9w1s{{[0-9]+}}_n256_f8tt blocks
// CHECK:         %[[WORDS:.*]] = memref.alloc() : memref<1xi32>
// CHECK-NEXT:    gpu.memset  %[[WORDS]], %{{.*}} : memref<1xi32>, i32
// CHECK:         %[[H1FLAT:.*]] = memref.collapse_shape %[[H1]]
// CHECK:         %[[H3:.*]] = memref.alloc() : memref<256x384xbf16>
// CHECK:         %[[H3FLAT:.*]] = memref.collapse_shape %[[H3]]
// CHECK:         gpu.launch_func  @mxfp8train_kernels::@scaled_mm_k_k_e4m3_e4m3_bf16_256x384x128_b1_p1c1_v9w1s{{[0-9]+}}_n256_f8tt_amax[[HASH:[0-9a-f]+]] blocks {{.*}}, %[[H1FLAT]] : memref<98304xbf16>, %[[H3FLAT]] : memref<98304xbf16>, %[[WORDS]] : memref<1xi32>)
// CHECK-NOT:     float8_amax_tensor
// CHECK:         gpu.launch_func  @mxfp8train_kernels::@float8_cast_tensor_bf16_e4m3_98304_ew{{[0-9a-f]+}} blocks {{.*}}, %[[WORDS]] : memref<1xi32>,
// The kernel: h1 read only, the words read and written (no writeonly);
// h1's chunk loaded at the clamped offset before the stores, the body's
// exp, |x| by the sign bit, a running maximum; after the tile walk a warp
// maximum and one atomic from lane 0.
// CHECK-LABEL: gpu.func @scaled_mm_k_k_e4m3_e4m3_bf16_256x384x128_b1_p1c1_v9w1s{{[0-9]+}}_n256_f8tt_amax
// CHECK-SAME:      %[[KH1:[a-z0-9]+]]: memref<98304xbf16> {llvm.noalias, llvm.readonly}, %[[KOUT:[a-z0-9]+]]: memref<98304xbf16> {llvm.noalias, llvm.writeonly}, %[[KW:[a-z0-9]+]]: memref<1xi32> {llvm.noalias})
// CHECK:           %[[MAX:.*]] = memref.alloca() : memref<1xf32>
// CHECK:           memref.store %{{.*}}, %[[MAX]]
// At the tile's start, h1's rows of the tile into L2 (one row a thread).
// CHECK:           nvvm.cp.async.bulk.prefetch
// CHECK:           nvvm.wgmma.mma_async
// CHECK:           nvvm.stmatrix
// The first row chunk's h1 at its column and row clamped into the output
// (n - 8 = 376, m - 1 = 255), then the masked store and, in the same
// branch, the body on (h1, the stored h3) in the generic's input order.
// CHECK:           %[[COL:.*]] = arith.minui %{{.*}}, %c376 : index
// CHECK:           arith.minui %{{.*}}, %c255 : index
// CHECK:           %[[IN:.*]] = vector.load %[[KH1]][%{{.*}}] {alignment = 16 : i64} : memref<98304xbf16>, vector<8xbf16>
// CHECK-COUNT-3:   vector.load %[[KH1]]
// CHECK:           scf.if %{{.*}} {
// CHECK:             vector.store %[[V:.*]], %[[KOUT]][%{{.*}}] {alignment = 16 : i64}
// CHECK-NEXT:        %[[A:.*]] = arith.extf %[[IN]] : vector<8xbf16> to vector<8xf32>
// CHECK-NEXT:        %[[B:.*]] = arith.extf %[[V]] : vector<8xbf16> to vector<8xf32>
// CHECK-NEXT:        %[[NEG:.*]] = arith.negf %[[A]]
// CHECK-NEXT:        math.exp %[[NEG]]
// CHECK:             arith.mulf %{{.*}}, %[[B]]
// CHECK:             arith.andi %{{.*}} : vector<8xi16>
// CHECK:             vector.reduction <maximumf>
// CHECK:             %[[OLD:.*]] = memref.load %[[MAX]]
// CHECK-NEXT:        %[[NEW:.*]] = arith.maximumf %[[OLD]], %{{.*}} : f32
// CHECK-NEXT:        memref.store %[[NEW]], %[[MAX]]
// CHECK-NEXT:      }
// CHECK-COUNT-5:     gpu.shuffle  xor
// CHECK:           memref.atomic_rmw maxu %{{.*}}, %[[KW]][%{{.*}}] : (i32, memref<1xi32>) -> i32
// With gemm-amax-warps=3 (`w3`): warps 1-3 of the TMA producer
// warpgroup take the amaxes from each tile the MMA warps stored, through a
// ring of four tile mbarriers (full: 256 MMA arrivals, empty: 96); the
// output is read back (not writeonly); the staged epilogue reads no h1.
// WARPS-LABEL: gpu.func @scaled_mm_k_k_e4m3_e4m3_bf16_256x384x128_b1_p1c1_v9w1s{{[0-9]+}}_n256_f8tt_amax{{[0-9a-f]+}}w3
// WARPS-SAME:      %[[KH1:[a-z0-9]+]]: memref<98304xbf16> {llvm.noalias, llvm.readonly}, %[[KOUT:[a-z0-9]+]]: memref<98304xbf16>, %[[KW:[a-z0-9]+]]: memref<1xi32> {llvm.noalias})
// The tile mbarriers follow the stages, the ring's mbarriers, the staged
// epilogue's slots (4 x 32 KiB + 64 + 18432 = 215104 bytes here).
// WARPS-COUNT-4:   nvvm.mbarrier.init %{{.*}}, %c96_i32
// WARPS:           nvvm.fence.mbarrier.init
// WARPS:           nvvm.setmaxregister  increase 216
// The MMA warps: wait for the tile's slot (empty[slot], slot + 4, parity
// flipped), the tile, its stores, arrive on full[slot].
// WARPS:           %[[E:.*]] = arith.xori %{{.*}}, %c1_i32 : i32
// WARPS-NEXT:      %[[S4:.*]] = arith.addi %{{.*}}, %c4 : index
// WARPS-NEXT:      %[[TB:.*]] = arith.addi %{{.*}}, %c215104 : index
// WARPS-NEXT:      arith.muli %[[S4]], %c8 : index
// WARPS-NEXT:      arith.addi %[[TB]]
// WARPS-NEXT:      arith.index_castui
// WARPS-NEXT:      %[[EP:.*]] = llvm.inttoptr
// WARPS-NEXT:      nvvm.mbarrier.try_wait.parity %[[EP]], %[[E]]
// WARPS:           nvvm.cp.async.bulk.prefetch
// WARPS:           nvvm.wgmma.mma_async
// WARPS-NOT:       vector.load %[[KH1]]
// WARPS:           nvvm.stmatrix
// WARPS-NOT:       vector.load %[[KH1]]
// WARPS:           arith.andi %{{.*}}, %c3 : index
// WARPS-NEXT:      %[[FB:.*]] = arith.addi %{{.*}}, %c215104 : index
// WARPS-NEXT:      arith.muli %{{.*}}, %c8 : index
// WARPS-NEXT:      arith.addi %[[FB]]
// WARPS-NEXT:      arith.index_castui
// WARPS-NEXT:      %[[FP:.*]] = llvm.inttoptr
// WARPS-NEXT:      nvvm.mbarrier.arrive %[[FP]]
// WARPS:           nvvm.setmaxregister  decrease 72
// The amax warps: wait on full[slot] with the tile's parity, read the tile
// back with h1, accumulate, arrive on empty[slot]; at the end a warp
// maximum and the atomic.
// WARPS:           %[[AB:.*]] = arith.addi %{{.*}}, %c215104 : index
// WARPS-NEXT:      arith.muli %{{.*}}, %c8 : index
// WARPS-NEXT:      arith.addi %[[AB]]
// WARPS-NEXT:      arith.index_castui
// WARPS-NEXT:      %[[AP:.*]] = llvm.inttoptr
// WARPS-NEXT:      nvvm.mbarrier.try_wait.parity %[[AP]]
// WARPS-NEXT:      scf.for
// WARPS:           vector.load %[[KOUT]]
// WARPS:           vector.load %[[KH1]]
// WARPS:           vector.load %[[KOUT]]
// WARPS:           vector.load %[[KH1]]
// WARPS:           math.exp
// WARPS:           arith.addi %{{.*}}, %c4 : index
// WARPS-NEXT:      %[[RB:.*]] = arith.addi %{{.*}}, %c215104 : index
// WARPS-NEXT:      arith.muli %{{.*}}, %c8 : index
// WARPS-NEXT:      arith.addi %[[RB]]
// WARPS-NEXT:      arith.index_castui
// WARPS-NEXT:      %[[RP:.*]] = llvm.inttoptr
// WARPS-NEXT:      nvvm.mbarrier.arrive %[[RP]]
// WARPS:           gpu.shuffle  xor
// WARPS:           memref.atomic_rmw maxu %{{.*}}, %[[KW]]
// NOFUSE-LABEL: func.func @swiglu_forward(
// NOFUSE-NOT:     _amax
// NOFUSE:         @float8_amax_tensor_bf16_98304_ew
// NOFUSE:         @float8_cast_tensor_bf16_e4m3_98304_ew
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @swiglu_forward(%qx: tensor<256x128xf8E4M3FN>, %sx: tensor<f32>, %qw1: tensor<384x128xf8E4M3FN>, %sw1: tensor<f32>, %qw3: tensor<384x128xf8E4M3FN>, %sw3: tensor<f32>) -> (tensor<256x384xf8E4M3FN>, tensor<f32>) {
  %cst = arith.constant 1.000000e+00 : f32
  %h1 = mxfp8train.scaled_mm %qx[%sx], %qw1[%sw1] transpose_rhs {mxfp8train.role = "forward", mxfp8train.use_fast_accum = true} : tensor<256x128xf8E4M3FN>[tensor<f32>], tensor<384x128xf8E4M3FN>[tensor<f32>] -> tensor<256x384xbf16>
  %h3 = mxfp8train.scaled_mm %qx[%sx], %qw3[%sw3] transpose_rhs {mxfp8train.role = "forward", mxfp8train.use_fast_accum = true} : tensor<256x128xf8E4M3FN>[tensor<f32>], tensor<384x128xf8E4M3FN>[tensor<f32>] -> tensor<256x384xbf16>
  %e = tensor.empty() : tensor<256x384xbf16>
  %h = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%h1, %h3 : tensor<256x384xbf16>, tensor<256x384xbf16>) outs(%e : tensor<256x384xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %o: bf16):
    %af = arith.extf %a : bf16 to f32
    %bf = arith.extf %b : bf16 to f32
    %n = arith.negf %af : f32
    %x = math.exp %n : f32
    %d = arith.addf %x, %cst : f32
    %s = arith.divf %cst, %d : f32
    %m = arith.mulf %af, %s : f32
    %r = arith.mulf %m, %bf : f32
    %t = arith.truncf %r : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<256x384xbf16>
  %q, %sq = mxfp8train.quantize %h granularity = tensorwise : tensor<256x384xbf16> -> tensor<256x384xf8E4M3FN>, tensor<f32>
  return %q, %sq : tensor<256x384xf8E4M3FN>, tensor<f32>
}

// -----

// SwiGLU backward: the pair (dA * h3 * silu'(h1), dA * silu(h1)) over the
// promoted dgrad GEMM's result dA and h1, h3 (defined before it): one word
// per sibling cast, the GEMM reads h1 and h3.
// CHECK-LABEL: func.func @swiglu_backward(
// CHECK:         %[[WORDS:.*]] = memref.alloc() : memref<2xi32>
// CHECK-NEXT:    gpu.memset  %[[WORDS]], %{{.*}} : memref<2xi32>, i32
// CHECK:         gpu.launch_func  @mxfp8train_kernels::@scaled_mm_k_k_e5m2_e4m3_bf16_256x384x128_b1_p1c1_v9w1s{{[0-9]+}}_f8tt_acc128_amax{{[0-9a-f]+}} blocks {{.*}} : memref<98304xbf16>, %{{.*}} : memref<98304xbf16>, %{{.*}} : memref<98304xbf16>, %[[WORDS]] : memref<2xi32>)
// CHECK-NOT:     float8_amax_tensor
// CHECK:         gpu.launch_func  @mxfp8train_kernels::@float8_cast_tensor_bf16_e5m2_98304_ew{{[0-9a-f]+}} blocks {{.*}}, %[[WORDS]] : memref<2xi32>,
// Result r's maximum goes to word r: the generic's first yield (dA * h3 *
// silu'(h1)) into the first running maximum, flushed into word 0.
// CHECK-LABEL: gpu.func @scaled_mm_k_k_e5m2_e4m3_bf16_256x384x128_b1_p1c1_v9w1s{{[0-9]+}}_f8tt_acc128_amax
// CHECK-SAME:      %[[KW:[a-z0-9]+]]: memref<2xi32> {llvm.noalias})
// CHECK:           %[[MAX0:.*]] = memref.alloca() : memref<1xf32>
// CHECK:           %[[MAX1:.*]] = memref.alloca() : memref<1xf32>
// CHECK:           nvvm.cp.async.bulk.prefetch
// CHECK-NOT:       nvvm.cp.async.bulk.prefetch
// CHECK:           nvvm.wgmma.mma_async
// CHECK:           %[[DH1:.*]] = arith.truncf %{{.*}} : vector<8xf32> to vector<8xbf16>
// CHECK-NEXT:      %[[DH3:.*]] = arith.truncf %{{.*}} : vector<8xf32> to vector<8xbf16>
// CHECK-NEXT:      arith.bitcast %[[DH1]]
// CHECK:           memref.store %{{.*}}, %[[MAX0]]
// CHECK-NEXT:      arith.bitcast %[[DH3]]
// CHECK:           memref.store %{{.*}}, %[[MAX1]]
// CHECK:           %[[F0:.*]] = memref.load %[[MAX0]]
// CHECK:           %[[F1:.*]] = memref.load %[[MAX1]]
// CHECK:           memref.atomic_rmw maxu %{{.*}}, %[[KW]][%c0]
// CHECK-NEXT:      arith.bitcast
// CHECK-NEXT:      memref.atomic_rmw maxu %{{.*}}, %[[KW]][%c1]
// NOFUSE-LABEL: func.func @swiglu_backward(
// NOFUSE:         @float8_amax_tensor_bf16_98304_ew
// Without sibling casts each quantize is lowered alone: not planned.
// NOSIB-LABEL: func.func @swiglu_backward(
// NOSIB-NOT:     _amax
// NOSIB:         @float8_amax_tensor_bf16_98304_ew
// NOSIB:         @float8_amax_tensor_bf16_98304_ew
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @swiglu_backward(%h1: tensor<256x384xbf16>, %h3: tensor<256x384xbf16>, %qdo: tensor<256x128xf8E5M2>, %sdo: tensor<f32>, %qw2: tensor<128x384xf8E4M3FN>, %sw2: tensor<f32>) -> (tensor<256x384xf8E5M2>, tensor<f32>, tensor<256x384xf8E5M2>, tensor<f32>) {
  %cst = arith.constant 1.000000e+00 : f32
  %da = mxfp8train.scaled_mm %qdo[%sdo], %qw2[%sw2] {mxfp8train.role = "dgrad", mxfp8train.use_fast_accum = false} : tensor<256x128xf8E5M2>[tensor<f32>], tensor<128x384xf8E4M3FN>[tensor<f32>] -> tensor<256x384xbf16>
  %e = tensor.empty() : tensor<256x384xbf16>
  %g:2 = linalg.generic {indexing_maps = [#map, #map, #map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%da, %h1, %h3 : tensor<256x384xbf16>, tensor<256x384xbf16>, tensor<256x384xbf16>) outs(%e, %e : tensor<256x384xbf16>, tensor<256x384xbf16>) {
  ^bb0(%in: bf16, %in_14: bf16, %in_15: bf16, %out: bf16, %out_16: bf16):
    %14 = arith.extf %in : bf16 to f32
    %15 = arith.extf %in_14 : bf16 to f32
    %16 = arith.extf %in_15 : bf16 to f32
    %17 = arith.negf %15 : f32
    %18 = math.exp %17 : f32
    %19 = arith.addf %18, %cst : f32
    %20 = arith.divf %cst, %19 : f32
    %21 = arith.mulf %15, %20 : f32
    %22 = arith.mulf %14, %21 : f32
    %23 = arith.subf %cst, %20 : f32
    %24 = arith.mulf %15, %23 : f32
    %25 = arith.addf %24, %cst : f32
    %26 = arith.mulf %20, %25 : f32
    %27 = arith.mulf %14, %16 : f32
    %28 = arith.mulf %27, %26 : f32
    %29 = arith.truncf %28 : f32 to bf16
    %30 = arith.truncf %22 : f32 to bf16
    linalg.yield %29, %30 : bf16, bf16
  } -> (tensor<256x384xbf16>, tensor<256x384xbf16>)
  %q0, %s0 = mxfp8train.quantize %g#0 granularity = tensorwise : tensor<256x384xbf16> -> tensor<256x384xf8E5M2>, tensor<f32>
  %q1, %s1 = mxfp8train.quantize %g#1 granularity = tensorwise : tensor<256x384xbf16> -> tensor<256x384xf8E5M2>, tensor<f32>
  return %q0, %s0, %q1, %s1 : tensor<256x384xf8E5M2>, tensor<f32>, tensor<256x384xf8E5M2>, tensor<f32>
}

// -----

// Not planned: an operand of another type than the GEMM's result (f32),
// an operand defined after the GEMM, a rowwise (axiswise) cast.
// CHECK-LABEL: func.func @kept(
// CHECK-NOT:     _amax
// CHECK:         @float8_amax_tensor_bf16_98304_ew
// CHECK:         @float8_amax_tensor_bf16_98304_ew
// CHECK:         @float8_quantize_row_bf16_e4m3_
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @kept(%qx: tensor<256x128xf8E4M3FN>, %sx: tensor<f32>, %qw: tensor<384x128xf8E4M3FN>, %sw: tensor<f32>, %f: tensor<256x384xf32>, %y: tensor<256x384xbf16>) -> (tensor<256x384xf8E4M3FN>, tensor<f32>, tensor<256x384xf8E4M3FN>, tensor<f32>, tensor<256x384xf8E4M3FN>, tensor<256x1xf32>) {
  %h = mxfp8train.scaled_mm %qx[%sx], %qw[%sw] transpose_rhs {mxfp8train.role = "forward", mxfp8train.use_fast_accum = true} : tensor<256x128xf8E4M3FN>[tensor<f32>], tensor<384x128xf8E4M3FN>[tensor<f32>] -> tensor<256x384xbf16>
  %e = tensor.empty() : tensor<256x384xbf16>
  %a = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%h, %f : tensor<256x384xbf16>, tensor<256x384xf32>) outs(%e : tensor<256x384xbf16>) {
  ^bb0(%p: bf16, %q: f32, %o: bf16):
    %pf = arith.extf %p : bf16 to f32
    %r = arith.mulf %pf, %q : f32
    %t = arith.truncf %r : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<256x384xbf16>
  %qa, %sa = mxfp8train.quantize %a granularity = tensorwise : tensor<256x384xbf16> -> tensor<256x384xf8E4M3FN>, tensor<f32>
  %z = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%y : tensor<256x384xbf16>) outs(%e : tensor<256x384xbf16>) {
  ^bb0(%p: bf16, %o: bf16):
    %pf = arith.extf %p : bf16 to f32
    %r = arith.mulf %pf, %pf : f32
    %t = arith.truncf %r : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<256x384xbf16>
  %b = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%h, %z : tensor<256x384xbf16>, tensor<256x384xbf16>) outs(%e : tensor<256x384xbf16>) {
  ^bb0(%p: bf16, %q: bf16, %o: bf16):
    %pf = arith.extf %p : bf16 to f32
    %qf = arith.extf %q : bf16 to f32
    %r = arith.addf %pf, %qf : f32
    %t = arith.truncf %r : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<256x384xbf16>
  %qb, %sb = mxfp8train.quantize %b granularity = tensorwise : tensor<256x384xbf16> -> tensor<256x384xf8E4M3FN>, tensor<f32>
  %c = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%h, %y : tensor<256x384xbf16>, tensor<256x384xbf16>) outs(%e : tensor<256x384xbf16>) {
  ^bb0(%p: bf16, %q: bf16, %o: bf16):
    %pf = arith.extf %p : bf16 to f32
    %qf = arith.extf %q : bf16 to f32
    %r = arith.subf %pf, %qf : f32
    %t = arith.truncf %r : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<256x384xbf16>
  %qc, %sc = mxfp8train.quantize %c axis = 1 granularity = axiswise : tensor<256x384xbf16> -> tensor<256x384xf8E4M3FN>, tensor<256x1xf32>
  return %qa, %sa, %qb, %sb, %qc, %sc : tensor<256x384xf8E4M3FN>, tensor<f32>, tensor<256x384xf8E4M3FN>, tensor<f32>, tensor<256x384xf8E4M3FN>, tensor<256x1xf32>
}

// -----

// Not planned either: quantizes in the reverse of the producer's result
// order (the sibling group's word r would not be result r: %p keeps its
// amax kernel), and a second eligible producer of the same GEMM's result
// (one epilogue per GEMM: %r, first in the walk, takes it; %r2 keeps its
// amax kernel).
// CHECK-LABEL: func.func @reverse_and_second(
// CHECK:         gpu.launch_func  @mxfp8train_kernels::@scaled_mm_{{.*}}_f8tt_amax{{.*}} : memref<1xi32>)
// CHECK-NOT:     f8tt_amax
// CHECK:         gpu.launch_func  @mxfp8train_kernels::@float8_amax_tensor_bf16_98304_ew{{.*}} : memref<2xi32>)
// CHECK-NOT:     f8tt_amax
// CHECK:         gpu.launch_func  @mxfp8train_kernels::@float8_amax_tensor_bf16_98304_ew{{.*}} : memref<1xi32>)
// CHECK-NOT:     f8tt_amax
// CHECK:         return
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @reverse_and_second(%qx: tensor<256x128xf8E4M3FN>, %sx: tensor<f32>, %qw: tensor<384x128xf8E4M3FN>, %sw: tensor<f32>, %y: tensor<256x384xbf16>) -> (tensor<256x384xf8E4M3FN>, tensor<f32>, tensor<256x384xf8E4M3FN>, tensor<f32>, tensor<256x384xf8E4M3FN>, tensor<f32>, tensor<256x384xf8E4M3FN>, tensor<f32>) {
  %h = mxfp8train.scaled_mm %qx[%sx], %qw[%sw] transpose_rhs {mxfp8train.role = "forward", mxfp8train.use_fast_accum = true} : tensor<256x128xf8E4M3FN>[tensor<f32>], tensor<384x128xf8E4M3FN>[tensor<f32>] -> tensor<256x384xbf16>
  %e = tensor.empty() : tensor<256x384xbf16>
  %p:2 = linalg.generic {indexing_maps = [#map, #map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%h, %y : tensor<256x384xbf16>, tensor<256x384xbf16>) outs(%e, %e : tensor<256x384xbf16>, tensor<256x384xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %o0: bf16, %o1: bf16):
    %af = arith.extf %a : bf16 to f32
    %bf = arith.extf %b : bf16 to f32
    %m = arith.mulf %af, %bf : f32
    %d = arith.subf %af, %bf : f32
    %mt = arith.truncf %m : f32 to bf16
    %dt = arith.truncf %d : f32 to bf16
    linalg.yield %mt, %dt : bf16, bf16
  } -> (tensor<256x384xbf16>, tensor<256x384xbf16>)
  %q1, %s1 = mxfp8train.quantize %p#1 granularity = tensorwise : tensor<256x384xbf16> -> tensor<256x384xf8E4M3FN>, tensor<f32>
  %q0, %s0 = mxfp8train.quantize %p#0 granularity = tensorwise : tensor<256x384xbf16> -> tensor<256x384xf8E4M3FN>, tensor<f32>
  %r = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%h, %y : tensor<256x384xbf16>, tensor<256x384xbf16>) outs(%e : tensor<256x384xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %o: bf16):
    %af = arith.extf %a : bf16 to f32
    %bf = arith.extf %b : bf16 to f32
    %s = arith.addf %af, %bf : f32
    %st = arith.truncf %s : f32 to bf16
    linalg.yield %st : bf16
  } -> tensor<256x384xbf16>
  %q2, %s2 = mxfp8train.quantize %r granularity = tensorwise : tensor<256x384xbf16> -> tensor<256x384xf8E4M3FN>, tensor<f32>
  %r2 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%y, %h : tensor<256x384xbf16>, tensor<256x384xbf16>) outs(%e : tensor<256x384xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %o: bf16):
    %af = arith.extf %a : bf16 to f32
    %bf = arith.extf %b : bf16 to f32
    %s = arith.divf %af, %bf : f32
    %st = arith.truncf %s : f32 to bf16
    linalg.yield %st : bf16
  } -> tensor<256x384xbf16>
  %q3, %s3 = mxfp8train.quantize %r2 granularity = tensorwise : tensor<256x384xbf16> -> tensor<256x384xf8E4M3FN>, tensor<f32>
  return %q0, %s0, %q1, %s1, %q2, %s2, %q3, %s3 : tensor<256x384xf8E4M3FN>, tensor<f32>, tensor<256x384xf8E4M3FN>, tensor<f32>, tensor<256x384xf8E4M3FN>, tensor<f32>, tensor<256x384xf8E4M3FN>, tensor<f32>
}

// -----

// A producer that reads the GEMM's result twice and another operand twice:
// one extra kernel input, the body's operands mapped in input order.
// CHECK-LABEL: func.func @repeated_operands(
// CHECK:         gpu.launch_func  @mxfp8train_kernels::@scaled_mm_{{.*}}_amax{{[0-9a-f]+}} blocks {{.*}}, %{{.*}} : memref<98304xbf16>, %{{.*}} : memref<98304xbf16>, %{{.*}} : memref<1xi32>)
// CHECK-LABEL: gpu.func @scaled_mm_{{.*}}_amax
// CHECK-SAME:      %[[KY:[a-z0-9]+]]: memref<98304xbf16> {llvm.noalias, llvm.readonly}, %[[KOUT:[a-z0-9]+]]: memref<98304xbf16> {llvm.noalias, llvm.writeonly}, %{{.*}}: memref<1xi32> {llvm.noalias})
// CHECK:           %[[IN:.*]] = vector.load %[[KY]]
// CHECK:           vector.store %[[V:.*]], %[[KOUT]]
// CHECK-NEXT:      arith.extf %[[IN]]
// CHECK-NEXT:      arith.extf %[[V]]
// CHECK-NEXT:      arith.extf %[[IN]]
// CHECK-NEXT:      arith.extf %[[V]]
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @repeated_operands(%qx: tensor<256x128xf8E4M3FN>, %sx: tensor<f32>, %qw: tensor<384x128xf8E4M3FN>, %sw: tensor<f32>, %y: tensor<256x384xbf16>) -> (tensor<256x384xf8E4M3FN>, tensor<f32>) {
  %h = mxfp8train.scaled_mm %qx[%sx], %qw[%sw] transpose_rhs {mxfp8train.role = "forward", mxfp8train.use_fast_accum = true} : tensor<256x128xf8E4M3FN>[tensor<f32>], tensor<384x128xf8E4M3FN>[tensor<f32>] -> tensor<256x384xbf16>
  %e = tensor.empty() : tensor<256x384xbf16>
  %p = linalg.generic {indexing_maps = [#map, #map, #map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%y, %h, %y, %h : tensor<256x384xbf16>, tensor<256x384xbf16>, tensor<256x384xbf16>, tensor<256x384xbf16>) outs(%e : tensor<256x384xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %c: bf16, %d: bf16, %o: bf16):
    %af = arith.extf %a : bf16 to f32
    %bf = arith.extf %b : bf16 to f32
    %cf = arith.extf %c : bf16 to f32
    %df = arith.extf %d : bf16 to f32
    %m = arith.mulf %af, %bf : f32
    %n = arith.subf %cf, %df : f32
    %s = arith.addf %m, %n : f32
    %st = arith.truncf %s : f32 to bf16
    linalg.yield %st : bf16
  } -> tensor<256x384xbf16>
  %q, %sq = mxfp8train.quantize %p granularity = tensorwise : tensor<256x384xbf16> -> tensor<256x384xf8E4M3FN>, tensor<f32>
  return %q, %sq : tensor<256x384xf8E4M3FN>, tensor<f32>
}
