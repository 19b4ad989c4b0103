#!/usr/bin/env bash
#===- test.sh - build if needed and run every test --------------------------===#
#
# Builds (scripts/build.sh, which also installs the Python package), then
# runs lit over the whole test suite of the build directory (FileCheck
# tests, the mxfp8-run tests, the C API programs and the GoogleTest binaries
# run from lit RUN lines) and pytest over python/tests. The last line printed
# is "N passed, N failed" (", N skipped" when some were skipped), counted
# from both xunit reports. Exits non-zero on any failure.
# MXFP8TRAIN_PYTHON=OFF leaves the Python package and its tests out.
# Extra arguments go to lit (e.g. --filter=mxfp8-run).
#
#===------------------------------------------------------------------------===#
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${BUILD_DIR:-$root/build}"
export BUILD_DIR="$build_dir"
lit="${LIT:-/usr/lib/llvm-22/bin/lit}"

bash "$root/scripts/build.sh"

report="$build_dir/test-results.xml"
rm -f "$report"
set +e
"$lit" -sv --xunit-xml-output "$report" "$build_dir/test" "$@"
lit_status=$?
set -e

if [ ! -f "$report" ]; then
  echo "test.sh: lit wrote no report (exit status $lit_status)" >&2
  exit 1
fi

reports=("$report")
statuses=(--status "$lit_status")
if [ "${MXFP8TRAIN_PYTHON:-ON}" != OFF ]; then
  py_report="$build_dir/python-test-results.xml"
  rm -f "$py_report"
  set +e
  # From the repository root: python/ itself must not shadow the installed
  # package on sys.path.
  (cd "$root" && MXFP8TRAIN_BUILD_DIR="$build_dir" python3 -m pytest -q \
    -p no:cacheprovider --junitxml="$py_report" python/tests)
  py_status=$?
  set -e
  reports+=("$py_report")
  statuses+=(--status "$py_status")
fi
python3 "$root/scripts/count-results.py" "${statuses[@]}" "${reports[@]}"
