#!/usr/bin/env python3
# ===- gpu-check.py - bit-exactness and bandwidth of the GPU kernels -------=== #
#
# Checks the kernels of convert-mxfp8train-to-gpu on a GPU against the CPU
# path, bit for bit, and times them. Two steps:
#
#   here (MLIR build, no GPU needed):
#     scripts/gpu-check.py prepare --build BUILD_DIR --out DIR [--chip sm_90a]
#   generates inputs with special values (NaN, Inf, subnormals, -0, the
#   SPEC §2.7 contract bit patterns, extreme block magnitudes, malformed
#   group offsets), runs every case on the CPU path (mxfp8-run) for the
#   expected outputs, and compiles every case with mxfp8train-lower-to-gpu
#   and scripts/aot-compile.sh into a shared library (host code + cubins).
#   It also writes the timing kernels' cubins and launch shapes.
#
#   on the GPU machine (numpy, CuPy; libmxfp8train_runtime.so from BUILD_DIR
#   copied into DIR by prepare):
#     scripts/gpu-check.py run DIR
#   calls each case's _mlir_ciface_case through the mgpu* runtime with
#   device buffers (outputs poisoned first), compares every output byte with
#   the CPU path, then times each timing kernel alone (CUDA events, median)
#   against a device-to-device copy and prints GB/s and the fraction
#   (--json PATH: also as JSON lines, which bench/quantize_peer.py --ours
#   reads; bench/device/quantize-bench.sh runs both in one call).
#
#   prepare --variant NAME --build OTHER_BUILD [--only KERNEL ...]
#   [--lowering-options "OPT=VAL ..."] adds another build's timing kernels
#   (or the same build's under other convert-mxfp8train-to-gpu options, e.g.
#   column-cast-lanes=4) to DIR as KERNEL.NAME (no cases), so that two
#   versions of a kernel are timed in the same run. Without --variant,
#   --lowering-options apply to the Float8 GEMM cases and their timing
#   cases (e.g. float8-promote-tile-n=160: checked and timed as lowered so).
#
#   The Float8 GEMM cases (`f8_*`, Float8 scaled_mm / scaled_grouped_mm:
#   sm_90a's native fp8 wgmma kernel, every operand layout of the recipes:
#   forward, dgrad and wgrad layouts, 2d-3d and 2d-2d) have no CPU path
#   yet: prepare computes their float64 reference from the dequantized
#   operands (q / s) and the magnitudes S = sum_k |a| |b|, and run accepts
#   them within SPEC-float8 §5.4's tolerance made magnitude-aware
#   (|gpu - ref| <= tol |ref| + max(tol, 2^-12 S), tol = 7e-2 for bf16
#   outputs, 3e-3 for f32; FLOAT8_ACCUM_BAR says why), every output
#   written. The GEMM timings (`f8_gemm_timing_*`: the Llama-3-8B W1 / W2
#   GEMMs at 16384 tokens in the forward, dgrad and wgrad layouts, rowwise
#   e4m3; `_kmajor` on K-major operands; `_tw` e5m2 x e4m3 tensorwise,
#   as float8_tensorwise's gradient GEMMs, `w1t` e4m3 x e5m2 for
#   dW = xT @ dO) call the whole case (transposes, launch and tensor-map
#   set-up) on
#   device-generated operands and print ms and TFLOP/s, next to
#   torch._scaled_mm of the same shape and recipe when torch is importable
#   there.
#
#   The Float8 cast cases (`f8q_*`, `f8dq_*`: Float8 quantize / dequantize,
#   tensorwise and axiswise; `f8grp_*`: the per-group (offs) casts) and
#   their timing rows come from scripts/gpu_check_float8.py; they are
#   bit-exact like the MX cases, with any f32 / bf16 NaN matching any NaN.
#
# Exit status of `run`: 0 when every case is bit-exact (Float8 GEMMs: within
# tolerance), 1 otherwise. On a
# GPU of another architecture than the prepared chip (an sm_100a folder on
# an H200) it prints `skip (needs sm_100, found sm_90)`, runs nothing and
# exits 0.
#
# ===----------------------------------------------------------------------=== #

import argparse
import ctypes
import gc
import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import gpu_check_float8  # noqa: E402  (the Float8 cast cases)
import gpu_check_fusions  # noqa: E402  (fused against unfused lowerings)
# Writes the cubin of a lowered module (`--bin OUT`); shared with the tests.
EXTRACT_PTX = os.path.join(ROOT, "test", "Target", "PTX", "Inputs", "extract-ptx.py")

# ---------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------

NP_OF = {
    "bf16": np.uint16,
    "f32": np.float32,
    "f8E4M3FN": np.uint8,
    "f8E5M2": np.uint8,
    "f8E8M0FNU": np.uint8,
    "i32": np.int32,
}


def tensor_type(shape, elem):
    return "tensor<%s>" % "x".join([str(d) for d in shape] + [elem])


def f32_bits_to_bf16(bits):
    """Rounds f32 bit patterns (uint32) to bf16 bit patterns, nearest even."""
    bits = bits.astype(np.uint64)
    nan = (bits & 0x7FFFFFFF) > 0x7F800000
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    out = np.where(nan, (bits >> 16) | 0x40, rounded)
    return out.astype(np.uint16)


