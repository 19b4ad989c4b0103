// GEMM functions checked on the GPU against the CPU path by
// bench/make-aot-artifacts.sh and bench/device/run-aot-checks.sh: the simple
// tiled kernels of Gemm/SimpleGemm.cpp (linalg contractions in every
// operand orientation, an init that is read, batch_matmul, grouped_mm 2d-3d
// and 2d-2d with an empty group, rows past the last offset and sizes that
// are not multiples of the 64 x 64 tile) and the MXFP8 GEMMs (quantize +
// scaled_mm / scaled_grouped_mm; compiled with the default lowering and
// with simple-gemm). Results are f32, so the GPU and the CPU differ only by
// the order of the f32 accumulation: the SQNR bar is 100 dB.

#mk = affine_map<(m, n, k) -> (m, k)>
#nk = affine_map<(m, n, k) -> (n, k)>
#km = affine_map<(m, n, k) -> (k, m)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>

// x (130, 96) times w (70, 96) transposed: partial tiles in M and N.
func.func @mm_nt(%x: tensor<130x96xbf16>, %w: tensor<70x96xbf16>) -> tensor<130x70xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<130x70xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<130x70xf32>) -> tensor<130x70xf32>
  %y = linalg.matmul indexing_maps = [#mk, #nk, #mn]
      ins(%x, %w : tensor<130x96xbf16>, tensor<70x96xbf16>) outs(%f : tensor<130x70xf32>) -> tensor<130x70xf32>
  return %y : tensor<130x70xf32>
}

// a^T b + c: both operands stored with K first, an init that is read, K
// not a multiple of 32.
func.func @mm_tn_init(%a: tensor<80x65xf32>, %b: tensor<80x100xf32>, %c: tensor<65x100xf32>)
    -> tensor<65x100xf32> {
  %y = linalg.matmul indexing_maps = [#km, #kn, #mn]
      ins(%a, %b : tensor<80x65xf32>, tensor<80x100xf32>) outs(%c : tensor<65x100xf32>) -> tensor<65x100xf32>
  return %y : tensor<65x100xf32>
}

func.func @bmm(%a: tensor<3x65x64xf32>, %b: tensor<3x64x33xf32>) -> tensor<3x65x33xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x65x33xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<3x65x33xf32>) -> tensor<3x65x33xf32>
  %y = linalg.batch_matmul ins(%a, %b : tensor<3x65x64xf32>, tensor<3x64x33xf32>)
      outs(%f : tensor<3x65x33xf32>) -> tensor<3x65x33xf32>
  return %y : tensor<3x65x33xf32>
}

// Groups of 20, 0, 55, 15 rows; rows 90..99 belong to no group (zero).
func.func @gmm_2d3d(%x: tensor<100x96xbf16>, %w: tensor<4x80x96xbf16> {mxfp8run.std = 0.1 : f64},
                    %offs: tensor<4xi32> {mxfp8run.values = dense<[20, 20, 75, 90]> : tensor<4xi32>})
    -> tensor<100x80xf32> {
  %y = mxfp8train.grouped_mm %x, %w offs(%offs) transpose_rhs
      : tensor<100x96xbf16>, tensor<4x80x96xbf16>, tensor<4xi32> -> tensor<100x80xf32>
  return %y : tensor<100x80xf32>
}

// Weight gradients per group over the same groups (group 1 empty: zeros).
func.func @gmm_2d2d(%dy: tensor<100x70xbf16>, %x: tensor<100x96xbf16>,
                    %offs: tensor<4xi32> {mxfp8run.values = dense<[20, 20, 75, 90]> : tensor<4xi32>})
    -> tensor<4x70x96xf32> {
  %y = mxfp8train.grouped_mm %dy, %x offs(%offs) transpose_lhs
      : tensor<100x70xbf16>, tensor<100x96xbf16>, tensor<4xi32> -> tensor<4x70x96xf32>
  return %y : tensor<4x70x96xf32>
}

