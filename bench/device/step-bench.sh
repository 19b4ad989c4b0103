#!/usr/bin/env bash
#===- bench/device/step-bench.sh - the main job's steps against torch -------===#
#
# Usage: bench/device/step-bench.sh STEPS_DIR
#
# Runs on the GPU machine (no MLIR there). STEPS_DIR holds the main job's
# training steps compiled here by bench/make-step-artifacts.sh: for each
# step NAME (llama3_8b_mlp_T, deepseek_v3_moe_T) the high-precision step
# NAME.hp.cuda.{o,manifest} and its MXFP8 conversion NAME.mx.cuda.{o,manifest},
# and the resized sources src/NAME.mlir. One call:
#   1. builds the runtime and mxfp8-launch (tools/mxfp8-launch, no MLIR) and
#      links every object into a shared library;
#   2. times each step with mxfp8-launch (REPEAT timed calls after WARMUP,
#      median of CUDA events around the call, and of the host clock) once
#      per allocator of the runtime: MXFP8RT_ALLOCATOR=device (cuMemAlloc /
#      cuMemFree per buffer) and the default stream-ordered pool
#      (docs/runtime.md "Stream-ordered allocations");
#   3. times the torch peers of the same steps (bench/device/
#      torch_step_peer.py: bf16 eager and torch.compile, and torchao's MXFP8
#      emulated recipe eager and compiled when the torchao wheel is carried
#      in .whl/, see that script's header) in the same call;
#   4. prints one table: every time and its ratio to torch bf16 eager;
#   5. profiles each converted step (mxfp8-launch --profile-json: one more call
#      with CUDA events around every launch, fill and copy, docs/runtime.md
#      "Profiling") and prints per kernel family and for the 10 largest
#      kernels the milliseconds and their share of the step
#      (bench/device/profile_table.py); the tables go to
#      $OUT/step-profile.txt, the JSON reports to
#      $OUT/NAME.VARIANT.profile.json (VARIANT mx or a recipe's TAG).
# Other recipes (STEPS_DIR/recipes.txt, `TAG RECIPE` lines from
# make-step-artifacts.sh EXTRA_RECIPES): NAME.TAG is timed with the pool
# allocator, its results compared with NAME.hp's (SQNR per result,
# mxfp8-launch --compare-with), and for the Llama step against torchao's
# step of the same recipe under torch.compile (torchao_float8_RECIPE_compile
# for the Float8 recipes; "vs ao" of those rows).
# Lowering variants NAME.mx-TAG and NAME.RECIPE_TAG-TAG in STEPS_DIR are
# first compared bit for bit with NAME.mx / NAME.RECIPE_TAG (exit status 1
# when one differs); VARIANTS_ONLY=1 stops there. A recipe's variants are
# also timed (pool allocator; TIME_VARIANTS="TAG ...": only those).
# Environment: REPEAT (default 10), WARMUP (default 3), GPU (default 0),
# LAUNCH_BUILD_DIR (default /tmp/mxfp8-launch-build), OUT (the device tool's
# output folder: the log goes there too).
#
#===------------------------------------------------------------------------===#
set -uo pipefail
export LC_ALL=C PYTHONUNBUFFERED=1

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
dir="$(cd "${1:?usage: step-bench.sh STEPS_DIR}" && pwd)" || exit 2
build="${LAUNCH_BUILD_DIR:-/tmp/mxfp8-launch-build}"
repeat="${REPEAT:-10}"
warmup="${WARMUP:-3}"
gpu="${GPU:-0}"
work="$(mktemp -d)"
if [ -n "${OUT:-}" ] && mkdir -p "$OUT" 2>/dev/null; then
  exec > >(tee "$OUT/step-bench.log") 2>&1
fi

# shellcheck source=launch-build.sh
source "$root/bench/device/launch-build.sh"
build_launch "$root" "$build" "$work/launch" || exit 2
launch="$build/bin/mxfp8-launch"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | sed 's/^/  gpu /'

