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
python3 - "$report" "$lit_status" <<'PY'
import sys
import xml.etree.ElementTree as ET

cases = ET.parse(sys.argv[1]).getroot().iter("testcase")
passed = failed = skipped = 0
for case in cases:
    if case.find("failure") is not None or case.find("error") is not None:
        failed += 1
    elif case.find("skipped") is not None:
        skipped += 1
    else:
        passed += 1
lit_status = int(sys.argv[2])
line = "%d passed, %d failed" % (passed, failed)
if skipped:
    line += ", %d skipped" % skipped
if passed + failed + skipped == 0:
    print("test.sh: lit ran no test", file=sys.stderr)
print(line)
sys.exit(1 if failed or lit_status or passed == 0 else 0)
PY
