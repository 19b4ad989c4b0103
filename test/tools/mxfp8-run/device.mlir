// mxfp8-run --device: the first line says where the function runs and why.
// Without a CUDA driver the default is the CPU and --device=cuda fails; with
// the runtime's fake driver (runtime/test/FakeCuda.cpp: "device" memory is
// host memory, the kernel memref_add_f32 is emulated by name) the CUDA path
// runs through the JIT: the module lowered for the GPU, its host code
// JIT-compiled against libmxfp8train_runtime.so, its kernels loaded by the
// module's constructors, inputs copied to device buffers, the launch, the
// results copied back. The fake driver computes c = a + b like the CPU
// build of the same function (test/tools/mxfp8-launch/Inputs/add-cpu.mlir),
// byte for byte.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: env MXFP8RT_CUDA_LIBRARY=/nonexistent/libcuda.so.1 \
// RUN:   mxfp8-run %S/../mxfp8-launch/Inputs/add-cpu.mlir --entry=add | FileCheck %s --check-prefix=NODRIVER
// RUN: env MXFP8RT_CUDA_LIBRARY=/nonexistent/libcuda.so.1 \
// RUN:   not mxfp8-run %S/../mxfp8-launch/Inputs/add-cpu.mlir --entry=add --device=cuda 2>&1 | FileCheck %s --check-prefix=NOCUDA
// RUN: env MXFP8RT_CUDA_LIBRARY=%mxfp8train_lib_dir/libmxfp8rt_fake_cuda.so FAKE_CUDA_NO_DEVICE=1 \
// RUN:   mxfp8-run %S/../mxfp8-launch/Inputs/add-cpu.mlir --entry=add | FileCheck %s --check-prefix=NODEVICE
// RUN: env MXFP8RT_CUDA_LIBRARY=%mxfp8train_lib_dir/libmxfp8rt_fake_cuda.so \
// RUN:   mxfp8-run %S/../mxfp8-launch/Inputs/add-cpu.mlir --entry=add --device=cpu | FileCheck %s --check-prefix=CPU
// RUN: env MXFP8RT_CUDA_LIBRARY=%mxfp8train_lib_dir/libmxfp8rt_fake_cuda.so \
// RUN:   mxfp8-run --print-device | FileCheck %s --check-prefix=PRINT --implicit-check-not=mxfp8-run
// RUN: env MXFP8RT_CUDA_LIBRARY=/nonexistent/libcuda.so.1 \
// RUN:   mxfp8-run --print-device | FileCheck %s --check-prefix=NODRIVER-PRINT
//
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

// NODRIVER:      device: cpu (no CUDA driver (/nonexistent/libcuda.so.1) on this machine: {{.*}})
// NODRIVER-NEXT: mxfp8-run: @add from {{.*}}add-cpu.mlir
// NOCUDA:        mxfp8-run: error: --device=cuda: no usable GPU: no CUDA driver (/nonexistent/libcuda.so.1) on this machine
// NODEVICE:      device: cpu ({{.*}}CUDA_ERROR_NO_DEVICE{{.*}})
// CPU:           device: cpu (--device=cpu)
// PRINT:         device: cuda (Fake CUDA Device 0, sm_100, code for sm_100a)
// NODRIVER-PRINT: device: cpu (no CUDA driver (/nonexistent/libcuda.so.1) on this machine: {{.*}})

// FAKE:      device: cuda (Fake CUDA Device 0, sm_100, code for sm_100a)
// FAKE-NEXT: mxfp8-run: @add from {{.*}}cuda-fake-driver.mlir
// FAKE:      0  c     -     256xf32  17.2488  3.48654  {{.*}}c.npy
// FAKE-NEXT: time: compile {{.*}} s, run {{.*}} s (GPU call {{[0-9.]+}} ms)

// PIPELINE:     device: cuda (Fake CUDA Device 0, sm_100, code for sm_100a)
// PIPELINE-ERR: mgpuModuleGetFunction: cuModuleGetFunction failed looking up kernel '{{(gemm|mlp_train_step_kernel)[a-z0-9_]*}}'
// PIPELINE-ERR: mxfp8-run: error: running the input module: the GPU runtime reported an error in 'mlp_train_step': {{.*}}
