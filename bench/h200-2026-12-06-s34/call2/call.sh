#!/usr/bin/env bash
# Session 34, device call 2 (a shorter call1 for a small remaining budget):
# the GPU values of the math, while and tensor_* checks against the CPU,
# without the memcheck pass.
export PYTHONUNBUFFERED=1
O=${OUT:-/tmp/out}; mkdir -p $O
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $O/gpu.txt
SKIP_GPUCHECK=1 SKIP_GEMMCHECK=1 timeout 330 bash bench/device/run-aot-checks.sh .gpucheck-s34 > $O/s34.log 2>&1
echo "s34 rc=$?"
grep -E "^check|^loops_|^math_|^tensor_|^passed|FAIL" $O/s34.log
