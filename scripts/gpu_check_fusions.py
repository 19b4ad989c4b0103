# ===- gpu_check_fusions.py - fused against unfused lowerings on the GPU ---=== #
#
# Cases of scripts/gpu-check.py (kind "fusion", named `fuse_*`) whose
# reference is the same module lowered without a fusion, run on the GPU in
# the same call: every output must be bit-identical (f32 / bf16 NaNs of any
# payload match). The unfused lowering's kernels are themselves checked
# against the CPU path (casts) and float64 (GEMMs) by the other cases, so
# this pins the fused kernels to them.
#
# `fuse-transposes` (Gemm/Float8TransposeFusion.h): Float8 casts whose data
# a Float8 GEMM reads MN-major write the GEMM's K-major copy themselves
# instead of the fp8 transpose pre-pass. The cases cover each scale layout
# the fused cast takes: a column cast along K of a 2-D operand (the wgrad's
# tokens) read through a fused elementwise producer, of a dgrad weight, of
# 3-D expert weights (the MoE dgrad, 2d-3d); a tensorwise e5m2 cast read
# both ways (the row-major data still written for the K-major reader); the
# per-group casts of the 2d-2d wgrad (uneven, empty and trailing token
# groups), once with one operand an elementwise producer's result (the
# fused producer's operands are loaded raw, their addresses clamped into
# the operand, in the tile walk); shapes with rows and K not multiples of
# the 128 x 128 tile.
#
# `fuse-sibling-casts` (Float8CastKernels.cpp): tensorwise casts of the
# two results of one fused elementwise producer (as the SwiGLU backward's
# dH1 and dH3) share one amax and one cast kernel: each result read by a
# dgrad (row-major data) and a wgrad (the K-major copy both write in one
# kernel), shapes not multiples of the 128 x 128 tile; and a pair read
# row-major only (the plain tensor cast of two results).
#
# `fuse-gemm-sums` (Gemm/GemmSumFusion.h): the bf16 sum of two Float8
# 2d-3d GEMM results (the MoE input gradient) written by the later GEMM's
# epilogue; uneven and empty groups and rows past the last group (whose
# output is the other term plus zero).
#
# `fuse-gemm-amax` (Gemm/GemmAmaxFusion.h; off by default, so the case is
# lowered with it on): the tensorwise amaxes of the SwiGLU casts taken in
# the epilogue of the Float8 GEMM whose result the producer reads (the
# forward W3 GEMM for silu(h1) * h3, the promoted dgrad W2 GEMM for the
# backward pair), tiles not multiples of the kernel's; `gemm-amax-warps`:
# the same cases with the amaxes taken by three producer-warpgroup warps
# from each stored tile (`_warps`).
#
# `defer-fp8` (Gemm/DequantFusion.h): MX quantize kernels that write a
# pre-dequantized GEMM operand's bf16 form store the fp8 bytes only of the
# blocks that form cannot hold; the fallback's restore kernel writes the
# rest back. Every case has a few blocks of values near 2^-130 (scale byte
# below 3) and a zero block, so the flag is raised and the fallback runs on
# restored fp8 data: a forward GEMM (1x32 casts, one operand's flag only),
# the wgrad and dgrad of a linear (a quantize_dual's colwise cast, 32x1
# casts: MN-major forms), the 2d-2d wgrad with aligned and with unaligned
# token groups (blocks not wholly inside a group stay with the cast), and
# the 2d-3d forward (8-batch expert weights).
#
# `column-cast-lanes`: the 32x1 casts that split a 32-row column tile over
# 4 (or 2) lanes, against one lane: through a fused elementwise producer,
# and a tile of 2 columns.
#
# `stage-row-scales`: quantize_dual kernels whose CTA gathers its rowwise
# scale bytes in workgroup memory and stores whole words of each row,
# against one byte per lane and row: 4 lanes per tile through a fused
# elementwise producer (8 blocks per CTA row), and a dual that writes the
# bf16 forms of a linear's dgrad and wgrad GEMMs (its row scales returned
# too), with tiny blocks so that the fallback runs.
#
# `fuse-padding` (FusedProducer.h isFusablePad): 32x1 casts that read a
# pad_token_groups' input through its offsets instead of the padded data:
# uneven, empty and trailing groups (alignment 32); f32 with malformed
# runtime offsets (decreasing, past the tokens; alignment 128, whole zero
# blocks); the 2d-2d wgrad of two padded operands, one an elementwise
# producer's result that a 1x32 cast also reads (with a block near 2^-130,
# so that the GEMM's fallback runs on the deferred fp8 data).
#
# ===----------------------------------------------------------------------=== #

import numpy as np

KINDS = ("fusion",)

# The reference lowering: mxfp8train-lower-to-gpu options (aot-compile.sh).
REFERENCE_OPTIONS = {"fuse-transposes": "fuse-transposes=false",
                     "fuse-gemm-sums": "fuse-gemm-sums=false",
                     "fuse-gemm-amax": "fuse-gemm-amax=false",
                     "gemm-amax-warps": "fuse-gemm-amax=false",
                     "defer-fp8": "defer-fp8=false",
                     "column-cast-lanes": "column-cast-lanes=1",
                     "stage-row-scales": "stage-row-scales=false",
                     "fuse-padding": "fuse-padding=false",
                     # Without the fused transposes too: the reference's
                     # casts then load plainly (no fused producer read raw)
                     # and the GEMMs transpose their MN-major operands.
                     "fuse-sibling-casts":
                         "fuse-sibling-casts=false fuse-transposes=false"}

