// Math ops that mxfp8train-legalize-math rewrites (lib/Pipelines/
// LegalizeMath.cpp), checked on the GPU against the CPU path by
// bench/make-aot-artifacts.sh and bench/device/run-aot-checks.sh. Integer
// powers, bit counts, classifications, clampf and trunc are exact on both;
// the functions the CPU calls from the C library and the GPU from
// libdevice (acosh, asinh, atanh, cbrt, erf, erfc; sin + cos through
// math.sincos) differ by ulps (an SQNR bar in the script).

#id = affine_map<(i) -> (i)>

func.func @math_exact(
    %b: tensor<64xi32> {mxfp8run.values = dense<[-8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4]> : tensor<64xi32>},
    %e: tensor<64xi32> {mxfp8run.values = dense<[25, 31, -3, 31, 17, 19, 24, 9, 39, -1, 8, 13, 21, 14, 2, -2, -3, -1, 3, 39, 5, 25, 29, 7, 9, 15, 8, 38, 4, 35, 31, 33, 1, 13, 24, 18, 25, 26, 25, -1, 38, 20, 35, 8, 12, 34, 5, -1, 13, 26, 2, 34, 11, 6, 20, 35, 35, 34, 10, -3, 30, 27, 30, -3]> : tensor<64xi32>},
    %w: tensor<64xi32> {mxfp8run.values = dense<[0, 1, -1, -2147483648, 1852435348, -1274519365, 120173842, -751865617, -880612382, 1315184832, -1489413143, -788332282, -1637298614, -1507367806, -940538960, 852602506, 341642940, -221001405, -1419280215, 1283935337, 1287574486, -1135948167, -1891053048, -774019016, -1520396814, 1287972757, 83968013, 30357425, -899533277, 27423372, 2007721940, -1133037592, 1151330750, -2085050800, -799702773, 1860682483, 1594563180, -1778864683, 1473344387, 1481449331, -200663524, -567447906, 2063223206, 1937128953, 761150359, -431965213, -1244626023, 1874504382, -993044228, 241204399, 750097423, -1116110267, -793882900, 1036898177, -1299610483, 748998122, 1909474467, 791155362, 627882060, -155373191, 2009591580, -1194479544, -619146997, 605333298]> : tensor<64xi32>},
    %x: tensor<64xf32>)
    -> (tensor<64xi32>, tensor<64xi64>, tensor<64xi32>, tensor<64xf32>) {
  %ei = tensor.empty() : tensor<64xi32>
  %el = tensor.empty() : tensor<64xi64>
  %ef = tensor.empty() : tensor<64xf32>
  %r:4 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id, #id, #id, #id], iterator_types = ["parallel"]}
      ins(%b, %e, %w, %x : tensor<64xi32>, tensor<64xi32>, tensor<64xi32>, tensor<64xf32>)
      outs(%ei, %el, %ei, %ef : tensor<64xi32>, tensor<64xi64>, tensor<64xi32>, tensor<64xf32>) {
  ^bb0(%bb: i32, %ee: i32, %ww: i32, %xx: f32, %o0: i32, %o1: i64, %o2: i32, %o3: f32):
    %p32 = math.ipowi %bb, %ee : i32
    %b64 = arith.extsi %bb : i32 to i64
    %e64 = arith.extsi %ee : i32 to i64
    %p64 = math.ipowi %b64, %e64 : i64
    %lz = math.ctlz %ww : i32
    %tz = math.cttz %ww : i32
    %pop = math.ctpop %ww : i32
    %s1 = arith.addi %lz, %tz : i32
    %bits = arith.muli %s1, %pop : i32
    %big = arith.constant 1.0e30 : f32
    %scaled = arith.mulf %xx, %big : f32
    %inf = math.isinf %scaled : f32
    %normal = math.isnormal %xx : f32
    %lo = arith.constant -1.0 : f32
    %hi = arith.constant 0.5 : f32
    %c = math.clampf %xx to [%lo, %hi] : f32
    %t = math.trunc %xx : f32
    %one = arith.constant 1.0 : f32
    %zero = arith.constant 0.0 : f32
    %fi = arith.select %inf, %one, %zero : f32
    %fn = arith.select %normal, %one, %zero : f32
    %f1 = arith.addf %c, %t : f32
    %f2 = arith.addf %f1, %fi : f32
    %f3 = arith.addf %f2, %fn : f32
    linalg.yield %p32, %p64, %bits, %f3 : i32, i64, i32, f32
  } -> (tensor<64xi32>, tensor<64xi64>, tensor<64xi32>, tensor<64xf32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<64xi32>, tensor<64xi64>, tensor<64xi32>, tensor<64xf32>
}

// acosh (of 1 + x^2), asinh, atanh (of x / (1 + |x|)), cbrt, erf, erfc and
// sin + cos (math.sincos) of x, summed into one result.
func.func @math_libm(%x: tensor<64x96xf32>) -> tensor<64x96xf32> {
  %e = tensor.empty() : tensor<64x96xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64x96xf32>) outs(%e : tensor<64x96xf32>) {
  ^bb0(%a: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %sq = arith.mulf %a, %a : f32
    %above = arith.addf %sq, %one : f32
    %abs = math.absf %a : f32
    %den = arith.addf %abs, %one : f32
    %inside = arith.divf %a, %den : f32
    %v0 = math.acosh %above : f32
    %v1 = math.asinh %a : f32
    %v2 = math.atanh %inside : f32
    %v3 = math.cbrt %a : f32
    %v4 = math.erf %a : f32
    %v5 = math.erfc %a : f32
    %s, %c = math.sincos %a : f32
    %t0 = arith.addf %v0, %v1 : f32
    %t1 = arith.addf %t0, %v2 : f32
    %t2 = arith.addf %t1, %v3 : f32
    %t3 = arith.addf %t2, %v4 : f32
    %t4 = arith.addf %t3, %v5 : f32
    %t5 = arith.addf %t4, %s : f32
    %t6 = arith.addf %t5, %c : f32
    linalg.yield %t6 : f32
  } -> tensor<64x96xf32>
  return %r : tensor<64x96xf32>
}
