#!/usr/bin/env bash
#===- main-job.sh - set up, build and run the main job -----------------------===#
#
# One command from a fresh Debian 12 machine: installs the packages
# (scripts/setup-debian.sh), builds (scripts/build.sh) and runs the main job,
# one training step of the Llama-3-8B SwiGLU MLP block
# (examples/llama3_8b_mlp_train_step.mlir, 64 tokens), in compare mode: the
# bf16 module and its MXFP8 conversion with the recipe $RECIPE (default
# mxfp8_rceil) on the same inputs, with the SQNR of every result and matmul.
#
# It runs on the CPU (JIT through MLIR's ExecutionEngine); GPU execution is
# the subject of a later issue. Extra arguments go to mxfp8-run
# (e.g. --seed=1, --output-dir=out).
#
#===------------------------------------------------------------------------===#
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export BUILD_DIR="${BUILD_DIR:-$root/build}"

bash "$root/scripts/setup-debian.sh"
bash "$root/scripts/build.sh"

echo "main job: Llama-3-8B MLP training step, compare mode, on the CPU"
exec "$BUILD_DIR/bin/mxfp8-run" \
  "$root/examples/llama3_8b_mlp_train_step.mlir" --entry=mlp_train_step \
  --compare --recipe="${RECIPE:-mxfp8_rceil}" "$@"
