#!/usr/bin/env python3
# ===- gemm-variants.py - ptxas resources of every GEMM kernel variant -----=== #
#
# Lowers every function of a module of GEMM forms (default:
# test/Target/PTX/Inputs/gemm-variants.mlir) for a chip with
# mxfp8train-lower-to-gpu, assembles every kernel the lowering emits with
# `ptxas -arch=CHIP -v`, and prints one row per function and kernel:
# threads per CTA, registers, spill stores/loads, stack frame, shared memory
# (ptxas's static bytes plus the dynamic bytes of the launch). A kernel
# fails when ptxas reports an error, a spill, more shared memory than one
# CTA may have (232448 B = 227 KiB on sm_90 and sm_100), or more registers
# than one SM holds for its CTA; so does a kernel the host code launches
# that is missing from the PTX, or a PTX entry ptxas did not compile.
# Functions the lowering rejects for the chip are listed as `not lowered`
# with the diagnostic (not a failure). Nothing names a kernel: whatever the
# lowering emits is checked.
#
#   scripts/gemm-variants.py [MODULE] --chip sm_100a [--chip sm_90a]
#       [--build build] [--ptxas PATH] [--markdown] [--only FUNC ...]
#
# The last line per chip is a summary for scripts and lit; exit status 1
# when a kernel fails, 2 when a tool fails. `--markdown` prints the tables
# of docs/gemm-variants.md. Needs only Python 3, mxfp8-opt and ptxas.
#
# ===----------------------------------------------------------------------=== #

import argparse
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_MODULE = os.path.join(ROOT, "test", "Target", "PTX", "Inputs",
                              "gemm-variants.mlir")
# Shared memory one CTA may use on sm_90 and sm_100 (227 KiB: the 228 KiB
# of an SM less the 1 KiB the hardware reserves per CTA).
MAX_SMEM = 232448
# 32-bit registers of one SM (and the most one CTA may hold).
SM_REGISTERS = 65536


def fail(message):
    print("gemm-variants: error: " + message, file=sys.stderr)
    sys.exit(2)


