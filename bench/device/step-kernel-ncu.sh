#!/usr/bin/env bash
#===- bench/device/step-kernel-ncu.sh - ncu sections of a step's kernels --===#
#
# Usage: bench/device/step-kernel-ncu.sh STEPS_DIR NAME.VARIANT KERNEL_REGEX
#            [COUNT]
#
# Runs on the GPU machine. Profiles the first COUNT (default 2) launches
# whose kernel name matches KERNEL_REGEX in one call of the converted step
# NAME.VARIANT of STEPS_DIR (bench/make-step-artifacts.sh, e.g.
# llama3_8b_mlp_16384.mx) under Nsight Compute with the sections that say
# what bounds a kernel: speed of light (compute and memory throughput as a
# share of peak), memory workload, warp state statistics (stall reasons),
# launch statistics and occupancy; at the GPU's own clock and with warm
# caches, as the kernels run in the step. Where step-ncu.sh says how long
# each kernel takes, this says why. NCU_SECTIONS="NAME ...": more sections
# (e.g. MemoryWorkloadAnalysis_Tables SourceCounters).
#
#===------------------------------------------------------------------------===#
set -uo pipefail
export LC_ALL=C
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
usage="usage: step-kernel-ncu.sh STEPS_DIR NAME.VARIANT KERNEL_REGEX [COUNT]"
dir="$(cd "${1:?$usage}" && pwd)" || exit 2
step="${2:?$usage}"
regex="${3:?$usage}"
count="${4:-2}"
name="${step%.*}"
build="${LAUNCH_BUILD_DIR:-/tmp/mxfp8-launch-build}"
work="$(mktemp -d)"
# shellcheck source=launch-build.sh
source "$root/bench/device/launch-build.sh"
[ -x "$build/bin/mxfp8-launch" ] || build_launch "$root" "$build" "$work/launch" || exit 2
ncu="$(command -v ncu || echo /usr/local/cuda/bin/ncu)"
manifest="$dir/$step.cuda.manifest"
entry="$(awk '$1 == "func" { print $2; exit }' "$manifest")"
so="$work/$step.so"
link_object "$dir/$step.cuda.o" "$so" "$build/lib" || exit 2
echo "== $step: ncu of the first $count launches matching /$regex/"
"$ncu" --clock-control none --cache-control none \
  --kernel-name "regex:$regex" --launch-count "$count" \
  --section SpeedOfLight --section MemoryWorkloadAnalysis \
  --section WarpStateStats --section LaunchStats --section Occupancy \
  --section SchedulerStats \
  $(for x in ${NCU_SECTIONS:-}; do printf -- "--section %s " "$x"; done) \
  "$build/bin/mxfp8-launch" "$so" "$manifest" --entry="$entry" \
  --repeat=1 --warmup=0 2>&1 | grep -v "^==PROF==" |
  sed -e "s/^ *//" | grep -v "^-*$"
rc=${PIPESTATUS[0]}
rm -rf "$work"
exit "$rc"
