// Functions checked on the GPU against the CPU path by
// bench/make-aot-artifacts.sh and bench/device/run-aot-checks.sh: the
// tensor-level ops that session 33 made compile on the GPU (until then each
// was rejected or failed in translation there), whose GPU values no lit test
// can check:
//  - linalg.softmax, linalg.pack and linalg.unpack through upstream's
//    decompositions, tensor.bitcast as an elementwise arith.bitcast
//    (mxfp8train-decompose-linalg);
//  - complex arithmetic in linalg bodies (convert-complex-to-standard),
//    also a tensor of complex<f32> carried between kernels;
//  - kernel results yielded by the cases of an scf.index_switch on a host
//    value (RemainingOps.cpp: each case copies into one destination).
// Pack, unpack, bitcast and the switch move or compare values: exact.
// Softmax (exp), |z^2| (sqrt) and the complex products (which the GPU may
// contract into fma) are checked with an SQNR bar (the script's).

#id = affine_map<(i) -> (i)>

// Softmax over the rows of a (256, 1000) f32 tensor (1000: not a multiple
// of any vector width or tile).
func.func @softmax(%x: tensor<256x1000xf32>) -> tensor<256x1000xf32> {
  %e = tensor.empty() : tensor<256x1000xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<256x1000xf32>)
      outs(%e : tensor<256x1000xf32>) -> tensor<256x1000xf32>
  return %r : tensor<256x1000xf32>
}

// 100 x 96 packed into tiles of 6 x 8 (100 rows padded to 102 with 0.25),
// and unpacked again (the identity).
func.func @pack_unpack(%x: tensor<100x96xf32>) -> (tensor<17x12x6x8xf32>, tensor<100x96xf32>) {
  %pad = arith.constant 0.25 : f32
  %e = tensor.empty() : tensor<17x12x6x8xf32>
  %p = linalg.pack %x padding_value(%pad : f32) inner_dims_pos = [0, 1] inner_tiles = [6, 8]
      into %e : tensor<100x96xf32> -> tensor<17x12x6x8xf32>
  %u0 = tensor.empty() : tensor<100x96xf32>
  %u = linalg.unpack %p inner_dims_pos = [0, 1] inner_tiles = [6, 8]
      into %u0 : tensor<17x12x6x8xf32> -> tensor<100x96xf32>
  return %p, %u : tensor<17x12x6x8xf32>, tensor<100x96xf32>
}

// The bits of an f32 tensor as i32, and of a bf16 tensor as i16.
func.func @bitcast(%x: tensor<64x96xf32>, %y: tensor<64x96xbf16>) -> (tensor<64x96xi32>, tensor<64x96xi16>) {
  %r = tensor.bitcast %x : tensor<64x96xf32> to tensor<64x96xi32>
  %s = tensor.bitcast %y : tensor<64x96xbf16> to tensor<64x96xi16>
  return %r, %s : tensor<64x96xi32>, tensor<64x96xi16>
}

// |(x + iy)^2| in one body, and (x + iy)^2 carried as complex<f32> to a
// second kernel that returns re + im.
func.func @complex_ops(%x: tensor<8192xf32>, %y: tensor<8192xf32>) -> (tensor<8192xf32>, tensor<8192xf32>) {
  %e = tensor.empty() : tensor<8192xf32>
  %a = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%x, %y : tensor<8192xf32>, tensor<8192xf32>) outs(%e : tensor<8192xf32>) {
  ^bb0(%u: f32, %v: f32, %o: f32):
    %c = complex.create %u, %v : complex<f32>
    %m = complex.mul %c, %c : complex<f32>
    %n = complex.abs %m : complex<f32>
    linalg.yield %n : f32
  } -> tensor<8192xf32>
  %ec = tensor.empty() : tensor<8192xcomplex<f32>>
  %c = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%x, %y : tensor<8192xf32>, tensor<8192xf32>) outs(%ec : tensor<8192xcomplex<f32>>) {
  ^bb0(%u: f32, %v: f32, %o: complex<f32>):
    %z = complex.create %u, %v : complex<f32>
    %m = complex.mul %z, %z : complex<f32>
    linalg.yield %m : complex<f32>
  } -> tensor<8192xcomplex<f32>>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%c : tensor<8192xcomplex<f32>>) outs(%e : tensor<8192xf32>) {
  ^bb0(%z: complex<f32>, %o: f32):
    %re = complex.re %z : complex<f32>
    %im = complex.im %z : complex<f32>
    %s = arith.addf %re, %im : f32
    linalg.yield %s : f32
  } -> tensor<8192xf32>
  return %a, %r : tensor<8192xf32>, tensor<8192xf32>
}

