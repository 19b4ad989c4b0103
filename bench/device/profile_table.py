#!/usr/bin/env python3
# ===- bench/device/profile_table.py - print mxfp8-launch profile reports --=== #
#
#   profile_table.py [--top N] REPORT.json...
#
# Prints, for each JSON report of `mxfp8-launch --profile-json` (one
# profiled call of a step; families from mxfp8train/Support/KernelFamily.h,
# carried in the report), the per-family table and the N (default 10)
# largest kernels, with milliseconds and their share of the profiled step
# (CUDA events around the whole call). Used by bench/device/step-bench.sh.
#
# ===----------------------------------------------------------------------=== #
import argparse
import json
import os


def share(ms, step):
    return "%.1f%%" % (100.0 * ms / step) if step > 0 else "-"


def print_report(path, top):
    r = json.load(open(path))
    step = r["step_ms"]
    name = os.path.basename(path)
    for suffix in (".profile.json", ".json"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
            break
    print("== profile of %s (@%s): profiled call %.3f ms (median of the timed "
          "calls %.3f ms), %.3f ms of it in timed launches, fills and copies"
          % (name, r["entry"], step, r["median_ms"], r["timed_ms"]))
    print("%-14s %9s %8s %11s %8s" % ("family", "launches", "kernels", "ms", "share"))
    for f in r["families"]:
        if f["launches"] == 0:
            continue
        print("%-14s %9d %8d %11.3f %8s" % (f["family"], f["launches"], f["kernels"],
                                          f["total_ms"], share(f["total_ms"], step)))
    gap = step - r["timed_ms"]
    print("%-14s %9s %8s %11.3f %8s" % ("(none)", "-", "-", gap, share(gap, step)))
    c = r["counters"]
    print("counters: %d launches, %d fills, %d copies, %d allocations (pool %d: %d hits, "
          "%d misses), %d frees (cuMemFree %d), %d host synchronizations"
          % (c["launches"], c["memsets"], c["memcpys"], c["allocations"],
             c["pool_allocations"], c["pool_hits"], c["pool_misses"], c["frees"],
             c["device_frees"], c["host_synchronizations"]))
    print("top %d kernels:" % top)
    print("%3s %-64s %-12s %8s %10s %9s %8s" % ("#", "kernel", "family", "launches", "ms",
                                               "mean ms", "share"))
    for i, k in enumerate(r["kernels"][:top]):
        print("%3d %-64s %-12s %8d %10.3f %9.4f %8s" % (
            i + 1, k["name"][:64], k["family"], k["launches"], k["total_ms"],
            k["mean_ms"], share(k["total_ms"], step)))
    print()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--top", type=int, default=10)
    parser.add_argument("reports", nargs="+")
    args = parser.parse_args()
    for path in args.reports:
        print_report(path, args.top)


if __name__ == "__main__":
    main()
