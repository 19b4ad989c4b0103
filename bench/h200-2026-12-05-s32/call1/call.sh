#!/usr/bin/env bash
# Session 32, device call 1: reductions as reduction kernels (default) against
# the same split on the loop path (_loop) and the serial loop path (_serial),
# exact against the CPU; torch on the same shapes; the AOT set twice around
# the peer (timing spread).
export PYTHONUNBUFFERED=1
O=${OUT:-/tmp/out}; mkdir -p $O
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $O/gpu.txt
SKIP_GPUCHECK=1 SKIP_GEMMCHECK=1 timeout 300 bash bench/device/run-aot-checks.sh .gpucheck-red32 > $O/red32-a.log 2>&1
echo "red32-a rc=$?"
grep -E "^check|^reduce_|^loops_|^gemm_generic|^passed|FAIL" $O/red32-a.log
timeout 120 python3 bench/device/reduction_peer.py --reps 20 > $O/peer.log 2>&1
echo "peer rc=$?"; tail -6 $O/peer.log
SKIP_GPUCHECK=1 SKIP_GEMMCHECK=1 timeout 300 bash bench/device/run-aot-checks.sh .gpucheck-red32 > $O/red32-b.log 2>&1
echo "red32-b rc=$?"
grep -E "^reduce_|^gemm_generic|^passed|FAIL" $O/red32-b.log
