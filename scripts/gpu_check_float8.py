# ===- gpu_check_float8.py - Float8 cast cases of gpu-check.py -------------=== #
#
# The Float8 (f32-scaled, SPEC-float8 §2) quantize and dequantize cases of
# scripts/gpu-check.py, compared bit for bit with the CPU path like the MX
# cases: every fp8 byte exactly; f32 / bf16 outputs (scales, dequantized
# values) bit for bit except that any NaN equals any NaN (the CPU path keeps
# the payload of the NaN it propagates, the GPU's div.rn.f32 returns the
# canonical NaN; SPEC-float8 §2.7 fixes NaN-ness, not the payload).
#
# Cases: every granularity (tensorwise; axiswise along the last axis, the
# first axis, the -2 axis of a 3-D weight, a middle axis of a rank-4
# tensor), bf16 and f32 inputs, e4m3 and e5m2, pow2 off and on; odd shapes
# (rows not a multiple of any tile, an odd innermost extent, one element,
# rows long enough for the row kernel's second read, a 2M-element tensor);
# scaling groups of special values (NaN, ±Inf, all +0 / -0, amax below
# 1e-12 and at its f32 edge 0x2B8CBCCC / 0x2B8CBCCD, amax 1.75 * 2^e + j ulp
# on the §2.4 R-table boundaries, f32 max, subnormals). Tensorwise cases
# take one such fill for the whole tensor.
#
# Per-group (`offs`, SPEC-float8 §3.3) cases, all named `f8grp_*` (select
# them with --cases '^f8grp_'): uneven groups, empty groups (first, middle,
# every group), a one-row group, rows past the last group end, malformed
# offsets (decreasing, past the row count, negative: clamped as on the CPU
# path), an odd column count, every (group, column) scaling group one of the
# special fills above (rows outside every group get specials too: they must
# still be +0), and the DeepSeek-V3 wgrad columns (7168 and 2048 bf16 at
# 1024 and 2048 tokens, 8 uneven groups with an empty one); dequantize with
# uneven, empty and clamped groups.
#
# Timing (gpu-check.py run, against a device copy): 16384 x 8192 bf16 e4m3,
# rowwise, colwise and tensorwise (the latter two: amax + cast kernels), and
# the per-group cast of 16384 x 7168 bf16 in 8 groups (amax + cast kernels).
#
# ===----------------------------------------------------------------------=== #

import numpy as np

# Case kinds this module owns.
KINDS = ("f8quantize", "f8dequantize")

# mxfp8-run flags of the CPU reference runs: the scalar CPU lowering (the
# same Float8Arith.h numerics). With tiling and vectorization the CPU
# pipeline's compile time explodes on long Float8 reductions (a 48 x 64
# tensorwise cast: over 60 s, against 0.2 s scalar).
CPU_RUN_FLAGS = ["--vectorize=false"]

# Fills of a scaling group (one row of the group-major view).
GROUP_FILLS = ["normal", "nan", "inf", "zero", "negzero", "tiny", "eps_edge",
               "pow2_edge", "f32max", "big", "normal", "pow2_edge"]


def _tensor_type(shape, elem):
    return "tensor<%s>" % "x".join([str(d) for d in shape] + [elem])


def _scale_shape(shape, granularity, axis, offs=None):
    if offs is not None:
        return [len(offs), shape[1]]
    if granularity == "tensorwise":
        return []
    s = list(shape)
    s[axis] = 1
    return s


