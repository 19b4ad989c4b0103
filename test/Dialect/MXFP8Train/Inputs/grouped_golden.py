#!/usr/bin/env python3
"""Independent golden model of the three MXFP8 grouped GEMMs (SPEC §2, §7).

Usage: grouped_golden.py DIR OFFS...

DIR holds what `mxfp8-run --compare --output-dir=DIR --save-inputs` wrote for
the function of mxfp8train-rewrite-matmuls-grouped-numerics.mlir:
inputs/0_x.npy (T, K), inputs/1_w.npy (E, N, K), inputs/2_dO_in.npy (T, N)
and the results fwd, dgrad, wgrad (.original.npy and .converted.npy). OFFS
are the token-group ends; dO is dO_in with the rows of the last group scaled
by 2^-16, as the test function does.

The model quantizes with RCEIL in numpy (amax in fp32, descale fp32,
ceil to an e8m0 byte, fp32 scaling, e4m3 round-to-nearest-even with
saturation), dequantizes exactly, multiplies in float64 and rounds to bf16:
  fwd   = x[m] @ W[g]^T       x along K, W along K
  dgrad = dO[m] @ W[g]        dO along N, W along N (32x1 of the 3-D weight)
  wgrad = dO[g]^T @ x[g]      dO and x along the tokens, 32-token blocks
                              starting at each group start (padded groups)
Each converted result must equal the model up to the fp32 accumulation
order: at least 99% of the elements bit-equal and none off by more than one
bf16 ulp. As a control, the wgrad model with 32-token blocks of the whole
(unpadded) token dimension must differ from the converted result. The
original results are checked against the high-precision float64 model the
same way.
"""

import sys

import numpy as np


def read_npy(path):
    return np.load(path)


