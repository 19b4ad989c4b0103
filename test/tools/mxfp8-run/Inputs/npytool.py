#!/usr/bin/env python3
"""Independent .npy helper for the mxfp8-run tests (no NumPy needed).

Subcommands:
  dump FILE [--bf16]          print descr, shape and every value
  stats FILE STD [--bf16]     check that FILE looks like normal(0, STD) samples
  sqnr REF OUT [--bf16]       print SQNR (dB) and max abs error of OUT vs REF
  same A B / differ A B       exit 0 iff the two files are (not) byte-identical
  negated A B                 exit 0 iff B == -A elementwise (same descr/shape)
  write FILE DESCR SHAPE V... write an .npy (options: --version N,
                              --align N, --fortran, --truncate N, --magic X)
"""

import math
import struct
import sys

FORMATS = {"<f4": "f", "<f8": "d", "<u2": "H", "<i4": "i", "<i8": "q",
           "|u1": "B", "<u1": "B", ">f4": ">f"}


def read(path):
    with open(path, "rb") as f:
        data = f.read()
    assert data[:6] == b"\x93NUMPY", "bad magic"
    major = data[6]
    if major == 1:
        (hlen,) = struct.unpack("<H", data[8:10])
        off = 10
    else:
        (hlen,) = struct.unpack("<I", data[8:12])
        off = 12
    header = eval(data[off:off + hlen].decode("latin1"))  # a dict literal
    assert (off + hlen) % 16 == 0, "data not aligned"
    descr, shape = header["descr"], tuple(header["shape"])
    assert not header["fortran_order"]
    n = 1
    for d in shape:
        n *= d
    code = FORMATS[descr]
    size = struct.calcsize("<" + code)
    body = data[off + hlen:]
    assert len(body) == n * size, "size mismatch %d vs %d" % (len(body), n * size)
    values = list(struct.unpack("<%d%s" % (n, code), body))
    return descr, shape, values, body


def bf16_to_float(bits):
    return struct.unpack("<f", struct.pack("<I", bits << 16))[0]


def as_floats(descr, values, bf16):
    if bf16:
        assert descr == "<u2", descr
        return [bf16_to_float(v) for v in values]
    return [float(v) for v in values]


def main(argv):
    cmd = argv[1]
    bf16 = "--bf16" in argv
    args = [a for a in argv[2:] if a != "--bf16"]
    if cmd == "dump":
        descr, shape, values, _ = read(args[0])
        print("descr %s shape %s" % (descr, "x".join(map(str, shape)) or "scalar"))
        if descr == "<u2":
            print("values " + " ".join("0x%04X" % v for v in values))
            if bf16:
                print("floats " + " ".join(repr(bf16_to_float(v)) for v in values))
        elif descr == "|u1":
            print("values " + " ".join("0x%02X" % v for v in values))
        else:
            print("values " + " ".join(repr(v) for v in values))
        return 0
    if cmd == "stats":
        descr, shape, values, _ = read(args[0])
        std = float(args[1])
        xs = as_floats(descr, values, bf16)
        n = len(xs)
        mean = sum(xs) / n
        var = sum((x - mean) ** 2 for x in xs) / n
        sd = math.sqrt(var)

        def frac(k):
            return sum(1 for x in xs if abs(x) > k * std) / n

        def expected(k):
            return math.erfc(k / math.sqrt(2))

        ok = True
        # Bounds: about 5-7 standard errors of each estimate.
        if abs(mean) > 7 * std / math.sqrt(n):
            print("bad mean %g" % mean); ok = False
        if abs(sd / std - 1) > 7 / math.sqrt(2 * n):
            print("bad std %g (want %g)" % (sd, std)); ok = False
        for k in (1.0, 2.0, 3.0, 3.442619855899, 4.0):
            p = expected(k)
            got = frac(k)
            tol = 6 * math.sqrt(p * (1 - p) / n) + 2.0 / n
            if abs(got - p) > tol:
                print("bad tail beyond %g sigma: %g, want %g +- %g" % (k, got, p, tol))
                ok = False
        print("n %d mean %.3g std %.4g: %s" % (n, mean, sd, "stats ok" if ok else "STATS BAD"))
        return 0 if ok else 1
    if cmd == "sqnr":
        d1, s1, v1, _ = read(args[0])
        d2, s2, v2, _ = read(args[1])
        assert (d1, s1) == (d2, s2)
        a = as_floats(d1, v1, bf16)
        b = as_floats(d2, v2, bf16)
        ref = math.sqrt(sum(x * x for x in a))
        err = math.sqrt(sum((x - y) ** 2 for x, y in zip(a, b)))
        maxerr = max(abs(x - y) for x, y in zip(a, b))
        db = float("inf") if err == 0 else 20 * math.log10(ref / err)
        print("python sqnr %s max abs err %.3e" %
              ("inf" if math.isinf(db) else "%.2f" % db, maxerr))
        return 0
    if cmd in ("same", "differ"):
        with open(args[0], "rb") as f:
            a = f.read()
        with open(args[1], "rb") as f:
            b = f.read()
        return 0 if (a == b) == (cmd == "same") else 1
    if cmd == "negated":
        d1, s1, v1, _ = read(args[0])
        d2, s2, v2, _ = read(args[1])
        if (d1, s1) != (d2, s2):
            return 1
        if d1 == "<u2":
            return 0 if all(y == x ^ 0x8000 for x, y in zip(v1, v2)) else 1
        return 0 if all(y == -x for x, y in zip(v1, v2)) else 1
    if cmd == "write":
        path, descr, shape_text = args[0], args[1], args[2]
        opts = {"--version": "1", "--align": "64", "--truncate": "0",
                "--magic": None}
        vals = []
        fortran = False
        i = 3
        while i < len(args):
            if args[i] == "--fortran":
                fortran = True
            elif args[i] in opts:
                opts[args[i]] = args[i + 1]
                i += 1
            else:
                vals.append(args[i])
            i += 1
        shape = tuple(int(d) for d in shape_text.split(",") if d)
        code = FORMATS[descr]
        conv = float if code in ("f", "d", ">f") else int
        if code == ">f":
            body = struct.pack(">%df" % len(vals), *map(float, vals))
        else:
            body = struct.pack("<%d%s" % (len(vals), code), *map(conv, vals))
        if int(opts["--truncate"]):
            body = body[:-int(opts["--truncate"])]
        # Python's repr of a tuple: (3,) for one dimension.
        header = "{'descr': '%s', 'fortran_order': %s, 'shape': %r, }" % (
            descr, "True" if fortran else "False", shape)
        version = int(opts["--version"])
        pre = 10 if version == 1 else 12
        align = int(opts["--align"])
        pad = (align - (pre + len(header) + 1) % align) % align
        header = header + " " * pad + "\n"
        out = b"\x93NUMPY" if opts["--magic"] is None else opts["--magic"].encode()
        out += bytes([version, 0])
        out += struct.pack("<H" if version == 1 else "<I", len(header))
        out += header.encode("latin1") + body
        with open(path, "wb") as f:
            f.write(out)
        return 0
    print("unknown command " + cmd)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
