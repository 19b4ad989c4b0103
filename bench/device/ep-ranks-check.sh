#!/usr/bin/env bash
#===- bench/device/ep-ranks-check.sh - the compiled MoE layer on N GPUs -----===#
#
# Usage:
#   bench/device/ep-ranks-check.sh prepare DIR   (here, where mxfp8-compile is)
#   bench/device/ep-ranks-check.sh run DIR       (on the GPU machine)
#
# prepare compiles bench/aot/moe_exchange.mlir for sm_90a (CHIP) into DIR:
# @ep_one_rank (the MoE layer and an all-reduce on a grid of one process)
# and @ep_two_ranks (the layer split over two processes: each rank its own
# tokens and half the experts), with their manifests.
#
# run builds the runtime and mxfp8-launch (launch-build.sh), links both and
# runs them with mxfp8-launch over NCCL on device buffers:
#   --comm=ranks:1 @ep_one_rank on GPU 0 (the rank-thread path with one rank);
#   --comm=ranks:2 @ep_two_ranks on GPUs 0 and 1 when the machine has two
#   (the nvidia-h200-x2 kind), else a SKIP line;
# and checks every rank's result against the independent numpy model of
# test/tools/mxfp8-launch/Inputs/check_moe_exchange.py (the same check the
# CPU runs of test/tools/mxfp8-launch/comm.test pass in CI). Logs in $OUT
# (else /tmp/ep-ranks-check). Exit status: 0 when every run check passed.
#
#===------------------------------------------------------------------------===#
set -uo pipefail
mode="${1:?usage: ep-ranks-check.sh prepare|run DIR}"
dir="${2:?usage: ep-ranks-check.sh prepare|run DIR}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
src="$root/bench/aot/moe_exchange.mlir"

if [ "$mode" = prepare ]; then
  compile="${BUILD_DIR:-$root/build}/bin/mxfp8-compile"
  mkdir -p "$dir"
  for entry in ep_one_rank ep_two_ranks; do
    "$compile" "$src" --entry="$entry" --device=cuda --chip="${CHIP:-sm_90a}" \
      -o "$dir/$entry.cuda.o" --manifest="$dir/$entry.cuda.manifest" || exit 1
  done
  echo "ep-ranks-check: prepared $dir"
  exit 0
fi

logs="${OUT:-/tmp/ep-ranks-check}"
mkdir -p "$logs"
# shellcheck source=bench/device/launch-build.sh
source "$root/bench/device/launch-build.sh"
build="/tmp/mxfp8-launch-build"
build_launch "$root" "$build" "$logs/lb" || exit 1
launch="$build/bin/mxfp8-launch"
gpus="$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')"
status=0
for entry in ep_one_rank ep_two_ranks; do
  ranks=1
  [ "$entry" = ep_two_ranks ] && ranks=2
  if [ "$gpus" -lt "$ranks" ]; then
    echo "SKIP $entry: --comm=ranks:$ranks needs $ranks GPUs, this machine has $gpus"
    continue
  fi
  link_object "$dir/$entry.cuda.o" "$dir/$entry.cuda.so" "$build/lib" || exit 1
  out="$logs/$entry"
  rm -rf "$out"
  timeout 300 "$launch" "$dir/$entry.cuda.so" "$dir/$entry.cuda.manifest" \
    --comm=ranks:"$ranks" --save-inputs --output-dir="$out" --repeat=5 --warmup=1 \
    > "$logs/$entry.log" 2>&1
  rc=$?
  cat "$logs/$entry.log"
  if [ $rc -ne 0 ]; then
    echo "FAIL $entry: mxfp8-launch exit $rc"
    status=1
    continue
  fi
  if [ "$ranks" = 1 ]; then
    python3 "$root/test/tools/mxfp8-launch/Inputs/check_moe_exchange.py" "$src" \
      "$out/rank0" | tee -a "$logs/$entry.log"
  else
    python3 "$root/test/tools/mxfp8-launch/Inputs/check_moe_exchange.py" "$src" \
      "$out" "$ranks" | tee -a "$logs/$entry.log"
  fi
  if [ "${PIPESTATUS[0]}" -ne 0 ]; then
    echo "FAIL $entry: the results differ from the model"
    status=1
  else
    echo "PASS $entry (--comm=ranks:$ranks, NCCL)"
  fi
done
exit $status
