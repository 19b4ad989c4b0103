# Session 23 call 4: the other kernels that evaluate a fused producer load
# its operands raw before the body (as the K-major casts since call 2):
# the tensorwise amax passes, all four chunks' operands first (A4) or two
# at a time (A2), and the rowwise cast (R); Llama step only, f8tw and
# f8row, variants bit-compared and timed; torchao peers from .whl.
L=/tmp/c4; mkdir -p $L/steps
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv > $L/gpu.txt
TIME_VARIANTS="A4 A2 R" OUT=$L/steps bash bench/device/step-bench.sh step-artifacts > /dev/null 2>&1; echo "step-bench rc=$?"
tar czf $OUT/call4.tgz -C $L .
grep -E "computes the same bits|differ" $L/steps/step-bench.log
grep -A40 "== steps" $L/steps/step-bench.log | grep -E "ours f8|torchao float8"
python3 - <<'PY'
import json, glob
for f in sorted(glob.glob("/tmp/c4/steps/*.f8*-*.profile.json")):
    base = f.rsplit("-", 1)[0] + ".profile.json"
    b = json.load(open(base)); e = json.load(open(f))
    print("== %s: base %.3f variant %.3f ms (median)" % (f.split("/")[-1], b["median_ms"], e["median_ms"]))
    ke = {k["name"]: k for k in e["kernels"]}
    for k in b["kernels"]:
        if "_ew" in k["name"] and not k["name"].startswith("scaled"):
            print("  %-84s %7.3f %7.3f" % (k["name"][:84], k["total_ms"], ke.get(k["name"], {}).get("total_ms", -1)))
PY
