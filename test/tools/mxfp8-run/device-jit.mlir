// mxfp8-run --device=cuda against the runtime's fake driver
// (runtime/test/FakeCuda.cpp: "device" memory is host memory, the kernel
// memref_add_f32 is emulated by name): the module lowered for the GPU, its
// host code JIT-compiled against libmxfp8train_runtime.so, its kernels
// loaded by the module's constructors, inputs copied to device buffers, the
// launch, the results copied back. The fake driver computes c = a + b like
// the CPU build of the same function
// (test/tools/mxfp8-launch/Inputs/add-cpu.mlir), byte for byte.
// gpu-module-to-binary needs the CUDA toolkit (libdevice), hence ptxas.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: env MXFP8RT_CUDA_LIBRARY=%mxfp8train_lib_dir/libmxfp8rt_fake_cuda.so \
// RUN:   mxfp8-run %S/../mxfp8-launch/cuda-fake-driver.mlir --entry=add --output-dir=%t/gpu \
// RUN:   --lowering='one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},buffer-results-to-out-params{hoist-static-allocs=true modify-public-functions=true},canonicalize,func.func(llvm-request-c-wrappers),nvvm-attach-target{chip=sm_100a},gpu.module(convert-gpu-to-nvvm),gpu-to-llvm,gpu-module-to-binary{format=isa},finalize-memref-to-llvm,convert-arith-to-llvm,convert-cf-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts' \
// RUN:   | FileCheck %s --check-prefix=FAKE
// RUN: mxfp8-run %S/../mxfp8-launch/Inputs/add-cpu.mlir --entry=add --device=cpu --output-dir=%t/cpu > %t/cpu.log
// RUN: cmp %t/gpu/c.npy %t/cpu/c.npy
//
// The whole GPU pipeline through the JIT: the module loads (its cubins go
// through the fake cuModuleLoadData), and the fake driver, which knows none
// of the generated kernels, fails the first lookup; the error names it.
// RUN: env MXFP8RT_CUDA_LIBRARY=%mxfp8train_lib_dir/libmxfp8rt_fake_cuda.so \
// RUN:   not mxfp8-run %S/../../../examples/mlp_train_step_small.mlir --device=cuda > %t/mlp.log 2> %t/mlp.err
// RUN: FileCheck %s --check-prefix=PIPELINE < %t/mlp.log
// RUN: FileCheck %s --check-prefix=PIPELINE-ERR < %t/mlp.err
// REQUIRES: ptxas

// FAKE:      device: cuda (Fake CUDA Device 0, sm_100, code for sm_100a)
// FAKE-NEXT: mxfp8-run: @add from {{.*}}cuda-fake-driver.mlir
// FAKE:      0  c     -     256xf32  17.2488  3.48654  {{.*}}c.npy
// FAKE-NEXT: time: compile {{.*}} s, run {{.*}} s (GPU call {{[0-9.]+}} ms)

// PIPELINE:     device: cuda (Fake CUDA Device 0, sm_100, code for sm_100a)
// PIPELINE-ERR: mgpuModuleGetFunction: cuModuleGetFunction failed looking up kernel '{{(gemm|mlp_train_step_kernel)[a-z0-9_]*}}'
// PIPELINE-ERR: mxfp8-run: error: running the input module: the GPU runtime reported an error in 'mlp_train_step': {{.*}}
