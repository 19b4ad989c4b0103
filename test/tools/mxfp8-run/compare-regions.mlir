// --compare on matmuls inside regions and called functions, and the bar of
// a result behind one grouped Float8 GEMM (found by a new-user trial):
//  - a matmul inside scf.for / scf.if is converted with the module; the
//    per-matmul table lists it as not compared alone (its result cannot be
//    returned from the function) instead of failing with an invalid probe
//    module;
//  - the GEMMs column counts the quantized GEMMs inside the regions of the
//    result's producers and in the functions they call, so such results get
//    the bar of one GEMM;
//  - a Float8 result of exactly one grouped GEMM is held to that GEMM's bar
//    (dgrad >= 24 dB), not to the MoE layer's dX >= 29 dB.
//
// RUN: mxfp8-run %s --compare --entry=regions --recipe=mxfp8_rceil | FileCheck %s --check-prefix=REGIONS
// REGIONS:      0  loop   output  64x256xf32  1      {{[0-9.]+}}  {{.*}}  >= 27.00  PASS
// REGIONS-NEXT: 1  cond   output  64x256xf32  1      {{[0-9.]+}}  {{.*}}  >= 27.00  PASS
// REGIONS-NEXT: 2  call   output  64x256xf32  1      {{[0-9.]+}}  {{.*}}  >= 27.00  PASS
// REGIONS:      in_loop  forward  64x256xf32  -  -  -  converted; not compared alone (inside scf.for)
// REGIONS:      in_if    forward  64x256xf32  -  -  -  converted; not compared alone (inside scf.if)
// REGIONS:      bars: 3 passed, 0 failed
//
// RUN: mxfp8-run %s --compare --entry=one_grouped_dgrad --recipe=fp8_rowwise | FileCheck %s --check-prefix=GROUPED
// GROUPED:      0  dx  input_grad  96x128xbf16  1  {{[0-9.]+}}  {{.*}}  >= 24.00  PASS
// GROUPED:      bars: 2 passed, 0 failed

#map_a = affine_map<(m, n, k) -> (m, k)>
#map_b = affine_map<(m, n, k) -> (n, k)>
#map_c = affine_map<(m, n, k) -> (m, n)>

func.func private @linear(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>) -> tensor<64x256xf32> {
  %z = arith.constant dense<0.0> : tensor<64x256xf32>
  %r = linalg.matmul indexing_maps = [#map_a, #map_b, #map_c]
      ins(%x, %w : tensor<64x128xbf16>, tensor<256x128xbf16>) outs(%z : tensor<64x256xf32>) -> tensor<64x256xf32> loc("callee")
  return %r : tensor<64x256xf32>
}

func.func @regions(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16> {mxfp8run.std = 0.02 : f64})
    -> (tensor<64x256xf32> {mxfp8run.name = "loop", mxfp8train.role = "output"},
        tensor<64x256xf32> {mxfp8run.name = "cond", mxfp8train.role = "output"},
        tensor<64x256xf32> {mxfp8run.name = "call", mxfp8train.role = "output"}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %flag = arith.constant true
  %z = arith.constant dense<0.0> : tensor<64x256xf32>
  %loop = scf.for %i = %c0 to %c1 step %c1 iter_args(%acc = %z) -> tensor<64x256xf32> {
    %r = linalg.matmul indexing_maps = [#map_a, #map_b, #map_c]
        ins(%x, %w : tensor<64x128xbf16>, tensor<256x128xbf16>) outs(%acc : tensor<64x256xf32>) -> tensor<64x256xf32> loc("in_loop")
    scf.yield %r : tensor<64x256xf32>
  }
  %cond = scf.if %flag -> tensor<64x256xf32> {
    %r = linalg.matmul indexing_maps = [#map_a, #map_b, #map_c]
        ins(%x, %w : tensor<64x128xbf16>, tensor<256x128xbf16>) outs(%z : tensor<64x256xf32>) -> tensor<64x256xf32> loc("in_if")
    scf.yield %r : tensor<64x256xf32>
  } else {
    scf.yield %z : tensor<64x256xf32>
  }
  %call = func.call @linear(%x, %w) : (tensor<64x128xbf16>, tensor<256x128xbf16>) -> tensor<64x256xf32>
  return %loop, %cond, %call : tensor<64x256xf32>, tensor<64x256xf32>, tensor<64x256xf32>
}

func.func @one_grouped_dgrad(%dO: tensor<96x256xbf16>, %w: tensor<4x256x128xbf16> {mxfp8run.std = 0.02 : f64},
                             %offs: tensor<4xi32> {mxfp8run.values = dense<[32, 32, 64, 96]> : tensor<4xi32>})
    -> (tensor<96x128xbf16> {mxfp8run.name = "dx", mxfp8train.role = "input_grad"}) {
  %dx = mxfp8train.grouped_mm %dO, %w offs(%offs) : tensor<96x256xbf16>, tensor<4x256x128xbf16>, tensor<4xi32> -> tensor<96x128xbf16> loc("experts.dgrad")
  return %dx : tensor<96x128xbf16>
}
