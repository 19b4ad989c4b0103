#!/usr/bin/env bash
# Session 32, device call 4: host element writes (tensor.insert,
# tensor.from_elements on the host: one-element fill kernels and copies) and
# the host reads again, against the CPU, then under compute-sanitizer memcheck.
export PYTHONUNBUFFERED=1
O=${OUT:-/tmp/out}; mkdir -p $O
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $O/gpu.txt
SANITIZE=memcheck SKIP_GPUCHECK=1 SKIP_GEMMCHECK=1 timeout 300 bash bench/device/run-aot-checks.sh .gpucheck-hw32 > $O/hw32.log 2>&1
echo "hw32 rc=$?"
grep -E "^check|^loops_|^sanitize|^passed|FAIL" $O/hw32.log
