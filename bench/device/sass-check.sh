#!/usr/bin/env bash
#===- bench/device/sass-check.sh - SASS of the sm_100a kernels -------------===#
#
# Usage: bench/device/sass-check.sh [SET_DIR]
#
# Runs on the GPU machine, whose CUDA 13 cuobjdump disassembles sm_100a
# cubins (no Blackwell GPU needed; nothing is launched), on an artifact set
# written here by bench/make-aot-artifacts.sh (default: aot-artifacts/sm_100a).
#   1. scripts/extract-cubins.py writes the cubins embedded in every
#      NAME.cuda.o of the set (and a list of their kernels);
#   2. scripts/sass-check.py disassembles them (`cuobjdump -sass`,
#      `cuobjdump -res-usage`) and prints one row per kernel: registers,
#      static shared memory, instructions, the counts of UTCQMMA (tcgen05
#      MMA), UTCCP (scale copies to tensor memory), UTMALDG/UBLKCP (TMA),
#      UTCBAR (tcgen05 commit), LDTM, BAR, SYNCS, FFMA, ..., local memory,
#      the mainloops (innermost loops with a tcgen05 MMA, their MMA counts),
#      and checks every kernel against the rules of
#      lib/Conversion/MXFP8TrainToGPU/sass-expectations.txt (e.g. 4 UTCQMMA,
#      2-3 UTCCP and 1 UTCBAR per K-stage of a block-scaled mainloop).
# Output: the table on stdout; with OUT set (the device tool), also
# $OUT/sass-check.log and the listings as $OUT/sass-check-sass.tar.gz.
# Environment: CUOBJDUMP (default: PATH, then $CUDA_HOME/bin, then
# /usr/local/cuda/bin), WORK_DIR (default /tmp/mxfp8-sass-check), EXPECT
# (another rules file).
# Exit status: 0 every rule holds, 1 a kernel breaks one, 2 a missing tool,
# set or cubin.
#
#===------------------------------------------------------------------------===#
set -uo pipefail
export LC_ALL=C PYTHONUNBUFFERED=1

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
set_dir="${1:-$root/aot-artifacts/sm_100a}"
work="${WORK_DIR:-/tmp/mxfp8-sass-check}"
if [ -n "${OUT:-}" ] && mkdir -p "$OUT" 2>/dev/null; then
  exec > >(tee "$OUT/sass-check.log") 2>&1
fi

objects=("$set_dir"/*.cuda.o)
if [ ! -e "${objects[0]}" ]; then
  echo "sass-check: no NAME.cuda.o in '$set_dir' (bench/make-aot-artifacts.sh writes the sm_100a set)" >&2
  exit 2
fi
cuobjdump="${CUOBJDUMP:-$(command -v cuobjdump || true)}"
for candidate in "${CUDA_HOME:-/usr/local/cuda}/bin/cuobjdump" /usr/local/cuda/bin/cuobjdump; do
  [ -z "$cuobjdump" ] && [ -x "$candidate" ] && cuobjdump="$candidate"
done
if [ -z "$cuobjdump" ]; then
  echo "sass-check: no cuobjdump (PATH, \$CUDA_HOME/bin, /usr/local/cuda/bin; or set CUOBJDUMP)" >&2
  exit 2
fi

rm -rf "$work"
mkdir -p "$work"
echo "== sass-check: $set_dir, $("$cuobjdump" --version | grep -o 'release [0-9.]*, V[0-9.]*')"
echo "== cubins of ${#objects[@]} objects"
if ! python3 "$root/scripts/extract-cubins.py" "${objects[@]}" --out "$work/cubins" \
    > "$work/cubins.txt"; then
  cat "$work/cubins.txt"
  echo "sass-check: extracting the cubins failed" >&2
  exit 2
fi
grep '^cubin' "$work/cubins.txt" | awk '{ print $3 }' | sort | uniq -c | sed 's/^/  /'
echo "  $(grep -c '^cubin' "$work/cubins.txt") cubins, $(grep '^  kernel' "$work/cubins.txt" | sort -u | wc -l) distinct kernel names"

echo "== kernels (rules: ${EXPECT:-lib/Conversion/MXFP8TrainToGPU/sass-expectations.txt})"
expect=()
[ -n "${EXPECT:-}" ] && expect=(--expect "$EXPECT")
python3 "$root/scripts/sass-check.py" "$work/cubins"/*.cubin --cuobjdump "$cuobjdump" \
  --dump "$work/sass" "${expect[@]}"
status=$?
if [ -n "${OUT:-}" ] && [ -d "$OUT" ]; then
  tar -czf "$OUT/sass-check-sass.tar.gz" -C "$work" sass cubins.txt 2>/dev/null &&
    echo "listings: \$OUT/sass-check-sass.tar.gz"
fi
exit $status
