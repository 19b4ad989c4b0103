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
# each in bf16 eager (cuBLAS) and under torch.compile. One JSON line per
# (step, mode): the median and minimum of REPEAT timed steps (CUDA events,
# after WARMUP untimed ones). Inputs: normal, std 1 for activations and
# gradients, 0.02 for weights, as mxfp8run.std in the sources.
#
#   torch_step_peer.py --step llama --tokens 16384 [--source FILE.mlir]
#       [--repeat 10] [--warmup 3] [--modes eager,compile]
#
# ===----------------------------------------------------------------------=== #

import argparse
import json
import re
import statistics
import sys

import torch
import torch.nn.functional as F


def llama_step(x, w1, w3, w2, d_out):
    """Forward + backward of the SwiGLU block; returns (out, dx, dw1, dw3, dw2)."""
    out = F.linear(F.silu(F.linear(x, w1)) * F.linear(x, w3), w2)
    dx, dw1, dw3, dw2 = torch.autograd.grad(out, (x, w1, w3, w2), d_out)
    return out, dx, dw1, dw3, dw2


def moe_step(x, w1, w3, w2, d_out, offs):
    """Forward + backward of the experts (W1, W3: (E, 2048, 7168), W2:
    (E, 7168, 2048)) over the token groups `offs` (cumulative ends)."""
    h1 = torch._grouped_mm(x, w1.transpose(-2, -1), offs=offs)
    h3 = torch._grouped_mm(x, w3.transpose(-2, -1), offs=offs)
    out = torch._grouped_mm(F.silu(h1) * h3, w2.transpose(-2, -1), offs=offs)
    dx, dw1, dw3, dw2 = torch.autograd.grad(out, (x, w1, w3, w2), d_out)
    return out, dx, dw1, dw3, dw2


def read_offs(source, experts):
    """The `offs` constant (dense<[...]> : tensor<Exi32>) of a step source."""
    text = open(source).read()
    m = re.search(r"dense<\[([0-9, ]+)\]>\s*:\s*tensor<%dxi32>" % experts, text)
    if not m:
        sys.exit("torch_step_peer: no offs constant in %s" % source)
    return [int(v) for v in m.group(1).split(",")]


def time_step(fn, args, repeat, warmup):
    for _ in range(warmup):
        fn(*args)
    torch.cuda.synchronize()
    times = []
    for _ in range(repeat):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn(*args)
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times), min(times)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--step", choices=["llama", "moe"], required=True)
    parser.add_argument("--tokens", type=int, default=16384)
    parser.add_argument("--source", help="the resized step source (moe: offs)")
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--modes", default="eager,compile")
    args = parser.parse_args()

    torch.manual_seed(0)
    dev, bf16 = "cuda", torch.bfloat16

    def normal(shape, std, grad=False):
        t = (torch.randn(shape, device=dev, dtype=torch.float32) * std).to(bf16)
        return t.requires_grad_(grad)

    t = args.tokens
    if args.step == "llama":
        inputs = (normal((t, 4096), 1.0, True), normal((14336, 4096), 0.02, True),
                  normal((14336, 4096), 0.02, True), normal((4096, 14336), 0.02, True),
                  normal((t, 4096), 1.0))
        fn = llama_step
        flops = 3 * 3 * 2 * t * 4096 * 14336
    else:
        offs_list = read_offs(args.source, 8) if args.source else None
        if offs_list is None or offs_list[-1] != t:
            sys.exit("torch_step_peer: --source with the offs of %d tokens needed" % t)
        offs = torch.tensor(offs_list, device=dev, dtype=torch.int32)
        inputs = (normal((t, 7168), 1.0, True), normal((8, 2048, 7168), 0.02, True),
                  normal((8, 2048, 7168), 0.02, True), normal((8, 7168, 2048), 0.02, True),
                  normal((t, 7168), 1.0), offs)
        fn = moe_step
        flops = 3 * 3 * 2 * t * 7168 * 2048

    for mode in args.modes.split(","):
        step = fn if mode == "eager" else torch.compile(fn)
        try:
            median, best = time_step(step, inputs, args.repeat, args.warmup)
        except Exception as e:  # noqa: BLE001 - report and go on
            print(json.dumps({"step": args.step, "mode": mode, "tokens": t,
                              "error": "%s: %s" % (type(e).__name__, e)[:300]}))
            continue
        print(json.dumps({"step": args.step, "mode": mode, "tokens": t,
                          "median_ms": round(median, 3), "min_ms": round(best, 3),
                          "tflops": round(flops / median / 1e9, 1),
                          "torch": torch.__version__}), flush=True)


if __name__ == "__main__":
    main()