def bf16_bits_to_f64(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def f64_to_bf16_bits(values):
    """Round to nearest even, through fp32 (finite values only)."""
    bits = values.astype(np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return rounded.astype(np.uint16)


def quantize_dequantize(values, axis):
    """RCEIL MX quantization of float64 `values` (exact bf16 data) in blocks
    of 32 along `axis`, returned dequantized (exact) in float64."""
    moved = np.moveaxis(values, axis, -1)
    shape = moved.shape
    blocks = moved.reshape(shape[:-1] + (shape[-1] // 32, 32)).astype(np.float32)
    amax = np.max(np.abs(blocks), axis=-1, keepdims=True).astype(np.float32)
    descale = (amax * np.float32(1.0 / 448.0)).astype(np.float32)
    dbits = descale.view(np.uint32)
    exp = (dbits >> 23) & 0xFF
    man = dbits & 0x7FFFFF
    up = np.where(exp == 0, man > 0x400000, man != 0)
    byte = exp.astype(np.int64) + up.astype(np.int64)
    assert np.all(byte < 255)
    rcp = np.ldexp(np.float32(1.0), (127 - byte).astype(np.int32)).astype(np.float32)
    scaled = (blocks * rcp).astype(np.float64)
    mag = np.abs(scaled)
    _, e2 = np.frexp(np.where(mag > 0, mag, 1.0))
    step = np.ldexp(1.0, np.maximum(e2 - 1, -6) - 3)
    q = np.minimum(np.round(mag / step) * step, 448.0) * np.sign(scaled)
    dq = q * np.ldexp(1.0, (byte - 127).astype(np.int32))
    return np.moveaxis(dq.reshape(shape), -1, axis)


def groups(offs):
    start = 0
    for end in offs:
        yield start, end
        start = end


def grouped_2d3d(a, w, offs, transpose_rhs):
    out = np.zeros((a.shape[0], w.shape[1] if transpose_rhs else w.shape[2]))
    for g, (s, e) in enumerate(groups(offs)):
        wg = w[g].T if transpose_rhs else w[g]
        out[s:e] = a[s:e] @ wg
    return out


def wgrad(do, x, offs, quant, padded):
    """dW[g] = do[g]^T @ x[g]; `quant` quantizes along the tokens, per padded
    group (`padded`) or over the whole token dimension."""
    e = len(offs)
    out = np.zeros((e, do.shape[1], x.shape[1]))
    if not padded and quant:
        rows = -(-do.shape[0] // 32) * 32
        dq = quantize_dequantize(np.pad(do, ((0, rows - do.shape[0]), (0, 0))), 0)
        xq = quantize_dequantize(np.pad(x, ((0, rows - x.shape[0]), (0, 0))), 0)
    for g, (s, t) in enumerate(groups(offs)):
        if t == s:
            continue
        if not quant:
            out[g] = do[s:t].T @ x[s:t]
        elif padded:
            n = -(-(t - s) // 32) * 32
            dg = quantize_dequantize(np.pad(do[s:t], ((0, n - (t - s)), (0, 0))), 0)
            xg = quantize_dequantize(np.pad(x[s:t], ((0, n - (t - s)), (0, 0))), 0)
            out[g] = dg.T @ xg
        else:
            out[g] = dq[s:t].T @ xq[s:t]
    return out


def compare(name, got_bits, model):
    want_bits = f64_to_bf16_bits(model)
    got = bf16_bits_to_f64(got_bits)
    want = bf16_bits_to_f64(want_bits)
    equal = np.mean(got_bits == want_bits)
    _, e2 = np.frexp(np.where(want != 0, np.abs(want), 1.0))
    ulp = np.ldexp(1.0, e2 - 8)
    worst = np.max(np.abs(got - want) / ulp)
    ok = equal >= 0.99 and worst <= 1.0
    print("%s: %.2f%% bit-equal, max %.2f ulp: %s" %
          (name, 100 * equal, worst, "OK" if ok else "MISMATCH"))
    return ok


def main(argv):
    out_dir, offs = argv[1], [int(v) for v in argv[2:]]
    x = bf16_bits_to_f64(read_npy(out_dir + "/inputs/0_x.npy"))
    w = bf16_bits_to_f64(read_npy(out_dir + "/inputs/1_w.npy"))
    do = bf16_bits_to_f64(read_npy(out_dir + "/inputs/2_dO_in.npy"))
    # As the test function does: the last group's rows times 2^-16 (exact).
    do[offs[-2]:] *= 2.0 ** -16
    res = {n: (read_npy("%s/%s.original.npy" % (out_dir, n)),
               read_npy("%s/%s.converted.npy" % (out_dir, n)))
           for n in ("fwd", "dgrad", "wgrad")}
    ok = True
    ok &= compare("fwd original", res["fwd"][0], grouped_2d3d(x, w, offs, True))
    ok &= compare("dgrad original", res["dgrad"][0], grouped_2d3d(do, w, offs, False))
    ok &= compare("wgrad original", res["wgrad"][0], wgrad(do, x, offs, False, False))
    ok &= compare("fwd converted", res["fwd"][1],
                  grouped_2d3d(quantize_dequantize(x, 1),
                               quantize_dequantize(w, 2), offs, True))
    ok &= compare("dgrad converted", res["dgrad"][1],
                  grouped_2d3d(quantize_dequantize(do, 1),
                               quantize_dequantize(w, 1), offs, False))
    ok &= compare("wgrad converted", res["wgrad"][1],
                  wgrad(do, x, offs, True, True))
    # Control: blocks straddling groups give different numbers.
    straddled = f64_to_bf16_bits(wgrad(do, x, offs, True, False))
    differ = int(np.sum(straddled != res["wgrad"][1]))
    print("control: unpadded wgrad model differs in %d elements: %s" %
          (differ, "OK" if differ > 0 else "NOT DISCRIMINATING"))
    ok &= differ > 0
    empty = [g for g, (s, t) in enumerate(groups(offs)) if s == t]
    for g in empty:
        zero = not np.any(res["wgrad"][1][g]) and not np.any(res["wgrad"][0][g])
        print("empty expert %d: wgrad %s" % (g, "zero" if zero else "NOT ZERO"))
        ok &= zero
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
