#!/usr/bin/env python3
# ===- quantize_peer.py - copy bandwidth and torch.compile'd MX quantize --=== #
#
# Runs on the GPU machine (torch there, no torchao). Measures, in one process:
#   * a device-to-device copy of the benchmark tensor (bytes read + written),
#     the bandwidth ceiling the quantize kernels are judged against;
#   * torchao's reference MX quantization (`to_mx`, SPEC §2: amax per 32
#     elements, RCEIL or FLOOR e8m0 scale computed in fp32, scaled cast to
#     float8_e4m3fn with saturation) written in plain torch ops and compiled
#     with torch.compile, for 1x32 ("dim0"), 32x1 ("dim1": torchao transposes
#     and makes the tensor contiguous first) and both;
# and prints one JSON line per measurement. Times are medians of
# triton.testing.do_bench (CUDA events).
#
# With --ours PATH (the --json output of `scripts/gpu-check.py run` of the
# same run), it then prints our kernels beside torch.compile for this shape:
# ms, GB/s, fraction of gpu-check's device copy, and the speedup.
#
# Usage: python3 bench/quantize_peer.py [--rows 16384] [--cols 8192]
#                                       [--ours ours.jsonl]
#
# ===----------------------------------------------------------------------=== #
import argparse
import json

import torch
from triton.testing import do_bench


def scale_bytes(amax, mode):
    """e8m0 scale byte of fp32 amax (>= 0 or NaN), SPEC §2.2 / §2.3."""
    if mode == "rceil":
        d = (amax * torch.tensor(1.0 / 448.0, dtype=torch.float32)).view(torch.int32)
        e = (d >> 23) & 0xFF
        m = d & 0x7FFFFF
        up = torch.where(e == 0, m > 0x400000, m != 0).to(torch.int32)
        return torch.where(e == 255, 255, e + up)
    bits = amax.view(torch.int32)
    e = (bits >> 23) & 0xFF
    return torch.where(e == 255, 255, torch.clamp(e - 8, min=0))


def to_mx_last_dim(x, mode):
    """torchao to_mx along the last dim: (fp8 data, uint8 scales)."""
    xb = x.reshape(*x.shape[:-1], x.shape[-1] // 32, 32).float()
    amax = torch.amax(torch.abs(xb), dim=-1, keepdim=True)
    byte = scale_bytes(amax, mode)
    r = 254 - byte
    rcp = torch.where(r == 0, 0x00400000, r << 23).view(torch.float32)
    rcp = torch.where(byte == 255, torch.nan, rcp)
    q = torch.clamp(xb * rcp, -448.0, 448.0).to(torch.float8_e4m3fn)
    return q.reshape(x.shape), byte.to(torch.uint8).reshape(*x.shape[:-1], -1)


def dim1(x, mode):
    # torchao's reference dim1 cast: transpose, make contiguous, cast along
    # the (new) last dim.
    return to_mx_last_dim(x.t().contiguous(), mode)


def both(x, mode):
    return to_mx_last_dim(x, mode), dim1(x, mode)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rows", type=int, default=16384)
    p.add_argument("--cols", type=int, default=8192)
    p.add_argument("--ours", metavar="PATH",
                   help="gpu-check.py run --json output of the same run")
    args = p.parse_args()
    torch.manual_seed(0)
    x = torch.randn(args.rows, args.cols, device="cuda", dtype=torch.bfloat16)
    n = x.numel()
    copy_dst = torch.empty_like(x)
    ms = do_bench(lambda: copy_dst.copy_(x), warmup=50, rep=400, return_mode="median")
    copy_gbs = 2 * x.nbytes / ms / 1e6
    print(json.dumps({"what": "copy", "ms": ms, "GB/s": copy_gbs}))
    # bytes: bf16 read (2/elem) + fp8 written (1/elem) + scales (1/32 per elem)
    one = 2 * n + n + n // 32
    peers = {}
    for mode in ("floor", "rceil"):
        for name, fn, nbytes in (
            ("1x32", to_mx_last_dim, one),
            ("32x1", dim1, one),
            ("dual", both, 2 * n + 2 * (n + n // 32)),
        ):
            f = torch.compile(lambda t, fn=fn, mode=mode: fn(t, mode))
            f(x)
            ms = do_bench(lambda: f(x), warmup=50, rep=400, return_mode="median")
            gbs = nbytes / ms / 1e6
            peers[name, mode] = ms
            print(json.dumps({"what": "torch.compile", "cast": name, "mode": mode,
                              "ms": ms, "GB/s": gbs, "of_copy": gbs / copy_gbs}))
    if args.ours:
        compare(args, peers, copy_gbs, {"1x32": one, "32x1": one,
                                        "dual": 2 * n + 2 * (n + n // 32)})


def compare(args, peers, torch_copy_gbs, nbytes):
    """Our kernels (gpu-check.py's timings of this run) beside torch.compile."""
    records = [json.loads(line) for line in open(args.ours) if line.strip()]
    copy = next(r for r in records if r["what"] == "copy")
    ours = {r["name"]: r for r in records if r["what"] == "kernel"}
    print("\n%d x %d bf16 -> e4m3; copy %.0f GB/s (gpu-check, 1 GiB) / %.0f GB/s "
          "(torch, this tensor)" % (args.rows, args.cols, copy["gbs"], torch_copy_gbs))
    print("%-5s %-6s %9s %9s %8s %10s %10s %9s" % (
        "cast", "mode", "ours ms", "GB/s", "of copy", "torch ms", "of copy", "speedup"))
    for mode in ("floor", "rceil"):
        for cast in ("1x32", "32x1", "dual"):
            r = ours.get("quantize_%s_bf16_%s_%dx%d" % (cast, mode, args.rows, args.cols))
            if r is None:
                continue
            t_ms = peers[cast, mode]
            t_gbs = nbytes[cast] / t_ms / 1e6
            print("%-5s %-6s %9.3f %9.0f %8.3f %10.3f %10.3f %8.2fx" % (
                cast, mode, r["ms"], r["gbs"], r["of_copy"], t_ms,
                t_gbs / copy["gbs"], t_ms / r["ms"]))
            print(json.dumps({"what": "compare", "cast": cast, "mode": mode,
                              "ours_ms": r["ms"], "ours_GB/s": r["gbs"],
                              "ours_of_copy": r["of_copy"], "torch_ms": t_ms,
                              "torch_of_copy": t_gbs / copy["gbs"],
                              "speedup": t_ms / r["ms"]}))


if __name__ == "__main__":
    main()
