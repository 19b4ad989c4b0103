#!/usr/bin/env python3
"""Checks bench/aot/moe_exchange.mlir's result against an independent model.

Usage: check_moe_exchange.py SOURCE.mlir DIR

DIR holds what `mxfp8-launch --comm=single --save-inputs --output-dir=DIR`
wrote for @ep_one_rank: inputs/0_x.npy (T, K) and inputs/1_w.npy (E, N, K)
as bf16 bits, and sum.npy (T * topK, N) f32. The routing is the function's
constant (read from SOURCE). On one process the exchange only regroups the
rows, so row t * topK + j of the result is x[t] @ W[e]^T for e the expert
of token t's slot j, both operands MX-quantized along K (RCEIL; the model
of test/Dialect/MXFP8Train/Inputs/grouped_golden.py) and multiplied in
float64. The result, accumulated in f32 in some order, must be within a
relative 1e-5 of the model per row (its L2 norm) and give an SQNR of at
least 100 dB overall.
"""

import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "Dialect", "MXFP8Train",
                                "Inputs"))
from grouped_golden import bf16_bits_to_f64, quantize_dequantize  # noqa: E402


def main(argv):
    source, out = argv[1], argv[2]
    text = open(source).read()
    m = re.search(r"%route = arith.constant dense<(\[\[.*?\]\])> : tensor<(\d+)x(\d+)xi32>",
                  text)
    route = np.array(eval(m.group(1)), dtype=np.int64)
    x = bf16_bits_to_f64(np.load(os.path.join(out, "inputs", "0_x.npy")))
    w = bf16_bits_to_f64(np.load(os.path.join(out, "inputs", "1_w.npy")))
    got = np.load(os.path.join(out, "sum.npy")).astype(np.float64)
    xq = quantize_dequantize(x, 1)
    wq = quantize_dequantize(w, 2)
    tokens, topk = route.shape
    model = np.stack([xq[t] @ wq[route[t, j]].T
                      for t in range(tokens) for j in range(topk)])
    assert got.shape == model.shape, (got.shape, model.shape)
    err = np.linalg.norm(got - model, axis=1)
    ref = np.linalg.norm(model, axis=1)
    worst = float(np.max(err / ref))
    sqnr = 10 * np.log10(np.sum(model ** 2) / max(np.sum((got - model) ** 2), 1e-300))
    # A control: the same rows with the slots' experts rotated must differ.
    rotated = np.stack([xq[t] @ wq[(route[t, j] + 1) % w.shape[0]].T
                        for t in range(tokens) for j in range(topk)])
    control = float(np.max(np.linalg.norm(got - rotated, axis=1) / ref))
    print("moe exchange: %d rows, worst row error %.3g, SQNR %.1f dB, "
          "control (rotated experts) %.3g" % (len(got), worst, sqnr, control))
    ok = worst <= 1e-5 and sqnr >= 100 and control > 0.1
    print("moe exchange: %s" % ("ok" if ok else "MISMATCH"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
