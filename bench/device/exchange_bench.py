#!/usr/bin/env python3
# ===- bench/device/exchange_bench.py - the MXFP8 exchange on one GPU ------===#
#
# Usage (GPU machine, torch; the runtime built there, e.g. by
# bench/device/launch-build.sh):
#   python3 bench/device/exchange_bench.py --runtime-lib DIR
#       [--tokens 16384] [--k 7168] [--n 7168] [--topk 8] [--experts 256]
#
# Times the runtime's MXFP8 token dispatch and combine (mxfp8rtMoeDispatchMx,
# mxfp8rtMoeCombine over an NCCL communicator of ONE rank, device buffers,
# torch's current stream) against the bf16 exchange a torch user writes for
# expert parallelism (torchtitan's shape of it: sort the slots by expert,
# index_select the bf16 rows, all_to_all_single with host splits; back:
# all_to_all_single and a scatter into (token, slot) order), same tokens,
# same routing, torch.distributed NCCL with one rank, in the same process.
#
# With one rank every all-to-all is a copy to itself: this measures what
# surrounds the wire (host planning, routing read back, the pack and group
# kernels, the bytes copied), not the wire, where MXFP8 rows are 0.52 of
# the bf16 bytes. The two-GPU measurement of issue 15 needs the
# nvidia-h200-x2 kind.
#
# Checks before timing: the dispatched rows of each local expert are the
# torch peer's rows of that expert (fp8 data and scales of the same tokens,
# in the same order), the padding rows zero, and the combine returns every
# slot's row. Prints one JSON line per measurement and a summary.
#
# ===----------------------------------------------------------------------===#
import argparse
import ctypes
import json
import os
import statistics
import time

import torch
import torch.distributed as dist


def median_ms(fn, reps, warmup=3):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


