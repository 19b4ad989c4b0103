"""Inputs and checks of test/Pipelines/math-ops.mlir.

`inputs DIR` writes the .npy arguments; `check DIR` compares mxfp8-run's
results with Python references and prints one line per function.
"""

import math
import os
import sys

import numpy as np

BASES = [0, 1, -1, 2, -2, 3, -3, 5, -7, 10, 123, -1000, 65537, 2**20 + 3,
         -(2**30) + 7, 2**31 - 1, -(2**31)]
EXPONENTS = list(range(-4, 41)) + [62, 63, 64, 1000, 2**31 - 1, -(2**31)] + [
    -100, -7, -(2**20), 2**40 + 3, -(2**40) - 1]
SPECIAL = [0.0, -0.0, 1e-40, 1.17549435e-38, math.inf, -math.inf, math.nan,
           -5.0]


def pairs():
    """Every (base, exponent) pair but zero to a negative power (a division
    by zero in math.ipowi's definition)."""
    return [(b, e) for b in BASES for e in EXPONENTS if not (b == 0 and e < 0)]


def ipowi(base, exponent, bits):
    """math.ipowi: base^exponent modulo 2^bits as a signed value."""
    if exponent < 0:
        if base == 1:
            return 1
        if base == -1:
            return -1 if exponent % 2 else 1
        return 0
    value = pow(base, exponent, 2**bits)
    return value - 2**bits if value >= 2**(bits - 1) else value


def ulps(got, want, dtype):
    """Distance in units in the last place of `dtype` at `want`."""
    spacing = np.spacing(np.abs(want).astype(dtype)).astype(np.float64)
    return np.abs(got.astype(np.float64) - want) / spacing


def write_inputs(directory):
    p = pairs()
    for bits, dtype in ((32, np.int32), (64, np.int64)):
        info = np.iinfo(dtype)
        base = np.array([b for b, _ in p], dtype=np.int64)
        # i32: the i64-only exponents saturate to the type's range.
        exponent = np.clip([e for _, e in p], info.min, info.max)
        np.save(os.path.join(directory, f"b{bits}.npy"), base.astype(dtype))
        np.save(os.path.join(directory, f"e{bits}.npy"),
                exponent.astype(dtype))
    np.save(os.path.join(directory, "special.npy"),
            np.array(SPECIAL, dtype=np.float32))
    x = np.arange(64, dtype=np.float32) / 64 * 6 - 3
    rng = np.random.default_rng(0)
    bits = rng.integers(-(2**31), 2**31, 64, dtype=np.int64)
    bits[:6] = [0, 1, -1, 2**31 - 1, -(2**31), 1 << 20]
    np.save(os.path.join(directory, "bits.npy"), bits.astype(np.int32))
    np.save(os.path.join(directory, "x.npy"), x)
    # bf16 inputs as uint16 bit patterns (mxfp8-run's .npy form of bf16).
    bits16 = (x.view(np.uint32) >> 16).astype(np.uint16)
    np.save(os.path.join(directory, "xbf16.npy"), bits16)


def bf16_to_f32(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def check(directory):
    def load(name):
        return np.load(os.path.join(directory, name))

    for bits in (32, 64):
        base, exponent = load(f"b{bits}.npy"), load(f"e{bits}.npy")
        got = load(f"i{bits}/r.npy")
        want = [ipowi(int(b), int(e), bits) for b, e in zip(base, exponent)]
        bad = sum(int(g) != w for g, w in zip(got, want))
        print(f"ipowi_i{bits} mismatches {bad} of {len(want)}")

    x = np.array(SPECIAL, dtype=np.float32)
    finite = np.isfinite(x)
    normal = finite & (np.abs(x) >= np.finfo(np.float32).tiny)
    small = np.where(finite, x, 0).astype(np.float64)
    # math.clampf's definition (MathOps.td): maximumf(minimumf(x, min), max),
    # which is `max` for every non-NaN x when min < max.
    want = [np.isinf(x), normal, finite, np.maximum(np.minimum(x, -2), 3),
            np.sin(small) + np.cos(small)]
    bad = 0
    for index, expected in enumerate(want):
        got = load(f"classify/r_{index}.npy")
        if index < 3:
            bad += int((got != expected.astype(np.float32)).sum())
        elif index == 3:  # NaN stays NaN (arith.minimumf / maximumf)
            bad += int((~((got == expected) | (np.isnan(got) &
                                                np.isnan(expected)))).sum())
        else:
            bad += int((ulps(got, expected, np.float32) > 2).sum())
    print(f"classify mismatches {bad} of {len(x) * len(want)}")

    x64 = load("x.npy").astype(np.float64)
    references = [np.arccosh(1 + x64 * x64), np.arcsinh(x64),
                  np.arctanh(x64 / 4), np.cbrt(x64),
                  np.array([math.erf(v) for v in x64]),
                  np.array([math.erfc(v) for v in x64])]
    worst = 0.0
    for index, reference in enumerate(references):
        got = load(f"libm/r_{index}.npy")
        nonzero = reference != 0
        worst = max(worst, float(ulps(got[nonzero], reference[nonzero],
                                      np.float32).max()))
    print(f"libm_f32 worst ulp {math.ceil(worst)}")

    xb = bf16_to_f32(load("xbf16.npy")).astype(np.float64)
    got = bf16_to_f32(load("libm_bf16/r.npy")).astype(np.float64)
    reference = np.array([math.erf(v) for v in xb])
    # One rounding of an f32 result to bf16: within one bf16 ulp (2^-7
    # relative) of the exact value.
    nonzero = reference != 0
    error = np.abs(got[nonzero] - reference[nonzero]) / (
        np.abs(reference[nonzero]) * 2.0**-7)
    print(f"libm_bf16 worst ulp {math.ceil(float(error.max()))}")
    check_bits(directory)
    worst = 0.0
    for index, fn in enumerate((np.sin, np.cos)):
        got = load(f"sincos/r_{index}.npy")
        reference = np.broadcast_to(fn(x64), got.shape)
        worst = max(worst, float(ulps(got, reference, np.float32).max()))
    print(f"sincos_rows worst ulp {math.ceil(worst)}")
    small = (load("x.npy") * np.float32(1e-6)).astype(np.float64)
    worst = 0.0
    for index, fn in enumerate((np.expm1, np.log1p)):
        got = load(f"small/r_{index}.npy")
        reference = fn(small)
        nonzero = reference != 0
        worst = max(worst, float(ulps(got[nonzero], reference[nonzero],
                                      np.float32).max()))
    print(f"small_x worst ulp {math.ceil(worst)}")


def check_bits(directory):
    words = [int(v) & 0xFFFFFFFF for v in
             np.load(os.path.join(directory, "bits.npy"))]
    x = np.load(os.path.join(directory, "x.npy"))
    want = [[32 - w.bit_length() for w in words],
            [(w & -w).bit_length() - 1 if w else 32 for w in words],
            [bin(w).count("1") for w in words], np.trunc(x)]
    bad = 0
    for index, expected in enumerate(want):
        got = np.load(os.path.join(directory, f"bits/r_{index}.npy"))
        bad += int((got != np.array(expected, dtype=got.dtype)).sum())
    print(f"bits mismatches {bad} of {4 * len(words)}")


if __name__ == "__main__":
    {"inputs": write_inputs, "check": check}[sys.argv[1]](sys.argv[2])
