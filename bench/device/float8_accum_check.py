#!/usr/bin/env python3
# ===- bench/device/float8_accum_check.py - torch's Float8 GEMM on our cases -=== #
#
# Runs the dense Float8 GEMM cases of a prepared gpu-check folder
# (scripts/gpu-check.py prepare: f8_* cases, inputs in0..in4.npy, float64
# reference ref/r0.npy) through torch._scaled_mm with use_fast_accum=True
# and False, and applies the same SPEC-float8 §5.4 tolerance as
# gpu-check.py run does for our kernel. It answers whether elements outside
# the tolerance come from fp8 tensor-core accumulation (torch's fast path
# shows them too) or from our kernel.
#
# torch._scaled_mm takes the reciprocals RN_f32(1/s) of our multipliers s;
# a tensorwise scale next to a rowwise one is broadcast to a row (torchao
# preprocess_addmm, SPEC-float8 §3.2); rowwise needs bf16 output, so the
# f32-output rowwise cases are skipped; a bias torch does not take (f32
# with f32 output) is added after the GEMM in f32.
#
#   float8_accum_check.py GPUCHECK_DIR
#
# ===----------------------------------------------------------------------=== #

import json
import os
import sys

import numpy as np
import torch

FP8 = {"f8E4M3FN": torch.float8_e4m3fn, "f8E5M2": torch.float8_e5m2}


def bf16_bits_to_f64(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def main():
    folder = sys.argv[1]
    manifest = json.load(open(os.path.join(folder, "manifest.json")))
    for case in manifest["cases"]:
        name = case["name"]
        if not name.startswith("f8_") or len(case["inputs"]) < 4 or \
                case["inputs"][4:5] and case["inputs"][4]["elem"] == "i32":
            continue
        cdir = os.path.join(folder, name)
        ins = [np.load(os.path.join(cdir, "in%d.npy" % i))
               for i in range(len(case["inputs"]))]
        spec = case["inputs"]
        a = torch.from_numpy(ins[0]).cuda().view(FP8[spec[0]["elem"]])
        b = torch.from_numpy(ins[2]).cuda().view(FP8[spec[2]["elem"]])
        m, n = a.shape[0], b.shape[0]
        ia = torch.from_numpy(ins[1]).cuda().reciprocal()
        ib = torch.from_numpy(ins[3]).cuda().reciprocal()
        if ia.dim() != ib.dim():  # mixed: broadcast the tensorwise one
            ia = ia.reshape(1, 1).expand(m, 1).contiguous() if ia.dim() == 0 else ia
            ib = ib.reshape(1, 1).expand(n, 1).contiguous() if ib.dim() == 0 else ib
        if ib.dim() == 2:
            ib = ib.reshape(1, n)
        out_elem = case["outputs"][0]["elem"]
        out_dtype = torch.bfloat16 if out_elem == "bf16" else torch.float32
        if ia.dim() == 2 and out_dtype != torch.bfloat16:
            print(json.dumps({"case": name, "skip": "rowwise needs bf16 out"}))
            continue
        bias, bias_after = None, None
        if len(ins) > 4:
            if spec[4]["elem"] == "bf16":
                bias = torch.from_numpy(ins[4].view(np.int16)).cuda().view(torch.bfloat16)
            else:
                bias_after = torch.from_numpy(ins[4]).cuda()
        ref = np.load(os.path.join(cdir, "ref", "r0.npy"))
        tol = case["tolerance"]
        line = {"case": name, "tolerance": tol}
        for fast in (True, False):
            try:
                out = torch._scaled_mm(a, b.t(), ia, ib, bias=bias,
                                       out_dtype=out_dtype, use_fast_accum=fast)
                if bias_after is not None:
                    out = out + bias_after
                got = out.float().cpu().numpy().astype(np.float64)
                err = np.abs(got - ref)
                bad = ~(err <= tol + tol * np.abs(ref))
                line["fast" if fast else "slow"] = {
                    "outside": int(bad.sum()), "of": int(bad.size),
                    "max_err": float(err.max())}
            except Exception as e:  # noqa: BLE001
                line["fast" if fast else "slow"] = {"error": str(e)[:200]}
        print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
