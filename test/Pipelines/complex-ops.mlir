// RUN: rm -rf %t && mkdir -p %t
// RUN: %PYTHON -c "import numpy as np; np.save('%t/x.npy', np.arange(16, dtype=np.float32) / 4 - 2); np.save('%t/y.npy', np.arange(16, dtype=np.float32)[::-1] / 8 + 0.5)"
// RUN: mxfp8-run %s --entry=abs_of_square --input=%t/x.npy --input=%t/y.npy --output-dir=%t/a > /dev/null
// RUN: mxfp8-run %s --entry=carried --input=%t/x.npy --input=%t/y.npy --output-dir=%t/c > /dev/null
// RUN: %PYTHON -c "import numpy as np; x = np.load('%t/x.npy').astype(np.float64); y = np.load('%t/y.npy').astype(np.float64); z = (x + 1j * y) ** 2; a = np.load('%t/a/r.npy'); c = np.load('%t/c/r.npy'); print('abs', bool(np.allclose(a, np.abs(z), rtol=3e-7, atol=0)), 'carried', bool((c == (z.real + z.imag).astype(np.float32)).all()))" | FileCheck %s --check-prefix=VALUES
// RUN: mxfp8-opt %s --mxfp8train-lower-to-gpu="format=isa" -o /dev/null

// complex values in linalg bodies, also carried between ops in a tensor of
// complex<f32>: convert-complex-to-standard (both pipelines, before their
// conversions) makes arith / math on the real and imaginary parts of the
// arithmetic, convert-complex-to-llvm the structs of what is left. Before
// session 33 the CPU failed in its translation to LLVM IR ("missing
// LLVMTranslationDialectInterface ... complex.mul") and the GPU with an
// unrealized_conversion_cast (found by a sweep of tensor-level ops). CPU
// values against numpy's complex128: |z^2| within 3e-7 relative (upstream's
// complex.abs scales to avoid overflow), re + im of z^2 exact for these
// inputs (multiples of 1/8: products and sums exact in f32).
// VALUES: abs True carried True

#id = affine_map<(i) -> (i)>

func.func @abs_of_square(%x: tensor<16xf32>, %y: tensor<16xf32>) -> tensor<16xf32> {
  %e = tensor.empty() : tensor<16xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%x, %y : tensor<16xf32>, tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %c = complex.create %a, %b : complex<f32>
    %m = complex.mul %c, %c : complex<f32>
    %n = complex.abs %m : complex<f32>
    linalg.yield %n : f32
  } -> tensor<16xf32>
  return %r : tensor<16xf32>
}

func.func @carried(%x: tensor<16xf32>, %y: tensor<16xf32>) -> tensor<16xf32> {
  %e = tensor.empty() : tensor<16xcomplex<f32>>
  %c = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%x, %y : tensor<16xf32>, tensor<16xf32>) outs(%e : tensor<16xcomplex<f32>>) {
  ^bb0(%a: f32, %b: f32, %o: complex<f32>):
    %z = complex.create %a, %b : complex<f32>
    %m = complex.mul %z, %z : complex<f32>
    linalg.yield %m : complex<f32>
  } -> tensor<16xcomplex<f32>>
  %f = tensor.empty() : tensor<16xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%c : tensor<16xcomplex<f32>>) outs(%f : tensor<16xf32>) {
  ^bb0(%z: complex<f32>, %o: f32):
    %re = complex.re %z : complex<f32>
    %im = complex.im %z : complex<f32>
    %s = arith.addf %re, %im : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  return %r : tensor<16xf32>
}
