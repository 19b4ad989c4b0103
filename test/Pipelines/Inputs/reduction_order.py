"""Inputs and references of test/Pipelines/cpu-long-reductions.mlir.

  reduction_order.py make OUT.npy ROWS COLS SEED
      writes an f32 (ROWS, COLS) tensor of normal values with magnitudes
      spread over 2^-11 .. 2^11 (so that the order of a sum changes its
      bits);
  reduction_order.py check IN.npy RESULT.npy ORDER
      checks that RESULT (a 0-d f32) is, bit for bit, the f32 sum of IN's
      elements in ORDER, and that the other orders give other bits (so that
      the check can fail):
        rows   added one at a time from 0 in row-major order;
        cols   the same in column-major order;
        split  the schedule of include/mxfp8train/Conversion/Utils/
               SplitReductions.h on the row-major elements: S partial sums
               (partial s adds elements s, s + S, ... in order from 0), S
               the largest divisor of R with S <= 2^18 and R / S >= 16 when
               R >= 1024, the partials summed the same way, recursively.
"""
import sys

import numpy as np

TARGET_THREADS, MIN_PER_THREAD, MIN_EXTENT = 1 << 18, 16, 1024


def sequential(values):
    acc = np.float32(0)
    for v in values:
        acc = np.float32(acc + v)
    return acc


def split_ratio(extent, parallel=1):
    if extent < MIN_EXTENT:
        return 1
    for s in range(min(TARGET_THREADS // parallel, extent // MIN_PER_THREAD), 1, -1):
        if extent % s == 0:
            return s
    return 1


def split(values):
    s = split_ratio(len(values))
    if s <= 1:
        return sequential(values)
    partials = np.zeros(s, dtype=np.float32)
    for step in values.reshape(-1, s):
        partials = (partials + step).astype(np.float32)
    return split(partials)


def main():
    if sys.argv[1] == "make":
        out, rows, cols, seed = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
        rng = np.random.default_rng(seed)
        x = rng.standard_normal((rows, cols)) * np.exp2(rng.uniform(-11, 11, (rows, cols)))
        np.save(out, x.astype(np.float32))
        return 0
    x, r, order = np.load(sys.argv[2]), np.load(sys.argv[3]), sys.argv[4]
    sums = {"rows": sequential(x.reshape(-1)), "cols": sequential(x.T.reshape(-1)),
            "split": split(x.reshape(-1))}
    got = np.float32(r.reshape(()))
    print("result %r; %s; float64 %r" % (
        float(got), ", ".join("%s %r" % (k, float(v)) for k, v in sums.items()),
        float(np.sum(x, dtype=np.float64))))
    if got.view(np.uint32) != sums[order].view(np.uint32):
        print("FAIL: not the %s order" % order)
        return 1
    others = [k for k, v in sums.items() if k != order and v.view(np.uint32) == got.view(np.uint32)]
    if others:
        print("FAIL: the %s order gives the same bits; choose other inputs" % " and ".join(others))
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
