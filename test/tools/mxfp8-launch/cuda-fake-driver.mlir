// The CUDA path of mxfp8-launch without a GPU, against the runtime's fake
// driver (runtime/test/FakeCuda.cpp; its "device" memory is host memory and
// it emulates the kernel `memref_add_f32` by name): inputs copied to the
// device, descriptors with device pointers, a zeroed device result, the
// compiled host code loading its PTX module from a global constructor and
// launching, results copied back, CUDA-event timing; then compared with the
// CPU build of the same function (bit-exact) and of another one (differs).
// Without a driver, --device=cuda exits with 77 and the runtime's message.
// gpu-module-to-binary needs the CUDA toolkit (libdevice), hence ptxas.
//
// REQUIRES: host-cxx, ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: mxfp8-compile %s -o %t/gpu.o --device=cuda --chip=sm_100a --manifest=%t/gpu.manifest \
// RUN:   --lowering='one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},buffer-results-to-out-params{hoist-static-allocs=true modify-public-functions=true},canonicalize,func.func(llvm-request-c-wrappers),nvvm-attach-target{chip=sm_100a},gpu.module(convert-gpu-to-nvvm),gpu-to-llvm,gpu-module-to-binary{format=isa},finalize-memref-to-llvm,convert-arith-to-llvm,convert-cf-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts'
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/gpu.manifest
// RUN: %host_cxx -shared -o %t/gpu.so %t/gpu.o -Wl,-Bsymbolic -L%mxfp8train_lib_dir -lmxfp8train_runtime
// RUN: mxfp8-compile %S/Inputs/add-cpu.mlir -o %t/cpu.o --manifest=%t/cpu.manifest
// RUN: %host_cxx -shared -o %t/cpu.so %t/cpu.o -Wl,-Bsymbolic
//
// RUN: env MXFP8RT_CUDA_LIBRARY=%mxfp8train_lib_dir/libmxfp8rt_fake_cuda.so \
// RUN:   mxfp8-launch %t/gpu.so %t/gpu.manifest --entry=add --output-dir=%t/out --repeat=3 --warmup=1 \
// RUN:   --compare-with=%t/cpu.so:add --compare-manifest=%t/cpu.manifest --expect-exact | FileCheck %s
// RUN: mxfp8-launch %t/cpu.so %t/cpu.manifest --entry=add --output-dir=%t/cpu > %t/cpu.log
// RUN: cmp %t/out/c.npy %t/cpu/c.npy
// RUN: cmp %t/out/c.compare.npy %t/cpu/c.npy
//
// RUN: env MXFP8RT_CUDA_LIBRARY=%mxfp8train_lib_dir/libmxfp8rt_fake_cuda.so \
// RUN:   %PYTHON %S/../mxfp8-run/Inputs/expect_rc.py 1 mxfp8-launch %t/gpu.so %t/gpu.manifest --entry=add \
// RUN:   --compare-with=%t/cpu.so:sub --compare-manifest=%t/cpu.manifest --expect-exact \
// RUN:   > %t/sub.log 2> %t/sub.err
// RUN: FileCheck %s --check-prefix=SUB < %t/sub.log
// RUN: FileCheck %s --check-prefix=SUB-ERR < %t/sub.err
//
// A kernel launched on half the elements leaves the other half as filled
// by --fill-results (0xFFFFFFFF is a NaN): 128 elements differ.
// RUN: env MXFP8RT_CUDA_LIBRARY=%mxfp8train_lib_dir/libmxfp8rt_fake_cuda.so \
// RUN:   mxfp8-launch %t/gpu.so %t/gpu.manifest --entry=add_half --fill-results=255 \
// RUN:   --compare-with=%t/cpu.so:add --compare-manifest=%t/cpu.manifest | FileCheck %s --check-prefix=HALF
//
// RUN: env MXFP8RT_CUDA_LIBRARY=/nonexistent/libcuda.so.1 \
// RUN:   %PYTHON %S/../mxfp8-run/Inputs/expect_rc.py 77 mxfp8-launch %t/gpu.so %t/gpu.manifest --entry=add 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NODRIVER
// A cpu manifest is not run on the GPU, and a sm_100a build not on sm_90:
// RUN: %PYTHON %S/../mxfp8-run/Inputs/expect_rc.py 2 mxfp8-launch %t/cpu.so %t/cpu.manifest --entry=add --device=cuda 2>&1 \
// RUN:   | FileCheck %s --check-prefix=MISMATCH

// MANIFEST: device cuda
// MANIFEST: chip sm_100a
// MANIFEST: extern mgpuLaunchKernel
// MANIFEST: extern mgpuModuleLoadJIT
// MANIFEST: func add args=2 results=1 abi=3
// MANIFEST-NEXT: arg 0 a 256xf32
// MANIFEST-NEXT: arg 1 b 256xf32 std=0.5
// MANIFEST-NEXT: result 0 c 256xf32

