// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu="defer-fp8=false fuse-padding=false" --canonicalize --split-input-file | FileCheck %s
// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu="fuse-padding=false" --canonicalize --split-input-file | FileCheck %s --check-prefix=LAZY
// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu="fuse-dequant=false fuse-padding=false" --canonicalize --split-input-file | FileCheck %s --check-prefix=NOFUSE
// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu="chip=sm_100a fuse-padding=false" --canonicalize --split-input-file | FileCheck %s --check-prefix=B200
// (The padded operands' casts as separate kernels: fused-padding.mlir
// tests them reading the pads' inputs.)

// Dequant fusion (Gemm/DequantFusion.h): on sm_90a a quantize whose data
// and scales are an operand of the pre-dequantized (v8) GEMM in the same
// block writes that operand's padded K-major bf16 form too, and raises its
// own flag word (zeroed by a gpu.memset just before it); the GEMM launches
// no pre-pass for it, and its v8 kernel and v7/v5 fallback read one flag
// word per operand (`_gs2`, `_gu2`). sm_100a (tcgen05 reads fp8) and
// `fuse-dequant=false` keep the pre-passes.
//
// Deferred fp8 (`defer-fp8`, default, LAZY): where only fused GEMM operands
// read a quantize's fp8 data (`_f8lazy`), the kernel stores the fp8 bytes
// of a block only where its bf16 form cannot hold it (scale byte outside
// [3, 246]; 2d-2d, a block not wholly inside an aligned token group), and
// before the fallback launch each such operand gets a restore kernel that
// runs only when one of the GEMM's flags is raised. The CHECK lines below
// lower with `defer-fp8=false`.

// Forward: two 1x32 casts. A (256 x 512) needs no padding; B's 384 rows are
// padded to 512 (two 256-row tiles): its quantize kernel zeros rows
// 384..511 (a grid-stride loop after the cast).
// CHECK-LABEL: func.func @fwd(
// CHECK-DAG:     %[[BPAD:.*]] = memref.alloc() : memref<262144xbf16>
// CHECK-DAG:     %[[APAD:.*]] = memref.alloc() : memref<131072xbf16>
// CHECK-DAG:     %[[BMAP:.*]] = llvm.call @mgpuTensorMapEncodeTiledMemref
// CHECK-DAG:     %[[AMAP:.*]] = llvm.call @mgpuTensorMapEncodeTiledMemref
// CHECK:         %[[AFLAG:.*]] = memref.alloc() : memref<1xi32>
// CHECK-NEXT:    gpu.memset %[[AFLAG]], %{{.*}} : memref<1xi32>, i32
// CHECK:         gpu.launch_func @mxfp8train_kernels::@quantize_1x32_bf16_e4m3_rceil_rowmajor_256x512_bf16b1r256 {{.*}} args({{.*}}, %[[APAD]] : memref<131072xbf16>, %[[AFLAG]] : memref<1xi32>)
// CHECK:         %[[BFLAG:.*]] = memref.alloc() : memref<1xi32>
// CHECK-NEXT:    gpu.memset %[[BFLAG]], %{{.*}} : memref<1xi32>, i32
// CHECK:         gpu.launch_func @mxfp8train_kernels::@quantize_1x32_bf16_e4m3_rceil_rowmajor_384x512_bf16b1r512 {{.*}} args({{.*}}, %[[BPAD]] : memref<262144xbf16>, %[[BFLAG]] : memref<1xi32>)
// CHECK-NOT:     gemm_dequant
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_mm_k_k_bf16_bf16_bf16_256x384x512_b1_p1c1_v8w1s4_n256_gs2 {{.*}} args(%[[AMAP]] : !llvm.ptr, %[[BMAP]] : !llvm.ptr, %[[AFLAG]] : memref<1xi32>, %[[BFLAG]] : memref<1xi32>, %{{.*}} : memref<98304xbf16>)
// CHECK-NEXT:    gpu.launch_func @mxfp8train_kernels::@scaled_mm_k_k_e4m3_e4m3_bf16_256x384x512_b1_p2c1_v7w2s4_gu2 {{.*}}, %[[AFLAG]] : memref<1xi32>, %[[BFLAG]] : memref<1xi32>, %{{.*}} : memref<98304xbf16>)

// The GEMM kernels come first (created first). B's kernel zeros its 128
// padding rows x 512 K: 8192 items of 8 bf16 from row 384.
// CHECK-LABEL: gpu.func @quantize_1x32_bf16_e4m3_rceil_rowmajor_384x512_bf16b1r512(
// CHECK:           vector.store %{{.*}}, %{{.*}}[%{{.*}}] {alignment = 16 : i64} : memref<262144xbf16>, vector<16xbf16>
// CHECK:           scf.for %[[I:.*]] = %{{.*}} to %c8192 step
// CHECK:             %[[ROW:.*]] = arith.addi %{{.*}}, %c384 : index
// CHECK-NEXT:        %[[BASE:.*]] = arith.muli %[[ROW]], %c512 : index
// CHECK-NEXT:        %[[OFF:.*]] = arith.muli %{{.*}}, %c8 : index
// CHECK-NEXT:        %[[ADDR:.*]] = arith.addi %[[BASE]], %[[OFF]] : index
// CHECK-NEXT:        vector.store %cst{{.*}}, %{{.*}}[%[[ADDR]]] {alignment = 16 : i64} : memref<262144xbf16>, vector<8xbf16>

