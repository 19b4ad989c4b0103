// A whole MXFP8 training step on the CPU, ahead of time: the small MLP
// example after the matmul rewrite, compiled for x86-64-v3, linked with the
// host g++ and run by mxfp8-launch, gives the bytes mxfp8-run gives (JIT on
// this machine's CPU) for all five results. Without AVX512-BF16 the x86
// backend lowers bf16 vector shuffles through the __truncsfbf2 libcall,
// which libgcc has only from GCC 13 on: the object defines it (weak,
// hidden), so it loads with any toolchain.
//
// REQUIRES: host-cxx
// RUN: rm -rf %t && mkdir -p %t
// RUN: mxfp8-compile %mxfp8train_src_root/examples/mlp_train_step_small.mlir -o %t/mlp.o --manifest=%t/mlp.manifest \
// RUN:   --pipeline='mxfp8train-rewrite-matmuls{recipe=mxfp8_rceil},canonicalize,cse' 2> %t/remarks.txt
// RUN: llvm-readelf -s %t/mlp.o | FileCheck %s --check-prefix=SYMBOLS
// RUN: llvm-objdump -dr %t/mlp.o | FileCheck %s --check-prefix=CALLS
// RUN: %host_cxx -shared -o %t/mlp.so %t/mlp.o -Wl,-Bsymbolic
// RUN: mxfp8-launch %t/mlp.so %t/mlp.manifest --output-dir=%t/aot | FileCheck %s
// RUN: mxfp8-run %mxfp8train_src_root/examples/mlp_train_step_small.mlir \
// RUN:   --pipeline='mxfp8train-rewrite-matmuls{recipe=mxfp8_rceil},canonicalize,cse' --output-dir=%t/jit > %t/jit.log
// RUN: cmp %t/aot/out.npy %t/jit/out.npy
// RUN: cmp %t/aot/dx.npy %t/jit/dx.npy
// RUN: cmp %t/aot/dw1.npy %t/jit/dw1.npy
// RUN: cmp %t/aot/dw3.npy %t/jit/dw3.npy
// RUN: cmp %t/aot/dw2.npy %t/jit/dw2.npy

// SYMBOLS: FUNC WEAK HIDDEN {{.*}} __truncsfbf2
// CALLS: R_X86_64_PLT32 __truncsfbf2

// CHECK: mxfp8-launch: @mlp_train_step from
// CHECK: outputs:
// CHECK: 0  out   output       32x256xbf16
// CHECK: 4  dw2   weight_grad  256x512xbf16
