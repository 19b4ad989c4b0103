#!/usr/bin/env bash
# Session 31, device call 1: (a) the Float8 GEMM cases with MN-major rows
# not a multiple of 16 (new) and the other dgrad / wgrad / grouped cases,
# then under compute-sanitizer memcheck; (b) the full AOT check set of
# 796d8c9 (61 checks).
export PYTHONUNBUFFERED=1
O=${OUT:-/tmp/out}; mkdir -p $O
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $O/gpu.txt
timeout 120 python3 scripts/gpu-check.py run .gpucheck-f8narrow --no-timing > $O/f8narrow.log 2>&1
echo "f8narrow rc=$?"; grep -v "^$" $O/f8narrow.log | tail -25
timeout 200 compute-sanitizer --tool memcheck --print-limit 20 python3 scripts/gpu-check.py run .gpucheck-f8narrow --no-timing > $O/f8narrow-memcheck.log 2>&1
echo "memcheck rc=$?"; tail -6 $O/f8narrow-memcheck.log
SKIP_GPUCHECK=1 SKIP_GEMMCHECK=1 timeout 400 bash bench/device/run-aot-checks.sh .gpucheck-aotall > $O/aotall.log 2>&1
echo "aotall rc=$?"
tail -75 $O/aotall.log
