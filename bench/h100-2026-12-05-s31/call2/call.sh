#!/usr/bin/env bash
# Session 31, device call 2: the split reductions (bench/aot/reductions.mlir)
# against the CPU and timed against the loop path's serial form (_serial)
# and torch (eager, torch.compile) on the same GPU.
export PYTHONUNBUFFERED=1
O=${OUT:-/tmp/out}; mkdir -p $O
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $O/gpu.txt
SKIP_GPUCHECK=1 SKIP_GEMMCHECK=1 STEP_TIMEOUT=120 timeout 400 bash bench/device/run-aot-checks.sh .gpucheck-reduce > $O/reduce.log 2>&1
echo "reduce rc=$?"
grep -E "^check|^reduce_|^passed" $O/reduce.log
timeout 150 python3 bench/device/reduction_peer.py --reps 20 > $O/peer.log 2>&1
echo "peer rc=$?"; cat $O/peer.log | tail -8