// The forward GEMM of a linear layer in MXFP8 (weights stored (N, K)).
func.func @smm(%x: tensor<256x512xbf16>, %w: tensor<384x512xbf16> {mxfp8run.std = 0.02 : f64},
               %bias: tensor<384xf32>) -> tensor<256x384xf32> {
  %xq, %xs = mxfp8train.quantize %x axis = 1 mode = rceil
      : tensor<256x512xbf16> -> tensor<256x512xf8E4M3FN>, tensor<256x16xf8E8M0FNU>
  %wq, %ws = mxfp8train.quantize %w axis = 1 mode = rceil
      : tensor<384x512xbf16> -> tensor<384x512xf8E4M3FN>, tensor<384x16xf8E8M0FNU>
  %y = mxfp8train.scaled_mm %xq [%xs], %wq [%ws] bias(%bias) transpose_rhs
      : tensor<256x512xf8E4M3FN> [tensor<256x16xf8E8M0FNU>],
        tensor<384x512xf8E4M3FN> [tensor<384x16xf8E8M0FNU>], tensor<384xf32> -> tensor<256x384xf32>
  return %y : tensor<256x384xf32>
}

// The dgrad form: dO (M, N) times W stored (N, K) without transpose.
func.func @smm_dgrad(%dy: tensor<256x384xbf16>, %w: tensor<384x512xbf16> {mxfp8run.std = 0.02 : f64})
    -> tensor<256x512xf32> {
  %dq, %ds = mxfp8train.quantize %dy axis = 1 mode = rceil
      : tensor<256x384xbf16> -> tensor<256x384xf8E4M3FN>, tensor<256x12xf8E8M0FNU>
  %wq, %ws = mxfp8train.quantize %w axis = 0 mode = rceil
      : tensor<384x512xbf16> -> tensor<384x512xf8E4M3FN>, tensor<12x512xf8E8M0FNU>
  %y = mxfp8train.scaled_mm %dq [%ds], %wq [%ws]
      : tensor<256x384xf8E4M3FN> [tensor<256x12xf8E8M0FNU>],
        tensor<384x512xf8E4M3FN> [tensor<12x512xf8E8M0FNU>] -> tensor<256x512xf32>
  return %y : tensor<256x512xf32>
}

// Grouped MXFP8: 2d-3d forward (groups 32, 0, 64, 32 of 128 tokens) and
// 2d-2d wgrad over the same groups.
func.func @sgmm_2d3d(%x: tensor<128x256xbf16>, %w: tensor<4x192x256xbf16> {mxfp8run.std = 0.02 : f64},
                     %offs: tensor<4xi32> {mxfp8run.values = dense<[32, 32, 96, 128]> : tensor<4xi32>})
    -> tensor<128x192xf32> {
  %xq, %xs = mxfp8train.quantize %x axis = 1 mode = rceil
      : tensor<128x256xbf16> -> tensor<128x256xf8E4M3FN>, tensor<128x8xf8E8M0FNU>
  %wq, %ws = mxfp8train.quantize %w axis = 2 mode = rceil
      : tensor<4x192x256xbf16> -> tensor<4x192x256xf8E4M3FN>, tensor<4x192x8xf8E8M0FNU>
  %y = mxfp8train.scaled_grouped_mm %xq [%xs], %wq [%ws] offs(%offs) transpose_rhs
      : tensor<128x256xf8E4M3FN> [tensor<128x8xf8E8M0FNU>],
        tensor<4x192x256xf8E4M3FN> [tensor<4x192x8xf8E8M0FNU>], tensor<4xi32> -> tensor<128x192xf32>
  return %y : tensor<128x192xf32>
}

func.func @sgmm_2d2d(%dy: tensor<128x192xbf16>, %x: tensor<128x256xbf16>,
                     %offs: tensor<4xi32> {mxfp8run.values = dense<[32, 32, 96, 128]> : tensor<4xi32>})
    -> tensor<4x192x256xf32> {
  %dq, %ds = mxfp8train.quantize %dy axis = 0 mode = rceil
      : tensor<128x192xbf16> -> tensor<128x192xf8E4M3FN>, tensor<4x192xf8E8M0FNU>
  %xq, %xs = mxfp8train.quantize %x axis = 0 mode = rceil
      : tensor<128x256xbf16> -> tensor<128x256xf8E4M3FN>, tensor<4x256xf8E8M0FNU>
  %y = mxfp8train.scaled_grouped_mm %dq [%ds], %xq [%xs] offs(%offs) transpose_lhs
      : tensor<128x192xf8E4M3FN> [tensor<4x192xf8E8M0FNU>],
        tensor<128x256xf8E4M3FN> [tensor<4x256xf8E8M0FNU>], tensor<4xi32> -> tensor<4x192x256xf32>
  return %y : tensor<4x192x256xf32>
}