// The 1x32 kernel with the bf16 form: per lane, its 16 fp8 values as bf16
// (the pre-pass's conversion: e4m3 placed by `prmt` as bf16 of 2^-120 x,
// times 2^120, times 2^(s-127)) stored as 32 bytes at row r of the padded
// buffer (stride kPad = 512, no row padding here); flag 1 for a nonzero
// block whose scale byte is outside [3, 246].
// CHECK-LABEL: gpu.func @quantize_1x32_bf16_e4m3_rceil_rowmajor_256x512_bf16b1r256(
// CHECK-SAME:      %[[BUF:[^:]*]]: memref<131072xbf16> {llvm.noalias, llvm.writeonly}, %[[FLAG:[^:]*]]: memref<1xi32> {llvm.noalias, llvm.writeonly})
// CHECK:           vector.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<256x512xf8E4M3FN>, vector<16xf8E4M3FN>
// CHECK-DAG:       arith.cmpi slt, %{{.*}}, %c3_i32 : i32
// CHECK-DAG:       arith.cmpi sgt, %{{.*}}, %c246_i32 : i32
// CHECK:           memref.store %c1_i32, %[[FLAG]][%c0] : memref<1xi32>
// CHECK:           vector.store %{{.*}}, %[[BUF]][%{{.*}}] {alignment = 16 : i64} : memref<131072xbf16>, vector<16xbf16>
// CHECK:           gpu.return

// The restore kernels run between the v8 GEMM and its fallback, on the
// bf16 forms, the scales and both flags, into the fp8 data the fallback
// reads.
// LAZY-LABEL: func.func @fwd(
// LAZY:         gpu.launch_func @mxfp8train_kernels::@quantize_1x32_bf16_e4m3_rceil_rowmajor_256x512_bf16b1r256_f8lazy {{.*}} args({{.*}}, %[[APAD:[^ ]*]] : memref<131072xbf16>, %[[AFLAG:[^ ]*]] : memref<1xi32>)
// LAZY:         gpu.launch_func @mxfp8train_kernels::@quantize_1x32_bf16_e4m3_rceil_rowmajor_384x512_bf16b1r512_f8lazy {{.*}} args({{.*}}, %[[BPAD:[^ ]*]] : memref<262144xbf16>, %[[BFLAG:[^ ]*]] : memref<1xi32>)
// LAZY:         gpu.launch_func @mxfp8train_kernels::@scaled_mm_k_k_bf16_bf16_bf16_256x384x512_b1_p1c1_v8w1s4_n256_gs2
// LAZY-NEXT:    gpu.launch_func @mxfp8train_kernels::@gemm_restore_k_e4m3_1x256x512_pad256x512_f2 {{.*}} args(%[[APAD]] : memref<131072xbf16>, %[[AS:[^ ]*]] : memref<4096xf8E8M0FNU>, %[[AFLAG]] : memref<1xi32>, %[[BFLAG]] : memref<1xi32>, %[[AD:[^ ]*]] : memref<131072xf8E4M3FN>)
// LAZY-NEXT:    gpu.launch_func @mxfp8train_kernels::@gemm_restore_k_e4m3_1x384x512_pad512x512_f2 {{.*}} args(%[[BPAD]] : memref<262144xbf16>, %[[BS:[^ ]*]] : memref<6144xf8E8M0FNU>, %[[AFLAG]] : memref<1xi32>, %[[BFLAG]] : memref<1xi32>, %[[BD:[^ ]*]] : memref<196608xf8E4M3FN>)
// LAZY-NEXT:    gpu.launch_func @mxfp8train_kernels::@scaled_mm_k_k_e4m3_e4m3_bf16_256x384x512_b1_p2c1_v7w2s4_gu2 {{.*}} args(%[[AD]] : memref<131072xf8E4M3FN>, %[[AS]] : memref<4096xf8E8M0FNU>, %[[BD]] : memref<196608xf8E4M3FN>, %[[BS]] : memref<6144xf8E8M0FNU>, %[[AFLAG]] : memref<1xi32>, %[[BFLAG]] : memref<1xi32>,

