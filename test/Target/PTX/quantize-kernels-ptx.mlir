// RUN: mxfp8-opt %s --mxfp8train-lower-to-gpu="format=isa" | %extract_ptx > %t.sm90a.ptx
// RUN: FileCheck %s --input-file=%t.sm90a.ptx --check-prefixes=CHECK,SM90
// RUN: FileCheck %s --input-file=%t.sm90a.ptx --check-prefix=EXACT
// RUN: mxfp8-opt %s --mxfp8train-lower-to-gpu="chip=sm_100a format=isa" | %extract_ptx > %t.sm100a.ptx
// RUN: FileCheck %s --input-file=%t.sm100a.ptx --check-prefixes=CHECK,SM100
// RUN: FileCheck %s --input-file=%t.sm100a.ptx --check-prefix=EXACT

// The PTX of the quantization kernels (no CUDA toolkit needed: LLVM's NVPTX
// back end writes it). Pinned ISA versions: 8.6 for sm_90a, 8.8 for sm_100a
// (docs/gpu.md).
// SM90:  .version 8.6
// SM90:  .target sm_90a
// SM100: .version 8.8
// SM100: .target sm_100a

// Nothing is flushed to zero and nothing goes to local memory (spills are
// ptxas's: see ptxas.mlir).
// EXACT-NOT: .ftz
// EXACT-NOT: .local

// 1x32, two lanes per block: two 16-byte read-only loads, |x| and the
// NaN-propagating max on packed bf16, one butterfly shuffle and max.NaN
// for the block's amax, the fp32 products, the hardware RNE+SATFINITE
// conversion, one 16-byte store and (first lane) the scale byte.
// CHECK-LABEL: .entry quantize_1x32_bf16_e4m3_rceil_rowmajor_256x512(
// CHECK-COUNT-2: ld.global.nc.v4.b32
// CHECK-NOT:     ld.global
// CHECK:         abs.bf16x2
// CHECK:         max.NaN.bf16x2
// CHECK:         max.NaN.bf16
// CHECK:         shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
// CHECK:         max.NaN.f32
// CHECK:         mul.rn.f32
// CHECK-COUNT-8: cvt.rn.satfinite.e4m3x2.f32
// CHECK-NOT:     cvt.rn.satfinite
// CHECK:         st.global.v4.b32
// CHECK-NOT:     st.global.v4
// CHECK:         st.global.b8
// CHECK:         ret;

// 1x32 dequantize: e4m3x2 -> f16x2 in hardware, then f32, RNE to bf16,
// one 16-byte store per lane.
// CHECK-LABEL: .entry dequantize_1x32_e4m3_bf16_rowmajor_64x256(
// CHECK:         ld.global.nc.v4.b16
// CHECK:         cvt.rn.f16x2.e4m3x2
// CHECK:         cvt.f32.f16
// CHECK:         mul.rn.f32
// CHECK:         cvt.rn.bf16.f32
// CHECK:         st.global.v4.b32
// CHECK:         ret;

// 32x1 from f32 to e5m2: 32 row loads of 16 bytes before any conversion
// (LLVM spells them v2.b64 for sm_100a).
// CHECK-LABEL: .entry quantize_32x1_f32_e5m2_floor_rowmajor_64x256(
// CHECK-COUNT-32: ld.global.nc.{{v4.b32|v2.b64}}
// CHECK:         max.NaN.f32
// CHECK:         cvt.rn.satfinite.e5m2x2.f32
// CHECK:         st.global.b32
// CHECK:         ret;

// Dual: one lane per 32 x 4 tile, 32 row loads of 8 bytes; the row amaxes
// reduce-scattered over the 8 lanes of a block (lane ^ 1, ^ 2, ^ 4), each
// lane storing its 4 row scale bytes, the bytes gathered back (^ 4, ^ 2,
// ^ 1); the lane's 4 column bytes in one store; then the conversions and
// 4-byte stores of both casts.
// CHECK-LABEL: .entry quantize_dual_bf16_e4m3_e4m3_rceil_rowmajor_rowmajor_256x512(
// CHECK-COUNT-32: ld.global.nc.v2.b32
// CHECK-COUNT-8: shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
// CHECK-COUNT-4: shfl.sync.bfly.b32 {{.*}}, 2, 31, -1;
// CHECK-COUNT-2: shfl.sync.bfly.b32 {{.*}}, 4, 31, -1;
// CHECK-COUNT-4: st.global.b8
// CHECK:         shfl.sync.bfly.b32 {{.*}}, 4, 31, -1;
// CHECK-COUNT-2: shfl.sync.bfly.b32 {{.*}}, 2, 31, -1;
// CHECK-COUNT-4: shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
// CHECK-NOT:     shfl.sync
// CHECK:         st.global.b32
// CHECK:         cvt.rn.satfinite.e4m3x2.f32
// CHECK:         st.global.b32
// CHECK-NOT:     shfl.sync
// CHECK:         ret;

func.func @kernels(%x: tensor<256x512xbf16>, %f: tensor<64x256xf32>,
                   %q: tensor<64x256xf8E4M3FN>, %s: tensor<64x8xf8E8M0FNU>)
    -> (tensor<256x512xf8E4M3FN>, tensor<256x16xf8E8M0FNU>,
        tensor<256x512xf8E4M3FN>, tensor<8x512xf8E8M0FNU>,
        tensor<64x256xf8E5M2>, tensor<2x256xf8E8M0FNU>,
        tensor<64x256xbf16>, tensor<256x512xf8E4M3FN>, tensor<256x16xf8E8M0FNU>) {
  %rq, %rs, %cq, %cs = mxfp8train.quantize_dual %x mode = rceil
      : tensor<256x512xbf16> -> tensor<256x512xf8E4M3FN>, tensor<256x16xf8E8M0FNU>,
                                tensor<256x512xf8E4M3FN>, tensor<8x512xf8E8M0FNU>
  %eq, %es = mxfp8train.quantize %f axis = 0 mode = floor
      : tensor<64x256xf32> -> tensor<64x256xf8E5M2>, tensor<2x256xf8E8M0FNU>
  %d = mxfp8train.dequantize %q [%s] axis = 1
      : tensor<64x256xf8E4M3FN> [tensor<64x8xf8E8M0FNU>] -> tensor<64x256xbf16>
  %q1, %s1 = mxfp8train.quantize %x axis = 1 mode = rceil
      : tensor<256x512xbf16> -> tensor<256x512xf8E4M3FN>, tensor<256x16xf8E8M0FNU>
  return %rq, %rs, %cq, %cs, %eq, %es, %d, %q1, %s1
      : tensor<256x512xf8E4M3FN>, tensor<256x16xf8E8M0FNU>,
        tensor<256x512xf8E4M3FN>, tensor<8x512xf8E8M0FNU>,
        tensor<64x256xf8E5M2>, tensor<2x256xf8E8M0FNU>,
        tensor<64x256xbf16>, tensor<256x512xf8E4M3FN>, tensor<256x16xf8E8M0FNU>
}
