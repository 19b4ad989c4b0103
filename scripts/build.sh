#!/usr/bin/env bash
#===- build.sh - configure (once) and build mxfp8train ----------------------===#
#
# Configures the build directory with CMake and Ninja if it is not configured
# yet, then builds every target (tools, libraries, test binaries).
# Environment: BUILD_DIR (default: build), JOBS (default: nproc),
# MXFP8TRAIN_WERROR=ON to treat warnings as errors (CI).
#
#===------------------------------------------------------------------------===#
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${BUILD_DIR:-$root/build}"
jobs="${JOBS:-$(nproc)}"

if [ ! -f "$build_dir/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release \
    -DMXFP8TRAIN_ENABLE_WERROR="${MXFP8TRAIN_WERROR:-OFF}"
fi
ninja -C "$build_dir" -j"$jobs"