class NcclId(ctypes.Structure):
    _fields_ = [("bytes", ctypes.c_char * 128)]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--runtime-lib", required=True)
    p.add_argument("--tokens", type=int, default=16384)
    p.add_argument("--k", type=int, default=7168)
    p.add_argument("--n", type=int, default=7168)
    p.add_argument("--topk", type=int, default=8)
    p.add_argument("--experts", type=int, default=256)
    p.add_argument("--alignment", type=int, default=32)
    p.add_argument("--reps", type=int, default=20)
    args = p.parse_args()
    T, K, N, topk, E, align = (args.tokens, args.k, args.n, args.topk,
                               args.experts, args.alignment)
    slots = T * topk
    cap = slots + E * align

    rt = ctypes.CDLL(os.path.join(args.runtime_lib, "libmxfp8train_runtime.so"))
    vp, ip = ctypes.c_void_p, ctypes.c_ssize_t
    rt.mxfp8rtGetLastError.restype = ctypes.c_char_p
    rt.mxfp8rtMoeDispatchMx.argtypes = [vp, vp, vp, ip, ip, ip, vp, ip, ip, ip,
                                        vp, vp, vp, vp, vp]
    rt.mxfp8rtMoeCombine.argtypes = [vp, vp, ip, ctypes.c_int32, ip, ip, vp, ip,
                                     vp, ip, ip, vp, vp]

    def check(status, what):
        if status != 0:
            raise RuntimeError("%s: %s" % (what, rt.mxfp8rtGetLastError().decode()))

    torch.cuda.set_device(0)
    torch.zeros(1, device="cuda")  # the primary context, shared with the runtime
    check(rt.mxfp8rtInitialize(), "mxfp8rtInitialize")
    check(rt.mxfp8rtSetDevice(0), "mxfp8rtSetDevice")
    nid = NcclId()
    check(rt.mxfp8rtNcclGetUniqueId(ctypes.byref(nid)), "mxfp8rtNcclGetUniqueId")
    comm = vp()
    check(rt.mxfp8rtCommInitNccl(1, ctypes.byref(nid), 0, ctypes.byref(comm)),
          "mxfp8rtCommInitNccl")
    dist.init_process_group("nccl", init_method="tcp://127.0.0.1:29517",
                            rank=0, world_size=1)
    stream = torch.cuda.current_stream().cuda_stream

    g = torch.Generator(device="cuda").manual_seed(0)
    x = torch.randn(T, K, device="cuda", generator=g).to(torch.bfloat16)
    data = torch.randint(0, 126, (T, K), dtype=torch.uint8, device="cuda", generator=g)
    scales = torch.randint(110, 140, (T, K // 32), dtype=torch.uint8, device="cuda",
                           generator=g)
    # top-k distinct experts per token, skewed like a router's.
    logits = torch.randn(T, E, device="cuda", generator=g) + torch.linspace(
        0, 2, E, device="cuda")
    route = torch.topk(logits, topk, dim=1).indices.to(torch.int32).contiguous()
    expert_out = torch.randn(cap, N, device="cuda", generator=g).to(torch.bfloat16)

    rdata = torch.empty(cap, K, dtype=torch.uint8, device="cuda")
    rscales = torch.empty(cap, K // 32, dtype=torch.uint8, device="cuda")
    roffs = torch.empty(E, dtype=torch.int32, device="cuda")
    counts = torch.empty(E, dtype=torch.int32, device="cuda")
    out = torch.empty(slots, N, dtype=torch.bfloat16, device="cuda")

    def ours_dispatch():
        check(rt.mxfp8rtMoeDispatchMx(comm, data.data_ptr(), scales.data_ptr(), T, K,
                                      topk, route.data_ptr(), E, cap, align,
                                      rdata.data_ptr(), rscales.data_ptr(),
                                      roffs.data_ptr(), counts.data_ptr(), stream),
              "mxfp8rtMoeDispatchMx")

    def ours_combine():
        check(rt.mxfp8rtMoeCombine(comm, expert_out.data_ptr(), N, 1, T, topk,
                                   route.data_ptr(), E, counts.data_ptr(), cap, align,
                                   out.data_ptr(), stream), "mxfp8rtMoeCombine")

    # torch's bf16 exchange (one rank: every split goes to rank 0).
    state = {}

    def torch_dispatch():
        flat = route.view(-1)
        order = torch.argsort(flat, stable=True)
        per_expert = torch.bincount(flat, minlength=E)
        splits = [int(per_expert.sum().item())]  # per destination rank (host)
        send = x.index_select(0, order // topk)
        recv = torch.empty_like(send)
        dist.all_to_all_single(recv, send, splits, splits)
        state.update(order=order, recv=recv, splits=splits)

    def torch_combine():
        eo = expert_out[:slots]
        back = torch.empty_like(eo)
        dist.all_to_all_single(back, eo, state["splits"], state["splits"])
        res = torch.empty_like(back)
        res.index_copy_(0, state["order"], back)
        state["out"] = res

    # Checks: the dispatched rows of each expert are the sorted slots' rows.
    ours_dispatch()
    ours_combine()
    torch_dispatch()
    torch.cuda.synchronize()
    flat = route.view(-1).long()
    order = torch.argsort(flat, stable=True)
    per_expert = torch.bincount(flat, minlength=E)
    ends = torch.cumsum(((per_expert + align - 1) // align) * align, 0)
    starts = ends - ((per_expert + align - 1) // align) * align
    rows = torch.cat([torch.arange(s, s + c, device="cuda")
                      for s, c in zip(starts.tolist(), per_expert.tolist())])
    tok = order // topk
    ok = bool(torch.equal(rdata[rows], data[tok]) and
              torch.equal(rscales[rows], scales[tok]) and
              torch.equal(roffs.long(), ends))
    pad = torch.ones(cap, dtype=torch.bool, device="cuda")
    pad[rows] = False
    ok = ok and bool((rdata[pad] == 0).all() and (rscales[pad] == 0).all())
    # combine: slot i of token t gets expert_out[row of that slot].
    row_of_slot = torch.empty(slots, dtype=torch.long, device="cuda")
    row_of_slot[order] = rows
    ok = ok and bool(torch.equal(out, expert_out[row_of_slot]))
    print(json.dumps(dict(check="ours against the sorted slots", ok=ok)), flush=True)

    res = dict(tokens=T, k=K, n=N, topk=topk, experts=E, alignment=align,
               ranks=1,
               ours_dispatch_ms=median_ms(ours_dispatch, args.reps),
               ours_combine_ms=median_ms(ours_combine, args.reps),
               torch_bf16_dispatch_ms=median_ms(torch_dispatch, args.reps),
               torch_bf16_combine_ms=median_ms(torch_combine, args.reps),
               dispatch_bytes_ours=slots * (K + K // 32),
               dispatch_bytes_bf16=slots * 2 * K)
    # What the dispatch's data movement costs in torch's kernels, for the
    # breakdown: one gather of the packed MXFP8 rows (K + K/32 bytes) and
    # the one-rank all_to_all_single of them (a self-copy).
    packed = torch.randint(0, 255, (T, K + K // 32), dtype=torch.uint8, device="cuda")
    sorted_tokens = torch.argsort(route.view(-1), stable=True) // topk
    rows_fp8 = packed.index_select(0, sorted_tokens)
    recv_fp8 = torch.empty_like(rows_fp8)
    res["torch_gather_mx_rows_ms"] = median_ms(
        lambda: packed.index_select(0, sorted_tokens), args.reps)
    res["torch_a2a_mx_rows_ms"] = median_ms(
        lambda: dist.all_to_all_single(recv_fp8, rows_fp8), args.reps)
    res["x_dispatch"] = res["torch_bf16_dispatch_ms"] / res["ours_dispatch_ms"]
    res["x_combine"] = res["torch_bf16_combine_ms"] / res["ours_combine_ms"]
    print(json.dumps(res), flush=True)
    print("one rank, %d tokens x top-%d over %d experts, K %d, N %d:" % (
        T, topk, E, K, N))
    print("  dispatch: ours (MXFP8 rows) %.3f ms, torch bf16 %.3f ms, x %.2f" % (
        res["ours_dispatch_ms"], res["torch_bf16_dispatch_ms"], res["x_dispatch"]))
    print("  combine:  ours (bf16 rows)  %.3f ms, torch bf16 %.3f ms, x %.2f" % (
        res["ours_combine_ms"], res["torch_bf16_combine_ms"], res["x_combine"]))
    print("  torch kernels on the MXFP8 rows: gather %.3f ms, all_to_all_single %.3f ms" % (
        res["torch_gather_mx_rows_ms"], res["torch_a2a_mx_rows_ms"]))
    dist.destroy_process_group()
    check(rt.mxfp8rtCommDestroy(comm), "mxfp8rtCommDestroy")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