def unescape(text, start):
    """Bytes of the MLIR string literal whose first character is at `start`:
    test/Target/PTX/Inputs/extract-ptx.py's `unescape`, loaded as a module."""
    import importlib.util
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        "test", "Target", "PTX", "Inputs", "extract-ptx.py")
    spec = importlib.util.spec_from_file_location("extract_ptx", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.unescape(text, start)


def split_functions(text):
    """The module's `func.func`s as {name: (first line, last line)}, 1-based,
    a function ending where its braces balance (no braces in strings)."""
    lines = text.split("\n")
    spans = {}
    i = 0
    while i < len(lines):
        m = re.match(r"\s*func\.func\s+(?:(?:public|private)\s+)?@([\w$.]+)\(",
                     lines[i])
        if not m:
            i += 1
            continue
        depth, j, opened = 0, i, False
        while j < len(lines):
            code = lines[j].split("//")[0]
            depth += code.count("{") - code.count("}")
            opened = opened or "{" in code
            if opened and depth <= 0:
                break
            j += 1
        spans[m.group(1)] = (i + 1, j + 1)
        i = j + 1
    return spans


def keep_functions(text, spans, names):
    """`text` without the functions that are not in `names`."""
    lines = text.split("\n")
    drop = set()
    for name, (first, last) in spans.items():
        if name not in names:
            drop.update(range(first - 1, last))
    return "\n".join(l for i, l in enumerate(lines) if i not in drop) + "\n"


def run_opt(opt, path, *passes):
    proc = subprocess.run([opt, path] + list(passes), capture_output=True,
                          text=True)
    return proc.returncode, proc.stdout, proc.stderr


def lower_each(opt, text, spans, names, chip, tmp):
    """Converts the functions `names` for `chip`, dropping those the pass
    rejects. Returns (converted host IR, path of the module of the lowered
    functions, {function: diagnostic} of those not lowered)."""
    rejected = {}
    names = set(names)
    while names:
        path = os.path.join(tmp, "variants-%s.mlir" % chip)
        with open(path, "w") as f:
            f.write(keep_functions(text, spans, names))
        rc, out, err = run_opt(opt, path, "--convert-mxfp8train-to-gpu=chip=%s"
                               % chip)
        if rc == 0:
            rc, out, err = run_opt(opt, path,
                                   "--convert-mxfp8train-to-gpu=chip=%s" % chip,
                                   "--canonicalize")
            return out, path, rejected
        # The errors name lines of the filtered file; map them back.
        fspans = split_functions(open(path).read())
        dropped = False
        for m in re.finditer(r"^[^\n:]*:(\d+):\d+: error: (.*)$", err, re.M):
            line = int(m.group(1))
            for name, (first, last) in fspans.items():
                if first <= line <= last and name in names:
                    rejected[name] = m.group(2)
                    names.discard(name)
                    dropped = True
        if not dropped:
            fail("convert-mxfp8train-to-gpu failed for %s:\n%s" % (chip, err))
    return "", None, rejected


def parse_launches(conv):
    """{host function: [(kernel, threads, dynamic smem bytes)]} of the
    converted module (constants are function-local after canonicalize)."""
    result = {}
    parts = re.split(r"^\s*func\.func\s+@([\w$.]+)\(", conv, flags=re.M)
    for name, body in zip(parts[1::2], parts[2::2]):
        body = body.split("gpu.module")[0]
        consts = dict(re.findall(r"(%[\w]+) = arith\.constant (\d+) : (?:index|i32|i64)",
                                 body))
        launches = []
        # Cluster launches (the 2-CTA tcgen05 kernel) name the cluster
        # first.
        pattern = (r"gpu\.launch_func\s+@\w+::@(\w+)\s+"
                   r"(?:clusters in \([^)]*\)\s+)?blocks in \([^)]*\)\s+"
                   r"threads in \((%\w+), (%\w+), (%\w+)\)\s*"
                   r"(?:dynamic_shared_memory_size (%\w+))?")
        for m in re.finditer(pattern, body):
            dims = [consts.get(ssa) for ssa in m.group(2, 3, 4)]
            threads = None
            if None not in dims:
                threads = int(dims[0]) * int(dims[1]) * int(dims[2])
            dyn = 0
            if m.group(5):
                dyn = int(consts[m.group(5)]) if m.group(5) in consts else None
            launches.append((m.group(1), threads, dyn))
        result[name] = launches
    return result


def parse_ptxas(log):
    """{kernel: resources} of `ptxas -v` output."""
    kernels = {}
    current = None
    for line in log.split("\n"):
        m = re.search(r"Compiling entry function '([^']+)'", line)
        if m:
            current = kernels.setdefault(m.group(1), {})
            continue
        if current is None:
            continue
        m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, "
                      r"(\d+) bytes spill loads", line)
        if m:
            current.update(stack=int(m.group(1)), spill_stores=int(m.group(2)),
                           spill_loads=int(m.group(3)))
        m = re.search(r"Used (\d+) registers", line)
        if m:
            current["registers"] = int(m.group(1))
            s = re.search(r"(\d+) bytes smem", line)
            current["smem"] = int(s.group(1)) if s else 0
    return kernels


