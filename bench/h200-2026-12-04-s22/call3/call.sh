# Session 22 call 3: (1) the Float8 GEMM timing cases, now with the
# gradient GEMMs' promoted kernels on K-major operands (`_kmajor`: no
# transpose pre-pass, as torch._scaled_mm takes them), default (two sets,
# 128 x 128) against one set (u1), 128 x 160 and 128 x 192, alternating,
# twice, each against torch._scaled_mm in the same run; (2) step-bench of
# both steps (mx, f8row, f8tw) with float8-promote-tile-n=192 as a variant
# (bit-compared, timed), torchao peers from .whl.
L=/tmp/c3; mkdir -p $L/steps
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv > $L/gpu.txt
ONLY=""
for n in w1 dgrad_w1 dgrad_w2 wgrad_w1 wgrad_w2 dgrad_w1_kmajor dgrad_w2_kmajor wgrad_w1_kmajor; do
  ONLY="$ONLY --only f8_gemm_timing_llama_$n"
done
for r in 1 2; do
  for t in base u1 n160 n192; do
    echo "## .gpucheck-f8$t run $r"
    python3 scripts/gpu-check.py run --no-cases --reps 30 $ONLY .gpucheck-f8$t 2>&1 | grep -E "^f8_gemm|^torch|rror"
  done
done > $L/gemm-timing.txt
grep -E "^##|kmajor|ours / torch" $L/gemm-timing.txt | sed -E 's/ +/ /g' | cut -c1-120
TIME_VARIANTS="n192" OUT=$L/steps bash bench/device/step-bench.sh step-artifacts > /dev/null 2>&1; echo "step-bench rc=$?"
tar czf $OUT/call3.tgz -C $L .
grep -E "computes the same bits|differ" $L/steps/step-bench.log
grep -A30 "== steps" $L/steps/step-bench.log
python3 - <<'PY'
import json, glob
for f in sorted(glob.glob("/tmp/c3/steps/*f8*-n192.profile.json")):
    base = f.replace("-n192.profile.json", ".profile.json")
    a = json.load(open(base)); b = json.load(open(f))
    print("==", f.split("/")[-1], a["median_ms"], b["median_ms"])
    kb = {}
    for k in b["kernels"]:
        kb.setdefault(k["name"].replace("_n192", "").replace("s5_", "s6_").replace("s4_", "s6_"), k)
    for k in a["kernels"]:
        if k["family"] == "gemm":
            o = kb.get(k["name"].replace("s5_", "s6_").replace("s4_", "s6_"))
            print("%-80s %8.3f %8.3f" % (k["name"][:80], k["total_ms"], o["total_ms"] if o else -1))
PY
