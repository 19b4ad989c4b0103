#!/usr/bin/env python3
# ===- gemm_bench.py - MX GEMM kernels: device checks and benchmark --------=== #
#
# Checks the scaled_mm / scaled_grouped_mm kernels of
# convert-mxfp8train-to-gpu for one chip (sm_90a on an H200, sm_100a on a
# B200) against a float64 reference of the dequantized operands (torch on
# the GPU), and times them against cuBLAS bf16 (torch.matmul), dequantize +
# cuBLAS, torch._grouped_mm and, on sm_100 GPUs, cuBLAS MXFP8
# (torch._scaled_mm with blocked e8m0 scales). Two steps:
#
#   here (MLIR build, no GPU):
#     bench/gemm_bench.py prepare --build BUILD_DIR --out DIR [--chip sm_90a]
#   writes one MLIR function per case, compiles it with
#   scripts/aot-compile.sh into a host object (host code + cubin), and the
#   timing kernels' cubins with their launch shapes (manifest.json, which
#   records the chip). A case the lowering rejects for the chip is recorded
#   as skipped with the compiler's message. --cases REGEX keeps the check
#   cases whose name matches, --no-timing / --timing-only drop one half,
#   --lowering-options "simple-gemm=true" compiles the check cases with
#   extra mxfp8train-lower-to-gpu options (here: the simple GEMM kernel).
#
#   on the GPU machine (torch, CuPy; runtime built there from runtime/):
#     bench/gemm_bench.py run DIR --runtime-lib DIR/librt
#   links each object into a shared library (g++), calls _mlir_ciface_case
#   on random device data (outputs poisoned first), compares with the
#   float64 reference (SQNR >= 80 dB, NaN exactly where a 0xFF scale
#   reaches), runs each case twice (bitwise identical), then times the
#   timing kernels alone (CUDA events, warm-up, median): the op's launch
#   sequence traced from the converted IR, on buffers allocated once, with
#   the tensor maps the host code would create (v8's TMA loads) encoded
#   here through libcuda's cuTensorMapEncodeTiled with the arguments of the
#   runtime's mgpuTensorMapEncodeTiledMemref and copied to the device once.
#   On a GPU of another architecture than the chip it prints `skip (needs
#   sm_100, found sm_90)` and runs nothing.
#
# Exit status of `run`: 0 when every case passes (or all were skipped for
# the architecture), 1 otherwise.
#
# ===----------------------------------------------------------------------=== #

import argparse
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def make_descriptor(ptr, shape):
    """A ranked memref descriptor (identity layout) of device pointer `ptr`
    for `_mlir_ciface_*`."""
    import ctypes
    rank = len(shape)
    fields = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p),
              ("offset", ctypes.c_int64)]
    if rank:
        fields += [("sizes", ctypes.c_int64 * rank),
                   ("strides", ctypes.c_int64 * rank)]
    desc = type("MemRef%dD" % rank, (ctypes.Structure,), {"_fields_": fields})()
    desc.allocated = desc.aligned = ptr
    desc.offset = 0
    stride = 1
    for d in reversed(range(rank)):
        desc.sizes[d] = shape[d]
        desc.strides[d] = stride
        stride *= shape[d]
    return desc


