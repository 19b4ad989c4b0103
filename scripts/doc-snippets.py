#!/usr/bin/env python3
# ===- doc-snippets.py - write the tested code blocks of a guide page -----===#
#
# The user guide (docs/guide/*.md) marks the fenced code blocks that the test
# suite runs with a `file=NAME` word after the language:
#
#     ```sh file=guide.sh
#     mxfp8-opt examples/mlp_train_step_small.mlir ...
#     ```
#
# This script writes every such block of PAGE into OUTDIR/NAME; blocks naming
# the same file are concatenated in page order, so prose can sit between the
# steps of one script or program. Blocks without `file=` (sample output,
# fragments) are left alone. The lit tests under test/docs/ then run or
# compile what it wrote. Exits non-zero when PAGE has no tagged block or a
# fence is left open.
#
# Usage: doc-snippets.py PAGE OUTDIR
#
# ===----------------------------------------------------------------------===#

import os
import re
import sys

FENCE = re.compile(r"^(\s*)(```+)(.*)$")


def extract(text):
    """Returns {name: [lines]} of the blocks tagged file=NAME, in order."""
    files = {}
    current = None
    fence = None
    indent = ""
    for number, line in enumerate(text.splitlines(), start=1):
        match = FENCE.match(line)
        if fence is None:
            if not match:
                continue
            indent, fence, info = match.group(1), match.group(2), match.group(3)
            tags = dict(
                word.split("=", 1) for word in info.split()[1:] if "=" in word
            )
            current = tags.get("file")
            if current is not None:
                if not re.fullmatch(r"[A-Za-z0-9_.-]+", current):
                    raise ValueError(f"line {number}: bad file name '{current}'")
                files.setdefault(current, [])
            continue
        if match and match.group(2) == fence and not match.group(3).strip():
            fence = None
            current = None
            continue
        if current is not None:
            files[current].append(line[len(indent):] if line.startswith(indent) else line)
    if fence is not None:
        raise ValueError("a code block is not closed")
    return files


def main(argv):
    if len(argv) != 3:
        print("usage: doc-snippets.py PAGE OUTDIR", file=sys.stderr)
        return 2
    page, outdir = argv[1], argv[2]
    with open(page, encoding="utf-8") as f:
        try:
            files = extract(f.read())
        except ValueError as error:
            print(f"doc-snippets.py: {page}: {error}", file=sys.stderr)
            return 1
    if not files:
        print(f"doc-snippets.py: {page}: no block tagged file=NAME", file=sys.stderr)
        return 1
    os.makedirs(outdir, exist_ok=True)
    for name, lines in files.items():
        with open(os.path.join(outdir, name), "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        print(f"{name}: {len(lines)} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
