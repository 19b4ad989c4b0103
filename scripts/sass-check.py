#!/usr/bin/env python3
# ===- sass-check.py - SASS instruction counts per kernel, and expectations -=== #
#
# Disassembles cubins with `cuobjdump -sass` (CUDA 13 reads sm_100a cubins;
# the GPU machine has it, this machine need not) or reads saved SASS text,
# and prints one row per kernel: registers and static shared memory
# (`cuobjdump -res-usage`), the instruction count, the instructions that
# make a Blackwell GEMM (UTCQMMA/UTCHMMA tcgen05 MMAs, UTCCP scale copies to
# tensor memory, UTMALDG/UBLKCP TMA loads, UTCBAR tcgen05 commits, LDTM
# tensor-memory loads, BAR, SYNCS mbarrier operations), the CUDA-core and
# Hopper ones (FFMA, HMMA, HGMMA/QGMMA), local memory (LDL/STL), and its
# mainloops: the innermost loops that hold a tcgen05 MMA (elect loops, whose
# back edge is BRA.U.ANY, do not count), with their MMA counts.
#
# With --expect FILE (default lib/Conversion/MXFP8TrainToGPU/
# sass-expectations.txt) every kernel is checked against the rules there
# (the file says how to write one); a kernel that no rule matches fails.
#
#   scripts/sass-check.py CUBIN... [--cuobjdump PATH] [--expect FILE]
#   scripts/sass-check.py --sass FILE... [--expect FILE]
#
# Last line: `summary: kernels=N checked=N failures=N unused_rules=N`.
# Exit status 1 when a check fails, 2 when a tool or file is missing.
# Standard library only.
#
# ===----------------------------------------------------------------------=== #

import argparse
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_EXPECT = os.path.join(ROOT, "lib", "Conversion", "MXFP8TrainToGPU",
                              "sass-expectations.txt")
COLUMNS = ["UTCQMMA", "UTCHMMA", "UTCCP", "UTMALDG", "UBLKCP", "UTCBAR",
           "LDTM", "BAR", "SYNCS", "FFMA", "HMMA", "HGMMA", "QGMMA", "LDL",
           "STL"]
# The tcgen05 MMAs: what a mainloop is found by.
MMA = ("UTCQMMA", "UTCHMMA", "UTCIMMA", "UTCOMMA")


def fail(message):
    print("sass-check: error: " + message, file=sys.stderr)
    sys.exit(2)


# ---------------------------------------------------------------------------
# SASS text
# ---------------------------------------------------------------------------

INSTR = re.compile(r"^\s*/\*([0-9a-fA-F]+)\*/\s+(.*?)\s*;")
FUNCTION = re.compile(r"^\s*Function\s*:\s*(\S+)")


def parse_sass(text):
    """{kernel: [(address, predicate, opcode, operands)]} of cuobjdump -sass
    output (the encoding comments after each instruction are ignored)."""
    kernels, current = {}, None
    for line in text.split("\n"):
        m = FUNCTION.match(line)
        if m:
            current = kernels.setdefault(m.group(1), [])
            continue
        m = INSTR.match(line)
        if not m or current is None:
            continue
        body = m.group(2)
        pred = ""
        pm = re.match(r"(@!?U?P[T\d]+)\s+(.*)", body)
        if pm:
            pred, body = pm.group(1), pm.group(2)
        parts = body.split(None, 1)
        current.append((int(m.group(1), 16), pred, parts[0],
                        parts[1] if len(parts) > 1 else ""))
    return kernels


def base(opcode):
    return opcode.split(".")[0]


def parse_res_usage(text):
    """{kernel: {"REG": n, "SHARED": n, ...}} of cuobjdump -res-usage."""
    result, current = {}, None
    for line in text.split("\n"):
        m = re.match(r"\s*Function\s+([^:\s]+):", line)
        if m:
            current = result.setdefault(m.group(1), {})
            continue
        if current is not None:
            for key, value in re.findall(r"(\w+(?:\[\d+\])?):(\d+)", line):
                current[key] = int(value)
    return result


