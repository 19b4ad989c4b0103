#!/usr/bin/env python3
# ===- bench/device/exchange_bench.py - the MXFP8 exchange on the GPUs -----===#
#
# Usage (GPU machine, torch; the runtime built there, e.g. by
# bench/device/launch-build.sh):
#   python3 bench/device/exchange_bench.py --runtime-lib DIR [--ranks R]
#       [--tokens 16384] [--k 7168] [--n 7168] [--topk 8] [--experts 256]
#
# Times the runtime's MXFP8 token dispatch and combine (mxfp8rtMoeDispatchMx,
# mxfp8rtMoeCombine over an NCCL communicator of R ranks, one process and
# GPU per rank, device buffers, torch's current stream) against the bf16
# exchange a torch user writes for expert parallelism (torchtitan's shape
# of it: sort the slots by expert, exchange the per-expert counts,
# index_select the bf16 rows, all_to_all_single with host splits, regroup
# the received rows by local expert; back: the inverse permutations and
# all_to_all_single), same tokens, same routing, torch.distributed NCCL in
# the same processes. Each rank has its own tokens (`--tokens` per rank) and
# routing; the experts are split evenly over the ranks.
#
# With one rank every all-to-all is a copy to itself: that measures what
# surrounds the wire (host planning, routing read back, the pack and group
# kernels, the bytes copied), not the wire, where MXFP8 rows are 0.52 of
# the bf16 bytes. Two ranks need the nvidia-h200-x2 kind.
#
# Checks before timing, on every rank: the dispatched rows (fp8 data and
# scales), offs and padding against rows rebuilt from every rank's inputs
# (regenerated from their seeds), and the combined rows against the expert
# outputs of the ranks the slots went to. Prints one JSON line per rank's
# check and rank 0's timings (medians, every rank waiting at a barrier
# before each timed call), and a summary.
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


class NcclId(ctypes.Structure):
    _fields_ = [("bytes", ctypes.c_char * 128)]


