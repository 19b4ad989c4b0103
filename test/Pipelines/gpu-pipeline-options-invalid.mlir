// RUN: not mxfp8-opt %s --mxfp8train-lower-to-gpu="format=xyz" 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not mxfp8-opt %s --mxfp8train-lower-to-gpu="chip=sm_80" 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not mxfp8-opt %s --mxfp8train-lower-to-gpu="format=isa features=+ptx85" 2>&1 | FileCheck %s --check-prefix=OLD
// RUN: not mxfp8-opt %s --mxfp8train-lower-to-gpu="format=isa chip=sm_100a features=+ptx87" 2>&1 | FileCheck %s --check-prefix=OLD100
// RUN: not mxfp8-opt %s --mxfp8train-lower-to-gpu="format=isa features=+ptx99" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not mxfp8-opt %s --mxfp8train-lower-to-gpu="format=isa features=+bogus" 2>&1 | FileCheck %s --check-prefix=BOGUS
// RUN: not mxfp8-opt %s --mxfp8train-lower-to-gpu="format=isa features=+ptx86,+ptx90" 2>&1 | FileCheck %s --check-prefix=TWO
// RUN: mxfp8-opt %s --mxfp8train-lower-to-gpu="format=isa features=+ptx87" | FileCheck %s --check-prefix=NEWER
// RUN: not mxfp8-opt %s --mxfp8train-lower-to-gpu="format=isa toolkit=%t.nonexistent" 2>&1 | FileCheck %s --check-prefix=TOOLKIT
// RUN: not mxfp8-opt %s --mxfp8train-lower-to-gpu="format=isa opt-level=9" 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: not mxfp8-opt %s --pass-pipeline='builtin.module(func.func(mxfp8train-lower-to-gpu))' 2>&1 | FileCheck %s --check-prefix=ANCHOR
// RUN: not mxfp8-opt %s --pass-pipeline='builtin.module(func.func(mxfp8train-lower-to-cpu))' 2>&1 | FileCheck %s --check-prefix=ANCHOR-CPU

// An unknown option value of mxfp8train-lower-to-gpu is an error with a
// non-zero exit, before anything is lowered or emitted (issue 14 row 13:
// `format=xyz` used to print an error, exit 0 and emit a binary).

// FORMAT: for the --format option: Cannot find option named 'xyz'
// CHIP: unsupported chip 'sm_80' (expected sm_90a or sm_100a)

// A PTX version below what the kernels need (or one LLVM ignores) used to
// abort LLVM's instruction selection ("Cannot select: intrinsic
// %llvm.nvvm.cp.async.bulk.tensor...") with a stack dump.
// OLD: error: mxfp8train-lower-to-gpu: features '+ptx85': PTX ISA 8.5 is too old for the kernels of sm_90a; expected one `+ptxNN` with NN >= 86 for sm_90a (default +ptx86)
// OLD100: error: mxfp8train-lower-to-gpu: features '+ptx87': PTX ISA 8.7 is too old for the kernels of sm_100a; expected one `+ptxNN` with NN >= 88 for sm_100a (default +ptx88)
// UNKNOWN: error: mxfp8train-lower-to-gpu: features '+ptx99': LLVM's NVPTX backend knows PTX ISA versions up to {{[0-9]+\.[0-9]}} (+ptx{{[0-9]+}}); expected one `+ptxNN` with NN >= 86 for sm_90a (default +ptx86)
// BOGUS: error: mxfp8train-lower-to-gpu: features '+bogus': expected one `+ptxNN`
// TWO: error: mxfp8train-lower-to-gpu: features '+ptx86,+ptx90': expected one `+ptxNN`
// NEWER: llvm.func @f()

// A toolkit that is not there: upstream's serializer reported it and
// format=isa still exited 0 (without libdevice).
// TOOLKIT: error: mxfp8train-lower-to-gpu: toolkit '{{.*}}.nonexistent' is not a directory (the CUDA toolkit: the NVVM target links {{.*}}/nvvm/libdevice, and format=bin|fatbin run {{.*}}/bin/ptxas)

// OPT: error: mxfp8train-lower-to-gpu: opt-level 9: expected 0 to 3 (the NVPTX optimization level)
// OPT-NOT: see current operation

// Either pipeline nested in another op (it used to abort with LLVM's "Can't
// add pass ... restricted to 'builtin.module'"; from Python too).
// ANCHOR: error: mxfp8train-lower-to-gpu: runs on builtin.module (it bufferizes and lowers whole modules), not nested in 'func.func': use --pass-pipeline='builtin.module(mxfp8train-lower-to-gpu)'
// ANCHOR-CPU: error: mxfp8train-lower-to-cpu: runs on builtin.module

func.func @f() {
  return
}
