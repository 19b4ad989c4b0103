// mxfp8-launch --profile against the runtime's fake driver (its clock makes
// every timed launch, fill and copy take 1 ms): the small MLP and MoE steps
// after the MXFP8 rewrite, for sm_90a (dequantize pre-passes, bf16 GEMMs)
// and sm_100a (tcgen05 GEMMs on blocked scales), compiled as PTX (whose
// .entry names the fake driver reads). Every kernel the pipeline emits must
// land in a named family of mxfp8train/Support/KernelFamily.h (only the
// vectorized elementwise kernels are `elementwise`, those outlined from
// linalg `other`); the JSON report is checked by
// Inputs/check-profile-json.py, which asserts no launch counts that the
// GPU lowering may change, only which families are present (the sm_90a
// step keeps its elementwise sum kernel: fuse-gemm-sums=false).
// MXFP8RT_PROFILE=1 asks for the same profiled call.
//
// REQUIRES: host-cxx, ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: mxfp8-compile %mxfp8train_src_root/examples/mlp_train_step_small.mlir -o %t/mlp90.o \
// RUN:   --device=cuda --chip=sm_90a --manifest=%t/mlp90.manifest \
// RUN:   --pipeline='mxfp8train-rewrite-matmuls{recipe=mxfp8_rceil},canonicalize,cse' \
// RUN:   --lowering='mxfp8train-lower-to-gpu{chip=sm_90a format=isa fuse-gemm-sums=false}' 2> /dev/null
// RUN: mxfp8-compile %mxfp8train_src_root/examples/moe_train_step_small.mlir -o %t/moe100.o \
// RUN:   --device=cuda --chip=sm_100a --manifest=%t/moe100.manifest \
// RUN:   --pipeline='mxfp8train-rewrite-matmuls{recipe=mxfp8_rceil},canonicalize,cse' \
// RUN:   --lowering='mxfp8train-lower-to-gpu{chip=sm_100a format=isa}' 2> /dev/null
// RUN: %host_cxx -shared -o %t/mlp90.so %t/mlp90.o -Wl,-Bsymbolic -L%mxfp8train_lib_dir -lmxfp8train_runtime
// RUN: %host_cxx -shared -o %t/moe100.so %t/moe100.o -Wl,-Bsymbolic -L%mxfp8train_lib_dir -lmxfp8train_runtime
//
// RUN: env FAKE_CUDA_SM=90 MXFP8RT_CUDA_LIBRARY=%mxfp8train_lib_dir/libmxfp8rt_fake_cuda.so \
// RUN:   mxfp8-launch %t/mlp90.so %t/mlp90.manifest --repeat=1 --profile --profile-top=3 \
// RUN:   --profile-json=%t/mlp90.json > %t/mlp90.log 2>&1
// RUN: FileCheck %s < %t/mlp90.log
// RUN: %PYTHON %S/Inputs/check-profile-json.py %t/mlp90.json 'gemm>0' 'dequant>0' 'quantize>0' 'elementwise>0' \
// RUN:   | FileCheck %s --check-prefix=JSON
// RUN: env MXFP8RT_CUDA_LIBRARY=%mxfp8train_lib_dir/libmxfp8rt_fake_cuda.so MXFP8RT_PROFILE=1 \
// RUN:   mxfp8-launch %t/moe100.so %t/moe100.manifest --repeat=1 --profile-json=%t/moe100.json > %t/moe100.log 2>&1
// RUN: FileCheck %s --check-prefix=ENV < %t/moe100.log
// RUN: %PYTHON %S/Inputs/check-profile-json.py %t/moe100.json 'gemm>0' dequant=0 'quantize>0' 'layout>0' \
// RUN:   'token_groups>0' | FileCheck %s --check-prefix=JSON
//
// --profile is for GPU code:
// RUN: mxfp8-compile %S/Inputs/add-cpu.mlir -o %t/cpu.o --manifest=%t/cpu.manifest
// RUN: %host_cxx -shared -o %t/cpu.so %t/cpu.o -Wl,-Bsymbolic
// RUN: %PYTHON %S/../mxfp8-run/Inputs/expect_rc.py 2 mxfp8-launch %t/cpu.so %t/cpu.manifest --entry=add --profile 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CPU
// RUN: env MXFP8RT_PROFILE=1 mxfp8-launch %t/cpu.so %t/cpu.manifest --entry=add | FileCheck %s --check-prefix=CPU-ENV

// CHECK: time: load
// CHECK-NEXT: profile: one more call with CUDA events around every launch, fill and copy
// CHECK-NEXT: profile by family:
// CHECK-NEXT: family launches kernels total ms share of step what
// CHECK-NEXT: gemm {{[1-9][0-9]*}} {{[1-9][0-9]*}} {{[1-9][0-9]*}}.0000 {{[0-9.]+}}% GEMMs
// CHECK-NEXT: dequant {{[1-9][0-9]*}}
// CHECK-NEXT: quantize {{[1-9][0-9]*}}
// CHECK-NEXT: layout
// CHECK-NEXT: token_groups 0 0 0.0000 0.0%
// CHECK-NEXT: memset
// CHECK-NEXT: memcpy
// CHECK-NEXT: elementwise
// CHECK-NEXT: other
// CHECK-NEXT: (none) - -
// CHECK-NEXT: profile by kernel (the 3 largest):
// CHECK-NEXT: # kernel family launches total ms mean ms share of step
// CHECK-NEXT: 1 {{[A-Za-z_0-9]+}} {{[a-z_]+}} {{[0-9]+}} {{[0-9]+}}.0000 1.0000
// CHECK-NEXT: {{^}} 2 {{[A-Za-z_0-9]+}} {{[a-z_]+}} {{[0-9]+}}
// CHECK-NEXT: {{^}} 3 {{[A-Za-z_0-9]+}} {{[a-z_]+}} {{[0-9]+}}
// CHECK-NEXT: profile counters: launches {{[1-9][0-9]*}} (untimed 0); fills
// CHECK-SAME: allocations {{[1-9][0-9]*}}
// CHECK-SAME: host synchronizations
// CHECK-NEXT: profile: written to {{.*}}mlp90.json
// CHECK-NOT: mxfp8train runtime profile

// JSON: ok: gemm=

// The environment variable gives the profiled call, and no second report
// from the runtime at exit.
// ENV: profile by family:
// ENV: profile counters:
// ENV-NOT: mxfp8train runtime profile

// CPU: --profile times GPU kernels: '{{.*}}cpu.manifest' is cpu code
// CPU-ENV-NOT: profile by family
// CPU-ENV: summary: entry=add device=cpu
