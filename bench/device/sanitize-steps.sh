#!/usr/bin/env bash
#===- bench/device/sanitize-steps.sh - compute-sanitizer over the rest -----===#
#
# Usage: bench/device/sanitize-steps.sh STEPS_DIR [GPUCHECK_DIR]
#
# Runs on the GPU machine (no MLIR there). The kernels that the harness's
# `compare` lines do not reach (run-aot-checks.sh SANITIZE=... covers
# those) under each compute-sanitizer tool of SANITIZE (default
# memcheck,racecheck,synccheck,initcheck; memcheck with --leak-check full
# on the steps, racecheck with --racecheck-report all):
#   1. every step of STEPS_DIR (bench/make-step-artifacts.sh: the main job's
#      high-precision and MXFP8 steps, full size), one call each
#      (mxfp8-launch --repeat=1 --warmup=0);
#   2. with GPUCHECK_DIR (python3 scripts/gpu-check.py prepare ...): every
#      case of scripts/gpu-check.py (the quantize, dequantize and layout
#      kernels at their benchmark shapes) once, bit-exactness checked too.
# One row per tool and run: PASS only when the tool reports no error,
# hazard or leak (and the run itself succeeds). Logs go to $OUT/sanitize/
# (the first reports of a failing run are printed). Exit status 1 when a
# row fails. Environment: SANITIZE, SANITIZE_TIMEOUT (seconds per run,
# default 300), GPU (default 0), LAUNCH_BUILD_DIR, OUT.
#
#===------------------------------------------------------------------------===#
set -uo pipefail
export LC_ALL=C PYTHONUNBUFFERED=1

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
dir="$(cd "${1:?usage: sanitize-steps.sh STEPS_DIR [GPUCHECK_DIR]}" && pwd)" || exit 2
gpucheck="${2:-}"
build="${LAUNCH_BUILD_DIR:-/tmp/mxfp8-launch-build}"
gpu="${GPU:-0}"
tools="${SANITIZE:-memcheck,racecheck,synccheck,initcheck}"
work="$(mktemp -d)"
logs="${OUT:-$work}/sanitize"
mkdir -p "$logs"
sanitizer="${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer"
[ -x "$sanitizer" ] || sanitizer="$(command -v compute-sanitizer || echo compute-sanitizer)"

# shellcheck source=launch-build.sh
source "$root/bench/device/launch-build.sh"
build_launch "$root" "$build" "$work/launch" || exit 2
launch="$build/bin/mxfp8-launch"
for object in "$dir"/*.o; do
  link_object "$object" "$work/$(basename "${object%.o}").so" "$build/lib" || exit 2
done

rows=()
failed=0
# check LEAKS NAME COMMAND...: COMMAND under each tool, one row each;
# memcheck checks leaks when LEAKS is 1.
check() {
  local leaks="$1" name="$2" tool log rc summary status start
  shift 2
  for tool in ${tools//,/ }; do
    log="$logs/$tool-${name//\//-}.log"
    local args=(--tool "$tool" --error-exitcode 97 --print-limit 20)
    case "$tool" in
      memcheck) [ "$leaks" = 1 ] && args+=(--leak-check full) ;;
      racecheck) args+=(--racecheck-report all) ;;
    esac
    start=$(date +%s)
    timeout "${SANITIZE_TIMEOUT:-300}" "$sanitizer" "${args[@]}" "$@" > "$log" 2>&1
    rc=$?
    summary="$(grep -m1 -E '(ERROR|RACECHECK) SUMMARY' "$log" | sed 's/^=* *//')"
    status=PASS
    if [ $rc -ne 0 ] || ! grep -qE '(ERROR SUMMARY: 0 errors|RACECHECK SUMMARY: 0 hazards)' "$log"; then
      status=FAIL
      failed=1
      [ $rc -eq 124 ] && summary="timed out after ${SANITIZE_TIMEOUT:-300} s"
      echo "== $tool $name (FAIL, exit $rc): first reports of $log"
      grep -m 12 -E '^=+ (Invalid|Race|Barrier|Uninitialized|Leaked|Error|ERROR|RACECHECK|  )' "$log" |
        sed 's/^/  /'
      tail -n 3 "$log" | sed 's/^/  /'
    fi
    rows+=("$(printf '%-10s %-40s %-5s %5ss  %s' "$tool" "$name" "$status" \
      "$(( $(date +%s) - start ))" "${summary:-exit $rc}")")
    echo "${rows[-1]}"
  done
}

for manifest in "$dir"/*.cuda.manifest; do
  base="$(basename "${manifest%.cuda.manifest}")"
  entry="$(awk '$1 == "func" { print $2; exit }' "$manifest")"
  check 1 "step/$base" "$launch" "$work/$base.cuda.so" "$manifest" --entry="$entry" \
    --gpu="$gpu" --repeat=1 --warmup=0
done
if [ -n "$gpucheck" ]; then
  # No leak check: the leaks memcheck reports there are blocks of CuPy's
  # memory pool (the harness's own arrays), not allocations of ours.
  check 0 "gpu-check" python3 "$root/scripts/gpu-check.py" run "$gpucheck" --no-timing
fi

echo
echo "== compute-sanitizer: tool, run, result, seconds, summary"
printf '%s\n' "${rows[@]}"
exit "$failed"
