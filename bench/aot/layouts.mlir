// The to_blocked kernels of the grouped layouts checked on the GPU against
// the CPU path, bit for bit, by bench/make-aot-artifacts.sh and
// bench/device/run-aot-checks.sh (each function compiled alone for cpu and
// cuda, run by mxfp8-launch on the same generated inputs). The scale bytes
// are a generated f8E4M3FN argument reinterpreted as e8m0 (std 30: some
// hundred distinct bytes), so that a byte moved to the wrong place shows;
// the offsets are fixed by mxfp8run.values. The results are filled with
// 0xFF before each run (--fill-results), so a byte left unwritten shows.

#map = affine_map<(d0, d1) -> (d0, d1)>

// Uneven groups, empty first/middle/last, rows and columns not multiples
// of 128 / 4.
func.func @m_groups_uneven(%x: tensor<4000x7xf8E4M3FN> {mxfp8run.std = 30.0 : f64},
    %offs: tensor<8xi32> {mxfp8run.values = dense<[0, 100, 100, 1337, 1400, 2999, 4000, 4000]> : tensor<8xi32>}) -> tensor<40192xf8E8M0FNU> {
  %e = tensor.empty() : tensor<4000x7xf8E8M0FNU>
  %s = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4000x7xf8E4M3FN>) outs(%e : tensor<4000x7xf8E8M0FNU>) {
  ^bb0(%in: f8E4M3FN, %out: f8E8M0FNU):
    %b = arith.bitcast %in : f8E4M3FN to f8E8M0FNU
    linalg.yield %b : f8E8M0FNU
  } -> tensor<4000x7xf8E8M0FNU>
  %r = mxfp8train.to_blocked %s offs(%offs) layout = blocked_m_groups
      : tensor<4000x7xf8E8M0FNU>, tensor<8xi32> -> tensor<40192xf8E8M0FNU>
  return %r : tensor<40192xf8E8M0FNU>
}

// Decreasing and negative offsets (clamped), offs[-1] short of R.
func.func @m_groups_short_malformed(%x: tensor<1000x9xf8E4M3FN> {mxfp8run.std = 30.0 : f64},
    %offs: tensor<6xi32> {mxfp8run.values = dense<[500, 300, -7, 700, 640, 900]> : tensor<6xi32>}) -> tensor<21216xf8E8M0FNU> {
  %e = tensor.empty() : tensor<1000x9xf8E8M0FNU>
  %s = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<1000x9xf8E4M3FN>) outs(%e : tensor<1000x9xf8E8M0FNU>) {
  ^bb0(%in: f8E4M3FN, %out: f8E8M0FNU):
    %b = arith.bitcast %in : f8E4M3FN to f8E8M0FNU
    linalg.yield %b : f8E8M0FNU
  } -> tensor<1000x9xf8E8M0FNU>
  %r = mxfp8train.to_blocked %s offs(%offs) layout = blocked_m_groups
      : tensor<1000x9xf8E8M0FNU>, tensor<6xi32> -> tensor<21216xf8E8M0FNU>
  return %r : tensor<21216xf8E8M0FNU>
}

// DeepSeek-V3 forward lhs scales (K = 7168), 8 experts.
func.func @m_groups_dsv3(%x: tensor<16384x224xf8E4M3FN> {mxfp8run.std = 30.0 : f64},
    %offs: tensor<8xi32> {mxfp8run.values = dense<[1024, 3072, 3072, 6176, 8224, 12320, 14368, 16384]> : tensor<8xi32>}) -> tensor<3899392xf8E8M0FNU> {
  %e = tensor.empty() : tensor<16384x224xf8E8M0FNU>
  %s = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<16384x224xf8E4M3FN>) outs(%e : tensor<16384x224xf8E8M0FNU>) {
  ^bb0(%in: f8E4M3FN, %out: f8E8M0FNU):
    %b = arith.bitcast %in : f8E4M3FN to f8E8M0FNU
    linalg.yield %b : f8E8M0FNU
  } -> tensor<16384x224xf8E8M0FNU>
  %r = mxfp8train.to_blocked %s offs(%offs) layout = blocked_m_groups
      : tensor<16384x224xf8E8M0FNU>, tensor<8xi32> -> tensor<3899392xf8E8M0FNU>
  return %r : tensor<3899392xf8E8M0FNU>
}

