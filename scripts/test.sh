#!/usr/bin/env bash
#===- test.sh - build if needed and run every test --------------------------===#
#
# Builds (scripts/build.sh), then runs lit over the whole test suite of the
# build directory: FileCheck tests, the mxfp8-run tests and the GoogleTest
# binaries (run from lit RUN lines). The last line printed is
# "N passed, N failed" (", N skipped" when some were skipped), counted from
# lit's xunit report. Exits non-zero on any failure.
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
python3 "$root/scripts/count-results.py" --status "$lit_status" "$report"
