#!/usr/bin/env python3
# ===- check-profile-json.py - a --profile-json report against its rules --=== #
#
#   check-profile-json.py REPORT.json FAMILY=LAUNCHES... [--top=N]
#
# Checks the JSON object mxfp8-launch --profile-json writes: every family of
# mxfp8train/Support/KernelFamily.h once, in order; every kernel of the
# pipeline in a named family (only the kernels outlined from linalg,
# `<function>_kernel[_<n>]`, are `other`); family sums equal to the sums of
# their kernels; the fake driver's 1 ms per timed operation (total = launches
# for every kernel); FAMILY=LAUNCHES: a family's launches (`FAMILY>0`: some).
# Prints "ok" and the family line, or the first violation (exit 1).
#
# ===----------------------------------------------------------------------=== #
import json
import re
import sys

FAMILIES = ["gemm", "dequant", "quantize", "layout", "token_groups", "memset",
            "memcpy", "elementwise", "other"]


def fail(message):
    print("check-profile-json: " + message)
    sys.exit(1)


def main():
    report = json.load(open(sys.argv[1]))
    names = [f["family"] for f in report["families"]]
    if names != FAMILIES:
        fail("families %s, expected %s" % (names, FAMILIES))
    sums = {name: [0, 0.0] for name in FAMILIES}
    for kernel in report["kernels"]:
        name, family = kernel["name"], kernel["family"]
        if family == "other" and not re.search(r"_kernel(_\d+)?$", name):
            fail("kernel %s is in no named family" % name)
        if kernel["total_ms"] != kernel["launches"] * 1.0:
            fail("kernel %s: %s ms for %d launches" % (name, kernel["total_ms"],
                                                       kernel["launches"]))
        sums[family][0] += kernel["launches"]
        sums[family][1] += kernel["total_ms"]
    for f in report["families"]:
        if [f["launches"], f["total_ms"]] != sums[f["family"]]:
            fail("family %s sums to %s, its kernels to %s" %
                 (f["family"], [f["launches"], f["total_ms"]], sums[f["family"]]))
    launches = {f["family"]: f["launches"] for f in report["families"]}
    for rule in sys.argv[2:]:
        family, op, value = re.match(r"(\w+)(=|>)(\d+)$", rule).groups()
        if (op == "=" and launches[family] != int(value)) or \
           (op == ">" and launches[family] <= int(value)):
            fail("family %s has %d launches, expected %s%s" %
                 (family, launches[family], op, value))
    counters = report["counters"]
    if counters["launches"] != sum(launches[f] for f in FAMILIES
                                   if f not in ("memset", "memcpy")):
        fail("counters.launches %d is not the kernel launches" % counters["launches"])
    print("ok: " + " ".join("%s=%d" % (f, launches[f]) for f in FAMILIES))


if __name__ == "__main__":
    main()
