// The host code of the default GEMM (v8, TMA loads) ahead of time against
// the runtime's fake driver (runtime/test/FakeCuda.cpp; FAKE_CUDA_SM=90
// gives it sm_90 devices, FAKE_CUDA_TRACE prints tensor-map encodes,
// launches and frees): compiled for sm_90a as PTX (whose .entry names the
// fake driver reads), linked with the runtime, run by mxfp8-launch. The
// two tensor maps of the padded bf16 buffers are encoded before any launch:
// BFLOAT16 (9), rank 2, K innermost (A 256 x 512, B 384 rows padded to
// 512), rows of 1024 bytes, boxes of 64 K x 128 (A) / 256 (B) rows, 128B
// swizzle (3), L2 promotion 128B (2), zero fill; the GEMM receives a tensor
// map as its first argument; both maps are freed after the launches.
//
// The GPU benchmark (bench/gemm_bench.py) times the kernels without the
// host code: it traces the maps from the converted IR and encodes them
// itself through libcuda. Against the same fake driver its encodes must
// print the same arguments (prefix MAPS, checked on both outputs).
// gpu-module-to-binary needs the CUDA toolkit (libdevice), hence ptxas.
//
// REQUIRES: host-cxx, ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: mxfp8-compile %s -o %t/gemm.o --device=cuda --chip=sm_90a --manifest=%t/gemm.manifest \
// RUN:   --lowering='mxfp8train-lower-to-gpu{chip=sm_90a format=isa}'
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/gemm.manifest
// RUN: %host_cxx -shared -o %t/gemm.so %t/gemm.o -Wl,-Bsymbolic -L%mxfp8train_lib_dir -lmxfp8train_runtime
// RUN: env FAKE_CUDA_SM=90 FAKE_CUDA_TRACE=1 MXFP8RT_CUDA_LIBRARY=%mxfp8train_lib_dir/libmxfp8rt_fake_cuda.so \
// RUN:   mxfp8-launch %t/gemm.so %t/gemm.manifest --entry=fwd --repeat=1 --warmup=0 --output-dir=%t/out \
// RUN:   > %t/aot.log 2>&1
// RUN: FileCheck %s --check-prefixes=MAPS,AOT < %t/aot.log
// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu=chip=sm_90a --canonicalize > %t/conv.mlir
// RUN: env FAKE_CUDA_TRACE=1 %PYTHON %S/Inputs/bench-tensor-maps.py %mxfp8train_src_root/bench/gemm_bench.py \
// RUN:   %t/conv.mlir %mxfp8train_lib_dir/libmxfp8rt_fake_cuda.so > %t/bench.log 2>&1
// RUN: FileCheck %s --check-prefixes=MAPS,BENCH < %t/bench.log

// MANIFEST: chip sm_90a
// MANIFEST: extern mgpuTensorMapEncodeTiledMemref

// AOT:      gpu: 0 Fake CUDA Device 0 (sm_90)
// BENCH:    launch {"memset": ["alloc", "[[FLAG:%[a-z_0-9]+]]"]}
// BENCH:    launch {"kernel": "gemm_dequant_k_e4m3_1x256x512_pad256x512", {{.*}}"args": {{\[}}["arg", 0], ["arg", 1], ["alloc", "[[APAD:%[a-z_0-9]+]]"], ["alloc", "[[FLAG]]"]]}
// BENCH:    launch {"kernel": "gemm_dequant_k_e4m3_1x384x512_pad512x512", {{.*}}"args": {{\[}}["arg", 2], ["arg", 3], ["alloc", "[[BPAD:%[a-z_0-9]+]]"], ["alloc", "[[FLAG]]"]]}
// BENCH:    launch {"kernel": "scaled_mm_k_k_bf16_bf16_f32_biasbf16_256x384x512_b1_p1c1_v8w1s4_n256_gs", "grid": 4, "threads": 384, "smem": 197696, "args": {{\[}}["tensormap", 0], ["tensormap", 1], ["arg", 4], ["alloc", "[[FLAG]]"], ["result"]]}
// BENCH:    launch {"kernel": "scaled_mm_k_k_e4m3_e4m3_f32_biasbf16_256x384x512_b1_p2c1_v7w2s4_gu",
// BENCH:    map 0 {"buffer": ["alloc", "[[APAD]]"], "sizes": [256, 512], "strides": [512, 1], "box": [128, 64], "dtype": 9, "interleave": 0, "swizzle": 3, "l2": 2, "oob": 0}
// BENCH:    map 1 {"buffer": ["alloc", "[[BPAD]]"], "sizes": [512, 512], "strides": [512, 1], "box": [256, 64], "dtype": 9, "interleave": 0, "swizzle": 3, "l2": 2, "oob": 0}
// MAPS:     fake-cuda: cuTensorMapEncodeTiled type 9 rank 2 dims 512x256 strides 1024 box 64x128 elementStrides 1x1 interleave 0 swizzle 3 l2 2 oob 0 aligned16 1
// BENCH:    encoded 0 128 bytes
// MAPS:     fake-cuda: cuTensorMapEncodeTiled type 9 rank 2 dims 512x512 strides 1024 box 64x256 elementStrides 1x1 interleave 0 swizzle 3 l2 2 oob 0 aligned16 1
// BENCH:    encoded 1 128 bytes
// AOT-NEXT: fake-cuda: launch gemm_dequant_k_e4m3_1x256x512_pad256x512 grid 64x1x1 block 256x1x1 shared 0
// AOT-NEXT: fake-cuda: launch gemm_dequant_k_e4m3_1x384x512_pad512x512 grid 128x1x1 block 256x1x1 shared 0
// AOT-NEXT: fake-cuda: launch scaled_mm_k_k_bf16_bf16_f32_biasbf16_256x384x512_b1_p1c1_v8w1s4_n256_gs grid 4x1x1 block 384x1x1 shared 197696 arg0=tensormap
// AOT-NEXT: fake-cuda: launch scaled_mm_k_k_e4m3_e4m3_f32_biasbf16_256x384x512_b1_p2c1_v7w2s4_gu grid 6x1x1 block 512x1x1 shared 132416
// The maps' device copies stay cached (docs/runtime.md): no free.
// AOT-NOT:  fake-cuda: free tensormap
// AOT:      summary: entry=fwd device=cuda results=1

func.func @fwd(%a: tensor<256x512xf8E4M3FN>, %as: tensor<256x16xf8E8M0FNU>,
               %w: tensor<384x512xf8E4M3FN>, %ws: tensor<384x16xf8E8M0FNU>,
               %bias: tensor<384xbf16>) -> tensor<256x384xf32> {
  %y = mxfp8train.scaled_mm %a [%as], %w [%ws] bias(%bias) transpose_rhs
      : tensor<256x512xf8E4M3FN> [tensor<256x16xf8E8M0FNU>],
        tensor<384x512xf8E4M3FN> [tensor<384x16xf8E8M0FNU>], tensor<384xbf16> -> tensor<256x384xf32>
  return %y : tensor<256x384xf32>
}
