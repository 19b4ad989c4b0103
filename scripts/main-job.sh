#!/usr/bin/env bash
#===- main-job.sh - set up, build and run the main job -----------------------===#
#
# Usage: scripts/main-job.sh [--device=auto|cpu|cuda] [--tokens=N] [mxfp8-run options]
#
# One command from a fresh Debian 12 machine: installs the packages
# (scripts/setup-debian.sh), builds (scripts/build.sh) and runs the main job
# in compare mode: a training step in bf16 and its MXFP8 conversion with the
# recipe $RECIPE (default mxfp8_rceil) on the same inputs, with the SQNR of
# every result and matmul.
#
# --device=auto (the default): cuda when the runtime finds a usable GPU
#   (`mxfp8-run --print-device`, printed first), cpu otherwise.
# --device=cpu: one step of the Llama-3-8B SwiGLU MLP block
#   (examples/llama3_8b_mlp_train_step.mlir, 64 tokens) on the CPU (JIT
#   through MLIR's ExecutionEngine).
# --device=cuda: on a machine with LLVM 22 and an NVIDIA GPU (sm_90a or
#   sm_100a), the Llama-3-8B MLP step and the DeepSeek-V3 MoE step at
#   --tokens tokens (default 16384; scripts/resize-tokens.py), each through
#   `mxfp8-run --device=cuda --compare` (GPU lowering, JIT host code,
#   libmxfp8train_runtime.so), with the GPU time of both steps. Without a
#   usable GPU here it says why and how to run it on a GPU machine without
#   LLVM (the lent H200), and exits with 77:
#     here:  bash bench/make-aot-artifacts.sh      (TOKENS=16384 by default)
#     there: bash bench/device/run-aot-checks.sh   (`step` rows: the SQNR of
#            every result with its bar, MXFP8 step vs high-precision step)
#
# Other arguments go to mxfp8-run (e.g. --seed=1, --output-dir=out).
#
#===------------------------------------------------------------------------===#
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export BUILD_DIR="${BUILD_DIR:-$root/build}"

device=auto
tokens=16384
args=()
for arg in "$@"; do
  case "$arg" in
    --device=*) device="${arg#--device=}" ;;
    --tokens=*) tokens="${arg#--tokens=}" ;;
    *) args+=("$arg") ;;
  esac
done
case "$device" in
  auto|cpu|cuda) ;;
  *) echo "main-job: --device must be auto, cpu or cuda, not '$device'" >&2; exit 2 ;;
esac

bash "$root/scripts/setup-debian.sh"
bash "$root/scripts/build.sh"
run="$BUILD_DIR/bin/mxfp8-run"
recipe="${RECIPE:-mxfp8_rceil}"

# auto (the default): the GPU when the runtime finds a usable one, else the
# CPU; mxfp8-run's device line says which and why.
if [ "$device" = auto ]; then
  probe="$("$run" --print-device 2>&1 || true)"
  echo "main job: $probe"
  if [ "${probe#device: cuda}" != "$probe" ]; then
    device=cuda
  else
    device=cpu
  fi
fi

if [ "$device" = cpu ]; then
  echo "main job: Llama-3-8B MLP training step, compare mode, on the CPU"
  exec "$run" "$root/examples/llama3_8b_mlp_train_step.mlir" \
    --entry=mlp_train_step --device=cpu --compare --recipe="$recipe" "${args[@]}"
fi

# --device=cuda: is there a usable GPU here? (mxfp8-run's first line says.)
probe="$("$run" --print-device 2>&1 || true)"
if [ "${probe#device: cuda}" = "$probe" ]; then
  reason="${probe#device: cpu (}"
  echo "main-job: --device=cuda: no usable GPU here: ${reason%)}" >&2
  echo "main-job: on a GPU machine without LLVM (e.g. the lent H200), run it in two steps:" >&2
  echo "  here:  TOKENS=$tokens RECIPE=$recipe bash bench/make-aot-artifacts.sh" >&2
  echo "  there: bash bench/device/run-aot-checks.sh   (the 'step' rows)" >&2
  exit 77
fi

mkdir -p "$BUILD_DIR/main-job"
status=0
for example in llama3_8b_mlp_train_step:mlp_train_step \
    deepseek_v3_moe_train_step:moe_train_step; do
  file="${example%%:*}"
  entry="${example##*:}"
  src="$BUILD_DIR/main-job/${file}_$tokens.mlir"
  python3 "$root/scripts/resize-tokens.py" "$root/examples/$file.mlir" "$src" \
    --tokens="$tokens" > /dev/null
  echo "main job: $file at $tokens tokens, compare mode, on the GPU"
  "$run" "$src" --entry="$entry" --device=cuda --compare --recipe="$recipe" \
    "${args[@]}" || status=$?
done
exit $status
