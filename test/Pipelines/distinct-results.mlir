// RUN: mxfp8-opt %s --mxfp8train-distinct-results | FileCheck %s --check-prefix=IR
// RUN: mxfp8-run %s --vectorize=false | FileCheck %s
// RUN: mxfp8-run %s | FileCheck %s

// A function that returns one value twice and an argument as it is: every
// result still gets its own out-parameter with the right contents.

// IR-LABEL: func.func @twice_and_argument(
// IR-SAME:    %[[X:.*]]: tensor<8x16xf32> {bufferization.writable = false}
// IR:         %[[Y:.*]] = linalg.generic
// IR:         %[[C1:.*]] = bufferization.alloc_tensor() copy(%[[Y]])
// IR:         %[[C2:.*]] = bufferization.alloc_tensor() copy(%[[X]])
// IR:         return %[[Y]], %[[C1]], %[[C2]]
func.func @twice_and_argument(%x: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>) {
  %e = tensor.empty() : tensor<8x16xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %a : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  return %y, %y, %x : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>
}

// The seed-0 input has L2 norm 10.6992 and max 3.21145; 2x is exact in f32.
// CHECK:      #0 x : 8x16xf32
// CHECK:      0 {{.*}} 8x16xf32 21.3985 6.4229
// CHECK-NEXT: 1 {{.*}} 8x16xf32 21.3985 6.4229
// CHECK-NEXT: 2 {{.*}} 8x16xf32 10.6992 3.21145
