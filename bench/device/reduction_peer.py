#!/usr/bin/env python3
# ===- bench/device/reduction_peer.py - torch's reductions, same shapes ----===#
#
# Usage (GPU machine, torch): python3 bench/device/reduction_peer.py [--reps N]
#
# Times what a torch user writes for the reductions of bench/aot/reductions.mlir
# (the AOT checks `reduce_*`, which run-aot-checks.sh times on the same GPU):
# the MSE loss sum((y - t)^2) of (4096, 4096) f32, the squared norm
# torch.dot(g, g) of 2^24 f32, the f32 column sums of a (16384, 4096) bf16
# tensor (a bias gradient: g.sum(0, dtype=torch.float32)), the max of each of
# 8 rows of 2^16 bf16; eager and torch.compile. CUDA events around each
# call, median of N after 3 warm-up calls; one line per case.
#
# ===----------------------------------------------------------------------===#
import argparse
import statistics

import torch


def time_ms(fn, args, reps):
    for _ in range(3):
        fn(*args)
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn(*args)
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=20)
    args = parser.parse_args()
    dev = torch.device("cuda")
    g = torch.Generator(device=dev).manual_seed(0)
    cases = {
        "mse_loss": (lambda y, t: ((y - t) ** 2).sum(),
                     (torch.randn(4096, 4096, device=dev, generator=g),
                      torch.randn(4096, 4096, device=dev, generator=g))),
        "norm_sq": (lambda x: torch.dot(x, x),
                    (torch.randn(1 << 24, device=dev, generator=g),)),
        "column_sums": (lambda x: x.sum(0, dtype=torch.float32),
                        (torch.randn(16384, 4096, device=dev, generator=g).bfloat16(),)),
        "row_max": (lambda x: x.amax(1),
                    (torch.randn(8, 1 << 16, device=dev, generator=g).bfloat16(),)),
    }
    print("%-14s %12s %12s" % ("case", "eager ms", "compile ms"))
    for name, (fn, inputs) in cases.items():
        eager = time_ms(fn, inputs, args.reps)
        compiled = time_ms(torch.compile(fn), inputs, args.reps)
        print("%-14s %12.4f %12.4f" % (name, eager, compiled))


if __name__ == "__main__":
    main()
