#!/usr/bin/env python3
# ===- bench/device/torch_step_peer.py - the main job's steps in torch ----=== #
#
# The torch peers of the main job's training steps, timed on the GPU in the
# same device call as ours (bench/device/step-bench.sh):
#
#   llama  Llama-3-8B SwiGLU MLP block, forward + backward at TOKENS tokens:
#          out = (silu(x W1^T) * (x W3^T)) W2^T, then dx, dW1, dW3, dW2 from
#          dO (examples/llama3_8b_mlp_train_step.mlir)
#   moe    DeepSeek-V3 experts (8 experts, 7168 -> 2048 -> 7168), forward +
#          backward through torch._grouped_mm with the step's token groups
#          (the `offs` constant of the resized source,
#          examples/deepseek_v3_moe_train_step.mlir)
#
# in these modes (--modes, comma-separated):
#
#   eager                         bf16, eager (cuBLAS, torch._grouped_mm)
#   compile                       bf16 under torch.compile
#   torchao_mx_emulated           torchao's MXFP8 training recipe (RCEIL
#                                 scales, e4m3 everywhere, MXFP8 wgrad), in
#                                 its emulated form (pure torch: to_mx casts,
#                                 dequantize, bf16 matmul), eager
#   torchao_mx_emulated_compile   the same under torch.compile
#   torchao_float8_RECIPE[_compile]
#                                 torchao's Float8 training linear (llama
#                                 only), RECIPE one of tensorwise, rowwise,
#                                 rowwise_with_gw_hp (Float8LinearConfig.
#                                 from_recipe_name; native fp8 on Hopper)
#
# The torchao modes use torchao 0.18.0's differentiable entry points
# directly: torchao.prototype.moe_training.mxfp8_linear.
# _to_mxfp8_then_scaled_mm for each linear of the MLP and .mxfp8_grouped_mm.
# _to_mxfp8_then_scaled_grouped_mm (with its token-group padding to 32) for
# the experts, both with KernelPreference.EMULATED. The model-conversion
# path (quantize_ with MXFP8TrainingOpConfig) asserts a torch nightly
# (DTensor internals, conversion_utils._get_tensor_cls_for_config); the
# autograd functions it installs do not need it, so calling them skips only
# that check. Emulated, not SM100: the H200 has no MX tensor cores.
#
# --kernel-profile: after timing a mode, one more call under torch.profiler;
# its JSON line gets `kernels`: the milliseconds of the GEMM kernels (cuBLAS /
# CUTLASS names) and of all other kernels, and the largest kernels (what a
# step's time is spent on, against mxfp8-launch --profile-json of ours).
#
# torchao is not on the GPU machine: carry its wheel. Here, in the repo root:
#   python3 -m pip download torchao==0.18.0 --no-deps --only-binary=:all: \
#     --python-version 3.12 --implementation cp \
#     --platform manylinux_2_28_x86_64 -d .whl
# (.whl/ is git-ignored; name it in the device call's carry).
# bench/device/step-bench.sh installs it with `pip install --no-deps` when
# present and asks for the torchao modes; without it, or when torchao fails
# to import or run, the torchao lines carry "error" with the reason.
#
# One JSON line per (step, mode): the median and minimum of REPEAT timed
# steps (CUDA events, after WARMUP untimed ones), or the error. Inputs:
# normal, std 1 for activations and gradients, 0.02 for weights, as
# mxfp8run.std in the sources; the same tensors for every mode.
#
# Each line of a mode other than eager also carries the SQNR (dB) of its
# five results (out, dx, dW1, dW3, dW2) against the bf16 eager step's, the
# smallest first ("sqnr_db"): the torchao modes compute the same step.
#
#   torch_step_peer.py --step llama --tokens 16384 [--source FILE.mlir]
#       [--repeat 10] [--warmup 3] [--modes eager,compile,...]
#   torch_step_peer.py --step moe --smoke [--modes ...]
#       the same code on the CPU at toy sizes (hidden 256, FFN 512, 4
#       experts, 100 tokens in groups not aligned to 32), for a machine
#       without a GPU; times from the host clock
#
# ===----------------------------------------------------------------------=== #

import argparse
import json
import math
import re
import statistics
import sys
import time

try:
    import torch
    import torch.nn.functional as F
except ImportError as e:  # one error line per asked mode, for step-bench.sh
    _args = sys.argv[1:]
    _modes = "eager,compile"
    _step = _args[_args.index("--step") + 1] if "--step" in _args[:-1] else "?"
    if "--modes" in _args[:-1]:
        _modes = _args[_args.index("--modes") + 1]
    for _mode in _modes.split(","):
        print(json.dumps({"step": _step, "mode": _mode,
                          "error": "ImportError: %s" % e}))
    sys.exit(0)


def bf16_grouped_mm(a, b_t, offs):
    return torch._grouped_mm(a, b_t, offs=offs)