// The 2-CTA tcgen05 variant (`cta_group = 2`, sm_100a; other chips ignore
// the field): the forward GEMM and the 2d-3d forward of the cases above.
func.func @smm_cta2(%x: tensor<256x512xbf16>, %w: tensor<384x512xbf16> {mxfp8run.std = 0.02 : f64},
                    %bias: tensor<384xf32>) -> tensor<256x384xf32> {
  %xq, %xs = mxfp8train.quantize %x axis = 1 mode = rceil
      : tensor<256x512xbf16> -> tensor<256x512xf8E4M3FN>, tensor<256x16xf8E8M0FNU>
  %wq, %ws = mxfp8train.quantize %w axis = 1 mode = rceil
      : tensor<384x512xbf16> -> tensor<384x512xf8E4M3FN>, tensor<384x16xf8E8M0FNU>
  %y = mxfp8train.scaled_mm %xq [%xs], %wq [%ws] bias(%bias) transpose_rhs
      {mxfp8train.gemm_config = #mxfp8train.gemm_config<cta_group = 2>}
      : tensor<256x512xf8E4M3FN> [tensor<256x16xf8E8M0FNU>],
        tensor<384x512xf8E4M3FN> [tensor<384x16xf8E8M0FNU>], tensor<384xf32> -> tensor<256x384xf32>
  return %y : tensor<256x384xf32>
}

func.func @sgmm_2d3d_cta2(%x: tensor<128x256xbf16>, %w: tensor<4x192x256xbf16> {mxfp8run.std = 0.02 : f64},
                          %offs: tensor<4xi32> {mxfp8run.values = dense<[32, 32, 96, 128]> : tensor<4xi32>})
    -> tensor<128x192xf32> {
  %xq, %xs = mxfp8train.quantize %x axis = 1 mode = rceil
      : tensor<128x256xbf16> -> tensor<128x256xf8E4M3FN>, tensor<128x8xf8E8M0FNU>
  %wq, %ws = mxfp8train.quantize %w axis = 2 mode = rceil
      : tensor<4x192x256xbf16> -> tensor<4x192x256xf8E4M3FN>, tensor<4x192x8xf8E8M0FNU>
  %y = mxfp8train.scaled_grouped_mm %xq [%xs], %wq [%ws] offs(%offs) transpose_rhs
      {mxfp8train.gemm_config = #mxfp8train.gemm_config<cta_group = 2>}
      : tensor<128x256xf8E4M3FN> [tensor<128x8xf8E8M0FNU>],
        tensor<4x192x256xf8E4M3FN> [tensor<4x192x8xf8E8M0FNU>], tensor<4xi32> -> tensor<128x192xf32>
  return %y : tensor<128x192xf32>
}

// ---------------------------------------------------------------------------
// The high-precision GEMMs on the tuned kernel (sm_90a: the v8 wgmma kernel
// of Gemm/HighPrecisionGemm.cpp; sm_100a: still the simple kernels). Every
// operand orientation at 256 x 384 x 512 (in place: x w^T; packed: a b,
// a^T b, a^T w^T), sizes that are not multiples of the 128 x 256 tile
// (200 x 300, K = 520 read in place with the K tail zero-filled by TMA,
// K = 100 packed), an init that is read, a (N, M) output, batch_matmul with
// 3-D maps and with a packed operand, grouped_mm 2d-3d (an empty group,
// rows past the last offset) and 2d-2d (group bounds off every alignment).
// f32 results: the order of the f32 accumulation differs from the CPU path,
// SQNR >= 100 dB; the bf16 result (hp_mm_nt_bf16) is rounded once from f32
// on both sides, a few ulp flips between them: SQNR >= 40 dB.

#bmk = affine_map<(b, m, n, k) -> (b, m, k)>
#bnk = affine_map<(b, m, n, k) -> (b, n, k)>
#bkn = affine_map<(b, m, n, k) -> (b, k, n)>
#bmn = affine_map<(b, m, n, k) -> (b, m, n)>
#nm = affine_map<(m, n, k) -> (n, m)>

func.func @hp_mm_nt(%x: tensor<256x512xbf16>, %w: tensor<384x512xbf16>) -> tensor<256x384xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x384xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x384xf32>) -> tensor<256x384xf32>
  %y = linalg.matmul indexing_maps = [#mk, #nk, #mn]
      ins(%x, %w : tensor<256x512xbf16>, tensor<384x512xbf16>) outs(%f : tensor<256x384xf32>) -> tensor<256x384xf32>
  return %y : tensor<256x384xf32>
}

func.func @hp_mm_nn(%a: tensor<256x512xbf16>, %b: tensor<512x384xbf16>) -> tensor<256x384xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x384xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x384xf32>) -> tensor<256x384xf32>
  %y = linalg.matmul ins(%a, %b : tensor<256x512xbf16>, tensor<512x384xbf16>)
      outs(%f : tensor<256x384xf32>) -> tensor<256x384xf32>
  return %y : tensor<256x384xf32>
}

