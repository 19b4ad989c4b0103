# Session 23 call 6: the promoted Float8 GEMMs with a promotion every 256
# contraction elements (float8-promote-interval=256: not pipelined, one
# accumulator set, half the adds) against the default 128, as kernels on
# K-major operands against torch._scaled_mm(use_fast_accum=False) in the
# same run (gpu-check timing cases, alternating, twice), and the two
# tensorwise e5m2 gradient GEMM cases of each lowering against float64.
L=/tmp/c6; mkdir -p $L
ONLY=""
for n in dgrad_w1_kmajor_tw dgrad_w2_kmajor_tw wgrad_w1_kmajor_tw dgrad_w2_kmajor; do
  ONLY="$ONLY --only f8_gemm_timing_llama_$n"
done
for r in 1 2; do
  for t in i128 i256; do
    echo "## .gpucheck-$t run $r"
    python3 scripts/gpu-check.py run --reps 30 $ONLY .gpucheck-$t 2>&1 | grep -E "^f8_|ours / torch|rror|mismatch|cases"
  done
done > $L/timing.txt
grep -E "^##|ours / torch|^f8_[dw]|cases" $L/timing.txt | sed -E 's/ +/ /g' | cut -c1-140
cp $L/timing.txt $OUT/