def _load_extract_ptx():
    """test/Target/PTX/Inputs/extract-ptx.py as a module (its `unescape`
    reads MLIR string literals)."""
    import importlib.util
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        "test", "Target", "PTX", "Inputs", "extract-ptx.py")
    spec = importlib.util.spec_from_file_location("extract_ptx", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def extract_binary(text):
    """The bytes of the first `bin = "..."` of a gpu.binary (a cubin)."""
    key = 'bin = "'
    return _load_extract_ptx().unescape(text, text.index(key) + len(key))


def tt(shape, elem):
    return "tensor<%s>" % "x".join([str(d) for d in shape] + [elem])


# ---------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------

F8 = "f8E4M3FN"
SC = "f8E8M0FNU"


def blocked_size(rows, cols):
    return ((rows + 127) // 128) * 128 * ((cols + 3) // 4) * 4


# Extra #mxfp8train.gemm_config fields on every op (prepare --gemm-kernel).
EXTRA_CONFIG = {}
# The fields of #mxfp8train.gemm_config, in its order (docs/gpu.md).
CONFIG_FIELDS = ["kernel", "stages", "tile_n", "dequant_ctas", "prefetch",
                 "ctas_per_sm", "rebalance", "converters", "cta_group",
                 "cluster_m"]


def attr_dict(config):
    """` {mxfp8train.gemm_config = #mxfp8train.gemm_config<...>}` of the op's
    kernel configuration fields and EXTRA_CONFIG ("" when there are none)."""
    merged = dict(EXTRA_CONFIG)
    merged.update(config)
    if not merged:
        return ""

    def text(v):
        return ("true" if v else "false") if isinstance(v, bool) else str(v)
    return " {mxfp8train.gemm_config = #mxfp8train.gemm_config<%s>}" % (
        ", ".join("%s = %s" % (k, text(merged[k]))
                  for k in CONFIG_FIELDS if k in merged))


def mm_case(name, m, k, n, tl=False, tr=True, out="bf16", bias=None,
            batch=None, lhs_blocked=False, rhs_blocked=False, special=False,
            positive=False, cfg=None, ws=None, bigscale=False,
            nanonly=False, edgescale=False, extreme=False, extra=None):
    lead = [batch] if batch else []
    a = lead + ([k, m] if tl else [m, k])
    a_s = lead + ([k // 32, m] if tl else [m, k // 32])
    b = lead + ([n, k] if tr else [k, n])
    b_s = lead + ([n, k // 32] if tr else [k // 32, n])
    if lhs_blocked:
        a_s = [blocked_size(m, k // 32)]
    if rhs_blocked:
        b_s = [blocked_size(n, k // 32)]
    res = lead + [m, n]
    ins = [(a, F8), (a_s, SC), (b, F8), (b_s, SC)]
    if bias:
        ins.append(([n], bias))
    attrs = ""
    if bias:
        attrs += " bias(%arg4)"
    if tl:
        attrs += " transpose_lhs"
    if tr:
        attrs += " transpose_rhs"
    if lhs_blocked:
        attrs += " lhs_layout = blocked"
    if rhs_blocked:
        attrs += " rhs_layout = blocked"
    types = "%s [%s], %s [%s]" % (tt(a, F8), tt(a_s, SC), tt(b, F8), tt(b_s, SC))
    if bias:
        types += ", " + tt([n], bias)
    conf = {}
    if cfg:
        # Fused-upcast configuration (prefetch distance, CTAs per SM,
        # rebalancing): the fallback of the default kernel.
        cfg = cfg + (1,) if len(cfg) == 2 else cfg
        conf.update(prefetch=cfg[0], ctas_per_sm=cfg[1], rebalance=bool(cfg[2]))
    if ws:
        # The warp-specialised fused upcast (v7): converter warpgroups,
        # stages, rebalancing[, prefetch].
        conf.update(kernel="fused_upcast_ws", converters=ws[0], stages=ws[1],
                    rebalance=bool(ws[2]))
        if len(ws) > 3:
            conf.update(prefetch=ws[3])
    conf.update(extra or {})
    attrs += attr_dict(conf)
    body = "%%r = mxfp8train.scaled_mm %%arg0 [%%arg1], %%arg2 [%%arg3]%s : %s -> %s" % (
        attrs, types, tt(res, out))
    return dict(name=name, kind="mm", m=m, k=k, n=n, tl=tl, tr=tr, out=out,
                bias=bias, batch=batch, lhs_blocked=lhs_blocked,
                rhs_blocked=rhs_blocked, special=special, positive=positive,
                bigscale=bigscale, nanonly=nanonly, edgescale=edgescale,
                extreme=extreme, ins=ins,
                result=(res, out), body=body)


def gmm_case(name, kind, m, k, n, e, offs, tl=False, tr=True, out="bf16",
             kernel=None, extra=None):
    if kind == "2d3d":
        a = [k, m] if tl else [m, k]
        a_s = [k // 32, m] if tl else [m, k // 32]
        b = [e, n, k] if tr else [e, k, n]
        b_s = [e, n, k // 32] if tr else [e, k // 32, n]
        res = [m, n]
    else:
        # wgrad: lhs logically (N, M) (tl: stored (M, N)), rhs logically
        # (M, K) (tr: stored (K, M)); contraction over the M tokens.
        a = [m, n] if tl else [n, m]
        a_s = [m // 32, n] if tl else [n, m // 32]
        b = [k, m] if tr else [m, k]
        b_s = [k, m // 32] if tr else [m // 32, k]
        res = [e, n, k]
    ins = [(a, F8), (a_s, SC), (b, F8), (b_s, SC), ([e], "i32")]
    attrs = (" transpose_lhs" if tl else "") + (" transpose_rhs" if tr else "")
    conf = {} if kernel is None else {"kernel": kernel}
    conf.update(extra or {})
    attrs += attr_dict(conf)
    body = ("%%r = mxfp8train.scaled_grouped_mm %%arg0 [%%arg1], %%arg2 [%%arg3] "
            "offs(%%arg4)%s : %s [%s], %s [%s], %s -> %s" % (
                attrs, tt(a, F8), tt(a_s, SC), tt(b, F8), tt(b_s, SC),
                tt([e], "i32"), tt(res, out)))
    return dict(name=name, kind=kind, m=m, k=k, n=n, e=e, offs=offs, tl=tl,
                tr=tr, out=out, ins=ins, result=(res, out), body=body)


def check_cases():
    cases = []
    # SPEC §8 test_matrix_multiplication shapes (M, K, N), forward layout.
    for (m, k, n) in [(128, 128, 128), (256, 256, 256), (384, 384, 384),
                      (512, 512, 512), (768, 768, 768), (1024, 1024, 1024),
                      (8192, 8192, 8192), (128, 256, 384), (256, 384, 512),
                      (129, 256, 384), (133, 512, 528)]:
        # Non-negative data like torchao's torch.rand inputs; bf16 and f32
        # results.
        cases.append(mm_case("mm_%dx%dx%d" % (m, k, n), m, k, n,
                             positive=True))
        cases.append(mm_case("mm_%dx%dx%d_f32" % (m, k, n), m, k, n,
                             positive=True, out="f32"))
    # Every operand layout, bias, f32 out, on awkward shapes.
    for (m, k, n) in [(256, 384, 512), (129, 256, 384), (133, 512, 528)]:
        for tl in (False, True):
            for tr in (False, True):
                cases.append(mm_case(
                    "mm_%dx%dx%d_%s%s_f32_bias" % (m, k, n, "T" if tl else "N",
                                                   "T" if tr else "N"),
                    m, k, n, tl=tl, tr=tr, out="f32", bias="bf16"))
    cases.append(mm_case("mm_200x320x136_f32bias_bf16out", 200, 320, 136,
                         bias="f32"))
    for cfg in [(1, 2), (2, 1), (4, 1)]:
        cases.append(mm_case("mm_256x384x512_p%dc%d" % cfg, 256, 384, 512,
                             out="f32", cfg=cfg))
    cases.append(mm_case("mm_blocked_256x384x512", 256, 384, 512,
                         lhs_blocked=True, rhs_blocked=True))
    cases.append(mm_case("mm_blocked_133x512x528", 133, 512, 528,
                         lhs_blocked=True, rhs_blocked=True, tr=False))
    cases.append(mm_case("mm_batched_3x129x256x200", 129, 256, 200, batch=3))
    cases.append(mm_case("mm_special_256x512x384", 256, 512, 384,
                         special=True, out="f32"))
    # Scale bytes above 134 in K-blocks 4-5 (the third stage): v7 takes its
    # two-multiply path there and the fused one elsewhere.
    cases.append(mm_case("mm_bigscale_256x512x384", 256, 512, 384,
                         bigscale=True, out="f32"))
    # v8: NaN scale bytes without extreme ones (the pre-pass path), and the
    # extreme scale bytes bf16 still holds exactly (3 and 246 for e4m3).
    cases.append(mm_case("mm_nanonly_256x512x384", 256, 512, 384,
                         nanonly=True, out="f32"))
    cases.append(mm_case("mm_edgescale_256x512x384", 256, 512, 384,
                         edgescale=True, out="f32"))
    # Operand elements beyond f32 on their own with finite products (SPEC
    # §3.1): the special pairs plus (250, 4) and (247, 7) in K-blocks 2-3
    # (byte 247 with |q| >= 256 is what RCEIL gives a row holding bf16 max).
    cases.append(mm_case("mm_extreme_256x512x384", 256, 512, 384,
                         extreme=True, out="f32"))
    cases.append(mm_case("mm_extreme_129x512x384_bf16_bias", 129, 512, 384,
                         extreme=True, bias="bf16"))
    # v8 with 128x128 tiles; v7 (the fused upcast, v8's fallback) alone.
    n128 = dict(kernel="dequant_bf16", tile_n=128)
    for (m, k, n) in [(1024, 1024, 1024), (133, 512, 528), (256, 384, 512)]:
        cases.append(mm_case("mm_n128_%dx%dx%d_f32" % (m, k, n), m, k, n,
                             out="f32", extra=n128))
    for (m, k, n) in [(1024, 1024, 1024), (133, 512, 528)]:
        cases.append(mm_case("mm_v7_%dx%dx%d_f32" % (m, k, n), m, k, n,
                             out="f32", extra=dict(kernel="fused_upcast_ws")))
    # Grouped 2d-3d: empty groups, sizes multiples of 32 but not of 128.
    offs8 = [96, 96, 320, 352, 352, 608, 800, 960]
    cases.append(gmm_case("gmm2d3d_1024x512x384_e8", "2d3d", 1024, 512, 384,
                          8, offs8))
    cases.append(gmm_case("gmm2d3d_1024x512x384_e8_Bkn", "2d3d", 1024, 512,
                          384, 8, offs8, tr=False, out="f32"))
    cases.append(gmm_case("gmm2d3d_v7_1024x512x384_e8", "2d3d", 1024, 512,
                          384, 8, offs8, out="f32",
                          extra=dict(kernel="fused_upcast_ws")))
    # 2d-2d wgrad: per group dW (N, K) over its tokens; empty groups -> 0.
    offs4 = [160, 160, 544, 992]
    cases.append(gmm_case("gmm2d2d_1024tok_n256_k384_e4", "2d2d", 1024, 384,
                          256, 4, offs4, tl=False, tr=True))
    cases.append(gmm_case("gmm2d2d_1024tok_n256_k384_e4_TN", "2d2d", 1024,
                          384, 256, 4, offs4, tl=True, tr=False, out="f32"))
    # A group end that is not a multiple of 32 (a scale block shared by two
    # groups): v8's pre-pass flags it and the v5 fallback runs.
    cases.append(gmm_case("gmm2d2d_misaligned_1024tok_n256_k384_e4", "2d2d",
                          1024, 384, 256, 4, [96, 100, 544, 992], out="f32"))
    cases.append(gmm_case("gmm2d2d_v5_1024tok_n256_k384_e4", "2d2d", 1024, 384,
                          256, 4, offs4, out="f32", kernel="fused_upcast"))
    # The 2-CTA cluster along M (v8's grouped kernels, `_c2`): pairs of
    # row tiles share the B tile (TMA multicast). Experts with an odd number
    # of row tiles (3, 5, 1, 5: the pair's second tile is empty), empty
    # experts, a partial last N tile, rows past the last group; MN-major B
    # (pre-pass) with f32 out; 128-column tiles (64-row B shares).
    offs6 = [384, 384, 1024, 1152, 1152, 1696]
    cases.append(gmm_case("gmm2d3d_c2_2048x256x384_e6_odd", "2d3d", 2048, 256,
                          384, 6, offs6))
    cases.append(gmm_case("gmm2d3d_c2_2048x256x384_e6_odd_Bkn", "2d3d", 2048,
                          256, 384, 6, offs6, tr=False, out="f32"))
    cases.append(gmm_case("gmm2d3d_c2_n128_2048x256x384_e6_odd", "2d3d", 2048,
                          256, 384, 6, offs6, out="f32",
                          extra=dict(kernel="dequant_bf16", tile_n=128)))
    # 2d-2d with an odd number of row tiles (N = 384: 3) and an empty group.
    cases.append(gmm_case("gmm2d2d_c2_1024tok_n384_k320_e4", "2d2d", 1024, 320,
                          384, 4, offs4))
    cases.append(gmm_case("gmm2d2d_c2_1024tok_n384_k320_e4_TN", "2d2d", 1024,
                          320, 384, 4, offs4, tl=True, tr=False, out="f32"))
    return cases


def timing_cases(chip="sm_90a"):
    if not chip.startswith("sm_90"):
        return default_timing_cases()
    t = []
    shapes = [(16384, 4096, 14336), (16384, 14336, 4096), (16384, 4096, 4096),
              (8192, 8192, 8192)]
    offs = [2048 * (i + 1) for i in range(8)]

    def both(tag, mm_kw, gmm_kw, on_shapes=shapes, grouped=True):
        for (m, k, n) in on_shapes:
            t.append(mm_case("t_%s_mm_%dx%dx%d" % (tag, m, k, n), m, k, n,
                             **mm_kw))
        if grouped:
            t.append(gmm_case("t_%s_gmm2d3d_16384_k7168_n2048" % tag, "2d3d",
                              16384, 7168, 2048, 8, offs, **gmm_kw))
            t.append(gmm_case("t_%s_gmm2d3d_16384_k2048_n7168" % tag, "2d3d",
                              16384, 2048, 7168, 8, offs, **gmm_kw))
    # v7 (warp-specialised, fused upcast), v8 default (dequantize pre-passes
    # + bf16 GEMM, 128x256 tiles, four stages; the whole launch sequence is
    # timed) and v8 variants (stages, 128x128 tiles); the 2d-2d wgrad on v5
    # (v8 does not take it).
    both("v7", dict(ws=(2, 4, 1)), dict(kernel="fused_upcast_ws"),
         [(8192, 8192, 8192)], False)
    both("v8", dict(), dict())
    t.append(gmm_case("t_v8_gmm2d2d_16384_n2048_k7168", "2d2d",
                      16384, 7168, 2048, 8, offs, tl=False, tr=True))
    # The cluster along M (gemm_config cluster_m) named explicitly: one
    # CTA (c1) and pairs sharing the B tile (c2), every form, same call.
    for cm in (1, 2):
        cfg = dict(extra=dict(cluster_m=cm))
        both("v8c%d" % cm, cfg, cfg)
        t.append(gmm_case("t_v8c%d_gmm2d2d_16384_n2048_k7168" % cm, "2d2d",
                          16384, 7168, 2048, 8, offs, tl=False, tr=True,
                          **cfg))
    # The backward layouts of the Llama shapes (MN-major operands go
    # through the row-fastest pre-pass): dgrad dY (16384, 14336) x W
    # stored (14336, 4096); wgrad dY^T X with both stored token-major.
    t.append(mm_case("t_v8_mm_dgrad_16384x14336x4096_NN", 16384, 14336, 4096,
                     tl=False, tr=False))
    t.append(mm_case("t_v8_mm_wgrad_14336x16384x4096_TN", 14336, 16384, 4096,
                     tl=True, tr=False))
    # Measured in earlier runs (bench/README.md): three or two stages,
    # 128x128 tiles, two pre-pass items per thread, pre-pass grid caps.
    t.append(gmm_case("t_v5_gmm2d2d_16384_n2048_k7168", "2d2d",
                      16384, 7168, 2048, 8, offs, tl=False, tr=True,
                      kernel="fused_upcast"))
    return t


def default_timing_cases():
    """The main-job shapes with the chip's default lowering (no version
    attributes): the four dense Llama / 8192^3 shapes, the backward layouts,
    grouped 2d-3d and 2d-2d (16384 tokens, 8 equal groups)."""
    t = []
    offs = [2048 * (i + 1) for i in range(8)]
    for (m, k, n) in [(16384, 4096, 14336), (16384, 14336, 4096),
                      (16384, 4096, 4096), (8192, 8192, 8192)]:
        t.append(mm_case("t_mm_%dx%dx%d" % (m, k, n), m, k, n))
    t.append(mm_case("t_mm_dgrad_16384x14336x4096_NN", 16384, 14336, 4096,
                     tl=False, tr=False))
    t.append(mm_case("t_mm_wgrad_14336x16384x4096_TN", 14336, 16384, 4096,
                     tl=True, tr=False))
    t.append(gmm_case("t_gmm2d3d_16384_k7168_n2048", "2d3d", 16384, 7168, 2048,
                      8, offs))
    t.append(gmm_case("t_gmm2d3d_16384_k2048_n7168", "2d3d", 16384, 2048, 7168,
                      8, offs))
    t.append(gmm_case("t_gmm2d2d_16384_n2048_k7168", "2d2d", 16384, 7168, 2048,
                      8, offs, tl=False, tr=True))
    return t


def chip_sm(chip):
    """100 for sm_100a, 90 for sm_90a."""
    m = re.match(r"sm_(\d+)", chip)
    return int(m.group(1)) if m else 0


def module_text(case):
    args = ", ".join("%%arg%d: %s" % (i, tt(*x)) for i, x in enumerate(case["ins"]))
    res = tt(*case["result"])
    return "func.func @case(%s) -> %s {\n  %s\n  return %%r : %s\n}\n" % (
        args, res, case["body"], res)


# ---------------------------------------------------------------------------
# prepare (here)
# ---------------------------------------------------------------------------


def run(cmd, **kw):
    print("+", " ".join(cmd), file=sys.stderr)
    return subprocess.run(cmd, check=True, **kw)


def host_function_text(conv):
    """The text of the converted module's host function (func.func), so that
    SSA names inside the kernels cannot shadow the host's."""
    lines = conv.splitlines()
    for i, line in enumerate(lines):
        if line.lstrip().startswith("func.func @"):
            indent = line[:len(line) - len(line.lstrip())]
            for j in range(i + 1, len(lines)):
                if lines[j] == indent + "}":
                    return "\n".join(lines[i:j + 1])
    raise SystemExit("gemm_bench: no func.func in the converted IR")


def parse_tensor_maps(host, source):
    """The tensor maps the host code creates (TMA.cpp, createTensorMap): per
    `llvm.call @mgpuTensorMapEncodeTiledMemref(rank, desc, dtype, interleave,
    swizzle, l2, oob, box)`, the stack arrays of the memref descriptor
    {allocated, aligned, offset, sizes, strides} and of the box are traced
    through their llvm.store / getelementptr ops to constants and to the
    buffer whose aligned pointer the descriptor holds. Returns {SSA name of
    the map: dict(buffer=ref, sizes, strides, box, dtype, interleave,
    swizzle, l2, oob)}; anything untraceable stops the script."""
    consts = dict(re.findall(r"(%\w+) = llvm.mlir.constant\((-?\d+) : i64\) : i64", host))
    arrays = {m.group(1): [None] * int(m.group(2)) for m in re.finditer(
        r"(%\w+) = llvm.alloca %\w+ x !llvm.array<(\d+) x i64>", host)}
    geps = {m.group(1): (m.group(2), int(m.group(3))) for m in re.finditer(
        r"(%\w+) = llvm.getelementptr (%\w+)\[0, (\d+)\]", host)}
    for m in re.finditer(r"llvm.store (%\w+), (%\w+) :", host):
        array, index = geps.get(m.group(2), (m.group(2), 0))
        if array in arrays:
            arrays[array][index] = m.group(1)
    casts = dict(re.findall(r"(%\w+) = arith.index_castui (%\w+) : index to i64", host))
    pointers = {m.group(1): (m.group(2), m.group(3)) for m in re.finditer(
        r"(%\w+) = memref.extract_aligned_pointer_as_index (%\w+) : memref<([\dx]+)x\w+>", host)}

    def fail(what, call):
        raise SystemExit("gemm_bench: cannot trace %s of the tensor map %s" % (what, call))

    def const(name, what, call):
        if name not in consts:
            fail(what, call)
        return int(consts[name])

    maps = {}
    for m in re.finditer(r"(%\w+) = llvm.call @mgpuTensorMapEncodeTiledMemref\(([^)]*)\)", host):
        call = m.group(0)
        a = [x.strip() for x in m.group(2).split(",")]
        if len(a) != 8 or a[1] not in arrays or a[7] not in arrays:
            fail("the arguments", call)
        rank = const(a[0], "the rank", call)
        desc, box = arrays[a[1]], arrays[a[7]]
        if len(desc) != 3 + 2 * rank or len(box) != rank or None in desc or None in box:
            fail("the descriptor or box", call)
        ptr = pointers.get(casts.get(desc[1]))
        if ptr is None:
            fail("the buffer", call)
        view, shape = ptr
        sizes = [const(v, "a size", call) for v in desc[3:3 + rank]]
        strides = [const(v, "a stride", call) for v in desc[3 + rank:]]
        if const(desc[2], "the offset", call) != 0 or sizes != [int(d) for d in shape.split("x")]:
            fail("a descriptor matching its buffer", call)
        ref = source.get(view)
        if ref is None or ref[0] not in ("arg", "alloc"):
            fail("the buffer's origin", call)
        maps[m.group(1)] = dict(
            buffer=ref, sizes=sizes, strides=strides,
            box=[const(v, "a box extent", call) for v in box],
            dtype=const(a[2], "the data type", call),
            interleave=const(a[3], "interleave", call),
            swizzle=const(a[4], "swizzle", call), l2=const(a[5], "L2 promotion", call),
            oob=const(a[6], "the fill", call))
    return maps


def parse_launches(conv, consts):
    """Every gpu.launch_func of the converted function in order, with each
    kernel argument traced to a function argument ("arg", i), a buffer the
    host code allocates ("alloc", id), the result ("result") or a tensor
    map the host code creates ("tensormap", i); the allocations {id:
    [elements, element type]} and the tensor maps (parse_tensor_maps, in
    the order of their index i)."""
    conv = host_function_text(conv)
    source, allocs, result = {}, {}, None
    for m in re.finditer(r"(%\w+) = bufferization.to_buffer %arg(\d+)", conv):
        source[m.group(1)] = ["arg", int(m.group(2))]
    for m in re.finditer(r"(%\w+) = memref.alloc\(\) : memref<([\dx]+)x(\w+)>", conv):
        n = 1
        for d in m.group(2).split("x"):
            n *= int(d)
        allocs[m.group(1)] = [n, m.group(3)]
        source[m.group(1)] = ["alloc", m.group(1)]
    for m in re.finditer(r"(%\w+) = memref.(?:collapse_shape|expand_shape) (%\w+)", conv):
        source[m.group(1)] = source.get(m.group(2), ["unknown", m.group(2)])
    m = re.search(r"bufferization.to_tensor (%\w+)", conv)
    if m:
        result = m.group(1)
    maps = parse_tensor_maps(conv, source)
    map_index = {name: i for i, name in enumerate(maps)}
    launches = []
    # A cluster launch's `clusters in` is parsed and dropped: the kernels
    # carry their cluster shape (`.reqnctapercluster`), so CuPy's plain
    # launch of the grid runs them in clusters all the same.
    pattern = (r"gpu.memset\s+(%\w+), %c0_i32|"
               r"gpu.launch_func\s+@mxfp8train_kernels::@(\w+) "
               r"(?:clusters in \([^)]*\)\s*)?blocks in "
               r"\((%c\w*), (%c\w*), (%c\w*)\)\s*threads in \((%c\w*), (%c\w*), (%c\w*)\)\s*"
               r"(?:dynamic_shared_memory_size (%c\w*))?\s*args\(([^)]*)\)")
    for m in re.finditer(pattern, conv):
        if m.group(1):
            launches.append(dict(memset=source.get(m.group(1), ["unknown", m.group(1)])))
            continue
        args = []
        for a in m.group(10).split(","):
            name = a.split(":")[0].strip()
            if name in map_index:
                args.append(["tensormap", map_index[name]])
                continue
            ref = source.get(name)
            if ref is None or ref[0] == "unknown":
                raise SystemExit("gemm_bench: cannot trace argument %s of %s" % (name, m.group(2)))
            if ref[0] == "alloc" and ref[1] == result:
                ref = ["result"]
            args.append(ref)
        grid = [int(consts[m.group(i)]) for i in (3, 4, 5)]
        block = [int(consts[m.group(i)]) for i in (6, 7, 8)]
        launches.append(dict(kernel=m.group(2),
                             grid=grid[0] if grid[1:] == [1, 1] else grid,
                             threads=block[0] if block[1:] == [1, 1] else block,
                             smem=int(consts[m.group(9)]) if m.group(9) else 0,
                             args=args))
    for t in maps.values():
        if t["buffer"][0] == "alloc" and t["buffer"][1] == result:
            t["buffer"] = ["result"]
    return (launches, {k: v for k, v in allocs.items() if k != result},
            list(maps.values()))


def prepare(args):
    build = os.path.abspath(args.build)
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    opt = os.path.join(build, "bin", "mxfp8-opt")
    env = dict(os.environ, MXFP8_OPT=opt)
    chip = args.chip
    manifest = dict(chip=chip, cases=[], timing=[],
                    lowering_options=args.lowering_options)
    cases = [] if args.timing_only else check_cases()
    if args.cases:
        cases = [c for c in cases if re.search(args.cases, c["name"])]
    if not chip.startswith("sm_90"):
        # The version and tiling attributes choose among the sm_90a kernels;
        # elsewhere those cases repeat others.
        cases = [c for c in cases if "mxfp8train.gemm_" not in c["body"]]
    skipped = 0
    for case in cases:
        src = os.path.join(out, case["name"] + ".mlir")
        with open(src, "w") as f:
            f.write(module_text(case))
        entry = {k: v for k, v in case.items() if k != "body"}
        try:
            run(["bash", os.path.join(ROOT, "scripts", "aot-compile.sh"), src,
                 os.path.join(out, case["name"] + ".o"), chip,
                 args.lowering_options], env=env,
                capture_output=True, text=True)
        except subprocess.CalledProcessError as ex:
            lines = [l for l in ex.stderr.split("\n") if "error" in l] or [""]
            entry["skipped"] = lines[0].strip()[:200]
            skipped += 1
        os.remove(src)
        manifest["cases"].append(entry)
    for case in ([] if args.no_timing else timing_cases(chip)):
        src = os.path.join(out, case["name"] + ".mlir")
        with open(src, "w") as f:
            f.write(module_text(case))
        conv = run([opt, src, "--convert-mxfp8train-to-gpu=chip=" + chip,
                    "--canonicalize"], capture_output=True, text=True).stdout
        low = run([opt, src, "--mxfp8train-lower-to-gpu=chip=%s format=bin" % chip],
                  capture_output=True, text=True).stdout
        with open(os.path.join(out, case["name"] + ".cubin"), "wb") as f:
            f.write(extract_binary(low))
        consts = dict(re.findall(r"(%c\w*) = arith.constant (\d+) : (?:index|i32)", conv))
        entry = {k: v for k, v in case.items() if k != "body"}
        entry["launches"], entry["allocs"], entry["tensor_maps"] = parse_launches(conv, consts)
        # The GEMM itself: the first launch that is no pre-pass.
        main = [la for la in entry["launches"]
                if re.search(r"scaled_g?mm|gemm", la.get("kernel", ""))
                and "dequant" not in la["kernel"]][0]
        entry.update(kernel=main["kernel"], grid=main["grid"],
                     threads=main["threads"], smem=main["smem"])
        manifest["timing"].append(entry)
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    print("prepared %d cases (%d not lowered for %s), %d timing kernels in %s" % (
        len(manifest["cases"]), skipped, chip, len(manifest["timing"]), out))


# ---------------------------------------------------------------------------
# run (GPU machine)
# ---------------------------------------------------------------------------


def scale_values(torch, s):
    """e8m0 bytes -> float64 2^(s-127), NaN for 255."""
    v = torch.pow(torch.tensor(2.0, dtype=torch.float64, device=s.device),
                  s.to(torch.float64) - 127)
    return torch.where(s == 255, torch.full_like(v, float("nan")), v)


def unblock(torch, blocked, rows, cols):
    """SPEC §4.1 blocked layout -> (rows, cols) row-major."""
    r = torch.arange(rows, device=blocked.device).view(-1, 1)
    c = torch.arange(cols, device=blocked.device).view(1, -1)
    col_tiles = (cols + 3) // 4
    off = ((r // 128) * col_tiles + c // 4) * 512 + (r % 32) * 16 + (r % 128 // 32) * 4 + c % 4
    return blocked[off]


def deq(torch, q, s, kdim):
    """Dequantizes fp8 bytes q with scales s (same orientation, K / 32 along
    kdim) to float64."""
    x = q.view(torch.float8_e4m3fn).to(torch.float64)
    sv = scale_values(torch, s)
    return x * torch.repeat_interleave(sv, 32, dim=kdim)


def make_operands(torch, case, gen):
    dev = "cuda"
    ins = []
    for shape, elem in case["ins"]:
        if elem == F8:
            # torch.rand-like magnitudes (SPEC §8 uses torch.rand), random
            # signs, every fp8 byte except NaN.
            b = torch.randint(0, 256, shape, dtype=torch.uint8, device=dev, generator=gen)
            b = torch.where((b & 0x7F) == 0x7F, b ^ 0x01, b)
            if case.get("positive"):
                b = b & 0x7F
            ins.append(b)
        elif elem == SC:
            ins.append(torch.randint(120, 134, shape, dtype=torch.uint8, device=dev, generator=gen))
        elif elem == "i32":
            ins.append(torch.tensor(case["offs"], dtype=torch.int32, device=dev))
        elif elem == "bf16":
            ins.append(torch.randn(shape, device=dev, generator=gen).to(torch.bfloat16))
        else:
            ins.append(torch.randn(shape, device=dev, generator=gen))
    def set_pair(k0, k1):
        # K-block 0: A scale k0, B scale k1; K-block 1 the other way round.
        a_s, b_s = ins[1], ins[3]
        a_s[:, 0], b_s[:, 0], a_s[:, 1], b_s[:, 1] = k0, k1, k1, k0

    def scatter_nan():
        # Needs M > 77, N > 300 and K >= 512 (K-blocks up to 15).
        a_s, b_s = ins[1], ins[3]
        a_s[5, 3] = a_s[77, 7] = b_s[11, 2] = b_s[300, 15] = 0xFF
    if case.get("special") or case.get("extreme"):
        # Products 2^0 * q_a * q_b exact only with rebalancing (or the
        # fallback of v8); a few 0xFF.
        set_pair(0x00, 0xFE)
        scatter_nan()
    if case.get("extreme"):
        a_s, b_s = ins[1], ins[3]
        a_s[:, 2], b_s[:, 2], a_s[:, 3], b_s[:, 3] = 250, 4, 247, 7
    if case.get("nanonly"):
        scatter_nan()
    if case.get("edgescale"):
        # The extreme scale bytes bf16 still holds exactly (v8's pre-pass).
        set_pair(3, 246)
    if case.get("bigscale"):
        a_s, b_s = ins[1], ins[3]
        a_s[:, 4:6] += 15
        b_s[:, 4:6] += 12
    return ins


def reference(torch, case, ins):
    """float64 reference and the NaN mask."""
    k = case["k"]
    if case["kind"] == "mm":
        a, a_s, b, b_s = ins[:4]
        m, n = case["m"], case["n"]
        if case["lhs_blocked"]:
            a_s = unblock(torch, a_s, m, k // 32)
        if case["rhs_blocked"]:
            rows = case["n"]
            bs = unblock(torch, b_s, rows, k // 32)
            b_s = bs if case["tr"] else bs.transpose(-1, -2)
        tl, tr = case["tl"], case["tr"]
        A = deq(torch, a, a_s, -2 if tl else -1)
        B = deq(torch, b, b_s, -1 if tr else -2)
        if tl:
            A = A.transpose(-1, -2)
        if tr:
            B = B.transpose(-1, -2)
        ref = A @ B
        if case["bias"]:
            ref = ref + ins[4].to(torch.float64)
        return ref
    a, a_s, b, b_s, offs = ins[:5]
    tl, tr = case["tl"], case["tr"]
    ends = [max(0, o) for o in case["offs"]]
    if case["kind"] == "2d3d":
        A = deq(torch, a, a_s, -2 if tl else -1)
        if tl:
            A = A.transpose(0, 1)
        B = deq(torch, b, b_s, -1 if tr else -2)
        if tr:
            B = B.transpose(-1, -2)
        ref = torch.zeros(case["m"], case["n"], dtype=torch.float64, device="cuda")
        start = 0
        for g, e in enumerate(ends):
            e = min(max(e, start), case["m"])
            if e > start:
                ref[start:e] = A[start:e] @ B[g]
            start = e
        return ref
    # 2d-2d: A logical (N, M), B logical (M, K).
    A = deq(torch, a, a_s, 0 if tl else 1)
    if tl:
        A = A.transpose(0, 1)
    B = deq(torch, b, b_s, 1 if tr else 0)
    if tr:
        B = B.transpose(0, 1)
    ref = torch.zeros(case["e"], case["n"], case["k"], dtype=torch.float64, device="cuda")
    start = 0
    for g, e in enumerate(ends):
        e = min(max(e, start), case["m"])
        if e > start:
            ref[g] = A[:, start:e] @ B[start:e]
        start = e
    return ref


def rne_full(torch, ref):
    return ref.to(torch.float32).to(torch.bfloat16).to(torch.float64)


def sqnr(torch, ref, got):
    ok = ~torch.isnan(ref)
    r = ref[ok]
    d = r - got.to(torch.float64)[ok]
    nd = torch.linalg.norm(d).item()
    nr = torch.linalg.norm(r).item()
    if nd == 0:
        return float("inf")
    import math
    return 20 * math.log10(nr / nd)


def link(obj, rtlib, outdir):
    so = os.path.join(outdir, os.path.basename(obj)[:-2] + ".so")
    subprocess.run(["g++", "-shared", "-o", so, obj, "-Wl,-Bsymbolic",
                    "-L" + rtlib, "-lmxfp8train_runtime", "-Wl,-rpath," + rtlib],
                   check=True)
    return so


def run_cases(args, torch, manifest):
    import ctypes
    ctypes.CDLL(os.path.join(args.runtime_lib, "libmxfp8train_runtime.so"),
                mode=ctypes.RTLD_GLOBAL)
    gen = torch.Generator(device="cuda")
    gen.manual_seed(1)
    libdir = "/tmp/gemm-libs"
    os.makedirs(libdir, exist_ok=True)
    failures = 0
    dt = {"bf16": torch.bfloat16, "f32": torch.float32}
    for case in manifest["cases"]:
        name = case["name"]
        if case.get("skipped"):
            print("%-36s skip (not lowered for %s: %s)" % (
                name, manifest.get("chip", "sm_90a"), case["skipped"]), flush=True)
            continue
        try:
            so = link(os.path.join(args.dir, name + ".o"), args.runtime_lib, libdir)
            lib = ctypes.CDLL(so)
            ins = make_operands(torch, case, gen)
            shape, elem = case["result"]
            outs = []
            for rep in range(2):
                o = torch.empty(shape, dtype=dt[elem], device="cuda")
                o.view(torch.uint8).fill_(0xA5)
                torch.cuda.synchronize()
                descs = [make_descriptor(t.data_ptr(), list(t.shape)) for t in ins + [o]]
                fn = lib._mlir_ciface_case
                fn.restype = None
                fn(*[ctypes.byref(d) for d in descs])
                torch.cuda.synchronize()
                outs.append(o)
            ref = reference(torch, case, ins)
            got = outs[0]
            same = torch.equal(outs[0].view(torch.uint8), outs[1].view(torch.uint8))
            nan_ok = torch.equal(torch.isnan(ref), torch.isnan(got.to(torch.float64)))
            db = sqnr(torch, ref, got)
            nnan = int(torch.isnan(ref).sum().item())
            if elem == "f32":
                detail = "f32"
                ok = same and nan_ok and db >= 80.0
            else:
                # A bf16 result is RNE(exact) at best (~55 dB vs float64):
                # it must be as close to float64 as RNE(float64) itself, to
                # 0.5 dB (fp32 accumulation differs only in ties and in
                # cancelling sums); the share equal to RNE(float64) and the
                # largest error in bf16 ulps of the reference are shown.
                fin = ~torch.isnan(ref)
                r, g = ref[fin], got.to(torch.float64)[fin]
                rne = r.to(torch.float32).to(torch.bfloat16).to(torch.float64)
                exact = (g == rne).double().mean().item()
                mag = torch.clamp(r.abs(), min=2.0 ** -126)
                ulp = torch.pow(2.0, torch.floor(torch.log2(mag)) - 7)
                worst = ((g - r).abs() / ulp).max().item()
                db_rne = sqnr(torch, ref, rne_full(torch, ref))
                detail = ("bf16: RNE(f64) %.2f dB, %.4f%% equal to it, max "
                          "%.2f ulp" % (db_rne, 100 * exact, worst))
                ok = same and nan_ok and db >= db_rne - 0.5
            failures += not ok
            print("%-36s sqnr vs f64 %7.2f dB  %s  nan %s (%d)  repeat %s  %s" % (
                name, db, detail, "ok" if nan_ok else "WRONG", nnan,
                "identical" if same else "DIFFERS", "ok" if ok else "FAIL"), flush=True)
        except Exception as ex:  # keep going: report every case
            failures += 1
            print("%-40s ERROR %s" % (name, ex), flush=True)
    return failures


# CUtensorMapDataType -> bytes per element (cuda.h; runtime/src/MemRef.cpp).
TENSOR_MAP_ELEMENT_BYTES = [1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4]


def load_libcuda(path=None):
    """libcuda (or the runtime's fake driver, for the tests) with the
    signature of cuTensorMapEncodeTiled."""
    import ctypes
    lib = ctypes.CDLL(path or "libcuda.so.1")
    f = lib.cuTensorMapEncodeTiled
    f.restype = ctypes.c_int
    f.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32, ctypes.c_void_p,
                  ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_uint64),
                  ctypes.POINTER(ctypes.c_uint32), ctypes.POINTER(ctypes.c_uint32),
                  ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int]
    return lib


def encode_tensor_map(lib, tmap, address):
    """The 128 bytes of the CUtensorMap of `tmap` (parse_tensor_maps) over
    the device address `address`, encoded with the arguments the runtime's
    mgpuTensorMapEncodeTiledMemref passes (runtime/src/MemRef.cpp,
    computeTiledTensorMapArgs): dimensions innermost first, the byte
    strides of the outer dimensions, box innermost first, element strides
    1. Any inconsistency or driver error raises."""
    import ctypes
    sizes, strides, box = tmap["sizes"], tmap["strides"], tmap["box"]
    rank = len(sizes)
    esize = TENSOR_MAP_ELEMENT_BYTES[tmap["dtype"]]
    expected = [1] * rank
    for d in range(rank - 2, -1, -1):
        expected[d] = expected[d + 1] * sizes[d + 1]
    if strides != expected or len(box) != rank or not 1 <= rank <= 5:
        raise ValueError("tensor map %s: not an identity-layout buffer" % tmap)
    if address % 16:
        raise ValueError("tensor map %s: address 0x%x is not 16-byte aligned" % (tmap, address))
    dims = (ctypes.c_uint64 * rank)(*reversed(sizes))
    gstrides = (ctypes.c_uint64 * rank)(*[strides[rank - 1 - i] * esize
                                          for i in range(1, rank)] + [0])
    boxd = (ctypes.c_uint32 * rank)(*reversed(box))
    estrides = (ctypes.c_uint32 * rank)(*([1] * rank))
    storage = ctypes.create_string_buffer(128 + 64)
    base = (ctypes.addressof(storage) + 63) & ~63
    res = lib.cuTensorMapEncodeTiled(
        ctypes.c_void_p(base), tmap["dtype"], rank, ctypes.c_void_p(address), dims,
        gstrides, boxd, estrides, tmap["interleave"], tmap["swizzle"], tmap["l2"],
        tmap["oob"])
    if res != 0:
        raise RuntimeError("cuTensorMapEncodeTiled failed (CUresult %d) for %s" % (res, tmap))
    return ctypes.string_at(base, 128)


def median_ms(torch, fn, reps, warmup=5):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e))
    times.sort()
    return times[len(times) // 2]


def to_blocked(torch, s):
    """(rows, cols) e8m0 bytes -> the SPEC §4.1 blocked layout (rows padded
    to 128, cols to 4 with byte 127), flat: the inverse of `unblock`."""
    rows, cols = s.shape
    col_tiles = (cols + 3) // 4
    out = torch.full((((rows + 127) // 128) * 128 * col_tiles * 4,), 127,
                     dtype=torch.uint8, device=s.device)
    r = torch.arange(rows, device=s.device).view(-1, 1)
    c = torch.arange(cols, device=s.device).view(1, -1)
    off = ((r // 128) * col_tiles + c // 4) * 512 + (r % 32) * 16 + (r % 128 // 32) * 4 + c % 4
    out[off.flatten()] = s.flatten()
    return out


def mx_cublas(torch, m, k, n):
    """cuBLAS MXFP8 on sm_100: fresh e4m3 operands A (m, k) and W (n, k),
    blocked e8m0 scales; returns (a call computing A W^T in bf16, the
    operands). torch._scaled_mm takes e8m0 scales as MX block scales; the
    newer torch.nn.functional.scaled_mm is tried when it refuses them."""
    def operand(rows):
        q = torch.randint(0, 126, (rows, k), dtype=torch.uint8, device="cuda")
        q = q | (torch.randint(0, 2, (rows, k), dtype=torch.uint8, device="cuda") << 7)
        sc = torch.randint(120, 134, (rows, k // 32), dtype=torch.uint8, device="cuda")
        return q, sc
    (a, a_s), (w, w_s) = operand(m), operand(n)
    a8, w8 = a.view(torch.float8_e4m3fn), w.view(torch.float8_e4m3fn)
    sa = to_blocked(torch, a_s).view(torch.float8_e8m0fnu)
    sb = to_blocked(torch, w_s).view(torch.float8_e8m0fnu)

    def legacy():
        return torch._scaled_mm(a8, w8.t(), sa, sb, out_dtype=torch.bfloat16)

    def v2():
        F = torch.nn.functional
        return F.scaled_mm(a8, w8.t(), sa, F.ScalingType.BlockWise1x32, sb,
                           F.ScalingType.BlockWise1x32,
                           swizzle_a=F.SwizzleType.SWIZZLE_32_4_4,
                           swizzle_b=F.SwizzleType.SWIZZLE_32_4_4,
                           output_dtype=torch.bfloat16)
    try:
        legacy()
        fn = legacy
    except Exception:
        v2()
        fn = v2
    return fn, (a, a_s, w, w_s)


def check_mx_cublas(torch):
    """The cuBLAS MXFP8 peer against float64 on 256 x 512 x 384, so that a
    wrong scale layout shows before it is timed: (SQNR dB, api) or raises."""
    fn, (a, a_s, w, w_s) = mx_cublas(torch, 256, 512, 384)
    ref = deq(torch, a, a_s, -1) @ deq(torch, w, w_s, -1).t()
    got = fn().to(torch.float64)
    return sqnr(torch, ref, got), fn.__name__


def run_timing(args, torch, manifest):
    import cupy as cp
    libcuda = load_libcuda()
    results = []
    # cuBLAS MXFP8 (block-scaled tcgen05) exists on sm_100 only.
    mx_peer = torch.cuda.get_device_capability()[0] >= 10
    if mx_peer:
        try:
            db, api = check_mx_cublas(torch)
            print("cuBLAS MXFP8 peer (%s): %.2f dB against float64 on 256x512x384%s" % (
                "torch._scaled_mm" if api == "legacy" else "torch.nn.functional.scaled_mm",
                db, "" if db >= 40 else " -- scale layout wrong? not timed"), flush=True)
            mx_peer = db >= 40
        except Exception as ex:
            print("cuBLAS MXFP8 peer unavailable: %s" % str(ex)[:300], flush=True)
            mx_peer = False
    for t in manifest["timing"]:
        if args.only and t["name"] not in args.only:
            continue
        name = t["name"]
        mod = cp.RawModule(path=os.path.join(args.dir, name + ".cubin"))
        ins = []
        for shape, elem in t["ins"]:
            if elem == F8:
                x = torch.randint(0, 126, shape, dtype=torch.uint8, device="cuda")
            elif elem == SC:
                x = torch.randint(120, 134, shape, dtype=torch.uint8, device="cuda")
            else:
                x = torch.tensor(t["offs"], dtype=torch.int32, device="cuda")
            ins.append(x)
        shape, elem = t["result"]
        out = torch.empty(shape, dtype=torch.bfloat16, device="cuda")
        # The op's whole launch sequence (v8: two dequantization pre-passes,
        # the GEMM, the guarded fallback that returns at once), on buffers
        # allocated once.
        dtypes = dict(bf16=torch.bfloat16, f32=torch.float32, i32=torch.int32)
        temps = {k: torch.empty(n, dtype=dtypes.get(e, torch.uint8), device="cuda")
                 for k, (n, e) in t.get("allocs", {}).items()}

        def buffer(ref):
            if ref[0] == "arg":
                return ins[ref[1]]
            if ref[0] == "result":
                return out
            if ref[0] == "alloc":
                return temps[ref[1]]
            raise ValueError("%s: untraced kernel argument %s" % (name, ref))
        # The tensor maps (v8's TMA loads), encoded once over the buffers
        # above and copied to the device, as the host code does per call.
        maps = []
        for tmap in t.get("tensor_maps", []):
            buf = buffer(tmap["buffer"])
            nbytes = TENSOR_MAP_ELEMENT_BYTES[tmap["dtype"]]
            for d in tmap["sizes"]:
                nbytes *= d
            if buf.numel() * buf.element_size() != nbytes:
                raise ValueError("%s: tensor map %s does not cover its buffer (%d bytes)" % (
                    name, tmap, buf.numel() * buf.element_size()))
            encoded = encode_tensor_map(libcuda, tmap, buf.data_ptr())
            maps.append(torch.frombuffer(bytearray(encoded), dtype=torch.uint8).to("cuda"))
        calls = []
        for la in t.get("launches", [dict(kernel=t["kernel"], grid=t["grid"],
                                          threads=t.get("threads", 256), smem=t["smem"],
                                          args=[["arg", i] for i in range(len(ins))] + [["result"]])]):
            if "memset" in la:
                calls.append((None, la, temps[la["memset"][1]]))
                continue
            kern = mod.get_function(la["kernel"])
            kern.max_dynamic_shared_size_bytes = la["smem"]
            ps = []
            for ref in la["args"]:
                x = maps[ref[1]] if ref[0] == "tensormap" else buffer(ref)
                ps.append(cp.asarray(x))
            calls.append((kern, la, tuple(ps)))

        def dims(d):
            return tuple(d) if isinstance(d, list) else (d,)

        def call(kern, la, ps):
            if kern is None:
                ps.zero_()
            else:
                kern(dims(la["grid"]), dims(la["threads"]), ps, shared_mem=la["smem"])

        def fn():
            for c in calls:
                call(*c)
        ms = median_ms(torch, fn, args.reps)
        parts = []
        if len(calls) > 1:
            for c in calls:
                parts.append(round(median_ms(torch, lambda: call(*c), args.reps), 4))
        m, k, n = t["m"], t["k"], t["n"]
        flops = 2.0 * m * k * n
        line = dict(name=name, kernel=t["kernel"], threads=t.get("threads", 256),
                    ms=ms, tflops=flops / ms / 1e9)
        if parts:
            line["launch_ms"] = parts
            # The GEMM kernel alone (no pre-pass, memset or guarded
            # fallback): in a converted step the quantize kernels write its
            # operands (fuse-dequant), so this is the GEMM a step runs.
            gemm = [i for i, c in enumerate(calls)
                    if c[0] is not None and c[1]["kernel"] == t["kernel"]]
            if gemm:
                line["gemm_kernel_ms"] = parts[gemm[0]]
        # Peers, same run: cuBLAS bf16 on the same logical shapes, and
        # dequantize (eager torch) + cuBLAS.
        a, a_s, b, b_s = ins[:4]
        try:
            if t["kind"] == "mm":
                A = torch.randn(m, k, device="cuda").to(torch.bfloat16)
                W = torch.randn(n, k, device="cuda").to(torch.bfloat16)
                line["cublas_ms"] = median_ms(torch, lambda: torch.matmul(A, W.t()), args.reps)
                if mx_peer:
                    # cuBLAS MXFP8 on the logical shape (A (m, k), W (n, k)),
                    # whatever layout our case stores.
                    fn, _ = mx_cublas(torch, m, k, n)
                    line["mx_cublas_ms"] = median_ms(torch, fn, args.reps)

                # The stored operands' K axes: A (m, k) or, transposed,
                # (k, m); B (n, k) with transpose_rhs, else (k, n).
                a_k = 0 if t["tl"] else 1
                b_k = 1 if t["tr"] else 0

                def dq(q, s, kdim):
                    return q.view(torch.float8_e4m3fn).to(torch.bfloat16) * torch.repeat_interleave(
                        (s.to(torch.int32) << 23).view(torch.float32), 32, dim=kdim).to(torch.bfloat16)

                def dq_mm():
                    Ad = dq(a, a_s, a_k)
                    Bd = dq(b, b_s, b_k)
                    return torch.matmul(Ad.t() if a_k == 0 else Ad,
                                        Bd.t() if b_k == 1 else Bd)
                line["dq_cublas_ms"] = median_ms(torch, dq_mm, args.reps)
            elif t["kind"] == "2d3d":
                e = t["e"]
                offs = ins[4]
                A = torch.randn(m, k, device="cuda").to(torch.bfloat16)
                W = torch.randn(e, n, k, device="cuda").to(torch.bfloat16)
                line["cublas_ms"] = median_ms(
                    torch, lambda: torch._grouped_mm(A, W.transpose(-2, -1), offs=offs), args.reps)
            else:
                e = t["e"]
                offs = ins[4]
                dOt = torch.randn(n, m, device="cuda").to(torch.bfloat16)
                X = torch.randn(k, m, device="cuda").to(torch.bfloat16)
                line["cublas_ms"] = median_ms(
                    torch, lambda: torch._grouped_mm(dOt, X.t(), offs=offs), args.reps)
        except Exception as ex:
            line["peer_error"] = str(ex)[:200]
        if "cublas_ms" in line:
            line["cublas_tflops"] = flops / line["cublas_ms"] / 1e9
            line["ratio_cublas"] = line["cublas_ms"] / ms
            if "gemm_kernel_ms" in line:
                line["ratio_cublas_gemm_kernel"] = line["cublas_ms"] / line["gemm_kernel_ms"]
        if "dq_cublas_ms" in line:
            line["dq_cublas_tflops"] = flops / line["dq_cublas_ms"] / 1e9
            line["ratio_dq_cublas"] = line["dq_cublas_ms"] / ms
        if "mx_cublas_ms" in line:
            line["mx_cublas_tflops"] = flops / line["mx_cublas_ms"] / 1e9
            line["ratio_mx_cublas"] = line["mx_cublas_ms"] / ms
        results.append(line)
        print(json.dumps(line), flush=True)
    # TFLOP/s; x PEER = peer time / ours (bf16: cuBLAS bf16 or _grouped_mm);
    # "GEMM ms" and "x bf16 GEMM": the GEMM kernel alone, without the
    # launch sequence's pre-passes.
    print("\n%-38s %9s %9s %9s %9s %9s %8s %8s %8s %9s %8s" % (
        "kernel", "ms", "TFLOP/s", "bf16", "dq+bf16", "MXFP8", "x bf16",
        "x dq+bf16", "x MXFP8", "GEMM ms", "x bf16 GEMM"))
    for r in results:
        print("%-38s %9.3f %9.1f %9.1f %9.1f %9.1f %8.2f %8.2f %8.2f %9.3f %8.2f" % (
            r["name"], r["ms"], r["tflops"], r.get("cublas_tflops", 0),
            r.get("dq_cublas_tflops", 0), r.get("mx_cublas_tflops", 0),
            r.get("ratio_cublas", 0), r.get("ratio_dq_cublas", 0),
            r.get("ratio_mx_cublas", 0), r.get("gemm_kernel_ms", 0),
            r.get("ratio_cublas_gemm_kernel", 0)))


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("--build", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--gemm-kernel", default=None,
                   choices=["dequant_bf16", "fused_upcast_ws", "fused_upcast"],
                   help="compile every check case with this kernel "
                   "(#mxfp8train.gemm_config kernel; fused_upcast_ws applies "
                   "to K-major operands with row-major scales, the others "
                   "get fused_upcast)")
    p.add_argument("--timing-only", action="store_true",
                   help="prepare the timing kernels only (no check cases)")
    p.add_argument("--no-timing", action="store_true",
                   help="prepare the check cases only (no timing kernels)")
    p.add_argument("--cases", default="",
                   help="only the check cases whose name matches this "
                   "regular expression")
    p.add_argument("--lowering-options", default="",
                   help="extra mxfp8train-lower-to-gpu options for the check "
                   "cases (e.g. simple-gemm=true: the simple GEMM kernel)")
    p.add_argument("--chip", default="sm_90a",
                   help="GPU architecture of the kernels (sm_90a, sm_100a)")
    r = sub.add_parser("run")
    r.add_argument("dir")
    r.add_argument("--runtime-lib", required=True)
    r.add_argument("--no-cases", action="store_true")
    r.add_argument("--no-timing", action="store_true")
    r.add_argument("--only", action="append", default=[])
    r.add_argument("--reps", type=int, default=20)
    args = parser.parse_args()
    if args.cmd == "prepare":
        if args.gemm_kernel is not None:
            EXTRA_CONFIG["kernel"] = args.gemm_kernel
        prepare(args)
        return 0
    import torch
    manifest = json.load(open(os.path.join(args.dir, "manifest.json")))
    chip = manifest.get("chip", "sm_90a")
    if not torch.cuda.is_available():
        print("skip (needs sm_%d, found no usable GPU)" % chip_sm(chip), flush=True)
        return 77
    major, minor = torch.cuda.get_device_capability()
    found = major * 10 + minor
    print("device: %s (sm_%d), kernels for %s" % (torch.cuda.get_device_name(),
                                                 found, chip), flush=True)
    if found != chip_sm(chip):
        print("skip (needs sm_%d, found sm_%d): %d cases and %d timing kernels "
              "not run" % (chip_sm(chip), found, len(manifest["cases"]),
                           len(manifest["timing"])), flush=True)
        return 0
    failures = 0 if args.no_cases else run_cases(args, torch, manifest)
    if not args.no_timing:
        run_timing(args, torch, manifest)
    print("\n%d cases, %d failures" % (len(manifest["cases"]), failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