func.func @hp_mm_tn(%a: tensor<512x256xbf16>, %b: tensor<512x384xbf16>) -> tensor<256x384xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x384xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x384xf32>) -> tensor<256x384xf32>
  %y = linalg.matmul indexing_maps = [#km, #kn, #mn]
      ins(%a, %b : tensor<512x256xbf16>, tensor<512x384xbf16>) outs(%f : tensor<256x384xf32>) -> tensor<256x384xf32>
  return %y : tensor<256x384xf32>
}

func.func @hp_mm_tt(%a: tensor<512x256xbf16>, %w: tensor<384x512xbf16>) -> tensor<256x384xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x384xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x384xf32>) -> tensor<256x384xf32>
  %y = linalg.matmul indexing_maps = [#km, #nk, #mn]
      ins(%a, %w : tensor<512x256xbf16>, tensor<384x512xbf16>) outs(%f : tensor<256x384xf32>) -> tensor<256x384xf32>
  return %y : tensor<256x384xf32>
}

func.func @hp_mm_nt_bf16(%x: tensor<256x512xbf16>, %w: tensor<384x512xbf16>) -> tensor<256x384xbf16> {
  %zero = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<256x384xbf16>
  %f = linalg.fill ins(%zero : bf16) outs(%e : tensor<256x384xbf16>) -> tensor<256x384xbf16>
  %y = linalg.matmul indexing_maps = [#mk, #nk, #mn]
      ins(%x, %w : tensor<256x512xbf16>, tensor<384x512xbf16>) outs(%f : tensor<256x384xbf16>) -> tensor<256x384xbf16>
  return %y : tensor<256x384xbf16>
}

func.func @hp_mm_odd_nt(%x: tensor<200x520xbf16>, %w: tensor<300x520xbf16>) -> tensor<200x300xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<200x300xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<200x300xf32>) -> tensor<200x300xf32>
  %y = linalg.matmul indexing_maps = [#mk, #nk, #mn]
      ins(%x, %w : tensor<200x520xbf16>, tensor<300x520xbf16>) outs(%f : tensor<200x300xf32>) -> tensor<200x300xf32>
  return %y : tensor<200x300xf32>
}

func.func @hp_mm_odd_init(%a: tensor<200x100xbf16>, %b: tensor<100x300xbf16>, %c: tensor<200x300xf32>)
    -> tensor<200x300xf32> {
  %y = linalg.matmul ins(%a, %b : tensor<200x100xbf16>, tensor<100x300xbf16>)
      outs(%c : tensor<200x300xf32>) -> tensor<200x300xf32>
  return %y : tensor<200x300xf32>
}

