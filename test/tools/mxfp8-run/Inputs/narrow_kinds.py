# ===- narrow_kinds.py - inputs and values of narrow-kinds.mlir -----------=== #
"""write DIR [--odd-bools]: .npy inputs of @narrow (float16, bool, int8,
int16; with --odd-bools the true bytes of the bool input are 2, 254, 255
or 1, which numpy reads as true).
check INPUTS RESULTS: @narrow's results against numpy, from the inputs in
INPUTS (mxfp8-run's --save-inputs names, or write's)."""
import os
import sys

import numpy as np


def load_inputs(d):
    names = sorted(os.listdir(d))
    if "h.npy" in names:
        return [np.load(os.path.join(d, n + ".npy")) for n in ("h", "b", "c", "s")]
    by_index = sorted(names, key=lambda n: int(n.split("_")[0]))
    return [np.load(os.path.join(d, n)) for n in by_index]


def main():
    if sys.argv[1] == "write":
        d = sys.argv[2]
        os.makedirs(d, exist_ok=True)
        rng = np.random.default_rng(34)
        np.save(os.path.join(d, "h.npy"), (rng.standard_normal((4, 8)) * 100).astype(np.float16))
        b = rng.standard_normal((4, 8)) > 0
        if len(sys.argv) > 3 and sys.argv[3] == "--odd-bools":
            # bool bytes other than 0 and 1 (numpy: nonzero is true): 2, 254, 255.
            raw = b.view(np.uint8).copy()
            raw[raw == 1] = np.resize(np.array([2, 254, 255, 1], np.uint8), int((raw == 1).sum()))
            b = raw.view(np.bool_)
        np.save(os.path.join(d, "b.npy"), b)
        np.save(os.path.join(d, "c.npy"), rng.integers(-128, 128, (4, 8)).astype(np.int8))
        np.save(os.path.join(d, "s.npy"), rng.integers(-32768, 32768, (4, 8)).astype(np.int16))
        return
    h, b, c, s = load_inputs(sys.argv[2])
    out = sys.argv[3]
    r = {n: np.load(os.path.join(out, n + ".npy")) for n in ("sel", "pos", "c2", "s2x", "w")}
    print("dtypes", h.dtype, b.dtype, c.dtype, s.dtype, "->",
          " ".join(str(r[n].dtype) for n in ("sel", "pos", "c2", "s2x", "w")))
    with np.errstate(over="ignore"):
        expected = {
            "sel": np.where(b, h, np.float16(0)),
            "pos": h > 0,
            "c2": (c.astype(np.int64) * 2).astype(np.int8),  # wraps
            "s2x": (s.astype(np.int64) - 60000).astype(np.int16),  # wraps
            "w": h.astype(np.float32),
        }
    print(" ".join("%s %s" % (n, bool(r[n].dtype == e.dtype and np.array_equal(r[n], e)))
                   for n, e in expected.items()))


if __name__ == "__main__":
    main()
