// Every user error gives a clear message and exit status 1, never a crash
// (`not` fails on a crash).
//
// RUN: not mxfp8-run %s 2>&1 | FileCheck %s --check-prefix=NOENTRY
// NOENTRY: mxfp8-run: error: --entry=NAME is needed: the module has 6 public functions (@ok, @dynamic, @scalar, @bad_role, @bad_std, @i4)

// RUN: echo "" > %t.empty.mlir
// RUN: not mxfp8-run %t.empty.mlir 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: mxfp8-run: error: the module has no public function with a body to run

// RUN: not mxfp8-run %s --entry=nope 2>&1 | FileCheck %s --check-prefix=NOFUNC
// NOFUNC: mxfp8-run: error: no function @nope with a body in '{{.*}}errors.mlir' (public functions: @ok, @dynamic, @scalar, @bad_role, @bad_std, @i4)

// RUN: not mxfp8-run %s --entry=decl 2>&1 | FileCheck %s --check-prefix=DECL
// DECL: mxfp8-run: error: no function @decl with a body

// RUN: not mxfp8-run %s --entry=dynamic 2>&1 | FileCheck %s --check-prefix=DYN
// DYN: mxfp8-run: error: argument #1 (b) of @dynamic has a dynamic shape (?x4xf32); mxfp8-run needs static shapes

// RUN: not mxfp8-run %s --entry=scalar 2>&1 | FileCheck %s --check-prefix=SCALAR
// SCALAR: mxfp8-run: error: argument #0 (s) of @scalar has type f32; mxfp8-run supports ranked tensors only

// RUN: not mxfp8-run %s --entry=bad_role 2>&1 | FileCheck %s --check-prefix=ROLE
// ROLE: mxfp8-run: error: result #0 (a) of @bad_role: mxfp8train.role must be "output", "input_grad" or "weight_grad"

// RUN: not mxfp8-run %s --entry=bad_std 2>&1 | FileCheck %s --check-prefix=STD
// STD: mxfp8-run: error: argument #0 (a): the standard deviation must be finite and >= 0

// RUN: not mxfp8-run %s --entry=i4 2>&1 | FileCheck %s --check-prefix=I4
// I4: mxfp8-run: error: argument #0 (h) of @i4: element type i4 is not supported on the host side

// RUN: not mxfp8-run %s --entry=ok --input=%s 2>&1 | FileCheck %s --check-prefix=NOTNPY
// NOTNPY: mxfp8-run: error: {{.*}}errors.mlir: not a .npy file

// RUN: not mxfp8-run %s --entry=ok --input=a.npy --input=b.npy 2>&1 | FileCheck %s --check-prefix=COUNT
// COUNT: mxfp8-run: error: got 2 --input files but @ok has 1 arguments

// RUN: not mxfp8-run %s --entry=ok --save-inputs 2>&1 | FileCheck %s --check-prefix=SAVE
// SAVE: mxfp8-run: error: --save-inputs needs --output-dir

// RUN: not mxfp8-run %s --entry=ok --output-dir=%s 2>&1 | FileCheck %s --check-prefix=OUTDIR
// OUTDIR: mxfp8-run: error: cannot create '{{.*}}errors.mlir'

// RUN: not mxfp8-run %s --entry=ok --pipeline=no-such-pass 2>&1 | FileCheck %s --check-prefix=PIPE
// PIPE: mxfp8-run: error: invalid --pipeline: {{.*}}no-such-pass

// RUN: not mxfp8-run %s --entry=ok --compare --recipe=bogus 2>&1 | FileCheck %s --check-prefix=RECIPE
// RECIPE: mxfp8-run: error: invalid --recipe 'bogus': {{.*}}bogus

// RUN: not mxfp8-run %s --entry=ok --compare --recipe='scale_calculation_mode = floor, token_group_alignment = 7' 2>&1 | FileCheck %s --check-prefix=RECIPE2
// RECIPE2: mxfp8-run: error: invalid --recipe 'scale_calculation_mode = floor, token_group_alignment = 7': recipe token_group_alignment must be 32 or 128, found 7

