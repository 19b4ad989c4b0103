// RUN: not mxfp8-opt %s --mxfp8train-lower-to-gpu="format=xyz" 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not mxfp8-opt %s --mxfp8train-lower-to-gpu="chip=sm_80" 2>&1 | FileCheck %s --check-prefix=CHIP

// An unknown option value of mxfp8train-lower-to-gpu is an error with a
// non-zero exit, before anything is lowered or emitted (issue 14 row 13:
// `format=xyz` used to print an error, exit 0 and emit a binary).

// FORMAT: for the --format option: Cannot find option named 'xyz'
// CHIP: unsupported chip 'sm_80' (expected sm_90a or sm_100a)

func.func @f() {
  return
}
