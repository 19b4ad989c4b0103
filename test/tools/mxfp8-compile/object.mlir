// The object file: x86-64 ELF, relocatable and position independent (no
// absolute 32-bit relocations, so `g++ -shared` links it), with code for the
// CPU that --mcpu names: x86-64-v3 (the default) uses 256-bit AVX registers,
// plain x86-64 does not. --emit=llvm and --emit=mlir show the stages before.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: mxfp8-compile %s -o %t/v3.o --manifest=%t/v3.manifest
// RUN: llvm-readelf -h %t/v3.o | FileCheck %s --check-prefix=ELF
// RUN: llvm-readelf -r %t/v3.o | FileCheck %s --check-prefix=RELOC
// RUN: llvm-nm %t/v3.o | FileCheck %s --check-prefix=SYMBOLS
// RUN: llvm-objdump -d --no-show-raw-insn %t/v3.o | FileCheck %s --check-prefix=AVX
// RUN: mxfp8-compile %s -o %t/base.o --mcpu=x86-64 --manifest=%t/base.manifest
// RUN: llvm-objdump -d --no-show-raw-insn %t/base.o | FileCheck %s --check-prefix=SSE
// RUN: FileCheck %s --check-prefix=CPU-V3 < %t/v3.manifest
// RUN: FileCheck %s --check-prefix=CPU-BASE < %t/base.manifest
// RUN: mxfp8-compile %s -o %t/native.o --mcpu=native --manifest=%t/native.manifest
// RUN: FileCheck %s --check-prefix=CPU-NATIVE < %t/native.manifest
//
// RUN: mxfp8-compile %s --emit=llvm -o - | FileCheck %s --check-prefix=LLVM
// RUN: mxfp8-compile %s --emit=mlir -o - | FileCheck %s --check-prefix=MLIR
// RUN: mxfp8-compile %s --emit=llvm -O0 -o - | FileCheck %s --check-prefix=LLVM
//
// REQUIRES: host-cxx
// RUN: %host_cxx -shared -o %t/v3.so %t/v3.o
// RUN: %host_cxx -shared -o %t/base.so %t/base.o

// ELF: Class: ELF64
// ELF: Type: REL (Relocatable file)
// ELF: Machine: Advanced Micro Devices X86-64

// RELOC-NOT: R_X86_64_32
// RELOC: R_X86_64_PLT32 {{.*}} malloc
// RELOC-NOT: R_X86_64_32

// SYMBOLS-NOT: __truncsfbf2
// SYMBOLS: T _mlir_ciface_scale
// SYMBOLS-NOT: __truncsfbf2
// SYMBOLS: T scale
// SYMBOLS-NOT: __truncsfbf2

// AVX: vmulps {{.*}}%ymm
// SSE-NOT: ymm
// SSE: mulps {{.*}}%xmm
// SSE-NOT: ymm

// CPU-V3: cpu x86-64-v3
// CPU-BASE: cpu x86-64
// CPU-NATIVE-NOT: cpu native
// CPU-NATIVE: cpu {{[a-z0-9-]+}}
// CPU-NATIVE-NEXT: features {{.*}}+sse2

// LLVM: target triple = "x86_64-unknown-linux-gnu"
// LLVM: define dso_local void @scale(
// LLVM: define dso_local void @_mlir_ciface_scale(ptr

// MLIR: llvm.func @_mlir_ciface_scale(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr) attributes {llvm.emit_c_interface}

#id = affine_map<(d0) -> (d0)>
func.func @scale(%a: tensor<1024xf32>) -> tensor<1024xf32> {
  %three = arith.constant 3.0 : f32
  %e = tensor.empty() : tensor<1024xf32>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<1024xf32>) outs(%e : tensor<1024xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %three : f32
    linalg.yield %y : f32
  } -> tensor<1024xf32>
  return %c : tensor<1024xf32>
}
