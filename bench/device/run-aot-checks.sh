#!/usr/bin/env bash
#===- bench/device/run-aot-checks.sh - AOT checks on the GPU machine -------===#
#
# Usage: bench/device/run-aot-checks.sh [ARTIFACTS_DIR]
#
# The one device harness. Runs on the GPU machine (no MLIR or LLVM there),
# on a folder written here by bench/make-aot-artifacts.sh (default:
# aot-artifacts/ in the repository root): the primary artifact set in the
# folder (sm_90a) and one set per subfolder with a checks.txt (sm_100a/).
# One invocation:
#   1. builds the runtime and mxfp8-launch with cmake (+ ninja when found)
#      from tools/mxfp8-launch, without MLIR;
#   2. reads the GPU's architecture (nvidia-smi, else torch); a set whose
#      `chip` is another architecture is not run: each of its checks is a
#      row `SKIP-ARCH ... skip (needs sm_100, found sm_90)`, which does not
#      change the exit status;
#   3. per set that runs: links every object into a shared library
#      (g++ -shared ... -lmxfp8train_runtime);
#   4. when the set has gpucheck/ (and python3 has numpy and CuPy), runs
#      scripts/gpu-check.py on it: the quantization kernels bit for bit
#      against the CPU path on special values, and their bandwidth against a
#      device-to-device copy (its own report, then one row of the table);
#   5. runs every `compare` line of its checks.txt: NAME.cuda on the GPU
#      against NAME.cpu on the host, same generated inputs, timed with CUDA
#      events; where checks.txt has hashes made on the compiling machine,
#      also checks that the inputs generated here and the CPU results
#      computed here have the same bytes there (columns `in` and `cpu`:
#      same / DIFF); `run` lines run a CPU object alone and check its hashes
#      (on any GPU); `step` lines run the main job's MXFP8 training step
#      NAME.mx against its high-precision step NAME.hp, both on the GPU, and
#      print the SQNR of every result with its bar and the timing of both
#      steps (columns `gpu ms`: the MXFP8 step, `cpu ms`: the
#      high-precision step); `probe` lines run the step's per-matmul probe
#      and print torchao's per-linear table;
#   6. when the set has gemmcheck/ (torch, CuPy), runs bench/gemm_bench.py
#      on it: every GEMM case against a float64 reference, then the GEMMs
#      timed against cuBLAS bf16 and, on sm_100, cuBLAS MXFP8
#      (torch._scaled_mm with blocked e8m0 scales) in the same run;
#   7. prints a compact table last.
# Exit status: 0 when every check that ran passed, 1 when one failed, 2 when
# the build or the artifacts are broken, 77 when there is no usable GPU (the
# GPU checks did not run; CPU-only checks still did).
#
# Environment: LAUNCH_BUILD_DIR (default /tmp/mxfp8-launch-build), WORK_DIR
# (libraries and logs, default /tmp/mxfp8-aot-checks), CXX (default g++),
# GPU (device index, default 0), STEP_TIMEOUT (seconds per `step` line,
# default 240), SKIP_GPUCHECK=1 (do not run gpu-check.py), SKIP_GEMMCHECK=1
# (do not run gemm_bench.py), SANITIZE=memcheck,racecheck,synccheck,initcheck
# (any subset: every passing `compare` line's GPU run once more under each
# compute-sanitizer tool, one row per tool and line; SANITIZE_TIMEOUT
# seconds per run, default 300), GPU_SM=XY (take the GPU as sm_XY: a dry run
# of another set's wiring), OUT (when set, as on the device tool: the
# whole output is also written to $OUT/run-aot-checks.log and the logs to
# $OUT/run-aot-checks-logs.tar.gz).
#
#===------------------------------------------------------------------------===#
set -uo pipefail
export LC_ALL=C PYTHONUNBUFFERED=1

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
artifacts="$(cd "${1:-$root/aot-artifacts}" 2>/dev/null && pwd)" || {
  echo "run-aot-checks: no artifacts folder '${1:-$root/aot-artifacts}' (bench/make-aot-artifacts.sh writes it)" >&2
  exit 2
}
[ -f "$artifacts/checks.txt" ] || { echo "run-aot-checks: no $artifacts/checks.txt" >&2; exit 2; }
build="${LAUNCH_BUILD_DIR:-/tmp/mxfp8-launch-build}"
work="${WORK_DIR:-/tmp/mxfp8-aot-checks}"
cxx="${CXX:-g++}"
gpu="${GPU:-0}"
start=$(date +%s)
if [ -n "${OUT:-}" ] && mkdir -p "$OUT" 2>/dev/null; then
  exec > >(tee "$OUT/run-aot-checks.log") 2>&1
