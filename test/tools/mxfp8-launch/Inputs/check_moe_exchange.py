#!/usr/bin/env python3
"""Checks bench/aot/moe_exchange.mlir's result against an independent model.

Usage: check_moe_exchange.py SOURCE.mlir DIR [RANKS]

Without RANKS: DIR holds what `mxfp8-launch --comm=single --save-inputs
--output-dir=DIR` wrote for @ep_one_rank: inputs/0_x.npy (T, K) and
inputs/1_w.npy (E, N, K) as bf16 bits, and sum.npy (T * topK, N) f32. The
routing is the function's constant (read from SOURCE). On one process the
exchange only regroups the rows, so row t * topK + j of the result is
x[t] @ W[e]^T for e the expert of token t's slot j, both operands
MX-quantized along K (RCEIL; the model of
test/Dialect/MXFP8Train/Inputs/grouped_golden.py) and multiplied in float64.

With RANKS: DIR holds what `mxfp8-launch --comm=ranks:RANKS --save-inputs
--output-dir=DIR` wrote for @ep_two_ranks: DIR/rank<r>/ with rank r's
tokens x_r, its local experts W_r (E / RANKS of them) and out.npy. Row
t * topK + j of rank r's result is x_r[t] @ W_p[e mod E_local]^T, p = e div
E_local the rank holding expert e: the tokens went to another process and
came back.

Each result, accumulated in f32 in some order, must be within a relative
1e-5 of the model per row (its L2 norm) and give an SQNR of at least 100 dB
overall; a control with the experts rotated must be far off.
"""

import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "Dialect", "MXFP8Train",
                                "Inputs"))
from grouped_golden import bf16_bits_to_f64, quantize_dequantize  # noqa: E402


def load(directory, name):
    return bf16_bits_to_f64(np.load(os.path.join(directory, "inputs", name)))


def check(name, got, route, xq, expert_weight, experts):
    """`got` against rows xq[t] @ expert_weight(e)^T; prints and returns ok."""
    tokens, topk = route.shape
    model = np.stack([xq[t] @ expert_weight(route[t, j]).T
                      for t in range(tokens) for j in range(topk)])
    assert got.shape == model.shape, (got.shape, model.shape)
    err = np.linalg.norm(got - model, axis=1)
    ref = np.linalg.norm(model, axis=1)
    worst = float(np.max(err / ref))
    sqnr = 10 * np.log10(np.sum(model ** 2) / max(np.sum((got - model) ** 2), 1e-300))
    # A control: the same rows with the slots' experts rotated must differ.
    rotated = np.stack([xq[t] @ expert_weight((route[t, j] + 1) % experts).T
                        for t in range(tokens) for j in range(topk)])
    control = float(np.max(np.linalg.norm(got - rotated, axis=1) / ref))
    print("moe exchange%s: %d rows, worst row error %.3g, SQNR %.1f dB, "
          "control (rotated experts) %.3g" % (name, len(got), worst, sqnr, control))
    return worst <= 1e-5 and sqnr >= 100 and control > 0.1


def main(argv):
    source, out = argv[1], argv[2]
    ranks = int(argv[3]) if len(argv) > 3 else 0
    text = open(source).read()
    entry = "ep_two_ranks" if ranks else "ep_one_rank"
    body = text[text.index("func.func @" + entry):]
    m = re.search(r"%route = arith.constant dense<(\[\[.*?\]\])> : tensor<(\d+)x(\d+)xi32>",
                  body)
    route = np.array(eval(m.group(1)), dtype=np.int64)
    ok = True
    if not ranks:
        xq = quantize_dequantize(load(out, "0_x.npy"), 1)
        wq = quantize_dequantize(load(out, "1_w.npy"), 2)
        got = np.load(os.path.join(out, "sum.npy")).astype(np.float64)
        ok = check("", got, route, xq, lambda e: wq[e], wq.shape[0])
    else:
        dirs = [os.path.join(out, "rank%d" % r) for r in range(ranks)]
        wq = [quantize_dequantize(load(d, "1_w.npy"), 2) for d in dirs]
        local = wq[0].shape[0]
        for r, d in enumerate(dirs):
            xq = quantize_dequantize(load(d, "0_x.npy"), 1)
            got = np.load(os.path.join(d, "out.npy")).astype(np.float64)
            ok &= check(" rank %d" % r, got, route, xq,
                        lambda e: wq[e // local][e % local], local * ranks)
        # The ranks had different tokens (seed + rank).
        ok &= not np.array_equal(load(dirs[0], "0_x.npy"), load(dirs[1], "0_x.npy"))
    print("moe exchange: %s" % ("ok" if ok else "MISMATCH"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
