#!/usr/bin/env bash
#===- aot-compile.sh - mxfp8train module -> host object with cubins --------===#
#
# Usage: scripts/aot-compile.sh IN.mlir OUT.o [chip] [extra pipeline options]
#
# Runs mxfp8train-lower-to-gpu{chip=...} (default sm_90a), then
# mlir-translate --mlir-to-llvmir and llc -O3 -filetype=obj. The object
# embeds the kernels' cubins and exports, for every public function F,
# F and _mlir_ciface_F, which call the mgpu* runtime ABI (link it with
# libmxfp8train_runtime.so, docs/runtime.md). Every argument and result is
# a device pointer (results are out-parameters after the inputs).
#
# Tools: MXFP8_OPT (default: mxfp8-opt next to this build, then PATH),
# MLIR_TRANSLATE and LLC (default: /usr/lib/llvm-22/bin), CUDA_HOME
# (default /usr/local/cuda; ptxas builds the cubins). KEEP_TEMPS=1 keeps
# the LLVM dialect module and the LLVM IR next to OUT.o.
#
#===------------------------------------------------------------------------===#
set -euo pipefail

if [ $# -lt 2 ]; then
  echo "usage: $0 IN.mlir OUT.o [chip] [extra pipeline options]" >&2
  exit 2
fi
in="$1"
out="$2"
chip="${3:-sm_90a}"
extra="${4:-}"

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
llvm_bin="/usr/lib/llvm-22/bin"
opt="${MXFP8_OPT:-}"
if [ -z "$opt" ]; then
  for candidate in "${BUILD_DIR:-$root/build}/bin/mxfp8-opt" "$(command -v mxfp8-opt || true)"; do
    if [ -n "$candidate" ] && [ -x "$candidate" ]; then
      opt="$candidate"
      break
    fi
  done
fi
if [ -z "$opt" ]; then
  echo "aot-compile.sh: mxfp8-opt not found (set MXFP8_OPT or BUILD_DIR)" >&2
  exit 1
fi
translate="${MLIR_TRANSLATE:-$llvm_bin/mlir-translate}"
llc="${LLC:-$llvm_bin/llc}"
cuda="${CUDA_HOME:-/usr/local/cuda}"
if [ ! -x "$cuda/bin/ptxas" ]; then
  echo "aot-compile.sh: no ptxas in $cuda/bin (set CUDA_HOME)" >&2
  exit 1
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
options="chip=$chip toolkit=$cuda format=bin"
if [ -n "$extra" ]; then
  options="$options $extra"
fi
"$opt" "$in" --mxfp8train-lower-to-gpu="$options" -o "$tmp/lowered.mlir"
"$translate" --mlir-to-llvmir "$tmp/lowered.mlir" -o "$tmp/module.ll"
"$llc" -O3 -filetype=obj -relocation-model=pic "$tmp/module.ll" -o "$out"
if [ "${KEEP_TEMPS:-0}" = 1 ]; then
  cp "$tmp/lowered.mlir" "${out%.o}.lowered.mlir"
  cp "$tmp/module.ll" "${out%.o}.ll"
fi