for object in "$dir"/*.o; do
  link_object "$object" "$work/$(basename "${object%.o}").so" "$build/lib" || exit 2
done

rows=()
declare -A eager torchao torchao_tag
# The torchao wheel (torch_step_peer.py's header says how to fetch it), when
# carried: installed for the torchao MXFP8 emulated rows.
peer_modes=eager,compile
if ls "$root"/.whl/torchao-*.whl > /dev/null 2>&1; then
  if python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir \
       --upgrade --target "$work/site" "$root"/.whl/torchao-*.whl; then
    export PYTHONPATH="$work/site${PYTHONPATH:+:$PYTHONPATH}"
    peer_modes=eager,compile,torchao_mx_emulated,torchao_mx_emulated_compile
  else
    echo "== torchao rows skipped: pip could not install $root/.whl/torchao-*.whl"
  fi
else
  echo "== torchao rows skipped: no .whl/torchao-*.whl (pip download torchao==0.18.0 --no-deps -d .whl; see torch_step_peer.py)"
fi

# step_modes STEP: the torch peer modes of STEP; the Llama step adds
# torchao's Float8 step of every Float8 recipe in recipes.txt.
step_modes() {
  local modes="$peer_modes" tag recipe
  if [ "$1" = llama ] && [[ "$peer_modes" == *torchao* ]]; then
    while read -r tag recipe; do
      [[ "$recipe" == float8_* ]] && modes="$modes,torchao_float8_${recipe#float8_}_compile"
    done < <(cat "$dir/recipes.txt" 2>/dev/null)
  fi
  echo "$modes"
}

profiles=()
# time_ours NAME ENTRY VARIANT ALLOCATOR: one row; every converted step
# (MX and the other recipes) with the pool allocator (what a user runs) is
# also profiled, to NAME.VARIANT.profile.json.
time_ours() {
  local name="$1" entry="$2" variant="$3" alloc="$4" log profile=()
  local pjson="$work/$name.$variant.profile.json"
  log="$work/$name.$variant.$alloc.log"
  if [ "$variant" != hp ] && [ "$alloc" = pool ]; then
    profile=(--profile-json="$pjson")
  fi
  MXFP8RT_ALLOCATOR="$alloc" "$launch" "$work/$name.$variant.cuda.so" \
    "$dir/$name.$variant.cuda.manifest" --entry="$entry" --gpu="$gpu" \
    --repeat="$repeat" --warmup="$warmup" "${profile[@]}" > "$log" 2>&1
  local rc=$? ms host
  ms="$(sed -n 's/^summary: .*time_ms=\([^ ]*\).*/\1/p' "$log" | tail -n1)"
  host="$(grep -o 'host median [0-9.e+-]* ms' "$log" | tail -n1 | awk '{print $3}')"
  [ $rc -ne 0 ] && { echo "== $name.$variant ($alloc) failed:"; tail -n 8 "$log"; ms=-; }
  rows+=("$name|ours ${variant}|$alloc|$ms|${host:--}|$variant")
  if [ ${#profile[@]} -gt 0 ] && [ -s "$pjson" ]; then
    profiles+=("$pjson")
  fi
}

# check_variants NAME ENTRY BASE: every lowering variant NAME.BASE-TAG
# (bench/make-step-artifacts.sh LOWERING_VARIANTS; BASE is mx or a recipe
# tag) must compute the same bits as NAME.BASE on the same inputs
# (mxfp8-launch --compare-with --expect-exact).
variant_failures=0
check_variants() {
  local name="$1" entry="$2" base="$3" manifest tag log
  for manifest in "$dir/$name.$base"-*.cuda.manifest; do
    [ -e "$manifest" ] || continue
    tag="$(basename "${manifest%.cuda.manifest}")"; tag="${tag#"$name".}"
    log="$work/$name.$tag.compare.log"
    if "$launch" "$work/$name.$base.cuda.so" "$dir/$name.$base.cuda.manifest" --entry="$entry" \
         --gpu="$gpu" --compare-with="$work/$name.$tag.cuda.so:$entry" \
         --compare-manifest="$manifest" --expect-exact > "$log" 2>&1; then
      echo "== $name: $tag computes the same bits as $base"
    else
      echo "== $name: $tag DIFFERS from $base (or failed):"; tail -n 12 "$log"
      variant_failures=$((variant_failures + 1))
    fi
  done
}

# time_variants NAME ENTRY TAG: the lowering variants NAME.TAG-* of a recipe,
# timed beside it (pool allocator; TIME_VARIANTS: only these variant tags,
# space separated; default all).
time_variants() {
  local name="$1" entry="$2" tag="$3" manifest variant
  for manifest in "$dir/$name.$tag"-*.cuda.manifest; do
    [ -e "$manifest" ] || continue
    variant="$(basename "${manifest%.cuda.manifest}")"
    variant="${variant#"$name".}"
    if [ -n "${TIME_VARIANTS:-}" ] && [[ " $TIME_VARIANTS " != *" ${variant#"$tag"-} "* ]]; then
      continue
    fi
    time_ours "$name" "$entry" "$variant" pool
  done
}

for manifest in "$dir"/*.mx.cuda.manifest; do
  name="$(basename "${manifest%.mx.cuda.manifest}")"
  entry="$(awk '$1 == "func" { print $2; exit }' "$manifest")"
  check_variants "$name" "$entry" mx
  while read -r tag recipe; do
    [ -e "$dir/$name.$tag.cuda.manifest" ] && check_variants "$name" "$entry" "$tag"
  done < <(cat "$dir/recipes.txt" 2>/dev/null)
  [ -n "${VARIANTS_ONLY:-}" ] && continue
  for alloc in device pool; do
    time_ours "$name" "$entry" mx "$alloc"
    time_ours "$name" "$entry" hp "$alloc"
  done
  time_variants "$name" "$entry" mx
  while read -r tag recipe; do
    [ -e "$dir/$name.$tag.cuda.manifest" ] || continue
    time_ours "$name" "$entry" "$tag" pool
    time_variants "$name" "$entry" "$tag"
    echo "== $name.$tag ($recipe) against $name.hp:"
    "$launch" "$work/$name.$tag.cuda.so" "$dir/$name.$tag.cuda.manifest" --entry="$entry" \
      --gpu="$gpu" --compare-with="$work/$name.hp.cuda.so:$entry" \
      --compare-manifest="$dir/$name.hp.cuda.manifest" 2>&1 | tail -n 12
  done < <(cat "$dir/recipes.txt" 2>/dev/null)
  tokens="${name##*_}"
  step=llama
  [[ "$name" == deepseek* ]] && step=moe
  echo "== torch peer: $step at $tokens tokens"
  python3 "$root/bench/device/torch_step_peer.py" --step "$step" --tokens "$tokens" \
    --source "$dir/src/$name.mlir" --repeat "$repeat" --warmup "$warmup" \
    --modes "$(step_modes "$step")" > "$work/$name.torch.jsonl" 2> "$work/$name.torch.err"
  cat "$work/$name.torch.jsonl"
  [ -s "$work/$name.torch.err" ] && tail -n 5 "$work/$name.torch.err"
  while read -r line; do
    mode="$(echo "$line" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["mode"])')"
    ms="$(echo "$line" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d.get("median_ms", "-"))')"
    case "$mode" in
      torchao_mx_emulated) what="torchao mx emu eager" ;;
      torchao_mx_emulated_compile) what="torchao mx emu comp" ;;
      torchao_float8_*) what="torchao ${mode#torchao_}" ;;
      *) what="torch bf16 $mode" ;;
    esac
    rows+=("$name|$what|-|$ms|-")
    # The Float8 rows' torchao peer: the same recipe, compiled.
    if [[ "$mode" == torchao_float8_*_compile ]]; then
      recipe="${mode#torchao_float8_}"; recipe="${recipe%_compile}"
      while read -r tag r; do
        [ "${r#float8_}" = "$recipe" ] && torchao_tag[$name.$tag]="$ms"
      done < <(cat "$dir/recipes.txt" 2>/dev/null)
    fi
    [ "$mode" = eager ] && eager[$name]="$ms"
    # The torchao peer of the goal: compiled where it runs, else eager.
    if [[ "$mode" == torchao_mx_emulated* ]] && [ "$ms" != - ] &&
       { [ "$mode" = torchao_mx_emulated_compile ] || [ -z "${torchao[$name]:-}" ]; }; then
      torchao[$name]="$ms"
    fi
  done < "$work/$name.torch.jsonl"
done

echo
echo "== steps: medians of $repeat calls after $warmup (CUDA events around the call; host clock), ratio = torch bf16 eager / this, vs ao = torchao MXFP8 emulated (compiled where it runs) / this, for the Float8 rows torchao Float8 of the same recipe compiled / this (> 1: this is faster)"
printf "%-24s %-20s %-7s %10s %10s %8s %8s\n" step what alloc "gpu ms" "host ms" "ratio" "vs ao"
# ratio BASE MS: BASE / MS with two decimals, or -.
ratio() {
  if [ -n "$1" ] && [ "$1" != - ] && [ "$2" != - ]; then
    awk -v b="$1" -v m="$2" 'BEGIN { printf "%.2f", b / m }'
  else
    echo -
  fi
}
for r in "${rows[@]}"; do
  IFS='|' read -r name what alloc ms host variant <<< "$r"
  ao="${torchao[$name]:-}"
  [ -n "$variant" ] && [ "$variant" != mx ] && [ "$variant" != hp ] &&
    ao="${torchao_tag[$name.$variant]:-}"
  printf "%-24s %-20s %-7s %10s %10s %8s %8s\n" "$name" "$what" "$alloc" "$ms" "$host" \
    "$(ratio "${eager[$name]:-}" "$ms")" "$(ratio "$ao" "$ms")"
done

# Where the time of each MX step goes, by kernel family and kernel.
if [ ${#profiles[@]} -gt 0 ]; then
  echo
  echo "== converted steps kernel by kernel (mxfp8-launch --profile-json; share = of the profiled call)"
  python3 "$root/bench/device/profile_table.py" --top 10 "${profiles[@]}" \
    | tee "${OUT:-$work}/step-profile.txt"
  [ -n "${OUT:-}" ] && cp "${profiles[@]}" "$OUT/" 2>/dev/null
fi
rm -rf "$work"
[ "$variant_failures" -eq 0 ]
