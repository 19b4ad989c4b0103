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
#   through MLIR's ExecutionEngine). With a Float8 recipe (RECIPE=
#   float8_rowwise, float8_tensorwise, float8_rowwise_with_gw_hp, fp8_rowwise
#   or a #mxfp8train.float8_recipe<...>), also the DeepSeek-V3 MoE step at
#   $CPU_MOE_TOKENS tokens (default 64, multiples of 16 as Float8 GEMMs need;
#   scripts/resize-tokens.py), each held to the bars of SPEC-float8 §7.
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
# The exit status is non-zero when a step misses a bar (mxfp8-run's 2) or
# fails. MAIN_JOB_SETUP=0 skips the package check and the build (the test
# suite runs the script on its build directory this way).
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

if [ "${MAIN_JOB_SETUP:-1}" != 0 ]; then
  bash "$root/scripts/setup-debian.sh"
  bash "$root/scripts/build.sh"
fi
run="$BUILD_DIR/bin/mxfp8-run"
recipe="${RECIPE:-mxfp8_rceil}"
# A Float8 recipe (SPEC-float8 §4): a name or a #mxfp8train.float8_recipe.
case "$recipe" in
  float8_*|fp8_*|*float8_recipe*) float8=1 ;;
  *) float8=0 ;;
esac

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

if [ "$device" = cpu ] && [ "$float8" = 0 ]; then
  echo "main job: Llama-3-8B MLP training step, compare mode, on the CPU"
  exec "$run" "$root/examples/llama3_8b_mlp_train_step.mlir" \
    --entry=mlp_train_step --device=cpu --compare --recipe="$recipe" "${args[@]}"
fi
if [ "$device" = cpu ]; then
  # Float8: both steps; the MoE step shortened to keep the CPU run short.
  moe_tokens="${CPU_MOE_TOKENS:-64}"
  if [ $((moe_tokens % 16)) != 0 ] || [ "$moe_tokens" -le 0 ]; then
    echo "main-job: CPU_MOE_TOKENS must be a positive multiple of 16 (Float8 GEMMs), not $moe_tokens" >&2
    exit 2
  fi
  mkdir -p "$BUILD_DIR/main-job"
  moe="$BUILD_DIR/main-job/deepseek_v3_moe_train_step_$moe_tokens.mlir"
  python3 "$root/scripts/resize-tokens.py" \
    "$root/examples/deepseek_v3_moe_train_step.mlir" "$moe" \
    --tokens="$moe_tokens" > /dev/null
  status=0
  echo "main job: Llama-3-8B MLP training step at 64 tokens, compare mode, on the CPU"
  "$run" "$root/examples/llama3_8b_mlp_train_step.mlir" --entry=mlp_train_step \
    --device=cpu --compare --recipe="$recipe" "${args[@]}" || status=$?
  echo "main job: DeepSeek-V3 MoE training step at $moe_tokens tokens, compare mode, on the CPU"
  "$run" "$moe" --entry=moe_train_step --device=cpu --compare \
    --recipe="$recipe" "${args[@]}" || status=$?
  echo "main job: $([ $status = 0 ] && echo "every bar met" || echo "FAILED (exit status $status)")"
  exit $status
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
  step_status=0
  "$run" "$src" --entry="$entry" --device=cuda --compare --recipe="$recipe" \
    "${args[@]}" || step_status=$?
  if [ "$step_status" = 1 ] && [ "$float8" = 1 ]; then
    echo "main-job: $file: the GPU lowering has no kernel for Float8 casts yet" \
      "(quantize/dequantize with tensorwise or axiswise scales: see the error" \
      "above); RECIPE=$recipe bash scripts/main-job.sh --device=cpu runs the" \
      "Float8 main job on the CPU" >&2
  fi
  [ "$step_status" = 0 ] || status=$step_status
done
exit $status
