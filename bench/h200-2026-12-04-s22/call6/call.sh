# Session 22 call 6: the final build's AOT checks (bench/device/
# run-aot-checks.sh: every kernel check against the CPU, both main-job steps
# with their per-GEMM probes), and the kernel split of torchao's Float8
# Llama steps under torch.compile (torch_step_peer.py --kernel-profile:
# GEMM kernels against the rest), next to torch bf16 eager.
L=/tmp/c6; mkdir -p $L
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv > $L/gpu.txt
bash bench/device/run-aot-checks.sh aot-artifacts > $L/aot-checks.log 2>&1; echo "aot-checks rc=$?"
grep -E "probe|passed [0-9]+, failed" $L/aot-checks.log | grep -v SKIP | tail -6
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/torchao-*.whl
PYTHONPATH=/tmp/site python3 bench/device/torch_step_peer.py --step llama --kernel-profile \
  --modes eager,torchao_float8_tensorwise_compile,torchao_float8_rowwise_compile > $L/torchao-kernels.jsonl 2> $L/torchao-kernels.err
echo "peer rc=$?"
python3 - <<'PY'
import json
for line in open("/tmp/c6/torchao-kernels.jsonl"):
    d = json.loads(line)
    k = d.get("kernels", {})
    print(d["mode"], d.get("median_ms"), "gemm", k.get("gemm_ms"), "other", k.get("other_ms"), d.get("error", ""))
    for name, ms in k.get("top", [])[:8]:
        print("   %-90s %7.3f" % (name, ms))
PY
tar czf $OUT/call6.tgz -C $L .
