#!/usr/bin/env bash
# Session 31, device call 3: the full AOT set of the split-reductions build
# (61 checks + the 8 reduce_* ones: the CPU and GPU now split long
# reductions with one schedule), then torch on the reductions' shapes.
export PYTHONUNBUFFERED=1
O=${OUT:-/tmp/out}; mkdir -p $O
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $O/gpu.txt
SKIP_GPUCHECK=1 SKIP_GEMMCHECK=1 timeout 420 bash bench/device/run-aot-checks.sh .gpucheck-aot31 > $O/aot31.log 2>&1
echo "aot31 rc=$?"
grep -E "^check|^reduce_|^loops_|^gemm_generic|^passed|FAIL" $O/aot31.log
timeout 120 python3 bench/device/reduction_peer.py --reps 20 > $O/peer.log 2>&1
echo "peer rc=$?"; tail -6 $O/peer.log