# The fused lowering's options where the fusion is off by default.
FUSED_OPTIONS = {"fuse-gemm-amax": "fuse-gemm-amax=true",
                 "gemm-amax-warps": "fuse-gemm-amax=true gemm-amax-warps=3"}

_MAP = "affine_map<(d0, d1) -> (d0, d1)>"


def _t(shape, elem):
    return "tensor<%s>" % "x".join([str(d) for d in shape] + [elem])


def _quantize(res, arg, shape, f8, scale_shape, scaling, offs=None):
    offs_part = "" if offs is None else "offs(%s) " % offs[0]
    offs_type = "" if offs is None else ", " + offs[1]
    return "%s = mxfp8train.quantize %s %s%s : %s%s -> %s, %s" % (
        res, arg, offs_part, scaling, _t(shape, "bf16"), offs_type,
        _t(shape, f8), _t(scale_shape, "f32"))


def _bf16_binary(res, a, b, shape, op):
    """MLIR lines of `res` = truncf(op(extf(a), extf(b))), an elementwise
    linalg.generic over bf16 tensors of `shape`."""
    t = _t(shape, "bf16")
    return ["%%e = tensor.empty() : %s" % t,
            "%s = linalg.generic {indexing_maps = [%s, %s, %s], "
            "iterator_types = [\"parallel\", \"parallel\"]} ins(%s, %s : "
            "%s, %s) outs(%%e : %s) {" % (res, _MAP, _MAP, _MAP, a, b, t, t, t),
            "^bb0(%x: bf16, %y: bf16, %o: bf16):",
            "  %xf = arith.extf %x : bf16 to f32",
            "  %yf = arith.extf %y : bf16 to f32",
            "  %%p = arith.%s %%xf, %%yf : f32" % op,
            "  %pt = arith.truncf %p : f32 to bf16",
            "  linalg.yield %pt : bf16",
            "} -> %s" % t]


def _bf16_pair(res, a, b, shape):
    """MLIR lines of `res`:2 = (truncf(a * b), truncf(a - b)), one
    elementwise linalg.generic with two bf16 results."""
    t = _t(shape, "bf16")
    return ["%%e2 = tensor.empty() : %s" % t,
            "%s:2 = linalg.generic {indexing_maps = [%s, %s, %s, %s], "
            "iterator_types = [\"parallel\", \"parallel\"]} ins(%s, %s : "
            "%s, %s) outs(%%e2, %%e2 : %s, %s) {" % (
                res, _MAP, _MAP, _MAP, _MAP, a, b, t, t, t, t),
            "^bb0(%x: bf16, %y: bf16, %o0: bf16, %o1: bf16):",
            "  %xf = arith.extf %x : bf16 to f32",
            "  %yf = arith.extf %y : bf16 to f32",
            "  %p = arith.mulf %xf, %yf : f32",
            "  %d = arith.subf %xf, %yf : f32",
            "  %pt = arith.truncf %p : f32 to bf16",
            "  %dt = arith.truncf %d : f32 to bf16",
            "  linalg.yield %pt, %dt : bf16, bf16",
            "} -> (%s, %s)" % (t, t)]


_TW = "granularity = tensorwise"
_FWD = 'mxfp8train.role = "forward", mxfp8train.use_fast_accum = true'
_DGRAD = 'mxfp8train.role = "dgrad", mxfp8train.use_fast_accum = false'
# sigmoid %sg and silu %si of the f32 %af (with the f32 constant %one).
_SILU = ["  %na = arith.negf %af : f32",
         "  %ex = math.exp %na : f32",
         "  %de = arith.addf %ex, %one : f32",
         "  %sg = arith.divf %one, %de : f32",
         "  %si = arith.mulf %af, %sg : f32"]


def _scaled_mm(res, a, sa, b, sb, ta, tb, out, attrs, transpose=""):
    """`res` = scaled_mm of a [sa] and b [sb] with tensorwise scales."""
    return ("%s = mxfp8train.scaled_mm %s [%s], %s [%s] %s{%s} : "
            "%s [%s], %s [%s] -> %s" % (res, a, sa, b, sb, transpose, attrs,
                                        ta, _t([], "f32"), tb, _t([], "f32"),
                                        out))


