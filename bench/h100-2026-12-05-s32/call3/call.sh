#!/usr/bin/env bash
# Session 32, device call 3: host scalar reads (tensor.extract on the host:
# a device-to-host copy and a wait) in a clipping by norm and a branch on an
# element, with the loop-path and reduction checks, against the CPU; then
# the reduction kernels and the host reads under compute-sanitizer memcheck.
export PYTHONUNBUFFERED=1
O=${OUT:-/tmp/out}; mkdir -p $O
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $O/gpu.txt
SKIP_GPUCHECK=1 SKIP_GEMMCHECK=1 timeout 300 bash bench/device/run-aot-checks.sh .gpucheck-host32 > $O/host32.log 2>&1
echo "host32 rc=$?"
grep -E "^check|^reduce_|^loops_|^passed|FAIL" $O/host32.log
SANITIZE=memcheck SKIP_GPUCHECK=1 SKIP_GEMMCHECK=1 timeout 400 bash bench/device/run-aot-checks.sh .gpucheck-san32 > $O/san32.log 2>&1
echo "san32 rc=$?"
grep -E "^check|^reduce_|^loops_|^gemm_|^passed|FAIL|memcheck" $O/san32.log | tail -30
