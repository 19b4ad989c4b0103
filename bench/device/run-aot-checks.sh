#!/usr/bin/env bash
#===- bench/device/run-aot-checks.sh - AOT checks on the GPU machine -------===#
#
# Usage: bench/device/run-aot-checks.sh [ARTIFACTS_DIR]
#
# The one device harness. Runs on the GPU machine (no MLIR or LLVM there),
# on a folder written here by bench/make-aot-artifacts.sh (default:
# aot-artifacts/ in the repository root). One invocation:
#   1. builds the runtime and mxfp8-launch with cmake (+ ninja when found)
#      from tools/mxfp8-launch, without MLIR;
#   2. links every object into a shared library (g++ -shared ... -lmxfp8train_runtime);
#   3. when the folder has gpucheck/ (and python3 has numpy and CuPy), runs
#      scripts/gpu-check.py on it: the quantization kernels bit for bit
#      against the CPU path on special values, and their bandwidth against a
#      device-to-device copy (its own report, then one row of the table);
#   4. runs every `compare` line of checks.txt: NAME.cuda on the GPU against
#      NAME.cpu on the host, same generated inputs, timed with CUDA events;
#      where checks.txt has hashes made on the compiling machine, also checks
#      that the inputs generated here and the CPU results computed here have
#      the same bytes there (columns `in` and `cpu`: same / DIFF); `run`
#      lines run a CPU object alone and check its hashes; `step` lines run
#      the main job's MXFP8 training step NAME.mx against its high-precision
#      step NAME.hp, both on the GPU, and print the SQNR of every result
#      with its bar and the timing of both steps (columns `gpu ms`: the
#      MXFP8 step, `cpu ms`: the high-precision step); `probe` lines run the
#      step's per-matmul probe and print torchao's per-linear table;
#   5. prints a compact table last.
# Exit status: 0 when every check passes, 1 when one fails, 2 when the build
# or the artifacts are broken, 77 when there is no usable GPU (the GPU
# checks did not run; CPU-only checks still did).
#
# Environment: LAUNCH_BUILD_DIR (default /tmp/mxfp8-launch-build), WORK_DIR
# (libraries and logs, default /tmp/mxfp8-aot-checks), CXX (default g++),
# GPU (device index, default 0), STEP_TIMEOUT (seconds per `step` line,
# default 240), SKIP_GPUCHECK=1 (do not run gpu-check.py).
#
#===------------------------------------------------------------------------===#
set -uo pipefail
export LC_ALL=C

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
artifacts="$(cd "${1:-$root/aot-artifacts}" 2>/dev/null && pwd)" || {
  echo "run-aot-checks: no artifacts folder '${1:-$root/aot-artifacts}' (bench/make-aot-artifacts.sh writes it)" >&2
  exit 2
}
checks="$artifacts/checks.txt"
[ -f "$checks" ] || { echo "run-aot-checks: no $checks" >&2; exit 2; }
build="${LAUNCH_BUILD_DIR:-/tmp/mxfp8-launch-build}"
work="${WORK_DIR:-/tmp/mxfp8-aot-checks}"
cxx="${CXX:-g++}"
gpu="${GPU:-0}"
jobs="$(nproc 2>/dev/null || echo 4)"
start=$(date +%s)

# 1. Build.
generator=()
command -v ninja > /dev/null && generator=(-G Ninja)
echo "== build: runtime + mxfp8-launch ($build)"
if ! { cmake "${generator[@]}" -S "$root/tools/mxfp8-launch" -B "$build" \
         -DCMAKE_BUILD_TYPE=Release > "$build.configure.log" 2>&1 &&
       cmake --build "$build" -j "$jobs" > "$build.build.log" 2>&1; }; then
  tail -n 30 "$build.configure.log" "$build.build.log" 2>/dev/null
  echo "run-aot-checks: building mxfp8-launch failed" >&2
  exit 2