def special_float_input(rng, shape, elem, axis):
    """Floats spanning every scale byte, with the SPEC §2.7 contract values."""
    x = rng.standard_normal(shape).astype(np.float64)
    # Per-position exponents: whole blocks land in every binade range.
    exps = np.zeros(shape, dtype=np.int64)
    for d in range(len(shape)):
        e = rng.integers(-70, 61, size=shape[d])
        view = [1] * len(shape)
        view[d] = shape[d]
        exps = exps + e.reshape(view)
    with np.errstate(over="ignore"):
        x = np.ldexp(x, exps).astype(np.float32)
    bits = x.view(np.uint32).copy()
    flat = bits.reshape(-1)
    n = flat.size
    specials = [
        0x7FC00000, 0xFFC00000, 0x7F800000, 0xFF800000,  # NaN, Inf
        0x80000000, 0x00000001, 0x80000001, 0x00400000,  # -0, subnormals
        0x7F7FFFFF, 0xFF7FFFFF, 0x43E00000, 0xC3E00000,  # max, ±448
        0x43F00000, 0x40600001, 0x43FFFFFF, 0x047FFFFF,  # 480, A1 cases
        0x00800000, 0x3F800001, 0x33D6BF95, 0x7F000000,
    ]
    pos = rng.choice(n, size=min(n, 4 * len(specials)), replace=False)
    for i, p in enumerate(pos):
        flat[p] = specials[i % len(specials)]
    # A few whole blocks of one special value (zeros, subnormals, max).
    moved = np.moveaxis(bits, axis, -1)
    for value in (0x00000000, 0x80000000, 0x00000001, 0x7F7FFFFF, 0x43E00000):
        idx = tuple(rng.integers(0, s) for s in moved.shape[:-1])
        k = rng.integers(0, moved.shape[-1] // 32)
        moved[idx][32 * k:32 * k + 32] = value
    if elem == "bf16":
        b = f32_bits_to_bf16(bits)
        # bf16 subnormals and max.
        fb = b.reshape(-1)
        extra = rng.choice(fb.size, size=min(fb.size, 8), replace=False)
        for i, p in enumerate(extra):
            fb[p] = [0x0001, 0x8001, 0x7F7F, 0xFF7F, 0x4060, 0x4400, 0x0080, 0x8000][i]
        return b
    return bits.view(np.float32)


def quantize_cases():
    cases = []
    modes = ["floor", "rceil", "ceil", "even"]
    for mode in modes:
        cases.append(dict(name="q1x32_bf16_e4m3_" + mode, kind="quantize",
                          shape=[96, 256], elem="bf16", f8="f8E4M3FN",
                          axis=1, mode=mode, layout="row_major"))
        cases.append(dict(name="q32x1_f32_e4m3_" + mode, kind="quantize",
                          shape=[128, 96], elem="f32", f8="f8E4M3FN",
                          axis=0, mode=mode, layout="row_major"))
    cases += [
        dict(name="q1x32_f32_e5m2_blocked", kind="quantize", shape=[200, 96],
             elem="f32", f8="f8E5M2", axis=1, mode="rceil", layout="blocked"),
        dict(name="q1x32_bf16_rank3", kind="quantize", shape=[3, 40, 128],
             elem="bf16", f8="f8E4M3FN", axis=2, mode="rceil",
             layout="row_major"),
        dict(name="q32x1_bf16_blocked", kind="quantize", shape=[64, 200],
             elem="bf16", f8="f8E4M3FN", axis=0, mode="rceil",
             layout="blocked"),
        dict(name="q32x1_bf16_odd_cols", kind="quantize", shape=[96, 36],
             elem="bf16", f8="f8E5M2", axis=0, mode="floor",
             layout="row_major"),
        dict(name="q_mid_axis_f32", kind="quantize", shape=[2, 64, 3, 16],
             elem="f32", f8="f8E4M3FN", axis=1, mode="even",
             layout="row_major"),
        dict(name="dual_bf16_rceil", kind="dual", shape=[128, 512],
             elem="bf16", f8="f8E4M3FN", mode="rceil",
             layouts=["row_major", "row_major"]),
        dict(name="dual_f32_floor_blocked", kind="dual", shape=[96, 160],
             elem="f32", f8="f8E4M3FN", mode="floor",
             layouts=["blocked", "blocked"]),
        dict(name="dual_bf16_rank3_ceil", kind="dual", shape=[3, 64, 96],
             elem="bf16", f8="f8E5M2", mode="ceil",
             layouts=["row_major", "row_major"]),
        dict(name="dual_bf16_partial_warp", kind="dual", shape=[32, 96],
             elem="bf16", f8="f8E4M3FN", mode="even",
             layouts=["row_major", "blocked"]),
        # Rowwise scales through workgroup memory (stage-row-scales): a
        # CTA's tiles are whole rows' 32 (bf16) / 16 (f32) blocks.
        dict(name="dual_bf16_staged_rows", kind="dual", shape=[96, 2048],
             elem="bf16", f8="f8E4M3FN", mode="rceil",
             layouts=["row_major", "row_major"]),
        dict(name="dual_f32_staged_rows_rank3", kind="dual",
             shape=[2, 64, 512], elem="f32", f8="f8E5M2", mode="floor",
             layouts=["row_major", "row_major"]),
        dict(name="dual_bf16_staged_rows_col_blocked", kind="dual",
             shape=[64, 1024], elem="bf16", f8="f8E4M3FN", mode="even",
             layouts=["row_major", "blocked"]),
        dict(name="dq1x32_e4m3_bf16", kind="dequantize", shape=[64, 256],
             f8="f8E4M3FN", out="bf16", axis=1, layout="row_major"),
        dict(name="dq1x32_e5m2_f32_blocked", kind="dequantize",
             shape=[130, 64], f8="f8E5M2", out="f32", axis=1,
             layout="blocked"),
        dict(name="dq32x1_e4m3_f32", kind="dequantize", shape=[96, 80],
             f8="f8E4M3FN", out="f32", axis=0, layout="row_major"),
        dict(name="dq32x1_e4m3_bf16_blocked", kind="dequantize",
             shape=[64, 136], f8="f8E4M3FN", out="bf16", axis=0,
             layout="blocked"),
        dict(name="pad_bf16", kind="pad", tokens=200, cols=256, groups=8,
             elem="bf16", alignment=32,
             offs=[10, 10, 70, 135, 135, 199, 200, 200]),
        dict(name="pad_f32_malformed", kind="pad", tokens=150, cols=24,
             groups=5, elem="f32", alignment=32, offs=[40, 20, -5, 300, 90]),
        dict(name="unpad_bf16", kind="unpad", tokens=200, cols=256, groups=8,
             elem="bf16", alignment=32,
             offs=[10, 10, 70, 135, 135, 199, 200, 200]),
        dict(name="unpad_f32_a128", kind="unpad", tokens=300, cols=40,
             groups=3, elem="f32", alignment=128, offs=[100, 100, 290]),
        dict(name="chain_quantize_dequantize", kind="chain", shape=[64, 256],
             elem="bf16", axis=0),
        dict(name="to_blocked_100x3", kind="to_blocked", shape=[100, 3]),
        dict(name="to_blocked_per_expert", kind="to_blocked",
             shape=[2, 130, 5]),
        # Grouped layouts: uneven, empty, misaligned (K: offs // 32) and
        # malformed offsets (clamped), no groups at all.
        dict(name="to_blocked_m_groups", kind="to_blocked", shape=[300, 9],
             layout="blocked_m_groups", offs=[0, 100, 100, 250, 251, 300]),
        dict(name="to_blocked_m_groups_malformed", kind="to_blocked",
             shape=[160, 6], layout="blocked_m_groups",
             offs=[50, 20, 400, -5]),
        dict(name="to_blocked_m_groups_none", kind="to_blocked",
             shape=[64, 4], layout="blocked_m_groups", offs=[]),
        dict(name="to_blocked_k_groups", kind="to_blocked", shape=[100, 40],
             layout="blocked_k_groups",
             offs=[32, 32, 160, 416, 448, 480, 1280, 1280]),
        dict(name="to_blocked_k_groups_misaligned", kind="to_blocked",
             shape=[40, 8], layout="blocked_k_groups", offs=[48, 100, 200]),
        dict(name="to_blocked_k_groups_malformed", kind="to_blocked",
             shape=[64, 8], layout="blocked_k_groups",
             offs=[200, 64, 9999, -1]),
    ]
    return cases


def blocked_size(rows, cols):
    return ((rows + 127) // 128) * 128 * ((cols + 3) // 4) * 4


def grouped_blocked_size(layout, rows, cols, groups):
    if layout == "blocked_m_groups":
        return (rows + 128 * groups) * ((cols + 3) // 4) * 4
    return ((rows + 127) // 128) * 128 * (cols + 4 * groups)


def padded_tokens(tokens, groups, alignment):
    return ((tokens + alignment * groups + alignment - 1) // alignment) * alignment


def scale_type(shape, axis, layout):
    if layout == "blocked":
        other = shape[1 - axis]
        return [blocked_size(other, shape[axis] // 32)]
    s = list(shape)
    s[axis] //= 32
    return s


def case_module(case, for_cpu):
    """MLIR text of one case, and the input (shape, elem) and result names."""
    k = case["kind"]
    ins, outs, body = [], [], []
    if k in ("quantize", "dual"):
        shape, elem, f8, mode = case["shape"], case["elem"], case["f8"], case["mode"]
        rank = len(shape)
        ins = [(shape, elem)]
        casts = ([(case["axis"], case["layout"])] if k == "quantize" else
                 [(rank - 1, case["layouts"][0]), (rank - 2, case["layouts"][1])])
        for j, (axis, layout) in enumerate(casts):
            st = scale_type(shape, axis, layout) if rank == 2 or layout == "row_major" else None
            outs += [(shape, f8), (st, "f8E8M0FNU")]
        if k == "dual" and not for_cpu:
            body.append(
                "%%r0, %%r1, %%r2, %%r3 = mxfp8train.quantize_dual %%arg0 mode = %s "
                "rowwise_layout = %s colwise_layout = %s : %s -> %s, %s, %s, %s" % (
                    mode, casts[0][1], casts[1][1], tensor_type(shape, elem),
                    *[tensor_type(s, e) for s, e in outs]))
        else:
            for j, (axis, layout) in enumerate(casts):
                body.append(
                    "%%r%d, %%r%d = mxfp8train.quantize %%arg0 axis = %d mode = %s "
                    "layout = %s : %s -> %s, %s" % (
                        2 * j, 2 * j + 1, axis, mode, layout,
                        tensor_type(shape, elem),
                        tensor_type(*outs[2 * j]), tensor_type(*outs[2 * j + 1])))
    elif k == "dequantize":
        shape, f8, axis, layout = case["shape"], case["f8"], case["axis"], case["layout"]
        ins = [(shape, f8), (scale_type(shape, axis, layout), "f8E8M0FNU")]
        outs = [(shape, case["out"])]
        body.append(
            "%%r0 = mxfp8train.dequantize %%arg0 [%%arg1] axis = %d layout = %s "
            ": %s [%s] -> %s" % (axis, layout, tensor_type(*ins[0]),
                                 tensor_type(*ins[1]), tensor_type(*outs[0])))
    elif k in ("pad", "unpad"):
        t, c, g, a, e = (case["tokens"], case["cols"], case["groups"],
                         case["alignment"], case["elem"])
        rows = padded_tokens(t, g, a)
        if k == "pad":
            ins = [([t, c], e), ([g], "i32")]
            outs = [([rows, c], e), ([g], "i32")]
            body.append(
                "%%r0, %%r1 = mxfp8train.pad_token_groups %%arg0 offs(%%arg1) "
                "alignment = %d : %s, %s -> %s, %s" % (
                    a, tensor_type(*ins[0]), tensor_type(*ins[1]),
                    tensor_type(*outs[0]), tensor_type(*outs[1])))
        else:
            ins = [([rows, c], e), ([g], "i32")]
            outs = [([t, c], e)]
            body.append(
                "%%r0 = mxfp8train.unpad_token_groups %%arg0 offs(%%arg1) "
                "alignment = %d : %s, %s -> %s" % (
                    a, tensor_type(*ins[0]), tensor_type(*ins[1]),
                    tensor_type(*outs[0])))
    elif k == "chain":
        # quantize -> dequantize: an intermediate device buffer, two launches.
        shape, elem, axis = case["shape"], case["elem"], case["axis"]
        st = scale_type(shape, axis, "row_major")
        ins = [(shape, elem)]
        outs = [(shape, elem)]
        body.append(
            "%%q, %%s = mxfp8train.quantize %%arg0 axis = %d mode = rceil : %s -> %s, %s" % (
                axis, tensor_type(shape, elem), tensor_type(shape, "f8E4M3FN"),
                tensor_type(st, "f8E8M0FNU")))
        body.append(
            "%%r0 = mxfp8train.dequantize %%q [%%s] axis = %d : %s [%s] -> %s" % (
                axis, tensor_type(shape, "f8E4M3FN"), tensor_type(st, "f8E8M0FNU"),
                tensor_type(shape, elem)))
    elif k == "f8mm":
        ins, outs, body = float8_gemm_module(case)
    elif k in gpu_check_float8.KINDS:
        ins, outs, body = gpu_check_float8.case_body(case)
    elif k in gpu_check_fusions.KINDS:
        ins, outs, body = gpu_check_fusions.case_body(case)
    elif k == "to_blocked":
        shape = case["shape"]
        ins = [(shape, "f8E8M0FNU")]
        layout = case.get("layout")
        if layout:
            groups = len(case["offs"])
            ins.append(([groups], "i32"))
            outs = [([grouped_blocked_size(layout, shape[0], shape[1], groups)],
                     "f8E8M0FNU")]
            body.append(
                "%%r0 = mxfp8train.to_blocked %%arg0 offs(%%arg1) layout = %s "
                ": %s, %s -> %s" % (layout, tensor_type(*ins[0]),
                                    tensor_type(*ins[1]), tensor_type(*outs[0])))
        else:
            if len(shape) == 2:
                outs = [([blocked_size(*shape)], "f8E8M0FNU")]
                layout = "blocked"
            else:
                outs = [([shape[0], blocked_size(shape[1], shape[2])], "f8E8M0FNU")]
                layout = "blocked_per_expert"
            body.append("%%r0 = mxfp8train.to_blocked %%arg0 layout = %s : %s -> %s" % (
                layout, tensor_type(*ins[0]), tensor_type(*outs[0])))
    args = ", ".join("%%arg%d: %s" % (i, tensor_type(*t)) for i, t in enumerate(ins))
    results = ", ".join(
        '%s {mxfp8run.name = "r%d"}' % (tensor_type(*t), j) if for_cpu else tensor_type(*t)
        for j, t in enumerate(outs))
    text = "func.func @case(%s) -> (%s) {\n" % (args, results)
    text += "".join("  %s\n" % line for line in body)
    text += "  return %s : %s\n}\n" % (
        ", ".join("%%r%d" % j for j in range(len(outs))),
        ", ".join(tensor_type(*t) for t in outs))
    return text, ins, outs


def make_inputs(case, ins, rng):
    k = case["kind"]
    arrays = []
    if k in ("quantize", "dual", "chain"):
        axis = case.get("axis", len(case["shape"]) - 1)
        arrays.append(special_float_input(rng, case["shape"], case["elem"], axis))
    elif k == "dequantize":
        data = rng.integers(0, 256, size=ins[0][0], dtype=np.uint8)
        scales = rng.integers(0, 256, size=ins[1][0], dtype=np.uint8)
        scales.reshape(-1)[:4] = [0, 254, 255, 127]
        arrays += [data, scales]
    elif k in ("pad", "unpad"):
        shape, elem = ins[0]
        x = rng.standard_normal(shape).astype(np.float32)
        arrays.append(f32_bits_to_bf16(x.view(np.uint32)) if elem == "bf16" else x)
        arrays.append(np.array(case["offs"], dtype=np.int32))
    elif k in gpu_check_float8.KINDS:
        arrays += gpu_check_float8.make_inputs(case, ins, rng, f32_bits_to_bf16)
    elif k in gpu_check_fusions.KINDS:
        arrays += gpu_check_fusions.make_inputs(case, ins, rng, f32_bits_to_bf16)
    elif k == "to_blocked":
        arrays.append(rng.integers(0, 256, size=ins[0][0], dtype=np.uint8))
        if "offs" in case:
            arrays.append(np.array(case["offs"], dtype=np.int32))
    return arrays


# ---------------------------------------------------------------------------
# Float8 GEMM cases (tolerance against float64, SPEC-float8 §5.4)
# ---------------------------------------------------------------------------

# SPEC-float8 §5.4: atol = rtol, by output type. The absolute part grows
# with the sum of the products' magnitudes S[m, n] = sum_k |a[m,k]| |b[n,k]|
# (of the dequantized operands): bar = tol |ref| + max(tol, ACCUM_BAR * S).
# The fp8 wgmma adds products into its accumulator with about 14 bits of
# mantissa (DeepSeek-V3 report; KERNELS.md §2.4); cuBLAS with promotion
# (torch._scaled_mm(use_fast_accum=False)) still showed errors up to
# 8e-5 S at K = 512 on these cases (bench/README.md, "First run of the sm_90a
# Float8 GEMM": 0.027 at S ~ 330), where a fixed 3e-3 fails for any f32
# GEMM whose outputs cancel (|ref| << S). 2^-12 S is 3x that; a lost
# contraction tile (1/32 of S at K = 4096) or a wrong scale is still far
# outside it (SPEC-float8 §5.4: kernels are accepted by tolerance; §7's
# SQNR bars are relative to the same magnitudes).
FLOAT8_GEMM_TOLERANCE = {"bf16": 7e-2, "f32": 3e-3}
FLOAT8_ACCUM_BAR = 2.0 ** -12


def float8_gemm_cases():
    """Float8 scaled_mm on the sm_90a fp8 wgmma kernel, in every operand
    layout the recipes produce: lhs stored (M, K) or with `tl` (K, M)
    (transpose_lhs, the wgrad's grad_output), rhs stored (N, K) (`tr`,
    transpose_rhs) or (K, N) (dgrad's weight, wgrad's input); rowwise
    ("row": one scale per logical row of A / column of the output) or
    tensorwise ("tensor") f32 scales, e4m3 / e5m2 operands; edges in M, N
    (not a tile multiple) and K (not a multiple of the 128 of a stage).
    `role` is the op's mxfp8train.role: "forward" accumulates fast (one
    wgmma accumulator), the others with promotion into an f32 sum
    (float8-promote-interval, torchao's use_fast_accum=False)."""
    def case(name, m, n, k, a="f8E4M3FN", b="f8E4M3FN", ga="row", gb="row",
             out="bf16", bias=None, tl=False, tr=True, role=None):
        return dict(name=name, kind="f8mm", m=m, n=n, k=k, a=a, b=b, ga=ga,
                    gb=gb, out=out, bias=bias, tl=tl, tr=tr, role=role)
    return [
        case("f8_rowwise_bf16_bias", 512, 768, 2048, bias="bf16"),
        case("f8_rowwise_edges", 200, 304, 1040, role="forward"),
        case("f8_tensorwise_e5m2_f32", 200, 304, 96, a="f8E5M2", ga="tensor",
             gb="tensor", out="f32"),
        case("f8_mixed_row_tensor", 384, 256, 4096, gb="tensor"),
        case("f8_tensorwise_f32_bias", 136, 528, 512, ga="tensor",
             gb="tensor", out="f32", bias="f32"),
        # dgrad: grad_output (M, N) x weight stored (N, K) -> (M, K): rhs
        # MN-major (transposed by the pre-pass). Rowwise (float8_rowwise),
        # tensorwise e5m2 x e4m3 (float8_tensorwise), and rowwise x
        # tensorwise (float8_rowwise_with_gw_hp's grad_input).
        case("f8_dgrad_rowwise", 272, 400, 1056, tr=False, role="dgrad"),
        case("f8_dgrad_tensorwise_e5m2", 256, 384, 512, a="f8E5M2",
             ga="tensor", gb="tensor", tr=False, role="dgrad"),
        case("f8_dgrad_mixed_row_tensor", 200, 336, 768, gb="tensor",
             tr=False, role="dgrad"),
        # wgrad: grad_output stored (T, N) transposed x input stored (T, K)
        # -> (N, K), f32 out: both operands MN-major.
        case("f8_wgrad_rowwise_f32", 304, 208, 1040, out="f32", tl=True,
             tr=False, role="wgrad"),
        case("f8_wgrad_tensorwise_e5m2_f32", 256, 400, 2048, a="f8E5M2",
             ga="tensor", gb="tensor", out="f32", tl=True, tr=False,
             role="wgrad"),
        # dW = xT @ dO of an (in, out) weight: grad_output is the rhs
        # (mxfp8train.grad_output = "rhs" or inferred), so e4m3 x e5m2.
        case("f8_wgrad_tensorwise_e4m3_e5m2_f32", 256, 400, 2048,
             b="f8E5M2", ga="tensor", gb="tensor", out="f32", tl=True,
             tr=False, role="wgrad"),
        case("f8_wgrad_tensorwise_e4m3_e5m2_bf16", 208, 336, 1040,
             b="f8E5M2", ga="tensor", gb="tensor", tl=True, tr=False,
             role="wgrad"),
        # wgrad with out_features (M, the rows of the MN-major lhs) not a
        # multiple of 16, which torch._scaled_mm leaves free: the
        # transpose pre-pass reads rows of 40 bytes in 8-byte pieces, of
        # 20 in 4-byte, of 45 in single bytes, of 200 (two row tiles, the
        # second partial) in 8-byte pieces.
        case("f8_wgrad_m40_tensorwise_e5m2_f32", 40, 400, 1024, a="f8E5M2",
             ga="tensor", gb="tensor", out="f32", tl=True, tr=False,
             role="wgrad"),
        case("f8_wgrad_m20_tensorwise_e4m3_e5m2_bf16", 20, 336, 512,
             b="f8E5M2", ga="tensor", gb="tensor", tl=True, tr=False,
             role="wgrad"),
        case("f8_wgrad_m45_rowwise_bf16", 45, 208, 1040, tl=True, tr=False,
             role="wgrad"),
        case("f8_wgrad_m200_rowwise_f32", 200, 272, 1040, out="f32",
             tl=True, tr=False, role="wgrad"),
        # scaled_grouped_mm 2d-3d: uneven and empty token groups, rows
        # past the last group (zero).
        dict(case("f8_grouped_2d3d", 600, 272, 1024), kind="f8mm",
             offs=[100, 100, 357, 590]),
        # The MoE dgrad: experts stored (E, K, N) (no transpose_rhs), scales
        # (E, 1, N): the rhs transposed per expert by the pre-pass.
        dict(case("f8_grouped_2d3d_mn_rhs", 600, 272, 1024, tr=False,
                  role="dgrad"), offs=[100, 100, 357, 590]),
        # 2d-3d with promotion (use_fast_accum = false: the dense kernels'
        # pipelined promotion on the group walk; with
        # float8-overlap-epilogue, a tile stores the previous one, which
        # may lie in another group, after its first wgmma).
        dict(case("f8_grouped_2d3d_promoted", 600, 272, 1024),
             offs=[100, 100, 357, 590], fast_accum=False),
        # scaled_grouped_mm 2d-2d (the fp8_rowwise wgrad): tokens (T, M)
        # and (T, N), scales per group and column (E, M) / (E, N); an empty
        # group (exact zeros), groups not multiples of the 128-token tile,
        # tokens past the last group (not read).
        dict(case("f8_grouped_2d2d", 144, 272, 1008, tl=True, tr=False),
             offs=[96, 96, 496, 992], twod=True),
    ]


def float8_gemm_module(case):
    m, n, k = case["m"], case["n"], case["k"]
    attrs = []
    if case.get("role"):
        attrs.append('mxfp8train.role = "%s"' % case["role"])
    # Grouped GEMMs accumulate fast unless told otherwise (torchao's rule).
    if case.get("fast_accum") is False:
        attrs.append("mxfp8train.use_fast_accum = false")
    role = (" {%s}" % ", ".join(attrs)) if attrs else ""
    if case.get("twod"):
        e = len(case["offs"])
        ins = [([k, m], case["a"]), ([e, m], "f32"), ([k, n], case["b"]),
               ([e, n], "f32"), ([e], "i32")]
        outs = [([e, m, n], case["out"])]
        types = [tensor_type(*t) for t in ins]
        body = ["%%r0 = mxfp8train.scaled_grouped_mm %%arg0 [%%arg1], %%arg2 "
                "[%%arg3] offs(%%arg4) transpose_lhs%s : %s [%s], %s [%s], %s -> %s" % (
                    role, *types, tensor_type(*outs[0]))]
        return ins, outs, body
    if "offs" in case:
        e = len(case["offs"])
        # Experts stored (E, N, K) with transpose_rhs, or (E, K, N).
        tr = case.get("tr", True)
        rhs, rs = ([e, n, k], [e, n, 1]) if tr else ([e, k, n], [e, 1, n])
        ins = [([m, k], case["a"]), ([m, 1], "f32"), (rhs, case["b"]),
               (rs, "f32"), ([e], "i32")]
        outs = [([m, n], case["out"])]
        types = [tensor_type(*t) for t in ins]
        body = ["%%r0 = mxfp8train.scaled_grouped_mm %%arg0 [%%arg1], %%arg2 "
                "[%%arg3] offs(%%arg4)%s%s : %s [%s], %s [%s], %s -> %s" % (
                    " transpose_rhs" if tr else "", role, *types,
                    tensor_type(*outs[0]))]
        return ins, outs, body
    tl, tr = case.get("tl", False), case.get("tr", True)
    # Rowwise scales: the stored shape with K set to 1.
    sa = [] if case["ga"] == "tensor" else ([1, m] if tl else [m, 1])
    sb = [] if case["gb"] == "tensor" else ([n, 1] if tr else [1, n])
    ins = [([k, m] if tl else [m, k], case["a"]), (sa, "f32"),
           ([n, k] if tr else [k, n], case["b"]), (sb, "f32")]
    if case["bias"]:
        ins.append(([n], case["bias"]))
    outs = [([m, n], case["out"])]
    types = [tensor_type(*t) for t in ins]
    flags = (" transpose_lhs" if tl else "") + (" transpose_rhs" if tr else "")
    body = ["%%r0 = mxfp8train.scaled_mm %%arg0 [%%arg1], %%arg2 [%%arg3]%s"
            "%s%s : %s [%s], %s [%s]%s -> %s" % (
                " bias(%arg4)" if case["bias"] else "", flags, role, types[0],
                types[1], types[2], types[3],
                ", " + types[4] if case["bias"] else "", tensor_type(*outs[0]))]
    return ins, outs, body


def fp8_table(elem):
    """The value of every byte of `elem` (NaN for NaN / Inf bytes)."""
    b = np.arange(256)
    sign = np.where(b & 0x80, -1.0, 1.0)
    if elem == "f8E4M3FN":
        e, mant, bias, mbits = (b >> 3) & 0xF, b & 7, 7, 3
        bad = (b & 0x7F) == 0x7F
    else:
        e, mant, bias, mbits = (b >> 2) & 0x1F, b & 3, 15, 2
        bad = e == 31
    normal = (1 + mant / 2.0 ** mbits) * 2.0 ** (e - bias)
    sub = mant / 2.0 ** mbits * 2.0 ** (1 - bias)
    v = sign * np.where(e == 0, sub, normal)
    return np.where(bad, np.nan, v)


def quantize_float8(x, elem, rowwise):
    """torchao's cast of float64 `x` (rows x K): s = fmax / amax (per row
    or for the tensor, f32), q = the finite fp8 byte nearest x * s."""
    table = fp8_table(elem)
    fmax = np.nanmax(table)
    amax = np.abs(x).max(axis=1, keepdims=True) if rowwise else np.abs(x).max()
    s = (fmax / np.maximum(amax, 1e-12)).astype(np.float32)
    finite = np.flatnonzero(~np.isnan(table))
    order = finite[np.argsort(table[finite])]
    vals = table[order]
    y = np.clip(x * s.astype(np.float64), vals[0], vals[-1])
    i = np.clip(np.searchsorted(vals, y), 1, len(vals) - 1)
    i -= (y - vals[i - 1]) < (vals[i] - y)
    return order[i].astype(np.uint8), s


def float8_gemm_inputs(case, rng):
    """The inputs of a Float8 GEMM case, its float64 reference (dequantized
    operands q / s, the bias added unscaled) and the magnitudes
    S = sum_k |a| |b| of the tolerance."""
    m, n, k = case["m"], case["n"], case["k"]
    if case.get("twod"):
        # 2d-2d: group g contracts tokens [offs[g-1], offs[g]) of A (T, M)
        # and B (T, N); each column's scale is over the group's tokens.
        e, offs = len(case["offs"]), case["offs"]
        xa, xb = rng.standard_normal((k, m)), rng.standard_normal((k, n))
        qa = np.zeros((k, m), dtype=np.uint8)
        qb = np.zeros((k, n), dtype=np.uint8)
        sa = np.ones((e, m), dtype=np.float32)
        sb = np.ones((e, n), dtype=np.float32)
        ref, mag = np.zeros((e, m, n)), np.zeros((e, m, n))
        start = 0
        for g, end in enumerate(offs):
            if end > start:
                qga, sga = quantize_float8(xa[start:end].T, case["a"], True)
                qgb, sgb = quantize_float8(xb[start:end].T, case["b"], True)
                qa[start:end], qb[start:end] = qga.T, qgb.T
                sa[g], sb[g] = sga[:, 0], sgb[:, 0]
                da = fp8_table(case["a"])[qga] / sga.astype(np.float64)
                db = fp8_table(case["b"])[qgb] / sgb.astype(np.float64)
                ref[g], mag[g] = da @ db.T, np.abs(da) @ np.abs(db).T
            start = end
        # Tokens past the last group hold bytes the GEMM must not read.
        qa[start:] = 0x7E
        qb[start:] = 0x7E
        return [qa, sa, qb, sb, np.array(offs, dtype=np.int32)], ref, mag
    if "offs" in case:
        # 2d-3d: group g is rows [offs[g-1], offs[g]) times expert g; rows
        # past the last group are zero.
        e = len(case["offs"])
        qa, sa = quantize_float8(rng.standard_normal((m, k)), case["a"], True)
        qb, sb = quantize_float8(rng.standard_normal((e * n, k)), case["b"], True)
        da = fp8_table(case["a"])[qa] / sa.astype(np.float64)
        db = (fp8_table(case["b"])[qb] / sb.astype(np.float64)).reshape(e, n, k)
        ref, mag = np.zeros((m, n)), np.zeros((m, n))
        start = 0
        for g, end in enumerate(case["offs"]):
            ref[start:end] = da[start:end] @ db[g].T
            mag[start:end] = np.abs(da[start:end]) @ np.abs(db[g]).T
            start = end
        qb = qb.reshape(e, n, k)
        if not case.get("tr", True):
            qb = np.ascontiguousarray(qb.transpose(0, 2, 1))
        sb = sb.reshape(e, n, 1) if case.get("tr", True) else sb.reshape(e, 1, n)
        return [qa, sa, qb, sb, np.array(case["offs"], dtype=np.int32)], ref, mag
    qa, sa = quantize_float8(rng.standard_normal((m, k)), case["a"],
                             case["ga"] == "row")
    qb, sb = quantize_float8(rng.standard_normal((n, k)), case["b"],
                             case["gb"] == "row")
    da = fp8_table(case["a"])[qa] / sa.astype(np.float64)
    db = fp8_table(case["b"])[qb] / sb.astype(np.float64)
    ref, mag = da @ db.T, np.abs(da) @ np.abs(db).T
    # Stored as the op reads them: (K, M) with transpose_lhs, (K, N)
    # without transpose_rhs, rowwise scales along the stored shape.
    tl, tr = case.get("tl", False), case.get("tr", True)
    arrays = [np.ascontiguousarray(qa.T) if tl else qa,
              sa.reshape((1, m) if tl else (m, 1)) if case["ga"] == "row"
              else sa.reshape(()),
              qb if tr else np.ascontiguousarray(qb.T),
              sb.reshape((n, 1) if tr else (1, n)) if case["gb"] == "row"
              else sb.reshape(())]
    if case["bias"]:
        bias = rng.standard_normal(n).astype(np.float32)
        if case["bias"] == "bf16":
            bias = f32_bits_to_bf16(bias.view(np.uint32))
            ref = ref + bf16_to_f64(bias)
        else:
            ref = ref + bias.astype(np.float64)
        arrays.append(bias)
    return arrays, ref, mag


def bf16_to_f64(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


# The Float8 GEMMs timed on the H200: (name, M, K, N, layout, role), rowwise
# e4m3, bf16 out (f32 for wgrad). Layouts: "fwd" lhs (M, K), rhs (N, K);
# "dgrad" rhs stored (K, N) (the weight, transposed by the pre-pass);
# "wgrad" lhs stored (K, M) and rhs (K, N) (grad_output and input over the
# tokens, both transposed). The Llama-3-8B W1 / W2 shapes at 16384 tokens
# (bench/device/float8_gemm_peer.py times torch._scaled_mm on the same).
# The `_kmajor` cases are the gradient GEMMs' promoted kernels (roles dgrad
# and wgrad: use_fast_accum=False) on operands already K-major, as
# torch._scaled_mm takes them: the kernel against the kernel, without the
# transpose pre-pass (which the steps fuse into the casts).
def float8_gemm_timing():
    return [("f8_gemm_timing_llama_w1", 16384, 4096, 14336, "fwd", "forward"),
            ("f8_gemm_timing_llama_dgrad_w1_kmajor", 16384, 14336, 4096,
             "fwd", "dgrad"),
            ("f8_gemm_timing_llama_dgrad_w2_kmajor", 16384, 4096, 14336,
             "fwd", "dgrad"),
            ("f8_gemm_timing_llama_wgrad_w1_kmajor", 14336, 16384, 4096,
             "fwd", "wgrad"),
            ("f8_gemm_timing_llama_dgrad_w1", 16384, 14336, 4096, "dgrad",
             "dgrad"),
            ("f8_gemm_timing_llama_dgrad_w2", 16384, 4096, 14336, "dgrad",
             "dgrad"),
            ("f8_gemm_timing_llama_wgrad_w1", 14336, 16384, 4096, "wgrad",
             "wgrad"),
            ("f8_gemm_timing_llama_wgrad_w2", 4096, 16384, 14336, "wgrad",
             "wgrad"),
            # float8_tensorwise's gradient GEMMs as the Llama step runs
            # them: e5m2 grad_output x e4m3, tensorwise scales, K-major.
            ("f8_gemm_timing_llama_dgrad_w1_kmajor_tw", 16384, 14336, 4096,
             "fwd", "dgrad", dict(a="f8E5M2", ga="tensor", gb="tensor")),
            ("f8_gemm_timing_llama_dgrad_w2_kmajor_tw", 16384, 4096, 14336,
             "fwd", "dgrad", dict(a="f8E5M2", ga="tensor", gb="tensor")),
            ("f8_gemm_timing_llama_wgrad_w1_kmajor_tw", 14336, 16384, 4096,
             "fwd", "wgrad", dict(a="f8E5M2", ga="tensor", gb="tensor")),
            # dW = xT @ dO of an (in, out) weight (grad_output the rhs):
            # e4m3 x e5m2.
            ("f8_gemm_timing_llama_wgrad_w1t_kmajor_tw", 4096, 16384, 14336,
             "fwd", "wgrad", dict(b="f8E5M2", ga="tensor", gb="tensor"))]


# Kernels timed alone: (name, kind, shape, elem, axis, mode). Shapes fill
# the H200; 16384 x 8192 bf16 is the benchmark shape (bench/README.md);
# 16384 x 8448 is the nearest shape whose 1x32 launch is whole waves of
# resident CTAs on the H200 (16.0 against 15.5), the test of the tail-wave
# explanation of the 1x32 ratio at 16384 x 8192.
def timing_kernels():
    kernels = []
    for shape in ([16384, 16384], [16384, 8192], [16384, 8448]):
        tag = "%dx%d" % tuple(shape)
        for mode in ("floor", "rceil"):
            kernels += [
                ("quantize_1x32_bf16_%s_%s" % (mode, tag), "quantize", shape, "bf16", 1, mode),
                ("quantize_32x1_bf16_%s_%s" % (mode, tag), "quantize", shape, "bf16", 0, mode),
                ("quantize_dual_bf16_%s_%s" % (mode, tag), "dual", shape, "bf16", None, mode),
            ]
    kernels += [
        ("quantize_1x32_f32_rceil", "quantize", [8192, 16384], "f32", 1, "rceil"),
        ("quantize_32x1_f32_rceil", "quantize", [8192, 16384], "f32", 0, "rceil"),
        ("quantize_dual_f32_rceil", "dual", [8192, 16384], "f32", None, "rceil"),
        ("quantize_1x32_bf16_blocked", "quantize_blocked", [16384, 16384], "bf16", 1, "rceil"),
        ("dequantize_1x32_bf16", "dequantize", [16384, 16384], "bf16", 1, None),
        ("dequantize_32x1_bf16", "dequantize", [16384, 16384], "bf16", 0, None),
        ("pad_token_groups_bf16", "pad", [131072, 7168], "bf16", None, None),
    ]
    return kernels + gpu_check_float8.timing_kernels()


def timing_module(kind, shape, elem, axis, mode):
    if kind in ("quantize", "quantize_blocked"):
        layout = "blocked" if kind == "quantize_blocked" else "row_major"
        case = dict(kind="quantize", shape=shape, elem=elem, f8="f8E4M3FN",
                    axis=axis, mode=mode, layout=layout)
    elif kind == "dual":
        case = dict(kind="dual", shape=shape, elem=elem, f8="f8E4M3FN",
                    mode=mode, layouts=["row_major", "row_major"])
    elif kind == "dequantize":
        case = dict(kind="dequantize", shape=shape, f8="f8E4M3FN", out=elem,
                    axis=axis, layout="row_major")
    elif kind in gpu_check_float8.KINDS:
        case = gpu_check_float8.timing_case(kind, shape, elem, axis, mode)
    else:
        case = dict(kind="pad", tokens=shape[0], cols=shape[1], groups=8,
                    elem=elem, alignment=32, offs=[])
    return case_module(case, for_cpu=False)[0]


# ---------------------------------------------------------------------------
# prepare (here)
# ---------------------------------------------------------------------------


def kernel_launches(converted):
    """(kernel, grid, [memref types]) of every launch in converted IR."""
    consts = dict(re.findall(r"(%c\w*) = arith.constant (\d+) : index", converted))
    sigs = {}
    for name, params in re.findall(r"gpu.func @(\w+)\((.*?)\)(?: workgroup| kernel)", converted):
        sigs[name] = re.findall(r"memref<([^>]*)>", params)
    launches = []
    for name, grid in re.findall(
            r"gpu.launch_func\s+@mxfp8train_kernels::@(\w+) blocks in \((%c\w*),", converted):
        launches.append(dict(kernel=name, grid=int(consts[grid]), args=sigs[name]))
    return launches


def run(cmd, **kw):
    print("+", " ".join(cmd), file=sys.stderr)
    subprocess.run(cmd, check=True, **kw)


def prepare_timing(args, opt, out, manifest, suffix):
    """Cubins and launch shapes of the timing kernels (those named by
    --only, or all), added to `manifest` as NAME + suffix."""
    tdir = os.path.join(out, "timing")
    os.makedirs(tdir, exist_ok=True)
    for name, kind, shape, elem, axis, mode in timing_kernels():
        if args.only and name not in args.only:
            continue
        text = timing_module(kind, shape, elem, axis, mode)
        src = os.path.join(tdir, name + suffix + ".mlir")
        with open(src, "w") as f:
            f.write(text)
        extra = (" " + args.lowering_options) if args.lowering_options else ""
        converted = subprocess.run(
            [opt, src, "--convert-mxfp8train-to-gpu=chip=" + args.chip + extra,
             "--canonicalize"], check=True, capture_output=True,
            text=True).stdout
        lowered = subprocess.run(
            [opt, src, "--mxfp8train-lower-to-gpu=chip=%s format=bin%s" % (args.chip, extra)],
            check=True, capture_output=True, text=True).stdout
        subprocess.run([sys.executable, EXTRACT_PTX, "--bin",
                        os.path.join(tdir, name + suffix + ".cubin")],
                       input=lowered, check=True, text=True)
        manifest["timing"] = [t for t in manifest["timing"]
                              if t["name"] != name + suffix]
        manifest["timing"].append(dict(name=name + suffix,
                                       launches=kernel_launches(converted)))


def prepare_gemm_timing(args, out, env, manifest):
    """The Float8 GEMM timing cases: a case library each (no inputs: run
    generates them on the device)."""
    manifest["gemm_timing"] = []
    if args.chip != "sm_90a":
        return
    for name, m, k, n, layout, role, *extra in float8_gemm_timing():
        if args.gemm_timing is not None and not re.search(args.gemm_timing,
                                                          name):
            continue
        case = dict(kind="f8mm", m=m, n=n, k=k, a="f8E4M3FN", b="f8E4M3FN",
                    ga="row", gb="row",
                    out="f32" if layout == "wgrad" else "bf16", bias=None,
                    tl=layout == "wgrad", tr=layout == "fwd", role=role)
        case.update(extra[0] if extra else {})
        cdir = os.path.join(out, name)
        os.makedirs(cdir, exist_ok=True)
        text, ins, outs = case_module(case, for_cpu=False)
        with open(os.path.join(cdir, "gpu.mlir"), "w") as f:
            f.write(text)
        obj = os.path.join(cdir, "case.o")
        run(["bash", os.path.join(ROOT, "scripts", "aot-compile.sh"),
             os.path.join(cdir, "gpu.mlir"), obj, args.chip,
             args.lowering_options], env=env)
        run(["c++", "-shared", "-o", os.path.join(cdir, "libcase.so"), obj])
        os.remove(obj)
        manifest["gemm_timing"].append(dict(
            name=name, m=m, n=n, k=k, layout=layout, role=role, a=case["a"],
            b=case["b"],
            tensorwise=case["ga"] == "tensor" and case["gb"] == "tensor",
            inputs=[dict(shape=s, elem=e) for s, e in ins],
            outputs=[dict(shape=s, elem=e) for s, e in outs]))


def prepare(args):
    build = os.path.abspath(args.build)
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    opt = os.path.join(build, "bin", "mxfp8-opt")
    mrun = os.path.join(build, "bin", "mxfp8-run")
    env = dict(os.environ, MXFP8_OPT=opt)
    manifest_path = os.path.join(out, "manifest.json")
    if args.variant:
        # Another build's kernels, timed beside the others under NAME.SUFFIX.
        manifest = json.load(open(manifest_path))
        prepare_timing(args, opt, out, manifest, "." + args.variant)
        with open(manifest_path, "w") as f:
            json.dump(manifest, f, indent=1)
        return
    shutil.copy(os.path.join(build, "lib", "libmxfp8train_runtime.so"), out)
    rng = np.random.default_rng(args.seed)
    manifest = dict(chip=args.chip, cases=[], timing=[])
    for case in (quantize_cases() + float8_gemm_cases() +
                 gpu_check_float8.cases() + gpu_check_fusions.cases()):
        name = case["name"]
        if args.cases and not re.search(args.cases, name):
            continue
        cdir = os.path.join(out, name)
        os.makedirs(cdir, exist_ok=True)
        gpu_text, ins, outs = case_module(case, for_cpu=False)
        with open(os.path.join(cdir, "gpu.mlir"), "w") as f:
            f.write(gpu_text)
        float8 = case["kind"] == "f8mm"
        # Fusion cases: the reference is the unfused lowering on the GPU.
        fusion = case["kind"] in gpu_check_fusions.KINDS
        if float8:
            inputs, ref, mag = float8_gemm_inputs(case, rng)
        elif fusion:
            inputs = make_inputs(case, ins, rng)
        else:
            cpu_text, _, _ = case_module(case, for_cpu=True)
            with open(os.path.join(cdir, "cpu.mlir"), "w") as f:
                f.write(cpu_text)
            inputs = make_inputs(case, ins, rng)
        paths = []
        for i, a in enumerate(inputs):
            p = os.path.join(cdir, "in%d.npy" % i)
            np.save(p, a)
            paths.append(p)
        if float8:
            os.makedirs(os.path.join(cdir, "ref"), exist_ok=True)
            np.save(os.path.join(cdir, "ref", "r0.npy"), ref)
            np.save(os.path.join(cdir, "ref", "mag0.npy"), mag)
        elif fusion:
            obj = os.path.join(cdir, "ref.o")
            run(["bash", os.path.join(ROOT, "scripts", "aot-compile.sh"),
                 os.path.join(cdir, "gpu.mlir"), obj, args.chip,
                 gpu_check_fusions.REFERENCE_OPTIONS[case["fusion"]]], env=env)
            run(["c++", "-shared", "-o", os.path.join(cdir, "libref.so"), obj])
            os.remove(obj)
        else:
            run([mrun, os.path.join(cdir, "cpu.mlir"), "--entry=case",
                 "--output-dir=" + os.path.join(cdir, "ref")] +
                ["--input=" + p for p in paths] +
                (gpu_check_float8.CPU_RUN_FLAGS
                 if case["kind"] in gpu_check_float8.KINDS else []),
                stdout=subprocess.DEVNULL)
        obj = os.path.join(cdir, "case.o")
        # --lowering-options reach the Float8 GEMM cases (their tuning
        # knobs: tile, promotion, cluster), checked against the float64
        # reference like the default lowering.
        # A fusion off by default is lowered with it on
        # (gpu_check_fusions.FUSED_OPTIONS).
        case_options = []
        if float8 and args.lowering_options:
            case_options = [args.lowering_options]
        elif fusion and case["fusion"] in gpu_check_fusions.FUSED_OPTIONS:
            case_options = [gpu_check_fusions.FUSED_OPTIONS[case["fusion"]]]
        run(["bash", os.path.join(ROOT, "scripts", "aot-compile.sh"),
             os.path.join(cdir, "gpu.mlir"), obj, args.chip] + case_options,
            env=env)
        run(["c++", "-shared", "-o", os.path.join(cdir, "libcase.so"), obj])
        os.remove(obj)
        manifest["cases"].append(dict(
            name=name, inputs=[dict(shape=s, elem=e) for s, e in ins],
            outputs=[dict(shape=s, elem=e) for s, e in outs]))
        if float8:
            manifest["cases"][-1]["tolerance"] = FLOAT8_GEMM_TOLERANCE[case["out"]]
        if case["kind"] in gpu_check_float8.KINDS or fusion:
            manifest["cases"][-1]["nan_equal"] = True
        if fusion:
            manifest["cases"][-1]["gpu_reference"] = True
    prepare_gemm_timing(args, out, env, manifest)
    prepare_timing(args, opt, out, manifest, "")
    with open(manifest_path, "w") as f:
        json.dump(manifest, f, indent=1)
    print("prepared %d cases and %d timing kernels in %s" % (
        len(manifest["cases"]), len(manifest["timing"]), out))


# ---------------------------------------------------------------------------
# run (GPU machine)
# ---------------------------------------------------------------------------


def descriptor_type(rank):
    fields = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p),
              ("offset", ctypes.c_int64)]
    if rank:
        fields += [("sizes", ctypes.c_int64 * rank), ("strides", ctypes.c_int64 * rank)]
    return type("MemRef%dD" % rank, (ctypes.Structure,), {"_fields_": fields})


def make_descriptor(ptr, shape):
    desc = descriptor_type(len(shape))()
    desc.allocated = desc.aligned = ptr
    desc.offset = 0
    stride = 1
    for d in reversed(range(len(shape))):
        desc.sizes[d] = shape[d]
        desc.strides[d] = stride
        stride *= shape[d]
    return desc


def compare_with_tolerance(case, cdir, dev_out, cp):
    """A Float8 GEMM case against its float64 reference: every element
    within tol |ref| + max(tol, FLOAT8_ACCUM_BAR S) (tol = case["tolerance"],
    S = sum_k |a| |b| of the element, ref/mag0.npy)."""
    tol = case["tolerance"]
    got = cp.asnumpy(dev_out[0])
    if case["outputs"][0]["elem"] == "bf16":
        got = bf16_to_f64(got)
    got = got.astype(np.float64)
    ref = np.load(os.path.join(cdir, "ref", "r0.npy"))
    mag_path = os.path.join(cdir, "ref", "mag0.npy")
    mag = np.load(mag_path) if os.path.exists(mag_path) else np.zeros_like(ref)
    err = np.abs(got - ref)
    bar = tol * np.abs(ref) + np.maximum(tol, FLOAT8_ACCUM_BAR * mag)
    bad = ~(err <= bar)  # NaN (unwritten) fails too
    worst = float(np.nanmax(err)) if err.size else 0.0
    print("%-32s max |gpu - ref| %.3g, max |ref| %.3g, max err / S %.3g" % (
        case["name"], worst, float(np.abs(ref).max()),
        float(np.nanmax(err / np.maximum(mag, 1e-30))) if err.size else 0.0))
    if not bad.any():
        return []
    first = int(np.argmax(bad.reshape(-1)))
    return ["r0: %d of %d elements outside %g |ref| + max(%g, %g S) (first at "
            "%d: gpu %r ref %r)" % (
                int(bad.sum()), bad.size, tol, tol, FLOAT8_ACCUM_BAR, first,
                float(got.reshape(-1)[first]), float(ref.reshape(-1)[first]))]


def run_gemm_timing(args, cp):
    """Times each Float8 GEMM case (the whole case: transpose pre-passes,
    tensor maps and launch) on random finite e4m3 (or e5m2) operands
    with unit scales, and torch._scaled_mm of the same scaling (rowwise or
    tensorwise) and types on the same shape when torch is
    importable: mat2 column-major as torch requires, use_fast_accum for the
    forward layout only (torchao's configs), once on operands already in
    torch's layout and once with the copy torchao's preprocess_addmm makes
    for an operand stored otherwise (SPEC-float8 §5.1)."""
    manifest = json.load(open(os.path.join(args.dir, "manifest.json")))
    for t in manifest.get("gemm_timing", []):
        if args.only and t["name"] not in args.only:
            continue
        lib = ctypes.CDLL(os.path.join(args.dir, t["name"], "libcase.so"))
        m, n, k = t["m"], t["n"], t["k"]
        layout = t.get("layout", "fwd")
        # Finite bytes of magnitude <= 1, both signs: e4m3 exponent field
        # <= 7, e5m2 (the tensorwise grad_output) <= 14.
        a_e5m2 = t.get("a") == "f8E5M2"
        b_e5m2 = t.get("b") == "f8E5M2"
        def operand(shape, e5m2):
            if args.gemm_data == "normal":
                # N(0, 1) cast tensorwise as the recipes cast it: scaled so
                # that the amax lands on the format's largest finite value.
                import torch
                x = torch.randn(shape, device="cuda")
                fmax = 57344.0 if e5m2 else 448.0
                q = (x * (fmax / x.abs().max())).to(
                    torch.float8_e5m2 if e5m2 else torch.float8_e4m3fn)
                return cp.asarray(q.view(torch.uint8))
            r = cp.random.randint(0, 60 if e5m2 else 64, size=shape,
                                  dtype=cp.int32)
            sign = cp.random.randint(0, 2, size=shape, dtype=cp.int32) << 7
            return (r | sign).astype(cp.uint8)
        arrays = []
        for i, spec in enumerate(t["inputs"]):
            if spec["elem"] == "f32":
                arrays.append(cp.ones(spec["shape"], dtype=cp.float32))
            else:
                arrays.append(operand(spec["shape"],
                                      (a_e5m2 and i == 0) or (b_e5m2 and i == 2)))
        for spec in t["outputs"]:
            arrays.append(cp.empty(spec["shape"], dtype=NP_OF[spec["elem"]]))
        descs = [make_descriptor(a.data.ptr, list(a.shape)) for a in arrays]
        fn = lib._mlir_ciface_case
        fn.restype = None
        ms = median_ms(cp, lambda: fn(*[ctypes.byref(d) for d in descs]), args.reps)
        tflops = 2.0 * m * n * k / ms / 1e9
        print("%-42s %dx%dx%d (MxKxN) %9.3f ms %7.0f TFLOP/s" % (
            t["name"], m, k, n, ms, tflops))
        try:
            import torch
        except ImportError:
            continue
        f8 = torch.float8_e4m3fn
        a = torch.as_tensor(arrays[0], device="cuda").view(
            torch.float8_e5m2 if a_e5m2 else f8)
        b = torch.as_tensor(arrays[2], device="cuda").view(
            torch.float8_e5m2 if b_e5m2 else f8)
        # Logical A (M, K) and B^T (K, N) as stored by our case.
        a_log = a.t() if layout == "wgrad" else a
        bt_log = b.t() if layout == "fwd" else b
        out_dtype = torch.float32 if layout == "wgrad" else torch.bfloat16
        fast = t.get("role", "forward" if layout == "fwd" else "") == "forward"
        tensorwise = t.get("tensorwise", False)
        ia = torch.ones(() if tensorwise else (m, 1), device="cuda",
                        dtype=torch.float32)
        ib = torch.ones(() if tensorwise else (1, n), device="cuda",
                        dtype=torch.float32)
        # torch: mat1 row-major, mat2 column-major; rowwise needs bf16 out
        # (torchao computes in bf16 and casts an f32 result back).
        a_rm = a_log.contiguous()
        bt_cm = bt_log.t().contiguous().t()
        peer_dtype = torch.bfloat16
        peer = lambda: torch._scaled_mm(a_rm, bt_cm, ia, ib, out_dtype=peer_dtype,
                                        use_fast_accum=fast)
        with_copy = lambda: torch._scaled_mm(
            a_log.contiguous(), bt_log.t().contiguous().t(), ia, ib,
            out_dtype=peer_dtype, use_fast_accum=fast).to(out_dtype)
        for what, f in (("torch._scaled_mm " +
                         ("tensorwise" if tensorwise else "rowwise"), peer),
                        ("  + torchao's layout copies", with_copy)):
            tms = median_ms(cp, f, args.reps)
            print("%-42s %dx%dx%d (MxKxN) %9.3f ms %7.0f TFLOP/s (ours / torch: "
                  "%.2fx, fast_accum %s)" % (
                      what, m, k, n, tms, 2.0 * m * n * k / tms / 1e9, tms / ms,
                      fast))


def call_case(lib, dev_in, dev_out, cp):
    """Calls the case's _mlir_ciface_case on device buffers and waits."""
    descs = [make_descriptor(a.data.ptr, list(a.shape)) for a in dev_in + dev_out]
    fn = lib._mlir_ciface_case
    fn.restype = None
    fn(*[ctypes.byref(d) for d in descs])
    cp.cuda.runtime.deviceSynchronize()


def run_cases(args, cp):
    manifest = json.load(open(os.path.join(args.dir, "manifest.json")))
    failures = 0
    for case in manifest["cases"]:
        cdir = os.path.join(args.dir, case["name"])
        lib = ctypes.CDLL(os.path.join(cdir, "libcase.so"))
        dev_in = [cp.asarray(np.load(os.path.join(cdir, "in%d.npy" % i)))
                  for i in range(len(case["inputs"]))]
        dev_out = []
        for o in case["outputs"]:
            a = cp.empty(o["shape"], dtype=NP_OF[o["elem"]])
            # Poison: unwritten bytes show (through a 1-D view: a rank-0
            # array, the tensorwise scale, cannot change its dtype).
            a.reshape(-1).view(cp.uint8)[...] = 0xA5
            dev_out.append(a)
        cp.cuda.runtime.deviceSynchronize()
        call_case(lib, dev_in, dev_out, cp)
        refs = None
        if case.get("gpu_reference"):
            # The unfused lowering of the same module, on the same inputs.
            ref_out = [cp.zeros_like(a) for a in dev_out]
            call_case(ctypes.CDLL(os.path.join(cdir, "libref.so")), dev_in,
                      ref_out, cp)
            refs = [cp.asnumpy(a).reshape(-1).view(np.uint8) for a in ref_out]
        bad = []
        if "tolerance" in case:
            bad = compare_with_tolerance(case, cdir, dev_out, cp)
            dev_out = []
        for j, a in enumerate(dev_out):
            got = cp.asnumpy(a).reshape(-1).view(np.uint8)
            ref = (refs[j] if refs is not None else
                   np.load(os.path.join(cdir, "ref", "r%d.npy" % j)).reshape(-1).view(np.uint8))
            if case.get("nan_equal"):
                # Float8 casts: f32 / bf16 NaNs of any payload match.
                same, why = gpu_check_float8.outputs_equal(
                    case["outputs"][j]["elem"], got, ref)
                if not same:
                    bad.append("r%d: %s" % (j, why))
                continue
            if got.shape != ref.shape or not np.array_equal(got, ref):
                n = int(np.count_nonzero(got != ref)) if got.shape == ref.shape else -1
                first = int(np.argmax(got != ref)) if n > 0 else -1
                bad.append("r%d: %d bytes differ (first at byte %d: gpu %s cpu %s)" % (
                    j, n, first, hex(got[first]) if first >= 0 else "-",
                    hex(ref[first]) if first >= 0 else "-"))
        status = "ok" if not bad else "MISMATCH " + "; ".join(bad)
        failures += bool(bad)
        print("%-32s %s" % (case["name"], status))
    return failures


def run_timing(args, cp):
    manifest = json.load(open(os.path.join(args.dir, "manifest.json")))
    # Ceiling: a large device-to-device copy, bytes read + written.
    n = 1 << 30
    src = cp.ones(n // 4, dtype=cp.float32)
    dst = cp.empty_like(src)
    copy_ms = median_ms(cp, lambda: dst.__setitem__(Ellipsis, src), 20)
    copy_bw = 2 * n / copy_ms / 1e6
    print("\ndevice copy: %.0f GB/s (2 x %d MiB in %.3f ms)" % (copy_bw, n >> 20, copy_ms))
    print("%-42s %10s %10s %9s %7s" % ("kernel", "MB moved", "time ms", "GB/s", "of copy"))
    records = [dict(what="copy", ms=copy_ms, gbs=copy_bw, bytes=2 * n)]
    for t in manifest["timing"]:
        if args.only and t["name"] not in args.only:
            continue
        mod = cp.RawModule(path=os.path.join(args.dir, "timing", t["name"] + ".cubin"))
        total_ms, total_bytes = 0.0, 0
        for launch in t["launches"]:
            kern = mod.get_function(launch["kernel"])
            params, nbytes = [], 0
            for ty in launch["args"]:
                parts = ty.split("x")
                elem = parts[-1].split(",")[0].strip()
                shape = [int(p) for p in parts[:-1]]
                dtype = NP_OF.get(elem, np.uint8)
                if elem == "i32" and len(shape) == 1:
                    # Group ends spread evenly over the tokens (first arg),
                    # multiples of 32, so that every row is copied.
                    tokens = int(launch["args"][0].split("x")[0])
                    g = shape[0]
                    ends = (np.arange(1, g + 1) * tokens // g) // 32 * 32
                    ends[-1] = tokens
                    arr = cp.asarray(ends.astype(np.int32))
                elif dtype == np.float32:
                    arr = cp.random.standard_normal(shape, dtype=cp.float32)
                elif dtype == np.uint16:
                    x = cp.random.standard_normal(shape, dtype=cp.float32)
                    arr = (x.view(cp.uint32) >> 16).astype(cp.uint16)
                else:
                    arr = cp.random.randint(0, 256, size=shape).astype(dtype)
                nbytes += arr.nbytes
                params.append(arr)  # bare-pointer kernel ABI
            ms = median_ms(cp, lambda: kern((launch["grid"],), (256,), tuple(params)),
                           args.reps)
            total_ms += ms
            total_bytes += nbytes
        bw = total_bytes / total_ms / 1e6
        print("%-42s %10.1f %10.3f %9.0f %6.1f%%" % (
            t["name"], total_bytes / 1e6, total_ms, bw, 100 * bw / copy_bw))
        records.append(dict(what="kernel", name=t["name"], ms=total_ms,
                            gbs=bw, bytes=total_bytes, of_copy=bw / copy_bw))
    if args.json:
        with open(args.json, "w") as f:
            for r in records:
                f.write(json.dumps(r) + "\n")


def median_ms(cp, fn, reps):
    for _ in range(3):
        fn()
    times = []
    for _ in range(reps):
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop))
    return float(np.median(times))


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("--build", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--chip", default="sm_90a")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--variant", metavar="SUFFIX",
                   help="add this build's timing kernels to an existing "
                   "DIR as NAME.SUFFIX (no cases)")
    p.add_argument("--only", action="append", default=[],
                   help="prepare only these timing kernels")
    p.add_argument("--lowering-options", default="", metavar="OPTS",
                   help="more options of convert-mxfp8train-to-gpu and "
                   "mxfp8train-lower-to-gpu for the timing kernels, e.g. "
                   "\"column-cast-lanes=4\" (with --variant), and for the "
                   "Float8 GEMM cases and timing cases (without it)")
    p.add_argument("--cases", metavar="REGEX",
                   help="prepare only the cases whose name matches")
    p.add_argument("--gemm-timing", metavar="REGEX",
                   help="prepare only the Float8 GEMM timing cases whose "
                   "name matches (e.g. with --lowering-options, one tuning "
                   "of one shape per folder)")
    r = sub.add_parser("run")
    r.add_argument("dir")
    r.add_argument("--no-timing", action="store_true")
    r.add_argument("--no-cases", action="store_true")
    r.add_argument("--only", action="append", default=[],
                   help="time only these timing kernels")
    r.add_argument("--gemm-data", choices=["uniform", "normal"],
                   default="uniform",
                   help="the Float8 GEMM timings' operands: random finite "
                   "bytes of magnitude <= 1 (uniform), or N(0, 1) cast with "
                   "a tensorwise amax scale (normal: needs torch)")
    r.add_argument("--reps", type=int, default=20)
    r.add_argument("--json", metavar="PATH",
                   help="also write the timings as JSON lines")
    args = parser.parse_args()
    if args.cmd == "prepare":
        prepare(args)
        return 0
    import cupy as cp
    # Kernels built for another architecture do not load: say so and run
    # nothing (the harness prints the same skip row).
    chip = json.load(open(os.path.join(args.dir, "manifest.json"))).get("chip", "sm_90a")
    want = int(re.match(r"sm_(\d+)", chip).group(1))
    found = int(cp.cuda.Device().compute_capability)
    if found != want:
        print("skip (needs sm_%d, found sm_%d): the cases of %s not run" % (
            want, found, args.dir))
        return 0
    # The cases and the GEMM timings call into the runtime (their host code:
    # streams, tensor maps, launches).
    ctypes.CDLL(os.path.join(args.dir, "libmxfp8train_runtime.so"),
                mode=ctypes.RTLD_GLOBAL)
    failures = 0 if args.no_cases else run_cases(args, cp)
    if not args.no_timing:
        run_gemm_timing(args, cp)
        run_timing(args, cp)
    # CuPy's pools keep freed blocks until asked: hand them back so that
    # compute-sanitizer's leak check sees every allocation freed.
    gc.collect()
    cp.get_default_memory_pool().free_all_blocks()
    cp.get_default_pinned_memory_pool().free_all_blocks()
    print("\n%d cases, %d mismatches" % (
        len(json.load(open(os.path.join(args.dir, "manifest.json")))["cases"]), failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
