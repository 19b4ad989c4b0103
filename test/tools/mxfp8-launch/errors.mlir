// mxfp8-launch's errors, each with its message and exit status: 2 for the
// command line, manifests, libraries, functions and inputs; 77 for
// --device=cuda without a usable driver; 1 only for --expect-exact
// differences (see compare tests).
//
// REQUIRES: host-cxx
// RUN: rm -rf %t && mkdir -p %t
// RUN: mxfp8-compile %s -o %t/m.o --manifest=%t/m.manifest
// RUN: %host_cxx -shared -o %t/m.so %t/m.o
// RUN: mxfp8-compile %S/Inputs/add-cpu.mlir -o %t/other.o --manifest=%t/other.manifest
// RUN: %host_cxx -shared -o %t/other.so %t/other.o
// RUN: %PYTHON %S/../mxfp8-run/Inputs/npytool.py write %t/x2x3.npy '<f4' 2,3 1 2 3 4 5 6
// RUN: %PYTHON %S/../mxfp8-run/Inputs/npytool.py write %t/x4i.npy '<i4' 4 1 2 3 4
//
// RUN: %PYTHON %S/../mxfp8-run/Inputs/expect_rc.py 2 mxfp8-launch %t/m.so %t/m.manifest --bogus 2>&1 | FileCheck %s --check-prefix=OPTION
// RUN: %PYTHON %S/../mxfp8-run/Inputs/expect_rc.py 2 mxfp8-launch %t/m.so 2>&1 | FileCheck %s --check-prefix=POSITIONAL
// RUN: %PYTHON %S/../mxfp8-run/Inputs/expect_rc.py 2 mxfp8-launch %t/m.so %t/m.manifest --repeat=0 2>&1 | FileCheck %s --check-prefix=REPEAT
// RUN: %PYTHON %S/../mxfp8-run/Inputs/expect_rc.py 2 mxfp8-launch %t/m.so %t/m.manifest --expect-exact 2>&1 | FileCheck %s --check-prefix=EXACT
// RUN: %PYTHON %S/../mxfp8-run/Inputs/expect_rc.py 2 mxfp8-launch %t/m.so %t/missing.manifest 2>&1 | FileCheck %s --check-prefix=NO-MANIFEST
// RUN: %PYTHON %S/../mxfp8-run/Inputs/expect_rc.py 2 mxfp8-launch %t/m.so %s 2>&1 | FileCheck %s --check-prefix=NOT-MANIFEST
// RUN: head -n -1 %t/m.manifest > %t/truncated.manifest
// RUN: %PYTHON %S/../mxfp8-run/Inputs/expect_rc.py 2 mxfp8-launch %t/m.so %t/truncated.manifest 2>&1 | FileCheck %s --check-prefix=TRUNCATED
// RUN: sed 's/^mxfp8-aot-manifest 1/mxfp8-aot-manifest 2/' %t/m.manifest > %t/newer.manifest
// RUN: %PYTHON %S/../mxfp8-run/Inputs/expect_rc.py 2 mxfp8-launch %t/m.so %t/newer.manifest 2>&1 | FileCheck %s --check-prefix=NEWER
// RUN: sed 's/ 2x3xf32/ 2x?xf32/' %t/m.manifest > %t/badtype.manifest
// RUN: %PYTHON %S/../mxfp8-run/Inputs/expect_rc.py 2 mxfp8-launch %t/m.so %t/badtype.manifest 2>&1 | FileCheck %s --check-prefix=BAD-TYPE
//
// RUN: %PYTHON %S/../mxfp8-run/Inputs/expect_rc.py 2 mxfp8-launch %t/m.so %t/m.manifest 2>&1 | FileCheck %s --check-prefix=WHICH
// RUN: %PYTHON %S/../mxfp8-run/Inputs/expect_rc.py 2 mxfp8-launch %t/m.so %t/m.manifest --entry=nope 2>&1 | FileCheck %s --check-prefix=NO-FUNCTION
// RUN: %PYTHON %S/../mxfp8-run/Inputs/expect_rc.py 2 mxfp8-launch %t/m.so %t/m.manifest --entry=dyn 2>&1 | FileCheck %s --check-prefix=CANNOT-CALL
// RUN: %PYTHON %S/../mxfp8-run/Inputs/expect_rc.py 2 mxfp8-launch %t/other.so %t/m.manifest --entry=f 2>&1 | FileCheck %s --check-prefix=NO-SYMBOL
// RUN: %PYTHON %S/../mxfp8-run/Inputs/expect_rc.py 2 mxfp8-launch %t/missing.so %t/m.manifest --entry=f 2>&1 | FileCheck %s --check-prefix=NO-LIBRARY
//
// RUN: %PYTHON %S/../mxfp8-run/Inputs/expect_rc.py 2 mxfp8-launch %t/m.so %t/m.manifest --entry=f --input=%t/x2x3.npy 2>&1 | FileCheck %s --check-prefix=INPUT-COUNT
// RUN: %PYTHON %S/../mxfp8-run/Inputs/expect_rc.py 2 mxfp8-launch %t/m.so %t/m.manifest --entry=f --input=%t/x4i.npy --input=%t/x4i.npy 2>&1 | FileCheck %s --check-prefix=INPUT-SHAPE
// RUN: %PYTHON %S/../mxfp8-run/Inputs/expect_rc.py 2 mxfp8-launch %t/m.so %t/m.manifest --entry=g --input=%t/x4i.npy 2>&1 | FileCheck %s --check-prefix=INPUT-DTYPE
// RUN: %PYTHON %S/../mxfp8-run/Inputs/expect_rc.py 2 mxfp8-launch %t/m.so %t/m.manifest --entry=g --input=%t/missing.npy 2>&1 | FileCheck %s --check-prefix=INPUT-MISSING
// RUN: %PYTHON %S/../mxfp8-run/Inputs/expect_rc.py 2 mxfp8-launch %t/m.so %t/m.manifest --entry=g --save-inputs 2>&1 | FileCheck %s --check-prefix=SAVE
// RUN: %PYTHON %S/../mxfp8-run/Inputs/expect_rc.py 2 mxfp8-launch %t/m.so %t/m.manifest --entry=g --input-std=-1 2>&1 | FileCheck %s --check-prefix=STD
// RUN: %PYTHON %S/../mxfp8-run/Inputs/expect_rc.py 2 mxfp8-launch %t/m.so %t/m.manifest --entry=f --compare-with=:g 2>&1 | FileCheck %s --check-prefix=SIGNATURE
// RUN: %PYTHON %S/../mxfp8-run/Inputs/expect_rc.py 2 mxfp8-launch %t/m.so %t/m.manifest --entry=f --compare-with=%t/m.so 2>&1 | FileCheck %s --check-prefix=COMPARE-SPEC
//
// No driver: a cuda manifest exits with 77 before anything is loaded.
// RUN: sed 's/^device cpu/device cuda/' %t/m.manifest > %t/cuda.manifest
// RUN: env MXFP8RT_CUDA_LIBRARY=/nonexistent/libcuda.so.1 %PYTHON %S/../mxfp8-run/Inputs/expect_rc.py 77 mxfp8-launch %t/m.so %t/cuda.manifest --entry=g 2>&1 | FileCheck %s --check-prefix=NO-DRIVER
// RUN: %PYTHON %S/../mxfp8-run/Inputs/expect_rc.py 2 mxfp8-launch %t/m.so %t/m.manifest --entry=g --device=cuda 2>&1 | FileCheck %s --check-prefix=DEVICE
// A manifest that is not the library's (it sizes every buffer the call
// reads and writes: a mismatch used to read and write past them).
// RUN: sed 's/ 4xbf16/ 8xbf16/' %t/m.manifest > %t/other-shapes.manifest
// RUN: %PYTHON %S/../mxfp8-run/Inputs/expect_rc.py 2 mxfp8-launch %t/m.so %t/other-shapes.manifest --entry=g 2>&1 | FileCheck %s --check-prefix=NOT-THIS-LIBRARY
// RUN: sed 's/^func g args=1 results=1 abi=2/func g args=1 results=1 abi=3/' %t/m.manifest > %t/other-abi.manifest
// RUN: %PYTHON %S/../mxfp8-run/Inputs/expect_rc.py 2 mxfp8-launch %t/m.so %t/other-abi.manifest --entry=g 2>&1 | FileCheck %s --check-prefix=OTHER-ABI

