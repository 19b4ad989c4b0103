#!/usr/bin/env bash
#===- sanitize.sh - ASan + UBSan + assertions build, lit suite, fuzzers -----===#
#
# One extra build of the whole project (default build-sanitize/) with
# clang-22: AddressSanitizer, UndefinedBehaviorSanitizer (every check but
# vptr: LLVM and MLIR have no RTTI; no recovery, so any report fails),
# assertions on in our code (MXFP8TRAIN_ENABLE_ASSERTIONS: no NDEBUG), and
# the libFuzzer targets of fuzz/ (MXFP8TRAIN_ENABLE_FUZZERS). MLIR and LLVM
# stay the installed release libraries. Then:
#   1. the whole lit suite on that build (LeakSanitizer on, with
#      scripts/sanitize/lsan.supp; see docs/robustness.md);
#   2. seed corpora from test/ and examples/ (scripts/fuzz-seeds.py) and
#      each fuzzer for FUZZ_SECONDS (default 60; the module fuzzer 3 x) over them, its corpus kept
#      in BUILD/fuzz-runs/corpus/<fuzzer> between runs, crashes in
#      BUILD/fuzz-runs/artifacts/<fuzzer>/.
# Reports: BUILD/sanitize-lit.xml (lit's) and BUILD/sanitize-fuzz.xml (one
# test case per fuzzer, failed on any crash). The last line is
# "N passed, N failed" over both; exits non-zero on any failure.
# Environment: SANITIZE_BUILD_DIR, JOBS (default nproc), FUZZ_SECONDS,
# FUZZERS (default: all three, e.g. FUZZERS="npy manifest"),
# FUZZ_MODULE_SECONDS (default 3 x FUZZ_SECONDS: libFuzzer runs every seed
# first, within its time limit, and a module seed costs seconds under ASan),
# FUZZ_MODULE_SEEDS (module seeds kept, default 24 of about 300; 0 keeps
# all), FUZZ_SEED (libFuzzer's -seed, default 1 so that CI runs are repeatable; 0
# picks one), SANITIZE_SKIP_LIT=1 (fuzzers only), SANITIZE_SCOPE (`all`,
# the default: the whole project as above; `runtime`: only what builds
# without MLIR's heavy passes, in minutes instead of the whole project's
# ~20: the runtime subtree with its GoogleTest binary
# (test/runtime/runtime.test: collectives, NCCL loader, driver table, the
# fake libcuda modes) and the npy and manifest fuzzers over
# MXFP8TrainSupport; .ci/run uses it to stay inside CI's 40 minutes).
# Extra arguments go to lit.
#
#===------------------------------------------------------------------------===#
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${SANITIZE_BUILD_DIR:-$root/build-sanitize}"
jobs="${JOBS:-$(nproc)}"
fuzz_seconds="${FUZZ_SECONDS:-60}"
scope="${SANITIZE_SCOPE:-all}"
targets=()
lit_paths=("$build_dir/test")
case "$scope" in
  all) fuzzers="${FUZZERS:-module npy manifest}" ;;
  runtime)
    fuzzers="${FUZZERS:-npy manifest}"
    targets=(runtime/all fuzz/npy/all fuzz/manifest/all)
    lit_paths=("$build_dir/test/runtime/runtime.test")
    ;;
  *)
    echo "sanitize.sh: SANITIZE_SCOPE must be all or runtime (got '$scope')" >&2
    exit 2
    ;;
esac
lit="${LIT:-/usr/lib/llvm-22/bin/lit}"
# Every UBSan check, the enum one included: the C API (include/mxfp8train-c)
# takes its enumerations as int32_t and checks their range (test/CAPI passes
# out-of-range values), so no C++ enum ever holds a value outside its range.
sanitizers="-fsanitize=address,undefined -fno-sanitize=vptr"
sanitizers+=" -fno-sanitize-recover=all -fno-omit-frame-pointer"

if [ ! -f "$build_dir/build.ninja" ]; then
  launcher=()
  if command -v ccache > /dev/null; then
    launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache
              -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  fi
  # RelWithDebInfo with -O1 and line tables: symbolized reports at a build
  # time close to Release; no -DNDEBUG anywhere.
  cmake -G Ninja -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    "${launcher[@]}" \
    "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" \
    "-DCMAKE_C_FLAGS=$sanitizers" "-DCMAKE_CXX_FLAGS=$sanitizers" \
    "-DCMAKE_EXE_LINKER_FLAGS=$sanitizers" \
    "-DCMAKE_SHARED_LINKER_FLAGS=$sanitizers" \
    "-DCMAKE_MODULE_LINKER_FLAGS=$sanitizers" \
    -DMXFP8TRAIN_ENABLE_ASSERTIONS=ON -DMXFP8TRAIN_ENABLE_FUZZERS=ON
fi
ninja -C "$build_dir" -j"$jobs" "${targets[@]}"

