// The bars of a converted training step through the AOT path come from the
// recipe of the converted module: mxfp8-compile records in the manifest the
// recipe (`mxfp8train.recipe`, set by mxfp8train-rewrite-matmuls) and, per
// result with a training role, the bar mxfp8-run --compare gives it
// (Runner/Bars.h); mxfp8-launch --compare-with prints and checks them. A
// result behind one quantized GEMM is checked; one behind two is shown in
// parentheses. MX 27 / 25 / 24 dB (SPEC §8), Float8 25 / 24 / 23 dB
// (SPEC-float8 §7); a weight gradient kept in high precision
// (float8_rowwise_with_gw_hp): 34 dB. The high-precision step has no recipe
// and no bars.
//
// REQUIRES: host-cxx
// RUN: rm -rf %t && mkdir -p %t
// RUN: mxfp8-compile %s -o %t/hp.o --manifest=%t/hp.manifest
// RUN: %host_cxx -shared -o %t/hp.so %t/hp.o -Wl,-Bsymbolic
// RUN: FileCheck %s --check-prefix=HP-MANIFEST < %t/hp.manifest
//
// RUN: mxfp8-compile %s -o %t/mx.o --manifest=%t/mx.manifest \
// RUN:   --pipeline='mxfp8train-rewrite-matmuls{recipe=mxfp8_rceil},canonicalize,cse'
// RUN: %host_cxx -shared -o %t/mx.so %t/mx.o -Wl,-Bsymbolic
// RUN: FileCheck %s --check-prefix=MX-MANIFEST < %t/mx.manifest
// RUN: mxfp8-launch %t/mx.so %t/mx.manifest --compare-with=%t/hp.so:linear_step \
// RUN:   --compare-manifest=%t/hp.manifest | FileCheck %s --check-prefix=MX
//
// RUN: mxfp8-compile %s -o %t/f8.o --manifest=%t/f8.manifest \
// RUN:   --pipeline='mxfp8train-rewrite-matmuls{recipe=float8_rowwise},canonicalize,cse'
// RUN: %host_cxx -shared -o %t/f8.so %t/f8.o -Wl,-Bsymbolic
// RUN: FileCheck %s --check-prefix=F8-MANIFEST < %t/f8.manifest
// RUN: mxfp8-launch %t/f8.so %t/f8.manifest --compare-with=%t/hp.so:linear_step \
// RUN:   --compare-manifest=%t/hp.manifest | FileCheck %s --check-prefix=F8
//
// RUN: mxfp8-compile %s -o %t/gwhp.o --emit=mlir --manifest=%t/gwhp.manifest \
// RUN:   --pipeline='mxfp8train-rewrite-matmuls{recipe=float8_rowwise_with_gw_hp},canonicalize,cse'
// RUN: FileCheck %s --check-prefix=GWHP-MANIFEST < %t/gwhp.manifest
// The attribute is the manifest's, not the object's:
// RUN: FileCheck %s --check-prefix=LOWERED < %t/gwhp.o

// HP-MANIFEST:      recipe -
// HP-MANIFEST:      result 0 y 32x64xf32 role=output
// HP-MANIFEST-NEXT: result 1 dx 32x64xf32 role=input_grad
// HP-MANIFEST-NEXT: result 2 dw 64x64xf32 role=weight_grad
// HP-MANIFEST-NEXT: result 3 z 32x64xf32 role=output
// HP-MANIFEST-NEXT: end

// MX-MANIFEST:      recipe #mxfp8train.recipe
// MX-MANIFEST:      result 0 y 32x64xf32 role=output bar=27
// MX-MANIFEST-NEXT: result 1 dx 32x64xf32 role=input_grad bar=25
// MX-MANIFEST-NEXT: result 2 dw 64x64xf32 role=weight_grad bar=24
// MX-MANIFEST-NEXT: result 3 z 32x64xf32 role=output reference_bar=27

// MX:      bars (mxfp8run.min_sqnr, else torchao's bar of the role under #mxfp8train.recipe<{{.*}}>; in parentheses: shown, not checked, for a result behind several quantized GEMMs):
// MX-NEXT: #  name  role         SQNR dB  bar dB    result
// MX-NEXT: 0  y     output       {{[0-9.]+}} {{ *}}>= 27.00  PASS
// MX-NEXT: 1  dx    input_grad   {{[0-9.]+}} {{ *}}>= 25.00  PASS
// MX-NEXT: 2  dw    weight_grad  {{[0-9.]+}} {{ *}}>= 24.00  PASS
// MX-NEXT: 3  z     output       {{[0-9.]+}} {{ *}}(27.00)   {{\((above|below)\)}}