// OPTION: mxfp8-launch: error: unknown option '--bogus'
// OPTION: usage: mxfp8-launch LIB.so MANIFEST
// POSITIONAL: mxfp8-launch: error: expected LIB.so and MANIFEST, got 1 positional arguments
// REPEAT: mxfp8-launch: error: bad --repeat '0'
// EXACT: mxfp8-launch: error: --expect-exact needs --compare-with
// NO-MANIFEST: mxfp8-launch: error: cannot open '{{.*}}missing.manifest': No such file or directory
// NOT-MANIFEST: mxfp8-launch: error: {{.*}}errors.mlir:1: not an mxfp8-compile manifest (expected 'mxfp8-aot-manifest 1' on the first line)
// TRUNCATED: mxfp8-launch: error: {{.*}}truncated.manifest:{{[0-9]+}}: no 'end' line (truncated manifest?)
// NEWER: mxfp8-launch: error: {{.*}}newer.manifest:1: manifest version 2 is newer than this program reads (1)
// BAD-TYPE: mxfp8-launch: error: {{.*}}badtype.manifest:{{[0-9]+}}: bad tensor type '2x?xf32' (expected e.g. 64x128xbf16)
// WHICH: mxfp8-launch: error: --entry=NAME is needed: '{{.*}}m.manifest' lists 2 callable functions (@f, @g, @dyn)
// NO-FUNCTION: mxfp8-launch: error: no function @nope in '{{.*}}m.manifest' (functions: @f, @g, @dyn)
// CANNOT-CALL: mxfp8-launch: error: @dyn cannot be called: argument #0 (a) has a dynamic shape (?xf32); static shapes are needed
// NO-SYMBOL: mxfp8-launch: error: '{{.*}}other.so' has no symbol _mlir_ciface_f (was it linked from the objects of this manifest?)
// NO-LIBRARY: mxfp8-launch: error: cannot load '{{.*}}missing.so': {{.*}}missing.so: cannot open shared object file
// INPUT-COUNT: mxfp8-launch: error: got 1 --input files but @f has 2 arguments
// INPUT-SHAPE: mxfp8-launch: error: --input #0 ('{{.*}}x4i.npy') for argument x: shape (4) does not match 2x3xf32
// INPUT-DTYPE: mxfp8-launch: error: --input #0 ('{{.*}}x4i.npy') for argument v: dtype '<i4' does not match 4xbf16 (expected '<u2' bf16 bit patterns or '<f4' float32)
// INPUT-MISSING: mxfp8-launch: error: cannot open '{{.*}}missing.npy': No such file or directory
// SAVE: mxfp8-launch: error: --save-inputs needs --output-dir
// STD: mxfp8-launch: error: argument #0 (v): the standard deviation must be finite and >= 0
// SIGNATURE: mxfp8-launch: error: cannot compare @f (2x3xf32, 4xi32) -> (2x3xf32) with @g (4xbf16) -> (4xbf16)
// COMPARE-SPEC: mxfp8-launch: error: --compare-with needs [LIB2.so]:NAME2, got '{{.*}}m.so'
// NO-DRIVER: mxfp8-launch: error: --device=cuda: no CUDA driver (/nonexistent/libcuda.so.1) on this machine: {{.*}} (MXFP8RT_UNAVAILABLE)
// DEVICE: mxfp8-launch: error: '{{.*}}m.manifest' describes code compiled for cpu, not for --device=cuda
// NOT-THIS-LIBRARY: mxfp8-launch: error: the manifest does not describe '{{.*}}m.so': it says g(8xbf16)->(8xbf16) abi=2, the library was compiled for g(4xbf16)->(4xbf16) abi=2
// OTHER-ABI: mxfp8-launch: error: the manifest does not describe '{{.*}}m.so': it says g(4xbf16)->(4xbf16) abi=3, the library was compiled for g(4xbf16)->(4xbf16) abi=2

#id = affine_map<(d0, d1) -> (d0, d1)>
#id1 = affine_map<(d0) -> (d0)>
func.func @f(%x: tensor<2x3xf32>, %n: tensor<4xi32>) -> tensor<2x3xf32> {
  %e = tensor.empty() : tensor<2x3xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %b = arith.addf %a, %a : f32
    linalg.yield %b : f32
  } -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

func.func @g(%v: tensor<4xbf16>) -> tensor<4xbf16> {
  %e = tensor.empty() : tensor<4xbf16>
  %w = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%v : tensor<4xbf16>) outs(%e : tensor<4xbf16>) {
  ^bb0(%a: bf16, %o: bf16):
    %b = arith.negf %a : bf16
    linalg.yield %b : bf16
  } -> tensor<4xbf16>
  return %w : tensor<4xbf16>
}

func.func @dyn(%a: tensor<?xf32>) -> tensor<?xf32> {
  return %a : tensor<?xf32>
}
