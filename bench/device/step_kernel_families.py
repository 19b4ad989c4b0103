"""Kernel families of a step, from an ncu CSV of gpu__time_duration.sum.

Usage: step_kernel_families.py NCU_CSV --calls=N
The CSV holds N calls of the same step; the last call's kernels (the last
1/N of the rows) are summarised: per family (the name prefixes below) and
the 15 longest kernels, in ms and as a share of the kernel time.
"""

import argparse
import collections
import csv
import io
import sys

# Kernel-name prefix -> family; first match wins (most specific first).
FAMILIES = [
    ("gemm_dequant_", "dequantize pre-pass"),
    ("gemm_", "GEMM"),
    ("scaled_mm_", "GEMM"),
    ("scaled_gmm_", "GEMM"),
    ("simple_", "GEMM (simple kernel)"),
    ("quantize", "quantize"),
    ("mx_quantize", "quantize"),
    ("dequantize", "dequantize"),
    ("to_blocked", "scale layout"),
    ("pad_token_groups", "token-group padding"),
    ("unpad_token_groups", "token-group padding"),
]


def family(name):
    for prefix, fam in FAMILIES:
        if name.startswith(prefix):
            return fam
    return "other (generic linalg kernels)"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--calls", type=int, default=1)
    args = ap.parse_args()
    text = open(args.csv, encoding="utf-8", errors="replace").read()
    start = text.find('"ID"')
    if start < 0:
        print("no ncu rows in", args.csv)
        return 1
    rows = [r for r in csv.DictReader(io.StringIO(text[start:]))
            if r.get("Metric Name") == "gpu__time_duration.sum"]
    per_call = len(rows) // max(args.calls, 1)
    rows = rows[len(rows) - per_call:]
    total = 0.0
    fam = collections.defaultdict(lambda: [0, 0.0])
    kernels = []
    for r in rows:
        name = r["Kernel Name"].split("(")[0]
        ns = float(r["Metric Value"].replace(",", ""))
        ms = ns / 1e6
        total += ms
        fam[family(name)][0] += 1
        fam[family(name)][1] += ms
        kernels.append((ms, name, r.get("Grid Size", ""), r.get("Block Size", "")))
    print(f"  {per_call} kernels, {total:.3f} ms of kernel time")
    print(f"  {'family':34s} {'launches':>8s} {'ms':>9s} {'share':>6s}")
    for f, (n, ms) in sorted(fam.items(), key=lambda kv: -kv[1][1]):
        print(f"  {f:34s} {n:8d} {ms:9.3f} {100 * ms / total:5.1f}%")
    print("  longest kernels:")
    for ms, name, grid, block in sorted(kernels, reverse=True)[:15]:
        print(f"  {ms:9.3f} ms  {name[:90]}  grid {grid} block {block}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
