// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu --split-input-file | FileCheck %s
// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu="stage-row-scales=false" --split-input-file | FileCheck %s --check-prefix=DIRECT

// quantize_dual with one lane per 32 x 4 tile and row-major rowwise scales,
// 1024 columns (a CTA's 256 tiles are one block row's 32 rows x 1024
// columns): each lane puts the 4 row scale bytes it computed into the CTA's
// 32 x 32 bytes of workgroup memory; after a barrier, each thread stores one
// 4-byte word of a row (32 rows x 8 words), whole 32-byte sectors per row,
// then a second barrier frees the stage for the next grid-stride iteration.
// stage-row-scales=false: the lane's 4 bytes go straight to the scales.

// CHECK:       gpu.func @quantize_dual_bf16_e4m3_e4m3_rceil_rowmajor_rowmajor_64x1024(
// CHECK-SAME:      workgroup(%[[STAGE:.*]] : memref<1024xi8, #gpu.address_space<workgroup>>)
// CHECK:         scf.for
// CHECK-COUNT-4: memref.store %{{.*}}, %[[STAGE]][%{{.*}}] : memref<1024xi8, #gpu.address_space<workgroup>>
// CHECK-NOT:     memref.store %{{.*}} : memref<64x32xf8E8M0FNU>
// CHECK:         vector.store %{{.*}} : memref<2x1024xf8E8M0FNU>, vector<4xf8E8M0FNU>
// CHECK:         gpu.barrier
// CHECK:         %[[TID:.*]] = gpu.thread_id  x
// CHECK:         %[[WRITER:.*]] = arith.cmpi ult, %[[TID]], %c256{{.*}} : index
// CHECK:         scf.if %[[WRITER]] {
// CHECK:           vector.load %[[STAGE]][%{{.*}}] {alignment = 4 : i64} : memref<1024xi8, #gpu.address_space<workgroup>>, vector<4xi8>
// CHECK:           vector.store %{{.*}} {alignment = 4 : i64} : memref<64x32xf8E8M0FNU>, vector<4xf8E8M0FNU>
// CHECK:         }
// CHECK-NEXT:    gpu.barrier
// CHECK-NEXT:  }
// CHECK-NEXT:  gpu.return

// DIRECT:       gpu.func @quantize_dual_bf16_e4m3_e4m3_rceil_rowmajor_rowmajor_64x1024(
// DIRECT-NOT:     workgroup
// DIRECT-SAME:    kernel
// DIRECT-COUNT-4: memref.store %{{.*}} : memref<64x32xf8E8M0FNU>
// DIRECT-NOT:     gpu.barrier
// DIRECT:         gpu.return
func.func @staged(%x: tensor<64x1024xbf16>)
    -> (tensor<64x1024xf8E4M3FN>, tensor<64x32xf8E8M0FNU>,
        tensor<64x1024xf8E4M3FN>, tensor<2x1024xf8E8M0FNU>) {
  %a, %b, %c, %d = mxfp8train.quantize_dual %x mode = rceil
      : tensor<64x1024xbf16> -> tensor<64x1024xf8E4M3FN>, tensor<64x32xf8E8M0FNU>,
                                tensor<64x1024xf8E4M3FN>, tensor<2x1024xf8E8M0FNU>
  return %a, %b, %c, %d : tensor<64x1024xf8E4M3FN>, tensor<64x32xf8E8M0FNU>,
                          tensor<64x1024xf8E4M3FN>, tensor<2x1024xf8E8M0FNU>
}

// -----

// f32: 2 columns per lane, a CTA's tiles are 512 columns = 16 blocks per
// row; 3-D (the outer dim indexes the rowwise scales too): 16 x 4 words.

// CHECK:       gpu.func @quantize_dual_f32_e4m3_e5m2_floor_rowmajor_rowmajor_2x64x512(
// CHECK-SAME:      workgroup(%[[STAGE:.*]] : memref<512xi8, #gpu.address_space<workgroup>>)
// CHECK-COUNT-2: memref.store %{{.*}}, %[[STAGE]][%{{.*}}] : memref<512xi8, #gpu.address_space<workgroup>>
// CHECK:         gpu.barrier
// CHECK:         arith.cmpi ult, %{{.*}}, %c128{{.*}} : index
// CHECK:         vector.store %{{.*}} {alignment = 4 : i64} : memref<2x64x16xf8E8M0FNU>, vector<4xf8E8M0FNU>
// CHECK:         gpu.barrier
// DIRECT:       gpu.func @quantize_dual_f32_e4m3_e5m2_floor_rowmajor_rowmajor_2x64x512(
// DIRECT-NOT:     workgroup
// DIRECT-SAME:    kernel
func.func @staged_f32_rank3(%x: tensor<2x64x512xf32>)
    -> (tensor<2x64x512xf8E4M3FN>, tensor<2x64x16xf8E8M0FNU>,
        tensor<2x64x512xf8E5M2>, tensor<2x2x512xf8E8M0FNU>) {
  %a, %b, %c, %d = mxfp8train.quantize_dual %x mode = floor
      : tensor<2x64x512xf32> -> tensor<2x64x512xf8E4M3FN>, tensor<2x64x16xf8E8M0FNU>,
                                tensor<2x64x512xf8E5M2>, tensor<2x2x512xf8E8M0FNU>
  return %a, %b, %c, %d : tensor<2x64x512xf8E4M3FN>, tensor<2x64x16xf8E8M0FNU>,
                          tensor<2x64x512xf8E5M2>, tensor<2x2x512xf8E8M0FNU>
}

// -----

// Not staged: 512 bf16 columns (a CTA's tiles span two block rows), and
// blocked rowwise scales (a row's blocks are not contiguous).

// CHECK:       gpu.func @quantize_dual_bf16_e4m3_e4m3_rceil_blocked_rowmajor_128x1024(
// CHECK-NOT:     workgroup
// CHECK-SAME:    kernel
// CHECK-NOT:     gpu.barrier
// CHECK:         gpu.return
// CHECK:       gpu.func @quantize_dual_bf16_e4m3_e4m3_rceil_rowmajor_rowmajor_64x512(
// CHECK-NOT:     workgroup
// CHECK-SAME:    kernel
// CHECK-COUNT-4: memref.store %{{.*}} : memref<64x16xf8E8M0FNU>
// CHECK-NOT:     gpu.barrier
// CHECK:         gpu.return
func.func @not_staged(%x: tensor<64x512xbf16>, %y: tensor<128x1024xbf16>)
    -> (tensor<64x16xf8E8M0FNU>, tensor<4096xf8E8M0FNU>) {
  %a, %b, %c, %d = mxfp8train.quantize_dual %x mode = rceil
      : tensor<64x512xbf16> -> tensor<64x512xf8E4M3FN>, tensor<64x16xf8E8M0FNU>,
                               tensor<64x512xf8E4M3FN>, tensor<2x512xf8E8M0FNU>
  %e, %f, %g, %h = mxfp8train.quantize_dual %y mode = rceil rowwise_layout = blocked
      : tensor<128x1024xbf16> -> tensor<128x1024xf8E4M3FN>, tensor<4096xf8E8M0FNU>,
                                 tensor<128x1024xf8E4M3FN>, tensor<4x1024xf8E8M0FNU>
  return %b, %f : tensor<64x16xf8E8M0FNU>, tensor<4096xf8E8M0FNU>
}
