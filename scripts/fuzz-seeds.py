#!/usr/bin/env python3
# ===- fuzz-seeds.py - seed corpora of the fuzzers from test/ and examples/ -=== #
#
# Writes one seed directory per fuzzer of fuzz/ (nothing is committed; the
# seeds are generated where the fuzzers run):
#
#   OUT/module/    every .mlir file of test/ and examples/, cut at the
#                  `// -----` separators of -split-input-file tests
#   OUT/npy/       arrays of every supported dtype and a few shapes in .npy
#                  versions 1.0, 2.0 and 3.0, plus what the readers must
#                  reject (big-endian, Fortran order, structured dtypes), and
#                  the .npy files the lit run left in BUILD/test
#   OUT/manifest/  the AOT manifests the lit run left in BUILD/test
#                  (mxfp8-compile --manifest over test/tools) and one
#                  written here with every field
#
#   scripts/fuzz-seeds.py --out DIR [--build BUILD] [--module-limit N]
#
# --module-limit keeps N module seeds, evenly spaced (CI: each seed costs
# a parse and three lowerings under ASan, seconds for the large ones).
# Identical seeds are written once. Prints one line per corpus with its size.
#
# ===------------------------------------------------------------------------=== #
import argparse
import hashlib
import io
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPLIT = re.compile(r"^// -----\s*$", re.MULTILINE)
# Outputs of the lit run larger than this are not useful seeds.
MAX_SEED_BYTES = 256 * 1024


class Corpus:
    """A directory of seeds named by their content hash."""

    def __init__(self, path):
        self.path = path
        self.count = 0
        self.bytes = 0
        os.makedirs(path, exist_ok=True)

    def add(self, data, suffix):
        if isinstance(data, str):
            data = data.encode()
        name = hashlib.sha1(data).hexdigest()[:16] + suffix
        target = os.path.join(self.path, name)
        if os.path.exists(target):
            return
        with open(target, "wb") as f:
            f.write(data)
        self.count += 1
        self.bytes += len(data)


def source_files(top, extension):
    for base in ("test", "examples"):
        for dirpath, _, names in os.walk(os.path.join(top, base)):
            for name in sorted(names):
                if name.endswith(extension):
                    yield os.path.join(dirpath, name)


def build_outputs(build, extension):
    if not build:
        return
    for dirpath, _, names in os.walk(os.path.join(build, "test")):
        for name in sorted(names):
            path = os.path.join(dirpath, name)
            if name.endswith(extension) and os.path.getsize(path) <= MAX_SEED_BYTES:
                yield path


def module_seeds(corpus, limit):
    chunks = []
    for path in source_files(ROOT, ".mlir"):
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        chunks.extend(chunk for chunk in SPLIT.split(text) if chunk.strip())
    if limit and len(chunks) > limit:
        # Evenly spaced over test/ and examples/, the same ones every run.
        chunks = [chunks[i * len(chunks) // limit] for i in range(limit)]
    for chunk in chunks:
        corpus.add(chunk, ".mlir")


def npy_seeds(corpus, build):
    try:
        import numpy as np
    except ImportError:
        print("fuzz-seeds: numpy missing; only the lit outputs seed npy",
              file=sys.stderr)
        np = None
    if np is not None:
        dtypes = ["?", "u1", "i1", "<u2", "<i2", "<f2", "<u4", "<i4", "<f4",
                  "<u8", "<i8", "<f8"]
        shapes = [(), (0,), (3,), (2, 3), (4, 0, 2), (1, 1, 1, 5)]
        for dtype in dtypes:
            for shape in shapes:
                array = (np.arange(int(np.prod(shape, dtype=np.int64)))
                         .reshape(shape).astype(dtype))
                for version in ((1, 0), (2, 0), (3, 0)):
                    buffer = io.BytesIO()
                    np.lib.format.write_array(buffer, array, version=version)
                    corpus.add(buffer.getvalue(), ".npy")
        # What the readers reject.
        rejected = [np.arange(6, dtype=">f4").reshape(2, 3),
                    np.asfortranarray(np.arange(6, dtype="<f4").reshape(2, 3)),
                    np.zeros(2, dtype=[("a", "<f4"), ("b", "<i2")]),
                    np.zeros(3, dtype="<c8")]
        for array in rejected:
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, array, version=(1, 0))
            corpus.add(buffer.getvalue(), ".npy")
    for path in build_outputs(build, ".npy"):
        with open(path, "rb") as f:
            corpus.add(f.read(), ".npy")


EVERY_FIELD = """mxfp8-aot-manifest 1
# a comment
source /tmp/f%20x.mlir
device cuda
chip sm_100a
triple x86_64-unknown-linux-gnu
cpu x86-64-v3
features +avx2
pipeline mxfp8train-rewrite-matmuls
lowering mxfp8train-lower-to-gpu{chip=sm_100a}
extern mgpuLaunchKernel
extern malloc
func step args=3 results=2 abi=5
  arg 0 x 64x128xbf16 std=0.02
  arg 1 offs 4xi32 values=hex:00000000200000004000000060000000
  arg 2 scale f32 values=splat:0000803f
  result 0 y 64x128xf32 role=output min_sqnr=27.5
  result 1 s 64x4xf8E8M0FNU
func other unsupported=argument%20#0%20has%20a%20dynamic%20shape
func empty args=0 results=0 abi=0
future_key whatever
end
"""


def manifest_seeds(corpus, build):
    corpus.add(EVERY_FIELD, ".manifest")
    for path in build_outputs(build, ".manifest"):
        with open(path, "rb") as f:
            corpus.add(f.read(), ".manifest")


def main():
    parser = argparse.ArgumentParser(description="seed corpora of the fuzzers")
    parser.add_argument("--out", required=True, help="corpus root")
    parser.add_argument("--build", help="build directory after a lit run")
    parser.add_argument("--module-limit", type=int, default=0,
                        help="at most this many module seeds (0: all)")
    args = parser.parse_args()
    corpora = {name: Corpus(os.path.join(args.out, name))
               for name in ("module", "npy", "manifest")}
    module_seeds(corpora["module"], args.module_limit)
    npy_seeds(corpora["npy"], args.build)
    manifest_seeds(corpora["manifest"], args.build)
    for name, corpus in corpora.items():
        print("fuzz-seeds: %s: %d seeds, %d bytes" %
              (name, corpus.count, corpus.bytes))


if __name__ == "__main__":
    main()
