# Session 23 call 1: sibling tensorwise casts (Float8CastKernels.cpp): the
# Llama f8tw step's dH1/dH3 casts share one amax kernel and one K-major
# cast kernel. step-bench of the Llama step only (DeepSeek's and the other
# recipes' PTX are byte-identical to session 22's): f8tw (siblings, cast
# kernel form A: producer evaluated as each chunk loads, 4 chunks in
# flight, 2 CTAs/SM: 368 B spills) against variants nosib
# (fuse-sibling-casts=false: the session-22 kernels), B (1 CTA/SM, 204
# registers, no spills), C (operands loaded raw, 2 chunks in flight,
# producer evaluated at the cast), D (2 chunks in flight, no spills); all
# bit-compared with f8tw and timed; torchao peers from .whl.
L=/tmp/c1; mkdir -p $L/steps
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv > $L/gpu.txt
TIME_VARIANTS="nosib B C D" OUT=$L/steps bash bench/device/step-bench.sh step-artifacts > /dev/null 2>&1; echo "step-bench rc=$?"
tar czf $OUT/call1.tgz -C $L .
grep -E "computes the same bits|differ" $L/steps/step-bench.log
grep -A30 "== steps" $L/steps/step-bench.log | grep -E "ours|torch|what"
python3 - <<'PY'
import json, glob
base = "/tmp/c1/steps/llama3_8b_mlp_16384.f8tw.profile.json"
b = json.load(open(base))
print("== f8tw %.3f ms (median)" % b["median_ms"])
for k in b["kernels"]:
    if "kmajor" in k["name"] or "amax" in k["name"]:
        print("  %-80s %7.3f" % (k["name"][:80], k["total_ms"]))
for f in sorted(glob.glob("/tmp/c1/steps/llama3_8b_mlp_16384.f8tw-*.profile.json")):
    a = json.load(open(f))
    print("== %s %.3f ms (median)" % (f.split(".")[-3], a["median_ms"]))
    for k in a["kernels"]:
        if ("kmajor" in k["name"] and "e5m2_b1_k16384_r14336" in k["name"]) or "amax_tensor_bf16_234881024" in k["name"]:
            print("  %-80s %7.3f" % (k["name"][:80], k["total_ms"]))
    fa = {x["family"]: round(x["total_ms"], 3) for x in a["families"] if x["total_ms"]}
    print("  families", fa)
fb = {x["family"]: round(x["total_ms"], 3) for x in b["families"] if x["total_ms"]}
print("== f8tw families", fb)
PY
