// RUN: rm -rf %t && mkdir -p %t
// RUN: %PYTHON -c "import numpy as np; x = np.full((3, 16), 9, np.float32); x[0, 5] = 1; x[2, 15] = 0; np.save('%t/x.npy', x)"
// RUN: mxfp8-run %s --entry=any_below --input=%t/x.npy --output-dir=%t/o > /dev/null
// RUN: %PYTHON -c "import numpy as np; print(np.load('%t/o/r.npy').tolist())" | FileCheck %s --check-prefix=VALUES
// RUN: mxfp8-opt %s --convert-mxfp8train-to-gpu | FileCheck %s --check-prefix=GPU
// RUN: mxfp8-opt %s --mxfp8train-lower-to-gpu="format=isa" -o /dev/null

// i1 tensors (a comparison's result reduced with `ori`: "is any element of
// the row below 2.5"). A vector of i1 is stored as packed bits while scalar
// loads and stores take a byte per element, so ops with i1 operands stay
// scalar: the CPU pipeline does not vectorize them (it wrote the
// comparison's vector<16xi1> as two bytes, and the reduction's scalar loads
// read rows 1 and 2 as true; found by a helper's tests), and the GPU's
// vectorized elementwise and reduction kernels leave them to the loop path.

// VALUES: [1.0, 0.0, 1.0]
// GPU-LABEL: func.func @any_below(
// GPU-NOT:     @elementwise_{{.*}}i1
// GPU:         linalg.generic {{.*}} outs(%{{.*}} : tensor<3x16xi1>)
// GPU:         linalg.reduce
func.func @any_below(%x: tensor<3x16xf32>) -> tensor<3xf32> {
  %e1 = tensor.empty() : tensor<3x16xi1>
  %m = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<3x16xf32>) outs(%e1 : tensor<3x16xi1>) {
  ^bb0(%a: f32, %o: i1):
    %t = arith.constant 2.5 : f32
    %c = arith.cmpf olt, %a, %t : f32
    linalg.yield %c : i1
  } -> tensor<3x16xi1>
  %false = arith.constant false
  %e = tensor.empty() : tensor<3xi1>
  %f = linalg.fill ins(%false : i1) outs(%e : tensor<3xi1>) -> tensor<3xi1>
  %any = linalg.reduce ins(%m : tensor<3x16xi1>) outs(%f : tensor<3xi1>) dimensions = [1]
    (%a: i1, %b: i1) {
      %s = arith.ori %a, %b : i1
      linalg.yield %s : i1
    }
  %eo = tensor.empty() : tensor<3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%any : tensor<3xi1>) outs(%eo : tensor<3xf32>) {
  ^bb0(%b: i1, %o: f32):
    %one = arith.constant 1.0 : f32
    %zero = arith.constant 0.0 : f32
    %v = arith.select %b, %one, %zero : f32
    linalg.yield %v : f32
  } -> tensor<3xf32>
  return %r : tensor<3xf32>
}