// CHECK:      mxfp8-launch: @add from {{.*}}gpu.so
// CHECK-NEXT: device: cuda
// CHECK-NEXT: gpu: 0 Fake CUDA Device 0 (sm_100)
// CHECK-NEXT: inputs:
// CHECK-NEXT:   #0 a : 256xf32  normal(0, 1)
// CHECK-NEXT:   #1 b : 256xf32  normal(0, 0.5)
// CHECK:      outputs:
// CHECK-NEXT:   #  name  role  type     L2 norm  max abs  file
// CHECK-NEXT:   0  c     -     256xf32
// CHECK-NEXT: time: load {{.*}}; run cuda events median {{.*}} ms {{.*}}, host median {{.*}} over 3 run(s) after 1 warmup
// CHECK-NEXT: compare with @add from {{.*}}cpu.so (cpu) as the reference:
// CHECK-NEXT:   #  name  type     bit-exact  differing bytes  differing elements  SQNR dB  max abs err
// CHECK-NEXT:   0  c     256xf32  yes        0                0                   inf      0.000e+00
// CHECK:      bit-exact: 1 of 1 results
// CHECK-NEXT: summary: entry=add device=cuda results=1 exact=1 min_sqnr_db=inf max_abs_err=0.000e+00 time_ms={{[0-9.e+-]+}} reference_device=cpu reference_time_ms={{[0-9.e+-]+}}

// HALF: 0  c     256xf32  no {{[0-9]+}} 128 nan nan

// SUB:      compare with @sub from {{.*}}cpu.so (cpu) as the reference:
// SUB:        0  c     256xf32  no         {{[0-9]+}} 256 {{-?[0-9.]+}} {{[0-9.]+e[+-][0-9]+}}
// SUB:      bit-exact: 0 of 1 results
// SUB-ERR: mxfp8-launch: 1 result(s) differ from the reference

// NODRIVER: mxfp8-launch: error: --device=cuda: no CUDA driver (/nonexistent/libcuda.so.1) on this machine: {{.*}} (MXFP8RT_UNAVAILABLE)
// MISMATCH: mxfp8-launch: error: '{{.*}}cpu.manifest' describes code compiled for cpu, not for --device=cuda

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @memref_add_f32(%a: memref<256xf32>, %b: memref<256xf32>,
                             %c: memref<256xf32>) kernel {
      %t = gpu.thread_id x
      %bi = gpu.block_id x
      %bd = gpu.block_dim x
      %o = arith.muli %bi, %bd : index
      %i = arith.addi %o, %t : index
      %x = memref.load %a[%i] : memref<256xf32>
      %y = memref.load %b[%i] : memref<256xf32>
      %s = arith.addf %x, %y : f32
      memref.store %s, %c[%i] : memref<256xf32>
      gpu.return
    }
  }

  func.func @add(%a: tensor<256xf32>,
                 %b: tensor<256xf32> {mxfp8run.std = 0.5 : f64})
      -> tensor<256xf32> {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c128 = arith.constant 128 : index
    %ma = bufferization.to_buffer %a : tensor<256xf32> to memref<256xf32>
    %mb = bufferization.to_buffer %b : tensor<256xf32> to memref<256xf32>
    %mc = memref.alloc() : memref<256xf32>
    gpu.launch_func @kernels::@memref_add_f32
        blocks in (%c2, %c1, %c1) threads in (%c128, %c1, %c1)
        args(%ma : memref<256xf32>, %mb : memref<256xf32>, %mc : memref<256xf32>)
    %c = bufferization.to_tensor %mc restrict : memref<256xf32> to tensor<256xf32>
    return %c : tensor<256xf32>
  }

  // One block of 128 threads: elements 128..255 of c are never written.
  func.func @add_half(%a: tensor<256xf32>,
                      %b: tensor<256xf32> {mxfp8run.std = 0.5 : f64})
      -> tensor<256xf32> {
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %ma = bufferization.to_buffer %a : tensor<256xf32> to memref<256xf32>
    %mb = bufferization.to_buffer %b : tensor<256xf32> to memref<256xf32>
    %mc = memref.alloc() : memref<256xf32>
    gpu.launch_func @kernels::@memref_add_f32
        blocks in (%c1, %c1, %c1) threads in (%c128, %c1, %c1)
        args(%ma : memref<256xf32>, %mb : memref<256xf32>, %mc : memref<256xf32>)
    %c = bufferization.to_tensor %mc restrict : memref<256xf32> to tensor<256xf32>
    return %c : tensor<256xf32>
  }
}
