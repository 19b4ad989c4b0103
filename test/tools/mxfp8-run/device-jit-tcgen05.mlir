// The tcgen05 scaled_mm through mxfp8-run's JIT (CUDAExecutable) against
// the runtime's fake driver with FAKE_CUDA_TRACE: the host code encodes the
// two operands' tensor maps through libmxfp8train_runtime.so's
// mgpuTensorMapEncodeTiledMemref (rank 2, UINT8, innermost dimension first:
// K = 512 bytes per row; boxes 128 K x 128 rows and 128 K x 256 rows;
// 128-byte swizzle; zero fill), whose device copies the runtime keeps
// cached (mgpuMemFree of them does nothing). The fake
// driver knows none of the generated kernels, so their lookups fail and
// the run reports it.
// gpu-module-to-binary needs the CUDA toolkit, hence ptxas.
//
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: env FAKE_CUDA_TRACE=1 MXFP8RT_CUDA_LIBRARY=%mxfp8train_lib_dir/libmxfp8rt_fake_cuda.so \
// RUN:   not mxfp8-run %s --device=cuda --output-dir=%t > %t/run.log 2> %t/run.err
// RUN: FileCheck %s < %t/run.err
// RUN: FileCheck %s --check-prefix=LOG < %t/run.log

// CHECK:      fake-cuda: cuTensorMapEncodeTiled type 0 rank 2 dims 512x256 strides 512 box 128x128 elementStrides 1x1 interleave 0 swizzle 3 l2 2 oob 0 aligned16 1
// CHECK-NEXT: fake-cuda: cuTensorMapEncodeTiled type 0 rank 2 dims 512x384 strides 512 box 128x256 elementStrides 1x1 interleave 0 swizzle 3 l2 2 oob 0 aligned16 1
// CHECK-NEXT: mxfp8train runtime: mgpuModuleGetFunction: cuModuleGetFunction failed looking up kernel 'scaled_mm_tc05_kb_kb_e4m3_e4m3_bf16_256x384x512_s4'
// CHECK-NOT:  fake-cuda: free tensormap
// CHECK:      mxfp8-run: error: running the input module: the GPU runtime reported an error in 'fwd'

// LOG: device: cuda (Fake CUDA Device 0, sm_100, code for sm_100a)

func.func @fwd(%a: tensor<256x512xf8E4M3FN>, %as: tensor<256x16xf8E8M0FNU>,
               %w: tensor<384x512xf8E4M3FN>, %ws: tensor<384x16xf8E8M0FNU>) -> tensor<256x384xbf16> {
  %y = mxfp8train.scaled_mm %a [%as], %w [%ws] transpose_rhs
      : tensor<256x512xf8E4M3FN> [tensor<256x16xf8E8M0FNU>],
        tensor<384x512xf8E4M3FN> [tensor<384x16xf8E8M0FNU>] -> tensor<256x384xbf16>
  return %y : tensor<256x384xbf16>
}
