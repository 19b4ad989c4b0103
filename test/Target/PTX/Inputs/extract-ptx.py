#!/usr/bin/env python3
# ===- extract-ptx.py - print the PTX (or cubin) of a lowered module -------=== #
#
# Reads an MLIR module after gpu-module-to-binary and prints the PTX text of
# every `#gpu.object<..., assembly = "...">` (format=isa), unescaped, so that
# FileCheck can read it. ptxas takes one module per file: with `--split DIR`
# each binary's PTX goes to DIR/<gpu.binary name>.ptx instead. With
# `--bin OUT`, writes the bytes of the first `bin = "..."` object
# (format=bin, a cubin) to OUT instead.
#
# ===----------------------------------------------------------------------=== #

import os
import re
import sys


def unescape(text, start):
    """Bytes of the MLIR string literal whose first character is at
    `start`: a backslash is printed as two, any other byte that is not
    printable (and the quote) as \\XX."""
    out = bytearray()
    i = start
    while text[i] != '"':
        if text[i] == "\\" and text[i + 1] == "\\":
            out.append(ord("\\"))
            i += 2
        elif text[i] == "\\":
            out.append(int(text[i + 1:i + 3], 16))
            i += 3
        else:
            out.append(ord(text[i]))
            i += 1
    return bytes(out)


def main():
    args = sys.argv[1:]
    binary_out = split_dir = None
    if args[:1] == ["--bin"]:
        binary_out = args[1]
        args = args[2:]
    elif args[:1] == ["--split"]:
        split_dir = args[1]
        args = args[2:]
    text = open(args[0]).read() if args else sys.stdin.read()
    key = 'bin = "' if binary_out else 'assembly = "'
    pos = text.find(key)
    if pos < 0:
        sys.exit("extract-ptx.py: no gpu.object with %s...\" found" % key)
    if binary_out:
        with open(binary_out, "wb") as f:
            f.write(unescape(text, pos + len(key)))
        return
    while pos >= 0:
        ptx = unescape(text, pos + len(key)).decode("latin-1")
        if split_dir:
            # The name of the gpu.binary this object belongs to.
            name = re.findall(r"gpu\.binary @([\w$.]+)", text[:pos])[-1]
            os.makedirs(split_dir, exist_ok=True)
            with open(os.path.join(split_dir, name + ".ptx"), "w") as f:
                f.write(ptx)
        else:
            sys.stdout.write(ptx)
        pos = text.find(key, pos + 1)


if __name__ == "__main__":
    main()
