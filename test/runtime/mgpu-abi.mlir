// Host code from upstream `gpu-to-llvm` runs against libmxfp8train_runtime.so
// in mlir-runner (the ExecutionEngine loading it with --shared-libs): module
// load (PTX for the JIT, and a binary blob), kernel lookup, async allocation,
// copies, launch, wait. The fake driver emulates memref_add_f32 on the host;
// without a driver every call fails and the message is printed once.
//
// RUN: mlir-opt %s --convert-linalg-to-loops --gpu-to-llvm \
// RUN:   --convert-scf-to-cf --finalize-memref-to-llvm --convert-arith-to-llvm \
// RUN:   --convert-cf-to-llvm --convert-func-to-llvm \
// RUN:   --reconcile-unrealized-casts > %t.mlir
// RUN: env MXFP8RT_CUDA_LIBRARY=%mxfp8train_lib_dir/libmxfp8rt_fake_cuda.so \
// RUN:   mlir-runner %t.mlir --entry-point-result=void \
// RUN:   --shared-libs=%mxfp8train_lib_dir/libmxfp8train_runtime.so \
// RUN:   --shared-libs=%mlir_lib_dir/libmlir_runner_utils.so \
// RUN:   --shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so \
// RUN:   | FileCheck %s
// MXFP8RT_PROFILE=1: the report on stderr at exit (the fake driver's clock
// makes each launch and copy 1 ms; four 16-byte buffers from a pool that
// grows for each; the final gpu.wait is the one host wait).
// RUN: env MXFP8RT_PROFILE=1 MXFP8RT_CUDA_LIBRARY=%mxfp8train_lib_dir/libmxfp8rt_fake_cuda.so \
// RUN:   mlir-runner %t.mlir --entry-point-result=void \
// RUN:   --shared-libs=%mxfp8train_lib_dir/libmxfp8train_runtime.so \
// RUN:   --shared-libs=%mlir_lib_dir/libmlir_runner_utils.so \
// RUN:   --shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so \
// RUN:   2>&1 >/dev/null | FileCheck %s --check-prefix=PROFILE
// RUN: env MXFP8RT_CUDA_LIBRARY=/nonexistent/libcuda.so.1 \
// RUN:   mlir-runner %t.mlir --entry-point-result=void \
// RUN:   --shared-libs=%mxfp8train_lib_dir/libmxfp8train_runtime.so \
// RUN:   --shared-libs=%mlir_lib_dir/libmlir_runner_utils.so \
// RUN:   --shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so \
// RUN:   2>&1 >/dev/null | FileCheck %s --check-prefix=NODRIVER

// CHECK: data =
// CHECK-NEXT: [3.75,  3.75,  3.75,  3.75]
// CHECK: data =
// CHECK-NEXT: [6,  6,  6,  6]

// PROFILE: mxfp8train runtime profile (MXFP8RT_PROFILE=1):
// PROFILE-NEXT: kernel launches total ms mean ms share
// PROFILE-NEXT: cuMemcpyAsync 4 4.0000 1.0000 66.7%
// PROFILE-NEXT: memref_add_f32 2 2.0000 1.0000 33.3%
// PROFILE-NEXT: all kernels 2 2.0000
// PROFILE-NEXT: all memsets 0 0.0000
// PROFILE-NEXT: all copies 4 4.0000
// PROFILE-NEXT: untimed operations 0; memsets 0 (0 bytes); copies 4 (64 bytes); allocations 4 (64 bytes; pool 4: 0 hits, 4 misses); frees 4 (cuMemFree 0); host synchronizations 1; profiling events created 12

// NODRIVER: mxfp8train runtime: {{mgpuModuleLoad|mgpuModuleLoadJIT}}: no CUDA driver (/nonexistent/libcuda.so.1) on this machine: /nonexistent/libcuda.so.1: cannot open shared object file
// NODRIVER-NOT: mxfp8train runtime

module attributes {gpu.container_module} {
  // What the fake driver reads of PTX: the `.entry` names.
  gpu.binary @ptx [#gpu.object<#nvvm.target, properties = {}, assembly = ".version 8.0\0A.target sm_90\0A.visible .entry memref_add_f32(\0A)\0A">]
  gpu.binary @blob [#gpu.object<#nvvm.target, bin = ".version 8.0\0A.visible .entry memref_add_f32(\0A)\0A">]
  func.func private @printMemrefF32(memref<*xf32>)

  func.func @main() {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %x = arith.constant 1.5 : f32
    %y = arith.constant 2.25 : f32
    %a = memref.alloc() : memref<4xf32>
    %b = memref.alloc() : memref<4xf32>
    %c = memref.alloc() : memref<4xf32>
    linalg.fill ins(%x : f32) outs(%a : memref<4xf32>)
    linalg.fill ins(%y : f32) outs(%b : memref<4xf32>)
    %t0 = gpu.wait async
    %da, %t1 = gpu.alloc async [%t0] () : memref<4xf32>
    %db, %t2 = gpu.alloc async [%t1] () : memref<4xf32>
    %dc, %t3 = gpu.alloc async [%t2] () : memref<4xf32>
    %dd, %t4 = gpu.alloc async [%t3] () : memref<4xf32>
    %t5 = gpu.memcpy async [%t4] %da, %a : memref<4xf32>, memref<4xf32>
    %t6 = gpu.memcpy async [%t5] %db, %b : memref<4xf32>, memref<4xf32>
    // c = a + b with the JIT-loaded module, d = c + b with the blob one.
    %t7 = gpu.launch_func async [%t6] @ptx::@memref_add_f32
        blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1)
        args(%da : memref<4xf32>, %db : memref<4xf32>, %dc : memref<4xf32>)
    %t8 = gpu.launch_func async [%t7] @blob::@memref_add_f32
        blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1)
        args(%dc : memref<4xf32>, %db : memref<4xf32>, %dd : memref<4xf32>)
    %t9 = gpu.memcpy async [%t8] %c, %dc : memref<4xf32>, memref<4xf32>
    %t10 = gpu.memcpy async [%t9] %a, %dd : memref<4xf32>, memref<4xf32>
    %t11 = gpu.dealloc async [%t10] %da : memref<4xf32>
    %t12 = gpu.dealloc async [%t11] %db : memref<4xf32>
    %t13 = gpu.dealloc async [%t12] %dc : memref<4xf32>
    %t14 = gpu.dealloc async [%t13] %dd : memref<4xf32>
    gpu.wait [%t14]
    %uc = memref.cast %c : memref<4xf32> to memref<*xf32>
    call @printMemrefF32(%uc) : (memref<*xf32>) -> ()
    %ua = memref.cast %a : memref<4xf32> to memref<*xf32>
    call @printMemrefF32(%ua) : (memref<*xf32>) -> ()
    memref.dealloc %a : memref<4xf32>
    memref.dealloc %b : memref<4xf32>
    memref.dealloc %c : memref<4xf32>
    return
  }
}
