#!/usr/bin/env bash
#===- bench/device/quantize-bench.sh - quantization checks and benchmark ---===#
#
# Usage: bench/device/quantize-bench.sh [GPUCHECK_DIR] [LOG_DIR]
#
# Runs on the GPU machine (numpy, CuPy, torch, triton; no MLIR), from the
# repository root, on a folder written here by
#   python3 scripts/gpu-check.py prepare --build BUILD --out .gpucheck
# (default .gpucheck). One invocation, one process after the other on the
# same GPU:
#   1. scripts/gpu-check.py run: every case bit-exact against the CPU path,
#      then every timing kernel alone (CUDA events, median of 50) against a
#      1 GiB device-to-device copy; timings also as JSON lines;
#   2. bench/quantize_peer.py for 16384 x 8192 bf16: the copy of that tensor
#      and torch.compile'd to_mx (1x32, 32x1, both; FLOOR and RCEIL), then
#      our kernels of step 1 beside it.
# Logs go to LOG_DIR (default $OUT, else /tmp/quantize-bench): gpu.txt,
# gpucheck.log, ours.jsonl, peer.log. Exit status: gpu-check's (1 when a
# case is not bit-exact), else the peer's.
#
#===------------------------------------------------------------------------===#
set -uo pipefail
export LC_ALL=C PYTHONUNBUFFERED=1

dir="${1:-.gpucheck}"
logs="${2:-${OUT:-/tmp/quantize-bench}}"
mkdir -p "$logs"

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw \
  --format=csv 2>&1 | tee "$logs/gpu.txt"
python3 -c 'import torch, cupy; print("torch", torch.__version__, "cupy", cupy.__version__)' \
  2>&1 | tee -a "$logs/gpu.txt"

python3 scripts/gpu-check.py run "$dir" --reps 50 --json "$logs/ours.jsonl" \
  2>&1 | tee "$logs/gpucheck.log"
status=$?

python3 bench/quantize_peer.py --rows 16384 --cols 8192 --ours "$logs/ours.jsonl" \
  2>&1 | tee "$logs/peer.log"
peer=$?

[ "$status" -ne 0 ] && exit "$status"
exit "$peer"
