L=/tmp/c5; mkdir -p $L/steps
bash bench/device/run-aot-checks.sh aot-artifacts > $L/aot-checks.log 2>&1; echo "aot-checks rc=$?"
TIME_VARIANTS="c2" OUT=$L/steps bash bench/device/step-bench.sh step-artifacts > /dev/null 2>&1; echo "step-bench rc=$?"
tar czf $OUT/call5.tgz -C $L .
grep -E "cta2|_c2|probe|\.mx |passed [0-9]+, failed" $L/aot-checks.log | tail -12
grep -E "computes the same bits|differ" $L/steps/step-bench.log
grep -A26 "== steps" $L/steps/step-bench.log
python3 - <<'PY'
import json, glob
for f in sorted(glob.glob("/tmp/c5/steps/*-c2.profile.json")):
    base = f.replace("-c2.profile.json", ".profile.json")
    a = json.load(open(base)); b = json.load(open(f))
    kb = {k["name"].replace("_c2", ""): k for k in b["kernels"]}
    print("==", f.split("/")[-1])
    for k in a["kernels"]:
        if k["family"] == "gemm":
            o = kb.get(k["name"].replace("_c2", ""))
            print("%-80s %8.3f %8.3f" % (k["name"][:80], k["total_ms"], o["total_ms"] if o else -1))
PY
