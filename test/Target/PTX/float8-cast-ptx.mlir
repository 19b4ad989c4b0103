// RUN: mxfp8-opt %s --mxfp8train-lower-to-gpu="format=isa" | %extract_ptx > %t.sm90a.ptx
// RUN: FileCheck %s --input-file=%t.sm90a.ptx
// RUN: FileCheck %s --input-file=%t.sm90a.ptx --check-prefix=EXACT
// RUN: mxfp8-opt %s --mxfp8train-lower-to-gpu="chip=sm_100a format=isa" | %extract_ptx > %t.sm100a.ptx
// RUN: FileCheck %s --input-file=%t.sm100a.ptx --check-prefix=EXACT
// RUN: FileCheck %s --input-file=%t.sm100a.ptx --check-prefix=ENTRIES

// The PTX of the Float8 cast kernels (Float8CastKernels.cpp); ptxas
// assembles them without spills in float8-cast-ptxas.test.

// Nothing flushed to zero, nothing in local memory, the divisions IEEE.
// EXACT-NOT: .ftz
// EXACT-NOT: .local
// EXACT-NOT: div.full
// EXACT-NOT: div.approx

// The kernels appear in reverse order of creation (the greedy driver
// visits the ops bottom-up).

// Dequantize: exact e4m3 -> f16 in hardware, the IEEE division, RNE to
// bf16, one 16-byte store.
// CHECK-LABEL: .entry float8_dequantize_tensor_e4m3_bf16_4194304(
// CHECK:         cvt.rn.f16x2.e4m3x2
// CHECK:         div.rn.f32
// CHECK:         cvt.rn.bf16.f32
// CHECK:         st.global.v4.b32
// CHECK:         ret;

// Tensorwise amax (f32): four 16-byte loads in flight per thread, the
// CTA's maximum, one atomicMax of its bits.
// CHECK-LABEL: .entry float8_amax_tensor_f32_1024000(
// CHECK-COUNT-4: ld.global.nc.v4.b32
// CHECK:         max.NaN.f32
// CHECK:         shfl.sync.bfly.b32
// CHECK:         bar.sync 0;
// CHECK:         bar.sync 0;
// CHECK:         atom.global.max.u32
// CHECK-NOT:     atom.global
// CHECK:         ret;

// Tensorwise cast: the word once, the scale division once, thread 0's
// scale store, then the casts.
// CHECK-LABEL: .entry float8_cast_tensor_f32_e4m3_pow2_1024000(
// CHECK:         ld.global.nc.b32
// CHECK:         div.rn.f32
// CHECK-NOT:     div.rn.f32
// CHECK:         st.global.b32
// CHECK:         ld.global.nc.v4.b32
// CHECK:         cvt.rn.satfinite.e4m3x2.f32
// CHECK:         st.global.b32
// CHECK:         ret;

// Colwise amax (bf16, 8 columns per thread): the thread's sixteen row
// loads in flight, max.NaN, its maxima through shared memory to the
// thread that owns a column (eight loads, one per warp, between two
// barriers), one atomicMax per thread.
// CHECK-LABEL: .entry float8_amax_col_bf16_1x1024x4096(
// CHECK-COUNT-16: ld.global.nc.v4.b32
// CHECK:         max.NaN.bf16x2
// CHECK:         st.shared.v4.b32
// CHECK:         bar.sync 0;
// CHECK-COUNT-8: ld.shared.b32
// CHECK:         atom.global.max.u32
// CHECK-NOT:     atom.global
// CHECK:         bar.sync 0;
// CHECK:         ret;

// Rowwise bf16 (4096 per row: 256 threads x 2 chunks of 8): the row's two
// 16-byte loads per thread, |x| max.NaN on packed bf16, a full butterfly,
// then one word per warp through shared memory between two barriers, the
// IEEE division, the scale store; the hardware RNE satfinite casts with the
// NaN test of the products (placed before the loop body by LLVM).
// CHECK-LABEL: .entry float8_quantize_row_bf16_e4m3_pow2_1024x4096(
// CHECK:         cvt.rn.satfinite.e4m3x2.f32
// CHECK:         setp.nan.f32
// CHECK:         st.global.v2.b32
// CHECK-COUNT-2: ld.global.nc.v4.b32
// CHECK:         max.NaN.bf16x2
// CHECK:         shfl.sync.bfly.b32 {{.*}}, 1, 31, -1;
// CHECK:         shfl.sync.bfly.b32 {{.*}}, 16, 31, -1;
// CHECK:         st.shared.b32
// CHECK:         bar.sync 0;
// CHECK:         max.NaN.f32
// CHECK:         bar.sync 0;
// CHECK:         div.rn.f32
// CHECK:         st.global.b32