fi

# compute-sanitizer for SANITIZE (the CUDA toolkit's, else PATH's).
sanitizer="${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer"
[ -x "$sanitizer" ] || sanitizer="$(command -v compute-sanitizer || echo compute-sanitizer)"

# 1. Build.
# shellcheck source=launch-build.sh
source "$root/bench/device/launch-build.sh"
if ! build_launch "$root" "$build" "$build"; then
  echo "run-aot-checks: building mxfp8-launch failed" >&2
  exit 2
fi
launch="$build/bin/mxfp8-launch"
runtime_lib="$build/lib"
rm -rf "$work"
mkdir -p "$work/logs"

# 2. The machine and the GPU's architecture (sm_XY as XY; empty: no GPU).
echo "== machine"
gpu_sm=""
if command -v nvidia-smi > /dev/null; then
  nvidia-smi --query-gpu=index,name,driver_version,memory.total,compute_cap --format=csv,noheader |
    sed 's/^/  gpu /'
  gpu_sm="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader -i "$gpu" 2>/dev/null | tr -d ' .' | head -n1)"
fi
if ! [[ "$gpu_sm" =~ ^[0-9]+$ ]]; then
  gpu_sm="$(python3 -c 'import torch, sys; m, n = torch.cuda.get_device_capability(int(sys.argv[1])); print(10 * m + n)' \
    "$gpu" 2>/dev/null || true)"
fi
[[ "$gpu_sm" =~ ^[0-9]+$ ]] || gpu_sm=""
# GPU_SM=XY pretends the GPU is sm_XY (a dry run of another set's wiring).
[ -n "${GPU_SM:-}" ] && gpu_sm="$GPU_SM" && echo "  GPU_SM=$GPU_SM: taken as the architecture"
gpu_arch="none found"
[ -n "$gpu_sm" ] && gpu_arch="sm_$gpu_sm"
echo "  architecture: $gpu_arch"
grep -m1 'model name' /proc/cpuinfo | sed 's/^model name[^:]*: /  cpu /'
echo "  cpu flags: $(grep -m1 -o -w 'avx512f\|avx2' /proc/cpuinfo | sort -u | tr '\n' ' ')"

rows=()
passed=0
failed=0
skipped=0
arch_skipped=0
no_gpu=0
link_failed=0
width=38
row() { printf "%-${width}s %-9s %-7s %-9s %-10s %-10s %-5s %-5s %s" "$@"; }
field() { sed -n "s/^summary: .*\b$1=\([^ ]*\).*/\1/p" "$2" | tail -n 1; }
# same / DIFF / - for files against a recorded hash.
compare_hash() {
  local want="$1"
  shift
  if [ -z "$want" ] || ! ls "$@" > /dev/null 2>&1; then echo -; return; fi
  if [ "$(cat "$@" | sha256sum | cut -d' ' -f1)" = "$want" ]; then echo same; else echo DIFF; fi
}
# clip NOTE: the note without the launcher's prefix, at most 110 characters.
clip() {
  local note="${1//mxfp8-launch: error: /}"
  [ ${#note} -gt 110 ] && note="${note:0:107}..."
  echo "$note"
}
# count STATUS: adds a row's status to the totals.
count() {
  case "$1" in
    PASS) passed=$((passed + 1)) ;;
    FAIL) failed=$((failed + 1)) ;;
    NO-GPU) no_gpu=$((no_gpu + 1)) ;;
  esac
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
    note="$(grep -m1 'error:' "$log")"
  elif [ "$rc" -eq 124 ]; then
    status=FAIL
    note="timed out after ${STEP_TIMEOUT:-240} s"
  elif [ "$rc" -ne 0 ]; then
    status=FAIL
    note="exit $rc: $(grep -m1 -e 'error:' -e 'below' "$log")"
    tail -n 15 "$log" | sed 's/^/  /'
  fi
  count "$status"
  note="$(clip "$note")"
}