// One scf.index_switch per case (the selector a host value read from a
// tensor): case 0 doubles, case 1 squares, the default returns x.
func.func @switch_on(%x: tensor<64x96xf32>, %k: tensor<i32>) -> tensor<64x96xf32> {
  %kv = tensor.extract %k[] : tensor<i32>
  %ki = arith.index_cast %kv : i32 to index
  %r = scf.index_switch %ki -> tensor<64x96xf32>
  case 0 {
    %y = arith.addf %x, %x : tensor<64x96xf32>
    scf.yield %y : tensor<64x96xf32>
  }
  case 1 {
    %y = arith.mulf %x, %x : tensor<64x96xf32>
    scf.yield %y : tensor<64x96xf32>
  }
  default {
    scf.yield %x : tensor<64x96xf32>
  }
  return %r : tensor<64x96xf32>
}

func.func @index_switch(%x: tensor<64x96xf32>,
                        %k0: tensor<i32> {mxfp8run.values = dense<0> : tensor<i32>},
                        %k1: tensor<i32> {mxfp8run.values = dense<1> : tensor<i32>},
                        %k5: tensor<i32> {mxfp8run.values = dense<5> : tensor<i32>})
    -> (tensor<64x96xf32>, tensor<64x96xf32>, tensor<64x96xf32>) {
  %a = call @switch_on(%x, %k0) : (tensor<64x96xf32>, tensor<i32>) -> tensor<64x96xf32>
  %b = call @switch_on(%x, %k1) : (tensor<64x96xf32>, tensor<i32>) -> tensor<64x96xf32>
  %c = call @switch_on(%x, %k5) : (tensor<64x96xf32>, tensor<i32>) -> tensor<64x96xf32>
  return %a, %b, %c : tensor<64x96xf32>, tensor<64x96xf32>, tensor<64x96xf32>
}

// Host tensors of f16, i1, i8 and i16 (session 34: the host side had bf16,
// f32, f64, fp8, i32 and i64 only): an i1 mask selecting f16 values, an
// f16 comparison, i8 / i16 arithmetic that wraps, f16 -> f32.
func.func @narrow_kinds(%h: tensor<128x96xf16>,
                        %b: tensor<128x96xi1> {mxfp8run.values = dense<true> : tensor<128x96xi1>},
                        %c: tensor<128x96xi8> {mxfp8run.values = dense<-70> : tensor<128x96xi8>},
                        %s: tensor<128x96xi16>)
    -> (tensor<128x96xf16>, tensor<128x96xi1>, tensor<128x96xi8>, tensor<128x96xi16>, tensor<128x96xf32>) {
  %z = arith.constant dense<0.0> : tensor<128x96xf16>
  %pos = arith.cmpf ogt, %h, %z : tensor<128x96xf16>
  %m = arith.xori %pos, %b : tensor<128x96xi1>
  %sel = arith.select %m, %h, %z : tensor<128x96xi1>, tensor<128x96xf16>
  %c2 = arith.addi %c, %c : tensor<128x96xi8>
  %k = arith.constant dense<30000> : tensor<128x96xi16>
  %s2 = arith.subi %s, %k : tensor<128x96xi16>
  %s3 = arith.subi %s2, %k : tensor<128x96xi16>
  %w = arith.extf %h : tensor<128x96xf16> to tensor<128x96xf32>
  return %sel, %pos, %c2, %s3, %w : tensor<128x96xf16>, tensor<128x96xi1>, tensor<128x96xi8>, tensor<128x96xi16>, tensor<128x96xf32>
}
