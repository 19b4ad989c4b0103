#!/usr/bin/env bash
#===- bench/device/cutlass-side-by-side.sh - our sm_100a GEMMs next to CUTLASS ===#
#
# Usage: bench/device/cutlass-side-by-side.sh [CUTLASS_TAR] [SET_DIR]
#
# Runs on the GPU machine (CUDA 13 nvcc, cuobjdump; no Blackwell GPU needed,
# nothing is launched). Builds a CUTLASS sm100 block-scaled MXFP8 GEMM,
# example 92_blackwell_moe_gemm_blockscaled_rcgrouped (e4m3 x e4m3 with
# ue8m0 scales, bf16 out; a 1-SM 128x256x128 kernel and a 2-SM 256x256x128
# one), from CUTLASS headers carried to the machine, and prints its kernels'
# registers, shared memory and SASS instruction mix next to our sm_100a GEMM
# kernels from the AOT artifacts. Nothing of CUTLASS enters the project: the
# tarball is carried in an ignored folder and unpacked under WORK_DIR.
#   1. unpacks CUTLASS_TAR (default: the newest .cutlass/cutlass-*.tar.xz:
#      include/, tools/util/include/, examples/common/ and the example);
#   2. nvcc -gencode=arch=compute_100a,code=sm_100a --keep -Xptxas -v on a
#      wrapper of the example whose main prints each kernel's
#      SharedStorageSize (CUTLASS's dynamic shared memory) and threads;
#      ptxas's report gives registers, spills and static shared memory;
#   3. scripts/sass-check.py on the CUTLASS cubin and on our GEMM kernels
#      (scripts/extract-cubins.py of SET_DIR/*.cuda.o, default
#      aot-artifacts/sm_100a): UTCQMMA, UTCCP, UTMALDG/UBLKCP, UTCBAR,
#      LDTM, BAR, SYNCS, FFMA, ... per kernel and the MMAs per mainloop;
#      ours also with SET_DIR/gemm-variants.txt (ptxas resources with the
#      dynamic shared memory of each launch, written by
#      bench/make-aot-artifacts.sh).
# Output: stdout; with OUT set (the device tool), also
# $OUT/cutlass-side-by-side.log and $OUT/cutlass-side-by-side.tar.gz (the
# CUTLASS PTX, ptxas report and SASS listings).
# Environment: WORK_DIR (default /tmp/mxfp8-cutlass), NVCC (default: PATH,
# then /usr/local/cuda/bin/nvcc), NVCC_THREADS (default 4).
# Exit status: 0 done, 2 a missing tarball, tool or build failure.
#
#===------------------------------------------------------------------------===#
set -uo pipefail
export LC_ALL=C PYTHONUNBUFFERED=1

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
tarball="${1:-$(ls -t "$root"/.cutlass/cutlass-*.tar.xz 2>/dev/null | head -n1)}"
set_dir="${2:-$root/aot-artifacts/sm_100a}"
work="${WORK_DIR:-/tmp/mxfp8-cutlass}"
example=examples/92_blackwell_moe_gemm/92_blackwell_moe_gemm_blockscaled_rcgrouped.cu
start=$(date +%s)
if [ -n "${OUT:-}" ] && mkdir -p "$OUT" 2>/dev/null; then
  exec > >(tee "$OUT/cutlass-side-by-side.log") 2>&1
fi

if [ -z "$tarball" ] || [ ! -f "$tarball" ]; then
  echo "cutlass-side-by-side: no CUTLASS tarball '${tarball}' (carry .cutlass/, see bench/README.md)" >&2
  exit 2
fi
nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
[ -x "$nvcc" ] || { echo "cutlass-side-by-side: no nvcc" >&2; exit 2; }
cuda_bin="$(dirname "$nvcc")"
cuobjdump="$(command -v cuobjdump || echo "$cuda_bin/cuobjdump")"

rm -rf "$work"
mkdir -p "$work/cutlass" "$work/keep"
echo "== CUTLASS: $(basename "$tarball") -> $work/cutlass"
tar -xJf "$tarball" -C "$work/cutlass" || exit 2
[ -f "$work/cutlass/$example" ] || { echo "cutlass-side-by-side: no $example in the tarball" >&2; exit 2; }

# 2. The wrapper: the example with its main renamed, and a main that prints
# what the launch would ask for.
cat > "$work/wrapper.cu" <<'EOF'
// Written by bench/device/cutlass-side-by-side.sh: includes the CUTLASS
// example and prints, per kernel, its dynamic shared memory and threads.
#define main cutlass_example_main
#include EXAMPLE
#undef main
#include <cstdio>