def make_llama_step(linear):
    """Forward + backward of the SwiGLU block with `linear(x, w)` (x W^T);
    the step returns (out, dx, dw1, dw3, dw2)."""
    def llama_step(x, w1, w3, w2, d_out):
        out = linear(F.silu(linear(x, w1)) * linear(x, w3), w2)
        dx, dw1, dw3, dw2 = torch.autograd.grad(out, (x, w1, w3, w2), d_out)
        return out, dx, dw1, dw3, dw2
    return llama_step


def make_moe_step(grouped_mm):
    """Forward + backward of the experts (W1, W3: (E, 2048, 7168), W2:
    (E, 7168, 2048)) over the token groups `offs` (cumulative ends) with
    `grouped_mm(a, b_t, offs)` (a 2d-3d grouped GEMM, b_t: (E, K, N))."""
    def moe_step(x, w1, w3, w2, d_out, offs):
        h1 = grouped_mm(x, w1.transpose(-2, -1), offs)
        h3 = grouped_mm(x, w3.transpose(-2, -1), offs)
        out = grouped_mm(F.silu(h1) * h3, w2.transpose(-2, -1), offs)
        dx, dw1, dw3, dw2 = torch.autograd.grad(out, (x, w1, w3, w2), d_out)
        return out, dx, dw1, dw3, dw2
    return moe_step


def load_torchao_emulated():
    """torchao's MXFP8 training linear and grouped GEMM, emulated, RCEIL;
    returns (linear, grouped_mm, torchao version) or raises (ImportError
    when torchao is not installed)."""
    import torchao
    from torchao.prototype.moe_training.mxfp8_grouped_mm import (
        _to_mxfp8_then_scaled_grouped_mm,
    )
    from torchao.prototype.moe_training.mxfp8_linear import _to_mxfp8_then_scaled_mm
    from torchao.prototype.mx_formats.config import ScaleCalculationMode
    from torchao.quantization.quantize_.common.kernel_preference import (
        KernelPreference,
    )

    emulated, rceil = KernelPreference.EMULATED, ScaleCalculationMode.RCEIL

    def linear(x, w):
        return _to_mxfp8_then_scaled_mm(x, w, emulated, rceil)

    def grouped_mm(a, b_t, offs):
        return _to_mxfp8_then_scaled_grouped_mm(
            a, b_t, offs, out_dtype=torch.bfloat16, kernel_preference=emulated,
            scale_calculation_mode=rceil, pad_token_groups_for_grouped_mm=True)

    return linear, grouped_mm, torchao.__version__


def load_torchao_float8(recipe):
    """torchao's Float8 training linear for `recipe` (`tensorwise`,
    `rowwise`, `rowwise_with_gw_hp`, Float8LinearConfig.from_recipe_name):
    the autograd function Float8Linear.forward applies, with the module's
    per-GEMM configs; returns (linear, torchao version)."""
    import torchao
    from torchao.float8.config import Float8LinearConfig
    from torchao.float8.float8_linear import (
        LinearMMConfig,
        ScaledMMConfig,
        matmul_with_hp_or_float8_args,
    )

    config = Float8LinearConfig.from_recipe_name(recipe)
    mm_config = LinearMMConfig(*(
        ScaledMMConfig(config.emulate, gemm.use_fast_accum, False,
                       config.pad_inner_dim)
        for gemm in (config.gemm_config_output, config.gemm_config_grad_input,
                     config.gemm_config_grad_weight)))

    def linear(x, w):
        return matmul_with_hp_or_float8_args.apply(x, w.t(), mm_config, config)

    return linear, torchao.__version__


def read_offs(source, experts):
    """The `offs` constant (dense<[...]> : tensor<Exi32>) of a step source."""
    text = open(source).read()
    m = re.search(r"dense<\[([0-9, ]+)\]>\s*:\s*tensor<%dxi32>" % experts, text)
    if not m:
        sys.exit("torch_step_peer: no offs constant in %s" % source)
    return [int(v) for v in m.group(1).split(",")]


def time_step(fn, args, repeat, warmup, cuda=True):
    """Median and minimum milliseconds of `repeat` calls after `warmup`, and
    the results of the last call."""
    for _ in range(warmup):
        fn(*args)
    if cuda:
        torch.cuda.synchronize()
    times = []
    for _ in range(repeat):
        if cuda:
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            results = fn(*args)
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
        else:
            begin = time.perf_counter()
            results = fn(*args)
            times.append((time.perf_counter() - begin) * 1e3)
    return statistics.median(times), min(times), results


def kernel_profile(fn, args):
    """One more call of `fn` under torch.profiler (CUDA activity): the
    kernel milliseconds of the GEMMs (cuBLAS / CUTLASS: names with nvjet,
    gemm, xmma or cutlass) and of everything else, and the largest
    kernels as [name, ms, launches]."""
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn(*args)
        torch.cuda.synchronize()
    totals, counts = {}, {}
    for e in prof.key_averages():
        us = getattr(e, "self_device_time_total", None)
        if us is None:
            us = getattr(e, "self_cuda_time_total", 0)
        if us:
            totals[e.key] = totals.get(e.key, 0.0) + us / 1e3
            counts[e.key] = counts.get(e.key, 0) + e.count
    gemm = re.compile(r"nvjet|gemm|xmma|cutlass", re.I)
    out = {"gemm_ms": round(sum(v for k, v in totals.items() if gemm.search(k)), 3),
           "other_ms": round(sum(v for k, v in totals.items()
                                 if not gemm.search(k)), 3)}
    out["top"] = [[k[:90], round(v, 3), counts[k]] for k, v in
                  sorted(totals.items(), key=lambda kv: -kv[1])[:12]]
    return out


