// Quantization functions checked on the GPU against the CPU path by
// bench/make-aot-artifacts.sh and bench/device/run-aot-checks.sh: each
// function is compiled alone (--entry) for cpu and for cuda, run by
// mxfp8-launch on the same generated inputs, and must be bit-exact.

func.func @quantize_rows_rceil(%x: tensor<4096x4096xbf16>)
    -> (tensor<4096x4096xf8E4M3FN>, tensor<4096x128xf8E8M0FNU>) {
  %q, %s = mxfp8train.quantize %x axis = 1 mode = rceil
      : tensor<4096x4096xbf16> -> tensor<4096x4096xf8E4M3FN>, tensor<4096x128xf8E8M0FNU>
  return %q, %s : tensor<4096x4096xf8E4M3FN>, tensor<4096x128xf8E8M0FNU>
}

func.func @quantize_cols_floor(%x: tensor<4096x4096xbf16>)
    -> (tensor<4096x4096xf8E4M3FN>, tensor<128x4096xf8E8M0FNU>) {
  %q, %s = mxfp8train.quantize %x axis = 0 mode = floor
      : tensor<4096x4096xbf16> -> tensor<4096x4096xf8E4M3FN>, tensor<128x4096xf8E8M0FNU>
  return %q, %s : tensor<4096x4096xf8E4M3FN>, tensor<128x4096xf8E8M0FNU>
}

func.func @quantize_f32_rows_even(%x: tensor<2048x4096xf32> {mxfp8run.std = 1000.0 : f64})
    -> (tensor<2048x4096xf8E4M3FN>, tensor<2048x128xf8E8M0FNU>) {
  %q, %s = mxfp8train.quantize %x axis = 1 mode = even
      : tensor<2048x4096xf32> -> tensor<2048x4096xf8E4M3FN>, tensor<2048x128xf8E8M0FNU>
  return %q, %s : tensor<2048x4096xf8E4M3FN>, tensor<2048x128xf8E8M0FNU>
}

func.func @quantize_e5m2_ceil(%x: tensor<1024x4096xbf16> {mxfp8run.std = 0.001 : f64})
    -> (tensor<1024x4096xf8E5M2>, tensor<1024x128xf8E8M0FNU>) {
  %q, %s = mxfp8train.quantize %x axis = 1 mode = ceil
      : tensor<1024x4096xbf16> -> tensor<1024x4096xf8E5M2>, tensor<1024x128xf8E8M0FNU>
  return %q, %s : tensor<1024x4096xf8E5M2>, tensor<1024x128xf8E8M0FNU>
}

func.func @quantize_blocked(%x: tensor<4000x4096xbf16>)
    -> (tensor<4000x4096xf8E4M3FN>, tensor<524288xf8E8M0FNU>) {
  %q, %s = mxfp8train.quantize %x axis = 1 mode = rceil layout = blocked
      : tensor<4000x4096xbf16> -> tensor<4000x4096xf8E4M3FN>, tensor<524288xf8E8M0FNU>
  return %q, %s : tensor<4000x4096xf8E4M3FN>, tensor<524288xf8E8M0FNU>
}

// The GPU pipeline canonicalizes first, which folds the to_blocked into the
// quantize (layout = blocked, one kernel); the CPU pipeline runs the two ops
// as written: the check compares the fold on the GPU with the unfolded
// module on the CPU.
func.func @quantize_to_blocked(%x: tensor<4000x4096xbf16>)
    -> (tensor<4000x4096xf8E4M3FN>, tensor<524288xf8E8M0FNU>) {
  %q, %s = mxfp8train.quantize %x axis = 1 mode = rceil
      : tensor<4000x4096xbf16> -> tensor<4000x4096xf8E4M3FN>, tensor<4000x128xf8E8M0FNU>
  %b = mxfp8train.to_blocked %s layout = blocked
      : tensor<4000x128xf8E8M0FNU> -> tensor<524288xf8E8M0FNU>
  return %q, %b : tensor<4000x4096xf8E4M3FN>, tensor<524288xf8E8M0FNU>
}

func.func @roundtrip(%x: tensor<4096x4096xbf16> {mxfp8run.std = 3.0 : f64})
    -> tensor<4096x4096xbf16> {
  %q, %s = mxfp8train.quantize %x axis = 1 mode = rceil
      : tensor<4096x4096xbf16> -> tensor<4096x4096xf8E4M3FN>, tensor<4096x128xf8E8M0FNU>
  %y = mxfp8train.dequantize %q [%s] axis = 1
      : tensor<4096x4096xf8E4M3FN> [tensor<4096x128xf8E8M0FNU>] -> tensor<4096x4096xbf16>
  return %y : tensor<4096x4096xbf16>
}
