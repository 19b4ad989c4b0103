// The rewrite's remarks print at the matmul's own location as a user reads
// it: a bare NameLoc at its name (not `<unknown>:0: remark: loc("...")`),
// a NameLoc around a file position at that position, names nested or fused
// as written; the "see current operation" note likewise. The same handler
// serves mxfp8-compile and mxfp8-run (tools/*: NameLocDiagnostics.h).

// RUN: mxfp8-opt %s --mxfp8train-rewrite-matmuls=remarks=true --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=OPT --implicit-check-not='<unknown>'
// RUN: mxfp8-opt %s --mxfp8train-rewrite-matmuls='min-size=100 remarks=true' -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOTE
// RUN: mxfp8-compile %s --pipeline='mxfp8train-rewrite-matmuls{remarks=true}' --emit=mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=COMPILE

// OPT:      {{^}}mlp.w1.fwd: remark: mxfp8train: converted (role forward, lhs quantized along axis 1, rhs along axis 1, init added in f32, recipe mxfp8_rceil){{$}}
// OPT-NEXT: {{^}}model.py:7:3: remark: mxfp8train: converted (role forward, lhs quantized along axis 1, rhs along axis 1, init added in f32, recipe mxfp8_rceil){{$}}
// OPT:      {{^}}block.0(mlp.w3.fwd): remark: mxfp8train: converted (role forward, lhs quantized along axis 1, rhs along axis 1, init added in f32, recipe mxfp8_rceil){{$}}
// OPT-NEXT: {{^}}mlp.a, mlp.b: remark: mxfp8train: converted (role forward, lhs quantized along axis 1, rhs along axis 1, init added in f32, recipe mxfp8_rceil){{$}}
// OPT-NOT:  remark

// NOTE:      {{^}}mlp.w1.fwd: remark: mxfp8train: skipped (M = 64 is below min-size 100){{$}}
// NOTE-NEXT: {{^}}mlp.w1.fwd: note: see current operation: %{{[0-9]+}} = linalg.matmul

// COMPILE:  {{^}}mlp.w1.fwd: remark: mxfp8train: converted (role forward, lhs quantized along axis 1, rhs along axis 1, init added in f32, recipe mxfp8_rceil){{$}}

func.func @remarks(%x: tensor<64x128xbf16>, %w: tensor<256x128xbf16>, %z: tensor<64x256xf32>)
    -> (tensor<64x256xf32>, tensor<64x256xf32>, tensor<64x256xf32>, tensor<64x256xf32>) {
  %a = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<64x128xbf16>, tensor<256x128xbf16>)
      outs(%z : tensor<64x256xf32>) -> tensor<64x256xf32> loc("mlp.w1.fwd")
  %b = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<64x128xbf16>, tensor<256x128xbf16>)
      outs(%z : tensor<64x256xf32>) -> tensor<64x256xf32> loc("mlp.w2.fwd"("model.py":7:3))
  %c = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<64x128xbf16>, tensor<256x128xbf16>)
      outs(%z : tensor<64x256xf32>) -> tensor<64x256xf32> loc("block.0"("mlp.w3.fwd"))
  %d = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<64x128xbf16>, tensor<256x128xbf16>)
      outs(%z : tensor<64x256xf32>) -> tensor<64x256xf32> loc(fused["mlp.a", "mlp.b"])
  return %a, %b, %c, %d : tensor<64x256xf32>, tensor<64x256xf32>, tensor<64x256xf32>, tensor<64x256xf32>
}