# run_set SET PREFIX WHY: steps 3-6 for one artifact set; libraries go to
# $work/lib/PREFIX, the CPU objects come from the set's `cpu-objects`. With
# WHY (`skip (needs sm_100, found sm_90)`), only the CPU-only lines run and
# every GPU check is a SKIP-ARCH row that says WHY.
# gpu_row_skipped NAME: inside run_set, when the set cannot run on this
# machine's GPU (another architecture: `why` is set; or no GPU), adds NAME's
# SKIP-ARCH or NO-GPU row and returns 0; otherwise returns 1.
gpu_row_skipped() {
  if [ -n "$why" ]; then
    rows+=("$(row "$1" SKIP-ARCH - - - - - - "$why")")
    arch_skipped=$((arch_skipped + 1))
  elif [ -z "$gpu_sm" ]; then
    count NO-GPU
    rows+=("$(row "$1" NO-GPU - - - - - - "no GPU found (nvidia-smi, torch)")")
  else
    return 1
  fi
}

# sanitize PREFIX NAME ENTRY LIB MANIFEST OPTIONS: with SANITIZE set, runs
# the GPU side of a passing `compare` line once more (one call, no warm-up,
# no CPU reference) under each compute-sanitizer tool of SANITIZE, one row
# per tool: PASS when the tool reports no error (racecheck: no hazard of
# any severity), FAIL with its summary line otherwise.
sanitize() {
  [ -n "${SANITIZE:-}" ] || return 0
  local prefix="$1" name="$2" entry="$3" lib="$4" manifest="$5" options="$6"
  local tool slog rc summary status
  for tool in ${SANITIZE//,/ }; do
    slog="$work/logs/sanitize/$tool/$prefix$name.log"
    mkdir -p "$(dirname "$slog")"
    local args=(--tool "$tool" --error-exitcode 97 --print-limit 20)
    case "$tool" in
      memcheck) args+=(--leak-check full) ;;
      racecheck) args+=(--racecheck-report all) ;;
    esac
    # shellcheck disable=SC2086
    timeout "${SANITIZE_TIMEOUT:-300}" "$sanitizer" "${args[@]}" \
      "$launch" "$lib" "$manifest" --entry="$entry" --gpu="$gpu" --repeat=1 \
      --warmup=0 --output-dir="$work/out/sanitize/$tool/$prefix$name" $options \
      > "$slog" 2>&1
    rc=$?
    summary="$(grep -m1 -E '(ERROR|RACECHECK) SUMMARY' "$slog" | sed 's/^=* *//')"
    status=PASS
    if [ $rc -ne 0 ] || ! grep -qE '(ERROR SUMMARY: 0 errors|RACECHECK SUMMARY: 0 hazards)' "$slog"; then
      status=FAIL
      [ $rc -eq 124 ] && summary="timed out after ${SANITIZE_TIMEOUT:-300} s"
      echo "== sanitize $tool $prefix$name (FAIL): first reports of $slog"
      grep -m 12 -E '^=+ (Invalid|Race|Barrier|Uninitialized|Leaked|Error|ERROR|RACECHECK|  )' "$slog" |
        sed 's/^/  /'
    fi
    count "$status"
    rows+=("$(row "sanitize/$tool/$prefix$name" "$status" - - - - - - "$(clip "${summary:-exit $rc}")")")
  done
}

