// The manifest: one line per function and per tensor, with mxfp8-run's names
// (SSA names, result groups `%p:2` as p#0, mxfp8run.name), the generation
// attributes (mxfp8run.std, mxfp8run.values dense and splat, little-endian
// bytes), roles and SQNR bars; functions that mxfp8-launch cannot call are
// listed with the reason. mxfp8-launch then names its files like mxfp8-run.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: mxfp8-compile %s -o %t/m.o --manifest=%t/m.manifest 2> %t/warnings.txt
// RUN: FileCheck %s < %t/m.manifest
// RUN: FileCheck %s --check-prefix=WARN < %t/warnings.txt
// The uncallable functions are compiled, with a warning each (there was
// none: an object whose only function was uncallable compiled silently).
// WARN: mxfp8-compile: warning: @dynamic cannot be called through the manifest: argument #0 (a) has a dynamic shape (?xf32); static shapes are needed
// WARN-NEXT: mxfp8-compile: warning: @scalar cannot be called through the manifest: argument #0 (a) has type f32; only ranked tensors are supported
// WARN-NOT: warning
//
// --entry keeps one function and what it calls:
// RUN: mxfp8-compile %s --entry=names -o %t/n.o --manifest=%t/n.manifest
// RUN: FileCheck %s --check-prefix=ENTRY < %t/n.manifest
//
// A lowering without out-parameters is detected from the lowered module:
// RUN: mxfp8-compile %s --entry=passthrough -o %t/p.o --manifest=%t/p.manifest \
// RUN:   --lowering='one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},func.func(llvm-request-c-wrappers),finalize-memref-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts' \
// RUN:   2>&1 | FileCheck %s --check-prefix=NO-OUT-PARAMS
// RUN: FileCheck %s --check-prefix=NO-OUT-PARAMS-MANIFEST < %t/p.manifest
//
// Same file names and bytes as mxfp8-run:
// REQUIRES: host-cxx
// RUN: %host_cxx -shared -o %t/m.so %t/m.o
// RUN: mxfp8-launch %t/m.so %t/m.manifest --entry=names --output-dir=%t/l --save-inputs > %t/l.log
// RUN: mxfp8-run %s --entry=names --output-dir=%t/r --save-inputs > %t/r.log
// RUN: cmp %t/l/q.npy %t/r/q.npy
// RUN: cmp %t/l/sc.npy %t/r/sc.npy
// RUN: cmp %t/l/p_0.npy %t/r/p_0.npy
// RUN: cmp %t/l/named_result.npy %t/r/named_result.npy
// RUN: cmp %t/l/inputs/0_x.npy %t/r/inputs/0_x.npy
// RUN: cmp %t/l/inputs/1_idx.npy %t/r/inputs/1_idx.npy
// RUN: cmp %t/l/inputs/2_scale_factor.npy %t/r/inputs/2_scale_factor.npy

// CHECK:      mxfp8-aot-manifest 1
// CHECK:      source {{.*}}manifest.mlir
// CHECK-NEXT: device cpu
// CHECK-NEXT: chip -
// CHECK-NEXT: triple x86_64-unknown-linux-gnu
// CHECK-NEXT: cpu x86-64-v3
// CHECK-NEXT: features -
// CHECK-NEXT: pipeline -
// CHECK-NEXT: recipe -
// CHECK-NEXT: lowering mxfp8train-lower-to-cpu{vectorize=true}
// CHECK-NEXT: extern free
// CHECK-NEXT: extern malloc
// CHECK-NEXT: func names args=3 results=4 abi=7
// CHECK-NEXT:   arg 0 x 4x32xbf16 std=0.02
// CHECK-NEXT:   arg 1 idx 3xi32 values=hex:01000000feffffff2c010000
// CHECK-NEXT:   arg 2 scale%20factor f32 values=splat:00002040
// CHECK-NEXT:   result 0 q 4x32xf8E4M3FN role=output
// CHECK-NEXT:   result 1 sc 4x1xf8E8M0FNU
// CHECK-NEXT:   result 2 p#0 4x32xf8E5M2 min_sqnr=27.5
// CHECK-NEXT:   result 3 named=result 4x1xf8E8M0FNU
// CHECK-NEXT: func passthrough args=1 results=1 abi=2
// CHECK-NEXT:   arg 0 a 4xf32
// CHECK-NEXT:   result 0 a 4xf32
// CHECK-NEXT: func dynamic unsupported=argument%20#0%20(a)%20has%20a%20dynamic%20shape%20(%3Fxf32)%3B%20static%20shapes%20are%20needed
// CHECK-NEXT: func scalar unsupported=argument%20#0%20(a)%20has%20type%20f32%3B%20only%20ranked%20tensors%20are%20supported
// CHECK-NEXT: end

// ENTRY:     func names
// ENTRY-NOT: func
// ENTRY:     end

// NO-OUT-PARAMS: mxfp8-compile: warning: @passthrough returns its results instead of writing caller-allocated out-parameters (the lowering lacks buffer-results-to-out-params)
// NO-OUT-PARAMS-MANIFEST: func passthrough unsupported=returns%20its%20results

func.func @names(%x: tensor<4x32xbf16> {mxfp8run.std = 0.02 : f64},
                 %idx: tensor<3xi32> {mxfp8run.values = dense<[1, -2, 300]> : tensor<3xi32>},
                 %s: tensor<f32> {mxfp8run.name = "scale factor", mxfp8run.values = dense<2.5> : tensor<f32>})
    -> (tensor<4x32xf8E4M3FN> {mxfp8train.role = "output"}, tensor<4x1xf8E8M0FNU>,
        tensor<4x32xf8E5M2> {mxfp8run.min_sqnr = 27.5 : f64}, tensor<4x1xf8E8M0FNU> {mxfp8run.name = "named=result"}) {
  %q, %sc = mxfp8train.quantize %x axis = 1 mode = rceil : tensor<4x32xbf16> -> tensor<4x32xf8E4M3FN>, tensor<4x1xf8E8M0FNU>
  %p:2 = mxfp8train.quantize %x axis = 1 mode = floor : tensor<4x32xbf16> -> tensor<4x32xf8E5M2>, tensor<4x1xf8E8M0FNU>
  return %q, %sc, %p#0, %p#1 : tensor<4x32xf8E4M3FN>, tensor<4x1xf8E8M0FNU>, tensor<4x32xf8E5M2>, tensor<4x1xf8E8M0FNU>
}
func.func @passthrough(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
func.func @dynamic(%a: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %c = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%a : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.addf %x, %x : f32
    linalg.yield %y : f32
  } -> tensor<?xf32>
  return %c : tensor<?xf32>
}
func.func @scalar(%a: f32) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%a : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %f : tensor<4xf32>
}
func.func private @helper(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