// The restore of A: nothing unless a flag is raised; per item of 8 values
// inside the operand with a scale byte in [3, 246], the bf16 values times
// 2^(127 - s) (f32 bits (254 - s) << 23), converted to e4m3 (exact here).
// LAZY-LABEL: gpu.func @gemm_restore_k_e4m3_1x256x512_pad256x512_f2(
// LAZY-SAME:      %[[PAD:[^:]*]]: memref<131072xbf16> {llvm.noalias, llvm.readonly}, %[[S:[^:]*]]: memref<4096xf8E8M0FNU> {llvm.noalias, llvm.readonly}, %[[F1:[^:]*]]: memref<1xi32> {llvm.noalias, llvm.readonly}, %[[F2:[^:]*]]: memref<1xi32> {llvm.noalias, llvm.readonly}, %[[D:[^:]*]]: memref<131072xf8E4M3FN> {llvm.noalias, llvm.writeonly}
// LAZY:           %[[W1:.*]] = memref.load %[[F1]][%c0] : memref<1xi32>
// LAZY-NEXT:      %[[W2:.*]] = memref.load %[[F2]][%c0] : memref<1xi32>
// LAZY-NEXT:      %[[OR:.*]] = arith.ori %[[W1]], %[[W2]] : i32
// LAZY-NEXT:      %[[GO:.*]] = arith.cmpi ne, %[[OR]], %c0_i32 : i32
// LAZY-NEXT:      scf.if %[[GO]] {
// LAZY:             memref.load %[[S]][%{{.*}}] : memref<4096xf8E8M0FNU>
// LAZY-DAG:         %[[SHI:.*]] = arith.cmpi sgt, %{{.*}}, %c246_i32 : i32
// LAZY-DAG:         %[[SLO:.*]] = arith.cmpi slt, %{{.*}}, %c3_i32 : i32
// LAZY:             %[[SOUT:.*]] = arith.ori %[[SLO]], %[[SHI]] : i1
// LAZY-NEXT:        %[[SIN:.*]] = arith.xori %[[SOUT]], %true : i1
// LAZY-NEXT:        scf.if %[[SIN]] {
// LAZY:             vector.load %[[PAD]][%{{.*}}] {alignment = 16 : i64} : memref<131072xbf16>, vector<8xbf16>
// LAZY:             %[[E:.*]] = arith.subi %c254_i32, %{{.*}} : i32
// LAZY-NEXT:        arith.shli %[[E]], %c23_i32 : i32
// LAZY-COUNT-4:     nvvm.convert.f32x2.to.f8x2 {{.*}} {rnd = #nvvm.fp_rnd_mode<rn>, sat = #nvvm.sat_mode<satfinite>}
// LAZY:             vector.store %{{.*}}, %[[D]][%{{.*}}] {alignment = 8 : i64} : memref<131072xf8E4M3FN>, vector<8xf8E4M3FN>

// The 1x32 cast stores a lane's 16 fp8 bytes only where its block's scale
// byte lies outside [3, 246]; the bf16 form always.
// LAZY-LABEL: gpu.func @quantize_1x32_bf16_e4m3_rceil_rowmajor_256x512_bf16b1r256_f8lazy(
// LAZY-DAG:       %[[HI:.*]] = arith.cmpi sgt, %[[BYTE:.*]], %c246_i32 : i32
// LAZY-DAG:       %[[LO:.*]] = arith.cmpi slt, %[[BYTE]], %c3_i32 : i32
// LAZY:           %[[OUT:.*]] = arith.ori %[[LO]], %[[HI]] : i1
// LAZY-NEXT:      scf.if %[[OUT]] {
// LAZY-NEXT:        vector.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<256x512xf8E4M3FN>, vector<16xf8E4M3FN>
// LAZY-NEXT:      }
// LAZY:           vector.store %{{.*}}, %{{.*}}[%{{.*}}] {alignment = 16 : i64} : memref<131072xbf16>, vector<16xbf16>

// NOFUSE-LABEL: func.func @fwd(
// NOFUSE:         gpu.launch_func @mxfp8train_kernels::@quantize_1x32_bf16_e4m3_rceil_rowmajor_256x512 blocks
// NOFUSE:         gpu.launch_func @mxfp8train_kernels::@quantize_1x32_bf16_e4m3_rceil_rowmajor_384x512 blocks
// NOFUSE:         gpu.launch_func @mxfp8train_kernels::@gemm_dequant_k_e4m3_1x256x512_pad256x512
// NOFUSE:         gpu.launch_func @mxfp8train_kernels::@gemm_dequant_k_e4m3_1x384x512_pad512x512
// NOFUSE:         gpu.launch_func @mxfp8train_kernels::@scaled_mm_k_k_bf16_bf16_bf16_256x384x512_b1_p1c1_v8w1s4_n256_gs blocks
// NOFUSE:         gpu.launch_func @mxfp8train_kernels::@scaled_mm_k_k_e4m3_e4m3_bf16_256x384x512_b1_p2c1_v7w2s4_gu blocks

// B200-LABEL: func.func @fwd(
// B200-NOT:     memref<1xi32>
// B200:         gpu.launch_func @mxfp8train_kernels::@quantize_1x32_bf16_e4m3_rceil_rowmajor_256x512 blocks
// B200:         gpu.launch_func @mxfp8train_kernels::@quantize_1x32_bf16_e4m3_rceil_rowmajor_384x512 blocks
// B200-NOT:     gemm_dequant
// B200:         gpu.launch_func @mxfp8train_kernels::@scaled_mm_tc05_
func.func @fwd(%x: tensor<256x512xbf16>, %w: tensor<384x512xbf16>) -> tensor<256x384xbf16> {
  %a, %as = mxfp8train.quantize %x axis = 1 mode = rceil : tensor<256x512xbf16> -> tensor<256x512xf8E4M3FN>, tensor<256x16xf8E8M0FNU>
  %b, %bs = mxfp8train.quantize %w axis = 1 mode = rceil : tensor<384x512xbf16> -> tensor<384x512xf8E4M3FN>, tensor<384x16xf8E8M0FNU>
  %0 = mxfp8train.scaled_mm %a[%as], %b[%bs] transpose_rhs : tensor<256x512xf8E4M3FN>[tensor<256x16xf8E8M0FNU>], tensor<384x512xf8E4M3FN>[tensor<384x16xf8E8M0FNU>] -> tensor<256x384xbf16>
  return %0 : tensor<256x384xbf16>
}