# ---------------------------------------------------------------------------
# Control flow: blocks, dominators, natural loops
# ---------------------------------------------------------------------------


def branch_target(opcode, operands):
    if base(opcode) not in ("BRA", "JMP", "BRX", "JMX", "CALL"):
        return None
    m = re.findall(r"0x([0-9a-fA-F]+)", operands)
    return int(m[-1], 16) if m else None


def loops_of(instrs):
    """Natural loops as (header address, set of instruction indices), in no
    order; elect loops (back edge BRA.U.ANY) are left out, and so are the
    out-of-line copies that a BRA.DIV enters."""
    if not instrs:
        return []
    index = {addr: i for i, (addr, _, _, _) in enumerate(instrs)}
    leaders = {0}
    for i, (addr, pred, op, ops) in enumerate(instrs):
        b = base(op)
        target = branch_target(op, ops)
        if b in ("BRA", "JMP", "BRX", "JMX", "EXIT", "RET", "KILL"):
            leaders.add(i + 1)
        if target is not None and target in index and b != "CALL":
            leaders.add(index[target])
    leaders = sorted(l for l in leaders if l < len(instrs))
    blocks = []  # (first, last) instruction indices
    for j, first in enumerate(leaders):
        last = (leaders[j + 1] if j + 1 < len(leaders) else len(instrs)) - 1
        blocks.append((first, last))
    block_of = {}
    for b, (first, last) in enumerate(blocks):
        for i in range(first, last + 1):
            block_of[i] = b
    succ = [set() for _ in blocks]
    back_op = {}
    for b, (first, last) in enumerate(blocks):
        addr, pred, op, ops = instrs[last]
        kind = base(op)
        target = branch_target(op, ops)
        # A branch is unconditional without a predicate prefix and with the
        # target as its only operand.
        conditional = bool(pred) or not re.fullmatch(r"\s*0x[0-9a-fA-F]+\s*", ops or "")
        falls = True
        if kind in ("BRA", "JMP") and target is not None:
            if target in index:
                succ[b].add(block_of[index[target]])
                back_op[(b, block_of[index[target]])] = op
            falls = conditional
        elif kind in ("EXIT", "RET", "KILL"):
            falls = bool(pred)
        elif kind in ("BRX", "JMX"):
            falls = True  # indirect: the targets are unknown
        if falls and b + 1 < len(blocks):
            succ[b].add(b + 1)
    # Dominators (iterative) from a virtual entry that leads to block 0 and
    # to every block without predecessors: code reached only through an
    # indirect branch (a BRX jump table of warp roles) is analysed too.
    n = len(blocks)
    pred_of = [set() for _ in range(n + 1)]
    for b in range(n):
        for s in succ[b]:
            pred_of[s].add(b)
    roots = {0} | {b for b in range(n) if not pred_of[b]}
    succ.append(roots)
    for r in roots:
        pred_of[r].add(n)
    reachable, stack = {n}, [n]
    while stack:
        for s in succ[stack.pop()]:
            if s not in reachable:
                reachable.add(s)
                stack.append(s)
    dom = [set(reachable) for _ in range(n + 1)]
    dom[n] = {n}
    changed = True
    while changed:
        changed = False
        for b in sorted(reachable):
            if b == n:
                continue
            ps = [dom[p] for p in pred_of[b] if p in reachable]
            new = set.intersection(*ps) | {b} if ps else {b}
            if new != dom[b]:
                dom[b], changed = new, True
    reachable.discard(n)
    loops = {}
    for b in reachable:
        for s in succ[b]:
            if s in dom[b] and base(back_op.get((b, s), "")) == "BRA" and \
                    ".ANY" not in back_op.get((b, s), ""):
                # The natural loop: the header, the latch and every block
                # that reaches the latch without passing the header.
                body, work = {s}, []
                if b != s:
                    body.add(b)
                    work.append(b)
                while work:
                    x = work.pop()
                    for p in pred_of[x]:
                        if p not in body and p in reachable:
                            body.add(p)
                            work.append(p)
                loops.setdefault(s, set()).update(body)
    # ptxas copies a warp-collective region out of line for when the warp
    # has diverged (entered by BRA.DIV); those copies run instead of the
    # region, so the blocks a BRA.DIV target dominates are not counted.
    div_targets = {t for (b, t), op in back_op.items() if ".DIV" in op}
    copies = {x for x in reachable if dom[x] & div_targets}
    result = []
    for header, body in loops.items():
        idx = set()
        for blk in body - copies:
            idx.update(range(blocks[blk][0], blocks[blk][1] + 1))
        result.append((instrs[blocks[header][0]][0], idx))
    return result


