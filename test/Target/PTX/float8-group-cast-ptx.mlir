// RUN: mxfp8-opt %s --mxfp8train-lower-to-gpu="format=isa" | %extract_ptx > %t.sm90a.ptx
// RUN: FileCheck %s --input-file=%t.sm90a.ptx
// RUN: FileCheck %s --input-file=%t.sm90a.ptx --check-prefix=EXACT
// RUN: mxfp8-opt %s --mxfp8train-lower-to-gpu="chip=sm_100a format=isa" | %extract_ptx > %t.sm100a.ptx
// RUN: FileCheck %s --input-file=%t.sm100a.ptx --check-prefix=EXACT

// The PTX of the per-group Float8 cast kernels (Float8GroupCastKernels.cpp)
// at the DeepSeek-V3 wgrad shapes; ptxas assembles them without spills in
// float8-group-cast-ptxas.test.

// Nothing flushed to zero, nothing in local memory, the divisions IEEE.
// EXACT-NOT: .ftz
// EXACT-NOT: .local
// EXACT-NOT: div.full
// EXACT-NOT: div.approx

// The kernels appear in reverse order of creation.

// Dequantize: the group table, the exact e4m3 -> f16, the IEEE division,
// RNE to bf16, one 16-byte store.
// CHECK-LABEL: .entry float8_group_dequantize_e4m3_bf16_16384x2048_g8(
// CHECK:         bar.sync 0;
// CHECK:         cvt.rn.f16x2.e4m3x2
// CHECK:         div.rn.f32
// CHECK:         cvt.rn.bf16.f32
// CHECK:         st.global.v4.b32
// CHECK:         ret;

// Amax: the group table, the thread's sixteen 16-byte row loads, per
// group max.NaN on bf16 lanes, the CTA reduction through shared memory,
// one atomicMax per thread.
// CHECK-LABEL: .entry float8_group_amax_bf16_16384x2048_g8(
// CHECK:         bar.sync 0;
// CHECK-COUNT-16: ld.global.nc.v4.b32
// CHECK:         max.NaN.bf16x2
// CHECK:         st.shared.v4.b32
// CHECK:         bar.sync 0;
// CHECK-COUNT-8: ld.shared.b32
// CHECK:         atom.global.max.u32
// CHECK-NOT:     atom.global
// CHECK:         ret;

// Cast: the group table, the scales from the words (IEEE division)
// and their 16-byte stores, the hardware satfinite cast, 8-byte fp8 stores.
// CHECK-LABEL: .entry float8_group_quantize_bf16_e4m3_pow2_16384x2048_g8(
// CHECK:         bar.sync 0;
// CHECK:         div.rn.f32
// CHECK:         st.global.v4.b32
// CHECK:         ld.global.nc.v4.b32
// CHECK:         cvt.rn.satfinite.e4m3x2.f32
// CHECK:         st.global.v2.b32
// CHECK:         ret;

func.func @deepseek_wgrad_casts(%go: tensor<16384x7168xbf16>, %a: tensor<16384x2048xbf16>, %offs: tensor<8xi32>)
    -> (tensor<16384x7168xf8E4M3FN>, tensor<8x7168xf32>, tensor<16384x2048xbf16>) {
  %q, %s = mxfp8train.quantize %go offs(%offs) axis = 0 granularity = axiswise pow2
      : tensor<16384x7168xbf16>, tensor<8xi32> -> tensor<16384x7168xf8E4M3FN>, tensor<8x7168xf32>
  %qa, %sa = mxfp8train.quantize %a offs(%offs) axis = 0 granularity = axiswise pow2
      : tensor<16384x2048xbf16>, tensor<8xi32> -> tensor<16384x2048xf8E4M3FN>, tensor<8x2048xf32>
  %d = mxfp8train.dequantize %qa [%sa] offs(%offs) axis = 0 granularity = axiswise
      : tensor<16384x2048xf8E4M3FN> [tensor<8x2048xf32>], tensor<8xi32> -> tensor<16384x2048xbf16>
  return %q, %s, %d : tensor<16384x7168xf8E4M3FN>, tensor<8x7168xf32>, tensor<16384x2048xbf16>
}