def check_chip(args, text, spans, chip, tmp):
    """Rows and the summary of one chip."""
    selected = args.only or list(spans)
    conv, lowered_path, rejected = lower_each(args.opt, text, spans, selected,
                                              chip, tmp)
    launches = parse_launches(conv) if conv else {}
    entries, resources, ptxas_problems = [], {}, ""
    if lowered_path:
        rc, low, err = run_opt(args.opt, lowered_path,
                               "--mxfp8train-lower-to-gpu=chip=%s format=isa" % chip)
        if rc != 0:
            fail("mxfp8train-lower-to-gpu failed for %s:\n%s" % (chip, err))
        key = 'assembly = "'
        ptx = ""
        pos = low.find(key)
        while pos >= 0:
            ptx += unescape(low, pos + len(key)).decode("latin-1")
            pos = low.find(key, pos + 1)
        entries = re.findall(r"^\s*(?:\.visible\s+)?\.entry\s+([\w$]+)\(", ptx, re.M)
        ptx_path = os.path.join(tmp, "kernels-%s.ptx" % chip)
        with open(ptx_path, "w") as f:
            f.write(ptx)
        proc = subprocess.run([args.ptxas, "-arch=" + chip, "-v", ptx_path, "-o",
                               os.path.join(tmp, "kernels-%s.cubin" % chip)]
                              + args.ptxas_arg, capture_output=True, text=True)
        log = proc.stdout + proc.stderr
        resources = parse_ptxas(log)
        # Errors and warnings (e.g. an ignored setmaxnreg) fail the chip.
        noisy = [l.strip() for l in log.split("\n")
                 if re.search(r"\b(error|warning)\b", l, re.I)]
        if proc.returncode != 0 or noisy:
            ptxas_problems = ("exit %d: " % proc.returncode +
                              "; ".join(noisy))[:400]
    rows, seen = [], set()

    def judge(row, res, threads, dyn):
        """Fills `row` from the ptxas resources `res` and judges it."""
        problems = []
        if row["kernel"] not in entries:
            problems.append("not in the PTX")
        if "registers" not in res:
            problems.append("ptxas did not compile it")
        else:
            row.update(res)
            row["total_smem"] = res["smem"] + (dyn or 0)
            if res.get("spill_stores", 0) or res.get("spill_loads", 0):
                problems.append("spills")
            if row["total_smem"] > args.max_smem:
                problems.append("shared memory %d > %d" % (row["total_smem"],
                                                           args.max_smem))
            if threads and res["registers"] * threads > SM_REGISTERS:
                problems.append("%d registers x %d threads > %d" % (
                    res["registers"], threads, SM_REGISTERS))
        if dyn is None:
            problems.append("dynamic shared memory not a constant")
        row["status"] = "FAIL" if problems else "ok"
        row["note"] = ", ".join(problems)
        rows.append(row)
        seen.add(row["kernel"])

    for name in sorted(selected, key=lambda n: spans[n]):
        if name in rejected:
            rows.append(dict(function=name, kernel="-", status="not lowered",
                             note=rejected[name]))
            continue
        for kernel, threads, dyn in launches.get(name, []):
            judge(dict(function=name, kernel=kernel, threads=threads, dyn=dyn),
                  resources.get(kernel, {}), threads, dyn)
    # A PTX entry that no host function launches is checked all the same.
    for kernel in entries:
        if kernel not in seen:
            judge(dict(function="(no launch)", kernel=kernel, threads=None, dyn=0),
                  resources.get(kernel, {}), None, 0)
    if ptxas_problems:
        rows.append(dict(function="(ptxas)", kernel="-", status="FAIL",
                         note=ptxas_problems))
    failures = sum(r["status"] == "FAIL" for r in rows)
    unique = {r["kernel"]: r for r in rows if r["kernel"] != "-"}
    spills = sum(r.get("spill_stores", 0) + r.get("spill_loads", 0)
                 for r in unique.values())
    max_smem = max([r.get("total_smem", 0) for r in unique.values()] or [0])
    lowered = len([n for n in selected if n not in rejected])
    summary = ("summary: chip=%s functions=%d lowered=%d kernels=%d spill_bytes=%d "
               "max_smem=%d limit=%d failures=%d" % (
                   chip, len(selected), lowered, len(seen), spills,
                   max_smem, args.max_smem, failures))
    return rows, summary, failures


MARKDOWN_HEAD = """# GEMM kernel variants: registers, spills, shared memory

Generated by `python3 scripts/gemm-variants.py %s --markdown >
docs/gemm-variants.md` (ptxas: %s) from
`test/Target/PTX/Inputs/gemm-variants.mlir`: every function lowered with
`mxfp8train-lower-to-gpu`, every kernel the lowering emits assembled with
`ptxas -v`. One row per function and kernel it launches (a kernel shared by
several functions is assembled once). Shared memory is ptxas's static
bytes (it counts the dynamic-shared-memory symbol as 1 byte) plus the
dynamic bytes of the launch; a CTA may have 232448 (227 KiB). `FAIL` marks
a spill, too much shared memory, or more registers than an SM holds for the
CTA; `not lowered` a form the chip has no kernel for. The lit test
`test/Target/PTX/gemm-variants-sm100a.test` runs the sm_100a table and
fails on any `FAIL`.
"""