// -----

// Wgrad and dgrad: MN-major operands from 32x1 casts (a quantize along
// axis 0, and the colwise cast of a quantize_dual) and the dual's rowwise
// cast as a K-major operand. A 32x1 cast writes each column's 32 K values
// as 64 contiguous bytes of the padded row (the operand row) it becomes.
// The dual feeds two GEMMs, each cast its own form and flag.
// CHECK-LABEL: func.func @grads(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@quantize_32x1_bf16_e4m3_rceil_rowmajor_256x512_bf16b1r512
// CHECK:         gpu.launch_func @mxfp8train_kernels::@quantize_dual_bf16_e4m3_e4m3_rceil_rowmajor_rowmajor_256x384_rbf16b1r256_cbf16b1r512
// CHECK-NOT:     gemm_dequant
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_mm_k_k_bf16_bf16_bf16_512x384x256_b1_p1c1_v8w1s4_n256_gs2
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_mm_mn_mn_e4m3_e4m3_bf16_512x384x256_b1_p1c1_gu2
// CHECK:         gpu.launch_func @mxfp8train_kernels::@quantize_32x1_bf16_e4m3_rceil_rowmajor_384x512_bf16b1r512
// CHECK-NOT:     gemm_dequant
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_mm_k_k_bf16_bf16_bf16_256x512x384_b1_p1c1_v8w1s4_n256_gs2
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_mm_k_mn_e4m3_e4m3_bf16_256x512x384_b1_p1c1_gu2

// The dual kernel writing the colwise form: 4 lanes per 32-row tile (8 rows
// each, so that the 4 lanes' 16-byte colwise stores fill whole sectors); per
// row of the lane's part a 4-element (8-byte) rowwise store, then per column
// an 8-element (16-byte) colwise store.
// CHECK-LABEL: gpu.func @quantize_dual_bf16_e4m3_e4m3_rceil_rowmajor_rowmajor_256x384_rbf16b1r256_cbf16b1r512(
// CHECK-COUNT-8:   vector.store %{{.*}}, %{{.*}}[%{{.*}}] {alignment = 8 : i64} : memref<98304xbf16>, vector<4xbf16>
// CHECK-COUNT-4:   vector.store %{{.*}}, %{{.*}}[%{{.*}}] {alignment = 16 : i64} : memref<131072xbf16>, vector<8xbf16>
// CHECK-NOT:       vector<32xbf16>
// CHECK:           gpu.return

// The 32x1 kernel writing the form: 4 lanes per 32-row x 4-column tile, 8
// rows each, the column amaxes completed over the 4 lanes (xor shuffles 8
// and 16 lanes apart); per column one vector<8xbf16> store (16 bytes)
// at (column, r0 of the lane's part) of the padded buffer.
// CHECK-LABEL: gpu.func @quantize_32x1_bf16_e4m3_rceil_rowmajor_256x512_bf16b1r512(
// CHECK-COUNT-8:   vector.load %{{.*}} : memref<256x512xbf16>, vector<4xbf16>
// CHECK-NOT:       vector.load %{{.*}} : memref<256x512xbf16>
// CHECK:           gpu.shuffle  xor %{{.*}}, %c8_i32,
// CHECK:           gpu.shuffle  xor %{{.*}}, %c16_i32,
// CHECK-COUNT-4:   vector.store %{{.*}}, %{{.*}}[%{{.*}}] {alignment = 16 : i64} : memref<131072xbf16>, vector<8xbf16>
// CHECK-NOT:       vector<32xbf16>
// CHECK:           gpu.return

// NOFUSE-LABEL: func.func @grads(
// NOFUSE-COUNT-4: gpu.launch_func @mxfp8train_kernels::@gemm_dequant_
func.func @grads(%x: tensor<256x512xbf16>, %dy: tensor<256x384xbf16>, %w: tensor<384x512xbf16>) -> (tensor<512x384xbf16>, tensor<256x512xbf16>) {
  %xc, %xcs = mxfp8train.quantize %x axis = 0 mode = rceil : tensor<256x512xbf16> -> tensor<256x512xf8E4M3FN>, tensor<8x512xf8E8M0FNU>
  %dr, %drs, %dc, %dcs = mxfp8train.quantize_dual %dy mode = rceil : tensor<256x384xbf16> -> tensor<256x384xf8E4M3FN>, tensor<256x12xf8E8M0FNU>, tensor<256x384xf8E4M3FN>, tensor<8x384xf8E8M0FNU>
  %0 = mxfp8train.scaled_mm %xc[%xcs], %dc[%dcs] transpose_lhs : tensor<256x512xf8E4M3FN>[tensor<8x512xf8E8M0FNU>], tensor<256x384xf8E4M3FN>[tensor<8x384xf8E8M0FNU>] -> tensor<512x384xbf16>
  %wc, %wcs = mxfp8train.quantize %w axis = 0 mode = rceil : tensor<384x512xbf16> -> tensor<384x512xf8E4M3FN>, tensor<12x512xf8E8M0FNU>
  %1 = mxfp8train.scaled_mm %dr[%drs], %wc[%wcs] : tensor<256x384xf8E4M3FN>[tensor<256x12xf8E8M0FNU>], tensor<384x512xf8E4M3FN>[tensor<12x512xf8E8M0FNU>] -> tensor<256x512xbf16>
  return %0, %1 : tensor<512x384xbf16>, tensor<256x512xbf16>
}

