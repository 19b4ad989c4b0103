# Session 23 call 2: the K-major Float8 casts that evaluate a fused
# elementwise producer (one output), in the sibling pair's form adopted
# after call 1 (C: operands loaded raw, two chunks in flight, producer
# evaluated at the cast) as variant E, and with two chunks in flight only
# (F), against the default (evaluated as each chunk loads, four in flight).
# Both steps, f8row and f8tw; variants bit-compared and timed; torchao
# peers from .whl.
L=/tmp/c2; mkdir -p $L/steps
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv > $L/gpu.txt
TIME_VARIANTS="E F" OUT=$L/steps bash bench/device/step-bench.sh step-artifacts > /dev/null 2>&1; echo "step-bench rc=$?"
tar czf $OUT/call2.tgz -C $L .
grep -E "computes the same bits|differ" $L/steps/step-bench.log
grep -A40 "== steps" $L/steps/step-bench.log | grep -E "ours|torch|what"
python3 - <<'PY'
import json, glob
for f in sorted(glob.glob("/tmp/c2/steps/*.f8*-E.profile.json")):
    base = f.replace("-E.profile.json", ".profile.json")
    fF = f.replace("-E.profile.json", "-F.profile.json")
    b = json.load(open(base)); e = json.load(open(f)); g = json.load(open(fF))
    print("== %s: base %.3f E %.3f F %.3f ms (median)" % (base.split("/")[-1], b["median_ms"], e["median_ms"], g["median_ms"]))
    ke = {k["name"]: k for k in e["kernels"]}; kf = {k["name"]: k for k in g["kernels"]}
    for k in b["kernels"]:
        if ("kmajor" in k["name"] or "cast" in k["name"]) and "_ew" in k["name"]:
            print("  %-84s %7.3f %7.3f %7.3f" % (k["name"][:84], k["total_ms"], ke.get(k["name"], {}).get("total_ms", -1), kf.get(k["name"], {}).get("total_ms", -1)))
PY