def fmt(value):
    return "-" if value is None else str(value)


def print_text(chip, rows, summary):
    print("== %s" % chip)
    head = ("function", "kernel", "threads", "regs", "spill st/ld", "stack",
            "smem static+dyn=total", "status")
    fmt_row = "%-22s %-68s %7s %5s %11s %5s %22s  %s"
    print(fmt_row % head)
    for r in rows:
        if r["kernel"] == "-":
            print(fmt_row % (r["function"], "-", "-", "-", "-", "-", "-",
                             "%s: %s" % (r["status"], r["note"])))
            continue
        smem = "%s+%s=%s" % (fmt(r.get("smem")), fmt(r.get("dyn")),
                             fmt(r.get("total_smem")))
        spill = "%s/%s" % (fmt(r.get("spill_stores")), fmt(r.get("spill_loads")))
        status = r["status"] + (": " + r["note"] if r.get("note") else "")
        print(fmt_row % (r["function"], r["kernel"], fmt(r.get("threads")),
                         fmt(r.get("registers")), spill, fmt(r.get("stack")),
                         smem, status))
    print(summary)


def print_markdown(chip, rows, summary):
    print("### %s\n" % chip)
    print("| function | kernel | threads | registers | spill st/ld (B) | "
          "stack (B) | smem static + dynamic = total (B) | status |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        if r["kernel"] == "-":
            print("| %s | - | | | | | | %s: %s |" % (r["function"], r["status"],
                                                    r["note"].replace("|", "\\|")))
            continue
        status = r["status"] + (": " + r["note"] if r.get("note") else "")
        print("| %s | `%s` | %s | %s | %s / %s | %s | %s + %s = %s | %s |" % (
            r["function"], r["kernel"], fmt(r.get("threads")),
            fmt(r.get("registers")), fmt(r.get("spill_stores")),
            fmt(r.get("spill_loads")), fmt(r.get("stack")), fmt(r.get("smem")),
            fmt(r.get("dyn")), fmt(r.get("total_smem")), status))
    print("\n`%s`\n" % summary)


def main():
    parser = argparse.ArgumentParser(
        description="ptxas resources of every GEMM kernel the lowering emits")
    parser.add_argument("module", nargs="?", default=DEFAULT_MODULE)
    parser.add_argument("--chip", action="append", default=[],
                        help="sm_100a (default) or sm_90a; repeatable")
    parser.add_argument("--build", default=os.path.join(ROOT, "build"),
                        help="build with bin/mxfp8-opt")
    parser.add_argument("--mxfp8-opt", dest="opt", default=None)
    parser.add_argument("--ptxas", default=os.path.join(
        os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "ptxas"))
    parser.add_argument("--ptxas-arg", action="append", default=[],
                        help="extra ptxas option (e.g. --maxrregcount=32)")
    parser.add_argument("--max-smem", type=int, default=MAX_SMEM)
    parser.add_argument("--only", action="append", default=[],
                        help="check this function only; repeatable")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    args.chip = args.chip or ["sm_100a"]
    args.opt = args.opt or os.path.join(args.build, "bin", "mxfp8-opt")
    for tool in (args.opt, args.ptxas):
        if not os.access(tool, os.X_OK):
            fail("no executable %s" % tool)
    text = open(args.module).read()
    spans = split_functions(text)
    for name in args.only:
        if name not in spans:
            fail("no function @%s in %s" % (name, args.module))
    if args.markdown:
        out = subprocess.run([args.ptxas, "--version"], capture_output=True,
                             text=True).stdout
        version = (re.findall(r"release [\d.]+, V[\d.]+", out) or ["?"])[0]
        print(MARKDOWN_HEAD % (" ".join("--chip " + c for c in args.chip),
                               version))
    total = 0
    with tempfile.TemporaryDirectory() as tmp:
        for chip in args.chip:
            rows, summary, failures = check_chip(args, text, spans, chip, tmp)
            (print_markdown if args.markdown else print_text)(chip, rows, summary)
            total += failures
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