def _swiglu_amax_forward(t, k, n, x, w1, w3, w2, out, hs):
    """The SwiGLU forward of x (t, k) with W1, W3 (n, k) and W2 (k, n),
    tensorwise: h1 and h3 (forward GEMMs), h = silu(h1) * h3 cast, `out` =
    the W2 GEMM of h (t, k), `hs` h's scale; defines %qw1, %sw1, %qw2,
    %sw2."""
    th = _t([t, n], "bf16")
    e4 = lambda shape: _t(shape, "f8E4M3FN")
    return [
        _quantize("%qx, %sx", x, [t, k], "f8E4M3FN", [], _TW),
        _quantize("%qw1, %sw1", w1, [n, k], "f8E4M3FN", [], _TW),
        _quantize("%qw3, %sw3", w3, [n, k], "f8E4M3FN", [], _TW),
        _quantize("%qw2, %sw2", w2, [k, n], "f8E4M3FN", [], _TW),
        _scaled_mm("%h1", "%qx", "%sx", "%qw1", "%sw1", e4([t, k]),
                   e4([n, k]), th, _FWD, "transpose_rhs "),
        _scaled_mm("%h3", "%qx", "%sx", "%qw3", "%sw3", e4([t, k]),
                   e4([n, k]), th, _FWD, "transpose_rhs "),
        "%%e = tensor.empty() : %s" % th,
        "%%h = linalg.generic {indexing_maps = [%s, %s, %s], iterator_types "
        "= [\"parallel\", \"parallel\"]} ins(%%h1, %%h3 : %s, %s) outs(%%e "
        ": %s) {" % (_MAP, _MAP, _MAP, th, th, th),
        "^bb0(%a: bf16, %b: bf16, %o: bf16):",
        "  %one = arith.constant 1.0 : f32",
        "  %af = arith.extf %a : bf16 to f32",
        "  %bf = arith.extf %b : bf16 to f32"] + _SILU + [
        "  %hv = arith.mulf %si, %bf : f32",
        "  %ht = arith.truncf %hv : f32 to bf16",
        "  linalg.yield %ht : bf16",
        "} -> %s" % th,
        _quantize("%qh, " + hs, "%h", [t, n], "f8E4M3FN", [], _TW),
        _scaled_mm(out, "%qh", hs, "%qw2", "%sw2", e4([t, n]),
                   e4([k, n]), _t([t, k], "bf16"), _FWD, "transpose_rhs ")]


def _swiglu_amax_backward(t, k, n, dout, h1, h3, d0, d1, p0, p1):
    """The SwiGLU backward: dA = dOut (t, k, e5m2) x W2 (%qw2 (k, n)) by
    the promoted dgrad GEMM, the pair (dA h3 silu'(h1), dA silu(h1)) cast
    e5m2 (scales `p0`, `p1`), each read by a dgrad against W1 (%qw1 (n,
    k)): `d0`, `d1` (t, k)."""
    th = _t([t, n], "bf16")
    e4 = lambda shape: _t(shape, "f8E4M3FN")
    e5 = lambda shape: _t(shape, "f8E5M2")
    return [
        _quantize("%qd, %sd", dout, [t, k], "f8E5M2", [], _TW),
        _scaled_mm("%da", "%qd", "%sd", "%qw2", "%sw2", e5([t, k]),
                   e4([k, n]), th, _DGRAD),
        "%%e2 = tensor.empty() : %s" % th,
        "%%g:2 = linalg.generic {indexing_maps = [%s, %s, %s, %s, %s], "
        "iterator_types = [\"parallel\", \"parallel\"]} ins(%%da, %s, %s : "
        "%s, %s, %s) outs(%%e2, %%e2 : %s, %s) {" % (
            _MAP, _MAP, _MAP, _MAP, _MAP, h1, h3, th, th, th, th, th),
        "^bb0(%d: bf16, %a: bf16, %b: bf16, %o0: bf16, %o1: bf16):",
        "  %one = arith.constant 1.0 : f32",
        "  %df = arith.extf %d : bf16 to f32",
        "  %af = arith.extf %a : bf16 to f32",
        "  %bf = arith.extf %b : bf16 to f32"] + _SILU + [
        "  %dh3 = arith.mulf %df, %si : f32",
        "  %om = arith.subf %one, %sg : f32",
        "  %t1 = arith.mulf %af, %om : f32",
        "  %t2 = arith.addf %t1, %one : f32",
        "  %ds = arith.mulf %sg, %t2 : f32",
        "  %db = arith.mulf %df, %bf : f32",
        "  %dh1 = arith.mulf %db, %ds : f32",
        "  %dh1t = arith.truncf %dh1 : f32 to bf16",
        "  %dh3t = arith.truncf %dh3 : f32 to bf16",
        "  linalg.yield %dh1t, %dh3t : bf16, bf16",
        "} -> (%s, %s)" % (th, th),
        _quantize("%q0, " + p0, "%g#0", [t, n], "f8E5M2", [], _TW),
        _quantize("%q1, " + p1, "%g#1", [t, n], "f8E5M2", [], _TW),
        _scaled_mm(d0, "%q0", p0, "%qw1", "%sw1", e5([t, n]),
                   e4([n, k]), _t([t, k], "bf16"), _DGRAD),
        _scaled_mm(d1, "%q1", p1, "%qw1", "%sw1", e5([t, n]),
                   e4([n, k]), _t([t, k], "bf16"), _DGRAD)]


