#!/usr/bin/env bash
#===- bench/device/cast-ncu.sh - ncu sections of gpu-check timing kernels --===#
#
# Usage: bench/device/cast-ncu.sh GPUCHECK_DIR NAME [NAME ...]
#
# Runs on the GPU machine. For each timing kernel NAME of a folder written
# here by `scripts/gpu-check.py prepare` (e.g. quantize_dual_bf16_rceil_16384x8192,
# or NAME.VARIANT of a --variant build; `copy`: CuPy's 1 GiB copy that
# gpu-check's ratios divide by), profiles its first launch under
# Nsight Compute with the sections that say what bounds a memory-bound
# kernel: speed of light, memory workload, warp state statistics (stall
# reasons), scheduler statistics, instruction statistics, launch statistics
# and occupancy; at the GPU's own clock, caches not flushed (the inputs,
# hundreds of MB, do not fit in L2). NCU_SECTIONS="NAME ...": more sections.
# Where gpu-check's timing says how fast a cast is against a copy, this
# says why.
#
#===------------------------------------------------------------------------===#
set -uo pipefail
export LC_ALL=C
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
usage="usage: cast-ncu.sh GPUCHECK_DIR NAME [NAME ...]"
dir="${1:?$usage}"
shift
[ $# -gt 0 ] || { echo "$usage" >&2; exit 2; }
ncu="$(command -v ncu || echo /usr/local/cuda/bin/ncu)"
rc=0
for name in "$@"; do
  echo "== $name: ncu of its first launch"
  regex='^(quantize|dequantize|pad|float8)'
  only="$name"
  if [ "$name" = copy ]; then
    regex=copy
    only=none
  fi
  "$ncu" --clock-control none --cache-control none --launch-count 1 \
    --kernel-name "regex:$regex" \
    --section SpeedOfLight --section MemoryWorkloadAnalysis \
    --section WarpStateStats --section SchedulerStats \
    --section InstructionStats --section LaunchStats --section Occupancy \
    $(for x in ${NCU_SECTIONS:-}; do printf -- "--section %s " "$x"; done) \
    python3 "$root/scripts/gpu-check.py" run "$dir" --no-cases --only "$only" \
    --reps 1 2>&1 | grep -v "^==PROF==" | sed -e "s/^ *//" | grep -v "^-*$"
  [ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
done
exit "$rc"