fi
launch="$build/bin/mxfp8-launch"
runtime_lib="$build/lib"

# 2. Link.
rm -rf "$work"
mkdir -p "$work/logs" "$work/out"
echo "== link: $(ls "$artifacts"/*.o 2>/dev/null | wc -l) objects -> $work"
link_failed=0
for object in "$artifacts"/*.o; do
  [ -e "$object" ] || continue
  lib="$work/$(basename "${object%.o}").so"
  if ! "$cxx" -shared -o "$lib" "$object" -Wl,-Bsymbolic \
       -L"$runtime_lib" -lmxfp8train_runtime -Wl,-rpath,"$runtime_lib" \
       > "$work/logs/link-$(basename "$object").log" 2>&1; then
    echo "  link failed: $(basename "$object")"
    sed 's/^/    /' "$work/logs/link-$(basename "$object").log" | head -n 5
    link_failed=1
  fi
done

echo "== machine"
if command -v nvidia-smi > /dev/null; then
  nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader | sed 's/^/  gpu /'
fi
grep -m1 'model name' /proc/cpuinfo | sed 's/^model name[^:]*: /  cpu /'
echo "  cpu flags: $(grep -m1 -o -w 'avx512f\|avx2' /proc/cpuinfo | sort -u | tr '\n' ' ')"

# 3. Run.
rows=()
passed=0
failed=0
skipped=0
no_gpu=0
row() { printf '%-24s %-7s %-7s %-9s %-10s %-10s %-5s %-5s %s' "$@"; }
if [ -d "$artifacts/gpucheck" ] && [ "${SKIP_GPUCHECK:-0}" != 1 ]; then
  echo "== gpu-check: scripts/gpu-check.py run $artifacts/gpucheck"
  python3 "$root/scripts/gpu-check.py" run "$artifacts/gpucheck" > "$work/logs/gpu-check.log" 2>&1
  rc=$?
  sed 's/^/  /' "$work/logs/gpu-check.log"
  if [ $rc -eq 0 ]; then
    passed=$((passed + 1))
    rows+=("$(row gpu-check PASS - - - - - - "quantization kernels bit-exact; bandwidth above")")
  else
    failed=$((failed + 1))
    rows+=("$(row gpu-check FAIL - - - - - - "exit $rc (see $work/logs/gpu-check.log)")")
  fi
fi
field() { sed -n "s/^summary: .*\b$1=\([^ ]*\).*/\1/p" "$2" | tail -n 1; }
# The hash recorded in checks.txt (`inputs NAME SHA` / `outputs NAME SHA`).
expected_hash() { awk -v k="$1" -v n="$2" '$1 == k && $2 == n { print $3 }' "$checks"; }
# same / DIFF / - for files against a recorded hash.
compare_hash() {
  local want="$1"
  shift
  if [ -z "$want" ] || ! ls "$@" > /dev/null 2>&1; then echo -; return; fi
  if [ "$(cat "$@" | sha256sum | cut -d' ' -f1)" = "$want" ]; then echo same; else echo DIFF; fi
}
# judge LOG RC NOTE: status and note of a `step` or `probe` run from its
# exit status (77 no GPU, 124 timed out, any other non-zero a failure, its
# log's last lines printed), counted; NOTE is kept when it passed.
judge() {
  local log="$1" rc="$2"
  status=PASS
  note="$3"
  if [ "$rc" -eq 77 ]; then
    status=NO-GPU
    no_gpu=$((no_gpu + 1))
    note="$(grep -m1 'error:' "$log")"
  elif [ "$rc" -eq 124 ]; then
    status=FAIL
    note="timed out after ${STEP_TIMEOUT:-240} s"
  elif [ "$rc" -ne 0 ]; then
    status=FAIL
    note="exit $rc: $(grep -m1 -e 'error:' -e 'below' "$log")"
    tail -n 15 "$log" | sed 's/^/  /'
  fi
  if [ "$status" = PASS ]; then passed=$((passed + 1)); elif [ "$status" = FAIL ]; then failed=$((failed + 1)); fi
  note="${note//mxfp8-launch: error: /}"
  [ ${#note} -gt 110 ] && note="${note:0:107}..."
  return 0
}
while read -r kind name entry expect options; do
  case "$kind" in
    compare) ;;
    probe)
      log="$work/logs/$name.probe.log"
      echo "== main job per-matmul: $name ($entry), each matmul converted alone on the GPU"
      # shellcheck disable=SC2086
      timeout "${STEP_TIMEOUT:-240}" \
      "$launch" "$work/$name.probe.cuda.so" "$artifacts/$name.probe.cuda.manifest" --entry="$entry" \
        --gpu="$gpu" $options > "$log" 2>&1
      rc=$?
      sed -n -e '/^matmuls/,/^matmul bars/p' "$log" | sed 's/^/  /'
      judge "$log" "$rc" "$(sed -n 's/^matmul bars: //p' "$log")"
      rows+=("$(row "$name.probe" "$status" probe - "$(field time_ms "$log")" - - - "$note")")
      continue ;;
    step)
      variant="$expect"
      log="$work/logs/$name.$variant.log"
      echo "== main job step: $name.$variant ($entry), MXFP8 vs high precision on the GPU"
      # shellcheck disable=SC2086
      timeout "${STEP_TIMEOUT:-240}" \
      "$launch" "$work/$name.$variant.cuda.so" "$artifacts/$name.$variant.cuda.manifest" --entry="$entry" \
        --gpu="$gpu" --compare-with="$work/$name.hp.cuda.so:$entry" \
        --compare-manifest="$artifacts/$name.hp.cuda.manifest" $options > "$log" 2>&1
      rc=$?
      sed -n -e '/^compare with/,$p' "$log" | sed 's/^/  /'
      judge "$log" "$rc" "$(sed -n 's/^timing: //p' "$log" | sed 's/ (medians.*//')"
      rows+=("$(row "$name.$variant" "$status" step "$(field min_sqnr_db "$log")" "$(field time_ms "$log")" "$(field reference_time_ms "$log")" - - "$note")")
      continue ;;
    run)
      log="$work/logs/$name.log"
      # shellcheck disable=SC2086
      "$launch" "$work/$name.cpu.so" "$artifacts/$name.cpu.manifest" --entry="$entry" \
        --output-dir="$work/out/$name" --save-inputs $expect $options > "$log" 2>&1
      rc=$?
      inputs_match="$(compare_hash "$(expected_hash inputs "$name")" "$work/out/$name"/inputs/*.npy)"
      cpu_match="$(compare_hash "$(expected_hash outputs "$name")" "$work/out/$name"/*.npy)"
      status=PASS
      note="cpu only"
      if [ $rc -ne 0 ]; then
        status=FAIL
        note="exit $rc: $(grep -m1 'error:' "$log")"
      elif [ "$inputs_match" != same ] || [ "$cpu_match" != same ]; then
        status=FAIL
        note="bytes differ from the compiling machine (inputs $inputs_match, cpu results $cpu_match)"
      fi
      if [ "$status" = PASS ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
      note="${note//mxfp8-launch: error: /}"
      [ ${#note} -gt 110 ] && note="${note:0:107}..."
      rows+=("$(printf '%-24s %-7s %-7s %-9s %-10s %-10s %-5s %-5s %s' "$name" "$status" - - - "$(field time_ms "$log")" "$inputs_match" "$cpu_match" "$note")")
      if [ "$status" != PASS ]; then
        echo "== $name ($status): last lines of $log"
        tail -n 15 "$log" | sed 's/^/  /'
      fi
      continue ;;
    skip)
      rows+=("$(printf '%-24s %-7s %-7s %-9s %-10s %-10s %-5s %-5s %s' "$name" SKIP - - - - - - "${entry} ${expect} ${options}")")
      skipped=$((skipped + 1))
      continue ;;
    *) continue ;;
  esac
  log="$work/logs/$name.log"
  extra=()
  [ "$expect" = exact ] && extra+=(--expect-exact)
  # shellcheck disable=SC2086
  "$launch" "$work/$name.cuda.so" "$artifacts/$name.cuda.manifest" --entry="$entry" \
    --gpu="$gpu" --output-dir="$work/out/$name" --save-inputs \
    --compare-with="$work/$name.cpu.so:$entry" \
    --compare-manifest="$artifacts/$name.cpu.manifest" "${extra[@]}" $options \
    > "$log" 2>&1
  rc=$?
  exact="-"
  [ -n "$(field results "$log")" ] && exact="$(field exact "$log")/$(field results "$log")"
  sqnr="$(field min_sqnr_db "$log")"
  gpu_ms="$(field time_ms "$log")"
  cpu_ms="$(field reference_time_ms "$log")"
  inputs_match="$(compare_hash "$(expected_hash inputs "$name")" "$work/out/$name"/inputs/*.npy)"
  cpu_match="$(compare_hash "$(expected_hash outputs "$name")" "$work/out/$name"/*.compare.npy)"
  status=PASS
  note=""
  if [ $rc -eq 77 ]; then
    status=NO-GPU
    no_gpu=$((no_gpu + 1))
    note="$(grep -m1 'error:' "$log")"
  elif [ $rc -ne 0 ]; then
    status=FAIL
    note="exit $rc: $(grep -m1 -e 'error:' -e 'differ' "$log")"
  elif [ "${expect#sqnr>=}" != "$expect" ]; then
    bar="${expect#sqnr>=}"
    if ! awk -v s="$sqnr" -v b="$bar" 'BEGIN { exit !(s == "inf" || (s != "nan" && s + 0 >= b + 0)) }'; then
      status=FAIL
      note="SQNR $sqnr dB < $bar dB"
    fi
  fi
  if [ "$status" = PASS ] && { [ "$inputs_match" = DIFF ] || [ "$cpu_match" = DIFF ]; }; then
    status=FAIL
    note="bytes differ from the compiling machine (inputs $inputs_match, cpu results $cpu_match)"
  fi
  if [ "$status" = PASS ]; then passed=$((passed + 1)); elif [ "$status" = FAIL ]; then failed=$((failed + 1)); fi
  note="${note//mxfp8-launch: error: /}"
  [ ${#note} -gt 110 ] && note="${note:0:107}..."
  rows+=("$(printf '%-24s %-7s %-7s %-9s %-10s %-10s %-5s %-5s %s' "$name" "$status" "${exact:-?}" "${sqnr:--}" "${gpu_ms:--}" "${cpu_ms:--}" "$inputs_match" "$cpu_match" "$note")")
  if [ "$status" != PASS ]; then
    echo "== $name ($status): last lines of $log"
    tail -n 15 "$log" | sed 's/^/  /'
  fi
done < "$checks"

# 4. Table.
echo
echo "== device checks: GPU (NAME.cuda) vs CPU (NAME.cpu), same inputs; step rows: MXFP8 step (gpu ms) vs high-precision step (cpu ms column), both on the GPU; times are medians"
printf '%-24s %-7s %-7s %-9s %-10s %-10s %-5s %-5s %s\n' check result exact "SQNR dB" "gpu ms" "cpu ms" in cpu note
for row in "${rows[@]}"; do
  echo "$row"
done
echo "passed $passed, failed $failed, skipped $skipped, no gpu $no_gpu; logs in $work/logs; $(( $(date +%s) - start )) s"
if [ $failed -ne 0 ] || [ $link_failed -ne 0 ]; then
  exit 1
fi
if [ $no_gpu -ne 0 ]; then
  exit 77
fi
exit 0