def cases():
    """The Float8 cast cases (dicts in gpu-check.py's case format)."""
    out = []

    def q(name, shape, elem, f8, gran, axis=None, pow2=False, fill=None):
        out.append(dict(name="f8q_" + name, kind="f8quantize", shape=shape,
                        elem=elem, f8=f8, granularity=gran, axis=axis,
                        pow2=pow2, fill=fill))

    # Every granularity x dtype x format x pow2 combination at least once.
    combos = [(e, f, p) for e in ("bf16", "f32") for f in ("f8E4M3FN", "f8E5M2")
              for p in (False, True)]
    for i, (elem, f8, pow2) in enumerate(combos):
        tag = "%s_%s%s" % (elem, "e4m3" if f8 == "f8E4M3FN" else "e5m2",
                           "_pow2" if pow2 else "")
        # Rowwise (last axis): rows not a multiple of the CTA's row group.
        q("row_" + tag, [37 + i, 256], elem, f8, "axiswise", 1, pow2)
        # Colwise (first axis): rows not a multiple of the row chunks.
        q("col_" + tag, [300 + i, 40], elem, f8, "axiswise", 0, pow2)
        # The -2 axis of a 3-D weight (E, K, N).
        q("w3d_" + tag, [3, 70, 24], elem, f8, "axiswise", 1, pow2)
        # Tensorwise, one fill each (the fills cycle over the combos).
        fill = GROUP_FILLS[i % len(GROUP_FILLS)]
        q("tensor_%s_%s" % (fill, tag), [48, 130], elem, f8, "tensorwise",
          None, pow2, fill)
    # Every tensorwise fill, both input types.
    for j, fill in enumerate(GROUP_FILLS[:10]):
        elem = "f32" if j % 2 == 0 else "bf16"
        q("tensor_fill_%s_%s" % (fill, elem), [33, 64], elem,
          "f8E4M3FN" if j % 3 else "f8E5M2", "tensorwise", None, j % 4 < 2,
          fill)
    # Odd shapes.
    q("row_odd_k", [5, 7], "bf16", "f8E4M3FN", "axiswise", 1, True)
    q("row_one", [1, 1], "f32", "f8E4M3FN", "axiswise", 1, False)
    q("row_rank1", [200], "f32", "f8E5M2", "axiswise", 0, True)
    q("row_rank3", [3, 40, 128], "bf16", "f8E4M3FN", "axiswise", 2, True)
    # Empty inputs with scales (every group empty: the scale of amax 0).
    q("tensor_empty", [0, 128], "bf16", "f8E5M2", "tensorwise")
    q("row_empty", [64, 0], "bf16", "f8E4M3FN", "axiswise", 1)
    q("col_empty", [0, 128], "bf16", "f8E4M3FN", "axiswise", 0, True)
    q("row_long_bf16", [24, 20000], "bf16", "f8E4M3FN", "axiswise", 1, True)
    q("row_long_f32", [9, 12288], "f32", "f8E5M2", "axiswise", 1, False)
    q("row_large", [4096, 1024], "bf16", "f8E4M3FN", "axiswise", 1, True)
    q("col_odd_inner", [7, 3], "f32", "f8E4M3FN", "axiswise", 0, True)
    q("col_one", [1, 1], "bf16", "f8E5M2", "axiswise", 0, False)
    q("col_mid_rank4", [2, 64, 3, 16], "f32", "f8E4M3FN", "axiswise", 1, True)
    q("col_large", [2048, 1024], "bf16", "f8E4M3FN", "axiswise", 0, True)
    q("tensor_one", [1, 1], "f32", "f8E4M3FN", "tensorwise", None, True,
      "normal")
    q("tensor_odd", [37, 201], "bf16", "f8E5M2", "tensorwise", None, False,
      "normal")
    q("tensor_large", [2048, 1000], "bf16", "f8E4M3FN", "tensorwise", None,
      True, "normal")
    q("tensor_rank3", [3, 40, 128], "f32", "f8E4M3FN", "tensorwise", None,
      False, "pow2_edge")

    def dq(name, shape, f8, gran, axis, outelem):
        out.append(dict(name="f8dq_" + name, kind="f8dequantize", shape=shape,
                        f8=f8, granularity=gran, axis=axis, out=outelem))

    dq("tensor_e4m3_bf16", [64, 256], "f8E4M3FN", "tensorwise", None, "bf16")
    dq("tensor_e5m2_f32_odd", [37, 201], "f8E5M2", "tensorwise", None, "f32")
    dq("row_e4m3_f32", [37, 200], "f8E4M3FN", "axiswise", 1, "f32")
    dq("row_e5m2_bf16_odd", [5, 7], "f8E5M2", "axiswise", 1, "bf16")
    dq("col_e4m3_bf16", [96, 80], "f8E4M3FN", "axiswise", 0, "bf16")
    dq("col_e5m2_f32_odd", [7, 3], "f8E5M2", "axiswise", 0, "f32")
    dq("w3d_e4m3_bf16", [3, 64, 40], "f8E4M3FN", "axiswise", 1, "bf16")
    return out + group_cases()


# The DeepSeek-V3 token groups: 8 uneven groups of 16384 tokens, one empty.
DEEPSEEK_OFFS = [1808, 4352, 4352, 6400, 9456, 11488, 13904, 16384]