// RUN: not mxfp8-run %s --entry=ok --device=tpu 2>&1 | FileCheck %s --check-prefix=DEVICE
// DEVICE: Cannot find option named 'tpu'
// RUN: not mxfp8-run %s --entry=ok --chip=sm_90 2>&1 | FileCheck %s --check-prefix=CHIP
// CHIP: mxfp8-run: error: --chip=sm_90 is not a GPU target (expected sm_90a or sm_100a)
// RUN: env MXFP8RT_CUDA_LIBRARY=/nonexistent/libcuda.so.1 not mxfp8-run %s --entry=ok --device=cuda 2>&1 | FileCheck %s --check-prefix=NOGPU
// NOGPU: mxfp8-run: error: --device=cuda: no usable GPU: no CUDA driver (/nonexistent/libcuda.so.1) on this machine

// A pipeline that lowers the function out of the func dialect or erases it:
// plain mode has nothing to run at the tensor level.
// RUN: not mxfp8-run %s --entry=ok --pipeline=mxfp8train-lower-to-cpu 2>&1 | FileCheck %s --check-prefix=PIPE-LOWERED
// RUN: not mxfp8-run %s --entry=ok --pipeline=symbol-privatize,symbol-dce 2>&1 | FileCheck %s --check-prefix=PIPE-LOWERED
// PIPE-LOWERED: mxfp8-run: error: --pipeline removed @ok, lowered it out of the func dialect or changed its signature; plain mode runs @ok after the pipeline at the tensor level

// RUN: not mxfp8-run %s --entry=ok --recipe=float8_rowwise 2>&1 | FileCheck %s --check-prefix=PLAIN-RECIPE
// PLAIN-RECIPE: mxfp8-run: error: --recipe applies to --compare (the conversion it checks); plain mode runs the module as given

// RUN: not mxfp8-run %s --entry=ok --gpu=-1 2>&1 | FileCheck %s --check-prefix=NEG-GPU
// NEG-GPU: mxfp8-run: error: --gpu=-1 is not a CUDA device ordinal (0 or more)
// RUN: mxfp8-run %s --entry=ok --device=cpu --chip=sm_90a 2>&1 | FileCheck %s --check-prefix=CHIP-CPU
// CHIP-CPU: device: cpu (--device=cpu); --chip=sm_90a unused

// An intermediate larger than the machine's memory: an error at its op
// (mxfp8train-check-buffer-sizes in the CPU JIT), not a crash of the JIT code.
// RUN: not mxfp8-run %S/Inputs/huge-intermediate.mlir --device=cpu 2>&1 | FileCheck %s --check-prefix=BUFFER
// BUFFER: mxfp8-run: error: cannot compile the input module: lowering for the CPU failed:
// BUFFER-NEXT: huge-intermediate.mlir":4:8): a buffer of 400000000000 bytes ('memref<100000x1000000xf32>') exceeds the limit of {{[0-9]+}} bytes (max-bytes)

// A callee nothing defines: an error at its declaration (the JIT's own
// error named only the entry points).
// RUN: not mxfp8-run %S/Inputs/undefined-callee.mlir --device=cpu 2>&1 | FileCheck %s --check-prefix=UNDEF
// UNDEF: mxfp8-run: error: cannot compile the input module: JIT compilation failed: loc("{{.*}}undefined-callee.mlir":3:1): 'not_defined' is declared but not defined: neither the module nor the runtime libraries nor the process provide it
// UNDEF-NOT: never_called

// RUN: not mxfp8-run %t.does-not-exist.mlir 2>&1 | FileCheck %s --check-prefix=NOFILE
// NOFILE: mxfp8-run: error: cannot open input file '{{.*}}does-not-exist.mlir': {{[Nn]}}o such file or directory

// RUN: not mxfp8-run %S/Inputs/bad-syntax.mlir 2>&1 | FileCheck %s --check-prefix=SYNTAX
// SYNTAX: bad-syntax.mlir:2:10: error: use of undeclared SSA value name

func.func @ok(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}

func.func @dynamic(%a: tensor<4xf32>, %b: tensor<?x4xf32>) -> tensor<?x4xf32> {
  return %b : tensor<?x4xf32>
}

func.func @scalar(%s: f32) -> f32 {
  return %s : f32
}

func.func @bad_role(%a: tensor<4xf32>) -> (tensor<4xf32> {mxfp8train.role = "bias"}) {
  return %a : tensor<4xf32>
}

func.func @bad_std(%a: tensor<4xf32> {mxfp8run.std = -1.0 : f64}) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}

func.func @i4(%h: tensor<4xi4>) -> tensor<4xi4> {
  return %h : tensor<4xi4>
}

func.func private @decl(tensor<4xf32>) -> tensor<4xf32>
