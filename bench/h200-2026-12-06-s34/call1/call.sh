#!/usr/bin/env bash
# Session 34, device call 1: the GPU values of session 33's GPU-side changes
# against the CPU (math ops in kernels and host code, scf.while copies,
# softmax / pack / unpack decompositions, complex arithmetic, scf.index_switch
# results), then each under compute-sanitizer memcheck.
export PYTHONUNBUFFERED=1
O=${OUT:-/tmp/out}; mkdir -p $O
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $O/gpu.txt
SANITIZE=memcheck SKIP_GPUCHECK=1 SKIP_GEMMCHECK=1 timeout 400 bash bench/device/run-aot-checks.sh .gpucheck-s34 > $O/s34.log 2>&1
echo "s34 rc=$?"
grep -E "^check|^loops_|^math_|^tensor_|^sanitize|^passed|FAIL" $O/s34.log