def sqnr_db(reference, value):
    """10 log10(|reference|^2 / |reference - value|^2), in float64."""
    reference, value = reference.double(), value.double()
    noise = (reference - value).pow(2).sum().item()
    signal = reference.pow(2).sum().item()
    return float("inf") if noise == 0 else 10.0 * math.log10(signal / noise)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--step", choices=["llama", "moe"], required=True)
    parser.add_argument("--tokens", type=int, default=16384)
    parser.add_argument("--source", help="the resized step source (moe: offs)")
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--modes", default="eager,compile")
    parser.add_argument("--kernel-profile", action="store_true",
                        help="after timing a mode, profile one more call: "
                        "kernel ms of the GEMMs and of the rest, the "
                        "largest kernels (`kernels` in its JSON line)")
    parser.add_argument("--smoke", action="store_true",
                        help="toy sizes on the CPU (no GPU needed)")
    args = parser.parse_args()

    torch.manual_seed(0)
    dev, bf16 = ("cpu" if args.smoke else "cuda"), torch.bfloat16
    # hidden, FFN, experts
    dim, ffn, experts = (256, 512, 4) if args.smoke else (
        (4096, 14336, 8) if args.step == "llama" else (7168, 2048, 8))

    def normal(shape, std, grad=False):
        t = (torch.randn(shape, device=dev, dtype=torch.float32) * std).to(bf16)
        return t.requires_grad_(grad)

    t = 100 if args.smoke else args.tokens
    if args.step == "llama":
        inputs = (normal((t, dim), 1.0, True), normal((ffn, dim), 0.02, True),
                  normal((ffn, dim), 0.02, True), normal((dim, ffn), 0.02, True),
                  normal((t, dim), 1.0))
        make_step, bf16_op = make_llama_step, F.linear
    else:
        if args.smoke:
            offs_list = [20, 50, 90, 100]
        else:
            offs_list = read_offs(args.source, experts) if args.source else None
        if offs_list is None or offs_list[-1] != t:
            sys.exit("torch_step_peer: --source with the offs of %d tokens needed" % t)
        offs = torch.tensor(offs_list, device=dev, dtype=torch.int32)
        inputs = (normal((t, dim), 1.0, True), normal((experts, ffn, dim), 0.02, True),
                  normal((experts, ffn, dim), 0.02, True),
                  normal((experts, dim, ffn), 0.02, True), normal((t, dim), 1.0), offs)
        make_step, bf16_op = make_moe_step, bf16_grouped_mm
    flops = 3 * 3 * 2 * t * dim * ffn
    reference = None  # the bf16 eager step's results, for the SQNRs

    torchao_ops, torchao_version = None, None
    for mode in args.modes.split(","):
        line = {"step": args.step, "mode": mode, "tokens": t, "torch": torch.__version__}
        if args.smoke:
            line["smoke"] = True
        try:
            if mode in ("eager", "compile"):
                fn = make_step(bf16_op)
            elif mode in ("torchao_mx_emulated", "torchao_mx_emulated_compile"):
                if torchao_ops is None:
                    linear, grouped_mm, torchao_version = load_torchao_emulated()
                    torchao_ops = {"llama": linear, "moe": grouped_mm}
                line["torchao"] = torchao_version
                fn = make_step(torchao_ops[args.step])
            elif mode.startswith("torchao_float8_") and args.step == "llama":
                recipe = mode[len("torchao_float8_"):]
                if recipe.endswith("_compile"):
                    recipe = recipe[:-len("_compile")]
                linear, line["torchao"] = load_torchao_float8(recipe)
                fn = make_step(linear)
            else:
                raise ValueError("unknown mode %r" % mode)
            step = torch.compile(fn) if mode.endswith("compile") else fn
            median, best, results = time_step(step, inputs, args.repeat, args.warmup,
                                              cuda=not args.smoke)
            if mode != "eager":
                if reference is None:
                    reference = [r.detach().clone() for r in
                                 make_step(bf16_op)(*inputs)]
                line["sqnr_db"] = sorted(round(sqnr_db(r, v.detach()), 2)
                                         for r, v in zip(reference, results))
            elif reference is None:
                reference = [r.detach().clone() for r in results]
        except Exception as e:  # noqa: BLE001 - report and go on
            line["error"] = ("%s: %s" % (type(e).__name__, e))[:300]
            print(json.dumps(line), flush=True)
            continue
        line.update({"median_ms": round(median, 3), "min_ms": round(best, 3),
                     "tflops": round(flops / median / 1e9, 1)})
        if args.kernel_profile and not args.smoke:
            line["kernels"] = kernel_profile(step, inputs)
        print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
