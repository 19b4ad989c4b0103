// Every user error of mxfp8-compile: exit status 1 and one message that
// names the problem.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: not mxfp8-compile %s 2>&1 | FileCheck %s --check-prefix=NO-OUTPUT
// RUN: not mxfp8-compile %s -o %t/x.o --mcpu=pentium9 2>&1 | FileCheck %s --check-prefix=MCPU
// RUN: not mxfp8-compile %s -o %t/x.o --mtriple=nonsense-unknown-nothing 2>&1 | FileCheck %s --check-prefix=TRIPLE
// RUN: not mxfp8-compile %s -o %t/x.o -O4 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: not mxfp8-compile %s -o %t/x.o --pipeline=no-such-pass 2>&1 | FileCheck %s --check-prefix=PIPELINE
// RUN: not mxfp8-compile %s -o %t/x.o --lowering=no-such-pass 2>&1 | FileCheck %s --check-prefix=LOWERING
// RUN: not mxfp8-compile %s -o %t/x.o --lowering=canonicalize 2>&1 | FileCheck %s --check-prefix=NOT-LLVM
// RUN: not mxfp8-compile %s -o %t/x.o --entry=nope 2>&1 | FileCheck %s --check-prefix=ENTRY
// RUN: not mxfp8-compile %s -o %t/x.o --device=cuda --chip=sm_80 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not mxfp8-compile %s -o %t/x.o --device=cuda --chip=sm_100a --lowering='mxfp8train-lower-to-gpu{format=isa}' 2>&1 | FileCheck %s --check-prefix=LOWERING-CHIP
// RUN: not mxfp8-compile %t/missing.mlir -o %t/x.o 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: echo 'func.func private @f() { return }' | not mxfp8-compile - -o %t/x.o 2>&1 | FileCheck %s --check-prefix=NO-FUNCTIONS
// RUN: echo 'func.func @f( {' | not mxfp8-compile - -o %t/x.o 2>&1 | FileCheck %s --check-prefix=SYNTAX
// Nothing is left behind by a failed compilation:
// RUN: not ls %t/x.o

// NO-OUTPUT: mxfp8-compile: error: an object file needs -o FILE
// MCPU: mxfp8-compile: error: --mcpu=pentium9 is not a CPU of x86_64-unknown-linux-gnu
// TRIPLE: mxfp8-compile: error: --mtriple=nonsense-unknown-nothing:
// OPT: mxfp8-compile: error: -O4: the level must be 0 to 3
// PIPELINE: mxfp8-compile: error: invalid --pipeline: {{.*}}no-such-pass
// LOWERING: mxfp8-compile: error: invalid --lowering: {{.*}}no-such-pass
// NOT-LLVM: mxfp8-compile: warning: @f has no _mlir_ciface_f after lowering
// NOT-LLVM: mxfp8-compile: error: translating '{{.*}}errors.mlir' to LLVM IR failed (does the lowering end in the LLVM dialect?)
// ENTRY: mxfp8-compile: error: --entry=nope: no function @nope with a body in '{{.*}}errors.mlir'
// CHIP: mxfp8-compile: error: --chip=sm_80 is not a GPU target (expected sm_90a or sm_100a)
// A --lowering for another chip than --chip (the manifest records --chip,
// mxfp8-launch checks it against the GPU): it used to build the object for
// the lowering's chip (sm_90a, its default) under a manifest saying sm_100a.
// LOWERING-CHIP: mxfp8-compile: error: the lowering compiled '{{[a-z_]+}}' for sm_90a, but --chip is sm_100a (the manifest records --chip): give the same chip to both, e.g. --lowering='mxfp8train-lower-to-gpu{chip=sm_100a}'
// MISSING: mxfp8-compile: error: cannot open input file '{{.*}}missing.mlir'
// NO-FUNCTIONS: mxfp8-compile: error: '-' has no public function with a body
// SYNTAX: error: expected

#id = affine_map<(d0) -> (d0)>
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.addf %x, %x : f32
    linalg.yield %y : f32
  } -> tensor<4xf32>
  return %b : tensor<4xf32>
}
