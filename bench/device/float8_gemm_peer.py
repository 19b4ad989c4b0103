#!/usr/bin/env python3
# ===- bench/device/float8_gemm_peer.py - Float8 GEMM peers on the GPU -----=== #
#
# The GEMMs a user runs instead of ours for torchao's Float8 recipes, timed
# with CUDA events on the main job's shapes (issue 13's goals are ratios
# against these, measured in the same device call):
#
#   llama  the nine GEMMs of the Llama-3-8B SwiGLU MLP step at TOKENS tokens
#          (M, K, N): forward (T, 4096, 14336) x2 and (T, 14336, 4096);
#          grad_input (T, 4096, 14336) and (T, 14336, 4096) x2; grad_weight
#          (4096, T, 14336) and (14336, T, 4096) x2 -- each as cuBLAS bf16
#          (torch.mm), torch._scaled_mm tensorwise (e4m3 x e4m3; a scalar f32
#          scale per operand) and rowwise (e4m3, scale_a (M,1), scale_b
#          (1,N), power-of-2 scales are just values here), rowwise with
#          use_fast_accum=False (torchao's grad GEMMs), and for grad_input /
#          grad_weight that again with the layout copies torchao's
#          preprocess_addmm makes of the operands as the backward stores
#          them (mxfp8train's sm_90a kernel transposes the same operands in
#          its pre-pass: scripts/gpu-check.py's f8_gemm_timing_llama_dgrad_*
#          / _wgrad_* time that whole sequence)
#   moe    the DeepSeek-V3 experts' grouped GEMMs (8 experts, 7168 <-> 2048,
#          TOKENS tokens in uneven groups whose sizes are multiples of 16, as
#          torch._scaled_grouped_mm requires): 2d-3d forward (K 7168 -> N
#          2048 and 2048 -> 7168) and the 2d-2d weight gradient, as
#          torch._grouped_mm bf16 and torch._scaled_grouped_mm rowwise
#
# Operand layouts are the ones torch requires (mat2 column-major). Values:
# normal, std 1, cast to e4m3 by saturation; the timing does not depend on
# them. One JSON line per (shape, kind): median/min ms and TFLOP/s, or the
# error (an unsupported combination on this torch is reported, not fatal).
#
#   float8_gemm_peer.py [--tokens 16384] [--repeat 20] [--warmup 5]
#
# ===----------------------------------------------------------------------=== #

import argparse
import json
import statistics

import torch

E4M3 = torch.float8_e4m3fn


def time_ms(fn, repeat, warmup):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeat):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times), min(times)


def fp8(shape):
    return torch.randn(shape, device="cuda").clamp(-448, 448).to(E4M3)


def report(line, fn, flops, args):
    try:
        median, best = time_ms(fn, args.repeat, args.warmup)
        line.update({"median_ms": round(median, 4), "min_ms": round(best, 4),
                     "tflops": round(flops / median / 1e9, 1)})
    except Exception as e:  # noqa: BLE001 - report and go on
        line["error"] = ("%s: %s" % (type(e).__name__, e))[:300]
    print(json.dumps(line), flush=True)