def inputs(rank, T, K, E, topk, device):
    """Rank `rank`'s fp8 tokens, scales, bf16 tokens and routing (the same
    values on every GPU: seeded per rank)."""
    g = torch.Generator(device=device).manual_seed(1000 + rank)
    data = torch.randint(0, 126, (T, K), dtype=torch.uint8, device=device, generator=g)
    scales = torch.randint(110, 140, (T, K // 32), dtype=torch.uint8, device=device,
                           generator=g)
    x = torch.randn(T, K, device=device, generator=g).to(torch.bfloat16)
    # top-k distinct experts per token, skewed like a router's.
    logits = torch.randn(T, E, device=device, generator=g) + torch.linspace(
        0, 2, E, device=device)
    route = torch.topk(logits, topk, dim=1).indices.to(torch.int32).contiguous()
    return data, scales, x, route


def expert_outputs(rank, cap, N, device):
    g = torch.Generator(device=device).manual_seed(2000 + rank)
    return torch.randn(cap, N, device=device, generator=g).to(torch.bfloat16)


def layout(routes, El, align, device):
    """For every (source s, slot i): the destination rank and its row there
    (ExpertParallel.h's layout), and each rank's group ends."""
    R = len(routes)
    E = El * R
    flat = [r.view(-1).long() for r in routes]
    counts = torch.stack([torch.bincount(f, minlength=E) for f in flat])  # [s, e]
    padded = (counts.sum(0) + align - 1) // align * align                # [e]
    per_rank = padded.view(R, El)
    group_start = (torch.cumsum(per_rank, 1) - per_rank).view(-1)        # [e]
    before = torch.cumsum(counts, 0) - counts                            # [s, e]
    rows = []
    for s, f in enumerate(flat):
        order = torch.argsort(f, stable=True)
        sorted_e = f[order]
        first = torch.cumsum(torch.bincount(f, minlength=E), 0) - torch.bincount(f, minlength=E)
        rank_in_e = torch.arange(len(f), device=device) - first[sorted_e]
        row_sorted = group_start[sorted_e] + before[s, sorted_e] + rank_in_e
        row = torch.empty_like(row_sorted)
        row[order] = row_sorted
        rows.append(row)
    ends = torch.cumsum(per_rank, 1)
    return rows, ends


def run(rank, args):
    R = args.ranks
    T, K, N, topk, E, align = (args.tokens, args.k, args.n, args.topk,
                               args.experts, args.alignment)
    El = E // R
    slots = T * topk
    cap = R * slots + El * align
    device = "cuda:%d" % rank
    torch.cuda.set_device(rank)
    torch.zeros(1, device=device)  # the primary context, shared with the runtime
    dist.init_process_group("nccl", init_method="tcp://127.0.0.1:%d" % args.port,
                            rank=rank, world_size=R)

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

    check(rt.mxfp8rtInitialize(), "mxfp8rtInitialize")
    check(rt.mxfp8rtSetDevice(rank), "mxfp8rtSetDevice")
    nid = NcclId()
    idbuf = torch.zeros(128, dtype=torch.uint8, device=device)
    if rank == 0:
        check(rt.mxfp8rtNcclGetUniqueId(ctypes.byref(nid)), "mxfp8rtNcclGetUniqueId")
        raw = ctypes.string_at(ctypes.addressof(nid), 128)  # NUL bytes included
        idbuf.copy_(torch.frombuffer(bytearray(raw), dtype=torch.uint8))
    dist.broadcast(idbuf, 0)
    ctypes.memmove(ctypes.addressof(nid), bytes(idbuf.cpu().tolist()), 128)
    comm = vp()
    check(rt.mxfp8rtCommInitNccl(R, ctypes.byref(nid), rank, ctypes.byref(comm)),
          "mxfp8rtCommInitNccl")
    # A stream of its own for everything (the runtime's calls, torch's
    # kernels and NCCL calls): on the null stream the runtime's scratch
    # allocations and frees would synchronize.
    torch.cuda.set_stream(torch.cuda.Stream(device=device))
    stream = torch.cuda.current_stream().cuda_stream

    data, scales, x, route = inputs(rank, T, K, E, topk, device)
    expert_out = expert_outputs(rank, cap, N, device)
    rdata = torch.empty(cap, K, dtype=torch.uint8, device=device)
    rscales = torch.empty(cap, K // 32, dtype=torch.uint8, device=device)
    roffs = torch.empty(El, dtype=torch.int32, device=device)
    counts = torch.empty(R * R * El, dtype=torch.int32, device=device)
    out = torch.empty(slots, N, dtype=torch.bfloat16, device=device)

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

    # torch's bf16 exchange.
    state = {}

    def torch_dispatch():
        flat = route.view(-1)
        order = torch.argsort(flat, stable=True)
        per_expert = torch.bincount(flat, minlength=E).to(torch.int64)
        recv_per_expert = torch.empty_like(per_expert)
        dist.all_to_all_single(recv_per_expert, per_expert)      # [s, e_local]
        in_splits = per_expert.view(R, El).sum(1).tolist()
        c = recv_per_expert.view(R, El)
        out_splits = c.sum(1).tolist()
        send = x.index_select(0, order // topk)
        recv = x.new_empty(sum(out_splits), K)
        dist.all_to_all_single(recv, send, out_splits, in_splits)
        # Regroup by local expert (then source).
        src_start = (torch.cumsum(c.view(-1), 0) - c.view(-1)).view(R, El)
        seg_len = c.t().reshape(-1)
        seg_src = src_start.t().reshape(-1)
        seg_out = torch.cumsum(seg_len, 0) - seg_len
        seg_id = torch.repeat_interleave(torch.arange(R * El, device=device), seg_len,
                                         output_size=sum(out_splits))
        pos = torch.arange(sum(out_splits), device=device) - seg_out[seg_id] + seg_src[seg_id]
        state.update(order=order, pos=pos, grouped=recv.index_select(0, pos),
                     in_splits=in_splits, out_splits=out_splits)

    def torch_combine():
        pos = state["pos"]
        eo = expert_out[:pos.numel()]
        arrival = torch.empty_like(eo)
        arrival.index_copy_(0, pos, eo)
        back = eo.new_empty(slots, N)
        dist.all_to_all_single(back, arrival, state["in_splits"], state["out_splits"])
        res = torch.empty_like(back)
        res.index_copy_(0, state["order"], back)
        state["out"] = res

    # Checks against rows rebuilt from every rank's inputs.
    ours_dispatch()
    ours_combine()
    torch_dispatch()
    torch_combine()
    torch.cuda.synchronize()
    all_inputs = [inputs(s, T, K, E, topk, device) for s in range(R)]
    rows, ends = layout([a[3] for a in all_inputs], El, align, device)
    want_data = torch.zeros(cap, K, dtype=torch.uint8, device=device)
    want_scales = torch.zeros(cap, K // 32, dtype=torch.uint8, device=device)
    want_x = torch.zeros(cap, K, dtype=torch.bfloat16, device=device)
    used = torch.zeros(cap, dtype=torch.bool, device=device)
    for s, (d, sc, xs, rt_s) in enumerate(all_inputs):
        mine = (rt_s.view(-1).long() // El) == rank
        tok = torch.arange(T * topk, device=device)[mine] // topk
        want_data[rows[s][mine]] = d[tok]
        want_scales[rows[s][mine]] = sc[tok]
        want_x[rows[s][mine]] = xs[tok]
        used[rows[s][mine]] = True
    dest = route.view(-1).long() // El
    want_out = torch.empty(slots, N, dtype=torch.bfloat16, device=device)
    want_torch_out = torch.empty(slots, N, dtype=torch.bfloat16, device=device)
    for p in range(R):
        sel = dest == p
        eo_p = expert_outputs(p, cap, N, device)
        want_out[sel] = eo_p[rows[rank][sel]]
        # The peer's layout on rank p: the same order without padding rows.
        used_p = torch.zeros(cap, dtype=torch.bool, device=device)
        for s_, (_, _, _, rt_s) in enumerate(all_inputs):
            used_p[rows[s_][(rt_s.view(-1).long() // El) == p]] = True
        unpadded = torch.cumsum(used_p.long(), 0) - 1
        want_torch_out[sel] = eo_p[unpadded[rows[rank][sel]]]
    ok = {
        "dispatched data": torch.equal(rdata, want_data),
        "dispatched scales": torch.equal(rscales, want_scales),
        "offs": torch.equal(roffs.long(), ends[rank]),
        "combined rows": torch.equal(out, want_out),
        # The peer groups the same bf16 rows in the same order (no padding)
        # and returns each slot's row.
        "torch peer's grouped rows": torch.equal(state["grouped"], want_x[used]),
        "torch peer's combined rows": torch.equal(state["out"], want_torch_out),
    }
    print(json.dumps(dict(rank=rank, check={k: bool(v) for k, v in ok.items()})),
          flush=True)

    def median_ms(fn):
        for _ in range(3):
            fn()
        times = []
        for _ in range(args.reps):
            torch.cuda.synchronize()
            dist.barrier()
            t0 = time.perf_counter()
            fn()
            torch.cuda.synchronize()
            times.append((time.perf_counter() - t0) * 1e3)
        return statistics.median(times)

    res = dict(ranks=R, tokens_per_rank=T, k=K, n=N, topk=topk, experts=E,
               alignment=align,
               ours_dispatch_ms=median_ms(ours_dispatch),
               ours_combine_ms=median_ms(ours_combine),
               torch_bf16_dispatch_ms=median_ms(torch_dispatch),
               torch_bf16_combine_ms=median_ms(torch_combine),
               dispatch_bytes_ours=slots * (K + K // 32),
               dispatch_bytes_bf16=slots * 2 * K)
    # What the dispatch's data movement costs in torch's kernels, for the
    # breakdown: one gather of the packed MXFP8 rows (K + K/32 bytes) and
    # an all_to_all_single of them (even splits).
    packed = torch.randint(0, 255, (T, K + K // 32), dtype=torch.uint8, device=device)
    sorted_tokens = torch.argsort(route.view(-1), stable=True) // topk
    rows_fp8 = packed.index_select(0, sorted_tokens)
    recv_fp8 = torch.empty_like(rows_fp8)
    res["torch_gather_mx_rows_ms"] = median_ms(
        lambda: packed.index_select(0, sorted_tokens))
    if (T * topk) % R == 0:  # even splits
        res["torch_a2a_mx_rows_ms"] = median_ms(
            lambda: dist.all_to_all_single(recv_fp8, rows_fp8))
    res["x_dispatch"] = res["torch_bf16_dispatch_ms"] / res["ours_dispatch_ms"]
    res["x_combine"] = res["torch_bf16_combine_ms"] / res["ours_combine_ms"]
    all_ok = torch.tensor([int(all(ok.values()))], device=device)
    dist.all_reduce(all_ok, op=dist.ReduceOp.MIN)
    if rank == 0:
        res["checks_ok_on_every_rank"] = bool(all_ok.item())
        print(json.dumps(res), flush=True)
        print("%d rank(s), %d tokens per rank x top-%d over %d experts, K %d, N %d:" % (
            R, T, topk, E, K, N))
        print("  dispatch: ours (MXFP8 rows) %.3f ms, torch bf16 %.3f ms, x %.2f" % (
            res["ours_dispatch_ms"], res["torch_bf16_dispatch_ms"], res["x_dispatch"]))
        print("  combine:  ours (bf16 rows)  %.3f ms, torch bf16 %.3f ms, x %.2f" % (
            res["ours_combine_ms"], res["torch_bf16_combine_ms"], res["x_combine"]))
        print("  torch kernels on the MXFP8 rows: gather %.3f ms, all_to_all_single %s ms" % (
            res["torch_gather_mx_rows_ms"], "%.3f" % res.get("torch_a2a_mx_rows_ms", float("nan"))))
        print("  checks: %s" % ("ok on every rank" if all_ok.item() else "FAILED"))
    dist.barrier()
    check(rt.mxfp8rtCommDestroy(comm), "mxfp8rtCommDestroy")
    dist.destroy_process_group()
    if not all_ok.item():
        raise SystemExit(1)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--runtime-lib", required=True)
    p.add_argument("--ranks", type=int, default=1)
    p.add_argument("--tokens", type=int, default=16384)
    p.add_argument("--k", type=int, default=7168)
    p.add_argument("--n", type=int, default=7168)
    p.add_argument("--topk", type=int, default=8)
    p.add_argument("--experts", type=int, default=256)
    p.add_argument("--alignment", type=int, default=32)
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--port", type=int, default=29517)
    args = p.parse_args()
    if args.experts % args.ranks:
        raise SystemExit("--experts must split evenly over --ranks")
    if args.ranks > torch.cuda.device_count():
        raise SystemExit("%d ranks need %d GPUs, this machine has %d" % (
            args.ranks, args.ranks, torch.cuda.device_count()))
    if args.ranks == 1:
        run(0, args)
    else:
        torch.multiprocessing.spawn(run, args=(args,), nprocs=args.ranks)


if __name__ == "__main__":
    main()