// F8-MANIFEST:      recipe #mxfp8train.float8_recipe<float8_rowwise>
// F8-MANIFEST:      result 0 y 32x64xf32 role=output bar=25
// F8-MANIFEST-NEXT: result 1 dx 32x64xf32 role=input_grad bar=24
// F8-MANIFEST-NEXT: result 2 dw 64x64xf32 role=weight_grad bar=23
// F8-MANIFEST-NEXT: result 3 z 32x64xf32 role=output reference_bar=25

// F8:      bars (mxfp8run.min_sqnr, else torchao's bar of the role under #mxfp8train.float8_recipe<float8_rowwise>; in parentheses: shown, not checked, for a result behind several quantized GEMMs):
// F8-NEXT: #  name  role         SQNR dB  bar dB    result
// F8-NEXT: 0  y     output       {{[0-9.]+}} {{ *}}>= 25.00  PASS
// F8-NEXT: 1  dx    input_grad   {{[0-9.]+}} {{ *}}>= 24.00  PASS
// F8-NEXT: 2  dw    weight_grad  {{[0-9.]+}} {{ *}}>= 23.00  PASS
// F8-NEXT: 3  z     output       {{[0-9.]+}} {{ *}}(25.00)   {{\((above|below)\)}}

// GWHP-MANIFEST: recipe #mxfp8train.float8_recipe<float8_rowwise_with_gw_hp>
// GWHP-MANIFEST: result 2 dw 64x64xf32 role=weight_grad bar=34

// LOWERED-NOT: mxfp8train.recipe

#id = affine_map<(d0, d1) -> (d0, d1)>
#mm_a = affine_map<(m, n, k) -> (m, k)>
#mm_b = affine_map<(m, n, k) -> (k, n)>
#mm_bt = affine_map<(m, n, k) -> (n, k)>
#mm_at = affine_map<(m, n, k) -> (k, m)>
#mm_c = affine_map<(m, n, k) -> (m, n)>

// One linear layer y = x Wᵀ with its gradients (dx = dy W, dW = dyᵀ x) and a
// second layer z = y Wᵀ behind two GEMMs.
func.func @linear_step(%x: tensor<32x64xbf16>,
                       %w: tensor<64x64xbf16> {mxfp8run.std = 0.125 : f64},
                       %dy: tensor<32x64xbf16>)
    -> (tensor<32x64xf32> {mxfp8train.role = "output"},
        tensor<32x64xf32> {mxfp8train.role = "input_grad"},
        tensor<64x64xf32> {mxfp8train.role = "weight_grad"},
        tensor<32x64xf32> {mxfp8train.role = "output"}) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x64xf32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e : tensor<32x64xf32>) -> tensor<32x64xf32>
  %ew = tensor.empty() : tensor<64x64xf32>
  %zw = linalg.fill ins(%zero : f32) outs(%ew : tensor<64x64xf32>) -> tensor<64x64xf32>
  %y = linalg.matmul indexing_maps = [#mm_a, #mm_bt, #mm_c]
      ins(%x, %w : tensor<32x64xbf16>, tensor<64x64xbf16>)
      outs(%z0 : tensor<32x64xf32>) -> tensor<32x64xf32> loc("fwd")
  %dx = linalg.matmul indexing_maps = [#mm_a, #mm_b, #mm_c]
      ins(%dy, %w : tensor<32x64xbf16>, tensor<64x64xbf16>)
      outs(%z0 : tensor<32x64xf32>) -> tensor<32x64xf32> loc("dgrad")
  %dw = linalg.matmul indexing_maps = [#mm_at, #mm_b, #mm_c]
      ins(%dy, %x : tensor<32x64xbf16>, tensor<32x64xbf16>)
      outs(%zw : tensor<64x64xf32>) -> tensor<64x64xf32> loc("wgrad")
  %eb = tensor.empty() : tensor<32x64xbf16>
  %yb = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<32x64xf32>) outs(%eb : tensor<32x64xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %t = arith.truncf %v : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<32x64xbf16>
  %z = linalg.matmul indexing_maps = [#mm_a, #mm_bt, #mm_c]
      ins(%yb, %w : tensor<32x64xbf16>, tensor<64x64xbf16>)
      outs(%z0 : tensor<32x64xf32>) -> tensor<32x64xf32> loc("fwd2")
  return %y, %dx, %dw, %z
      : tensor<32x64xf32>, tensor<32x64xf32>, tensor<64x64xf32>, tensor<32x64xf32>
}
