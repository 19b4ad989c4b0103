#!/usr/bin/env bash
#===- bench/device/step-ncu.sh - kernel-by-kernel time of a step, with ncu --===#
#
# Usage: bench/device/step-ncu.sh STEPS_DIR [VARIANT...]   (default: mx)
#
# Runs on the GPU machine. For each step of STEPS_DIR (bench/make-step-
# artifacts.sh) and VARIANT (mx, hp), one call of the step (after one
# warm-up call) under Nsight Compute with a single metric,
# gpu__time_duration.sum, at the GPU's own clock (--clock-control none) and
# with warm caches (--cache-control none), so that kernels run as they do in
# the step; ncu serialises the launches, so the host gaps are not measured
# (step-bench.sh measures the wall time). Prints, per step, the kernel
# families (scripts-side map in step_kernel_families.py) and the 15 longest
# kernels. The cross-check of the runtime's own MXFP8RT_PROFILE timing.
#
#===------------------------------------------------------------------------===#
set -uo pipefail
export LC_ALL=C PYTHONUNBUFFERED=1
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
dir="$(cd "${1:?usage: step-ncu.sh STEPS_DIR [VARIANT...]}" && pwd)" || exit 2
shift
variants=("${@:-mx}")
[ $# -eq 0 ] && variants=(mx)
build="${LAUNCH_BUILD_DIR:-/tmp/mxfp8-launch-build}"
work="$(mktemp -d)"
# shellcheck source=launch-build.sh
source "$root/bench/device/launch-build.sh"
[ -x "$build/bin/mxfp8-launch" ] || build_launch "$root" "$build" "$work/launch" || exit 2
ncu="$(command -v ncu || echo /usr/local/cuda/bin/ncu)"
for manifest in "$dir"/*.mx.cuda.manifest; do
  name="$(basename "${manifest%.mx.cuda.manifest}")"
  entry="$(awk '$1 == "func" { print $2; exit }' "$manifest")"
  for v in "${variants[@]}"; do
    so="$work/$name.$v.so"
    link_object "$dir/$name.$v.cuda.o" "$so" "$build/lib" || exit 2
    csv="$work/$name.$v.csv"
    # The warm-up call's kernels are skipped by counting them first.
    "$ncu" --clock-control none --cache-control none \
      --metrics gpu__time_duration.sum --csv --print-units base \
      "$build/bin/mxfp8-launch" "$so" "$dir/$name.$v.cuda.manifest" \
      --entry="$entry" --repeat=2 --warmup=0 > "$csv" 2> "$work/$name.$v.err" ||
      { echo "== $name.$v: ncu failed"; tail -n 20 "$work/$name.$v.err" "$csv"; continue; }
    echo "== $name ($v): kernels of the second call (ncu, gpu__time_duration.sum)"
    python3 "$root/bench/device/step_kernel_families.py" "$csv" --calls=2
  done
done
rm -rf "$work"
