// The per-matmul table through the AOT path: mxfp8-compile --per-matmul
// compiles the probe of the small MLP step (each of its nine matmuls also
// returned in high precision and converted alone on the same inputs, as
// mxfp8-run --compare builds it), mxfp8-launch runs it and prints the table
// of torchao's per-linear bars; its rows are those of mxfp8-run --compare on
// the same module and seed (same CPU code, same inputs).
//
// REQUIRES: host-cxx
// RUN: rm -rf %t && mkdir -p %t
// RUN: mxfp8-compile %mxfp8train_src_root/examples/mlp_train_step_small.mlir -o %t/probe.o \
// RUN:   --manifest=%t/probe.manifest --per-matmul=mxfp8_rceil
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/probe.manifest
// RUN: %host_cxx -shared -o %t/probe.so %t/probe.o -Wl,-Bsymbolic
// RUN: mxfp8-launch %t/probe.so %t/probe.manifest > %t/aot.log
// RUN: FileCheck %s < %t/aot.log
// RUN: mxfp8-run %mxfp8train_src_root/examples/mlp_train_step_small.mlir --device=cpu --compare > %t/jit.log
// RUN: grep '^ *mlp\.' %t/aot.log | tr -s ' ' > %t/aot.rows
// RUN: grep '^ *mlp\.' %t/jit.log | tr -s ' ' > %t/jit.rows
// RUN: diff %t/aot.rows %t/jit.rows
// RUN: %PYTHON %S/../mxfp8-run/Inputs/expect_rc.py 1 mxfp8-compile %mxfp8train_src_root/examples/mlp_train_step_small.mlir \
// RUN:   -o %t/bad.o --per-matmul=no_such_recipe 2>&1 | FileCheck %s --check-prefix=BAD

// MANIFEST:      func mlp_train_step args=5 results=23 abi=28
// MANIFEST-NEXT:   arg 0 x 32x256xbf16 std=1
// MANIFEST:        result 0 out 32x256xbf16 role=output
// MANIFEST:        result 5 mlp.w1.fwd 32x512xf32 role=matmul_hp
// MANIFEST-NEXT:   result 6 mlp.w1.fwd 32x512xf32 role=matmul_forward

// CHECK:      matmuls (each converted alone on the step's high-precision inputs, torchao's per-linear bars of #mxfp8train.recipe<mxfp8_rceil>):
// CHECK-NEXT:   matmul {{ *}}role {{ *}}type {{ *}}SQNR dB  max abs err  bar dB {{ *}}result
// CHECK-COUNT-9: PASS
// CHECK:      matmul bars: 9 passed, 0 failed

// BAD: mxfp8-compile: error: invalid --per-matmul recipe 'no_such_recipe': unknown recipe 'no_such_recipe': expected one of the named recipes mxfp8_rceil, mxfp8_rceil_wgrad_with_hp, mxfp8_emulated_rceil (MX), float8_tensorwise
