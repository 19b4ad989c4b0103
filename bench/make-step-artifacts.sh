#!/usr/bin/env bash
#===- bench/make-step-artifacts.sh - the main job's steps for step-bench.sh -===#
#
# Usage: bench/make-step-artifacts.sh [OUT_DIR]   (default step-artifacts/)
#
# Compiles, here (MLIR, ptxas), the main job's two training steps at TOKENS
# tokens (default 16384; scripts/resize-tokens.py) for CHIP (default
# sm_90a) with mxfp8-compile: NAME.hp.cuda.{o,manifest} as written and
# NAME.mx.cuda.{o,manifest} after mxfp8train-rewrite-matmuls with RECIPE
# (default mxfp8_rceil), plus src/NAME.mlir. bench/device/step-bench.sh runs
# them on the GPU machine against the torch peers. BUILD_DIR: a build with
# bin/mxfp8-compile (default build/). LOWERING_VARIANTS: extra MXFP8
# builds as TAG=OPTIONS pairs (space separated), each NAME.mx-TAG.cuda.*
# lowered with mxfp8train-lower-to-gpu{chip=CHIP OPTIONS}, e.g.
# LOWERING_VARIANTS="nofuse=fuse-producers=false" (several options of one
# variant separated by commas: "amaxw=fuse-gemm-amax=true,gemm-amax-warps=3";
# step-bench.sh checks
# that every such variant computes the same bits as NAME.mx); each recipe
# of EXTRA_RECIPES gets them too, as NAME.TAG-VARIANT.
# EXTRA_RECIPES: other recipes as TAG=RECIPE pairs (space separated), e.g.
# EXTRA_RECIPES="f8row=float8_rowwise f8tw=float8_tensorwise": each
# NAME.TAG.cuda.* is the step converted with that recipe (listed in
# OUT_DIR/recipes.txt as `TAG RECIPE`; step-bench.sh times it against
# hp and torchao's step of the same recipe). A recipe the GPU pipeline
# cannot compile yet is reported with the compiler's first error and left
# out.
#
#===------------------------------------------------------------------------===#
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-$root/step-artifacts}"
tokens="${TOKENS:-16384}"
chip="${CHIP:-sm_90a}"
recipe="${RECIPE:-mxfp8_rceil}"
compile="${BUILD_DIR:-$root/build}/bin/mxfp8-compile"
mkdir -p "$out/src"
: > "$out/recipes.txt"
for pair in ${EXTRA_RECIPES:-}; do
  echo "${pair%%=*} ${pair#*=}" >> "$out/recipes.txt"
done
for step in llama3_8b_mlp:mlp_train_step:llama3_8b_mlp_train_step \
            deepseek_v3_moe:moe_train_step:deepseek_v3_moe_train_step; do
  IFS=: read -r base entry example <<< "$step"
  name="${base}_$tokens"
  python3 "$root/scripts/resize-tokens.py" "$root/examples/$example.mlir" \
    "$out/src/$name.mlir" --tokens="$tokens" > /dev/null
  "$compile" "$out/src/$name.mlir" --entry="$entry" --device=cuda --chip="$chip" \
    -o "$out/$name.hp.cuda.o" --manifest="$out/$name.hp.cuda.manifest"
  "$compile" "$out/src/$name.mlir" --entry="$entry" --device=cuda --chip="$chip" \
    --pipeline="mxfp8train-rewrite-matmuls{recipe=$recipe},canonicalize,cse" \
    -o "$out/$name.mx.cuda.o" --manifest="$out/$name.mx.cuda.manifest" 2> /dev/null
  for variant in ${LOWERING_VARIANTS:-}; do
    tag="${variant%%=*}"
    opts="${variant#*=}"
    opts="${opts//,/ }"
    "$compile" "$out/src/$name.mlir" --entry="$entry" --device=cuda --chip="$chip" \
      --pipeline="mxfp8train-rewrite-matmuls{recipe=$recipe},canonicalize,cse" \
      --lowering="mxfp8train-lower-to-gpu{chip=$chip $opts}" \
      -o "$out/$name.mx-$tag.cuda.o" --manifest="$out/$name.mx-$tag.cuda.manifest" 2> /dev/null
    echo "make-step-artifacts: $name.mx-$tag ($opts)"
  done
  for pair in ${EXTRA_RECIPES:-}; do
    tag="${pair%%=*}"
    if "$compile" "$out/src/$name.mlir" --entry="$entry" --device=cuda --chip="$chip" \
         --pipeline="mxfp8train-rewrite-matmuls{recipe=${pair#*=}},canonicalize,cse" \
         -o "$out/$name.$tag.cuda.o" --manifest="$out/$name.$tag.cuda.manifest" \
         2> "$out/$name.$tag.err"; then
      echo "make-step-artifacts: $name.$tag (${pair#*=})"
      rm -f "$out/$name.$tag.err"
      for variant in ${LOWERING_VARIANTS:-}; do
        opts="${variant#*=}"
        opts="${opts//,/ }"
        "$compile" "$out/src/$name.mlir" --entry="$entry" --device=cuda --chip="$chip" \
          --pipeline="mxfp8train-rewrite-matmuls{recipe=${pair#*=}},canonicalize,cse" \
          --lowering="mxfp8train-lower-to-gpu{chip=$chip $opts}" \
          -o "$out/$name.$tag-${variant%%=*}.cuda.o" \
          --manifest="$out/$name.$tag-${variant%%=*}.cuda.manifest" 2> /dev/null
        echo "make-step-artifacts: $name.$tag-${variant%%=*} ($opts)"
      done
    else
      echo "make-step-artifacts: $name.$tag (${pair#*=}) not compiled: $(grep -m1 error "$out/$name.$tag.err")"
    fi
  done
  echo "make-step-artifacts: $name.hp, $name.mx ($chip, $tokens tokens) -> $out"
done