def group_cases():
    """The per-group (offs) Float8 cast cases, all named f8grp_*."""
    out = []

    def q(name, shape, elem, f8, offs, pow2=False):
        out.append(dict(name="f8grp_q_" + name, kind="f8quantize",
                        shape=shape, elem=elem, f8=f8,
                        granularity="axiswise", axis=0, pow2=pow2,
                        fill=None, offs=offs))

    def dq(name, shape, f8, offs, outelem):
        out.append(dict(name="f8grp_dq_" + name, kind="f8dequantize",
                        shape=shape, f8=f8, granularity="axiswise", axis=0,
                        out=outelem, offs=offs))

    # Uneven groups, an empty one, rows past the last end.
    q("uneven_bf16_e4m3_pow2", [300, 40], "bf16", "f8E4M3FN",
      [37, 37, 150, 299], True)
    # First group empty, a one-row group, rows chunks cut by group ends.
    q("uneven_f32_e5m2", [200, 24], "f32", "f8E5M2", [0, 64, 65, 190])
    q("uneven_bf16_e5m2_pow2", [129, 64], "bf16", "f8E5M2",
      [16, 17, 100, 129], True)
    q("uneven_f32_e4m3_pow2", [96, 8], "f32", "f8E4M3FN", [40, 96], True)
    # Malformed offsets: decreasing, past the rows, negative (clamped).
    q("clamped_bf16_e4m3", [130, 64], "bf16", "f8E4M3FN", [50, 20, 400, -5])
    # Every group empty: amax 0 scales, every byte +0.
    q("all_empty_f32_e4m3", [64, 16], "f32", "f8E4M3FN", [0, 0, 0])
    # One group of every row, an odd column count (1-element accesses).
    q("one_group_odd_cols", [70, 3], "f32", "f8E4M3FN", [70], True)
    # Many small groups (a row chunk meets several groups).
    q("many_groups_bf16", [512, 128], "bf16", "f8E4M3FN",
      [i * 13 for i in range(1, 33)], True)
    # The DeepSeek-V3 MoE wgrad operands gO (T, N = 7168) and A (T, K =
    # 2048) in 8 uneven groups with an empty one, at 1024 / 2048 tokens
    # (DEEPSEEK_OFFS / 16): at 16384 tokens the inputs and references (439
    # MB) do not fit the device machine's 64 MiB carry (these two: 34 MB);
    # the 16384-token kernels differ only in their loop bounds (the timing
    # row runs one).
    q("deepseek_7168", [1024, 7168], "bf16", "f8E4M3FN",
      [o // 16 for o in DEEPSEEK_OFFS], True)
    q("deepseek_2048", [2048, 2048], "bf16", "f8E4M3FN",
      [125, 375, 376, 750, 1024, 1250, 1750, 2000], True)
    dq("uneven_e4m3_bf16", [300, 40], "f8E4M3FN", [37, 37, 150, 299], "bf16")
    dq("clamped_e5m2_f32", [130, 24], "f8E5M2", [50, 20, 400, -5], "f32")
    dq("odd_cols_e4m3_f32", [33, 3], "f8E4M3FN", [0, 10, 20], "f32")
    return out


def _clamped_ends(offs, tokens):
    """The group ends as the CPU lowering clamps them."""
    ends, end = [], 0
    for o in offs:
        end = min(max(o, end), tokens)
        ends.append(end)
    return ends


def case_body(case):
    """(ins, outs, body lines) of a Float8 cast case for gpu-check.py's
    case_module."""
    shape, gran, axis = case["shape"], case["granularity"], case["axis"]
    offs = case.get("offs")
    scaling = ("granularity = tensorwise" if gran == "tensorwise" else
               "axis = %d granularity = axiswise" % axis)
    sshape = _scale_shape(shape, gran, axis, offs)
    # Per-group casts: `offs(%argN)` and its type after the data types.
    offs_type = "" if offs is None else ", " + _tensor_type([len(offs)], "i32")
    if case["kind"] == "f8quantize":
        if case["pow2"]:
            scaling += " pow2"
        ins = [(shape, case["elem"])]
        if offs is not None:
            ins.append(([len(offs)], "i32"))
            scaling = "offs(%arg1) " + scaling
        outs = [(shape, case["f8"]), (sshape, "f32")]
        body = ["%%r0, %%r1 = mxfp8train.quantize %%arg0 %s : %s%s -> %s, %s" % (
            scaling, _tensor_type(*ins[0]), offs_type, _tensor_type(*outs[0]),
            _tensor_type(*outs[1]))]
        return ins, outs, body
    ins = [(shape, case["f8"]), (sshape, "f32")]
    if offs is not None:
        ins.append(([len(offs)], "i32"))
        scaling = "offs(%arg2) " + scaling
    outs = [(shape, case["out"])]
    body = ["%%r0 = mxfp8train.dequantize %%arg0 [%%arg1] %s : %s [%s]%s -> %s" % (
        scaling, _tensor_type(*ins[0]), _tensor_type(*ins[1]), offs_type,
        _tensor_type(*outs[0]))]
    return ins, outs, body


def _f32_bits(x):
    return np.asarray(x, dtype=np.float32).view(np.uint32)


def _fill_group(rng, fill, n, e):
    """f32 bits of one scaling group of `n` values with fill `fill`,
    magnitudes around 2^e."""
    g = _f32_bits(rng.standard_normal(n) * 2.0 ** e).copy()
    if fill == "normal" and n >= 4:
        # -0, f32 subnormals of both signs.
        g[rng.choice(n, size=3, replace=False)] = [0x80000000, 0x00000001,
                                                   0x80000001]
    elif fill == "nan":
        g[rng.integers(n)] = rng.choice([0x7FC00000, 0xFFC00000])
    elif fill == "inf":
        g[rng.integers(n)] = rng.choice([0x7F800000, 0xFF800000])
    elif fill == "zero":
        g[:] = 0
    elif fill == "negzero":
        g[:] = 0x80000000
    elif fill == "tiny":
        # amax below 1e-12 (2^-45 * N(0, 1)).
        g = _f32_bits(rng.standard_normal(n) * 2.0 ** -45).copy()
    elif fill == "eps_edge":
        # amax exactly the last f32 below 1e-12, or the first above.
        g = _f32_bits(rng.uniform(-1, 1, n) * 1e-13).copy()
        g[rng.integers(n)] = rng.choice([0x2B8CBCCC, 0x2B8CBCCD, 0xAB8CBCCC])
    elif fill == "pow2_edge":
        # amax 1.75 * 2^e + j ulp: s = max / amax just below a power of two
        # (SPEC-float8 §2.4's R table decides whether it rounds up).
        base = int(_f32_bits(1.75 * 2.0 ** e))
        g = _f32_bits(rng.uniform(-1.5, 1.5, n) * 2.0 ** e).copy()
        g[rng.integers(n)] = base + int(rng.integers(0, 48)) | (
            int(rng.integers(0, 2)) << 31)
    elif fill == "f32max":
        g[rng.integers(n)] = rng.choice([0x7F7FFFFF, 0xFF7FFFFF])
    elif fill == "big":
        # Values around and above the fp8 max: amax 448 or 57344 exactly.
        g = _f32_bits(rng.uniform(-448, 448, n)).copy()
        g[rng.integers(n)] = rng.choice([0x43E00000, 0x47600000])
    return g


def _group_quantize_bits(case, rng):
    """f32 bits of a per-group case's (T, X) input: every (group, column)
    scaling group one of GROUP_FILLS at its own magnitude (vectorized
    normal values with a few specials for the large cases), and the rows
    past the last group end random with NaN / Inf among them."""
    (tokens, cols), offs = case["shape"], case["offs"]
    ends = _clamped_ends(offs, tokens)
    starts = [0] + ends[:-1]
    if tokens * cols > (1 << 20):
        row_group = np.searchsorted(np.array(ends), np.arange(tokens),
                                    side="right")
        exps = rng.integers(-30, 31, size=(len(offs) + 1, cols))
        x = rng.standard_normal((tokens, cols), dtype=np.float32)
        x *= np.exp2(exps).astype(np.float32)[row_group]
        bits = x.view(np.uint32)
        specials = [0x7FC00000, 0x7F800000, 0xFF800000, 0x80000000,
                    0x00000001, 0x7F7FFFFF, 0x43E00000]
        for v in specials:
            idx = rng.integers(0, tokens * cols, size=4)
            bits.reshape(-1)[idx] = v
        return bits
    bits = _f32_bits(rng.standard_normal((tokens, cols))).copy()
    for g, (lo, hi) in enumerate(zip(starts, ends)):
        for c in range(cols):
            if hi > lo:
                fill = GROUP_FILLS[(g * cols + c) % len(GROUP_FILLS)]
                bits[lo:hi, c] = _fill_group(rng, fill, hi - lo,
                                             int(rng.integers(-40, 41)))
    if ends[-1:] and ends[-1] < tokens:
        bits[ends[-1]:, 0] = 0x7FC00000
        bits[ends[-1]:, -1] = 0xFF800000
    elif not ends:
        bits[:, 0] = 0x7F800000
    return bits


def _quantize_input(case, rng, to_bf16):
    shape, gran, axis = case["shape"], case["granularity"], case["axis"]
    if case.get("offs") is not None:
        bits = _group_quantize_bits(case, rng)
        if case["elem"] == "bf16":
            return to_bf16(bits)
        return bits.view(np.float32)
    n = int(np.prod(shape))
    if n == 0:
        bits = np.zeros(shape, dtype=np.uint32)
    elif gran == "tensorwise":
        e = int(rng.integers(-20, 21))
        bits = _fill_group(rng, case["fill"], n, e).reshape(shape)
    else:
        moved_shape = [s for d, s in enumerate(shape) if d != axis] + [shape[axis]]
        groups = int(np.prod(moved_shape[:-1]))
        red = shape[axis]
        rows = []
        for gi in range(groups):
            fill = GROUP_FILLS[gi % len(GROUP_FILLS)]
            rows.append(_fill_group(rng, fill, red, int(rng.integers(-40, 41))))
        moved = np.stack(rows).reshape(moved_shape)
        bits = np.moveaxis(moved, -1, axis).copy()
    if case["elem"] == "bf16":
        return to_bf16(bits)
    return bits.view(np.float32)


def make_inputs(case, ins, rng, to_bf16):
    """The input arrays of a Float8 cast case; `to_bf16` rounds f32 bit
    patterns to bf16 (gpu-check.py's f32_bits_to_bf16)."""
    offs = case.get("offs")
    extra = [] if offs is None else [np.array(offs, dtype=np.int32)]
    if case["kind"] == "f8quantize":
        return [_quantize_input(case, rng, to_bf16)] + extra
    data = rng.integers(0, 256, size=ins[0][0], dtype=np.uint8)
    sshape = ins[1][0]
    count = int(np.prod(sshape)) if sshape else 1
    # Scales as quantize makes them (2^-119 .. 2^56), and the specials.
    s = (2.0 ** rng.uniform(-119, 56, count)).astype(np.float32)
    bits = s.view(np.uint32).copy()
    specials = [0x7FC00000, 0x00000000, 0x57CBBA10, 0x5B4BBA10, 0x3F800000,
                0x7F800000, 0x43800000]
    if count > 1:
        for i, v in enumerate(specials[:count]):
            bits[i] = v
    scales = bits.view(np.float32).reshape(sshape)
    return [data, scales] + extra


def outputs_equal(elem, got, ref):
    """Compares output bytes `got` with `ref` (uint8 arrays) of an output of
    element type `elem`: bytes exactly, except that f32 / bf16 NaNs of any
    payload and sign match each other. Returns (equal, message)."""
    if got.shape != ref.shape:
        return False, "%d bytes, expected %d" % (got.size, ref.size)
    if elem in ("f32", "bf16"):
        it, mag, inf = ((np.uint32, 0x7FFFFFFF, 0x7F800000) if elem == "f32"
                        else (np.uint16, 0x7FFF, 0x7F80))
        g, r = got.view(it), ref.view(it)
        bad = (g != r) & ~(((g & mag) > inf) & ((r & mag) > inf))
    else:
        g, r = got, ref
        bad = got != ref
    n = int(np.count_nonzero(bad))
    if n == 0:
        return True, ""
    first = int(np.argmax(bad))
    return False, "%d of %d elements differ (first at %d: gpu %s cpu %s)" % (
        n, bad.size, first, hex(int(g[first])), hex(int(r[first])))


# Timed alone on the H200 against a device copy: (name, kind, shape, elem,
# axis, mode) rows of gpu-check.py's timing table; `mode` is the granularity.
def timing_kernels():
    shape = [16384, 8192]
    return [
        ("float8_quantize_rowwise_bf16_16384x8192", "f8quantize", shape,
         "bf16", 1, "axiswise"),
        ("float8_quantize_colwise_bf16_16384x8192", "f8quantize", shape,
         "bf16", 0, "axiswise"),
        ("float8_quantize_tensorwise_bf16_16384x8192", "f8quantize", shape,
         "bf16", None, "tensorwise"),
        ("float8_group_quantize_bf16_16384x7168_g8", "f8quantize",
         [16384, 7168], "bf16", 0, "pergroup"),
    ]


def timing_case(kind, shape, elem, axis, granularity):
    """The case of a timing row (e4m3, pow2 for the axiswise ones as the
    rowwise recipes use; `pergroup`: axiswise with 8 token groups, whose
    ends gpu-check.py's timing fills in evenly)."""
    case = dict(kind=kind, shape=shape, elem=elem, f8="f8E4M3FN",
                granularity=granularity, axis=axis,
                pow2=granularity != "tensorwise", fill="normal")
    if granularity == "pergroup":
        case.update(granularity="axiswise", offs=DEEPSEEK_OFFS)
    return case