def counts(instrs, indices=None):
    result = {}
    for i, (_, _, op, _) in enumerate(instrs):
        if indices is None or i in indices:
            result[base(op)] = result.get(base(op), 0) + 1
    return result


def mainloops(instrs):
    """The innermost loops that hold a tcgen05 MMA, as (header, counts)."""
    loops = [(h, idx) for h, idx in loops_of(instrs)
             if any(base(instrs[i][2]) in MMA for i in idx)]
    inner = [(h, idx) for h, idx in loops
             if not any(o is not idx and o < idx for _, o in loops)]
    return [(h, counts(instrs, idx)) for h, idx in sorted(inner, key=lambda x: x[0])]


# ---------------------------------------------------------------------------
# Expectations
# ---------------------------------------------------------------------------

TERM = re.compile(r"^([A-Z][A-Z0-9_]*(?:\+[A-Z][A-Z0-9_]*)*)(=|>=|<=)(\d+)(?:-(\d+))?$")



def parse_term(text):
    """(names, lo, hi, text) of `A+B>=N`-style text (hi None: unbounded),
    or None."""
    m = TERM.match(text)
    if not m:
        return None
    names, rel, a, b = m.group(1).split("+"), m.group(2), int(m.group(3)), m.group(4)
    if rel == "=":
        return names, a, int(b) if b is not None else a, text
    if rel == ">=":
        return names, a, None, text
    return names, 0, a, text


def parse_rules(path):
    """[(line number, regex, scope, condition, [terms])] of an expectations
    file (the file's header says how a rule is written)."""
    rules = []
    for number, line in enumerate(open(path), 1):
        line = line.split("#")[0].strip()
        if not line:
            continue
        fields = line.split()
        if len(fields) < 3 or fields[1] not in ("kernel", "stage"):
            fail("%s:%d: expected 'KERNEL_REGEX kernel|stage [if TERM] TERM...'"
                 % (path, number))
        rest, condition = fields[2:], None
        if rest[0] == "if":
            condition = parse_term(rest[1]) if len(rest) > 2 else None
            if condition is None:
                fail("%s:%d: 'if' needs a term and at least one term after it"
                     % (path, number))
            rest = rest[2:]
        terms = []
        for text in rest:
            term = parse_term(text)
            if term is None:
                fail("%s:%d: bad term '%s' (NAME=N, NAME=LO-HI, NAME>=N, "
                     "NAME<=N; NAME may be A+B)" % (path, number, text))
            terms.append(term)
        if fields[1] == "stage" and (terms[0][1] != terms[0][2] or terms[0][1] == 0):
            fail("%s:%d: a stage rule starts with an exact nonzero count "
                 "(the anchor), e.g. UTCQMMA=4" % (path, number))
        try:
            regex = re.compile(fields[0])
        except re.error as ex:
            fail("%s:%d: bad regex: %s" % (path, number, ex))
        rules.append((number, regex, fields[1], condition, terms))
    return rules


def check_terms(found, terms, scale=1):
    """Failed terms of `terms` against the counts `found`, bounds times
    `scale`."""
    bad = []
    for names, lo, hi, text in terms:
        value = sum(found.get(n, 0) for n in names)
        if value < lo * scale or (hi is not None and value > hi * scale):
            bad.append("%s is %d%s" % (text, value,
                                       " (x%d stages)" % scale if scale != 1 else ""))
    return bad