// -----

// Not fused: K = 96 is padded to 128 (A keeps its pre-pass), B is a
// function argument (no quantize): both pre-passes, one shared flag, `_gs`.
// CHECK-LABEL: func.func @unpadded_k_only(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@quantize_1x32_bf16_e4m3_rceil_rowmajor_128x96 blocks
// CHECK:         gpu.launch_func @mxfp8train_kernels::@gemm_dequant_k_e4m3_1x128x96_pad128x128
// CHECK:         gpu.launch_func @mxfp8train_kernels::@gemm_dequant_k_e4m3_1x256x96_pad256x128
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_mm_k_k_bf16_bf16_bf16_128x256x96_b1_p1c1_v8w1s4_n256_gs blocks
func.func @unpadded_k_only(%x: tensor<128x96xbf16>, %b: tensor<256x96xf8E4M3FN>, %bs: tensor<256x3xf8E8M0FNU>) -> tensor<128x256xbf16> {
  %a, %as = mxfp8train.quantize %x axis = 1 mode = rceil : tensor<128x96xbf16> -> tensor<128x96xf8E4M3FN>, tensor<128x3xf8E8M0FNU>
  %0 = mxfp8train.scaled_mm %a[%as], %b[%bs] transpose_rhs : tensor<128x96xf8E4M3FN>[tensor<128x3xf8E8M0FNU>], tensor<256x96xf8E4M3FN>[tensor<256x3xf8E8M0FNU>] -> tensor<128x256xbf16>
  return %0 : tensor<128x256xbf16>
}

// -----

// One operand fused (A from a quantize), B a function argument: B's
// pre-pass raises the GEMM's own flag word, A's quantize its flag; the
// kernels read both.
// CHECK-LABEL: func.func @mixed(
// CHECK:         %[[AFLAG:.*]] = memref.alloc() : memref<1xi32>
// CHECK-NEXT:    gpu.memset %[[AFLAG]]
// CHECK:         gpu.launch_func @mxfp8train_kernels::@quantize_1x32_bf16_e4m3_rceil_rowmajor_128x128_bf16b1r128
// CHECK:         %[[OWN:.*]] = memref.alloc() : memref<1xi32>
// CHECK-NEXT:    gpu.memset %[[OWN]]
// CHECK-NOT:     gemm_dequant_k_e4m3_1x128x128
// CHECK:         gpu.launch_func @mxfp8train_kernels::@gemm_dequant_k_e4m3_1x256x128_pad256x128 {{.*}}, %[[OWN]] : memref<1xi32>)
// CHECK-NEXT:    gpu.launch_func @mxfp8train_kernels::@scaled_mm_k_k_bf16_bf16_bf16_128x256x128_b1_p1c1_v8w1s4_n256_gs2 {{.*}}, %[[AFLAG]] : memref<1xi32>, %[[OWN]] : memref<1xi32>,
// CHECK-NEXT:    gpu.launch_func @mxfp8train_kernels::@scaled_mm_k_k_e4m3_e4m3_bf16_128x256x128_b1_p2c1_v7w2s4_gu2 {{.*}}, %[[AFLAG]] : memref<1xi32>, %[[OWN]] : memref<1xi32>,

// The guard of the two-flag kernels: the OR of both words.
// CHECK-LABEL: gpu.func @scaled_mm_k_k_bf16_bf16_bf16_128x256x128_b1_p1c1_v8w1s4_n256_gs2(
// CHECK-SAME:      %[[F1:[^:]*]]: memref<1xi32> {llvm.noalias, llvm.readonly}, %[[F2:[^:]*]]: memref<1xi32> {llvm.noalias, llvm.readonly}
// CHECK:           %[[W1:.*]] = memref.load %[[F1]][%c0] : memref<1xi32>
// CHECK-NEXT:      %[[W2:.*]] = memref.load %[[F2]][%c0] : memref<1xi32>
// CHECK-NEXT:      %[[OR:.*]] = arith.ori %[[W1]], %[[W2]] : i32
// CHECK-NEXT:      %[[GO:.*]] = arith.cmpi eq, %[[OR]], %c0_i32 : i32
// CHECK-NEXT:      scf.if %[[GO]]
func.func @mixed(%x: tensor<128x128xbf16>, %b: tensor<256x128xf8E4M3FN>, %bs: tensor<256x4xf8E8M0FNU>) -> tensor<128x256xbf16> {
  %a, %as = mxfp8train.quantize %x axis = 1 mode = rceil : tensor<128x128xbf16> -> tensor<128x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>
  %0 = mxfp8train.scaled_mm %a[%as], %b[%bs] transpose_rhs : tensor<128x128xf8E4M3FN>[tensor<128x4xf8E8M0FNU>], tensor<256x128xf8E4M3FN>[tensor<256x4xf8E8M0FNU>] -> tensor<128x256xbf16>
  return %0 : tensor<128x256xbf16>
}