def llama(args):
    t = args.tokens
    shapes = [("fwd.w1", t, 4096, 14336), ("fwd.w2", t, 14336, 4096),
              ("dgrad.w2", t, 4096, 14336), ("dgrad.w1", t, 14336, 4096),
              ("wgrad.w2", 4096, t, 14336), ("wgrad.w1", 14336, t, 4096)]
    bf16 = torch.bfloat16
    for name, m, k, n in shapes:
        flops = 2 * m * k * n
        a = torch.randn((m, k), device="cuda", dtype=bf16)
        b = torch.randn((n, k), device="cuda", dtype=bf16).t()
        a8, b8 = fp8((m, k)), fp8((n, k)).t()
        one = torch.ones((), device="cuda")
        sa, sb = torch.ones((m, 1), device="cuda"), torch.ones((1, n), device="cuda")
        base = {"step": "llama", "gemm": name, "m": m, "k": k, "n": n}
        report(dict(base, kind="cublas_bf16"), lambda: torch.mm(a, b), flops, args)
        report(dict(base, kind="scaled_mm_tensorwise"),
               lambda: torch._scaled_mm(a8, b8, one, one, out_dtype=bf16,
                                        use_fast_accum=True), flops, args)
        report(dict(base, kind="scaled_mm_tensorwise_slow_accum"),
               lambda: torch._scaled_mm(a8, b8, one, one, out_dtype=bf16),
               flops, args)
        report(dict(base, kind="scaled_mm_rowwise"),
               lambda: torch._scaled_mm(a8, b8, sa, sb, out_dtype=bf16,
                                        use_fast_accum=True), flops, args)
        # torchao's grad GEMMs: use_fast_accum=False (promotion), and the
        # operands as the backward has them, made row-major / column-major
        # by preprocess_addmm's copies (SPEC-float8 §5.1): dgrad's weight
        # stored (N, K) row-major is the (K, N) mat2 row-major (one copy);
        # wgrad's grad_output (T, N) gives mat1 = gO^T column-major and the
        # input (T, K) mat2 row-major (two copies).
        report(dict(base, kind="scaled_mm_rowwise_slow_accum"),
               lambda: torch._scaled_mm(a8, b8, sa, sb, out_dtype=bf16),
               flops, args)
        if name.startswith("dgrad"):
            b8_rm = b8.contiguous()  # the weight as stored
            report(dict(base, kind="scaled_mm_rowwise_slow_accum_torchao_layout"),
                   lambda: torch._scaled_mm(a8, b8_rm.t().contiguous().t(), sa,
                                            sb, out_dtype=bf16), flops, args)
            del b8_rm
        elif name.startswith("wgrad"):
            a8_cm = a8.t().contiguous().t()  # gO^T of gO stored (T, N)
            b8_rm = b8.contiguous()  # the input as stored (T, K)
            report(dict(base, kind="scaled_mm_rowwise_slow_accum_torchao_layout"),
                   lambda: torch._scaled_mm(a8_cm.contiguous(),
                                            b8_rm.t().contiguous().t(), sa, sb,
                                            out_dtype=bf16), flops, args)
            del a8_cm, b8_rm
        del a, b, a8, b8


def moe(args):
    t, e, dim, ffn = args.tokens, 8, 7168, 2048
    weights = [0.18, 0.05, 0.2, 0.1, 0.07, 0.15, 0.13, 0.12]
    sizes = [int(t * w) // 16 * 16 for w in weights]
    sizes[-1] += t - sum(sizes)
    offs = torch.tensor(sizes, device="cuda", dtype=torch.int32).cumsum(0).to(torch.int32)
    bf16 = torch.bfloat16
    for name, k, n in (("fwd.w1", dim, ffn), ("fwd.w2", ffn, dim)):
        flops = 2 * t * k * n
        a = torch.randn((t, k), device="cuda", dtype=bf16)
        b = torch.randn((e, n, k), device="cuda", dtype=bf16).transpose(-2, -1)
        a8, b8 = fp8((t, k)), fp8((e, n, k)).transpose(-2, -1)
        sa, sb = torch.ones((t,), device="cuda"), torch.ones((e, n), device="cuda")
        base = {"step": "moe", "gemm": name + " 2d-3d", "m": t, "k": k, "n": n,
                "groups": sizes}
        report(dict(base, kind="grouped_mm_bf16"),
               lambda: torch._grouped_mm(a, b, offs=offs), flops, args)
        report(dict(base, kind="scaled_grouped_mm_rowwise"),
               lambda: torch._scaled_grouped_mm(a8, b8, sa, sb, offs=offs,
                                                out_dtype=bf16, use_fast_accum=True),
               flops, args)
    # 2d-2d weight gradient: dW (E, ffn, dim) = dh^T (ffn, T) x (T, dim) per group
    flops = 2 * ffn * t * dim
    dh_t = torch.randn((t, ffn), device="cuda", dtype=bf16).t()
    x = torch.randn((dim, t), device="cuda", dtype=bf16).t()
    dh8_t, x8 = fp8((ffn, t)), fp8((dim, t)).t()
    base = {"step": "moe", "gemm": "wgrad 2d-2d", "m": ffn, "k": t, "n": dim,
            "groups": sizes}
    report(dict(base, kind="grouped_mm_bf16"),
           lambda: torch._grouped_mm(dh_t, x, offs=offs), flops, args)
    sa, sb = torch.ones((e * ffn,), device="cuda"), torch.ones((e * dim,), device="cuda")
    report(dict(base, kind="scaled_grouped_mm_rowwise"),
           lambda: torch._scaled_grouped_mm(dh8_t, x8, sa, sb, offs=offs,
                                            out_dtype=bf16, use_fast_accum=True),
           flops, args)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tokens", type=int, default=16384)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=5)
    args = parser.parse_args()
    print(json.dumps({"torch": torch.__version__,
                      "device": torch.cuda.get_device_name()}), flush=True)
    llama(args)
    moe(args)


if __name__ == "__main__":
    main()