def check_kernel(name, instrs, rules, used):
    """(some rule applied, [problems]) of the kernel `name`; adds the line
    numbers of the rules that applied to `used`."""
    problems, matched = [], False
    total = counts(instrs)
    for number, regex, scope, condition, terms in rules:
        if not regex.fullmatch(name):
            continue
        # A rule applies when its condition holds over the kernel; a stage
        # rule, when the kernel has its anchor instruction at all.
        if condition and check_terms(total, [condition]):
            continue
        if scope == "stage" and not sum(total.get(a, 0) for a in terms[0][0]):
            continue
        matched = True
        used.add(number)
        if scope == "kernel":
            problems += ["line %d: %s" % (number, b) for b in check_terms(total, terms)]
            continue
        anchor, per_stage = terms[0][0], terms[0][1]
        loops = [(h, c) for h, c in mainloops(instrs)
                 if sum(c.get(a, 0) for a in anchor) > 0]
        if not loops:
            problems.append("line %d: no mainloop with %s" % (number, "+".join(anchor)))
        for header, found in loops:
            value = sum(found.get(a, 0) for a in anchor)
            if value % per_stage:
                problems.append("line %d: loop at 0x%x has %d %s, not a multiple of %d"
                                % (number, header, value, "+".join(anchor), per_stage))
                continue
            stages = value // per_stage
            problems += ["line %d: loop at 0x%x: %s" % (number, header, b)
                         for b in check_terms(found, terms[1:], stages)]
    return matched, problems


# ---------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------


def mangled_words(text):
    """The source names inside an Itanium-mangled name (`<length><name>`),
    each with the integer literals (`Li128E`) met before the next name."""
    words, i = [], 0
    token = re.compile(r"(S[0-9A-Z]*_|T[0-9]*_)|(L[a-z]+(\d+)E)|(\d+)")
    while i < len(text):
        m = token.match(text, i)
        if not m:
            i += 1
        elif m.group(1):
            i = m.end()
        elif m.group(2):
            if words:
                words[-1][1].append(m.group(3))
            i = m.end()
        else:
            length, start = int(m.group(4)), m.end()
            words.append((text[start:start + length], []))
            i = start + length
    return [w + ("<%s>" % ",".join(a) if a else "") for w, a in words]


def describe(name):
    """A long kernel name: demangled by cu++filt where found, and the words
    that tell CUTLASS kernels apart (schedule, MMA atom with its tile)."""
    text = name.split("@")[0]
    path = shutil.which("cu++filt") or os.path.join(
        os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "cu++filt")
    demangled = text
    if os.access(path, os.X_OK):
        demangled = subprocess.run([path, text], capture_output=True,
                                   text=True).stdout.strip() or text
    words = []
    for word in mangled_words(text):
        if re.search(r"Sm100|SM100|1Sm|2Sm|BlockScaled|WarpSpecialized|MMA_", word) \
                and word not in words:
            words.append(word)
    return "%s ... %s" % (demangled[:70], " ".join(words[:8]))


def find_cuobjdump(explicit):
    if explicit:
        return explicit
    for candidate in (shutil.which("cuobjdump"),
                      os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"),
                                   "bin", "cuobjdump")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    fail("no cuobjdump (PATH, $CUDA_HOME/bin); --cuobjdump PATH")