// ENTRIES-DAG: .entry float8_quantize_row_bf16_e4m3_pow2_1024x4096(
// ENTRIES-DAG: .entry float8_quantize_row_f32_e5m2_64x20000(
// ENTRIES-DAG: .entry float8_amax_col_bf16_1x1024x4096(
// ENTRIES-DAG: .entry float8_cast_col_bf16_e4m3_pow2_1x1024x4096(
// ENTRIES-DAG: .entry float8_amax_col_bf16_8x512x256(
// ENTRIES-DAG: .entry float8_cast_col_bf16_e4m3_pow2_8x512x256(
// ENTRIES-DAG: .entry float8_amax_tensor_bf16_4194304(
// ENTRIES-DAG: .entry float8_cast_tensor_bf16_e5m2_4194304(
// ENTRIES-DAG: .entry float8_amax_tensor_f32_1024000(
// ENTRIES-DAG: .entry float8_cast_tensor_f32_e4m3_pow2_1024000(
// ENTRIES-DAG: .entry float8_dequantize_tensor_e4m3_bf16_4194304(
// ENTRIES-DAG: .entry float8_dequantize_row_e4m3_f32_1024x4096(
// ENTRIES-DAG: .entry float8_dequantize_col_e4m3_bf16_1x1024x4096(

func.func @all(%x: tensor<1024x4096xbf16>, %f: tensor<64x20000xf32>,
               %w: tensor<8x512x256xbf16>, %t: tensor<1024x1000xf32>,
               %q: tensor<1024x4096xf8E4M3FN>, %s: tensor<f32>,
               %rs: tensor<1024x1xf32>, %cs: tensor<1x4096xf32>)
    -> (tensor<1024x4096xf8E4M3FN>, tensor<1024x1xf32>,
        tensor<64x20000xf8E5M2>, tensor<64x1xf32>,
        tensor<1024x4096xf8E4M3FN>, tensor<1x4096xf32>,
        tensor<8x512x256xf8E4M3FN>, tensor<8x1x256xf32>,
        tensor<1024x4096xf8E5M2>, tensor<f32>,
        tensor<1024x1000xf8E4M3FN>, tensor<f32>,
        tensor<1024x4096xbf16>, tensor<1024x4096xf32>, tensor<1024x4096xbf16>) {
  %a, %as = mxfp8train.quantize %x axis = 1 granularity = axiswise pow2
      : tensor<1024x4096xbf16> -> tensor<1024x4096xf8E4M3FN>, tensor<1024x1xf32>
  %b, %bs = mxfp8train.quantize %f axis = 1 granularity = axiswise
      : tensor<64x20000xf32> -> tensor<64x20000xf8E5M2>, tensor<64x1xf32>
  %c, %cs2 = mxfp8train.quantize %x axis = 0 granularity = axiswise pow2
      : tensor<1024x4096xbf16> -> tensor<1024x4096xf8E4M3FN>, tensor<1x4096xf32>
  %d, %ds = mxfp8train.quantize %w axis = 1 granularity = axiswise pow2
      : tensor<8x512x256xbf16> -> tensor<8x512x256xf8E4M3FN>, tensor<8x1x256xf32>
  %e, %es = mxfp8train.quantize %x granularity = tensorwise
      : tensor<1024x4096xbf16> -> tensor<1024x4096xf8E5M2>, tensor<f32>
  %g, %gs = mxfp8train.quantize %t granularity = tensorwise pow2
      : tensor<1024x1000xf32> -> tensor<1024x1000xf8E4M3FN>, tensor<f32>
  %h = mxfp8train.dequantize %q [%s] granularity = tensorwise
      : tensor<1024x4096xf8E4M3FN> [tensor<f32>] -> tensor<1024x4096xbf16>
  %i = mxfp8train.dequantize %q [%rs] axis = 1 granularity = axiswise
      : tensor<1024x4096xf8E4M3FN> [tensor<1024x1xf32>] -> tensor<1024x4096xf32>
  %j = mxfp8train.dequantize %q [%cs] axis = 0 granularity = axiswise
      : tensor<1024x4096xf8E4M3FN> [tensor<1x4096xf32>] -> tensor<1024x4096xbf16>
  return %a, %as, %b, %bs, %c, %cs2, %d, %ds, %e, %es, %g, %gs, %h, %i, %j
      : tensor<1024x4096xf8E4M3FN>, tensor<1024x1xf32>,
        tensor<64x20000xf8E5M2>, tensor<64x1xf32>,
        tensor<1024x4096xf8E4M3FN>, tensor<1x4096xf32>,
        tensor<8x512x256xf8E4M3FN>, tensor<8x1x256xf32>,
        tensor<1024x4096xf8E5M2>, tensor<f32>,
        tensor<1024x1000xf8E4M3FN>, tensor<f32>,
        tensor<1024x4096xbf16>, tensor<1024x4096xf32>, tensor<1024x4096xbf16>
}
