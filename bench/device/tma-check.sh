#!/usr/bin/env bash
#===- bench/device/tma-check.sh - TMA.h on a GPU ---------------------------===#
#
# Usage, here (MLIR, CUDA toolkit):  bench/device/tma-check.sh prepare DIR
#        on the GPU machine:        bench/device/tma-check.sh run DIR
#
# prepare: DIR/tma.ptx, the sm_90a PTX of the kernel of
# mxfp8train-tma-test-module (test/Conversion/TMA), lowered by the GPU
# pipeline.
# run: builds the runtime (cmake, no MLIR; or uses LIB_DIR when it holds
# libmxfp8train_runtime.so), builds tma-check/tma_ptx_check.cpp and runs it
# for A of 256, 200 and 100 rows of 512 bytes (CTA 1's box whole, partly and
# wholly past the tensor) and of 96, 48 and 16 bytes (the box past K): the
# tensor map from mgpuTensorMapEncodeTiledMemref with the
# arguments the generated host code passes, the kernel's 2-D TMA load with
# the 128-byte swizzle and its 1-D bulk copy, every byte checked.
# Exit status 0 when all pass, 1 on a wrong byte or an error.
#
#===------------------------------------------------------------------------===#
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
mode="${1:-}"
dir="${2:-}"
if [ -z "$mode" ] || [ -z "$dir" ]; then
  echo "usage: $0 prepare|run DIR" >&2
  exit 2
fi
case "$mode" in
prepare)
  build="${BUILD_DIR:-$root/build}"
  mkdir -p "$dir"
  "$build/bin/mxfp8train-tma-test-module" |
    "$build/bin/mxfp8-opt" --mxfp8train-lower-to-gpu="chip=sm_90a format=isa" |
    python3 "$root/test/Target/PTX/Inputs/extract-ptx.py" > "$dir/tma.ptx"
  echo "tma-check: $dir/tma.ptx"
  ;;
run)
  work="${WORK_DIR:-/tmp/mxfp8-tma-check}"
  mkdir -p "$work"
  lib="${LIB_DIR:-}"
  if [ -z "$lib" ] || [ ! -f "$lib/libmxfp8train_runtime.so" ]; then
    cmake -S "$root/runtime" -B "$work/runtime" -DCMAKE_BUILD_TYPE=Release \
      > "$work/runtime.log" 2>&1
    cmake --build "$work/runtime" -j 8 >> "$work/runtime.log" 2>&1
    lib="$(dirname "$(find "$work/runtime" -name libmxfp8train_runtime.so | head -1)")"
  fi
  "${CXX:-g++}" -O2 -std=c++17 -I "$root/runtime/include" \
    "$root/bench/device/tma-check/tma_ptx_check.cpp" -L "$lib" \
    -Wl,-rpath,"$lib" -lmxfp8train_runtime -o "$work/tma_ptx_check"
  timeout 60 "$work/tma_ptx_check" "$dir/tma.ptx" 256 200 100 200x96 256x48 \
    100x16
  ;;
*)
  echo "usage: $0 prepare|run DIR" >&2
  exit 2
  ;;
esac