run_set() {
  local set="$1" prefix="$2" why="$3"
  local checks="$set/checks.txt" libs="$work/lib/${prefix:-primary}"
  local cpu_dir cpu_libs="$work/lib/primary" object lib
  cpu_dir="$(awk '$1 == "cpu-objects" { print $2; exit }' "$checks")"
  [ -z "$cpu_dir" ] && cpu_libs="$libs"
  mkdir -p "$libs" "$work/out/${prefix:-primary}"

  # 3. Link.
  echo "== link ${prefix:-primary set}: $(ls "$set"/*.o 2>/dev/null | wc -l) objects -> $libs"
  for object in "$set"/*.o; do
    [ -e "$object" ] || continue
    lib="$libs/$(basename "${object%.o}").so"
    if ! CXX="$cxx" link_object "$object" "$lib" "$runtime_lib" \
         > "$work/logs/link-${prefix//\//-}$(basename "$object").log" 2>&1; then
      echo "  link failed: $(basename "$object")"
      sed 's/^/    /' "$work/logs/link-${prefix//\//-}$(basename "$object").log" | head -n 5
      link_failed=1
    fi
  done

  # 4. gpu-check.py.
  if [ -d "$set/gpucheck" ] && ! gpu_row_skipped "${prefix}gpu-check" &&
      [ "${SKIP_GPUCHECK:-0}" != 1 ]; then
    local glog="$work/logs/${prefix//\//-}gpu-check.log"
    echo "== gpu-check: scripts/gpu-check.py run $set/gpucheck"
    python3 "$root/scripts/gpu-check.py" run "$set/gpucheck" > "$glog" 2>&1
    local rc=$?
    sed 's/^/  /' "$glog"
    if [ $rc -eq 0 ]; then
      count PASS
      rows+=("$(row "${prefix}gpu-check" PASS - - - - - - "quantization kernels bit-exact; bandwidth above")")
    else
      count FAIL
      rows+=("$(row "${prefix}gpu-check" FAIL - - - - - - "exit $rc (see $glog)")")
    fi
  fi

  # 5. The lines of checks.txt.
  expected_hash() { awk -v k="$1" -v n="$2" '$1 == k && $2 == n { print $3 }' "$checks"; }
  local kind name entry expect options log rc
  while read -r kind name entry expect options; do
    if [ -n "$why" ]; then
      case "$kind" in
        compare) rows+=("$(row "$prefix$name" SKIP-ARCH - - - - - - "$why")") ;;
        step) rows+=("$(row "$prefix$name.$expect" SKIP-ARCH step - - - - - "$why")") ;;
        probe) rows+=("$(row "$prefix$name.probe" SKIP-ARCH probe - - - - - "$why")") ;;
      esac
      case "$kind" in compare | step | probe)
        arch_skipped=$((arch_skipped + 1))
        continue ;;
      esac
    fi
    case "$kind" in
      compare) ;;
      probe)
        log="$work/logs/$prefix$name.probe.log"
        mkdir -p "$(dirname "$log")"
        echo "== main job per-matmul: $prefix$name ($entry), each matmul converted alone on the GPU"
        # shellcheck disable=SC2086
        timeout "${STEP_TIMEOUT:-240}" \
        "$launch" "$libs/$name.probe.cuda.so" "$set/$name.probe.cuda.manifest" --entry="$entry" \
          --gpu="$gpu" $options > "$log" 2>&1
        rc=$?
        sed -n -e '/^matmuls/,/^matmul bars/p' "$log" | sed 's/^/  /'
        judge "$log" "$rc" "$(sed -n 's/^matmul bars: //p' "$log")"
        rows+=("$(row "$prefix$name.probe" "$status" probe - "$(field time_ms "$log")" - - - "$note")")
        continue ;;
      step)
        local variant="$expect"
        log="$work/logs/$prefix$name.$variant.log"
        mkdir -p "$(dirname "$log")"
        echo "== main job step: $prefix$name.$variant ($entry), MXFP8 vs high precision on the GPU"
        # shellcheck disable=SC2086
        timeout "${STEP_TIMEOUT:-240}" \
        "$launch" "$libs/$name.$variant.cuda.so" "$set/$name.$variant.cuda.manifest" --entry="$entry" \
          --gpu="$gpu" --compare-with="$libs/$name.hp.cuda.so:$entry" \
          --compare-manifest="$set/$name.hp.cuda.manifest" $options > "$log" 2>&1
        rc=$?
        sed -n -e '/^compare with/,$p' "$log" | sed 's/^/  /'
        judge "$log" "$rc" "$(sed -n 's/^timing: //p' "$log" | sed 's/ (medians.*//')"
        rows+=("$(row "$prefix$name.$variant" "$status" step "$(field min_sqnr_db "$log")" "$(field time_ms "$log")" "$(field reference_time_ms "$log")" - - "$note")")
        continue ;;
      run)
        log="$work/logs/$prefix$name.log"
        mkdir -p "$(dirname "$log")"
        # shellcheck disable=SC2086
        "$launch" "$libs/$name.cpu.so" "$set/$name.cpu.manifest" --entry="$entry" \
          --output-dir="$work/out/$prefix$name" --save-inputs $expect $options > "$log" 2>&1
        rc=$?
        local inputs_match cpu_match
        inputs_match="$(compare_hash "$(expected_hash inputs "$name")" "$work/out/$prefix$name"/inputs/*.npy)"
        cpu_match="$(compare_hash "$(expected_hash outputs "$name")" "$work/out/$prefix$name"/*.npy)"
        status=PASS
        note="cpu only"
        if [ $rc -ne 0 ]; then
          status=FAIL
          note="exit $rc: $(grep -m1 'error:' "$log")"
        elif [ "$inputs_match" != same ] || [ "$cpu_match" != same ]; then
          status=FAIL
          note="bytes differ from the compiling machine (inputs $inputs_match, cpu results $cpu_match)"
        fi
        count "$status"
        rows+=("$(row "$prefix$name" "$status" - - - "$(field time_ms "$log")" "$inputs_match" "$cpu_match" "$(clip "$note")")")
        if [ "$status" != PASS ]; then
          echo "== $prefix$name ($status): last lines of $log"
          tail -n 15 "$log" | sed 's/^/  /'
        fi
        continue ;;
      skip)
        rows+=("$(row "$prefix$name" SKIP - - - - - - "$(clip "${entry} ${expect} ${options}")")")
        skipped=$((skipped + 1))
        continue ;;
      *) continue ;;
    esac
    log="$work/logs/$prefix$name.log"
    mkdir -p "$(dirname "$log")"
    local extra=()
    [ "$expect" = exact ] && extra+=(--expect-exact)
    # shellcheck disable=SC2086
    "$launch" "$libs/$name.cuda.so" "$set/$name.cuda.manifest" --entry="$entry" \
      --gpu="$gpu" --output-dir="$work/out/$prefix$name" --save-inputs \
      --compare-with="$cpu_libs/$name.cpu.so:$entry" \
      --compare-manifest="$set/${cpu_dir:+$cpu_dir/}$name.cpu.manifest" "${extra[@]}" $options \
      > "$log" 2>&1
    rc=$?
    local exact="-" sqnr gpu_ms cpu_ms inputs_match cpu_match
    [ -n "$(field results "$log")" ] && exact="$(field exact "$log")/$(field results "$log")"
    sqnr="$(field min_sqnr_db "$log")"
    gpu_ms="$(field time_ms "$log")"
    cpu_ms="$(field reference_time_ms "$log")"
    inputs_match="$(compare_hash "$(expected_hash inputs "$name")" "$work/out/$prefix$name"/inputs/*.npy)"
    cpu_match="$(compare_hash "$(expected_hash outputs "$name")" "$work/out/$prefix$name"/*.compare.npy)"
    status=PASS
    note=""
    if [ $rc -eq 77 ]; then
      status=NO-GPU
      note="$(grep -m1 'error:' "$log")"
    elif [ $rc -ne 0 ]; then
      status=FAIL
      note="exit $rc: $(grep -m1 -e 'error:' -e 'differ' "$log")"
    elif [ "${expect#sqnr>=}" != "$expect" ]; then
      local bar="${expect#sqnr>=}"
      if ! awk -v s="$sqnr" -v b="$bar" 'BEGIN { exit !(s == "inf" || (s != "nan" && s + 0 >= b + 0)) }'; then
        status=FAIL
        note="SQNR $sqnr dB < $bar dB"
      fi
    fi
    if [ "$status" = PASS ] && { [ "$inputs_match" = DIFF ] || [ "$cpu_match" = DIFF ]; }; then
      status=FAIL
      note="bytes differ from the compiling machine (inputs $inputs_match, cpu results $cpu_match)"
    fi
    count "$status"
    rows+=("$(row "$prefix$name" "$status" "${exact:-?}" "${sqnr:--}" "${gpu_ms:--}" "${cpu_ms:--}" "$inputs_match" "$cpu_match" "$(clip "$note")")")
    if [ "$status" != PASS ]; then
      echo "== $prefix$name ($status): last lines of $log"
      tail -n 15 "$log" | sed 's/^/  /'
    fi
    [ "$status" = PASS ] && sanitize "$prefix" "$name" "$entry" "$libs/$name.cuda.so" \
      "$set/$name.cuda.manifest" "$options"
  done < "$checks"

  # 6. gemm_bench.py: numerics against float64, timing against cuBLAS.
  if [ -d "$set/gemmcheck" ] && ! gpu_row_skipped "${prefix}gemm-check" &&
      [ "${SKIP_GEMMCHECK:-0}" != 1 ]; then
    local blog="$work/logs/${prefix//\//-}gemm-check.log"
    echo "== gemm-check: bench/gemm_bench.py run $set/gemmcheck"
    python3 "$root/bench/gemm_bench.py" run "$set/gemmcheck" --runtime-lib "$runtime_lib" \
      > "$blog" 2>&1
    rc=$?
    sed 's/^/  /' "$blog"
    local summary
    summary="$(grep -E '^[0-9]+ cases, [0-9]+ failures' "$blog" | tail -n1)"
    if [ $rc -eq 0 ] && grep -q '^skip (needs' "$blog"; then
      rows+=("$(row "${prefix}gemm-check" SKIP-ARCH - - - - - - "$(grep -m1 '^skip (needs' "$blog")")")
    elif [ $rc -eq 0 ]; then
      count PASS
      rows+=("$(row "${prefix}gemm-check" PASS - - - - - - "$summary vs float64; timing vs cuBLAS above")")
    elif [ $rc -eq 77 ]; then
      count NO-GPU
      rows+=("$(row "${prefix}gemm-check" NO-GPU - - - - - - "$(tail -n1 "$blog")")")
    else
      count FAIL
      rows+=("$(row "${prefix}gemm-check" FAIL - - - - - - "$(clip "exit $rc: ${summary:-$(tail -n1 "$blog")} (see $blog)")")")
    fi
  fi
}

