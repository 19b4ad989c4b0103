#!/usr/bin/env bash
#===- build.sh - configure (once) and build mxfp8train ----------------------===#
#
# Configures the build directory with CMake and Ninja if it is not configured
# yet, then builds every target (tools, libraries, test binaries), then
# builds the Python package (python/) against that build and installs it
# into the `python3` first on PATH (pip, no build isolation: its build
# dependencies come from scripts/setup-debian.sh; its CMake build directory
# is $BUILD_DIR/python). MXFP8TRAIN_PYTHON=OFF skips the Python package.
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

if [ "${MXFP8TRAIN_PYTHON:-ON}" != OFF ]; then
  pip_args=(install --quiet --no-build-isolation --no-deps
    --config-settings="build-dir=$build_dir/python"
    --config-settings="cmake.define.MXFP8Train_DIR=$build_dir/lib/cmake/mxfp8train"
    "$root/python")
  if ! python3 -m pip "${pip_args[@]}" 2>"$build_dir/python-pip.log"; then
    # Debian's own interpreter refuses plain installs.
    if grep -q externally-managed "$build_dir/python-pip.log"; then
      python3 -m pip "${pip_args[@]}" --break-system-packages
    else
      cat "$build_dir/python-pip.log" >&2
      echo "build.sh: building the Python package failed" \
        "(scripts/setup-debian.sh installs its build dependencies)" >&2
      exit 1
    fi
  fi
fi
