# ===- bench-tensor-maps.py - gemm_bench.py's tensor maps, fake driver -----=== #
#
# Usage: bench-tensor-maps.py GEMM_BENCH CONVERTED.mlir LIBCUDA
#
# Traces the launches and tensor maps of CONVERTED.mlir (the output of
# --convert-mxfp8train-to-gpu --canonicalize) with bench/gemm_bench.py, as
# its `prepare` step does, prints the launches' traced arguments, and
# encodes each map with the benchmark's encode_tensor_map through LIBCUDA
# (the runtime's fake driver, whose FAKE_CUDA_TRACE lines then show the
# arguments) over the 16-byte aligned address 0x10000 * (index + 1).
#
# ===----------------------------------------------------------------------=== #

import importlib.util
import json
import re
import sys

spec = importlib.util.spec_from_file_location("gemm_bench", sys.argv[1])
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)

conv = open(sys.argv[2]).read()
consts = dict(re.findall(r"(%c\w*) = arith.constant (\d+) : (?:index|i32)", conv))
launches, allocs, maps = bench.parse_launches(conv, consts)
for launch in launches:
    print("launch", json.dumps(launch), flush=True)
for i, tmap in enumerate(maps):
    print("map", i, json.dumps(tmap), flush=True)
lib = bench.load_libcuda(sys.argv[3])
for i, tmap in enumerate(maps):
    encoded = bench.encode_tensor_map(lib, tmap, 0x10000 * (i + 1))
    print("encoded", i, len(encoded), "bytes", flush=True)