# The sets: the primary one, then every subfolder with a checks.txt.
sets=("$artifacts")
for extra in "$artifacts"/*/checks.txt; do
  [ -e "$extra" ] && sets+=("$(dirname "$extra")")
done
for set in "${sets[@]}"; do
  prefix=""
  [ "$set" != "$artifacts" ] && prefix="$(basename "$set")/"
  chip="$(awk '$1 == "chip" { print $2; exit }' "$set/checks.txt")"
  [ -z "$chip" ] && chip="$(sed -n 's/^# chip=\([^ ]*\).*/\1/p' "$set/checks.txt" | head -n1)"
  chip="${chip:-sm_90a}"
  want="$(echo "$chip" | sed 's/^sm_\([0-9]*\).*/\1/')"
  echo
  echo "== artifact set ${prefix:-(primary)} for $chip"
  if [ "$want" = "$gpu_sm" ] || { [ -z "$gpu_sm" ] && [ -z "$prefix" ]; }; then
    # Without a GPU the primary set still runs: its CPU-only lines pass
    # and its GPU lines say NO-GPU (exit 77).
    run_set "$set" "$prefix" ""
  else
    found="no GPU"
    [ -n "$gpu_sm" ] && found="sm_$gpu_sm"
    why="skip (needs sm_$want, found $found)"
    echo "  $why: only its CPU-only lines run"
    run_set "$set" "$prefix" "$why"
  fi
done

# 7. Table.
echo
echo "== device checks: GPU (NAME.cuda) vs CPU (NAME.cpu), same inputs; step rows: MXFP8 step (gpu ms) vs high-precision step (cpu ms column), both on the GPU; times are medians"
printf "%-${width}s %-9s %-7s %-9s %-10s %-10s %-5s %-5s %s\n" check result exact "SQNR dB" "gpu ms" "cpu ms" in cpu note
for r in "${rows[@]}"; do
  echo "$r"
done
echo "passed $passed, failed $failed, skipped $skipped, skipped for the architecture $arch_skipped, no gpu $no_gpu; logs in $work/logs; $(( $(date +%s) - start )) s"
if [ -n "${OUT:-}" ] && [ -d "$OUT" ]; then
  tar -czf "$OUT/run-aot-checks-logs.tar.gz" -C "$work" logs 2>/dev/null &&
    echo "logs: \$OUT/run-aot-checks-logs.tar.gz, output: \$OUT/run-aot-checks.log"
fi
if [ $failed -ne 0 ] || [ $link_failed -ne 0 ]; then
  exit 1
fi
if [ $no_gpu -ne 0 ]; then
  exit 77
fi
exit 0
