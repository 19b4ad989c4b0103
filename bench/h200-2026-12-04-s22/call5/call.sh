# Session 22 call 5: the fp8 transpose tiles' store side reading 4-byte
# words (16 shared loads a thread instead of 64 one-byte loads;
# Gemm/Float8Transpose.cpp), used by the transpose pre-pass and by every
# Float8 cast that writes a K-major copy. (1) gpu-check's Float8 GEMM cases
# with MN-major operands (transposed) against float64, and the GEMM timing
# cases; (2) step-bench of both steps with the previous build's objects as
# the `old` variant of each recipe (bit-compared, timed), and the kernels
# of the two profiles side by side.
L=/tmp/c5; mkdir -p $L/steps
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv > $L/gpu.txt
ONLY=""
for n in w1 dgrad_w1 dgrad_w2 wgrad_w1 wgrad_w2 dgrad_w1_kmajor dgrad_w2_kmajor wgrad_w1_kmajor; do
  ONLY="$ONLY --only f8_gemm_timing_llama_$n"
done
python3 scripts/gpu-check.py run --reps 30 $ONLY .gpucheck-f8tr > $L/gpucheck.log 2>&1; echo "gpucheck rc=$?"
grep -E "mismatch|FAIL|^f8_" $L/gpucheck.log | grep -v "^f8_gemm_timing" | head -12
grep -E "ours / torch" $L/gpucheck.log | sed -E 's/ +/ /g' | cut -c1-120
TIME_VARIANTS="old" OUT=$L/steps bash bench/device/step-bench.sh step-artifacts > /dev/null 2>&1; echo "step-bench rc=$?"
tar czf $OUT/call5.tgz -C $L .
grep -E "computes the same bits|differ" $L/steps/step-bench.log
grep -A30 "== steps" $L/steps/step-bench.log | grep -E "ours (mx|f8)|torch|what"
python3 - <<'PY'
import json, glob
for f in sorted(glob.glob("/tmp/c5/steps/*-old.profile.json")):
    new = f.replace("-old.profile.json", ".profile.json")
    a = json.load(open(f)); b = json.load(open(new))
    print("== %s: old %.3f ms, new %.3f ms (median)" % (new.split("/")[-1], a["median_ms"], b["median_ms"]))
    kb = {k["name"]: k for k in b["kernels"]}
    for k in a["kernels"]:
        if "kmajor" in k["name"] or "transpose" in k["name"] or "amax" in k["name"]:
            o = kb.get(k["name"])
            print("  %-78s %7.3f %7.3f" % (k["name"][:78], k["total_ms"], o["total_ms"] if o else -1))
    fa = {x["family"]: x["total_ms"] for x in a["families"]}; fb = {x["family"]: x["total_ms"] for x in b["families"]}
    print("  families old", {k: round(v, 3) for k, v in fa.items() if v}, "\n  families new", {k: round(v, 3) for k, v in fb.items() if v})
PY