def main():
    parser = argparse.ArgumentParser(
        description="SASS instruction counts per kernel, checked against expectations")
    parser.add_argument("cubins", nargs="*")
    parser.add_argument("--sass", action="append", default=[],
                        help="a saved `cuobjdump -sass` listing; repeatable")
    parser.add_argument("--cuobjdump", default=None)
    parser.add_argument("--expect", default=DEFAULT_EXPECT,
                        help="expectations file ('' or 'none': no checks)")
    parser.add_argument("--dump", metavar="DIR",
                        help="also write each cubin's SASS to DIR/<cubin>.sass")
    parser.add_argument("--width", type=int, default=60,
                        help="kernel name column width (longer names are cut)")
    parser.add_argument("--only", metavar="REGEX",
                        help="only kernels whose name this regex finds")
    parser.add_argument("--label", default="",
                        help="prefix of the kernel names shown (e.g. 'ours:')")
    parser.add_argument("--legend", action="store_true",
                        help="show names longer than --width as LABELk<i> and "
                        "list them after the table, demangled (cu++filt) with "
                        "the schedule and shape words they hold")
    args = parser.parse_args()
    if not args.cubins and not args.sass:
        parser.error("no cubin and no --sass file")

    # Kernels by name; one name with another instruction sequence in another
    # cubin (the upstream-mapped `F_kernel`s of each gpu.module) is kept as
    # NAME@CUBIN, and its rules are NAME's.
    kernels, res = {}, {}

    def opcodes(instrs):
        return [op for _, _, op, _ in instrs]

    def add(name, instrs, source):
        key = name
        if key in kernels and opcodes(kernels[key][1]) != opcodes(instrs):
            key = "%s@%s" % (name, source)
            if key in kernels:
                return
        if args.only and not re.search(args.only, name):
            return
        kernels.setdefault(key, (name, instrs))

    for path in args.sass:
        for name, instrs in parse_sass(open(path).read()).items():
            add(name, instrs, os.path.basename(path))
    if args.cubins:
        tool = find_cuobjdump(args.cuobjdump)
        for path in args.cubins:
            proc = subprocess.run([tool, "-sass", path], capture_output=True, text=True)
            if proc.returncode != 0:
                fail("%s -sass %s: %s" % (tool, path, proc.stderr.strip()[:300]))
            if args.dump:
                os.makedirs(args.dump, exist_ok=True)
                with open(os.path.join(args.dump, os.path.basename(path) + ".sass"), "w") as f:
                    f.write(proc.stdout)
            for name, instrs in parse_sass(proc.stdout).items():
                add(name, instrs, os.path.basename(path))
            usage = subprocess.run([tool, "-res-usage", path], capture_output=True,
                                   text=True).stdout
            for name, values in parse_res_usage(usage).items():
                res.setdefault(name, values)

    rules = []
    if args.expect and args.expect != "none":
        if not os.path.exists(args.expect):
            fail("no expectations file %s" % args.expect)
        rules = parse_rules(args.expect)

    w = args.width
    head = "%-*s %5s %7s %6s " % (w, "kernel", "regs", "shared", "instrs")
    head += " ".join("%7s" % c for c in COLUMNS) + "  mainloops (MMA per loop)  check"
    print(head)
    used, failures, checked = set(), 0, 0
    legend = []
    for key in sorted(kernels):
        name, instrs = kernels[key]
        total = counts(instrs)
        r = res.get(name, {})
        loops = mainloops(instrs)
        loop_text = ",".join("0x%x:%d" % (h, sum(c.get(m, 0) for m in MMA))
                             for h, c in loops) or "-"
        status = "-"
        if rules:
            matched, problems = check_kernel(name, instrs, rules, used)
            checked += 1
            if not matched:
                problems = ["no rule applies"]
            status = "ok" if not problems else "FAIL: " + "; ".join(problems)
            failures += bool(problems)
        shown = args.label + key
        if len(shown) > w and args.legend:
            legend.append(key)
            shown = "%sk%d" % (args.label, len(legend))
        shown = shown if len(shown) <= w else shown[:w - 3] + "..."
        line = "%-*s %5s %7s %6d " % (w, shown, r.get("REG", "-"), r.get("SHARED", "-"),
                                      len(instrs))
        line += " ".join("%7d" % total.get(c, 0) for c in COLUMNS)
        print(line + "  %-24s  %s" % (loop_text, status))
    for i, key in enumerate(legend, 1):
        print("%sk%d = %s" % (args.label, i, describe(key)))
    unused = [rule[0] for rule in rules if rule[0] not in used]
    for number in unused:
        print("note: rule of line %d matched no kernel" % number)
    print("summary: kernels=%d checked=%d failures=%d unused_rules=%d" % (
        len(kernels), checked, failures, len(unused)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