template <typename G> static void show(const char *name) {
  using K = typename G::GemmKernel;
  std::printf("kernel %s shared_storage=%d threads=%d min_blocks_per_sm=%d\n",
              name, int(K::SharedStorageSize), int(K::MaxThreadsPerBlock),
              int(K::MinBlocksPerMultiprocessor));
}

int main() {
#if defined(CUTLASS_ARCH_MMA_SM100_SUPPORTED)
  show<Gemm1SM>("1sm");
  show<Gemm2SM>("2sm");
  return 0;
#else
  std::printf("CUTLASS_ARCH_MMA_SM100_SUPPORTED is not defined\n");
  return 1;
#endif
}
EOF
echo "== nvcc $("$nvcc" --version | grep -o 'release [0-9.]*, V[0-9.]*'): sm_100a, --keep (a few minutes)"
build_start=$(date +%s)
if ! "$nvcc" -std=c++17 -O3 -gencode=arch=compute_100a,code=sm_100a \
    --expt-relaxed-constexpr --threads "${NVCC_THREADS:-4}" \
    -DEXAMPLE="\"$work/cutlass/$example\"" \
    -I"$work/cutlass/include" -I"$work/cutlass/tools/util/include" \
    -I"$work/cutlass/examples/common" \
    --keep --keep-dir "$work/keep" -Xptxas -v \
    -o "$work/cutlass-probe" "$work/wrapper.cu" > "$work/nvcc.log" 2>&1; then
  grep -m5 -i error "$work/nvcc.log"
  echo "cutlass-side-by-side: building the CUTLASS example failed (see $work/nvcc.log)" >&2
  exit 2
fi
echo "  built in $(( $(date +%s) - build_start )) s"
cubin="$(ls "$work/keep"/wrapper*.cubin 2>/dev/null | head -n1)"
[ -n "$cubin" ] || { echo "cutlass-side-by-side: no sm_100a cubin in $work/keep" >&2; exit 2; }

echo
echo "== CUTLASS: dynamic shared memory (SharedStorageSize) and threads per kernel"
"$work/cutlass-probe" | sed 's/^/  /'
echo
echo "== CUTLASS: ptxas -v of the GEMM kernels (cutlass::device_kernel, in compile order)"
awk '
  /Compiling entry function/ { match($0, /'"'"'[^'"'"']+'"'"'/); name = substr($0, RSTART + 1, RLENGTH - 2) }
  /bytes spill stores/ { spill = $0; sub(/^[ \t]+/, "", spill) }
  /Used [0-9]+ registers/ && name ~ /device_kernel/ {
    line = $0; sub(/.*Used/, "Used", line)
    printf "  %d: %s; %s\n", ++n, line, spill; name = ""
  }' "$work/nvcc.log"

echo
echo "== SASS instruction mix: CUTLASS (cutlass:k<i>, names below the table)"
python3 "$root/scripts/sass-check.py" "$cubin" --cuobjdump "$cuobjdump" --expect none \
  --only 'device_kernel' --label 'cutlass:' --legend --width 44 --dump "$work/sass"

echo
# Ours: the GEMM kernels of the converted main-job steps (the default
# lowering), else of every object of the set.
ours=("$set_dir"/*.mx.cuda.o)
[ -e "${ours[0]}" ] || ours=("$set_dir"/*.cuda.o)
if [ -e "${ours[0]}" ]; then
  echo "== SASS instruction mix: ours (GEMM kernels of $(basename -a "${ours[@]}" | tr '\n' ' '))"
  python3 "$root/scripts/extract-cubins.py" "${ours[@]}" --out "$work/ours" > "$work/ours.txt" ||
    echo "  (extract-cubins failed)"
  python3 "$root/scripts/sass-check.py" "$work/ours"/*.cubin --cuobjdump "$cuobjdump" --expect none \
    --only '^(grouped_gemm|gemm|scaled_mm|scaled_gmm)_(?!dequant)' --label 'ours:' \
    --width 68 --dump "$work/sass"
  if [ -f "$set_dir/gemm-variants.txt" ]; then
    echo
    echo "== ours: ptxas resources per GEMM form (static + dynamic shared memory), from $set_dir/gemm-variants.txt"
    sed 's/^/  /' "$set_dir/gemm-variants.txt"
  fi
else
  echo "== ours: no NAME.cuda.o in $set_dir (bench/make-aot-artifacts.sh writes the sm_100a set)"
fi
if [ -n "${OUT:-}" ] && [ -d "$OUT" ]; then
  tar -czf "$OUT/cutlass-side-by-side.tar.gz" -C "$work" nvcc.log sass keep/*.ptx 2>/dev/null &&
    echo "files: \$OUT/cutlass-side-by-side.tar.gz (ptxas report, PTX, SASS)"
fi
echo "cutlass-side-by-side: done in $(( $(date +%s) - start )) s"