// Uneven token groups (multiples of 32), empty first and middle, rows not
// a multiple of 128.
func.func @k_groups_uneven(%x: tensor<300x128xf8E4M3FN> {mxfp8run.std = 30.0 : f64},
    %offs: tensor<6xi32> {mxfp8run.values = dense<[0, 512, 512, 1056, 2080, 4096]> : tensor<6xi32>}) -> tensor<58368xf8E8M0FNU> {
  %e = tensor.empty() : tensor<300x128xf8E8M0FNU>
  %s = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<300x128xf8E4M3FN>) outs(%e : tensor<300x128xf8E8M0FNU>) {
  ^bb0(%in: f8E4M3FN, %out: f8E8M0FNU):
    %b = arith.bitcast %in : f8E4M3FN to f8E8M0FNU
    linalg.yield %b : f8E8M0FNU
  } -> tensor<300x128xf8E8M0FNU>
  %r = mxfp8train.to_blocked %s offs(%offs) layout = blocked_k_groups
      : tensor<300x128xf8E8M0FNU>, tensor<6xi32> -> tensor<58368xf8E8M0FNU>
  return %r : tensor<58368xf8E8M0FNU>
}

// Offsets that are not multiples of 32 (offs // 32 as torchao), short of
// the total.
func.func @k_groups_misaligned(%x: tensor<200x128xf8E4M3FN> {mxfp8run.std = 30.0 : f64},
    %offs: tensor<6xi32> {mxfp8run.values = dense<[40, 1000, 1001, 3000, 3001, 4090]> : tensor<6xi32>}) -> tensor<38912xf8E8M0FNU> {
  %e = tensor.empty() : tensor<200x128xf8E8M0FNU>
  %s = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<200x128xf8E4M3FN>) outs(%e : tensor<200x128xf8E8M0FNU>) {
  ^bb0(%in: f8E4M3FN, %out: f8E8M0FNU):
    %b = arith.bitcast %in : f8E4M3FN to f8E8M0FNU
    linalg.yield %b : f8E8M0FNU
  } -> tensor<200x128xf8E8M0FNU>
  %r = mxfp8train.to_blocked %s offs(%offs) layout = blocked_k_groups
      : tensor<200x128xf8E8M0FNU>, tensor<6xi32> -> tensor<38912xf8E8M0FNU>
  return %r : tensor<38912xf8E8M0FNU>
}

// Decreasing, negative and past-the-end offsets (clamped).
func.func @k_groups_malformed(%x: tensor<130x64xf8E4M3FN> {mxfp8run.std = 30.0 : f64},
    %offs: tensor<4xi32> {mxfp8run.values = dense<[1500, 64, 99999, -1]> : tensor<4xi32>}) -> tensor<20480xf8E8M0FNU> {
  %e = tensor.empty() : tensor<130x64xf8E8M0FNU>
  %s = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<130x64xf8E4M3FN>) outs(%e : tensor<130x64xf8E8M0FNU>) {
  ^bb0(%in: f8E4M3FN, %out: f8E8M0FNU):
    %b = arith.bitcast %in : f8E4M3FN to f8E8M0FNU
    linalg.yield %b : f8E8M0FNU
  } -> tensor<130x64xf8E8M0FNU>
  %r = mxfp8train.to_blocked %s offs(%offs) layout = blocked_k_groups
      : tensor<130x64xf8E8M0FNU>, tensor<4xi32> -> tensor<20480xf8E8M0FNU>
  return %r : tensor<20480xf8E8M0FNU>
}

// DeepSeek-V3 wgrad operand scales (7168 rows, 16384 tokens), 8 experts.
func.func @k_groups_dsv3(%x: tensor<7168x512xf8E4M3FN> {mxfp8run.std = 30.0 : f64},
    %offs: tensor<8xi32> {mxfp8run.values = dense<[1024, 3072, 3072, 6176, 8224, 12320, 14368, 16384]> : tensor<8xi32>}) -> tensor<3899392xf8E8M0FNU> {
  %e = tensor.empty() : tensor<7168x512xf8E8M0FNU>
  %s = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<7168x512xf8E4M3FN>) outs(%e : tensor<7168x512xf8E8M0FNU>) {
  ^bb0(%in: f8E4M3FN, %out: f8E8M0FNU):
    %b = arith.bitcast %in : f8E4M3FN to f8E8M0FNU
    linalg.yield %b : f8E8M0FNU
  } -> tensor<7168x512xf8E8M0FNU>
  %r = mxfp8train.to_blocked %s offs(%offs) layout = blocked_k_groups
      : tensor<7168x512xf8E8M0FNU>, tensor<8xi32> -> tensor<3899392xf8E8M0FNU>
  return %r : tensor<3899392xf8E8M0FNU>
}
