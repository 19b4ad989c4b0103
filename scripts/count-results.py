#!/usr/bin/env python3
# ===- count-results.py - one "N passed, N failed" line from xunit reports -=== #
#
# Counts the test cases of one or more xunit reports (lit's
# --xunit-xml-output, and the fuzzer report of scripts/sanitize.sh) and
# prints "N passed, N failed" (", N skipped" when some were skipped) as its
# last line. A report that is missing counts as one failure (the step that
# should have written it did not finish). Exits 1 on any failure, on a
# non-zero --status (the exit status of the step that wrote a report), or
# when nothing passed.
#
#   scripts/count-results.py [--status N]... REPORT.xml...
#
# ===------------------------------------------------------------------------=== #
import argparse
import os
import sys
import xml.etree.ElementTree as ET


def main():
    parser = argparse.ArgumentParser(description="count xunit results")
    parser.add_argument("--status", type=int, action="append", default=[],
                        help="exit status of a step (non-zero fails)")
    parser.add_argument("reports", nargs="+")
    args = parser.parse_args()

    passed = failed = skipped = 0
    for report in args.reports:
        if not os.path.isfile(report):
            print("count-results: %s is missing; counted as a failure" % report,
                  file=sys.stderr)
            failed += 1
            continue
        for case in ET.parse(report).getroot().iter("testcase"):
            if case.find("failure") is not None or case.find("error") is not None:
                failed += 1
            elif case.find("skipped") is not None:
                skipped += 1
            else:
                passed += 1
    if passed + failed + skipped == 0:
        print("count-results: no test ran", file=sys.stderr)
    line = "%d passed, %d failed" % (passed, failed)
    if skipped:
        line += ", %d skipped" % skipped
    print(line)
    bad_status = any(status != 0 for status in args.status)
    return 1 if failed or bad_status or passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
