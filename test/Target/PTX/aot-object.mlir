// REQUIRES: ptxas
// RUN: env MXFP8_OPT=%mxfp8_opt_path CUDA_HOME=%cuda_home bash %aot_compile %s %t.sm90a.o sm_90a
// RUN: llvm-nm %t.sm90a.o | FileCheck %s
// RUN: env MXFP8_OPT=%mxfp8_opt_path CUDA_HOME=%cuda_home bash %aot_compile %s %t.sm100a.o sm_100a
// RUN: llvm-nm %t.sm100a.o | FileCheck %s
// RUN: llvm-readelf --sections %t.sm90a.o | FileCheck %s --check-prefix=ELF

// scripts/aot-compile.sh: mxfp8train-lower-to-gpu, mlir-translate and llc
// give a relocatable x86-64 object that exports the function and its C
// interface, embeds the cubins (loaded by a constructor through
// mgpuModuleLoad) and launches through the upstream mgpu* runtime ABI
// (libmxfp8train_runtime.so provides it, docs/runtime.md).

// CHECK-DAG: T _mlir_ciface_quantize_step
// CHECK-DAG: T quantize_step
// CHECK-DAG: U mgpuLaunchKernel
// CHECK-DAG: U mgpuModuleGetFunction
// CHECK-DAG: U mgpuModuleLoad
// CHECK-DAG: U mgpuModuleUnload
// CHECK-DAG: U mgpuStreamCreate
// CHECK-DAG: U mgpuStreamSynchronize
// CHECK-DAG: U mgpuStreamDestroy
// CHECK-DAG: U mgpuMemAlloc
// CHECK-DAG: U mgpuMemFree
// CHECK-DAG: r mxfp8train_kernels_binary

// ELF: .init_array

func.func @quantize_step(%x: tensor<128x256xbf16>)
    -> (tensor<128x256xf8E4M3FN>, tensor<128x8xf8E8M0FNU>, tensor<128x256xbf16>) {
  %q, %s = mxfp8train.quantize %x axis = 1 mode = rceil
      : tensor<128x256xbf16> -> tensor<128x256xf8E4M3FN>, tensor<128x8xf8E8M0FNU>
  // An intermediate buffer (device allocation) and a second kernel.
  %q2, %s2 = mxfp8train.quantize %x axis = 0 mode = rceil
      : tensor<128x256xbf16> -> tensor<128x256xf8E4M3FN>, tensor<4x256xf8E8M0FNU>
  %d = mxfp8train.dequantize %q2 [%s2] axis = 0
      : tensor<128x256xf8E4M3FN> [tensor<4x256xf8E8M0FNU>] -> tensor<128x256xbf16>
  return %q, %s, %d : tensor<128x256xf8E4M3FN>, tensor<128x8xf8E8M0FNU>, tensor<128x256xbf16>
}