// -----

// Not fused: a GEMM configured for the fused-upcast kernel has no pre-pass.
// CHECK-LABEL: func.func @not_v8(
// CHECK-NOT:     bf16b1r
// CHECK-NOT:     memref<1xi32>
// CHECK:         return
func.func @not_v8(%x: tensor<256x512xbf16>, %w: tensor<384x512xbf16>) -> tensor<256x384xbf16> {
  %a, %as = mxfp8train.quantize %x axis = 1 mode = rceil : tensor<256x512xbf16> -> tensor<256x512xf8E4M3FN>, tensor<256x16xf8E8M0FNU>
  %b, %bs = mxfp8train.quantize %w axis = 1 mode = rceil : tensor<384x512xbf16> -> tensor<384x512xf8E4M3FN>, tensor<384x16xf8E8M0FNU>
  %0 = mxfp8train.scaled_mm %a[%as], %b[%bs] transpose_rhs {mxfp8train.gemm_config = #mxfp8train.gemm_config<kernel = fused_upcast_ws>} : tensor<256x512xf8E4M3FN>[tensor<256x16xf8E8M0FNU>], tensor<384x512xf8E4M3FN>[tensor<384x16xf8E8M0FNU>] -> tensor<256x384xbf16>
  return %0 : tensor<256x384xbf16>
}

// -----

// 2d-2d (the grouped wgrad, K = tokens): a 32x1 quantize of (tokens, rows)
// writes the operand with each token group from a multiple of 64 of the
// padded K (384 tokens in 4 groups: padded K 640), taking the GEMM's
// offsets as one more argument (`g4`). %x's form serves %0 and %1: their
// offsets are the padded offsets of two pad_token_groups of the same
// offsets, alignment and token count, although %d2o is defined after
// %x's quantize. %2 reads other offsets: both its operands keep their
// pre-passes.
// CHECK-LABEL: func.func @grouped_wgrad(
// CHECK:         gpu.launch_func @mxfp8train_kernels::@pad_token_groups_bf16_a32_256x128_to_384x128_g4
// CHECK:         gpu.launch_func @mxfp8train_kernels::@pad_token_groups_bf16_a32_256x256_to_384x256_g4 {{.*}}, %[[D1O:[^ ]*]] : memref<4xi32>)
// CHECK:         gpu.launch_func @mxfp8train_kernels::@quantize_32x1_bf16_e4m3_rceil_rowmajor_384x128_bf16b1r128g4 {{.*}} args({{.*}}, %[[XBF:[^ ]*]] : memref<81920xbf16>, %[[XFLAG:[^ ]*]] : memref<1xi32>, %[[D1O]] : memref<4xi32>)
// CHECK:         gpu.launch_func @mxfp8train_kernels::@quantize_32x1_bf16_e4m3_rceil_rowmajor_384x256_bf16b1r256g4 {{.*}} args({{.*}} : memref<163840xbf16>, %[[D1FLAG:[^ ]*]] : memref<1xi32>, %[[D1O]] : memref<4xi32>)
// CHECK-NOT:     gemm_dequant
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_gmm_2d2d_k_k_bf16_bf16_bf16_128x256x384_b4_p1c1_v8w1s4_n256_c2_gs2 {{.*}}, %[[D1O]] : memref<4xi32>, %[[XFLAG]] : memref<1xi32>, %[[D1FLAG]] : memref<1xi32>,
// CHECK:         gpu.launch_func @mxfp8train_kernels::@pad_token_groups_bf16_a32_256x256_to_384x256_g4 {{.*}}, %[[D2O:[^ ]*]] : memref<4xi32>)
// CHECK:         gpu.launch_func @mxfp8train_kernels::@quantize_32x1_bf16_e4m3_rceil_rowmajor_384x256_bf16b1r256g4 {{.*}}, %[[D2O]] : memref<4xi32>)
// CHECK-NOT:     gemm_dequant
// CHECK:         gpu.launch_func @mxfp8train_kernels::@scaled_gmm_2d2d_k_k_bf16_bf16_bf16_128x256x384_b4_p1c1_v8w1s4_n256_c2_gs2 {{.*}}, %[[D2O]] : memref<4xi32>, %[[XFLAG]] : memref<1xi32>,
// CHECK:         gpu.launch_func @mxfp8train_kernels::@gemm_dequant_mn_e4m3_1x128x384_pad128x640_g4
// CHECK-NEXT:    gpu.launch_func @mxfp8train_kernels::@gemm_dequant_mn_e4m3_1x256x384_pad256x640_g4
// CHECK-NEXT:    gpu.launch_func @mxfp8train_kernels::@scaled_gmm_2d2d_k_k_bf16_bf16_bf16_128x256x384_b4_p1c1_v8w1s4_n256_c2_gs clusters

// The grouped 32x1 kernel: per 32-block the walk over the 4 groups (each
// group's end clamped to [start, K], a nonempty group off the 32-element
// blocks raises the flag) finds the padded K of the block, and only a
// block inside a group is stored; after the cast, per (row, group) the
// group's tail up to the next multiple of 64 is zeroed 8 bf16 at a time.
// CHECK-LABEL: gpu.func @quantize_32x1_bf16_e4m3_rceil_rowmajor_384x128_bf16b1r128g4(
// CHECK-SAME:      %[[BF:[^:]*]]: memref<81920xbf16> {{.*}}, %[[FL:[^:]*]]: memref<1xi32> {{.*}}, %[[OFFS:[^:]*]]: memref<4xi32>
// CHECK:           %[[WALK:.*]]:4 = scf.for %{{.*}} = %c0 to %c4 step %c1 iter_args({{.*}}) -> (index, index, index, i1) {
// CHECK:             memref.load %[[OFFS]]
// CHECK:             memref.store %c1_i32, %[[FL]][%c0] : memref<1xi32>
// CHECK:           scf.if %[[WALK]]#3 {
// CHECK-COUNT-4:     vector.store %{{.*}}, %[[BF]][%{{.*}}] {alignment = 16 : i64} : memref<81920xbf16>, vector<8xbf16>
// CHECK:           %[[TAIL:.*]]:3 = scf.for %{{.*}} = %c0 to %{{.*}} step %c1 iter_args({{.*}}) -> (index, index, index) {
// CHECK:           scf.for %{{.*}} = %[[TAIL]]#2 to %[[TAIL]]#1 step %c8 {
// CHECK:             vector.store %cst, %[[BF]][%{{.*}}] {alignment = 16 : i64} : memref<81920xbf16>, vector<8xbf16>

// Deferred only for %d1q: the fp8 data of %xq and %d2q is also read by %2,
// whose operands keep their pre-passes. %0's restore (2d-2d, with the
// offsets) comes before its fallback; the 32x1 walk also finds whether the
// whole block lies in the group (a fifth result), and the tile's fp8 rows
// are stored under one condition (8 rows: the lane's part of the tile).
// LAZY-LABEL: func.func @grouped_wgrad(
// LAZY:         gpu.launch_func @mxfp8train_kernels::@quantize_32x1_bf16_e4m3_rceil_rowmajor_384x128_bf16b1r128g4 blocks
// LAZY:         gpu.launch_func @mxfp8train_kernels::@quantize_32x1_bf16_e4m3_rceil_rowmajor_384x256_bf16b1r256g4_f8lazy {{.*}} args({{.*}}, %[[D1BF:[^ ]*]] : memref<163840xbf16>, %[[D1FLAG:[^ ]*]] : memref<1xi32>, %[[D1O:[^ ]*]] : memref<4xi32>)
// LAZY:         gpu.launch_func @mxfp8train_kernels::@scaled_gmm_2d2d_k_k_bf16_bf16_bf16_128x256x384_b4_p1c1_v8w1s4_n256_c2_gs2
// LAZY-NEXT:    gpu.launch_func @mxfp8train_kernels::@gemm_restore_mn_e4m3_1x256x384_pad256x640_g4_f2 {{.*}} dynamic_shared_memory_size %c96_i32 args(%[[D1BF]] : memref<163840xbf16>, %{{.*}} : memref<3072xf8E8M0FNU>, %[[D1O]] : memref<4xi32>, %{{.*}} : memref<1xi32>, %[[D1FLAG]] : memref<1xi32>, %{{.*}} : memref<98304xf8E4M3FN>)
// LAZY-NEXT:    gpu.launch_func @mxfp8train_kernels::@scaled_gmm_2d2d_mn_mn_e4m3_e4m3_bf16_128x256x384_b4_p1c1_gu2
// LAZY:         gpu.launch_func @mxfp8train_kernels::@quantize_32x1_bf16_e4m3_rceil_rowmajor_384x256_bf16b1r256g4 blocks
// LAZY-NOT:     gemm_restore
// LAZY:         return

// LAZY-LABEL: gpu.func @gemm_restore_mn_e4m3_1x256x384_pad256x640_g4_f2(
// LAZY:           arith.cmpi uge, %{{.*}}, %c32 : index
// LAZY:           vector.load %{{.*}} {alignment = 16 : i64} : memref<163840xbf16>, vector<32xbf16>
// LAZY-COUNT-32:  memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<98304xf8E4M3FN>

// LAZY-LABEL: gpu.func @quantize_32x1_bf16_e4m3_rceil_rowmajor_384x256_bf16b1r256g4_f8lazy(
// LAZY:           %[[WALK:.*]]:5 = scf.for %{{.*}} = %c0 to %c4 step %c1 iter_args({{.*}}) -> (index, index, index, i1, i1) {
// LAZY:           %[[PART:.*]] = arith.xori %[[WALK]]#4, %true : i1
// LAZY-NEXT:      %[[MUST:.*]] = arith.ori %{{.*}}, %[[PART]] : i1
// LAZY-NEXT:      scf.if %[[MUST]] {
// LAZY-COUNT-8:     vector.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] {alignment = 4 : i64} : memref<384x256xf8E4M3FN>, vector<4xf8E4M3FN>
// LAZY-NEXT:      }

// NOFUSE-LABEL: func.func @grouped_wgrad(
// NOFUSE-COUNT-6: gpu.launch_func @mxfp8train_kernels::@gemm_dequant_mn_e4m3_1x{{.*}}_g4
func.func @grouped_wgrad(%x: tensor<256x128xbf16>, %dy1: tensor<256x256xbf16>, %dy2: tensor<256x256xbf16>, %offs: tensor<4xi32>, %other: tensor<4xi32>) -> (tensor<4x128x256xbf16>, tensor<4x128x256xbf16>, tensor<4x128x256xbf16>) {
  %xp, %xo = mxfp8train.pad_token_groups %x offs(%offs) alignment = 32 : tensor<256x128xbf16>, tensor<4xi32> -> tensor<384x128xbf16>, tensor<4xi32>
  %d1p, %d1o = mxfp8train.pad_token_groups %dy1 offs(%offs) alignment = 32 : tensor<256x256xbf16>, tensor<4xi32> -> tensor<384x256xbf16>, tensor<4xi32>
  %xq, %xs = mxfp8train.quantize %xp axis = 0 mode = rceil : tensor<384x128xbf16> -> tensor<384x128xf8E4M3FN>, tensor<12x128xf8E8M0FNU>
  %d1q, %d1s = mxfp8train.quantize %d1p axis = 0 mode = rceil : tensor<384x256xbf16> -> tensor<384x256xf8E4M3FN>, tensor<12x256xf8E8M0FNU>
  %0 = mxfp8train.scaled_grouped_mm %xq[%xs], %d1q[%d1s] offs(%d1o) transpose_lhs : tensor<384x128xf8E4M3FN>[tensor<12x128xf8E8M0FNU>], tensor<384x256xf8E4M3FN>[tensor<12x256xf8E8M0FNU>], tensor<4xi32> -> tensor<4x128x256xbf16>
  %d2p, %d2o = mxfp8train.pad_token_groups %dy2 offs(%offs) alignment = 32 : tensor<256x256xbf16>, tensor<4xi32> -> tensor<384x256xbf16>, tensor<4xi32>
  %d2q, %d2s = mxfp8train.quantize %d2p axis = 0 mode = rceil : tensor<384x256xbf16> -> tensor<384x256xf8E4M3FN>, tensor<12x256xf8E8M0FNU>
  %1 = mxfp8train.scaled_grouped_mm %xq[%xs], %d2q[%d2s] offs(%d2o) transpose_lhs : tensor<384x128xf8E4M3FN>[tensor<12x128xf8E8M0FNU>], tensor<384x256xf8E4M3FN>[tensor<12x256xf8E8M0FNU>], tensor<4xi32> -> tensor<4x128x256xbf16>
  %2 = mxfp8train.scaled_grouped_mm %xq[%xs], %d2q[%d2s] offs(%other) transpose_lhs : tensor<384x128xf8E4M3FN>[tensor<12x128xf8E8M0FNU>], tensor<384x256xf8E4M3FN>[tensor<12x256xf8E8M0FNU>], tensor<4xi32> -> tensor<4x128x256xbf16>
  return %0, %1, %2 : tensor<4x128x256xbf16>, tensor<4x128x256xbf16>, tensor<4x128x256xbf16>
}

// -----

// The restore kernel launches one CTA per SM (132 on sm_90a) however large
// the operand (A: 8192 x 512 fp8, 524288 items of 8), since it nearly
// always returns at once; the pre-passes it replaces took up to 64 per SM.
// LAZY-LABEL: func.func @restore_grid(
// LAZY:         gpu.launch_func @mxfp8train_kernels::@gemm_restore_k_e4m3_1x8192x512_pad8192x512_f2 blocks in (%c132, %c1, %c1) threads in (%c256, %c1, %c1)
func.func @restore_grid(%x: tensor<8192x512xbf16>, %w: tensor<256x512xbf16>) -> tensor<8192x256xbf16> {
  %a, %as = mxfp8train.quantize %x axis = 1 mode = rceil : tensor<8192x512xbf16> -> tensor<8192x512xf8E4M3FN>, tensor<8192x16xf8E8M0FNU>
  %b, %bs = mxfp8train.quantize %w axis = 1 mode = rceil : tensor<256x512xbf16> -> tensor<256x512xf8E4M3FN>, tensor<256x16xf8E8M0FNU>
  %0 = mxfp8train.scaled_mm %a[%as], %b[%bs] transpose_rhs : tensor<8192x512xf8E4M3FN>[tensor<8192x16xf8E8M0FNU>], tensor<256x512xf8E4M3FN>[tensor<256x16xf8E8M0FNU>] -> tensor<8192x256xbf16>
  return %0 : tensor<8192x256xbf16>
}
