# ===- signed_zeros.py - inputs and values of expand-arith.mlir -----------=== #
"""write DIR: a.npy, b.npy, every ordered pair of {+0, -0, 1, -1, NaN, +inf,
-inf} (49 elements, f32).
check DIR OUT: the results of @extrema or @extrema_narrow in OUT against the
ops' definitions (arith.maximumf / minimumf: -0 < +0, NaN when either
operand is NaN; `math.clampf %x to [%min, %max]` as MathOps.td defines it,
maximumf(minimumf(x, min), max)), bit for bit
(any NaN matches a NaN)."""
import math
import os
import sys

import numpy as np

VALUES = [0.0, -0.0, 1.0, -1.0, math.nan, math.inf, -math.inf]


def maximumf(x, y):
    if math.isnan(x) or math.isnan(y):
        return math.nan
    if x == y:  # +0 and -0: +0 unless both are -0
        return x if not math.copysign(1.0, x) < 0 else y
    return max(x, y)


def minimumf(x, y):
    if math.isnan(x) or math.isnan(y):
        return math.nan
    if x == y:
        return x if math.copysign(1.0, x) < 0 else y
    return min(x, y)


def same(got, ref):
    got = np.asarray(got, np.float64)
    ref = np.asarray(ref, np.float64)
    nan = np.isnan(ref)
    return bool((np.isnan(got) == nan).all() and (got[~nan] == ref[~nan]).all()
                and (np.signbit(got[~nan]) == np.signbit(ref[~nan])).all())


def load(path):
    a = np.load(path)
    if a.dtype == np.uint16:  # bf16 bits
        return (a.astype(np.uint32) << 16).view(np.float32)
    return a


def main():
    d = sys.argv[2]
    if sys.argv[1] == "write":
        a = np.array([x for x in VALUES for _ in VALUES], np.float32)
        b = np.array([y for _ in VALUES for y in VALUES], np.float32)
        np.save(os.path.join(d, "a.npy"), a)
        np.save(os.path.join(d, "b.npy"), b)
        return
    out = sys.argv[3]
    a = np.load(os.path.join(d, "a.npy")).astype(np.float64)
    b = np.load(os.path.join(d, "b.npy")).astype(np.float64)
    mx = [maximumf(x, y) for x, y in zip(a, b)]
    mn = [minimumf(x, y) for x, y in zip(a, b)]
    if os.path.exists(os.path.join(out, "max.npy")):
        clamp = [maximumf(minimumf(x, y), 0.0) for x, y in zip(a, b)]
        print("maximumf f32", same(load(os.path.join(out, "max.npy")), mx),
              "minimumf f32", same(load(os.path.join(out, "min.npy")), mn),
              "maximumf f64", same(load(os.path.join(out, "max64.npy")), mx),
              "minimumf f64", same(load(os.path.join(out, "min64.npy")), mn),
              "clampf f32", same(load(os.path.join(out, "clamp.npy")), clamp))
    else:
        print("maximumf bf16", same(load(os.path.join(out, "maxb.npy")), mx),
              "minimumf bf16", same(load(os.path.join(out, "minb.npy")), mn),
              "maximumf f16", same(load(os.path.join(out, "maxh.npy")), mx),
              "minimumf f16", same(load(os.path.join(out, "minh.npy")), mn))


if __name__ == "__main__":
    main()