func.func @hp_mm_out_nm(%x: tensor<256x512xbf16>, %w: tensor<384x512xbf16>) -> tensor<384x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<384x256xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<384x256xf32>) -> tensor<384x256xf32>
  %y = linalg.matmul indexing_maps = [#mk, #nk, #nm]
      ins(%x, %w : tensor<256x512xbf16>, tensor<384x512xbf16>) outs(%f : tensor<384x256xf32>) -> tensor<384x256xf32>
  return %y : tensor<384x256xf32>
}

func.func @hp_bmm_nt(%a: tensor<3x200x520xbf16>, %b: tensor<3x300x520xbf16>) -> tensor<3x200x300xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x200x300xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<3x200x300xf32>) -> tensor<3x200x300xf32>
  %y = linalg.batch_matmul indexing_maps = [#bmk, #bnk, #bmn]
      ins(%a, %b : tensor<3x200x520xbf16>, tensor<3x300x520xbf16>)
      outs(%f : tensor<3x200x300xf32>) -> tensor<3x200x300xf32>
  return %y : tensor<3x200x300xf32>
}

func.func @hp_bmm_nn(%a: tensor<3x256x512xbf16>, %b: tensor<3x512x384xbf16>) -> tensor<3x256x384xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x256x384xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<3x256x384xf32>) -> tensor<3x256x384xf32>
  %y = linalg.batch_matmul indexing_maps = [#bmk, #bkn, #bmn]
      ins(%a, %b : tensor<3x256x512xbf16>, tensor<3x512x384xbf16>)
      outs(%f : tensor<3x256x384xf32>) -> tensor<3x256x384xf32>
  return %y : tensor<3x256x384xf32>
}

// Groups of 203, 0, 504, 193 tokens; tokens 900..999 belong to no group.
func.func @hp_gmm_2d3d(%x: tensor<1000x512xbf16>, %w: tensor<4x384x512xbf16>,
                       %offs: tensor<4xi32> {mxfp8run.values = dense<[203, 203, 707, 900]> : tensor<4xi32>})
    -> tensor<1000x384xf32> {
  %y = mxfp8train.grouped_mm %x, %w offs(%offs) transpose_rhs
      : tensor<1000x512xbf16>, tensor<4x384x512xbf16>, tensor<4xi32> -> tensor<1000x384xf32>
  return %y : tensor<1000x384xf32>
}

func.func @hp_gmm_2d3d_nn(%x: tensor<1000x512xbf16>, %w: tensor<4x512x384xbf16>,
                          %offs: tensor<4xi32> {mxfp8run.values = dense<[203, 203, 707, 900]> : tensor<4xi32>})
    -> tensor<1000x384xf32> {
  %y = mxfp8train.grouped_mm %x, %w offs(%offs)
      : tensor<1000x512xbf16>, tensor<4x512x384xbf16>, tensor<4xi32> -> tensor<1000x384xf32>
  return %y : tensor<1000x384xf32>
}

func.func @hp_gmm_2d2d(%dy: tensor<1000x384xbf16>, %x: tensor<1000x512xbf16>,
                       %offs: tensor<4xi32> {mxfp8run.values = dense<[203, 203, 707, 900]> : tensor<4xi32>})
    -> tensor<4x384x512xf32> {
  %y = mxfp8train.grouped_mm %dy, %x offs(%offs) transpose_lhs
      : tensor<1000x384xbf16>, tensor<1000x512xbf16>, tensor<4xi32> -> tensor<4x384x512xf32>
  return %y : tensor<4x384x512xf32>
}

// A contraction whose body takes |x| (isaContractionOpInterface accepts it):
// not a GEMM kernel's form, so it runs on the loop path, |x| included (the
// GEMM kernels used to take it and drop the absf).
func.func @generic_abs_mm(%a: tensor<128x256xf32>, %b: tensor<256x128xf32>, %c: tensor<128x128xf32>)
    -> tensor<128x128xf32> {
  %r = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<128x256xf32>, tensor<256x128xf32>) outs(%c : tensor<128x128xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %ax = math.absf %x : f32
    %m = arith.mulf %ax, %y : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<128x128xf32>
  return %r : tensor<128x128xf32>
}
