#!/usr/bin/env bash
#===- bench/device/gemm-ncu.sh - one GEMM of ours beside its torch peer, ncu -===#
#
# Usage: bench/device/gemm-ncu.sh DIR CASE...
#
# Runs on the GPU machine. DIR holds bench/gemm_bench.py's timing kernels
# (`gemm_bench.py prepare --timing-only`). For each timing CASE, one
# gemm_bench.py timing run (--reps 1) under Nsight Compute, profiling our
# GEMM kernel (the v8 bf16 wgmma GEMM, pre-passes excluded) and the peer's
# (CUTLASS behind torch._grouped_mm, nvjet/xmma behind cuBLAS) with the
# same sections: speed of light, compute and memory workload, warp states
# and scheduler statistics, occupancy, launch. Both run under ncu's locked
# base clock, so the comparison is of the kernels, not of absolute times
# (gemm_bench.py's own timing gives those). Reports go to $OUT (or
# /tmp/gemm-ncu): CASE.ncu-rep and CASE.csv (raw page: every collected metric, the
# warp stall reasons among them).
#
#===------------------------------------------------------------------------===#
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
dir="$(cd "${1:?usage: gemm-ncu.sh DIR CASE...}" && pwd)" || exit 2
shift
out="${OUT:-/tmp/gemm-ncu}"
mkdir -p "$out"
ncu="$(command -v ncu || echo /usr/local/cuda/bin/ncu)"
sections=(--section SpeedOfLight --section ComputeWorkloadAnalysis
  --section MemoryWorkloadAnalysis --section WarpStateStats
  --section SchedulerStats --section Occupancy --section LaunchStats)
for case in "$@"; do
  echo "== $case"
  # Ours: six calls in the warm-up + timed call, six more timed alone; the
  # peer's six come after them.
  "$ncu" "${sections[@]}" --kernel-name-base demangled -k 'regex:scaled_g?mm_.*_bf16_bf16_bf16|cutlass|nvjet|xmma|sm90_' \
    -c 18 -f -o "$out/$case" \
    python3 "$root/bench/gemm_bench.py" run "$dir" --runtime-lib /tmp --no-cases \
      --only "$case" --reps 1 > "$out/$case.run.log" 2>&1
  echo "ncu exit $?"
  tail -n 3 "$out/$case.run.log"
  "$ncu" -i "$out/$case.ncu-rep" --csv --page raw --print-units base \
    > "$out/$case.csv" 2>&1
done