def cases():
    out = []

    def case(name, ins, outs, body, offs=None, fusion="fuse-transposes",
             tiny=False):
        out.append(dict(name="fuse_" + name, kind="fusion",
                        fusion=fusion, ins=ins, outs=outs,
                        body=body, offs=offs, tiny=tiny))

    # wgrad (T = 272 tokens, N = 208, M = 400): both operands column casts
    # along the tokens, grad_output through a fused elementwise producer.
    t, n, m = 272, 208, 400
    case("wgrad_col_producer",
         [([t, n], "bf16"), ([t, n], "bf16"), ([t, m], "bf16")],
         [([n, m], "f32"), ([1, n], "f32"), ([1, m], "f32")],
         _bf16_binary("%g", "%arg0", "%arg1", [t, n], "mulf") +
         [_quantize("%q0, %r1", "%g", [t, n], "f8E4M3FN", [1, n],
                    "axis = 0 granularity = axiswise pow2"),
          _quantize("%q1, %r2", "%arg2", [t, m], "f8E4M3FN", [1, m],
                    "axis = 0 granularity = axiswise"),
          "%%r0 = mxfp8train.scaled_mm %%q0 [%%r1], %%q1 [%%r2] transpose_lhs "
          "{mxfp8train.role = \"wgrad\"} : %s [%s], %s [%s] -> %s" % (
              _t([t, n], "f8E4M3FN"), _t([1, n], "f32"),
              _t([t, m], "f8E4M3FN"), _t([1, m], "f32"), _t([n, m], "f32"))])

    # dgrad: grad_output (200, 384) rowwise x weight stored (N = 384,
    # K = 336), its column cast along N.
    mm, nn, kk = 200, 384, 336
    case("dgrad_weight_col",
         [([mm, nn], "bf16"), ([nn, kk], "bf16")],
         [([mm, kk], "bf16"), ([1, kk], "f32")],
         [_quantize("%q0, %s0", "%arg0", [mm, nn], "f8E4M3FN", [mm, 1],
                    "axis = 1 granularity = axiswise"),
          _quantize("%q1, %r1", "%arg1", [nn, kk], "f8E4M3FN", [1, kk],
                    "axis = 0 granularity = axiswise"),
          "%%r0 = mxfp8train.scaled_mm %%q0 [%%s0], %%q1 [%%r1] "
          "{mxfp8train.role = \"dgrad\"} : %s [%s], %s [%s] -> %s" % (
              _t([mm, nn], "f8E4M3FN"), _t([mm, 1], "f32"),
              _t([nn, kk], "f8E4M3FN"), _t([1, kk], "f32"),
              _t([mm, kk], "bf16"))])

    # Tensorwise (float8_tensorwise): grad_output (T = 256, N = 384) in
    # e5m2 is read K-major by the dgrad and MN-major by the wgrad (the fused
    # cast writes both); the weight (N, K = 320) and input (T, K) MN-major.
    t, n, k = 256, 384, 320
    case("tensorwise_both_ways",
         [([t, n], "bf16"), ([n, k], "bf16"), ([t, k], "bf16")],
         [([t, k], "bf16"), ([n, k], "f32"), ([], "f32"), ([], "f32"),
          ([], "f32")],
         [_quantize("%q0, %r2", "%arg0", [t, n], "f8E5M2", [],
                    "granularity = tensorwise"),
          _quantize("%q1, %r3", "%arg1", [n, k], "f8E4M3FN", [],
                    "granularity = tensorwise"),
          _quantize("%q2, %r4", "%arg2", [t, k], "f8E4M3FN", [],
                    "granularity = tensorwise"),
          "%%r0 = mxfp8train.scaled_mm %%q0 [%%r2], %%q1 [%%r3] "
          "{mxfp8train.role = \"dgrad\"} : %s [%s], %s [%s] -> %s" % (
              _t([t, n], "f8E5M2"), _t([], "f32"), _t([n, k], "f8E4M3FN"),
              _t([], "f32"), _t([t, k], "bf16")),
          "%%r1 = mxfp8train.scaled_mm %%q0 [%%r2], %%q2 [%%r4] transpose_lhs "
          "{mxfp8train.role = \"wgrad\"} : %s [%s], %s [%s] -> %s" % (
              _t([t, n], "f8E5M2"), _t([], "f32"), _t([t, k], "f8E4M3FN"),
              _t([], "f32"), _t([n, k], "f32"))])

    # The MoE dgrad (2d-3d): tokens (600, K = 272) rowwise x experts stored
    # (E = 4, K, N = 528), read MN-major: the weight's column cast along its
    # -2 axis, scales (E, 1, N); uneven and empty groups, rows past the last.
    m, kk, n, e = 600, 272, 528, 4
    offs = [100, 100, 357, 590]
    case("moe_dgrad_weight_col",
         [([m, kk], "bf16"), ([e, kk, n], "bf16"), ([e], "i32")],
         [([m, n], "bf16"), ([e, 1, n], "f32")],
         [_quantize("%q0, %s0", "%arg0", [m, kk], "f8E4M3FN", [m, 1],
                    "axis = 1 granularity = axiswise pow2"),
          _quantize("%q1, %r1", "%arg1", [e, kk, n], "f8E4M3FN", [e, 1, n],
                    "axis = 1 granularity = axiswise pow2"),
          "%%r0 = mxfp8train.scaled_grouped_mm %%q0 [%%s0], %%q1 [%%r1] "
          "offs(%%arg2) {mxfp8train.role = \"dgrad\"} : %s [%s], %s [%s], %s "
          "-> %s" % (_t([m, kk], "f8E4M3FN"), _t([m, 1], "f32"),
                     _t([e, kk, n], "f8E4M3FN"), _t([e, 1, n], "f32"),
                     _t([e], "i32"), _t([m, n], "bf16"))],
         offs=offs)

    # The fp8_rowwise wgrad (2d-2d): tokens (T = 1008, M = 144) and (T,
    # N = 272) cast per group and column; groups uneven (not multiples of
    # 128), one empty, tokens past the last group; once more with the first
    # operand the result of a fused elementwise producer (its per-group
    # K-major cast evaluates the body).
    t, m, n = 1008, 144, 272
    offs = [96, 96, 496, 992]
    e = len(offs)
    ot = ("%arg2", _t([e], "i32"))
    for name, producer in [("wgrad_2d2d_groups", False),
                           ("wgrad_2d2d_groups_producer", True)]:
        ins = [([t, m], "bf16"), ([t, n], "bf16"), ([e], "i32")]
        lhs, body = "%arg0", []
        if producer:
            ins.append(([t, m], "bf16"))
            lhs = "%g"
            body = _bf16_binary("%g", "%arg0", "%arg3", [t, m], "mulf")
        body += [
            _quantize("%q0, %r1", lhs, [t, m], "f8E4M3FN", [e, m],
                      "axis = 0 granularity = axiswise pow2", ot),
            _quantize("%q1, %r2", "%arg1", [t, n], "f8E4M3FN", [e, n],
                      "axis = 0 granularity = axiswise pow2", ot),
            "%%r0 = mxfp8train.scaled_grouped_mm %%q0 [%%r1], %%q1 [%%r2] "
            "offs(%%arg2) transpose_lhs {mxfp8train.role = \"wgrad\"} : "
            "%s [%s], %s [%s], %s -> %s" % (
                _t([t, m], "f8E4M3FN"), _t([e, m], "f32"),
                _t([t, n], "f8E4M3FN"), _t([e, n], "f32"), _t([e], "i32"),
                _t([e, m, n], "bf16"))]
        case(name, ins,
             [([e, m, n], "bf16"), ([e, m], "f32"), ([e, n], "f32")], body,
             offs=offs)

    # The MoE input gradient: two 2d-3d GEMMs (tokens (600, K = 272) x
    # experts stored (E = 4, K, N = 528)) summed in bf16; uneven and empty
    # groups, rows past the last group.
    m, kk, n, e = 600, 272, 528, 4
    offs = [100, 100, 357, 590]
    gemm_types = (_t([m, kk], "f8E4M3FN"), _t([m, 1], "f32"),
                  _t([e, kk, n], "f8E4M3FN"), _t([e, 1, n], "f32"),
                  _t([e], "i32"), _t([m, n], "bf16"))
    body = []
    for g, (a, w) in enumerate([("%arg0", "%arg1"), ("%arg2", "%arg3")]):
        body += [
            _quantize("%%a%d, %%sa%d" % (g, g), a, [m, kk], "f8E4M3FN",
                      [m, 1], "axis = 1 granularity = axiswise pow2"),
            _quantize("%%w%d, %%sw%d" % (g, g), w, [e, kk, n], "f8E4M3FN",
                      [e, 1, n], "axis = 1 granularity = axiswise pow2"),
            "%%g%d = mxfp8train.scaled_grouped_mm %%a%d [%%sa%d], %%w%d "
            "[%%sw%d] offs(%%arg4) {mxfp8train.role = \"dgrad\", "
            "mxfp8train.use_fast_accum = true} : %s [%s], %s [%s], %s -> %s"
            % ((g, g, g, g, g) + gemm_types)]
    body += _bf16_binary("%r0", "%g0", "%g1", [m, n], "addf")
    case("gemm_sum_moe_dgrad",
         [([m, kk], "bf16"), ([e, kk, n], "bf16"), ([m, kk], "bf16"),
          ([e, kk, n], "bf16"), ([e], "i32")],
         [([m, n], "bf16")], body, offs=offs, fusion="fuse-gemm-sums")

    # Sibling tensorwise casts (fuse-sibling-casts): the two results of one
    # producer over (T = 272, N = 208) in e5m2, each read by a dgrad against
    # the weight (N, K = 144) and, with `wgrad`, by a wgrad (MN-major: the
    # K-major copies) against the input (T, K); without, row-major only
    # (the plain tensor cast of both). Results: per sibling its dgrad [and
    # wgrad], then the two scales.
    t, n, k = 272, 208, 144

    def siblings(name, wgrad):
        ins = [([t, n], "bf16"), ([t, n], "bf16"), ([n, k], "bf16")]
        body = _bf16_pair("%g", "%arg0", "%arg1", [t, n]) + [
            _quantize("%w, %sw", "%arg2", [n, k], "f8E4M3FN", [],
                      "granularity = tensorwise")]
        if wgrad:
            ins.append(([t, k], "bf16"))
            body.append(_quantize("%i, %si", "%arg3", [t, k], "f8E4M3FN", [],
                                  "granularity = tensorwise"))
        per = 2 if wgrad else 1
        outs = []
        for j in range(2):
            scale = "%%r%d" % (2 * per + j)
            body += [
                _quantize("%%q%d, %s" % (j, scale), "%%g#%d" % j, [t, n],
                          "f8E5M2", [], "granularity = tensorwise"),
                "%%r%d = mxfp8train.scaled_mm %%q%d [%s], %%w [%%sw] "
                "{mxfp8train.role = \"dgrad\"} : %s [%s], %s [%s] -> %s" % (
                    per * j, j, scale, _t([t, n], "f8E5M2"), _t([], "f32"),
                    _t([n, k], "f8E4M3FN"), _t([], "f32"),
                    _t([t, k], "bf16"))]
            outs.append(([t, k], "bf16"))
            if wgrad:
                body.append(
                    "%%r%d = mxfp8train.scaled_mm %%q%d [%s], %%i [%%si] "
                    "transpose_lhs {mxfp8train.role = \"wgrad\"} : %s [%s], "
                    "%s [%s] -> %s" % (
                        per * j + 1, j, scale, _t([t, n], "f8E5M2"),
                        _t([], "f32"), _t([t, k], "f8E4M3FN"), _t([], "f32"),
                        _t([n, k], "f32")))
                outs.append(([n, k], "f32"))
        outs += [([], "f32"), ([], "f32")]
        case(name, ins, outs, body, fusion="fuse-sibling-casts")

    siblings("sibling_casts_kmajor", wgrad=True)
    siblings("sibling_casts_rowmajor", wgrad=False)

    # GEMM epilogues that take tensorwise amaxes (fuse-gemm-amax): the
    # SwiGLU forward (x (T, K), W1 and W3 (N, K): h = silu(h1) * h3 cast
    # tensorwise, its amax in the W3 GEMM's epilogue, which reads h1; h's
    # cast read by the W2 GEMM (W2 (K, N))) and backward (dA = dOut W2 by
    # the promoted dgrad GEMM, dOut (T, K): the pair's two amaxes in its
    # epilogue, which reads h1 and h3; each result read by a dgrad against
    # W1). At T = 272, K = 144, N = 208 (tiles not multiples of 128 x 256;
    # the backward's h1 and h3 inputs), and the whole step at T = 4096,
    # K = 128, N = 10240, where every CTA walks 9-10 forward and 19-20
    # backward tiles (the amax warps' ring of four tile slots wraps).
    for suffix, fusion in [("", "fuse-gemm-amax"),
                           ("_warps", "gemm-amax-warps")]:
        t, k, n = 272, 144, 208
        fwd = _swiglu_amax_forward(t, k, n, "%arg0", "%arg1", "%arg2",
                                   "%arg3", "%r0", "%r1")
        case("gemm_amax_swiglu_forward" + suffix,
             [([t, k], "bf16"), ([n, k], "bf16"), ([n, k], "bf16"),
              ([k, n], "bf16")],
             [([t, k], "bf16"), ([], "f32")], fwd, fusion=fusion)
        bwd = [_quantize("%qw2, %sw2", "%arg1", [k, n], "f8E4M3FN", [],
                         _TW),
               _quantize("%qw1, %sw1", "%arg4", [n, k], "f8E4M3FN", [],
                         _TW)]
        bwd += _swiglu_amax_backward(t, k, n, "%arg0", "%arg2", "%arg3",
                                     "%r0", "%r1", "%r2", "%r3")
        case("gemm_amax_swiglu_backward" + suffix,
             [([t, k], "bf16"), ([k, n], "bf16"), ([t, n], "bf16"),
              ([t, n], "bf16"), ([n, k], "bf16")],
             [([t, k], "bf16"), ([t, k], "bf16"), ([], "f32"), ([], "f32")],
             bwd, fusion=fusion)
        t, k, n = 4096, 128, 10240
        step = _swiglu_amax_forward(t, k, n, "%arg0", "%arg1", "%arg2",
                                    "%arg3", "%r0", "%r3")
        step += _swiglu_amax_backward(t, k, n, "%arg4", "%h1", "%h3",
                                      "%r1", "%r2", "%r4", "%r5")
        case("gemm_amax_swiglu_step" + suffix,
             [([t, k], "bf16"), ([n, k], "bf16"), ([n, k], "bf16"),
              ([k, n], "bf16"), ([t, k], "bf16")],
             [([t, k], "bf16"), ([t, k], "bf16"), ([t, k], "bf16"),
              ([], "f32"), ([], "f32"), ([], "f32")],
             step, fusion=fusion)

    # Deferred fp8 of MX operands (defer-fp8).
    def mx_types(shape, axis):
        """e4m3 data and e8m0 scales (blocks of 32 along `axis`) types."""
        scale = list(shape)
        scale[axis] //= 32
        return _t(shape, "f8E4M3FN"), _t(scale, "f8E8M0FNU")

    def mx(shape, axis):
        return "%s [%s]" % mx_types(shape, axis)

    def mx_quantize(res, arg, shape, axis):
        return ("%s = mxfp8train.quantize %s axis = %d mode = rceil : %s -> "
                "%s, %s" % ((res, arg, axis, _t(shape, "bf16")) +
                            mx_types(shape, axis)))

    m, n, k = 256, 384, 512
    case("defer_fp8_fwd", [([m, k], "bf16"), ([n, k], "bf16")],
         [([m, n], "bf16")],
         [mx_quantize("%a, %as", "%arg0", [m, k], 1),
          mx_quantize("%b, %bs", "%arg1", [n, k], 1),
          "%%r0 = mxfp8train.scaled_mm %%a [%%as], %%b [%%bs] transpose_rhs : "
          "%s, %s -> %s" % (mx([m, k], 1), mx([n, k], 1), _t([m, n], "bf16"))],
         fusion="defer-fp8", tiny=[0])

    def mx_dual(res, arg, shape):
        rows, cols = shape
        return ("%s = mxfp8train.quantize_dual %s mode = rceil : %s -> %s, "
                "%s, %s, %s" % (res, arg, _t(shape, "bf16"),
                                _t(shape, "f8E4M3FN"),
                                _t([rows, cols // 32], "f8E8M0FNU"),
                                _t(shape, "f8E4M3FN"),
                                _t([rows // 32, cols], "f8E8M0FNU")))

    def linear_grads(t, n, k, row_scales):
        """The wgrad (%r0) and dgrad (%r1) of a linear: input (t, k) cast
        32x1, grad_output (t, n) through a quantize_dual whose rowwise
        scales are `row_scales`, weight (n, k) cast 32x1."""
        return [mx_quantize("%xc, %xcs", "%arg0", [t, k], 0),
                mx_dual("%%dr, %s, %%dc, %%dcs" % row_scales, "%arg1", [t, n]),
                "%%r0 = mxfp8train.scaled_mm %%xc [%%xcs], %%dc [%%dcs] "
                "transpose_lhs : %s, %s -> %s" % (
                    mx([t, k], 0), mx([t, n], 0), _t([k, n], "bf16")),
                mx_quantize("%wc, %wcs", "%arg2", [n, k], 0),
                "%%r1 = mxfp8train.scaled_mm %%dr [%s], %%wc [%%wcs] : %s, "
                "%s -> %s" % (row_scales, mx([t, n], 1), mx([n, k], 0),
                              _t([t, k], "bf16"))]

    t, n, k = 256, 384, 512
    case("defer_fp8_grads",
         [([t, k], "bf16"), ([t, n], "bf16"), ([n, k], "bf16")],
         [([k, n], "bf16"), ([t, k], "bf16")],
         linear_grads(t, n, k, "%drs"),
         fusion="defer-fp8", tiny=[0, 1, 2])

    t, m, n = 384, 128, 256
    for tag, offs in (("aligned", [96, 96, 224, 352]),
                      ("unaligned", [96, 96, 200, 352])):
        e = len(offs)
        case("defer_fp8_wgrad_2d2d_" + tag,
             [([t, m], "bf16"), ([t, n], "bf16"), ([e], "i32")],
             [([e, m, n], "bf16")],
             [mx_quantize("%xq, %xs", "%arg0", [t, m], 0),
              mx_quantize("%dq, %ds", "%arg1", [t, n], 0),
              "%%r0 = mxfp8train.scaled_grouped_mm %%xq [%%xs], %%dq [%%ds] "
              "offs(%%arg2) transpose_lhs : %s, %s, %s -> %s" % (
                  mx([t, m], 0), mx([t, n], 0), _t([e], "i32"),
                  _t([e, m, n], "bf16"))],
             offs=offs, fusion="defer-fp8", tiny=[0, 1])

    m, k, n, e = 600, 256, 384, 8
    offs = [64, 64, 200, 330, 330, 480, 512, 590]
    case("defer_fp8_moe_fwd",
         [([m, k], "bf16"), ([e, n, k], "bf16"), ([e], "i32")],
         [([m, n], "bf16")],
         [mx_quantize("%a, %as", "%arg0", [m, k], 1),
          mx_quantize("%w, %ws", "%arg1", [e, n, k], 2),
          "%%r0 = mxfp8train.scaled_grouped_mm %%a [%%as], %%w [%%ws] "
          "offs(%%arg2) transpose_rhs : %s, %s, %s -> %s" % (
              mx([m, k], 1), mx([e, n, k], 2), _t([e], "i32"),
              _t([m, n], "bf16"))],
         offs=offs, fusion="defer-fp8", tiny=[1])

    # Lanes per column tile (column-cast-lanes) of MX 32x1 casts without a
    # GEMM: 4 lanes through a fused elementwise producer, and 2 (a tile of
    # 2 columns: 34 columns) with blocks near 2^-130 and a zero block.
    for tag, (t, n) in (("producer", (256, 200)), ("two_cols", (96, 34))):
        case("lanes_32x1_" + tag,
             [([t, n], "bf16"), ([t, n], "bf16")],
             [([t, n], "f8E4M3FN"), ([t // 32, n], "f8E8M0FNU")],
             _bf16_binary("%g", "%arg0", "%arg1", [t, n], "mulf") +
             [mx_quantize("%r0, %r1", "%g", [t, n], 0)],
             fusion="column-cast-lanes", tiny=[0])

    # Rowwise scales of quantize_dual through workgroup memory: a fused
    # producer (4 lanes per tile, 128 column groups: two CTAs per block
    # row), 3 block rows.
    t, n = 96, 512
    case("stage_rows_dual_producer",
         [([t, n], "bf16"), ([t, n], "bf16")],
         [([t, n], "f8E4M3FN"), ([t, n // 32], "f8E8M0FNU"),
          ([t, n], "f8E4M3FN"), ([t // 32, n], "f8E8M0FNU")],
         _bf16_binary("%g", "%arg0", "%arg1", [t, n], "mulf") +
         [mx_dual("%r0, %r1, %r2, %r3", "%g", [t, n])],
         fusion="stage-row-scales", tiny=[0])
    # The dual of a linear's grad_output with both bf16 forms (dgrad and
    # wgrad GEMMs), N = 512 (the 4-lane kernel stages 8 blocks per row).
    t, n, k = 256, 512, 256
    case("stage_rows_dual_grads",
         [([t, k], "bf16"), ([t, n], "bf16"), ([n, k], "bf16")],
         [([k, n], "bf16"), ([t, k], "bf16"), ([t, n // 32], "f8E8M0FNU")],
         linear_grads(t, n, k, "%r2"),
         fusion="stage-row-scales", tiny=[0, 1, 2])

    # Token-group padding read by the column casts (fuse-padding).
    def pad_token_groups(res, arg, shape, elem, offs_arg, e, align):
        rows = -(-(shape[0] + align * e) // align) * align
        return rows, (
            "%s = mxfp8train.pad_token_groups %s offs(%s) alignment = %d : "
            "%s, %s -> %s, %s" % (res, arg, offs_arg, align, _t(shape, elem),
                                  _t([e], "i32"), _t([rows, shape[1]], elem),
                                  _t([e], "i32")))

    def cast_32x1(res, arg, shape, elem):
        return ("%s = mxfp8train.quantize %s axis = 0 mode = rceil : %s -> "
                "%s, %s" % ((res, arg, _t(shape, elem)) + mx_types(shape, 0)))

    for tag, (t, c, elem, offs, align) in (
            ("uneven", (200, 64, "bf16", [30, 30, 130, 190], 32)),
            ("malformed_f32", (160, 32, "f32", [70, 40, 500], 128))):
        e = len(offs)
        rows, pad_line = pad_token_groups("%xp, %r2", "%arg0", [t, c], elem,
                                          "%arg1", e, align)
        case("pad_cast_" + tag, [([t, c], elem), ([e], "i32")],
             [([rows, c], "f8E4M3FN"), ([rows // 32, c], "f8E8M0FNU"),
              ([e], "i32")],
             [pad_line, cast_32x1("%r0, %r1", "%xp", [rows, c], elem)],
             offs=offs, fusion="fuse-padding")

    # The 2d-2d wgrad of padded operands, one of them the result of an
    # elementwise producer that a 1x32 cast reads too.
    t, m, n, offs = 256, 128, 256, [96, 96, 200, 250]
    e = len(offs)
    rows, pad_x = pad_token_groups("%xp, %xo", "%arg0", [t, m], "bf16",
                                   "%arg3", e, 32)
    _, pad_g = pad_token_groups("%gp, %go", "%g", [t, n], "bf16", "%arg3",
                                e, 32)
    case("pad_producer_wgrad",
         [([t, m], "bf16"), ([t, n], "bf16"), ([t, n], "bf16"), ([e], "i32")],
         [([e, m, n], "bf16"), ([t, n], "f8E4M3FN"),
          ([t, n // 32], "f8E8M0FNU")],
         _bf16_binary("%g", "%arg1", "%arg2", [t, n], "mulf") +
         [pad_x, pad_g,
          cast_32x1("%xq, %xs", "%xp", [rows, m], "bf16"),
          cast_32x1("%gq, %gs", "%gp", [rows, n], "bf16"),
          "%%r0 = mxfp8train.scaled_grouped_mm %%xq [%%xs], %%gq [%%gs] "
          "offs(%%xo) transpose_lhs : %s, %s, %s -> %s" % (
              mx([rows, m], 0), mx([rows, n], 0), _t([e], "i32"),
              _t([e, m, n], "bf16")),
          mx_quantize("%r1, %r2", "%g", [t, n], 1)],
         offs=offs, fusion="fuse-padding", tiny=[0])
    return out


def case_body(case):
    """(ins, outs, body lines) for gpu-check.py's case_module."""
    return case["ins"], case["outs"], case["body"]


def make_inputs(case, ins, rng, to_bf16):
    """Normal bf16 values (a few columns scaled up by 2^10, so the scales
    differ), the offsets as given."""
    arrays = []
    for i, (shape, elem) in enumerate(ins):
        if elem == "i32":
            arrays.append(np.array(case["offs"], dtype=np.int32))
            continue
        x = rng.standard_normal(shape).astype(np.float32)
        if elem == "f32":
            arrays.append(x)
            continue
        x2 = x.reshape(-1, shape[-1])
        x2[:, ::7] *= 1024.0
        if case.get("tiny") and i in case["tiny"]:
            # Blocks of values near 2^-130 (bf16 subnormals; scale byte
            # below 3, so the bf16 form is inexact and the flag is raised):
            # a 32 x 1 block (rows 0-31 of column 3) and a 1 x 32 block (row
            # 40, columns 64-95); and a zero block (row 41, columns 0-31).
            x2[:32, 3] *= 2.0 ** -130
            x2[40, 64:96] *= 2.0 ** -130
            x2[41, :32] = 0.0
        arrays.append(to_bf16(x.view(np.uint32)))
    return arrays