# Every report is fatal; stack traces symbolized by llvm-symbolizer.
# allow_user_poisoning=0: llvm::BumpPtrAllocator poisons the unused part of
# its slabs in instrumented code (ours) and not in libMLIR, which shares
# allocators (StorageUniquer) with our inline code and never unpoisons what
# it hands out: memory libMLIR allocated would read as poisoned.
# allocator_may_return_null=1: a failed allocation returns null as malloc
# does, which the tools handle (test/tools/mxfp8-run/sizes.mlir checks the
# message); ASan's default is to abort.
export ASAN_SYMBOLIZER_PATH=/usr/lib/llvm-22/bin/llvm-symbolizer
export ASAN_OPTIONS="allow_user_poisoning=0:allocator_may_return_null=1:detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$root/scripts/sanitize/lsan.supp:print_suppressions=0"

lit_report="$build_dir/sanitize-lit.xml"
fuzz_report="$build_dir/sanitize-fuzz.xml"
rm -f "$lit_report" "$fuzz_report"
lit_status=0
if [ "${SANITIZE_SKIP_LIT:-0}" != 1 ]; then
  set +e
  "$lit" -sv --xunit-xml-output "$lit_report" "${lit_paths[@]}" "$@"
  lit_status=$?
  set -e
fi

# Seeds (the lit run's .npy and manifest outputs included), then each
# fuzzer for a fixed time. libFuzzer runs every seed first, then mutates.
seeds="$build_dir/fuzz-runs/seeds"
rm -rf "$seeds"
python3 "$root/scripts/fuzz-seeds.py" --out "$seeds" --build "$build_dir" \
  --module-limit "${FUZZ_MODULE_SEEDS:-24}"
fuzz_status=0
python_cases=()
for name in $fuzzers; do
  binary="$build_dir/bin/mxfp8train-$name-fuzzer"
  corpus="$build_dir/fuzz-runs/corpus/$name"
  artifacts="$build_dir/fuzz-runs/artifacts/$name"
  log="$build_dir/fuzz-runs/$name.log"
  mkdir -p "$corpus" "$artifacts"
  seconds="$fuzz_seconds"
  if [ "$name" = module ]; then
    # Its seeds alone take about two minutes under ASan on 2 cores, and
    # libFuzzer counts them in -max_total_time.
    seconds="${FUZZ_MODULE_SECONDS:-$((3 * fuzz_seconds))}"
  fi
  echo "sanitize: fuzzing $name for ${seconds}s (log: $log)"
  start=$(date +%s)
  set +e
  "$binary" -max_total_time="$seconds" -timeout=120 -rss_limit_mb=4096 \
    -seed="${FUZZ_SEED:-1}" -print_final_stats=1 -artifact_prefix="$artifacts/" \
    "$corpus" "$seeds/$name" > "$log" 2>&1
  status=$?
  set -e
  elapsed=$(( $(date +%s) - start ))
  if [ "$status" -ne 0 ]; then
    fuzz_status=1
    echo "sanitize: $name fuzzer FAILED (exit $status); last lines of $log:"
    tail -n 40 "$log"
  fi
  python_cases+=("$name" "$status" "$elapsed" "$log")
done

# The fuzzers' xunit report and their numbers (docs/robustness.md).
python3 - "$fuzz_report" "${python_cases[@]}" <<'PY'
import re
import sys
from xml.sax.saxutils import escape, quoteattr

report, rest = sys.argv[1], sys.argv[2:]
cases = []
for i in range(0, len(rest), 4):
    name, status, elapsed, log = rest[i], int(rest[i + 1]), rest[i + 2], rest[i + 3]
    text = open(log, errors="replace").read()
    runs = re.findall(r"stat::number_of_executed_units:\s*(\d+)", text)
    cov = re.findall(r"\bcov: (\d+) ft: (\d+)", text)
    corp = re.findall(r"\bcorp: (\d+)/", text)
    summary = "%s: %s runs, %s coverage edges, %s features, corpus %s, %ss, exit %d" % (
        name, runs[-1] if runs else "?", cov[-1][0] if cov else "?",
        cov[-1][1] if cov else "?", corp[-1] if corp else "?", elapsed, status)
    print("sanitize: fuzz " + summary)
    body = ""
    if status != 0:
        body = "<failure message=%s>%s</failure>" % (
            quoteattr("fuzzer exited with %d" % status), escape(text[-20000:]))
    cases.append('<testcase classname="fuzz" name=%s time="%s">%s</testcase>' % (
        quoteattr(name), elapsed, body))
with open(report, "w") as f:
    f.write('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>\n'
            '<testsuite name="fuzz" tests="%d">\n%s\n</testsuite>\n'
            '</testsuites>\n' % (len(cases), "\n".join(cases)))
PY

reports=("$fuzz_report")
if [ "${SANITIZE_SKIP_LIT:-0}" != 1 ]; then
  reports=("$lit_report" "${reports[@]}")
fi
python3 "$root/scripts/count-results.py" --status "$lit_status" \
  --status "$fuzz_status" "${reports[@]}"
