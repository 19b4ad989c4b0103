// RUN: mxfp8-opt %s --mxfp8train-lower-to-gpu="format=isa" | FileCheck %s
// RUN: mxfp8-opt %s --mxfp8train-lower-to-gpu="chip=sm_100a format=isa" | FileCheck %s --check-prefix=B200

// The whole GPU pipeline on a quantize -> dequantize chain: the results
// become an out-parameter (a device pointer from the caller), the
// intermediate data and scales are device allocations freed at the end,
// both launches run on one stream that is synchronized before returning,
// and the kernels are embedded in a gpu.binary for the NVVM target with
// the pinned PTX ISA version. Kernels take bare pointers.

// CHECK-LABEL: llvm.func @roundtrip(
// CHECK:         %[[STREAM:.*]] = llvm.call @mgpuStreamCreate()
// CHECK:         llvm.call @mgpuMemAlloc(%{{.*}}, %[[STREAM]], %{{.*}})
// CHECK:         llvm.call @mgpuMemAlloc(%{{.*}}, %[[STREAM]], %{{.*}})
// CHECK:         gpu.launch_func <%[[STREAM]] : !llvm.ptr> @mxfp8train_kernels::@quantize_1x32_bf16_e4m3_rceil_rowmajor_64x128
// CHECK-SAME:      args(%{{.*}} : !llvm.ptr, %{{.*}} : !llvm.ptr, %{{.*}} : !llvm.ptr)
// CHECK:         gpu.launch_func <%[[STREAM]] : !llvm.ptr> @mxfp8train_kernels::@dequantize_1x32_e4m3_bf16_rowmajor_64x128
// CHECK:         llvm.call @mgpuMemFree
// CHECK:         llvm.call @mgpuMemFree
// CHECK:         llvm.call @mgpuStreamSynchronize(%[[STREAM]])
// CHECK:         llvm.call @mgpuStreamDestroy(%[[STREAM]])
// CHECK:       llvm.func @_mlir_ciface_roundtrip(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr) attributes {llvm.emit_c_interface}
// CHECK:       gpu.binary @mxfp8train_kernels  [#gpu.object<#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">
// CHECK-SAME:    .version 8.6
// CHECK-SAME:    .target sm_90a
// B200:        gpu.binary @mxfp8train_kernels  [#gpu.object<#nvvm.target<O = 3, chip = "sm_100a", features = "+ptx88">
// B200-SAME:     .version 8.8
// B200-SAME:     .target sm_100a
func.func @roundtrip(%x: tensor<64x128xbf16>) -> tensor<64x128xbf16> {
  %q, %s = mxfp8train.quantize %x axis = 1 mode = rceil
      : tensor<64x128xbf16> -> tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>
  %y = mxfp8train.dequantize %q [%s] axis = 1
      : tensor<64x128xf8E4M3FN> [tensor<64x4xf8E8M0FNU>] -> tensor<64x128xbf16>
  return %y : tensor<64x128xbf16>
}
